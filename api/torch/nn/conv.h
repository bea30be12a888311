#pragma once
// Convolution layers of 1 to 3 spatial dims: nn::Conv1d/2d/3d and nn::ConvTranspose1d/2d/3d,
// their options, and the functionals F::conv1d/2d/3d and F::conv_transpose1d/2d/3d (over the
// composites in aten/native/Convolution.cpp).
//   torch::nn::Conv1d conv(torch::nn::Conv1dOptions(16, 32, 5).padding(torch::kSame).padding_mode(torch::kCircular));
//   torch::nn::ConvTranspose2d up(torch::nn::ConvTranspose2dOptions(128, 64, 4).stride(2).padding(1).bias(false));
//   auto y = up(x, std::vector<int64_t>{14, 14});  // output_size picks the output_padding
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/arg.h>
#include <torch/enum.h>
#include <torch/expanding_array.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <variant>

namespace torch::nn {

namespace detail {
/// A convolution's padding: sizes (zeros, or by padding_mode), torch::kValid (none) or
/// torch::kSame (keeps the size; stride 1 only).
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
/// How a Conv layer fills its padding.
using conv_padding_mode_t = std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;
}  // namespace detail

/// Options of Conv1d/2d/3d (libtorch's fields and defaults): stride 1, padding 0 (sizes, kValid or
/// kSame), dilation 1, groups 1, bias, padding_mode kZeros.
template <size_t D>
struct ConvOptions {
  using padding_t = detail::conv_padding_t<D>;
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(padding_t, padding) = 0;
  /// padding({1, 2}): one size per spatial dim.
 public:
  ConvOptions& padding(std::initializer_list<int64_t> sizes) { return padding(padding_t(ExpandingArray<D>(sizes))); }
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(padding_mode_t, padding_mode) = torch::kZeros;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

/// Options of ConvTranspose1d/2d/3d: stride 1, padding 0, output_padding 0, groups 1, bias,
/// dilation 1, padding_mode (only kZeros is accepted by forward, as in libtorch).
template <size_t D>
struct ConvTransposeOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, output_padding) = 0;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(padding_mode_t, padding_mode) = torch::kZeros;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace functional {

/// Options of F::conv1d/2d/3d: bias and geometry (the weight is an argument). Padding is zeros.
template <size_t D>
struct ConvFuncOptions {
  using padding_t = detail::conv_padding_t<D>;
  TORCH_ARG(at::Tensor, bias);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(padding_t, padding) = 0;
  /// padding({1, 2}): one size per spatial dim.
 public:
  ConvFuncOptions& padding(std::initializer_list<int64_t> sizes) { return padding(padding_t(ExpandingArray<D>(sizes))); }
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

/// Options of F::conv_transpose1d/2d/3d.
template <size_t D>
struct ConvTransposeFuncOptions {
  TORCH_ARG(at::Tensor, bias);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, output_padding) = 0;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

namespace conv_impl {
inline std::optional<at::Tensor> optional_bias(const at::Tensor& b) {
  return b.defined() ? std::optional<at::Tensor>(b) : std::nullopt;
}
// Calls at::conv1d/2d/3d (`conv`, numeric padding) or its "same"/"valid" overload.
template <size_t D, typename Fn>
at::Tensor conv_with(Fn conv, const at::Tensor& input, const at::Tensor& weight, const ConvFuncOptions<D>& o) {
  const auto b = optional_bias(o.bias());
  const at::IntArrayRef stride = o.stride(), dilation = o.dilation();
  if (const auto* sizes = std::get_if<ExpandingArray<D>>(&o.padding())) {
    const at::IntArrayRef padding = *sizes;
    return conv(input, weight, b, stride, padding, dilation, o.groups());
  }
  const c10::string_view mode = std::holds_alternative<enumtype::kSame>(o.padding()) ? "same" : "valid";
  return conv(input, weight, b, stride, mode, dilation, o.groups());
}
}  // namespace conv_impl

/// 1-D convolution of `input` (N, C, L) or (C, L) with `weight` (out, C / groups, k).
inline at::Tensor conv1d(const at::Tensor& input, const at::Tensor& weight, const Conv1dFuncOptions& options = {}) {
  return conv_impl::conv_with<1>([](auto&&... a) { return at::conv1d(a...); }, input, weight, options);
}

/// 2-D convolution of `input` (N, C, H, W) or (C, H, W) with `weight` (out, C / groups, kH, kW).
inline at::Tensor conv2d(const at::Tensor& input, const at::Tensor& weight, const Conv2dFuncOptions& options = {}) {
  return conv_impl::conv_with<2>([](auto&&... a) { return at::conv2d(a...); }, input, weight, options);
}

/// 3-D convolution of `input` (N, C, D, H, W) or (C, D, H, W) with `weight` (out, C / groups, kD, kH, kW).
inline at::Tensor conv3d(const at::Tensor& input, const at::Tensor& weight, const Conv3dFuncOptions& options = {}) {
  return conv_impl::conv_with<3>([](auto&&... a) { return at::conv3d(a...); }, input, weight, options);
}

/// Transposed 1-D convolution of `input` (N, C, L) or (C, L) with `weight` (C, out / groups, k).
inline at::Tensor conv_transpose1d(const at::Tensor& input, const at::Tensor& weight, const ConvTranspose1dFuncOptions& options = {}) {
  return at::conv_transpose1d(input, weight, conv_impl::optional_bias(options.bias()), options.stride(), options.padding(),
                              options.output_padding(), options.groups(), options.dilation());
}

/// Transposed 2-D convolution of `input` (N, C, H, W) or (C, H, W) with `weight` (C, out / groups, kH, kW).
inline at::Tensor conv_transpose2d(const at::Tensor& input, const at::Tensor& weight, const ConvTranspose2dFuncOptions& options = {}) {
  return at::conv_transpose2d(input, weight, conv_impl::optional_bias(options.bias()), options.stride(), options.padding(),
                              options.output_padding(), options.groups(), options.dilation());
}

/// Transposed 3-D convolution of `input` (N, C, D, H, W) or (C, D, H, W) with `weight` (C, out / groups, kD, kH, kW).
inline at::Tensor conv_transpose3d(const at::Tensor& input, const at::Tensor& weight, const ConvTranspose3dFuncOptions& options = {}) {
  return at::conv_transpose3d(input, weight, conv_impl::optional_bias(options.bias()), options.stride(), options.padding(),
                              options.output_padding(), options.groups(), options.dilation());
}

}  // namespace functional

/// D-dimensional convolution with weight (out, in / groups, k...) and bias (out). Default init
/// (reset_parameters), as libtorch: W ~ kaiming_uniform_ with a = sqrt(5), i.e.
/// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = in / groups * prod(k), and b from the same range.
/// A padding_mode other than kZeros pads the input (reflect, replicate, circular) before a
/// convolution without padding.
template <size_t D, typename Derived>
class ConvNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvNdImpl(ConvOptions<D> options);
  /// Registers fresh weight and bias and initialises them.
  void reset() override;
  /// Redraws weight and bias from the default distributions.
  void reset_parameters();
  at::Tensor forward(const at::Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  ConvOptions<D> options;
  at::Tensor weight;
  at::Tensor bias;  ///< undefined when options.bias() is false
};

/// D-dimensional transposed convolution with weight (in, out / groups, k...) and bias (out),
/// initialised as libtorch does (the fan_in of this weight layout is out / groups * prod(k)).
template <size_t D, typename Derived>
class ConvTransposeNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvTransposeNdImpl(ConvTransposeOptions<D> options);
  /// Registers fresh weight and bias and initialises them.
  void reset() override;
  /// Redraws weight and bias from the default distributions.
  void reset_parameters();
  /// With output_size (D sizes, or the input's rank with batch and channels first), the
  /// output_padding is the one that gives that size (it must lie within stride - 1 of the smallest).
  at::Tensor forward(const at::Tensor& input, const std::optional<at::IntArrayRef>& output_size = std::nullopt);
  void pretty_print(std::ostream& stream) const override;

  ConvTransposeOptions<D> options;
  at::Tensor weight;
  at::Tensor bias;  ///< undefined when options.bias() is false
};

#define EMBER_CONV_MODULE(Name, Base, D)                                                                         \
  class Name##Impl : public Base<D, Name##Impl> {                                                              \
   public:                                                                                                      \
    Name##Impl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)                        \
        : Name##Impl(Name##Options(in_channels, out_channels, kernel_size)) {}                                  \
    explicit Name##Impl(Name##Options options_) : Base<D, Name##Impl>(std::move(options_)) {}                   \
  };                                                                                                            \
  TORCH_MODULE(Name)

/// nn::Conv1d: input (N, C, L) or (C, L). See ConvNdImpl.
EMBER_CONV_MODULE(Conv1d, ConvNdImpl, 1);
/// nn::Conv2d: input (N, C, H, W) or (C, H, W). See ConvNdImpl.
EMBER_CONV_MODULE(Conv2d, ConvNdImpl, 2);
/// nn::Conv3d: input (N, C, D, H, W) or (C, D, H, W). See ConvNdImpl.
EMBER_CONV_MODULE(Conv3d, ConvNdImpl, 3);
/// nn::ConvTranspose1d: input (N, C, L) or (C, L). See ConvTransposeNdImpl.
EMBER_CONV_MODULE(ConvTranspose1d, ConvTransposeNdImpl, 1);
/// nn::ConvTranspose2d: input (N, C, H, W) or (C, H, W). See ConvTransposeNdImpl.
EMBER_CONV_MODULE(ConvTranspose2d, ConvTransposeNdImpl, 2);
/// nn::ConvTranspose3d: input (N, C, D, H, W) or (C, D, H, W). See ConvTransposeNdImpl.
EMBER_CONV_MODULE(ConvTranspose3d, ConvTransposeNdImpl, 3);
#undef EMBER_CONV_MODULE

}  // namespace torch::nn

EMBER_PUBLIC_END
