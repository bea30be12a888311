// torch::nn::Linear: parameter creation and libtorch's default initialisation.
#include <torch/nn/modules.h>
#include <cmath>
#include <ostream>

namespace torch::nn {

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) {
  EMBER_CHECK(options.in_features() >= 0 && options.out_features() >= 0,
              "[Linear] expected non-negative in_features and out_features; got ", options.in_features(), " and ",
              options.out_features());
  reset();
}

void LinearImpl::reset() {
  weight = register_parameter("weight", at::empty({options.out_features(), options.in_features()}));
  if (options.bias())
    bias = register_parameter("bias", at::empty({options.out_features()}));
  else
    bias = register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  // kaiming_uniform_ with a = sqrt(5): gain sqrt(1/3), so the bound is exactly 1/sqrt(fan_in).
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    (void)fan_out;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  // std::boolalpha stays set on the stream afterwards, as with libtorch's printing.
  stream << std::boolalpha << "torch::nn::Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

}  // namespace torch::nn
