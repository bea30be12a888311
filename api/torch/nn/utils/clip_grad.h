#pragma once
// Gradient clipping (libtorch's torch::nn::utils): scale the gradients of a set of parameters so
// their joint norm is at most max_norm, or clamp every gradient element. Parameters without a
// gradient are skipped. Implemented in api/src/nn_utils.cpp.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <initializer_list>
#include <vector>

namespace torch::nn::utils {

/// Scales every gradient by min(1, max_norm / (total + 1e-6)), where total is the norm_type-norm of
/// all gradients together (inf: the largest magnitude; 0: the number of gradients, as libtorch's C++
/// frontend). Returns total; with error_if_nonfinite a NaN or infinite total raises instead.
double clip_grad_norm_(const std::vector<at::Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(std::initializer_list<at::Tensor> parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(at::Tensor parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// Clamps every gradient element to [-clip_value, clip_value], in place.
void clip_grad_value_(const std::vector<at::Tensor>& parameters, double clip_value);
void clip_grad_value_(std::initializer_list<at::Tensor> parameters, double clip_value);
void clip_grad_value_(at::Tensor parameter, double clip_value);

}  // namespace torch::nn::utils

EMBER_PUBLIC_END
