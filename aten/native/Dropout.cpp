// dropout and feature_dropout (in place and out of place): composites over bernoulli_, so autograd
// differentiates through the product with the scaled mask (see ops.yaml's dropout section).
#include <ATen/native/NativeFunctions.h>
#include <ATen/core/GradMode.h>
#include <ATen/native/MatmulUtils.h>
#include <vector>

namespace at::native {

namespace {

void check_dropout(const char* op, const Tensor& input, double p) {
  EMBER_CHECK(p >= 0 && p <= 1, "[", op, "] expected a probability p in [0, 1]; got ", p);
  EMBER_CHECK(isFloatingType(input.scalar_type()), "[", op, "] expected a floating point input; got ",
              matmul_utils::describe(input));
}

// The scaled keep-mask, of `shape`, in the input's dtype and on its device: each element is
// 1 / (1 - p) with probability 1 - p and 0 otherwise (all 0 when p == 1). A full-size mask takes
// the input's layout, so its draws go in the input's memory order, as libtorch's.
Tensor scaled_mask(const Tensor& input, IntArrayRef shape, double p) {
  NoGradGuard no_grad;
  Tensor mask = shape.equals(input.sizes()) ? at::empty_like(input) : at::empty(shape, input.options());
  if (p == 1) return mask.zero_();
  mask.bernoulli_(1 - p);
  return mask.div_(1 - p);
}

// The mask shape of feature dropout: (N, C, 1, ..., 1).
std::vector<int64_t> feature_shape(const char* op, const Tensor& input) {
  EMBER_CHECK(input.dim() >= 2, "[", op, "] expected an input of at least 2 dims (N, C, ...); got ",
              matmul_utils::describe(input));
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[0] = input.size(0);
  shape[1] = input.size(1);
  return shape;
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) {
  check_dropout("dropout", input, p);
  if (!train || p == 0 || input.numel() == 0) return input;
  return input * scaled_mask(input, input.sizes(), p);
}

Tensor& dropout_(Tensor& self, double p, bool train) {
  check_dropout("dropout_", self, p);
  if (!train || p == 0 || self.numel() == 0) return self;
  return self.mul_(scaled_mask(self, self.sizes(), p));
}

Tensor feature_dropout(const Tensor& input, double p, bool train) {
  check_dropout("feature_dropout", input, p);
  const auto shape = feature_shape("feature_dropout", input);
  if (!train || p == 0 || input.numel() == 0) return input;
  return input * scaled_mask(input, shape, p);
}

Tensor& feature_dropout_(Tensor& self, double p, bool train) {
  check_dropout("feature_dropout_", self, p);
  const auto shape = feature_shape("feature_dropout_", self);
  if (!train || p == 0 || self.numel() == 0) return self;
  return self.mul_(scaled_mask(self, shape, p));
}

}  // namespace at::native
