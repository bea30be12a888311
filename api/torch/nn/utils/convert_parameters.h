#pragma once
// Flattening parameters to one vector and back (libtorch's torch::nn::utils), e.g. for
// second-order optimisers. Implemented in api/src/nn_utils.cpp.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <vector>

namespace torch::nn::utils {

/// The parameters flattened and concatenated, in order (a new tensor that autograd tracks).
/// All parameters must be on one device.
at::Tensor parameters_to_vector(const std::vector<at::Tensor>& parameters);

/// Points each parameter's data at its slice of `vec` (consecutive, in order; the parameters then
/// share vec's storage, as libtorch's set_data). The tensors keep their identity and requires_grad.
void vector_to_parameters(const at::Tensor& vec, const std::vector<at::Tensor>& parameters);

}  // namespace torch::nn::utils

EMBER_PUBLIC_END
