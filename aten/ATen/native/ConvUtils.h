#pragma once
// Argument checks and output geometry of convolution (1-d to 3-d, plain and transposed) and 2-D and
// 3-D max pooling, shared by the CPU and CUDA kernels (kernels/{cpu,cuda}/conv.cpp,
// kernels/cpu/pool.cpp) and the composites over them (aten/native/Convolution.cpp), so every
// entry point raises the same errors.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/native/MatmulUtils.h>
#include <array>
#include <cstdint>
#include <vector>

namespace at::native::conv_utils {

/// One value per spatial dimension: a list of 1 is repeated, a list of 2 taken as is.
inline std::array<int64_t, 2> pair_of(const char* op, const char* name, IntArrayRef v) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2, "[", op, "] expected ", name, " to have 1 or 2 values (one per spatial dim); got ",
              v);
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

// ---------------------------------------------------------------- convolution of any rank
// Note [Convolution as a source-to-destination map]
// Every convolution, plain or transposed, is described as one plain ("canonical") convolution
// that maps a source (N, C, src...) to a destination (N, O, dst...) with a weight
// (O, C / G, k...): dst[o, j] = sum over c, t of w[o, c, t] * src[c, j * s - pl + t * d].
// A plain convolution's source is its input and its destination its output. A transposed
// convolution is the adjoint of that map: its input lives on the destination side (O = the
// input channels, which is also the weight's first dim) and its output on the source side
// (C = the output channels). So the transposed forward is the canonical backward-data pass, its
// input gradient the canonical forward, and its weight gradient the canonical backward-weights
// pass with the roles of the tensors swapped; kernels only ever run the three canonical passes.
// Spatial sizes live in three slots, front-filled with 1 (kernel, stride, dilation) and 0
// (padding) for rank 1 and 2, so that loops can be written once for three dims.

/// One convolution in canonical terms (see Note [Convolution as a source-to-destination map]).
struct ConvGeometry {
  int64_t nd = 2;            ///< spatial dims of the call: 1, 2 or 3
  bool transposed = false;
  int64_t N = 0, C = 0, O = 0, G = 1;  ///< batch, source channels, destination channels, groups
  std::array<int64_t, 3> src{1, 1, 1}, dst{1, 1, 1}, k{1, 1, 1};
  std::array<int64_t, 3> s{1, 1, 1}, pl{0, 0, 0}, pr{0, 0, 0}, d{1, 1, 1};
  /// Elements of one sample's source / destination plane set, and of one kernel.
  int64_t src_plane() const { return src[0] * src[1] * src[2]; }
  int64_t dst_plane() const { return dst[0] * dst[1] * dst[2]; }
  int64_t kernel() const { return k[0] * k[1] * k[2]; }
  /// The real spatial values (the last nd slots) of one of the arrays.
  std::vector<int64_t> spatial(const std::array<int64_t, 3>& a) const { return {a.begin() + (3 - nd), a.end()}; }
  /// (N, C, src...), (N, O, dst...) and the weight's shape.
  std::vector<int64_t> src_shape() const { return with_spatial({N, C}, src); }
  std::vector<int64_t> dst_shape() const { return with_spatial({N, O}, dst); }
  std::vector<int64_t> weight_shape() const { return with_spatial({O, C / G}, k); }
  /// The user's input and output shapes.
  std::vector<int64_t> input_shape() const { return transposed ? dst_shape() : src_shape(); }
  std::vector<int64_t> output_shape() const { return transposed ? src_shape() : dst_shape(); }
  /// Channels of the output (the bias length).
  int64_t out_channels() const { return transposed ? C : O; }

 private:
  std::vector<int64_t> with_spatial(std::vector<int64_t> head, const std::array<int64_t, 3>& a) const {
    auto sp = spatial(a);
    head.insert(head.end(), sp.begin(), sp.end());
    return head;
  }
};

/// A per-spatial-dim argument of rank nd: one value (repeated) or exactly nd values, placed in the
/// last nd of three slots; the leading slots hold `fill`.
inline std::array<int64_t, 3> spatial_arg(const char* op, const char* name, IntArrayRef v, int64_t nd, int64_t fill) {
  EMBER_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == nd, "[", op, "] expected ", name, " to have 1 or ", nd,
              " values (one per spatial dim); got ", v);
  std::array<int64_t, 3> out{fill, fill, fill};
  for (int64_t i = 0; i < nd; ++i) out[3 - nd + i] = v.size() == 1 ? v[0] : v[i];
  return out;
}

/// Checks a convolution's arguments (input (N, C, spatial...) with 1 to 3 spatial dims, weight
/// (out, in / groups, k...) or, transposed, (in, out / groups, k...)) and returns its geometry.
inline ConvGeometry check_conv(const char* op, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                               IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                               IntArrayRef output_padding, int64_t groups) {
  using matmul_utils::describe;
  EMBER_CHECK(input.defined() && weight.defined(), "[", op, "] expected defined input and weight tensors");
  EMBER_CHECK(input.dim() >= 3 && input.dim() <= 5, "[", op,
              "] expected a 3-D (N, C, L), 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input; got input ", describe(input));
  EMBER_CHECK(weight.dim() == input.dim(), "[", op, "] expected a ", input.dim(), "-D weight (",
              transposed ? "in_channels, out_channels / groups" : "out_channels, in_channels / groups",
              ", kernel sizes) for a ", input.dim(), "-D input; got weight ", describe(weight));
  EMBER_CHECK(input.scalar_type() == weight.scalar_type(), "[", op, "] expected input and weight of one dtype; got input ",
              describe(input), ", weight ", describe(weight));
  EMBER_CHECK(isFloatingType(input.scalar_type()), "[", op, "] expected a floating point input; got input ", describe(input));
  EMBER_CHECK(groups > 0, "[", op, "] expected groups > 0; got ", groups);
  ConvGeometry g;
  g.nd = input.dim() - 2;
  g.transposed = transposed;
  g.G = groups;
  g.N = input.size(0);
  const int64_t cin = input.size(1);
  EMBER_CHECK(cin % groups == 0, "[", op, "] expected input channels (", cin, ") divisible by groups (", groups, ")");
  if (transposed) {
    EMBER_CHECK(weight.size(0) == cin, "[", op, "] expected weight.size(0) (", weight.size(0),
                ") to equal the input channels (", cin, ") for a transposed convolution; got input ", describe(input), ", weight ",
                describe(weight));
    g.O = cin, g.C = weight.size(1) * groups;
  } else {
    g.C = cin, g.O = weight.size(0);
    EMBER_CHECK(g.O % groups == 0, "[", op, "] expected out channels (weight.size(0) = ", g.O, ") divisible by groups (", groups,
                ")");
    EMBER_CHECK(weight.size(1) * groups == g.C, "[", op, "] expected weight.size(1) * groups (", weight.size(1), " * ", groups,
                ") to equal the input channels (", g.C, "); got input ", describe(input), ", weight ", describe(weight));
  }
  if (bias && bias->defined()) {
    EMBER_CHECK(bias->dim() == 1 && bias->size(0) == g.out_channels(), "[", op, "] expected a 1-D bias of ", g.out_channels(),
                " elements (one per out channel); got bias ", describe(*bias));
    EMBER_CHECK(bias->scalar_type() == input.scalar_type(), "[", op, "] expected bias of the input's dtype; got input ",
                describe(input), ", bias ", describe(*bias));
  }
  const int64_t nd = g.nd;
  g.s = spatial_arg(op, "stride", stride, nd, 1);
  g.d = spatial_arg(op, "dilation", dilation, nd, 1);
  const auto p = spatial_arg(op, "padding", padding, nd, 0);
  const auto opad = spatial_arg(op, "output_padding", output_padding, nd, 0);
  for (int64_t i = 0; i < nd; ++i) g.k[3 - nd + i] = weight.size(2 + i);
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(g.s[i] > 0, "[", op, "] expected a positive stride; got ", stride);
    EMBER_CHECK(p[i] >= 0, "[", op, "] expected a non-negative padding; got ", padding);
    EMBER_CHECK(g.d[i] > 0, "[", op, "] expected a positive dilation; got ", dilation);
    EMBER_CHECK(g.k[i] > 0, "[", op, "] expected a non-empty kernel; got weight ", describe(weight));
    if (transposed) {
      EMBER_CHECK(opad[i] >= 0 && (opad[i] < g.s[i] || opad[i] < g.d[i]), "[", op,
                  "] expected each output_padding to be non-negative and smaller than its stride or its dilation; got output_padding ",
                  output_padding, ", stride ", stride, ", dilation ", dilation);
    }
  }
  // In 128 bits: hostile paddings, dilations and (empty) kernels must not wrap around.
  using wide = __int128;
  constexpr wide kMaxExtent = wide(1) << 62;
  for (int i = 0; i < 3; ++i) {
    const wide reach = wide(g.d[i]) * (g.k[i] - 1);  // kernel extent - 1
    EMBER_CHECK(wide(p[i]) < kMaxExtent && reach < kMaxExtent && wide(g.s[i]) < kMaxExtent, "[", op,
                "] expected stride, padding and dilation that keep sizes below 2^62; got stride ", stride, ", padding ", padding,
                ", dilation ", dilation);
    g.pl[i] = p[i];
    if (!transposed) {
      g.src[i] = i < 3 - nd ? 1 : input.size(2 + i - (3 - nd));
      const wide span = wide(g.src[i]) + 2 * wide(p[i]) - reach - 1;
      EMBER_CHECK(span >= 0, "[", op, "] expected an output size of at least 1: the input ", IntArrayRef(input.sizes()).slice(2),
                  " with padding ", padding, " is smaller than the kernel ", IntArrayRef(weight.sizes()).slice(2),
                  " with dilation ", dilation);
      EMBER_CHECK(span < kMaxExtent, "[", op, "] expected padding and dilation that keep sizes below 2^62; got padding ", padding,
                  ", dilation ", dilation);
      g.dst[i] = static_cast<int64_t>(span / g.s[i]) + 1;
      g.pr[i] = p[i];
    } else {
      g.dst[i] = i < 3 - nd ? 1 : input.size(2 + i - (3 - nd));
      const wide out = (wide(g.dst[i]) - 1) * g.s[i] - 2 * wide(p[i]) + reach + opad[i] + 1;
      EMBER_CHECK(out >= 1 && out < kMaxExtent, "[", op, "] expected an output size of at least 1: the input ",
                  IntArrayRef(input.sizes()).slice(2), " with stride ", stride, ", padding ", padding, ", dilation ", dilation,
                  ", output_padding ", output_padding, " and kernel ", IntArrayRef(weight.sizes()).slice(2),
                  " gives a size of ", static_cast<int64_t>(out));
      g.src[i] = static_cast<int64_t>(out);
      // Right padding that makes the canonical map land exactly on dst (may be negative when
      // output_padding is at least the stride, which only dilation allows).
      g.pr[i] = opad[i] < g.s[i] ? p[i] : p[i] - opad[i];
    }
  }
  return g;
}

/// Checks convolution_backward's grad_output against the forward's output shape and dtype.
inline void check_conv_grad_output(const char* op, const Tensor& grad_output, const Tensor& input, const ConvGeometry& g) {
  const auto shape = g.output_shape();
  EMBER_CHECK(grad_output.defined() && grad_output.sizes() == IntArrayRef(shape) && grad_output.scalar_type() == input.scalar_type(),
              "[", op, "] expected grad_output of shape ", IntArrayRef(shape), " and dtype ", c10::dtypeName(input.scalar_type()),
              "; got ", grad_output.defined() ? matmul_utils::describe(grad_output) : std::string("an undefined tensor"));
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


// ---------------------------------------------------------------- max pooling over 2 or 3 dims
/// Geometry of a max pooling in three spatial slots (depth, height, width); 2-D pooling has depth 1
/// (kernel 1, stride 1, no padding), so one loop nest serves both. See Note [Max pooling and NaN]
/// in kernels/cpu/pool.cpp for which element a window reports.
struct MaxPoolGeometry {
  int64_t planes = 0;  ///< N * C
  std::array<int64_t, 3> in{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0}, d{1, 1, 1}, out{1, 1, 1};
  /// Elements of one input / output plane (indices are flat positions within an input plane).
  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

/// The 2-D geometry in three slots (depth 1).
inline MaxPoolGeometry as_max_pool_geometry(const Pool2dGeometry& g) {
  MaxPoolGeometry m;
  m.planes = g.planes;
  m.in = {1, g.H, g.W}, m.k = {1, g.kh, g.kw}, m.s = {1, g.sh, g.sw}, m.p = {0, g.ph, g.pw}, m.d = {1, g.dh, g.dw};
  m.out = {1, g.OH, g.OW};
  return m;
}

/// Checks max_pool3d's arguments (input (C, D, H, W) or (N, C, D, H, W); each list 1 or 3 values, an
/// empty stride meaning the kernel size) and returns its geometry.
inline MaxPoolGeometry check_max_pool3d(const char* op, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  using matmul_utils::describe;
  EMBER_CHECK(self.defined(), "[", op, "] expected a defined input tensor");
  EMBER_CHECK(self.dim() == 4 || self.dim() == 5, "[", op, "] expected a 4-D (C, D, H, W) or 5-D (N, C, D, H, W) input; got ",
              describe(self));
  EMBER_CHECK(self.scalar_type() != kBool, "[", op, "] expected a non-bool input; got ", describe(self));
  MaxPoolGeometry g;
  g.k = spatial_arg(op, "kernel_size", kernel_size, 3, 1);
  g.s = stride.empty() ? g.k : spatial_arg(op, "stride", stride, 3, 1);
  g.p = spatial_arg(op, "padding", padding, 3, 0);
  g.d = spatial_arg(op, "dilation", dilation, 3, 1);
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(g.k[i] > 0, "[", op, "] expected a positive kernel_size; got ", kernel_size);
    EMBER_CHECK(g.s[i] > 0, "[", op, "] expected a positive stride; got ", stride);
    EMBER_CHECK(g.d[i] > 0, "[", op, "] expected a positive dilation; got ", dilation);
  }
  for (int i = 0; i < 3; ++i) {
    // Half the dilated kernel, as libtorch's 3-D check (in 128 bits: hostile sizes must not wrap).
    const __int128 half = (__int128(g.k[i] - 1) * g.d[i] + 1) / 2;
    EMBER_CHECK(g.p[i] >= 0 && g.p[i] <= half, "[", op,
                "] expected padding between 0 and half the dilated kernel size; got padding ", padding, ", kernel_size ",
                kernel_size, ", dilation ", dilation);
  }
  const int64_t nd = self.dim();
  for (int i = 0; i < 3; ++i) g.in[i] = self.size(nd - 3 + i);
  EMBER_CHECK(self.size(nd - 4) > 0 && (nd == 4 || self.size(0) > 0) && g.in_plane() > 0, "[", op,
              "] expected an input with non-zero sizes; got ", describe(self));
  g.planes = self.numel() / g.in_plane();
  for (int i = 0; i < 3; ++i) g.out[i] = pooled_size(g.in[i], g.k[i], g.s[i], g.p[i], g.d[i], ceil_mode);
  EMBER_CHECK(g.out[0] > 0 && g.out[1] > 0 && g.out[2] > 0, "[", op, "] expected an output size of at least 1; input ",
              describe(self), " with kernel_size ", kernel_size, ", padding ", padding, ", dilation ", dilation, " gives ",
              g.out[0], " x ", g.out[1], " x ", g.out[2]);
  return g;
}

/// The shape 3-D max pooling gives `self`: its sizes with the last three replaced by the output's.
inline std::vector<int64_t> pooled_shape(const Tensor& self, const MaxPoolGeometry& g) {
  std::vector<int64_t> s = self.sizes().vec();
  for (size_t i = 0; i < 3; ++i) s[s.size() - 3 + i] = g.out[i];
  return s;
}

/// Checks the gradient and indices given to max_pool3d_with_indices_backward.
inline void check_max_pool3d_backward(const char* op, const Tensor& grad_output, const Tensor& self, const Tensor& indices,
                                      const MaxPoolGeometry& g) {
  const auto shape = pooled_shape(self, g);
  EMBER_CHECK(grad_output.defined() && indices.defined() && grad_output.sizes() == IntArrayRef(shape) &&
                  indices.sizes() == IntArrayRef(shape),
              "[", op, "] expected grad_output and indices of the pooled shape ", IntArrayRef(shape), "; got grad_output ",
              grad_output.defined() ? grad_output.sizes() : IntArrayRef(), ", indices ",
              indices.defined() ? indices.sizes() : IntArrayRef());
  EMBER_CHECK(grad_output.scalar_type() == self.scalar_type(), "[", op, "] expected grad_output of the input's dtype (",
              c10::dtypeName(self.scalar_type()), "); got ", c10::dtypeName(grad_output.scalar_type()));
  EMBER_CHECK(indices.scalar_type() == kLong, "[", op, "] expected int64 indices; got ", c10::dtypeName(indices.scalar_type()));
}

// Whether the strides of a 4-d tensor order its dims as N, H, W, C (outermost first), by the rule
// of libtorch's suggest_memory_format: walking C, W, H, N, each stride must be at least the extent
// covered by the dims walked before it; a zero C stride, a zero size, or an N stride equal to the C
// stride (an ambiguous N111-like tensor) answers no, so ambiguous tensors stay NCHW. The CPU
// convolution picks channels-last from it (Note [Channels-last convolution]), and so does its Meta
// kernel.
inline bool suggests_channels_last(const Tensor& t) {
  if (t.dim() != 4 || t.stride(1) == 0) return false;
  int64_t covered = 0;
  for (int64_t d : {1, 3, 2, 0}) {
    if (t.size(d) == 0 || t.stride(d) < covered) return false;
    if (d == 0 && covered == t.stride(1)) return false;
    covered = t.size(d) > 1 ? t.stride(d) * t.size(d) : t.stride(d);
  }
  return true;
}

}  // namespace at::native::conv_utils

EMBER_PUBLIC_END
