#pragma once
// 1-D and 3-D pooling, adaptive max pooling and max unpooling: MaxPool1d, AvgPool1d,
// AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, MaxPool3d, AvgPool3d and
// MaxUnpool1d/2d/3d, their options and F:: forms (over at::max_pool3d_with_indices, at::avg_pool3d,
// at::max_unpool2d/3d and the composites of aten/native/PoolingExtra.cpp). Indices of max pooling
// are positions in the last dim (1-D) or flat positions h * W + w (2-D) or (t * H + h) * W + w (3-D)
// in each input plane, as libtorch's; max unpooling writes each value back at its index.
//   torch::nn::MaxPool1d pool(torch::nn::MaxPool1dOptions(3).stride(2));
//   auto [y, idx] = torch::nn::AdaptiveMaxPool2d(torch::nn::AdaptiveMaxPool2dOptions({2, 2}))->forward_with_indices(x);
//   auto back = torch::nn::MaxUnpool3d(torch::nn::MaxUnpool3dOptions(2))->forward(y3, idx3);
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/pooling.h>
#include <optional>
#include <ostream>
#include <tuple>
#include <vector>

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
using MaxPool3dOptions = MaxPoolOptions<3>;
using AvgPool3dOptions = AvgPoolOptions<3>;

/// Options of max unpooling: the pooling's kernel size, stride (default: the kernel size) and
/// padding, which give the default output size (in - 1) * stride - 2 * padding + kernel_size.
template <size_t D>
struct MaxUnpoolOptions {
  /* implicit */ MaxUnpoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

namespace functional {

using MaxPool1dFuncOptions = MaxPool1dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;

/// Options of F::max_unpool1d/2d/3d: MaxUnpoolOptions plus an explicit output size (D values, or
/// D + 2 whose first two are ignored), which may differ from the default by less than a stride.
template <size_t D>
struct MaxUnpoolFuncOptions {
  /* implicit */ MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;

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

/// 3-D max pooling over (N, C, D, H, W) or (C, D, H, W).
inline at::Tensor max_pool3d(const at::Tensor& input, const MaxPool3dFuncOptions& options) {
  return at::max_pool3d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                        options.ceil_mode());
}

/// max_pool3d that also returns the flat position (t * H + h) * W + w of each maximum in its volume.
inline std::tuple<at::Tensor, at::Tensor> max_pool3d_with_indices(const at::Tensor& input,
                                                                  const MaxPool3dFuncOptions& options) {
  return at::max_pool3d_with_indices(input, options.kernel_size(), options.stride(), options.padding(),
                                     options.dilation(), options.ceil_mode());
}

/// 3-D average pooling over (N, C, D, H, W) or (C, D, H, W).
inline at::Tensor avg_pool3d(const at::Tensor& input, const AvgPool3dFuncOptions& options) {
  return at::avg_pool3d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                        options.count_include_pad(), options.divisor_override());
}

namespace pool_detail {
/// The output size of a D-dim max unpooling of `input`: (in - 1) * stride - 2 * padding + kernel_size
/// per spatial dim, or the given size (D values, or D + 2 with the first two ignored), which must lie
/// within a stride of that default.
template <size_t D>
std::vector<int64_t> unpool_output_size(const char* op, const at::Tensor& input, const ExpandingArray<D>& kernel_size,
                                        const ExpandingArray<D>& stride, const ExpandingArray<D>& padding,
                                        const std::optional<std::vector<int64_t>>& output_size) {
  const int64_t nd = static_cast<int64_t>(D);
  EMBER_CHECK(input.defined() && input.dim() >= nd + 1, "[", op, "] expected an input with a channel dim and ", nd,
              " spatial dims; got ", input.defined() ? input.dim() : 0, " dims");
  std::vector<int64_t> fallback(D);
  for (size_t d = 0; d < D; ++d)
    fallback[d] = (input.size(input.dim() - nd + static_cast<int64_t>(d)) - 1) * (*stride)[d] + (*kernel_size)[d] -
                  2 * (*padding)[d];
  if (!output_size.has_value()) return fallback;
  std::vector<int64_t> size = *output_size;
  if (size.size() == D + 2) size.erase(size.begin(), size.begin() + 2);
  EMBER_CHECK(size.size() == D, "[", op, "] expected output_size to have ", D, " or ", D + 2, " values; got ",
              at::IntArrayRef(*output_size));
  for (size_t d = 0; d < D; ++d) {
    const int64_t lo = fallback[d] - (*stride)[d], hi = fallback[d] + (*stride)[d];
    EMBER_CHECK(lo <= size[d] && size[d] <= hi, "[", op, "] expected output_size[", d, "] between ", lo, " and ", hi,
                " (the default size ", fallback[d], " give or take a stride); got output_size ", at::IntArrayRef(size));
  }
  return size;
}
}  // namespace pool_detail

/// Writes each value of (N, C, L) or (C, L) back at its index (a position in the output's last dim),
/// zeros elsewhere: the inverse of max_pool1d_with_indices. Runs max_unpool2d on a width-1 plane.
inline at::Tensor max_unpool1d(const at::Tensor& input, const at::Tensor& indices, const MaxUnpool1dFuncOptions& options) {
  const char* op = "max_unpool1d";
  EMBER_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3), "[", op,
              "] expected a 2-D (C, L) or 3-D (N, C, L) input; got ", input.defined() ? input.dim() : 0, " dims");
  auto size = pool_detail::unpool_output_size<1>(op, input, options.kernel_size(), options.stride(), options.padding(),
                                                 options.output_size());
  // Checked here so that a bad index is reported under this op's name.
  if (indices.defined() && indices.scalar_type() == at::kLong && indices.sizes() == input.sizes() && indices.numel() > 0) {
    const bool in_range = at::logical_and(indices >= 0, indices < size[0]).all().item<bool>();
    EMBER_CHECK(in_range, "[", op, "] expected indices in [0, ", size[0], ") (the output length); got one outside");
  }
  size.push_back(1);
  return at::max_unpool2d(input.unsqueeze(-1), indices.defined() ? indices.unsqueeze(-1) : indices, size).squeeze(-1);
}

/// Writes each value of (N, C, H, W) or (C, H, W) back at its flat index h * W + w in a zero output
/// plane: the inverse of max_pool2d_with_indices.
inline at::Tensor max_unpool2d(const at::Tensor& input, const at::Tensor& indices, const MaxUnpool2dFuncOptions& options) {
  const auto size = pool_detail::unpool_output_size<2>("max_unpool2d", input, options.kernel_size(), options.stride(),
                                                       options.padding(), options.output_size());
  return at::max_unpool2d(input, indices, size);
}

/// Writes each value of (N, C, D, H, W) or (C, D, H, W) back at its flat index (t * H + h) * W + w in
/// a zero output volume: the inverse of max_pool3d_with_indices.
inline at::Tensor max_unpool3d(const at::Tensor& input, const at::Tensor& indices, const MaxUnpool3dFuncOptions& options) {
  const auto size = pool_detail::unpool_output_size<3>("max_unpool3d", input, options.kernel_size(), options.stride(),
                                                       options.padding(), options.output_size());
  return at::max_unpool3d(input, indices, size, options.stride(), options.padding());
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

/// 3-D max pooling (no parameters).
class MaxPool3dImpl : public Cloneable<MaxPool3dImpl> {
 public:
  MaxPool3dImpl(ExpandingArray<3> kernel_size) : MaxPool3dImpl(MaxPool3dOptions(kernel_size)) {}
  explicit MaxPool3dImpl(const MaxPool3dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::max_pool3d(input, options); }
  /// The pooled values and the flat position of each maximum in its input volume.
  std::tuple<at::Tensor, at::Tensor> forward_with_indices(const at::Tensor& input) {
    return functional::max_pool3d_with_indices(input, options);
  }
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "torch::nn::MaxPool3d(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding() << ", dilation=" << options.dilation()
           << ", ceil_mode=" << options.ceil_mode() << ")";
  }
  MaxPool3dOptions options;
};
TORCH_MODULE(MaxPool3d);

/// 3-D average pooling (no parameters).
class AvgPool3dImpl : public Cloneable<AvgPool3dImpl> {
 public:
  AvgPool3dImpl(ExpandingArray<3> kernel_size) : AvgPool3dImpl(AvgPool3dOptions(kernel_size)) {}
  explicit AvgPool3dImpl(const AvgPool3dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::avg_pool3d(input, options); }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::AvgPool3d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
           << ", padding=" << options.padding() << ")";
  }
  AvgPool3dOptions options;
};
TORCH_MODULE(AvgPool3d);

/// Max unpooling over D spatial dims (no parameters): forward(input, indices[, output_size]) writes
/// each value back at its index; output_size (D or D + 2 values) overrides the default size.
template <size_t D, typename Derived>
class MaxUnpoolImpl : public Cloneable<Derived> {
 public:
  MaxUnpoolImpl(ExpandingArray<D> kernel_size) : MaxUnpoolImpl(MaxUnpoolOptions<D>(kernel_size)) {}
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input, const at::Tensor& indices,
                     const std::optional<std::vector<int64_t>>& output_size = std::nullopt) {
    functional::MaxUnpoolFuncOptions<D> f(options.kernel_size());
    f.stride(options.stride()).padding(options.padding()).output_size(output_size);
    if constexpr (D == 1) return functional::max_unpool1d(input, indices, f);
    else if constexpr (D == 2) return functional::max_unpool2d(input, indices, f);
    else return functional::max_unpool3d(input, indices, f);
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::MaxUnpool" << D << "d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
           << ", padding=" << options.padding() << ")";
  }
  MaxUnpoolOptions<D> options;
};

class MaxUnpool1dImpl : public MaxUnpoolImpl<1, MaxUnpool1dImpl> {
 public:
  using MaxUnpoolImpl<1, MaxUnpool1dImpl>::MaxUnpoolImpl;
};
TORCH_MODULE(MaxUnpool1d);

class MaxUnpool2dImpl : public MaxUnpoolImpl<2, MaxUnpool2dImpl> {
 public:
  using MaxUnpoolImpl<2, MaxUnpool2dImpl>::MaxUnpoolImpl;
};
TORCH_MODULE(MaxUnpool2d);

class MaxUnpool3dImpl : public MaxUnpoolImpl<3, MaxUnpool3dImpl> {
 public:
  using MaxUnpoolImpl<3, MaxUnpool3dImpl>::MaxUnpoolImpl;
};
TORCH_MODULE(MaxUnpool3d);

}  // namespace torch::nn

EMBER_PUBLIC_END
