// torch::nn::AvgPool2d and AdaptiveAvgPool2d: printing (libtorch's format).
#include <torch/nn/pooling.h>
#include <ostream>

namespace torch::nn {

void AvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AvgPool2d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ")";
}

void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}

}  // namespace torch::nn
