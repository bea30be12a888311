#pragma once
// torch::nn::functional (use as `namespace F = torch::nn::functional;`): the stateless forms of the
// layers and losses, taking libtorch's *FuncOptions.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/core/GradMode.h>
#include <torch/nn/conv.h>
#include <torch/nn/options.h>
#include <optional>

namespace torch::nn::functional {

/// One-hot encoding of class indices (libtorch's F::one_hot; num_classes -1: the largest index + 1).
inline at::Tensor one_hot(const at::Tensor& tensor, int64_t num_classes = -1) { return at::one_hot(tensor, num_classes); }

/// input @ weight^T + bias.
inline at::Tensor linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias = {}) {
  return at::linear(input, weight, bias.defined() ? std::optional<at::Tensor>(bias) : std::nullopt);
}

/// max(x, 0); in place if options.inplace().
inline at::Tensor relu(at::Tensor input, const ReLUFuncOptions& options = {}) {
  return options.inplace() ? at::relu_(input) : at::relu(input);
}

/// x for x > 0, negative_slope * x otherwise.
inline at::Tensor leaky_relu(at::Tensor input, const LeakyReLUFuncOptions& options = {}) {
  return options.inplace() ? at::leaky_relu_(input, options.negative_slope())
                           : at::leaky_relu(input, options.negative_slope());
}

/// x * Phi(x) (exact) or its tanh approximation (options.approximate("tanh")).
inline at::Tensor gelu(const at::Tensor& input, const GELUFuncOptions& options = {}) {
  return at::gelu(input, options.approximate());
}

/// x * sigmoid(x).
inline at::Tensor silu(at::Tensor input, bool inplace = false) { return inplace ? at::silu_(input) : at::silu(input); }

/// 1 / (1 + exp(-x)).
inline at::Tensor sigmoid(const at::Tensor& input) { return at::sigmoid(input); }

/// tanh(x).
inline at::Tensor tanh(const at::Tensor& input) { return at::tanh(input); }

/// exp(x) / sum(exp(x)) along options.dim().
inline at::Tensor softmax(const at::Tensor& input, const SoftmaxFuncOptions& options) {
  return at::softmax(input, options.dim(), options.dtype());
}

/// log(softmax(x)) along options.dim(), computed stably.
inline at::Tensor log_softmax(const at::Tensor& input, const LogSoftmaxFuncOptions& options) {
  return at::log_softmax(input, options.dim(), options.dtype());
}

// conv1d/2d/3d and conv_transpose1d/2d/3d: torch/nn/conv.h.

/// 2-D max pooling over (N, C, H, W) or (C, H, W).
inline at::Tensor max_pool2d(const at::Tensor& input, const MaxPool2dFuncOptions& options) {
  return at::max_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                        options.ceil_mode());
}

/// max_pool2d that also returns the flat index of each maximum within its input plane.
inline std::tuple<at::Tensor, at::Tensor> max_pool2d_with_indices(const at::Tensor& input, const MaxPool2dFuncOptions& options) {
  return at::max_pool2d_with_indices(input, options.kernel_size(), options.stride(), options.padding(),
                                     options.dilation(), options.ceil_mode());
}

/// In training, zeroes each element with probability p and scales the rest by 1 / (1 - p);
/// otherwise returns the input unchanged.
inline at::Tensor dropout(at::Tensor input, const DropoutFuncOptions& options = {}) {
  if (options.inplace()) return at::dropout_(input, options.p(), options.training());
  return at::dropout(input, options.p(), options.training());
}

/// Dropout of whole channels: one draw per (sample, channel) of an (N, C, H, W) input, or per
/// channel of an unbatched (C, H, W) one.
inline at::Tensor dropout2d(at::Tensor input, const Dropout2dFuncOptions& options = {}) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "[dropout2d] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got ",
              input.dim(), " dims");
  const bool unbatched = input.dim() == 3;
  at::Tensor x = unbatched ? input.unsqueeze(0) : input;
  at::Tensor y = options.inplace() ? at::feature_dropout_(x, options.p(), options.training())
                                   : at::feature_dropout(x, options.p(), options.training());
  return unbatched ? (options.inplace() ? input : y.squeeze(0)) : y;
}

/// Negative log-likelihood of log-probabilities `input` (N, C, ...) at class indices `target`.
inline at::Tensor nll_loss(const at::Tensor& input, const at::Tensor& target, const NLLLossFuncOptions& options = {}) {
  const auto& w = options.weight();
  return at::nll_loss_nd(input, target, w.defined() ? std::optional<at::Tensor>(w) : std::nullopt,
                         detail::reduction_code(options.reduction()), options.ignore_index());
}

/// log_softmax over dim 1 followed by nll_loss (class indices), or against class probabilities.
inline at::Tensor cross_entropy(const at::Tensor& input, const at::Tensor& target,
                                const CrossEntropyFuncOptions& options = {}) {
  const auto& w = options.weight();
  return at::cross_entropy_loss(input, target, w.defined() ? std::optional<at::Tensor>(w) : std::nullopt,
                                detail::reduction_code(options.reduction()), options.ignore_index(),
                                options.label_smoothing());
}

/// (input - target)^2, reduced.
inline at::Tensor mse_loss(const at::Tensor& input, const at::Tensor& target, const MSELossFuncOptions& options = {}) {
  return at::mse_loss(input, target, detail::reduction_code(options.reduction()));
}

/// |input - target|, reduced.
inline at::Tensor l1_loss(const at::Tensor& input, const at::Tensor& target, const L1LossFuncOptions& options = {}) {
  return at::l1_loss(input, target, detail::reduction_code(options.reduction()));
}

}  // namespace torch::nn::functional

EMBER_PUBLIC_END
