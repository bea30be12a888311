// alpha_dropout and feature_alpha_dropout: dropout for self-normalising networks (SELU). Dropped
// values go to SELU's negative saturation and an affine map restores zero mean and unit variance;
// composites over bernoulli_, so autograd differentiates through the product with the mask.
#include <ATen/native/NativeFunctions.h>
#include <ATen/core/GradMode.h>
#include <cmath>
#include <vector>

namespace at::native {
namespace {

void check_alpha_dropout(const char* op, const Tensor& input, double p) {
  EMBER_CHECK(p >= 0 && p <= 1, "[", op, "] expected a probability p in [0, 1]; got ", p);
  EMBER_CHECK(isFloatingType(input.scalar_type()), "[", op, "] expected a floating point input; got ",
              input.scalar_type());
}

// For a keep-mask m (1 with probability 1 - p): out = a * (x * m + alpha' * (m - 1 + p)), where
// alpha' = scale * alpha of SELU and a = 1 / sqrt((alpha'^2 p + 1)(1 - p)).
Tensor alpha_dropout_impl(const Tensor& input, double p, bool train, std::vector<int64_t> mask_shape) {
  if (!train || p == 0 || input.numel() == 0) return input;
  if (p == 1) return input * at::zeros({}, input.options());
  constexpr double kSaturation = 1.7580993408473766;  // SELU's scale * alpha
  const double a = 1.0 / std::sqrt((kSaturation * kSaturation * p + 1) * (1 - p));
  Tensor keep;
  {
    NoGradGuard no_grad;
    keep = IntArrayRef(mask_shape).equals(input.sizes()) ? at::empty_like(input) : at::empty(mask_shape, input.options());
    keep.bernoulli_(1 - p);
  }
  // libtorch's rounding: shift = (m - 1) * alpha' + alpha' p, out = x * (m * a) + shift.
  const Tensor shift = (keep - 1) * (kSaturation * a) + kSaturation * a * p;
  return input * (keep * a) + shift;
}

}  // namespace

Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  check_alpha_dropout("alpha_dropout", input, p);
  return alpha_dropout_impl(input, p, train, input.sizes().vec());
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  check_alpha_dropout("feature_alpha_dropout", input, p);
  EMBER_CHECK(input.dim() >= 2, "[feature_alpha_dropout] expected an input of at least 2 dims (N, C, ...); got shape ",
              input.sizes());
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[0] = input.size(0);
  shape[1] = input.size(1);
  return alpha_dropout_impl(input, p, train, shape);
}

}  // namespace at::native
