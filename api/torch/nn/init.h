#pragma once
// torch::nn::init: in-place initialisers for parameters (libtorch's names, defaults and fan rules).
// Every function writes under NoGradGuard, so it can fill a leaf that requires grad.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <torch/enum.h>
#include <tuple>
#include <variant>

namespace torch::nn::init {

using NonlinearityType =
    std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D,
                 enumtype::kConvTranspose1D, enumtype::kConvTranspose2D, enumtype::kConvTranspose3D,
                 enumtype::kSigmoid, enumtype::kTanh, enumtype::kReLU, enumtype::kLeakyReLU>;
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

/// The recommended gain for a nonlinearity: 1 for linear/conv/sigmoid, 5/3 for tanh, sqrt(2) for
/// relu, sqrt(2 / (1 + param^2)) for leaky_relu (param is its negative slope).
double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);

/// (fan_in, fan_out) of a weight of at least 2 dims: size(1) and size(0) times the receptive field.
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const at::Tensor& tensor);

/// Fills with `value`.
at::Tensor constant_(at::Tensor tensor, at::Scalar value);
/// Fills with zeros / ones.
at::Tensor zeros_(at::Tensor tensor);
at::Tensor ones_(at::Tensor tensor);
/// Fills a 2-d tensor with the identity matrix (ones on the main diagonal).
at::Tensor eye_(at::Tensor matrix);
/// Fills a 3-, 4- or 5-d convolution weight (out, in, k...) with a Dirac delta: 1 at the kernel's
/// centre for out == in channel pairs (channel d maps to itself), 0 elsewhere.
at::Tensor dirac_(at::Tensor tensor);
/// A (semi-)orthogonal matrix from the QR factorisation of a Gaussian draw, times `gain` (Saxe et
/// al. 2013); dims after the first are flattened: rows (or columns, if fewer) are orthonormal.
at::Tensor orthogonal_(at::Tensor tensor, double gain = 1.0);
/// 2-d only: N(0, std^2) with ceil(sparsity * rows) zeros at random rows of every column.
at::Tensor sparse_(at::Tensor tensor, double sparsity, double std = 0.01);
/// Fills with samples of U(low, high).
at::Tensor uniform_(at::Tensor tensor, double low = 0, double high = 1);
/// Fills with samples of N(mean, std^2).
at::Tensor normal_(at::Tensor tensor, double mean = 0, double std = 1);
/// Glorot: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).
at::Tensor xavier_uniform_(at::Tensor tensor, double gain = 1.0);
/// Glorot: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).
at::Tensor xavier_normal_(at::Tensor tensor, double gain = 1.0);
/// He: U(-b, b) with b = sqrt(3) * gain(nonlinearity, a) / sqrt(fan of `mode`).
at::Tensor kaiming_uniform_(at::Tensor tensor, double a = 0, FanModeType mode = torch::kFanIn,
                            NonlinearityType nonlinearity = torch::kLeakyReLU);
/// He: N(0, std^2) with std = gain(nonlinearity, a) / sqrt(fan of `mode`).
at::Tensor kaiming_normal_(at::Tensor tensor, double a = 0, FanModeType mode = torch::kFanIn,
                           NonlinearityType nonlinearity = torch::kLeakyReLU);

}  // namespace torch::nn::init

EMBER_PUBLIC_END
