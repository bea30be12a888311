// Average pooling composites: avg_pool2d, avg_pool3d and adaptive_avg_pool2d, written in ATen ops so one
// definition serves CPU and CUDA and autograd comes through the parts (pad, unfold, sum, div,
// index_select, where).
//
// avg_pool2d pads with zeros, takes every window as a view (two unfolds), sums each window and
// divides by a per-window divisor table. The divisor of a window starting at s (input
// coordinates, s may be negative inside the left padding) with kernel k is
//   count_include_pad: min(s + k, in + pad) - s          (the window clipped to the padded input)
//   otherwise:         min(s + k, in) - max(s, 0)        (only real input positions)
// per dimension, and the product over the dims; divisor_override replaces it. avg_pool3d is the
// same recipe over three dims.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>
#include <algorithm>
#include <array>
#include <vector>

namespace at::native {
namespace {

using conv_utils::pair_of;

// Divisors of one pooled dimension, one per output position.
std::vector<double> window_counts(int64_t in, int64_t k, int64_t s, int64_t p, int64_t out, bool count_include_pad) {
  std::vector<double> c(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * s - p;
    const int64_t end_padded = std::min(start + k, in + p);
    c[static_cast<size_t>(o)] = count_include_pad ? double(end_padded - start)
                                                  : double(std::min(start + k, in) - std::max<int64_t>(start, 0));
  }
  return c;
}

// avg_pool2d also takes int64 (as libtorch: integer window sums, divided with truncation).
void check_pool_input(const char* op, const Tensor& self, bool allow_long) {
  using matmul_utils::describe;
  EMBER_CHECK(self.defined(), "[", op, "] expected a defined input tensor");
  EMBER_CHECK(self.dim() == 3 || self.dim() == 4, "[", op, "] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got ",
              describe(self));
  EMBER_CHECK(isFloatingType(self.scalar_type()) || (allow_long && self.scalar_type() == kLong), "[", op,
              "] expected a floating point", allow_long ? " or int64" : "", " input; got ", describe(self));
}

// The adaptive windows of one dimension, [floor(i * in / out), ceil((i + 1) * in / out)), padded to
// the longest one: index (out * kmax positions, a padding slot repeats the window's start), valid
// (false in padding slots) and the window lengths.
struct AdaptiveWindows {
  int64_t kmax = 0;
  std::vector<int64_t> index;
  std::vector<bool> valid;
  std::vector<double> length;
};

AdaptiveWindows adaptive_windows(int64_t in, int64_t out) {
  AdaptiveWindows w;
  for (int64_t i = 0; i < out; ++i) w.kmax = std::max(w.kmax, ((i + 1) * in + out - 1) / out - (i * in) / out);
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = (i * in) / out, end = ((i + 1) * in + out - 1) / out;
    w.length.push_back(double(end - start));
    for (int64_t t = 0; t < w.kmax; ++t) {
      w.index.push_back(start + t < end ? start + t : start);
      w.valid.push_back(start + t < end);
    }
  }
  return w;
}

// Adaptive windows that do not tile the input: gathered into (..., OH, OW, khmax, kwmax) with zeros
// in the padding slots, and summed per window (averaging rows, then columns, would let a huge value
// swallow different neighbours than libtorch's window sums do).
Tensor adaptive_avg_pool2d_gather(const Tensor& self, int64_t OH, int64_t OW) {
  const int64_t nd = self.dim(), H = self.size(nd - 2), W = self.size(nd - 1);
  const AdaptiveWindows wh = adaptive_windows(H, OH), ww = adaptive_windows(W, OW);
  const TensorOptions cpu_long = TensorOptions().dtype(kLong);
  const Tensor hidx = at::tensor(wh.index, cpu_long).to(self.device());
  const Tensor widx = at::tensor(ww.index, cpu_long).to(self.device());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 2);
  std::vector<int64_t> rows_shape = shape, cells_shape = shape;
  rows_shape.insert(rows_shape.end(), {OH, wh.kmax, W});
  cells_shape.insert(cells_shape.end(), {OH, wh.kmax, OW, ww.kmax});
  const Tensor rows = self.index_select(nd - 2, hidx).reshape(rows_shape);             // (..., OH, khmax, W)
  Tensor cells = rows.index_select(nd, widx).reshape(cells_shape).transpose(nd - 1, nd);  // (..., OH, OW, khmax, kwmax)
  const Tensor hvalid = at::tensor(wh.valid).reshape({OH, 1, wh.kmax, 1});
  const Tensor wvalid = at::tensor(ww.valid).reshape({1, OW, 1, ww.kmax});
  const Tensor mask = hvalid.logical_and(wvalid).to(self.device());
  cells = at::where(mask, cells, at::zeros({}, cells.options()));
  std::vector<double> counts;
  counts.reserve(static_cast<size_t>(OH * OW));
  for (double a : wh.length)
    for (double b : ww.length) counts.push_back(a * b);
  const Tensor divisor = at::tensor(counts, TensorOptions().dtype(self.scalar_type())).reshape({OH, OW}).to(self.device());
  // libtorch adds a window's values one after another in row-major order; for small windows so
  // does this (one add per window position; a huge value then swallows the same neighbours).
  // Larger windows go through the reduction engine.
  const int64_t window = wh.kmax * ww.kmax;
  std::vector<int64_t> flat_shape = shape;
  flat_shape.insert(flat_shape.end(), {OH, OW, window});
  const Tensor flat = cells.reshape(flat_shape);
  constexpr int64_t kMaxSequentialWindow = 64;
  if (window > kMaxSequentialWindow) return flat.sum(std::vector<int64_t>{-1}).div(divisor);
  Tensor sums = flat.select(-1, 0);
  for (int64_t t = 1; t < window; ++t) sums = sums.add(flat.select(-1, t));
  return sums.div(divisor);
}

}  // namespace

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d";
  using matmul_utils::describe;
  check_pool_input(op, self, /*allow_long=*/true);
  const auto k = pair_of(op, "kernel_size", kernel_size);
  const auto s = stride.empty() ? k : pair_of(op, "stride", stride);
  const auto p = pair_of(op, "padding", padding);
  EMBER_CHECK(k[0] > 0 && k[1] > 0, "[", op, "] expected a positive kernel_size; got ", kernel_size);
  EMBER_CHECK(s[0] > 0 && s[1] > 0, "[", op, "] expected a positive stride; got ", stride);
  EMBER_CHECK(p[0] >= 0 && p[1] >= 0 && p[0] <= k[0] / 2 && p[1] <= k[1] / 2, "[", op,
              "] expected padding between 0 and half the kernel size; got padding ", padding, ", kernel_size ", kernel_size);
  EMBER_CHECK(!divisor_override.has_value() || *divisor_override != 0, "[", op, "] expected a non-zero divisor_override; got 0");
  const int64_t nd = self.dim();
  const int64_t H = self.size(nd - 2), W = self.size(nd - 1);
  EMBER_CHECK(self.size(nd - 3) > 0 && H > 0 && W > 0, "[", op, "] expected an input with non-zero channel and spatial sizes; got ",
              describe(self));
  const int64_t OH = conv_utils::pooled_size(H, k[0], s[0], p[0], 1, ceil_mode);
  const int64_t OW = conv_utils::pooled_size(W, k[1], s[1], p[1], 1, ceil_mode);
  EMBER_CHECK(OH > 0 && OW > 0, "[", op, "] expected an output size of at least 1; input ", describe(self), " with kernel_size ",
              kernel_size, " and padding ", padding, " gives ", OH, " x ", OW);
  // Pad so that every window (ceil_mode's last one may pass the right padding) lies inside.
  using wide = __int128;  // hostile kernel sizes and paddings must not wrap around
  constexpr wide kMaxExtent = wide(1) << 62;
  EMBER_CHECK(wide(H) + 2 * wide(p[0]) < kMaxExtent && wide(W) + 2 * wide(p[1]) < kMaxExtent &&
                  wide(OH - 1) * s[0] + k[0] < kMaxExtent && wide(OW - 1) * s[1] + k[1] < kMaxExtent,
              "[", op, "] expected kernel_size, stride and padding that keep sizes below 2^62; got kernel_size ", kernel_size,
              ", stride ", stride, ", padding ", padding);
  const int64_t LH = std::max(H + 2 * p[0], (OH - 1) * s[0] + k[0]);
  const int64_t LW = std::max(W + 2 * p[1], (OW - 1) * s[1] + k[1]);
  const Tensor padded = at::constant_pad_nd(self, {p[1], LW - W - p[1], p[0], LH - H - p[0]}, 0);
  const Tensor windows = padded.unfold(nd - 2, k[0], s[0]).unfold(nd - 1, k[1], s[1]).narrow(nd - 2, 0, OH).narrow(nd - 1, 0, OW);
  const Tensor sums = windows.sum(std::vector<int64_t>{-2, -1});
  const bool integral = self.scalar_type() == kLong;
  // A channels-last input gives a channels-last result, as libtorch's (Note [Channels-last pooling]
  // in kernels/cpu/pool.cpp).
  const bool cl = nd == 4 && conv_utils::suggests_channels_last(self);
  const auto in_layout = [&](const Tensor& r) { return cl ? r.contiguous(MemoryFormat::ChannelsLast) : r; };
  if (divisor_override.has_value()) {
    if (integral) return in_layout(sums.div(Scalar(*divisor_override), "trunc"));
    return in_layout(sums.div(Scalar(static_cast<double>(*divisor_override))));
  }
  const auto ch = window_counts(H, k[0], s[0], p[0], OH, count_include_pad);
  const auto cw = window_counts(W, k[1], s[1], p[1], OW, count_include_pad);
  std::vector<double> counts;
  counts.reserve(static_cast<size_t>(OH * OW));
  for (double a : ch)
    for (double b : cw) counts.push_back(a * b);
  const Tensor divisor = at::tensor(counts, TensorOptions().dtype(self.scalar_type())).reshape({OH, OW}).to(self.device());
  if (integral) return in_layout(sums.div(divisor, "trunc"));
  return in_layout(sums.div(divisor));
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool3d";
  using conv_utils::spatial_arg;
  using matmul_utils::describe;
  EMBER_CHECK(self.defined(), "[", op, "] expected a defined input tensor");
  EMBER_CHECK(self.dim() == 4 || self.dim() == 5, "[", op, "] expected a 4-D (C, D, H, W) or 5-D (N, C, D, H, W) input; got ",
              describe(self));
  EMBER_CHECK(isFloatingType(self.scalar_type()) || self.scalar_type() == kLong, "[", op,
              "] expected a floating point or int64 input; got ", describe(self));
  const auto k = spatial_arg(op, "kernel_size", kernel_size, 3, 1);
  const auto s = stride.empty() ? k : spatial_arg(op, "stride", stride, 3, 1);
  const auto p = spatial_arg(op, "padding", padding, 3, 0);
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(k[i] > 0, "[", op, "] expected a positive kernel_size; got ", kernel_size);
    EMBER_CHECK(s[i] > 0, "[", op, "] expected a positive stride; got ", stride);
    EMBER_CHECK(p[i] >= 0 && p[i] <= k[i] / 2, "[", op, "] expected padding between 0 and half the kernel size; got padding ",
                padding, ", kernel_size ", kernel_size);
  }
  EMBER_CHECK(!divisor_override.has_value() || *divisor_override != 0, "[", op, "] expected a non-zero divisor_override; got 0");
  const int64_t nd = self.dim();
  std::array<int64_t, 3> in{}, out{}, full{};
  for (int i = 0; i < 3; ++i) in[i] = self.size(nd - 3 + i);
  EMBER_CHECK(self.size(nd - 4) > 0 && in[0] > 0 && in[1] > 0 && in[2] > 0, "[", op,
              "] expected an input with non-zero channel and spatial sizes; got ", describe(self));
  using wide = __int128;  // hostile kernel sizes and paddings must not wrap around
  constexpr wide kMaxExtent = wide(1) << 62;
  for (int i = 0; i < 3; ++i) {
    out[i] = conv_utils::pooled_size(in[i], k[i], s[i], p[i], 1, ceil_mode);
    EMBER_CHECK(out[i] > 0, "[", op, "] expected an output size of at least 1; input ", describe(self), " with kernel_size ",
                kernel_size, " and padding ", padding, " gives a size of 0 in spatial dim ", i);
    EMBER_CHECK(wide(in[i]) + 2 * wide(p[i]) < kMaxExtent && wide(out[i] - 1) * s[i] + k[i] < kMaxExtent, "[", op,
                "] expected kernel_size, stride and padding that keep sizes below 2^62; got kernel_size ", kernel_size,
                ", stride ", stride, ", padding ", padding);
    // Padded so that every window (ceil_mode's last one may pass the right padding) lies inside.
    full[i] = std::max(in[i] + 2 * p[i], (out[i] - 1) * s[i] + k[i]);
  }
  const Tensor padded = at::constant_pad_nd(
      self, {p[2], full[2] - in[2] - p[2], p[1], full[1] - in[1] - p[1], p[0], full[0] - in[0] - p[0]}, 0);
  Tensor windows = padded;
  for (int i = 0; i < 3; ++i) windows = windows.unfold(nd - 3 + i, k[i], s[i]).narrow(nd - 3 + i, 0, out[i]);
  const Tensor sums = windows.sum(std::vector<int64_t>{-3, -2, -1});
  const bool integral = self.scalar_type() == kLong;
  if (divisor_override.has_value()) {
    if (integral) return sums.div(Scalar(*divisor_override), "trunc");
    return sums.div(Scalar(static_cast<double>(*divisor_override)));
  }
  const auto cd = window_counts(in[0], k[0], s[0], p[0], out[0], count_include_pad);
  const auto ch = window_counts(in[1], k[1], s[1], p[1], out[1], count_include_pad);
  const auto cw = window_counts(in[2], k[2], s[2], p[2], out[2], count_include_pad);
  std::vector<double> counts;
  counts.reserve(static_cast<size_t>(out[0] * out[1] * out[2]));
  for (double a : cd)
    for (double b : ch)
      for (double c : cw) counts.push_back(a * b * c);
  const Tensor divisor =
      at::tensor(counts, TensorOptions().dtype(self.scalar_type())).reshape({out[0], out[1], out[2]}).to(self.device());
  if (integral) return sums.div(divisor, "trunc");
  return sums.div(divisor);
}

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool2d";
  using matmul_utils::describe;
  check_pool_input(op, self, /*allow_long=*/false);
  EMBER_CHECK(output_size.size() == 2, "[", op, "] expected output_size to have 2 values (one per spatial dim); got ",
              output_size);
  const int64_t OH = output_size[0], OW = output_size[1];
  EMBER_CHECK(OH >= 0 && OW >= 0, "[", op, "] expected a non-negative output_size; got ", output_size);
  const int64_t nd = self.dim();
  for (int64_t d = nd - 3; d < nd; ++d)
    EMBER_CHECK(self.size(d) > 0, "[", op, "] expected an input with non-zero channel and spatial sizes; got ", describe(self));
  if (OH == 0 || OW == 0) {
    std::vector<int64_t> shape = self.sizes().vec();
    shape[static_cast<size_t>(nd - 2)] = OH;
    shape[static_cast<size_t>(nd - 1)] = OW;
    return at::zeros(shape, self.options());
  }
  const int64_t H = self.size(nd - 2), W = self.size(nd - 1);
  // Equal windows (the output size divides the input's; (1, 1) is the mean over both): avg_pool2d.
  if (H % OH == 0 && W % OW == 0)
    return at::avg_pool2d(self, {H / OH, W / OW}, {H / OH, W / OW}, {0, 0}, false, true, std::nullopt);
  return adaptive_avg_pool2d_gather(self, OH, OW);
}

}  // namespace at::native
