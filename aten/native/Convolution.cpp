// Convolution and pooling composites: conv2d over convolution, max_pool2d over
// max_pool2d_with_indices. Their gradients come from the primitives' derivatives.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>

namespace at::native {

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "[conv2d] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got input ",
              input.sizes());
  // An unbatched image is a batch of one.
  if (input.dim() == 3) return at::native::conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0);
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
