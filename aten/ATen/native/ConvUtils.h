#pragma once
// Argument checks and output geometry of 2-D convolution and max pooling, shared by the CPU
// kernels (kernels/cpu/conv.cpp, kernels/cpu/pool.cpp) and the composites over them
// (aten/native/Convolution.cpp), so every entry point raises the same errors. A future CUDA
// kernel (issue #6) shares them too.
#include <ATen/ATen.h>
#include <ATen/native/MatmulUtils.h>
#include <array>
#include <cstdint>
#include <vector>

namespace at::native::conv_utils {

/// Everything that defines one 2-D convolution: input (N, C, H, W), weight (O, C / G, KH, KW),
/// the output's spatial size, and the per-dimension stride, padding and dilation.
struct Conv2dGeometry {
  int64_t N = 0, C = 0, H = 0, W = 0;
  int64_t O = 0, KH = 0, KW = 0, G = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t OH = 0, OW = 0;
};

/// One value per spatial dimension: a list of 1 is repeated, a list of 2 taken as is.
inline std::array<int64_t, 2> pair_of(const char* op, const char* name, IntArrayRef v) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2, "[", op, "] expected ", name, " to have 1 or 2 values (one per spatial dim); got ",
              v);
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

/// Checks a non-transposed 2-D convolution's arguments and returns its geometry.
inline Conv2dGeometry check_conv2d(const char* op, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed, int64_t groups) {
  using matmul_utils::describe;
  EMBER_CHECK(input.defined() && weight.defined(), "[", op, "] expected defined input and weight tensors");
  EMBER_CHECK(input.dim() == 4, "[", op, "] expected a 4-D input (N, C, H, W); got input ", describe(input));
  EMBER_CHECK(weight.dim() == 4, "[", op, "] expected a 4-D weight (out_channels, in_channels / groups, kH, kW); got weight ",
              describe(weight));
  EMBER_CHECK(!transposed, "[", op, "] expected transposed=false (transposed convolution is not implemented yet, issue #6)");
  EMBER_CHECK(input.scalar_type() == weight.scalar_type(), "[", op, "] expected input and weight of one dtype; got input ",
              describe(input), ", weight ", describe(weight));
  EMBER_CHECK(isFloatingType(input.scalar_type()), "[", op, "] expected a floating point input; got input ", describe(input));
  EMBER_CHECK(groups > 0, "[", op, "] expected groups > 0; got ", groups);
  Conv2dGeometry g;
  g.N = input.size(0), g.C = input.size(1), g.H = input.size(2), g.W = input.size(3);
  g.O = weight.size(0), g.KH = weight.size(2), g.KW = weight.size(3), g.G = groups;
  EMBER_CHECK(g.C % groups == 0, "[", op, "] expected input channels (", g.C, ") divisible by groups (", groups, ")");
  EMBER_CHECK(g.O % groups == 0, "[", op, "] expected out channels (weight.size(0) = ", g.O, ") divisible by groups (", groups, ")");
  EMBER_CHECK(weight.size(1) * groups == g.C, "[", op, "] expected weight.size(1) * groups (", weight.size(1), " * ", groups,
              ") to equal the input channels (", g.C, "); got input ", describe(input), ", weight ", describe(weight));
  if (bias && bias->defined()) {
    EMBER_CHECK(bias->dim() == 1 && bias->size(0) == g.O, "[", op, "] expected a 1-D bias of ", g.O,
                " elements (one per out channel); got bias ", describe(*bias));
    EMBER_CHECK(bias->scalar_type() == input.scalar_type(), "[", op, "] expected bias of the input's dtype; got input ",
                describe(input), ", bias ", describe(*bias));
  }
  auto s = pair_of(op, "stride", stride), p = pair_of(op, "padding", padding), d = pair_of(op, "dilation", dilation);
  g.sh = s[0], g.sw = s[1], g.ph = p[0], g.pw = p[1], g.dh = d[0], g.dw = d[1];
  EMBER_CHECK(g.sh > 0 && g.sw > 0, "[", op, "] expected a positive stride; got ", stride);
  EMBER_CHECK(g.ph >= 0 && g.pw >= 0, "[", op, "] expected a non-negative padding; got ", padding);
  EMBER_CHECK(g.dh > 0 && g.dw > 0, "[", op, "] expected a positive dilation; got ", dilation);
  EMBER_CHECK(g.KH > 0 && g.KW > 0, "[", op, "] expected a non-empty kernel; got weight ", describe(weight));
  // In 128 bits: hostile paddings, dilations and (empty) kernels must not wrap around.
  using wide = __int128;
  const wide eh = wide(g.H) + 2 * wide(g.ph) - wide(g.dh) * (g.KH - 1) - 1, ew = wide(g.W) + 2 * wide(g.pw) - wide(g.dw) * (g.KW - 1) - 1;
  EMBER_CHECK(eh >= 0 && ew >= 0, "[", op, "] expected an output size of at least 1: the input (", g.H, " x ", g.W,
              ") with padding ", padding, " is smaller than the kernel (", g.KH, " x ", g.KW, ") with dilation ", dilation);
  constexpr wide kMaxExtent = wide(1) << 62;
  const bool bounded = wide(g.ph) < kMaxExtent && wide(g.pw) < kMaxExtent && wide(g.dh) * (g.KH - 1) < kMaxExtent &&
                       wide(g.dw) * (g.KW - 1) < kMaxExtent && eh < kMaxExtent && ew < kMaxExtent;
  EMBER_CHECK(bounded, "[", op, "] expected padding and dilation that keep sizes below 2^62; got padding ",
              padding, ", dilation ", dilation);
  g.OH = static_cast<int64_t>(eh / g.sh) + 1;
  g.OW = static_cast<int64_t>(ew / g.sw) + 1;
  return g;
}

/// Geometry of a 2-D max pooling over (C, H, W) or (N, C, H, W).
struct Pool2dGeometry {
  int64_t planes = 0, H = 0, W = 0;  // planes = N * C
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t OH = 0, OW = 0;
};

/// Output length of one pooled dimension; with ceil_mode the last window must start inside the
/// input or the left padding.
inline int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  using wide = __int128;  // hostile kernel sizes and dilations must not wrap around
  const wide span = wide(in) + 2 * wide(p) - wide(d) * (k - 1) - 1;
  if (span < 0) return 0;
  wide out = (ceil_mode ? span + s - 1 : span) / s + 1;
  if (ceil_mode && (out - 1) * s >= wide(in) + p) --out;
  return static_cast<int64_t>(out);
}

/// Checks max_pool2d's arguments and returns its geometry.
inline Pool2dGeometry check_max_pool2d(const char* op, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  using matmul_utils::describe;
  EMBER_CHECK(self.dim() == 3 || self.dim() == 4, "[", op, "] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got ",
              describe(self));
  EMBER_CHECK(self.scalar_type() != kBool, "[", op, "] expected a non-bool input; got ", describe(self));
  Pool2dGeometry g;
  auto k = pair_of(op, "kernel_size", kernel_size);
  auto s = stride.empty() ? k : pair_of(op, "stride", stride);
  auto p = pair_of(op, "padding", padding), d = pair_of(op, "dilation", dilation);
  g.kh = k[0], g.kw = k[1], g.sh = s[0], g.sw = s[1], g.ph = p[0], g.pw = p[1], g.dh = d[0], g.dw = d[1];
  EMBER_CHECK(g.kh > 0 && g.kw > 0, "[", op, "] expected a positive kernel_size; got ", kernel_size);
  EMBER_CHECK(g.sh > 0 && g.sw > 0, "[", op, "] expected a positive stride; got ", stride);
  EMBER_CHECK(g.dh > 0 && g.dw > 0, "[", op, "] expected a positive dilation; got ", dilation);
  EMBER_CHECK(g.ph >= 0 && g.pw >= 0 && g.ph <= g.kh / 2 && g.pw <= g.kw / 2, "[", op,
              "] expected padding between 0 and half the kernel size; got padding ", padding, ", kernel_size ", kernel_size);
  const int64_t nd = self.dim();
  g.H = self.size(nd - 2), g.W = self.size(nd - 1);
  g.planes = self.numel() / std::max<int64_t>(g.H * g.W, 1);
  if (g.H * g.W == 0) g.planes = self.size(nd - 3) * (nd == 4 ? self.size(0) : 1);
  EMBER_CHECK(self.size(nd - 3) > 0 && (nd == 3 || self.size(0) > 0) && g.H > 0 && g.W > 0, "[", op,
              "] expected an input with non-zero sizes; got ", describe(self));
  g.OH = pooled_size(g.H, g.kh, g.sh, g.ph, g.dh, ceil_mode);
  g.OW = pooled_size(g.W, g.kw, g.sw, g.pw, g.dw, ceil_mode);
  EMBER_CHECK(g.OH > 0 && g.OW > 0, "[", op, "] expected an output size of at least 1; input ", describe(self), " with kernel_size ",
              kernel_size, ", padding ", padding, ", dilation ", dilation, " gives ", g.OH, " x ", g.OW);
  return g;
}

/// The shape max pooling gives `self`: its sizes with the last two replaced by (OH, OW).
inline std::vector<int64_t> pooled_shape(const Tensor& self, const Pool2dGeometry& g) {
  std::vector<int64_t> s = self.sizes().vec();
  s[s.size() - 2] = g.OH;
  s[s.size() - 1] = g.OW;
  return s;
}

/// Checks the gradient and indices given to max_pool2d_with_indices_backward (device checks are
/// the kernels' own).
inline void check_max_pool2d_backward(const char* op, const Tensor& grad_output, const Tensor& self, const Tensor& indices,
                                      const Pool2dGeometry& g) {
  const auto shape = pooled_shape(self, g);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(shape) && indices.sizes() == IntArrayRef(shape), "[", op,
              "] expected grad_output and indices of the pooled shape ", IntArrayRef(shape), "; got grad_output ",
              grad_output.sizes(), ", indices ", indices.sizes());
  EMBER_CHECK(grad_output.scalar_type() == self.scalar_type(), "[", op, "] expected grad_output of the input's dtype (",
              c10::dtypeName(self.scalar_type()), "); got ", c10::dtypeName(grad_output.scalar_type()));
  EMBER_CHECK(indices.scalar_type() == kLong, "[", op, "] expected int64 indices; got ", c10::dtypeName(indices.scalar_type()));
}

/// Checks convolution_backward's grad_output against the forward's output shape and dtype.
inline void check_conv2d_grad_output(const char* op, const Tensor& grad_output, const Tensor& input, const Conv2dGeometry& g) {
  EMBER_CHECK(grad_output.sizes() == IntArrayRef({g.N, g.O, g.OH, g.OW}) && grad_output.scalar_type() == input.scalar_type(),
              "[", op, "] expected grad_output of shape [", g.N, ", ", g.O, ", ", g.OH, ", ", g.OW, "] and dtype ",
              c10::dtypeName(input.scalar_type()), "; got ", matmul_utils::describe(grad_output));
}

}  // namespace at::native::conv_utils
