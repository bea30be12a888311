#pragma once
// Batch normalisation's passes on the CPU (kernels/cpu/batch_norm.cpp): per-channel statistics in
// one read of each channel's values (a second read of the same, cache-resident channel for the
// squared deviations), the normalisation in one more, and the backward in two (the per-channel
// sums of dy and dy * (x - mean), then dx). Inputs are contiguous (N, C, ...) tensors of float or
// double, every channel one thread's work, or 4-d channels-last ones (rows of channels, Note
// [Channels-last batch norm] in kernels/cpu/isa/batch_norm.cpp).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/native/DispatchStub.h>
#include <array>
#include <tuple>
#include <vector>

namespace at::native::cpu {

/// True when the passes below take this input: on the CPU, float or double, contiguous (or 4-d
/// channels-last: Note [Channels-last batch norm]), 2+ dims, not empty.
bool batch_norm_supported(const Tensor& input);

/// Per-channel mean and biased variance over every dim but 1, accumulated in double.
void batch_norm_stats(const Tensor& input, std::vector<double>& mean, std::vector<double>& var);

/// out = x * scale[c] + shift[c] per channel c (scale, shift: [C] tensors of the input's dtype).
Tensor batch_norm_apply(const Tensor& input, const Tensor& scale, const Tensor& shift);

/// The gradients of batch normalisation in training from the saved mean and invstd (weight may be
/// undefined): (input, weight, bias) as grad_input_mask asks; grad is read in the input's layout (copied
/// into it when it differs), and the input gradient comes in that layout.
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& invstd,
                                                       std::array<bool, 3> grad_input_mask);

// The per-level passes behind the three functions above (kernels/cpu/isa/batch_norm.cpp).
using batch_norm_stats_fn = void (*)(const Tensor&, std::vector<double>&, std::vector<double>&);
using batch_norm_apply_fn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&);
using batch_norm_backward_fn = std::tuple<Tensor, Tensor, Tensor> (*)(const Tensor&, const Tensor&, const Tensor&,
                                                                      const Tensor&, const Tensor&, std::array<bool, 3>);
EMBER_DECLARE_DISPATCH(batch_norm_stats_fn, batch_norm_stats_stub);
EMBER_DECLARE_DISPATCH(batch_norm_apply_fn, batch_norm_apply_stub);
EMBER_DECLARE_DISPATCH(batch_norm_backward_fn, batch_norm_backward_stub);

}  // namespace at::native::cpu

EMBER_PUBLIC_END
