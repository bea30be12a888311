// The entry points of batch normalisation's CPU passes (aten/ATen/native/cpu/BatchNorm.h); the
// passes themselves are in kernels/cpu/isa/batch_norm.cpp, one per CPU capability level.
#include <ATen/native/cpu/BatchNorm.h>

namespace at::native::cpu {

EMBER_DEFINE_DISPATCH(batch_norm_stats_fn, batch_norm_stats_stub);
EMBER_DEFINE_DISPATCH(batch_norm_apply_fn, batch_norm_apply_stub);
EMBER_DEFINE_DISPATCH(batch_norm_backward_fn, batch_norm_backward_stub);

bool batch_norm_supported(const Tensor& input) {
  return input.defined() && input.is_cpu() && input.dim() >= 2 && input.numel() > 0 &&
         (input.scalar_type() == kFloat || input.scalar_type() == kDouble) &&
         (input.is_contiguous() || (input.dim() == 4 && input.is_contiguous(MemoryFormat::ChannelsLast)));
}

void batch_norm_stats(const Tensor& input, std::vector<double>& mean, std::vector<double>& var) {
  batch_norm_stats_stub(input, mean, var);
}

Tensor batch_norm_apply(const Tensor& input, const Tensor& scale, const Tensor& shift) {
  return batch_norm_apply_stub(input, scale, shift);
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& invstd,
                                                       std::array<bool, 3> grad_input_mask) {
  return batch_norm_backward_stub(grad, input, weight, mean, invstd, grad_input_mask);
}

}  // namespace at::native::cpu
