// One-dimensional pooling (max, average, adaptive average and adaptive max) as the 2-D ops over a
// height-1 plane, and adaptive max pooling (issue #6): composites, so CPU and CUDA share them and the
// gradient comes through the parts (max_pool2d_with_indices, avg_pool2d, index_select, max).
//
// Note [Adaptive max pooling by gathering]
// Output cell i of a dimension covers input positions [floor(i * in / out), ceil((i + 1) * in / out)).
// The windows of both dims are gathered into (..., OH, OW, kh * kw) with every window padded to the
// longest by repeating its last position (a repeat never changes the maximum nor, coming after the
// original, which position is reported first), then reduced by max over the last dim. The index
// of the maximum is translated back to the flat input position h * W + w through a table.
#include <ATen/native/NativeFunctions.h>
#include <algorithm>
#include <vector>

namespace at::native {
namespace {

void check_pool1d_input(const char* op, const Tensor& self) {
  EMBER_CHECK(self.dim() == 2 || self.dim() == 3, "[", op, "] expected a 2-D (C, L) or 3-D (N, C, L) input; got shape ",
              self.sizes());
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[", op, "] expected a floating point input; got ", self.scalar_type());
}

int64_t one_value(const char* op, const char* name, IntArrayRef v) {
  EMBER_CHECK(v.size() == 1, "[", op, "] expected ", name, " to have 1 value; got ", v);
  return v[0];
}

struct Pool1d {
  int64_t k, s, p, d;
};

Pool1d pool1d_geometry(const char* op, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation) {
  check_pool1d_input(op, self);
  Pool1d g{};
  g.k = one_value(op, "kernel_size", kernel_size);
  g.s = stride.empty() ? g.k : one_value(op, "stride", stride);
  g.p = one_value(op, "padding", padding);
  g.d = one_value(op, "dilation", dilation);
  EMBER_CHECK(g.k > 0, "[", op, "] expected a positive kernel_size; got ", g.k);
  EMBER_CHECK(g.s > 0, "[", op, "] expected a positive stride; got ", g.s);
  EMBER_CHECK(g.d > 0, "[", op, "] expected a positive dilation; got ", g.d);
  EMBER_CHECK(g.p >= 0 && g.p <= g.k / 2, "[", op, "] expected padding between 0 and half the kernel size; got padding ",
              g.p, ", kernel_size ", g.k);
  const int64_t L = self.size(-1), span = g.d * (g.k - 1) + 1;
  EMBER_CHECK(L + 2 * g.p >= span, "[", op, "] the padded input (length ", L, " + 2 * ", g.p,
              ") is shorter than the dilated kernel (", span, ")");
  return g;
}

// Positions of the adaptive windows of one dim, each padded to the longest by repeating its last
// position: out * kmax entries. See Note [Adaptive max pooling by gathering].
std::vector<int64_t> adaptive_positions(int64_t in, int64_t out, int64_t& kmax) {
  kmax = 0;
  for (int64_t i = 0; i < out; ++i) kmax = std::max(kmax, ((i + 1) * in + out - 1) / out - (i * in) / out);
  std::vector<int64_t> pos;
  pos.reserve(static_cast<size_t>(out * kmax));
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = (i * in) / out, end = ((i + 1) * in + out - 1) / out;
    for (int64_t t = 0; t < kmax; ++t) pos.push_back(std::min(start + t, end - 1));
  }
  return pos;
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const Pool1d g = pool1d_geometry("max_pool1d", self, kernel_size, stride, padding, dilation);
  // On a height-1 plane the flat index h * W + w is the position itself.
  auto [values, indices] = at::max_pool2d_with_indices(self.unsqueeze(-2), {1, g.k}, {1, g.s}, {0, g.p}, {1, g.d}, ceil_mode);
  return {values.squeeze(-2), indices.squeeze(-2)};
}

Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(at::max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad) {
  const Pool1d g = pool1d_geometry("avg_pool1d", self, kernel_size, stride, padding, {1});
  return at::avg_pool2d(self.unsqueeze(-2), {1, g.k}, {1, g.s}, {0, g.p}, ceil_mode, count_include_pad, std::nullopt)
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  check_pool1d_input("adaptive_avg_pool1d", self);
  const int64_t out = one_value("adaptive_avg_pool1d", "output_size", output_size);
  EMBER_CHECK(out >= 0, "[adaptive_avg_pool1d] expected a non-negative output_size; got ", out);
  return at::adaptive_avg_pool2d(self.unsqueeze(-2), {1, out}).squeeze(-2);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_max_pool2d";
  EMBER_CHECK(self.dim() == 3 || self.dim() == 4, "[", op, "] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got shape ",
              self.sizes());
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[", op, "] expected a floating point input; got ", self.scalar_type());
  EMBER_CHECK(output_size.size() == 2, "[", op, "] expected output_size to have 2 values (one per spatial dim); got ",
              output_size);
  const int64_t nd = self.dim(), OH = output_size[0], OW = output_size[1];
  EMBER_CHECK(OH >= 0 && OW >= 0, "[", op, "] expected a non-negative output_size; got ", output_size);
  for (int64_t d = nd - 3; d < nd; ++d)
    EMBER_CHECK(self.size(d) > 0, "[", op, "] expected an input with non-zero channel and spatial sizes; got shape ",
                self.sizes());
  const int64_t H = self.size(nd - 2), W = self.size(nd - 1);
  std::vector<int64_t> lead(self.sizes().begin(), self.sizes().end() - 2);
  if (OH == 0 || OW == 0) {
    std::vector<int64_t> shape = lead;
    shape.insert(shape.end(), {OH, OW});
    return {at::empty(shape, self.options()), at::empty(shape, self.options().dtype(kLong))};
  }
  int64_t kh = 0, kw = 0;
  const std::vector<int64_t> hpos = adaptive_positions(H, OH, kh), wpos = adaptive_positions(W, OW, kw);
  const TensorOptions cpu_long = TensorOptions().dtype(kLong);
  const Tensor hidx = at::tensor(hpos, cpu_long).to(self.device());
  const Tensor widx = at::tensor(wpos, cpu_long).to(self.device());
  std::vector<int64_t> cells_shape = lead, flat_shape = lead;
  cells_shape.insert(cells_shape.end(), {OH, kh, OW, kw});
  flat_shape.insert(flat_shape.end(), {OH, OW, kh * kw});
  const Tensor cells = self.index_select(nd - 2, hidx).index_select(nd - 1, widx).reshape(cells_shape);
  const Tensor windows = cells.transpose(nd - 1, nd).reshape(flat_shape);  // (..., OH, OW, kh * kw)
  auto [values, slot] = windows.max(-1);
  // Flat input position of every (output cell, window slot).
  std::vector<int64_t> table;
  table.reserve(static_cast<size_t>(OH * OW * kh * kw));
  for (int64_t i = 0; i < OH; ++i)
    for (int64_t j = 0; j < OW; ++j)
      for (int64_t a = 0; a < kh; ++a)
        for (int64_t b = 0; b < kw; ++b)
          table.push_back(hpos[static_cast<size_t>(i * kh + a)] * W + wpos[static_cast<size_t>(j * kw + b)]);
  const Tensor positions = at::tensor(table, cpu_long).reshape({OH, OW, kh * kw}).to(self.device());
  std::vector<int64_t> expanded = lead;
  expanded.insert(expanded.end(), {OH, OW, kh * kw});
  const Tensor indices = positions.expand(expanded).gather(-1, slot.unsqueeze(-1)).squeeze(-1);
  return {values, indices};
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  check_pool1d_input("adaptive_max_pool1d", self);
  const int64_t out = one_value("adaptive_max_pool1d", "output_size", output_size);
  EMBER_CHECK(self.size(-1) > 0, "[adaptive_max_pool1d] expected a non-empty length; got shape ", self.sizes());
  // On a height-1 plane the flat index h * W + w is the position itself.
  auto [values, indices] = at::adaptive_max_pool2d(self.unsqueeze(-2), {1, out});
  return {values.squeeze(-2), indices.squeeze(-2)};
}

}  // namespace at::native
