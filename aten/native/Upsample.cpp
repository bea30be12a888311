// Upsampling composites: upsample_nearest{1,2,3}d, upsample_linear1d, upsample_bilinear2d and
// upsample_trilinear3d. Each resized dimension is gathered with index_select (nearest: one
// source position per output position; linear: two neighbours blended with per-position
// weights), so CPU and CUDA share the code and the gradient is index_select's scatter-add.
//
// Source positions follow libtorch's arithmetic (in float for float, half and bfloat16 inputs,
// in double for double), so the same neighbours and weights come out:
//   scale = 1 / scales[d] when a positive scale factor is given, else in / out;
//   nearest: src = min(floor(o * scale), in - 1)  (o when out == in, o / 2 when out == 2 in)
//   linear, align_corners: scale = (in - 1) / (out - 1) (0 for out == 1), x = o * scale
//   linear otherwise:      x = max(scale * (o + 0.5) - 0.5, 0)
//   i0 = min(floor(x), in - 1), i1 = i0 + (i0 < in - 1), w1 = clamp(x - i0, 0, 1), w0 = 1 - w1.
// Dimensions are resized last first, so out = (x00 w0 + x01 w1) h0 + (x10 w0 + x11 w1) h1 adds
// in libtorch's order.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/MatmulUtils.h>
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace at::native {
namespace {

using matmul_utils::describe;

template <typename T>
T scale_for(int64_t in, int64_t out, std::optional<double> scale) {
  if (scale.has_value() && *scale > 0) return static_cast<T>(1.0 / *scale);
  return static_cast<T>(in) / static_cast<T>(out);
}

std::vector<int64_t> nearest_sources(int64_t in, int64_t out, std::optional<double> scale) {
  std::vector<int64_t> src(static_cast<size_t>(out));
  const float s = scale_for<float>(in, out, scale);
  for (int64_t o = 0; o < out; ++o) {
    if (out == in) src[size_t(o)] = o;
    else if (out == 2 * in) src[size_t(o)] = o >> 1;
    else src[size_t(o)] = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
  }
  return src;
}

struct LinearTaps {
  std::vector<int64_t> i0, i1;
  std::vector<double> w0, w1;
};

template <typename T>
LinearTaps linear_taps_as(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  T s;
  if (align_corners) s = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  else s = scale_for<T>(in, out, scale);
  LinearTaps t;
  for (int64_t o = 0; o < out; ++o) {
    T x = align_corners ? s * static_cast<T>(o) : s * (static_cast<T>(o) + T(0.5)) - T(0.5);
    if (!align_corners && x < T(0)) x = T(0);
    const int64_t i0 = std::min(static_cast<int64_t>(std::floor(x)), in - 1);
    const T lambda = std::min(std::max(x - static_cast<T>(i0), T(0)), T(1));
    t.i0.push_back(i0);
    t.i1.push_back(i0 + (i0 < in - 1 ? 1 : 0));
    t.w1.push_back(static_cast<double>(lambda));
    t.w0.push_back(static_cast<double>(T(1) - lambda));
  }
  return t;
}

Tensor long_tensor(const std::vector<int64_t>& v, Device device) {
  return at::tensor(v, TensorOptions().dtype(kLong)).to(device);
}

// Weights shaped to broadcast along dim d of an nd-dim tensor.
Tensor weights_along(const std::vector<double>& w, const Tensor& like, int64_t d) {
  std::vector<int64_t> shape(static_cast<size_t>(like.dim()), 1);
  shape[size_t(d)] = static_cast<int64_t>(w.size());
  return at::tensor(w, TensorOptions().dtype(kDouble)).to(like.scalar_type()).reshape(shape).to(like.device());
}

Tensor linear_along(const Tensor& x, int64_t d, int64_t out, bool align_corners, std::optional<double> scale) {
  const int64_t in = x.size(d);
  const LinearTaps t = x.scalar_type() == kDouble ? linear_taps_as<double>(in, out, align_corners, scale)
                                                  : linear_taps_as<float>(in, out, align_corners, scale);
  const Tensor a = x.index_select(d, long_tensor(t.i0, x.device()));
  const Tensor b = x.index_select(d, long_tensor(t.i1, x.device()));
  return a.mul(weights_along(t.w0, x, d)).add(b.mul(weights_along(t.w1, x, d)));
}

// n spatial dims, input (N, C, spatial...) of n + 2 dims.
void check_upsample(const char* op, const Tensor& self, IntArrayRef output_size, int64_t n, bool linear) {
  EMBER_CHECK(self.defined(), "[", op, "] expected a defined input tensor");
  EMBER_CHECK(static_cast<int64_t>(output_size.size()) == n, "[", op, "] expected output_size of ", n, " values; got ",
              output_size);
  EMBER_CHECK(self.dim() == n + 2, "[", op, "] expected a ", n + 2, "-D input (N, C, ", n == 1 ? "W" : n == 2 ? "H, W" : "D, H, W",
              "); got ", describe(self));
  if (linear)
    EMBER_CHECK(isFloatingType(self.scalar_type()), "[", op, "] expected a floating point input; got ", describe(self));
  for (int64_t i = 0; i < n; ++i)
    EMBER_CHECK(self.size(2 + i) > 0 && output_size[size_t(i)] > 0, "[", op,
                "] expected input and output spatial sizes greater than 0; got input ", describe(self), " and output_size ",
                output_size);
  EMBER_CHECK(self.size(1) > 0, "[", op, "] expected a non-zero channel size; got input ", describe(self));
}

Tensor nearest_nd(const char* op, const Tensor& self, IntArrayRef output_size, const std::vector<std::optional<double>>& scales) {
  const int64_t n = static_cast<int64_t>(scales.size());
  check_upsample(op, self, output_size, n, /*linear=*/false);
  Tensor out = self;
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t d = 2 + i;
    out = out.index_select(d, long_tensor(nearest_sources(self.size(d), output_size[size_t(i)], scales[size_t(i)]), self.device()));
  }
  return out;
}

Tensor linear_nd(const char* op, const Tensor& self, IntArrayRef output_size, bool align_corners,
                 const std::vector<std::optional<double>>& scales) {
  const int64_t n = static_cast<int64_t>(scales.size());
  check_upsample(op, self, output_size, n, /*linear=*/true);
  Tensor out = self;
  for (int64_t i = n - 1; i >= 0; --i) out = linear_along(out, 2 + i, output_size[size_t(i)], align_corners, scales[size_t(i)]);
  return out;
}

}  // namespace

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales) {
  return nearest_nd("upsample_nearest1d", self, output_size, {scales});
}
Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return nearest_nd("upsample_nearest2d", self, output_size, {scales_h, scales_w});
}
Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_d,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return nearest_nd("upsample_nearest3d", self, output_size, {scales_d, scales_h, scales_w});
}
Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners, std::optional<double> scales) {
  return linear_nd("upsample_linear1d", self, output_size, align_corners, {scales});
}
Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners, std::optional<double> scales_h,
                           std::optional<double> scales_w) {
  return linear_nd("upsample_bilinear2d", self, output_size, align_corners, {scales_h, scales_w});
}
Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners, std::optional<double> scales_d,
                            std::optional<double> scales_h, std::optional<double> scales_w) {
  return linear_nd("upsample_trilinear3d", self, output_size, align_corners, {scales_d, scales_h, scales_w});
}

}  // namespace at::native
