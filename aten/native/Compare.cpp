// Closeness and equality of whole tensors: isclose, allclose, equal.
#include <ATen/native/NativeFunctions.h>

namespace at::native {

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(self.scalar_type() == other.scalar_type(), "[isclose] expected self and other of one dtype; got ",
              self.scalar_type(), " and ", other.scalar_type());
  EMBER_CHECK(rtol >= 0, "[isclose] expected a non-negative rtol; got ", rtol);
  EMBER_CHECK(atol >= 0, "[isclose] expected a non-negative atol; got ", atol);
  // Equal values are close (this covers equal infinities); NaNs are close to each other on request.
  Tensor close = at::eq(self, other);
  if (equal_nan && self.is_floating_point())
    close = at::logical_or(close, at::logical_and(at::isnan(self), at::isnan(other)));
  if (rtol == 0 && atol == 0) return close;
  // Otherwise |self - other| <= atol + rtol * |other|, with a finite difference (an infinite one
  // is never within a tolerance). Booleans are measured as numbers.
  const Tensor a = self.scalar_type() == kBool ? self.to(kFloat) : self;
  const Tensor b = other.scalar_type() == kBool ? other.to(kFloat) : other;
  const Tensor allowed = at::add(at::abs(at::mul(b, rtol)), atol);
  const Tensor err = at::abs(at::sub(a, b));
  const Tensor finite = at::logical_not(at::logical_or(at::isnan(err), at::isinf(err)));
  return at::logical_or(close, at::logical_and(finite, at::le(err, allowed)));
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return at::isclose(self, other, rtol, atol, equal_nan).all().item<bool>();
}

bool equal(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.device() == other.device(), "[equal] expected tensors on one device; got ", self.device(), " and ",
              other.device());
  if (self.sizes() != other.sizes()) return false;
  return at::eq(self, other).all().item<bool>();
}

}  // namespace at::native
