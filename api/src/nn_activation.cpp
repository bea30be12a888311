// The activation modules of torch/nn/activation.h: PReLU's parameter, checks and printing in
// libtorch's format (doubles as the stream prints them: 0.333333).
#include <torch/nn/activation.h>
#include <ostream>

namespace torch::nn {

void ReLU6Impl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}

PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) { reset(); }

void PReLUImpl::reset() {
  EMBER_CHECK(options.num_parameters() >= 1, "[PReLU] expected num_parameters >= 1; got ", options.num_parameters());
  weight = register_parameter("weight", at::full({options.num_parameters()}, options.init()));
}

void PReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
}

void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::ELU(alpha=" << options.alpha() << (options.inplace() ? ", inplace=true" : "") << ")";
}

void SELUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::SELU(" << (options.inplace() ? "inplace=true" : "") << ")";
}

void CELUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::CELU(alpha=" << options.alpha() << (options.inplace() ? ", inplace=true" : "") << ")";
}

void GLUImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::GLU(dim=" << options.dim() << ")"; }

void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold() << ")";
}

void SoftminImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::Softmin(dim=" << options.dim() << ")"; }

void HardtanhImpl::reset() {
  EMBER_CHECK(options.max_val() > options.min_val(), "[Hardtanh] expected max_val > min_val; got min_val ",
              options.min_val(), " and max_val ", options.max_val());
}

void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

void HardshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Hardshrink(" << options.lambda() << ")";
}

void SoftshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Softshrink(" << options.lambda() << ")";
}

void ThresholdImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Threshold(threshold=" << options.threshold() << ", value=" << options.value()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

void RReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::RReLU(lower=" << options.lower() << ", upper=" << options.upper()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

at::Tensor Softmax2dImpl::forward(const at::Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "[Softmax2d] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got shape ",
              input.sizes());
  return at::softmax(input, -3);
}

}  // namespace torch::nn
