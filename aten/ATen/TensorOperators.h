#pragma once
// Free operators over tensors and scalars, as in libtorch: a + b, 2 * t, t == u (a bool tensor), ...
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>

namespace at {
inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return rsub(b, a); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
// Scalar / Tensor and Scalar % Tensor are those of a tensor like b filled with a (libtorch's
// definition: an integral b keeps its dtype, so a is cast to it first); for a floating b that is a
// 0-dim tensor of b's dtype, in one pass. (Not b's reciprocal times a: that rounds twice.)
inline Tensor operator/(const Scalar& a, const Tensor& b) {
  if (b.is_floating_point()) return div(scalar_tensor(a, b.options()), b);
  return empty_like(b, TensorOptions(), MemoryFormat::Preserve).fill_(a).div_(b);
}
inline Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
inline Tensor operator%(const Tensor& a, const Scalar& b) { return remainder(a, b); }
inline Tensor operator%(const Scalar& a, const Tensor& b) {
  if (b.is_floating_point()) return remainder(scalar_tensor(a, b.options()), b);
  return empty_like(b, TensorOptions(), MemoryFormat::Preserve).fill_(a).remainder_(b);
}
inline Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
inline Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
inline Tensor operator==(const Scalar& a, const Tensor& b) { return eq(b, a); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
inline Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
inline Tensor operator!=(const Scalar& a, const Tensor& b) { return ne(b, a); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
inline Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
inline Tensor operator<(const Scalar& a, const Tensor& b) { return gt(b, a); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
inline Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
inline Tensor operator<=(const Scalar& a, const Tensor& b) { return ge(b, a); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
inline Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
inline Tensor operator>(const Scalar& a, const Tensor& b) { return lt(b, a); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
inline Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
inline Tensor operator>=(const Scalar& a, const Tensor& b) { return le(b, a); }
inline Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
inline Tensor operator&(const Tensor& a, const Scalar& b) { return bitwise_and(a, b); }
inline Tensor operator&(const Scalar& a, const Tensor& b) { return bitwise_and(b, a); }
inline Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
inline Tensor operator|(const Tensor& a, const Scalar& b) { return bitwise_or(a, b); }
inline Tensor operator|(const Scalar& a, const Tensor& b) { return bitwise_or(b, a); }
inline Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
inline Tensor operator^(const Tensor& a, const Scalar& b) { return bitwise_xor(a, b); }
inline Tensor operator^(const Scalar& a, const Tensor& b) { return bitwise_xor(b, a); }
}  // namespace at

EMBER_PUBLIC_END
