#pragma once
// torch::special, libtorch's namespace of special functions: each is an at:: operator (ops.yaml)
// under the name libtorch's users call, so their gradients and backends come with it.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <cmath>
#include <optional>

namespace torch::special {
namespace detail {
// A Scalar operand as a 0-dim tensor that promotes like a wrapped number: floating values take
// the default dtype, integers int64, so the tensor operand's dtype wins within its category.
inline at::Tensor scalar_operand(const at::Scalar& s, const at::Tensor& like) {
  const at::ScalarType dt = s.isFloatingPoint() ? c10::get_default_dtype() : (s.isBoolean() ? at::kBool : at::kLong);
  return at::full({}, s, at::TensorOptions().dtype(dt).device(like.device()));
}
}  // namespace detail

/// log|Gamma(x)|.
inline at::Tensor gammaln(const at::Tensor& self) { return at::lgamma(self); }
/// psi(x) = d/dx log Gamma(x); psi is its other name.
inline at::Tensor digamma(const at::Tensor& self) { return at::digamma(self); }
inline at::Tensor psi(const at::Tensor& self) { return at::digamma(self); }
/// n-th derivative of digamma (n >= 0).
inline at::Tensor polygamma(int64_t n, const at::Tensor& self) { return at::polygamma(n, self); }
/// Multivariate log-gamma of dimension p: sum over j < p of lgamma(x - j/2) + p(p-1)/4 log(pi);
/// every element must exceed (p - 1) / 2.
inline at::Tensor multigammaln(const at::Tensor& self, int64_t p) {
  EMBER_CHECK(p >= 1, "[multigammaln] expected a dimension p >= 1; got ", p);
  EMBER_CHECK(at::isFloatingType(self.scalar_type()), "[multigammaln] expected a floating point input; got ",
              c10::dtypeName(self.scalar_type()));
  EMBER_CHECK(self.numel() == 0 || at::all(at::gt(self, 0.5 * static_cast<double>(p - 1))).item<bool>(),
              "[multigammaln] expected every element to be greater than (p - 1) / 2 = ", 0.5 * static_cast<double>(p - 1),
              "; got a smaller one");
  at::Tensor r = at::lgamma(self);
  for (int64_t j = 1; j < p; ++j) r = r + at::lgamma(self - 0.5 * static_cast<double>(j));
  return r + 0.25 * static_cast<double>(p) * static_cast<double>(p - 1) * std::log(3.14159265358979323846);
}

/// -x log x (0 at 0, -inf below).
inline at::Tensor entr(const at::Tensor& self) { return at::special_entr(self); }
inline at::Tensor erf(const at::Tensor& self) { return at::erf(self); }
inline at::Tensor erfc(const at::Tensor& self) { return at::erfc(self); }
/// e^(x^2) erfc(x).
inline at::Tensor erfcx(const at::Tensor& self) { return at::special_erfcx(self); }
inline at::Tensor erfinv(const at::Tensor& self) { return at::erfinv(self); }
/// The standard normal CDF, its logarithm and its inverse.
inline at::Tensor ndtr(const at::Tensor& self) { return at::special_ndtr(self); }
inline at::Tensor log_ndtr(const at::Tensor& self) { return at::special_log_ndtr(self); }
inline at::Tensor ndtri(const at::Tensor& self) { return at::special_ndtri(self); }
/// log(p / (1 - p)); with eps, p is first clamped to [eps, 1 - eps].
inline at::Tensor logit(const at::Tensor& self, std::optional<double> eps = std::nullopt) { return at::logit(self, eps); }
/// The logistic sigmoid.
inline at::Tensor expit(const at::Tensor& self) { return at::sigmoid(self); }
inline at::Tensor exp2(const at::Tensor& self) { return at::exp2(self); }
inline at::Tensor expm1(const at::Tensor& self) { return at::expm1(self); }
inline at::Tensor log1p(const at::Tensor& self) { return at::log1p(self); }
inline at::Tensor round(const at::Tensor& self) { return at::round(self); }
inline at::Tensor sinc(const at::Tensor& self) { return at::sinc(self); }

/// x log y and x log(1 + y), 0 where x is 0 (unless y is NaN).
inline at::Tensor xlogy(const at::Tensor& self, const at::Tensor& other) { return at::xlogy(self, other); }
inline at::Tensor xlogy(const at::Scalar& self, const at::Tensor& other) { return at::xlogy(self, other); }
inline at::Tensor xlogy(const at::Tensor& self, const at::Scalar& other) { return at::xlogy(self, other); }
inline at::Tensor xlog1py(const at::Tensor& self, const at::Tensor& other) { return at::special_xlog1py(self, other); }
inline at::Tensor xlog1py(const at::Scalar& self, const at::Tensor& other) {
  return at::special_xlog1py(detail::scalar_operand(self, other), other);
}
inline at::Tensor xlog1py(const at::Tensor& self, const at::Scalar& other) {
  return at::special_xlog1py(self, detail::scalar_operand(other, self));
}
/// Hurwitz zeta: the sum over k >= 0 of (q + k)^-x.
inline at::Tensor zeta(const at::Tensor& self, const at::Tensor& other) { return at::special_zeta(self, other); }
inline at::Tensor zeta(const at::Scalar& self, const at::Tensor& other) {
  return at::special_zeta(detail::scalar_operand(self, other), other);
}
inline at::Tensor zeta(const at::Tensor& self, const at::Scalar& other) {
  return at::special_zeta(self, detail::scalar_operand(other, self));
}

/// Modified Bessel functions of the first kind, orders 0 and 1, and their e^-|x| scaled forms.
inline at::Tensor i0(const at::Tensor& self) { return at::i0(self); }
inline at::Tensor i0e(const at::Tensor& self) { return at::special_i0e(self); }
inline at::Tensor i1(const at::Tensor& self) { return at::special_i1(self); }
inline at::Tensor i1e(const at::Tensor& self) { return at::special_i1e(self); }

inline at::Tensor softmax(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype = std::nullopt) {
  return at::softmax(self, dim, dtype);
}
inline at::Tensor log_softmax(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype = std::nullopt) {
  return at::log_softmax(self, dim, dtype);
}
inline at::Tensor logsumexp(const at::Tensor& self, at::IntArrayRef dim, bool keepdim = false) {
  return at::logsumexp(self, dim, keepdim);
}

}  // namespace torch::special

namespace torch {
/// Multivariate log-gamma (torch.mvlgamma), the same function as special::multigammaln.
inline at::Tensor mvlgamma(const at::Tensor& self, int64_t p) { return special::multigammaln(self, p); }
}  // namespace torch

EMBER_PUBLIC_END
