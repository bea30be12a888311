#pragma once
// 1-D pooling and adaptive max pooling (issue #6): MaxPool1d, AvgPool1d, AdaptiveAvgPool1d,
// AdaptiveMaxPool1d and AdaptiveMaxPool2d, their options and F:: forms (over the composites of
// aten/native/PoolingExtra.cpp). Indices of max pooling are positions in the last dim (1-D) or flat
// positions h * W + w in each input plane (2-D), as libtorch's.
//   torch::nn::MaxPool1d pool(torch::nn::MaxPool1dOptions(3).stride(2));
//   auto [y, idx] = torch::nn::AdaptiveMaxPool2d(torch::nn::AdaptiveMaxPool2dOptions({2, 2}))->forward_with_indices(x);
#include <torch/nn/pooling.h>
#include <ostream>
#include <tuple>

namespace torch::nn {

using MaxPool1dOptions = MaxPoolOptions<1>;
using AvgPool1dOptions = AvgPoolOptions<1>;
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;

/// Options of adaptive max pooling: the output size (an unset element keeps the input's size).
template <typename output_size_t>
struct AdaptiveMaxPoolOptions {
  /* implicit */ AdaptiveMaxPoolOptions(output_size_t output_size) : output_size_(output_size) {}
  TORCH_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;

namespace functional {

using MaxPool1dFuncOptions = MaxPool1dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;

/// 1-D max pooling over (N, C, L) or (C, L).
inline at::Tensor max_pool1d(const at::Tensor& input, const MaxPool1dFuncOptions& options) {
  return at::max_pool1d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                        options.ceil_mode());
}

/// max_pool1d that also returns the position of each maximum in the input's last dim.
inline std::tuple<at::Tensor, at::Tensor> max_pool1d_with_indices(const at::Tensor& input,
                                                                  const MaxPool1dFuncOptions& options) {
  return at::max_pool1d_with_indices(input, options.kernel_size(), options.stride(), options.padding(),
                                     options.dilation(), options.ceil_mode());
}

/// 1-D average pooling over (N, C, L) or (C, L) (divisor_override is not part of the 1-D op).
inline at::Tensor avg_pool1d(const at::Tensor& input, const AvgPool1dFuncOptions& options) {
  return at::avg_pool1d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                        options.count_include_pad());
}

/// Averages (N, C, L) or (C, L) into output_size adaptive windows.
inline at::Tensor adaptive_avg_pool1d(const at::Tensor& input, const AdaptiveAvgPool1dFuncOptions& options) {
  return at::adaptive_avg_pool1d(input, options.output_size());
}

/// Maxima of (N, C, L) or (C, L) over output_size adaptive windows, with their positions.
inline std::tuple<at::Tensor, at::Tensor> adaptive_max_pool1d_with_indices(const at::Tensor& input,
                                                                           const AdaptiveMaxPool1dFuncOptions& options) {
  return at::adaptive_max_pool1d(input, options.output_size());
}

/// Maxima of (N, C, L) or (C, L) over output_size adaptive windows.
inline at::Tensor adaptive_max_pool1d(const at::Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, options));
}

/// Maxima of (N, C, H, W) or (C, H, W) over an output_size grid of adaptive windows, with their
/// flat positions h * W + w; an unset element of output_size keeps that input size.
inline std::tuple<at::Tensor, at::Tensor> adaptive_max_pool2d_with_indices(const at::Tensor& input,
                                                                           const AdaptiveMaxPool2dFuncOptions& options) {
  const auto& size = *options.output_size();
  EMBER_CHECK(input.dim() >= 2, "[adaptive_max_pool2d] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got ",
              input.dim(), "-D");
  std::vector<int64_t> out(2);
  for (size_t i = 0; i < 2; ++i)
    out[i] = size[i].has_value() ? *size[i] : input.size(input.dim() - 2 + static_cast<int64_t>(i));
  return at::adaptive_max_pool2d(input, out);
}

/// Maxima of (N, C, H, W) or (C, H, W) over an output_size grid of adaptive windows.
inline at::Tensor adaptive_max_pool2d(const at::Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, options));
}

}  // namespace functional

/// 1-D max pooling (no parameters).
class MaxPool1dImpl : public Cloneable<MaxPool1dImpl> {
 public:
  MaxPool1dImpl(ExpandingArray<1> kernel_size) : MaxPool1dImpl(MaxPool1dOptions(kernel_size)) {}
  explicit MaxPool1dImpl(const MaxPool1dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::max_pool1d(input, options); }
  /// The pooled values and the position of each maximum.
  std::tuple<at::Tensor, at::Tensor> forward_with_indices(const at::Tensor& input) {
    return functional::max_pool1d_with_indices(input, options);
  }
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "torch::nn::MaxPool1d(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding() << ", dilation=" << options.dilation()
           << ", ceil_mode=" << options.ceil_mode() << ")";
  }
  MaxPool1dOptions options;
};
TORCH_MODULE(MaxPool1d);

/// 1-D average pooling (no parameters).
class AvgPool1dImpl : public Cloneable<AvgPool1dImpl> {
 public:
  AvgPool1dImpl(ExpandingArray<1> kernel_size) : AvgPool1dImpl(AvgPool1dOptions(kernel_size)) {}
  explicit AvgPool1dImpl(const AvgPool1dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::avg_pool1d(input, options); }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::AvgPool1d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
           << ", padding=" << options.padding() << ")";
  }
  AvgPool1dOptions options;
};
TORCH_MODULE(AvgPool1d);

/// 1-D adaptive average pooling to a fixed output size.
class AdaptiveAvgPool1dImpl : public Cloneable<AdaptiveAvgPool1dImpl> {
 public:
  AdaptiveAvgPool1dImpl(ExpandingArray<1> output_size) : AdaptiveAvgPool1dImpl(AdaptiveAvgPool1dOptions(output_size)) {}
  explicit AdaptiveAvgPool1dImpl(const AdaptiveAvgPool1dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::adaptive_avg_pool1d(input, options); }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::AdaptiveAvgPool1d(output_size=" << options.output_size() << ")";
  }
  AdaptiveAvgPool1dOptions options;
};
TORCH_MODULE(AdaptiveAvgPool1d);

/// 1-D adaptive max pooling to a fixed output size.
class AdaptiveMaxPool1dImpl : public Cloneable<AdaptiveMaxPool1dImpl> {
 public:
  AdaptiveMaxPool1dImpl(ExpandingArray<1> output_size) : AdaptiveMaxPool1dImpl(AdaptiveMaxPool1dOptions(output_size)) {}
  explicit AdaptiveMaxPool1dImpl(const AdaptiveMaxPool1dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::adaptive_max_pool1d(input, options); }
  /// The pooled values and the position of each maximum.
  std::tuple<at::Tensor, at::Tensor> forward_with_indices(const at::Tensor& input) {
    return functional::adaptive_max_pool1d_with_indices(input, options);
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::AdaptiveMaxPool1d(output_size=" << options.output_size() << ")";
  }
  AdaptiveMaxPool1dOptions options;
};
TORCH_MODULE(AdaptiveMaxPool1d);

/// 2-D adaptive max pooling to a fixed output size.
class AdaptiveMaxPool2dImpl : public Cloneable<AdaptiveMaxPool2dImpl> {
 public:
  AdaptiveMaxPool2dImpl(ExpandingArrayWithOptionalElem<2> output_size)
      : AdaptiveMaxPool2dImpl(AdaptiveMaxPool2dOptions(output_size)) {}
  explicit AdaptiveMaxPool2dImpl(const AdaptiveMaxPool2dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::adaptive_max_pool2d(input, options); }
  /// The pooled values and the flat position h * W + w of each maximum.
  std::tuple<at::Tensor, at::Tensor> forward_with_indices(const at::Tensor& input) {
    return functional::adaptive_max_pool2d_with_indices(input, options);
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::AdaptiveMaxPool2d(output_size=" << options.output_size() << ")";
  }
  AdaptiveMaxPool2dOptions options;
};
TORCH_MODULE(AdaptiveMaxPool2d);

}  // namespace torch::nn
