// torch::nn::Conv2d and MaxPool2d: parameter creation, libtorch's default initialisation, printing.
#include <torch/nn/modules.h>
#include <cmath>
#include <ostream>

namespace torch::nn {

Conv2dImpl::Conv2dImpl(Conv2dOptions options_) : options(std::move(options_)) {
  const auto& k = *options.kernel_size();
  EMBER_CHECK(options.in_channels() > 0 && options.out_channels() > 0, "[Conv2d] expected positive in_channels and out_channels; got ",
              options.in_channels(), " and ", options.out_channels());
  EMBER_CHECK(options.groups() > 0 && options.in_channels() % options.groups() == 0 &&
                  options.out_channels() % options.groups() == 0,
              "[Conv2d] expected groups (", options.groups(), ") > 0 dividing in_channels (", options.in_channels(),
              ") and out_channels (", options.out_channels(), ")");
  EMBER_CHECK(k[0] > 0 && k[1] > 0, "[Conv2d] expected a positive kernel_size; got ", options.kernel_size());
  reset();
}

void Conv2dImpl::reset() {
  const auto& k = *options.kernel_size();
  weight = register_parameter(
      "weight", at::empty({options.out_channels(), options.in_channels() / options.groups(), k[0], k[1]}));
  if (options.bias())
    bias = register_parameter("bias", at::empty({options.out_channels()}));
  else
    bias = register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
  reset_parameters();
}

void Conv2dImpl::reset_parameters() {
  // kaiming_uniform_ with a = sqrt(5) gives the bound 1/sqrt(fan_in); the bias takes the same bound.
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto fans = init::_calculate_fan_in_and_fan_out(weight);
    const double bound = std::get<0>(fans) > 0 ? 1.0 / std::sqrt(static_cast<double>(std::get<0>(fans))) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

at::Tensor Conv2dImpl::forward(const at::Tensor& input) {
  return at::conv2d(input, weight, bias.defined() ? std::optional<at::Tensor>(bias) : std::nullopt, options.stride(),
                    options.padding(), options.dilation(), options.groups());
}

void Conv2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::Conv2d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if ((*options.padding())[0] != 0 || (*options.padding())[1] != 0) stream << ", padding=" << options.padding();
  if ((*options.dilation())[0] != 1 || (*options.dilation())[1] != 1) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::MaxPool2d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode()
         << ")";
}

}  // namespace torch::nn
