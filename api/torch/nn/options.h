#pragma once
// Option classes of the layers, losses and functional ops (libtorch's names, fields and defaults).
// Each field is set with a chainable setter: `LinearOptions(784, 10).bias(false)`.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <torch/arg.h>
#include <torch/enum.h>
#include <torch/expanding_array.h>
#include <optional>
#include <string>
#include <variant>

namespace torch::nn {

/// How a loss reduces its per-element values: torch::kNone, torch::kMean or torch::kSum.
using LossReduction = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

namespace detail {
/// The at::Reduction code the loss ops take.
inline int64_t reduction_code(const LossReduction& r) {
  if (std::holds_alternative<enumtype::kNone>(r)) return at::Reduction::None;
  if (std::holds_alternative<enumtype::kSum>(r)) return at::Reduction::Sum;
  return at::Reduction::Mean;
}
}  // namespace detail

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};

/// Options of max pooling: the stride defaults to the kernel size.
template <size_t D>
struct MaxPoolOptions {
  /* implicit */ MaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(bool, ceil_mode) = false;
};
using MaxPool2dOptions = MaxPoolOptions<2>;

struct FlattenOptions {
  TORCH_ARG(int64_t, start_dim) = 1;
  TORCH_ARG(int64_t, end_dim) = -1;
};

struct ReLUOptions {
  /* implicit */ ReLUOptions(bool inplace = false) : inplace_(inplace) {}
  TORCH_ARG(bool, inplace);
};

struct LeakyReLUOptions {
  TORCH_ARG(double, negative_slope) = 1e-2;
  TORCH_ARG(bool, inplace) = false;
};

struct GELUOptions {
  /// "none" (exact, with erf) or "tanh".
  TORCH_ARG(std::string, approximate) = "none";
};

struct SiLUOptions {
  TORCH_ARG(bool, inplace) = false;
};

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}
  TORCH_ARG(int64_t, dim);
};

struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}
  TORCH_ARG(int64_t, dim);
};

struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}
  TORCH_ARG(double, p);
  TORCH_ARG(bool, inplace) = false;
};

using Dropout2dOptions = DropoutOptions;

struct NLLLossOptions {
  NLLLossOptions() = default;
  NLLLossOptions(LossReduction reduction) : reduction_(reduction) {}
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct CrossEntropyLossOptions {
  CrossEntropyLossOptions() = default;
  CrossEntropyLossOptions(LossReduction reduction) : reduction_(reduction) {}
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
  TORCH_ARG(double, label_smoothing) = 0.0;
};

struct MSELossOptions {
  MSELossOptions() = default;
  MSELossOptions(LossReduction reduction) : reduction_(reduction) {}
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct L1LossOptions {
  L1LossOptions() = default;
  L1LossOptions(LossReduction reduction) : reduction_(reduction) {}
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

namespace functional {
using ReLUFuncOptions = ReLUOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using GELUFuncOptions = GELUOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;

struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<at::ScalarType>, dtype) = std::nullopt;
};

struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<at::ScalarType>, dtype) = std::nullopt;
};

using MaxPool2dFuncOptions = MaxPool2dOptions;

struct DropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = true;
  TORCH_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;
}  // namespace functional

}  // namespace torch::nn

EMBER_PUBLIC_END
