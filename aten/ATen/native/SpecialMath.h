#pragma once
// Special functions of the pointwise vocabulary that need more than a libm call: polygamma and the
// Hurwitz zeta function, the scaled and first-order modified Bessel functions, the scaled
// complementary error function and the normal distribution's log-CDF and quantile. Each is
// evaluated in double on host and device; the float-typed entry points (namespace ember::pw) round
// once at the end, as digamma does. Included from PointwiseMath.h.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <cmath>
#include <limits>
#include <type_traits>

namespace ember::pw {
namespace detail {
constexpr double kPi = 3.14159265358979323846;

/// Hurwitz zeta: sum over k >= 0 of (q + k)^-s. s == 1 is a pole (+inf), s < 1 is outside the
/// series' domain (NaN). A q at a non-positive integer hits a term 0^-s (+inf); other negative q
/// need an integer s for (q + k)^-s to be real. The first terms are added directly until
/// a = q + N is large, the rest by Euler-Maclaurin: a^(1-s)/(s-1) + a^-s/2 plus the Bernoulli
/// corrections B_2j/(2j)! * s(s+1)...(s+2j-2) * a^(-s-2j+1).
EMBER_HOST_DEVICE inline double zeta_double(double s, double q) {
  const double inf = std::numeric_limits<double>::infinity();
  if (s != s || q != q) return std::numeric_limits<double>::quiet_NaN();
  if (s == 1.0) return inf;
  if (s < 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0.0) {
    if (q == ::floor(q)) return inf;
    if (s != ::floor(s)) return std::numeric_limits<double>::quiet_NaN();
  }
  if (q == inf) return 0.0;
  if (s == inf) return q > 1.0 ? 0.0 : (q == 1.0 ? 1.0 : inf);
  // B_2j / (2j)! for j = 1..12.
  const double bern[12] = {1.0 / 12.0,
                           -1.0 / 720.0,
                           1.0 / 30240.0,
                           -1.0 / 1209600.0,
                           1.0 / 47900160.0,
                           -691.0 / 1307674368000.0,
                           1.0 / 74724249600.0,
                           -3617.0 / 10670622842880000.0,
                           43867.0 / 5109094217170944000.0,
                           -174611.0 / 802857662698291200000.0,
                           854513.0 / 1.1240007277776077e24,
                           -236364091.0 / 1.5511210043330986e29};
  // The correction terms shrink like ((s + 2j) / (2 pi a))^2 per step: start them far enough out.
  const double start = 10.0 + 0.5 * s;
  double sum = 0.0;
  double a = q;
  while (a < start) {
    const double t = ::pow(a, -s);
    sum += t;
    a += 1.0;
    if (t == 0.0 && a > 0.0) break;
  }
  const double a_s = ::pow(a, -s);
  double tail = a * a_s / (s - 1.0) + 0.5 * a_s;
  double rising = s;          // s (s+1) ... (s+2j-2)
  double power = a_s / a;     // a^(-s-2j+1)
  for (int j = 0; j < 12; ++j) {
    const double term = bern[j] * rising * power;
    tail += term;
    if (::fabs(term) <= 1e-17 * ::fabs(sum + tail)) break;
    rising *= (s + 2.0 * j + 1.0) * (s + 2.0 * j + 2.0);
    power /= a * a;
  }
  return sum + tail;
}

/// Trigamma psi'(x): reflection pi^2 / sin^2(pi x) - psi'(1 - x) below 1/2 (sin of the reduced
/// argument, so that poles at non-positive integers, huge negative values included, give +inf), psi'(x) = psi'(x + 1) + 1/x^2 up
/// to x >= 10, then 1/x + 1/(2x^2) + sum B_2k / x^(2k+1).
EMBER_HOST_DEVICE inline double trigamma_upper(double x) {  // x >= 1/2
  double result = 0.0;
  while (x < 20.0) {
    result += 1.0 / (x * x);
    x += 1.0;
  }
  if (x == std::numeric_limits<double>::infinity()) return result;
  const double z = 1.0 / (x * x);
  return result + 1.0 / x + 0.5 * z +
         z / x * (1.0 / 6.0 + z * (-1.0 / 30.0 + z * (1.0 / 42.0 + z * (-1.0 / 30.0 + z * (5.0 / 66.0 + z * (-691.0 / 2730.0))))));
}

EMBER_HOST_DEVICE inline double trigamma_double(double x) {
  if (x != x) return x;
  if (x >= 0.5) return trigamma_upper(x);
  if (x == -std::numeric_limits<double>::infinity()) return std::numeric_limits<double>::quiet_NaN();
  // sin^2 has period 1; x minus its nearest integer is exact (tiny negative x keep their precision).
  const double sp = ::sin(kPi * (x - ::nearbyint(x)));
  const double pole = kPi * kPi / (sp * sp);
  if (pole == std::numeric_limits<double>::infinity()) return pole;
  return pole - trigamma_upper(1.0 - x);
}

/// n-th derivative of digamma: psi(x) for n = 0, trigamma for n = 1, otherwise
/// (-1)^(n+1) n! zeta(n + 1, x).
EMBER_HOST_DEVICE inline double polygamma_double(long long n, double x) {
  if (n == 0) return digamma_double(x);
  if (n == 1) return trigamma_double(x);
  const double sign = (n % 2) ? 1.0 : -1.0;
  return sign * ::exp(::lgamma(static_cast<double>(n) + 1.0)) * zeta_double(static_cast<double>(n) + 1.0, x);
}

/// Modified Bessel I0 and I1 times e^-|x|: the power series scaled by e^-|x| up to |x| = 30, then
/// the asymptotic expansion sum / sqrt(2 pi |x|), whose k-th term is the previous one times
/// ((2k-1)^2 - 4 nu^2) / (8 k |x|).
EMBER_HOST_DEVICE inline double bessel_scaled_double(int nu, double x) {
  const double ax = ::fabs(x);
  if (ax != ax) return ax;
  double r;
  if (ax <= 30.0) {
    const double q = 0.25 * ax * ax;
    double term = nu == 0 ? 1.0 : 0.5 * ax, sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= q / (static_cast<double>(k) * (k + nu));
      sum += term;
      if (term <= sum * 1e-17) break;
    }
    r = sum * ::exp(-ax);
  } else {
    const double mu = 4.0 * nu * nu;
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 30; ++k) {
      const double m = 2.0 * k - 1.0;
      term *= (m * m - mu) / (8.0 * k * ax);
      sum += term;
      if (::fabs(term) < ::fabs(sum) * 1e-17) break;
    }
    r = ax == std::numeric_limits<double>::infinity() ? 0.0 : sum / ::sqrt(2.0 * kPi * ax);
  }
  return (nu == 1 && x < 0.0) ? -r : r;
}

/// I1 itself: the scaled value times e^|x|, split in halves so the product stays finite as long
/// as the result is.
EMBER_HOST_DEVICE inline double i1_double(double x) {
  const double ax = ::fabs(x);
  if (ax == std::numeric_limits<double>::infinity()) return x;
  const double h = ::exp(0.5 * ax);
  return bessel_scaled_double(1, x) * h * h;
}

/// e^(x*x) with x*x split into its rounded value and the rounding error (fma), so that the
/// factor keeps full relative precision where x*x is large.
EMBER_HOST_DEVICE inline double exp_x2_double(double x) {
  const double hi = x * x;
  const double lo = ::fma(x, x, -hi);
  return ::exp(hi) * ::exp(lo);
}

/// Scaled complementary error function e^(x^2) erfc(x). For x < 0 it is 2 e^(x^2) - erfcx(-x);
/// up to x = 25 the product e^(x^2) erfc(x) (erfc has full relative precision there), beyond it
/// the asymptotic series 1 / (x sqrt(pi)) * sum (-1)^k (2k-1)!! / (2x^2)^k.
EMBER_HOST_DEVICE inline double erfcx_upper(double x) {  // x >= 0
  if (x < 25.0) return exp_x2_double(x) * ::erfc(x);
  if (x == std::numeric_limits<double>::infinity()) return 0.0;
  const double z = 1.0 / (2.0 * x * x);
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 20; ++k) {
    term *= -(2.0 * k - 1.0) * z;
    sum += term;
    if (::fabs(term) < 1e-17) break;
  }
  return sum / (x * 1.7724538509055160273);
}

EMBER_HOST_DEVICE inline double erfcx_double(double x) {
  if (x != x) return x;
  if (x >= 0.0) return erfcx_upper(x);
  if (x < -26.7) return std::numeric_limits<double>::infinity();
  return 2.0 * exp_x2_double(x) - erfcx_upper(-x);
}

/// Standard normal CDF: erfc(-x / sqrt 2) / 2 (accurate in the lower tail).
EMBER_HOST_DEVICE inline double ndtr_double(double x) { return 0.5 * ::erfc(-x * 0.70710678118654752440); }

/// log of the normal CDF: log1p(-erfc(x / sqrt 2) / 2) above -1; below it, through erfcx so the
/// lower tail keeps going past erfc's underflow: log(erfcx(-x / sqrt 2) / 2) - x^2 / 2.
EMBER_HOST_DEVICE inline double log_ndtr_double(double x) {
  if (x != x) return x;
  const double t = x * 0.70710678118654752440;
  if (x > -1.0) return ::log1p(-0.5 * ::erfc(t));
  if (x == -std::numeric_limits<double>::infinity()) return x;
  return ::log(0.5 * erfcx_double(-t)) - t * t;
}

/// Quantile of the standard normal distribution (inverse of ndtr): -inf at 0, +inf at 1, NaN
/// outside [0, 1]. sqrt(2) erfinv(2p - 1) in the centre; in the tails Newton steps on
/// log_ndtr(x) = log(p) from the first-order tail estimate, so tiny p keep their precision.
EMBER_HOST_DEVICE inline double ndtri_double(double p) {
  if (p != p || p < 0.0 || p > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  if (p > 0.1 && p < 0.9) return 1.41421356237309504880 * erfinv_double(2.0 * p - 1.0);
  // The upper tail by symmetry: 1 - p is exact for p > 1/2.
  const bool upper = p > 0.5;
  const double lp = upper ? ::log1p(-p) : ::log(p);
  const double tq = ::sqrt(-2.0 * lp);
  double x = -(tq - (2.515517 + 0.802853 * tq + 0.010328 * tq * tq) /
                        (1.0 + 1.432788 * tq + 0.189269 * tq * tq + 0.001308 * tq * tq * tq));
  for (int i = 0; i < 8; ++i) {
    const double f = log_ndtr_double(x) - lp;
    // d/dx log ndtr(x) = phi(x) / ndtr(x) = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi)
    const double d = ::exp(-0.5 * x * x - log_ndtr_double(x)) * 0.39894228040143267794;
    const double step = f / d;
    x -= step;
    if (::fabs(step) <= 1e-16 * ::fabs(x)) break;
  }
  return upper ? -x : x;
}
}  // namespace detail

#define EMBER_PW_SPECIAL_UNARY(NAME, IMPL)                                                  \
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>               \
  EMBER_HOST_DEVICE inline auto NAME(T x) {                                                \
    using R = std::conditional_t<std::is_same_v<T, double>, double, float>;               \
    return static_cast<R>(IMPL(static_cast<double>(x)));                                   \
  }
/// Trigamma, psi'(x); +inf at the poles (non-positive integers).
EMBER_PW_SPECIAL_UNARY(trigamma, detail::trigamma_double)
/// Modified Bessel function of the first kind, order 1 (torch.special.i1); odd.
EMBER_PW_SPECIAL_UNARY(i1, detail::i1_double)
/// e^-|x| I0(x) and e^-|x| I1(x) (torch.special.i0e / i1e).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline auto i0e(T x) {
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;
  return static_cast<R>(detail::bessel_scaled_double(0, static_cast<double>(x)));
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline auto i1e(T x) {
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;
  return static_cast<R>(detail::bessel_scaled_double(1, static_cast<double>(x)));
}
/// e^(x^2) erfc(x) (torch.special.erfcx).
EMBER_PW_SPECIAL_UNARY(erfcx, detail::erfcx_double)
/// Standard normal CDF, its log and its inverse (torch.special.ndtr / log_ndtr / ndtri).
EMBER_PW_SPECIAL_UNARY(ndtr, detail::ndtr_double)
EMBER_PW_SPECIAL_UNARY(log_ndtr, detail::log_ndtr_double)
EMBER_PW_SPECIAL_UNARY(ndtri, detail::ndtri_double)
#undef EMBER_PW_SPECIAL_UNARY

/// n-th derivative of digamma (torch.polygamma); n arrives as the computation type.
template <typename N, typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline auto polygamma(N n, T x) {
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;
  return static_cast<R>(detail::polygamma_double(static_cast<long long>(n), static_cast<double>(x)));
}
/// Hurwitz zeta (torch.special.zeta).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline auto zeta(T s, T q) {
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;
  return static_cast<R>(detail::zeta_double(static_cast<double>(s), static_cast<double>(q)));
}
/// -x log x: 0 at 0, -inf below 0 (torch.special.entr).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T entr(T x) {
  if (x != x) return x;
  if (x > T(0)) return -x * log(x);
  if (x == T(0)) return T(0);
  return -std::numeric_limits<T>::infinity();
}
/// x * log1p(y), 0 where x is 0 unless y is NaN (torch.special.xlog1py).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T xlog1py(T x, T y) {
  if (y != y) return y;
  if (x == T(0)) return T(0);
  return x * log1p(y);
}
}  // namespace ember::pw

EMBER_PUBLIC_END
