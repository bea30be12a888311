#pragma once
// Average pooling layers: nn::AvgPool2d and nn::AdaptiveAvgPool2d, their options, and the
// functionals F::avg_pool2d and F::adaptive_avg_pool2d (over at::avg_pool2d and
// at::adaptive_avg_pool2d, aten/native/Pooling.cpp). Also torch::ExpandingArrayWithOptionalElem,
// the output_size type of AdaptiveAvgPool2dOptions: an unset element keeps the input's size.
//   torch::nn::AvgPool2d pool(torch::nn::AvgPool2dOptions(3).stride(2).padding(1));
//   torch::nn::AdaptiveAvgPool2d gap(torch::nn::AdaptiveAvgPool2dOptions({1, std::nullopt}));
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/expanding_array.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <optional>
#include <ostream>
#include <vector>

namespace torch {

/// D optional sizes: given as one value, D values, or D std::optional values (nullopt = "keep").
template <size_t D, typename T = int64_t>
class ExpandingArrayWithOptionalElem : public ExpandingArray<D, std::optional<T>> {
  using Base = ExpandingArray<D, std::optional<T>>;

 public:
  using Base::Base;
  /* implicit */ ExpandingArrayWithOptionalElem(T single) : Base(std::optional<T>(single)) {}
  /* implicit */ ExpandingArrayWithOptionalElem(std::initializer_list<T> list)
      : ExpandingArrayWithOptionalElem(at::ArrayRef<T>(list)) {}
  /* implicit */ ExpandingArrayWithOptionalElem(const std::vector<T>& v) : ExpandingArrayWithOptionalElem(at::ArrayRef<T>(v)) {}
  /* implicit */ ExpandingArrayWithOptionalElem(const std::array<T, D>& a)
      : ExpandingArrayWithOptionalElem(at::ArrayRef<T>(a.data(), D)) {}
  /* implicit */ ExpandingArrayWithOptionalElem(at::ArrayRef<T> values) : Base(std::optional<T>()) {
    EMBER_CHECK(values.size() == D, "[ExpandingArrayWithOptionalElem] expected ", D, " values (one per spatial dim); got ",
                values.size());
    for (size_t i = 0; i < D; ++i) (**this)[i] = values[i];
  }
};

/// Prints as libtorch: [a, b] with "None" for an unset element (a lone element without brackets).
template <size_t D, typename T>
std::ostream& operator<<(std::ostream& os, const ExpandingArrayWithOptionalElem<D, T>& a) {
  if (D != 1) os << "[";
  for (size_t i = 0; i < D; ++i) {
    os << (i ? ", " : "");
    if ((*a)[i].has_value())
      os << *(*a)[i];
    else
      os << "None";
  }
  if (D != 1) os << "]";
  return os;
}

namespace nn {

/// Options of average pooling: the stride defaults to the kernel size.
template <size_t D>
struct AvgPoolOptions {
  /* implicit */ AvgPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(bool, ceil_mode) = false;
  /// Whether zero padding counts in a window's divisor.
  TORCH_ARG(bool, count_include_pad) = true;
  /// When set, every window's sum is divided by this instead of its size.
  TORCH_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool2dOptions = AvgPoolOptions<2>;

/// Options of adaptive average pooling: the output size, an unset element keeping the input's size.
template <typename output_size_t>
struct AdaptiveAvgPoolOptions {
  /* implicit */ AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(output_size) {}
  TORCH_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;

namespace functional {

using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;

/// 2-D average pooling over (N, C, H, W) or (C, H, W).
inline at::Tensor avg_pool2d(const at::Tensor& input, const AvgPool2dFuncOptions& options) {
  return at::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                        options.count_include_pad(), options.divisor_override());
}

/// Averages (N, C, H, W) or (C, H, W) into an output_size grid of adaptive windows; an unset
/// element of output_size keeps that dimension's input size.
inline at::Tensor adaptive_avg_pool2d(const at::Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  const auto& size = *options.output_size();
  EMBER_CHECK(input.dim() >= 2, "[adaptive_avg_pool2d] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got ",
              input.dim(), "-D");
  std::vector<int64_t> out(2);
  for (size_t i = 0; i < 2; ++i)
    out[i] = size[i].has_value() ? *size[i] : input.size(input.dim() - 2 + static_cast<int64_t>(i));
  return at::adaptive_avg_pool2d(input, out);
}

}  // namespace functional

/// 2-D average pooling (no parameters).
class AvgPool2dImpl : public Cloneable<AvgPool2dImpl> {
 public:
  AvgPool2dImpl(ExpandingArray<2> kernel_size) : AvgPool2dImpl(AvgPool2dOptions(kernel_size)) {}
  explicit AvgPool2dImpl(const AvgPool2dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::avg_pool2d(input, options); }
  void pretty_print(std::ostream& stream) const override;

  AvgPool2dOptions options;
};
TORCH_MODULE(AvgPool2d);

/// 2-D adaptive average pooling to a fixed output size (no parameters).
class AdaptiveAvgPool2dImpl : public Cloneable<AdaptiveAvgPool2dImpl> {
 public:
  AdaptiveAvgPool2dImpl(ExpandingArrayWithOptionalElem<2> output_size)
      : AdaptiveAvgPool2dImpl(AdaptiveAvgPool2dOptions(output_size)) {}
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::adaptive_avg_pool2d(input, options); }
  void pretty_print(std::ostream& stream) const override;

  AdaptiveAvgPool2dOptions options;
};
TORCH_MODULE(AdaptiveAvgPool2d);

}  // namespace nn
}  // namespace torch

EMBER_PUBLIC_END
