// libtorch's products and small math aliases as composites (issue #6): kron, tensordot, inner,
// vdot, ger, addr, addbmm, cross / linalg_cross, deg2rad, rad2deg, fix, ldexp, float_power and
// xlogy with a scalar first argument.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <ATen/Utils.h>
#include <cmath>

namespace at::native {

Tensor kron(const Tensor& self, const Tensor& other) {
  const int64_t nd = std::max(self.dim(), other.dim());
  std::vector<int64_t> a(static_cast<size_t>(nd - self.dim()), 1), b(static_cast<size_t>(nd - other.dim()), 1);
  a.insert(a.end(), self.sizes().begin(), self.sizes().end());
  b.insert(b.end(), other.sizes().begin(), other.sizes().end());
  // self as [a0, 1, a1, 1, ...] times other as [1, b0, 1, b1, ...], then each pair merged.
  std::vector<int64_t> av, bv, out;
  for (size_t i = 0; i < static_cast<size_t>(nd); ++i) {
    av.insert(av.end(), {a[i], 1});
    bv.insert(bv.end(), {1, b[i]});
    out.push_back(a[i] * b[i]);
  }
  return at::mul(self.reshape(av), other.reshape(bv)).reshape(out);
}

Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  EMBER_CHECK(dims_self.size() == dims_other.size(), "[tensordot] expected as many dims for self as for other; got ",
              dims_self.size(), " and ", dims_other.size());
  std::vector<bool> ca(static_cast<size_t>(self.dim()), false), cb(static_cast<size_t>(other.dim()), false);
  std::vector<int64_t> perm_a, perm_b, out_shape;
  int64_t p = 1;
  std::vector<int64_t> da, db;
  for (size_t i = 0; i < dims_self.size(); ++i) {
    const int64_t x = maybe_wrap_dim(dims_self[i], self.dim(), "tensordot");
    const int64_t y = maybe_wrap_dim(dims_other[i], other.dim(), "tensordot");
    EMBER_CHECK(self.size(x) == other.size(y), "[tensordot] expected contracted dims of equal size; got ",
                self.size(x), " (self dim ", x, ") and ", other.size(y), " (other dim ", y, ")");
    EMBER_CHECK(!ca[static_cast<size_t>(x)] && !cb[static_cast<size_t>(y)], "[tensordot] expected each dim once; got dim ",
                x, " of self and ", y, " of other");
    ca[static_cast<size_t>(x)] = cb[static_cast<size_t>(y)] = true;
    da.push_back(x);
    db.push_back(y);
    p *= self.size(x);
  }
  int64_t m = 1, n = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (!ca[static_cast<size_t>(d)]) {
      perm_a.push_back(d);
      out_shape.push_back(self.size(d));
      m *= self.size(d);
    }
  perm_a.insert(perm_a.end(), da.begin(), da.end());
  perm_b = db;
  for (int64_t d = 0; d < other.dim(); ++d)
    if (!cb[static_cast<size_t>(d)]) {
      perm_b.push_back(d);
      out_shape.push_back(other.size(d));
      n *= other.size(d);
    }
  const Tensor a = self.dim() ? self.permute(perm_a) : self;
  const Tensor b = other.dim() ? other.permute(perm_b) : other;
  return at::mm(a.reshape({m, p}), b.reshape({p, n})).reshape(out_shape);
}

Tensor inner(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return at::mul(self, other);
  EMBER_CHECK(self.size(-1) == other.size(-1), "[inner] expected equal last dims; got ", self.size(-1), " and ",
              other.size(-1));
  return at::tensordot(self, other, {-1}, {-1});
}

Tensor vdot(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "[vdot] expected two 1-D tensors; got ", self.dim(), " and ",
              other.dim(), " dims");
  EMBER_CHECK(self.scalar_type() == other.scalar_type(), "[vdot] expected tensors of one dtype; got ",
              self.scalar_type(), " and ", other.scalar_type());
  return at::dot(self, other);
}

Tensor ger(const Tensor& self, const Tensor& vec2) { return at::outer(self, vec2); }

namespace {
// beta * self + alpha * product; beta == 0 ignores self (its NaN and inf too), as libtorch.
Tensor scale_add(const char* op, const Tensor& self, const Tensor& product, const Scalar& beta, const Scalar& alpha) {
  const bool integral = isIntegralType(at::result_type(self, product), true);
  EMBER_CHECK(!(integral && (beta.isFloatingPoint() || alpha.isFloatingPoint())), "[", op,
              "] expected integral beta and alpha for integral inputs; got beta ", beta, ", alpha ", alpha);
  EMBER_CHECK(ember::broadcast_shapes(op, self.sizes(), product.sizes()) == product.sizes().vec(), "[", op,
              "] expected self broadcastable to ", product.sizes(), "; got ", self.sizes());
  const Tensor p = alpha.toDouble() == 1.0 ? product : at::mul(product, alpha);
  if (beta.toDouble() == 0.0) return at::add(p, at::zeros_like(self));
  return at::add(beta.toDouble() == 1.0 ? self : at::mul(self, beta), p);
}
}  // namespace

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(vec1.dim() == 1 && vec2.dim() == 1, "[addr] expected 1-D vec1 and vec2; got ", vec1.dim(), " and ",
              vec2.dim(), " dims");
  return scale_add("addr", self, at::outer(vec1, vec2), beta, alpha);
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(batch1.dim() == 3 && batch2.dim() == 3, "[addbmm] expected 3-D batch1 and batch2; got ", batch1.dim(),
              " and ", batch2.dim(), " dims");
  return scale_add("addbmm", self, at::bmm(batch1, batch2).sum(IntArrayRef{0}, false), beta, alpha);
}

Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  EMBER_CHECK(self.dim() == other.dim(), "[linalg_cross] expected inputs with the same number of dims; got ",
              self.dim(), " and ", other.dim());
  const std::vector<int64_t> shape = ember::broadcast_shapes("linalg_cross", self.sizes(), other.sizes());
  const int64_t d = maybe_wrap_dim(dim, static_cast<int64_t>(shape.size()), "linalg_cross");
  EMBER_CHECK(self.size(d) == 3 && other.size(d) == 3, "[linalg_cross] expected dim ", dim,
              " of size 3 in both inputs; got ", self.size(d), " and ", other.size(d));
  const Tensor a = self.expand(shape), b = other.expand(shape);
  auto c = [&](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  return at::cat({at::sub(at::mul(c(a, 1), c(b, 2)), at::mul(c(a, 2), c(b, 1))),
                  at::sub(at::mul(c(a, 2), c(b, 0)), at::mul(c(a, 0), c(b, 2))),
                  at::sub(at::mul(c(a, 0), c(b, 1)), at::mul(c(a, 1), c(b, 0)))},
                 d);
}

Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim) return at::linalg_cross(self, other, *dim);
  // Without dim: the first dim of size 3.
  for (int64_t d = 0; d < self.dim(); ++d)
    if (self.size(d) == 3) return at::linalg_cross(self, other, d);
  EMBER_CHECK(false, "[cross] expected a dim of size 3 in self (no dim given); got ", self.sizes());
  return Tensor();
}

namespace {
Tensor as_floating(const Tensor& self) {
  return isIntegralType(self.scalar_type(), true) ? self.to(kFloat) : self;
}
}  // namespace

Tensor deg2rad(const Tensor& self) { return at::mul(as_floating(self), M_PI / 180.0); }
Tensor rad2deg(const Tensor& self) { return at::mul(as_floating(self), 180.0 / M_PI); }
Tensor fix(const Tensor& self) { return at::trunc(self); }
Tensor& fix_(Tensor& self) { return self.trunc_(); }

Tensor ldexp_Tensor(const Tensor& self, const Tensor& other) { return at::mul(self, at::exp2(other)); }

Tensor float_power_Tensor_Tensor(const Tensor& self, const Tensor& exponent) {
  return at::pow(self.to(kDouble), exponent.to(kDouble));
}
Tensor float_power_Tensor_Scalar(const Tensor& self, const Scalar& exponent) {
  return at::pow(self.to(kDouble), Scalar(exponent.toDouble()));
}
Tensor float_power_Scalar(const Scalar& self, const Tensor& exponent) {
  return at::pow(at::full({}, self.toDouble(), exponent.options().dtype(kDouble)), exponent.to(kDouble));
}

Tensor xlogy_Scalar_Self(const Scalar& self, const Tensor& other) {
  return at::xlogy(at::scalar_to_tensor(self, other.device()), other);
}

}  // namespace at::native
