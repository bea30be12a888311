// The normalisation layers' non-template parts: F::batch_norm's argument check, LayerNorm, GroupNorm.
#include <torch/nn/normalization.h>
#include <ostream>

namespace torch::nn {

namespace detail {
void check_norm_input_dim(const at::Tensor& input, int64_t lo, int64_t hi, const char* layer) {
  if (lo == hi)
    EMBER_CHECK(input.dim() == lo, "[", layer, "] expected a ", lo, "-D input; got a ", input.dim(),
                "-D input of shape ", input.sizes());
  else
    EMBER_CHECK(input.dim() == lo || input.dim() == hi, "[", layer, "] expected a ", lo, "-D or ", hi,
                "-D input; got a ", input.dim(), "-D input of shape ", input.sizes());
}
}  // namespace detail

namespace functional {
at::Tensor batch_norm(const at::Tensor& input, const at::Tensor& running_mean, const at::Tensor& running_var,
                      const BatchNormFuncOptions& options) {
  if (options.training()) {
    // The statistics of one value are degenerate (variance 0, unbiased variance undefined).
    EMBER_CHECK(input.dim() >= 2, "[batch_norm] expected an input of at least 2 dims (N, C, ...); got shape ",
                input.sizes());
    const int64_t per_channel = input.numel() / std::max<int64_t>(input.size(1), 1);
    EMBER_CHECK(per_channel != 1, "[batch_norm] expected more than 1 value per channel when training; got input of shape ",
                input.sizes());
  }
  return at::batch_norm(input, detail::opt(options.weight()), detail::opt(options.bias()), detail::opt(running_mean),
                        detail::opt(running_var), options.training(), options.momentum(), options.eps(), false);
}
}  // namespace functional

// ---------------------------------------------------------------- LayerNorm

LayerNormImpl::LayerNormImpl(LayerNormOptions options_) : options(std::move(options_)) {
  EMBER_CHECK(!options.normalized_shape().empty(), "[LayerNorm] expected a non-empty normalized_shape; got []");
  reset();
}

void LayerNormImpl::reset() {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", at::empty(options.normalized_shape()));
    bias = register_parameter("bias", at::empty(options.normalized_shape()));
  } else {
    weight = register_parameter("weight", at::Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  at::NoGradGuard no_grad;
  weight.fill_(1);
  bias.zero_();
}

at::Tensor LayerNormImpl::forward(const at::Tensor& input) {
  return functional::layer_norm(
      input, functional::LayerNormFuncOptions(options.normalized_shape()).weight(weight).bias(bias).eps(options.eps()));
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::LayerNorm([";
  const auto& shape = options.normalized_shape();
  for (size_t i = 0; i < shape.size(); ++i) stream << (i ? ", " : "") << shape[i];
  stream << "], eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

// ---------------------------------------------------------------- GroupNorm

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) {
  // As libtorch, num_channels need not divide into num_groups until forward() sees an input.
  EMBER_CHECK(options.num_groups() > 0 && options.num_channels() >= 0,
              "[GroupNorm] expected num_groups > 0 and num_channels >= 0; got num_groups ", options.num_groups(),
              " and num_channels ", options.num_channels());
  reset();
}

void GroupNormImpl::reset() {
  if (options.affine()) {
    weight = register_parameter("weight", at::empty({options.num_channels()}));
    bias = register_parameter("bias", at::empty({options.num_channels()}));
  } else {
    weight = register_parameter("weight", at::Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  at::NoGradGuard no_grad;
  weight.fill_(1);
  bias.zero_();
}

at::Tensor GroupNormImpl::forward(const at::Tensor& input) {
  return functional::group_norm(
      input, functional::GroupNormFuncOptions(options.num_groups()).weight(weight).bias(bias).eps(options.eps()));
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::GroupNorm(" << options.num_groups() << ", " << options.num_channels()
         << ", eps=" << options.eps() << ", affine=" << options.affine() << ")";
}

}  // namespace torch::nn
