// Sliding blocks and sub-pixel shuffles: im2col / col2im (nn::functional::unfold / fold) and
// pixel_shuffle / pixel_unshuffle, as composites.
//
// im2col pads with zeros, gathers the rows every kernel row touches (index_select along H, one
// table of kh * OH rows), then the columns (kw * OW), and reorders to (N, C * kh * kw, OH * OW).
// col2im is its adjoint: every column entry is scatter-added onto its position in the padded
// image (one flat index per (ki, kj, oh, ow)), in the column tensor's order, and the padding is
// cut away. Each is the other's gradient through index_select / scatter_add.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/native/MatmulUtils.h>
#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace at::native {
namespace {

using conv_utils::pair_of;
using matmul_utils::describe;

struct BlockGeometry {
  std::array<int64_t, 2> k, d, p, s;
};

BlockGeometry block_geometry(const char* op, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                             IntArrayRef stride) {
  BlockGeometry g{pair_of(op, "kernel_size", kernel_size), pair_of(op, "dilation", dilation), pair_of(op, "padding", padding),
                  pair_of(op, "stride", stride)};
  EMBER_CHECK(g.k[0] > 0 && g.k[1] > 0, "[", op, "] expected a positive kernel_size; got ", kernel_size);
  EMBER_CHECK(g.d[0] > 0 && g.d[1] > 0, "[", op, "] expected a positive dilation; got ", dilation);
  EMBER_CHECK(g.p[0] >= 0 && g.p[1] >= 0, "[", op, "] expected a non-negative padding; got ", padding);
  EMBER_CHECK(g.s[0] > 0 && g.s[1] > 0, "[", op, "] expected a positive stride; got ", stride);
  return g;
}

// Number of block positions along a dim of size `in` (may be <= 0 when the block does not fit).
int64_t blocks_along(int64_t in, int64_t k, int64_t d, int64_t p, int64_t s) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

// Padded-input positions the kernel offsets touch: entry (ki, o) = ki * dilation + o * stride.
std::vector<int64_t> touched(int64_t k, int64_t d, int64_t s, int64_t out) {
  std::vector<int64_t> v;
  v.reserve(static_cast<size_t>(k * out));
  for (int64_t ki = 0; ki < k; ++ki)
    for (int64_t o = 0; o < out; ++o) v.push_back(ki * d + o * s);
  return v;
}

Tensor long_tensor(const std::vector<int64_t>& v, Device device) {
  return at::tensor(v, TensorOptions().dtype(kLong)).to(device);
}

}  // namespace

Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  const char* op = "im2col";
  EMBER_CHECK(self.defined(), "[", op, "] expected a defined input tensor");
  const BlockGeometry g = block_geometry(op, kernel_size, dilation, padding, stride);
  EMBER_CHECK(self.dim() == 3 || self.dim() == 4, "[", op, "] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got ",
              describe(self));
  const bool batched = self.dim() == 4;
  const Tensor x = batched ? self : self.unsqueeze(0);
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  EMBER_CHECK(C > 0 && H > 0 && W > 0, "[", op, "] expected non-zero channel and spatial sizes; got input ", describe(self));
  const int64_t OH = blocks_along(H, g.k[0], g.d[0], g.p[0], g.s[0]);
  const int64_t OW = blocks_along(W, g.k[1], g.d[1], g.p[1], g.s[1]);
  EMBER_CHECK(OH > 0 && OW > 0, "[", op, "] expected the (dilated) kernel to fit the padded input; input ", describe(self),
              " with kernel_size ", kernel_size, ", dilation ", dilation, ", padding ", padding, " gives ", OH, " x ", OW,
              " blocks");
  const Tensor padded = at::constant_pad_nd(x, {g.p[1], g.p[1], g.p[0], g.p[0]}, 0);
  const Tensor rows = padded.index_select(2, long_tensor(touched(g.k[0], g.d[0], g.s[0], OH), x.device()));
  const Tensor cells = rows.index_select(3, long_tensor(touched(g.k[1], g.d[1], g.s[1], OW), x.device()));
  const Tensor cols = cells.reshape({N, C, g.k[0], OH, g.k[1], OW})
                          .permute({0, 1, 2, 4, 3, 5})
                          .reshape({N, C * g.k[0] * g.k[1], OH * OW});
  return batched ? cols : cols.squeeze(0);
}

Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  const char* op = "col2im";
  EMBER_CHECK(self.defined(), "[", op, "] expected a defined input tensor");
  const BlockGeometry g = block_geometry(op, kernel_size, dilation, padding, stride);
  const auto out = pair_of(op, "output_size", output_size);
  EMBER_CHECK(out[0] > 0 && out[1] > 0, "[", op, "] expected a positive output_size; got ", output_size);
  EMBER_CHECK(self.dim() == 2 || self.dim() == 3, "[", op, "] expected a 2-D (C * kh * kw, L) or 3-D (N, C * kh * kw, L) input; got ",
              describe(self));
  const bool batched = self.dim() == 3;
  const Tensor x = batched ? self : self.unsqueeze(0);
  const int64_t N = x.size(0), K = g.k[0] * g.k[1];
  EMBER_CHECK(x.size(1) > 0 && x.size(1) % K == 0, "[", op, "] expected dim ", batched ? 1 : 0,
              " of the input to be a non-zero multiple of the kernel's size ", K, " (", g.k[0], " x ", g.k[1], "); got ",
              describe(self));
  const int64_t C = x.size(1) / K;
  const int64_t OH = blocks_along(out[0], g.k[0], g.d[0], g.p[0], g.s[0]);
  const int64_t OW = blocks_along(out[1], g.k[1], g.d[1], g.p[1], g.s[1]);
  EMBER_CHECK(OH > 0 && OW > 0 && x.size(2) == OH * OW, "[", op, "] expected ", std::max<int64_t>(OH, 0) * std::max<int64_t>(OW, 0),
              " blocks (", OH, " x ", OW, " for output_size ", output_size, ", kernel_size ", kernel_size, ", dilation ", dilation,
              ", padding ", padding, ", stride ", stride, ") in the last input dim; got input ", describe(self));
  const int64_t HP = out[0] + 2 * g.p[0], WP = out[1] + 2 * g.p[1];
  // Flat padded-image position of each column entry, in (ki, kj, oh, ow) order.
  std::vector<int64_t> target;
  target.reserve(static_cast<size_t>(K * OH * OW));
  for (int64_t ki = 0; ki < g.k[0]; ++ki)
    for (int64_t kj = 0; kj < g.k[1]; ++kj)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) target.push_back((ki * g.d[0] + oh * g.s[0]) * WP + kj * g.d[1] + ow * g.s[1]);
  const Tensor index = long_tensor(target, x.device()).reshape({1, 1, K * OH * OW}).expand({N, C, K * OH * OW}).contiguous();
  const Tensor image = at::zeros({N, C, HP * WP}, x.options())
                           .scatter_add(2, index, x.reshape({N, C, K * OH * OW}))
                           .reshape({N, C, HP, WP})
                           .narrow(2, g.p[0], out[0])
                           .narrow(3, g.p[1], out[1]);
  return batched ? image : image.squeeze(0);
}

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  const char* op = "pixel_shuffle";
  EMBER_CHECK(self.defined() && self.dim() >= 3, "[", op, "] expected an input of at least 3 dims (*, C * r^2, H, W); got ",
              self.defined() ? describe(self) : std::string("an undefined tensor"));
  const int64_t r = upscale_factor;
  EMBER_CHECK(r > 0, "[", op, "] expected a positive upscale_factor; got ", r);
  const int64_t nd = self.dim(), C = self.size(nd - 3), H = self.size(nd - 2), W = self.size(nd - 1);
  EMBER_CHECK(C % (r * r) == 0, "[", op, "] expected the channel count (dim -3) to be divisible by upscale_factor^2 = ", r * r,
              "; got input ", describe(self));
  std::vector<int64_t> lead(self.sizes().begin(), self.sizes().end() - 3);
  const int64_t nl = static_cast<int64_t>(lead.size());
  std::vector<int64_t> split = lead, perm, merged = lead;
  split.insert(split.end(), {C / (r * r), r, r, H, W});
  for (int64_t i = 0; i < nl; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nl, nl + 3, nl + 1, nl + 4, nl + 2});  // (C', H, r, W, r)
  merged.insert(merged.end(), {C / (r * r), H * r, W * r});
  return self.reshape(split).permute(perm).reshape(merged);
}

Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  const char* op = "pixel_unshuffle";
  EMBER_CHECK(self.defined() && self.dim() >= 3, "[", op, "] expected an input of at least 3 dims (*, C, H * r, W * r); got ",
              self.defined() ? describe(self) : std::string("an undefined tensor"));
  const int64_t r = downscale_factor;
  EMBER_CHECK(r > 0, "[", op, "] expected a positive downscale_factor; got ", r);
  const int64_t nd = self.dim(), C = self.size(nd - 3), H = self.size(nd - 2), W = self.size(nd - 1);
  EMBER_CHECK(H % r == 0 && W % r == 0, "[", op, "] expected height and width (dims -2, -1) divisible by downscale_factor ", r,
              "; got input ", describe(self));
  std::vector<int64_t> lead(self.sizes().begin(), self.sizes().end() - 3);
  const int64_t nl = static_cast<int64_t>(lead.size());
  std::vector<int64_t> split = lead, perm, merged = lead;
  split.insert(split.end(), {C, H / r, r, W / r, r});
  for (int64_t i = 0; i < nl; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nl, nl + 2, nl + 4, nl + 1, nl + 3});  // (C, r, r, H', W')
  merged.insert(merged.end(), {C * r * r, H / r, W / r});
  return self.reshape(split).permute(perm).reshape(merged);
}

}  // namespace at::native
