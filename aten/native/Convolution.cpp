// Convolution and pooling composites: conv2d over convolution, max_pool2d over
// max_pool2d_with_indices. Their gradients come from the primitives' derivatives.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>

namespace at::native {

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  // Checked here too, so that mistakes are reported under the name the user called.
  conv_utils::check_conv2d("conv2d", input, weight, bias, stride, padding, dilation, false, groups);
  return at::convolution(input, weight, bias, stride, padding, dilation, false, std::vector<int64_t>{0, 0}, groups);
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                  bool ceil_mode) {
  conv_utils::check_max_pool2d("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode);
  return std::get<0>(at::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

}  // namespace at::native
