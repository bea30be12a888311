// Pairwise distances: the composite cdist, and the primitive pair _cdist_forward / _cdist_backward,
// written in ATen ops and registered for CPU and CUDA alike (derivatives.yaml gives
// _cdist_forward its gradient through _cdist_backward).
//
// Note [cdist gradient at zero distance]
// The p-norm is not differentiable where two rows coincide (dist = 0). Like libtorch, the gradient
// there is taken to be 0 for every p, and for p < 1 a coordinate whose difference is 0 also gets 0
// (|d|^(p-1) would be infinite). For p = inf every coordinate whose |difference| equals the distance
// gets the full sign(difference) (ties are not split). For p = 2 on the matrix-product path (more than
// 25 rows, or compute_mode 1) the squared distance is clamped at 1e-30 before the square root, which
// zeroes the gradient there the same way.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <cmath>
#include <limits>
#include <vector>

namespace at::native {
namespace {

void check_pair(const Tensor& x1, const Tensor& x2, double p, const char* op) {
  EMBER_CHECK(x1.dim() >= 2 && x2.dim() >= 2, "[", op, "] expected x1 and x2 of at least 2 dims ([..., rows, columns]); got ",
              x1.dim(), " and ", x2.dim(), " dims");
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "[", op, "] expected x1 and x2 with the same number of columns; got ",
              x1.size(-1), " and ", x2.size(-1));
  EMBER_CHECK(x1.is_floating_point() && x2.is_floating_point(), "[", op, "] expected floating-point x1 and x2; got ",
              c10::dtypeName(x1.scalar_type()), " and ", c10::dtypeName(x2.scalar_type()));
  EMBER_CHECK(x1.scalar_type() == x2.scalar_type(), "[", op, "] expected x1 and x2 of one dtype; got ",
              c10::dtypeName(x1.scalar_type()), " and ", c10::dtypeName(x2.scalar_type()));
  EMBER_CHECK(x1.device() == x2.device(), "[", op, "] expected x1 and x2 on one device; got ", x1.device(), " and ",
              x2.device());
  EMBER_CHECK(p >= 0, "[", op, "] expected p >= 0; got ", p);
  // The batch dims must broadcast (raises with the op's name otherwise).
  ember::broadcast_shapes(op, x1.sizes().slice(0, x1.dim() - 2), x2.sizes().slice(0, x2.dim() - 2));
}

// x1 - x2 for every pair of rows: [..., P, R, M].
Tensor pair_differences(const Tensor& x1, const Tensor& x2) { return x1.unsqueeze(-2) - x2.unsqueeze(-3); }

// p = 2 by matrix products: |a|^2 + |b|^2 - 2 a.b, clamped, then the square root.
Tensor euclidean_by_mm(const Tensor& x1, const Tensor& x2) {
  const Tensor n1 = x1.pow(2).sum(IntArrayRef{-1}, true);
  const Tensor n2 = x2.pow(2).sum(IntArrayRef{-1}, true).transpose(-1, -2);
  const Tensor cross = at::matmul(x1, x2.transpose(-1, -2));
  return (n1 + n2 - cross.mul(2)).clamp_min(1e-30).sqrt();
}

}  // namespace

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  check_pair(x1, x2, p, "cdist");
  const int64_t mode = compute_mode.value_or(0);
  EMBER_CHECK(mode >= 0 && mode <= 2, "[cdist] expected compute_mode None, 0, 1 or 2; got ", mode);
  const bool by_mm = p == 2 && (mode == 1 || (mode == 0 && (x1.size(-2) > 25 || x2.size(-2) > 25)));
  if (by_mm) return euclidean_by_mm(x1, x2);
  return at::_cdist_forward(x1, x2, p, compute_mode);
}

Tensor cdist_forward_aten(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> /*compute_mode*/) {
  check_pair(x1, x2, p, "_cdist_forward");
  if (x1.size(-1) == 0) {
    std::vector<int64_t> shape = ember::broadcast_shapes("_cdist_forward", x1.sizes().slice(0, x1.dim() - 2),
                                                  x2.sizes().slice(0, x2.dim() - 2));
    shape.push_back(x1.size(-2));
    shape.push_back(x2.size(-2));
    return at::zeros(shape, x1.options());
  }
  const Tensor diff = pair_differences(x1, x2);
  const int64_t last_dim[] = {-1};
  const IntArrayRef last(last_dim);
  if (p == 0)  // the count of differing coordinates; NaN stays NaN
    return at::where(diff.isnan(), diff, at::ne(diff, 0).to(diff.scalar_type())).sum(last);
  const Tensor a = diff.abs();
  if (p == 1) return a.sum(last);
  if (p == 2) return a.pow(2).sum(last).sqrt();
  if (std::isinf(p))  // the largest |difference|, NaN coordinates skipped
    return at::where(a.isnan(), at::zeros({}, a.options()), a).amax(last);
  return a.pow(p).sum(last).pow(1.0 / p);
}

Tensor cdist_backward_aten(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist) {
  check_pair(x1, x2, p, "_cdist_backward");
  const Tensor diff = pair_differences(x1, x2);  // [..., P, R, M]
  const Tensor g = grad.unsqueeze(-1), dist = cdist.unsqueeze(-1);
  const Tensor zero = at::zeros({}, diff.options());
  Tensor term;
  if (p == 0 || x1.size(-1) == 0) {
    term = at::zeros_like(diff);
  } else if (p == 1) {
    term = diff.sign();
  } else if (std::isinf(p)) {
    term = diff.sign() * at::eq(diff.abs(), dist).to(diff.scalar_type());
  } else {
    // See Note [cdist gradient at zero distance].
    const Tensor a = diff.abs();
    term = p == 2 ? diff / dist
         : p < 2  ? diff.sign() * a.pow(p - 1) / dist.pow(p - 1)
                  : diff * a.pow(p - 2) / dist.pow(p - 1);
    Tensor undefined = at::eq(dist, 0);
    if (p < 1) undefined = at::logical_or(undefined, at::eq(diff, 0));
    term = at::where(undefined, zero, term);
  }
  return (g * term).sum(IntArrayRef{-2});
}

}  // namespace at::native
