#pragma once
// The vocabulary of pointwise expressions in ops.yaml, for scalars on host and device.
// cpu/Vec.h adds overloads for SIMD vectors (SLEEF); an expression that only uses functions with
// a Vec overload runs vectorised, any other falls back to the (auto-vectorisable) scalar loop.
//
//   pointwise: self + alpha * other       pointwise: 1 / (1 + exp(-self))
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/Half.h>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace ember::pw {

#define EMBER_PW_UNARY_FLOAT(NAME, F32, F64)                                              \
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>             \
  EMBER_HOST_DEVICE inline auto NAME(T x) {                                              \
    if constexpr (std::is_same_v<T, float>) return ::F32(x);                             \
    else if constexpr (std::is_same_v<T, double>) return ::F64(x);                       \
    else return static_cast<float>(::F32(static_cast<float>(x)));                        \
  }
EMBER_PW_UNARY_FLOAT(exp, expf, exp)
EMBER_PW_UNARY_FLOAT(exp2, exp2f, exp2)
EMBER_PW_UNARY_FLOAT(expm1, expm1f, expm1)
EMBER_PW_UNARY_FLOAT(log, logf, log)
EMBER_PW_UNARY_FLOAT(log2, log2f, log2)
EMBER_PW_UNARY_FLOAT(log10, log10f, log10)
EMBER_PW_UNARY_FLOAT(log1p, log1pf, log1p)
EMBER_PW_UNARY_FLOAT(sqrt, sqrtf, sqrt)
EMBER_PW_UNARY_FLOAT(sin, sinf, sin)
EMBER_PW_UNARY_FLOAT(cos, cosf, cos)
EMBER_PW_UNARY_FLOAT(tan, tanf, tan)
EMBER_PW_UNARY_FLOAT(asin, asinf, asin)
EMBER_PW_UNARY_FLOAT(acos, acosf, acos)
EMBER_PW_UNARY_FLOAT(atan, atanf, atan)
EMBER_PW_UNARY_FLOAT(sinh, sinhf, sinh)
EMBER_PW_UNARY_FLOAT(cosh, coshf, cosh)
EMBER_PW_UNARY_FLOAT(tanh, tanhf, tanh)
EMBER_PW_UNARY_FLOAT(erf, erff, erf)
#undef EMBER_PW_UNARY_FLOAT

// Rounding keeps integer types unchanged.
#define EMBER_PW_ROUNDING(NAME, F32, F64)                                                 \
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>             \
  EMBER_HOST_DEVICE inline T NAME(T x) {                                                 \
    if constexpr (std::is_same_v<T, float>) return ::F32(x);                             \
    else if constexpr (std::is_same_v<T, double>) return ::F64(x);                       \
    else return x;                                                                       \
  }
EMBER_PW_ROUNDING(floor, floorf, floor)
EMBER_PW_ROUNDING(ceil, ceilf, ceil)
EMBER_PW_ROUNDING(trunc, truncf, trunc)
EMBER_PW_ROUNDING(round, nearbyintf, nearbyint)  // half to even, like torch.round
#undef EMBER_PW_ROUNDING

template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T rsqrt(T x) { return T(1) / sqrt(x); }
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T reciprocal(T x) { return T(1) / x; }
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T frac(T x) { return x - trunc(x); }
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T abs(T x) {
  if constexpr (std::is_same_v<T, float>) return ::fabsf(x);
  else if constexpr (std::is_same_v<T, double>) return ::fabs(x);
  else if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) return x;
  else return x < 0 ? T(-x) : x;
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T sign(T x) {
  if constexpr (std::is_same_v<T, bool>) return x;
  else if constexpr (std::is_unsigned_v<T>) return static_cast<T>(x != 0);  // (nvcc warns on x < 0)
  else return static_cast<T>((T(0) < x) - (x < T(0)));
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T sigmoid(T x) { return T(1) / (T(1) + exp(-x)); }
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline bool isnan(T x) { if constexpr (std::is_floating_point_v<T>) return x != x; else return false; }
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline bool isinf(T x) {
  if constexpr (std::is_floating_point_v<T>) return x == std::numeric_limits<T>::infinity() || x == -std::numeric_limits<T>::infinity();
  else return false;
}

/// Bitwise not; logical not for bool (torch.bitwise_not).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T bitwise_not_impl(T x) {
  if constexpr (std::is_same_v<T, bool>) return !x;
  else return static_cast<T>(~x);
}

/// max/min that propagate NaN (torch.maximum / torch.minimum semantics).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T max_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) { if (a != a) return a; if (b != b) return b; }
  return a > b ? a : b;
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T min_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) { if (a != a) return a; if (b != b) return b; }
  return a < b ? a : b;
}
/// clamp with optional bounds; NaN input stays NaN.
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T clamp_opt(T x, T lo, bool has_lo, T hi, bool has_hi) {
  if (has_lo) x = max_nan(x, lo);
  if (has_hi) x = min_nan(x, hi);
  return x;
}

template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline auto atan2(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return ::atan2f(a, b);
  else if constexpr (std::is_same_v<T, double>) return ::atan2(a, b);
  else return ::atan2f(static_cast<float>(a), static_cast<float>(b));
}
/// pow; integer powers by repeated squaring (negative exponents follow torch: 1 for base 1, ...).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T pow(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return ::powf(a, b);
  else if constexpr (std::is_same_v<T, double>) return ::pow(a, b);
  else if constexpr (std::is_same_v<T, bool>) return a || !b;
  else {
    if constexpr (std::is_signed_v<T>) {  // (nvcc warns on b < 0 for unsigned T)
      if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b % 2 == 0) ? 1 : -1;
        return 0;
      }
    }
    T r = 1;
    while (b) { if (b & 1) r = static_cast<T>(r * a); b >>= 1; a = static_cast<T>(a * a); }
    return r;
  }
}
/// Python-style remainder: the result has the sign of the divisor.
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T remainder(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T m = std::is_same_v<T, float> ? ::fmodf(a, b) : ::fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
  } else if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    if (b == 0) return 0;  // guarded by a check before the kernel runs
    if constexpr (std::is_signed_v<T>) if (b == -1) return 0;
    T m = static_cast<T>(a % b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
  }
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T fmod(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return ::fmodf(a, b);
  else if constexpr (std::is_same_v<T, double>) return ::fmod(a, b);
  else if constexpr (std::is_same_v<T, bool>) return false;
  else if constexpr (std::is_signed_v<T>) return (b == 0 || b == -1) ? T(0) : static_cast<T>(a % b);
  else return b == 0 ? T(0) : static_cast<T>(a % b);
}
// Integer division guards: b == 0 is rejected before kernels run (see aten/native/Activation.cpp);
// b == -1 is done by negation, since INT_MIN / -1 traps on x86.
template <typename T>
EMBER_HOST_DEVICE inline T int_negate(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}
/// Division rounding toward zero (torch.div(..., rounding_mode='trunc')).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T trunc_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return trunc(a / b);
  else if constexpr (std::is_same_v<T, bool>) return a;
  else {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) if (b == -1) return int_negate(a);
    return static_cast<T>(a / b);
  }
}
/// Floor division (torch.floor_divide): rounds toward negative infinity.
///
/// Floating point: Python's float `//` (and libtorch's), not floor(a / b). The quotient is taken from
/// a - fmod(a, b), a multiple of b that is exact, so a rounded-up a / b cannot lift the result past
/// the true floor (1.0 // 0.1 is 9, floor(1.0 / 0.1) is 10); the remainder's sign moves it down by
/// one where a and b differ in sign, and a quotient within 1/2 of the next integer (rounding in the
/// division) is snapped to it. An infinite a gives NaN (fmod(inf, b) is NaN), a zero b gives a / b,
/// and a zero quotient takes the sign of a / b.
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T floor_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    const T m = std::is_same_v<T, float> ? ::fmodf(a, b) : ::fmod(a, b);
    T q = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) q -= 1;
    if (q == 0) return std::is_same_v<T, float> ? ::copysignf(0.0f, a / b) : ::copysign(0.0, a / b);
    const T f = floor(q);
    return q - f > T(0.5) ? f + 1 : f;
  }
  else if constexpr (std::is_same_v<T, bool>) return a;
  else {
    if (b == 0) return 0;  // guarded by a check before the kernel runs
    if constexpr (std::is_signed_v<T>) if (b == -1) return int_negate(a);
    T q = static_cast<T>(a / b);
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
}
/// The largest finite value of the storage type S, as the computation type T (a Half tensor
/// computes in float, but its infinities must become Half's max, not float's).
template <typename S, typename T>
EMBER_HOST_DEVICE inline T storage_finite_max() {
  if constexpr (std::is_same_v<S, c10::Half>) return static_cast<T>(65504.0f);
  else if constexpr (std::is_same_v<S, c10::BFloat16>) return static_cast<T>(3.38953139e38f);
  else return std::numeric_limits<T>::max();
}
/// Replaces NaN, +inf, -inf (torch.nan_to_num); S is the tensor's storage type, whose finite
/// range gives the default replacements of the infinities.
template <typename S, typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T nan_to_num_impl(T x, T nan, bool has_nan, T posinf, bool has_pos, T neginf, bool has_neg) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return has_nan ? nan : T(0);
    if (x == std::numeric_limits<T>::infinity()) return has_pos ? posinf : storage_finite_max<S, T>();
    if (x == -std::numeric_limits<T>::infinity()) return has_neg ? neginf : -storage_finite_max<S, T>();
  }
  return x;
}
/// tanh-approximated GELU.
template <typename T>
EMBER_HOST_DEVICE inline T gelu_tanh(T x) {
  const T k = T(0.7978845608028654);  // sqrt(2/pi)
  return T(0.5) * x * (T(1) + tanh(k * (x + T(0.044715) * x * x * x)));
}
/// erf GELU.
template <typename T>
EMBER_HOST_DEVICE inline T gelu_erf(T x) { return T(0.5) * x * (T(1) + erf(x * T(0.7071067811865476))); }
/// Numerically stable softplus with threshold (torch.nn.functional.softplus).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T softplus_impl(T x, T beta, T threshold) {
  return x * beta > threshold ? x : log1p(exp(x * beta)) / beta;
}


// ---------------------------------------------------------------- issue #6: libtorch's math functions
#define EMBER_PW_UNARY_FLOAT(NAME, F32, F64)                                              \
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>             \
  EMBER_HOST_DEVICE inline auto NAME(T x) {                                              \
    if constexpr (std::is_same_v<T, float>) return ::F32(x);                             \
    else if constexpr (std::is_same_v<T, double>) return ::F64(x);                       \
    else return static_cast<float>(::F32(static_cast<float>(x)));                        \
  }
EMBER_PW_UNARY_FLOAT(acosh, acoshf, acosh)
EMBER_PW_UNARY_FLOAT(asinh, asinhf, asinh)
EMBER_PW_UNARY_FLOAT(atanh, atanhf, atanh)
EMBER_PW_UNARY_FLOAT(erfc, erfcf, erfc)
EMBER_PW_UNARY_FLOAT(lgamma, lgammaf, lgamma)
#undef EMBER_PW_UNARY_FLOAT

#define EMBER_PW_BINARY_FLOAT(NAME, F32, F64)                                             \
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>             \
  EMBER_HOST_DEVICE inline auto NAME(T a, T b) {                                         \
    if constexpr (std::is_same_v<T, float>) return ::F32(a, b);                          \
    else if constexpr (std::is_same_v<T, double>) return ::F64(a, b);                    \
    else return static_cast<float>(::F32(static_cast<float>(a), static_cast<float>(b))); \
  }
EMBER_PW_BINARY_FLOAT(hypot, hypotf, hypot)
EMBER_PW_BINARY_FLOAT(copysign, copysignf, copysign)
#undef EMBER_PW_BINARY_FLOAT

/// Sign bit: true for -0.0 and negative NaN as well (torch.signbit).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline bool signbit(T x) {
  if constexpr (std::is_floating_point_v<T>) return ::copysign(1.0, static_cast<double>(x)) < 0.0;
  else if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) return false;
  else return x < 0;
}

/// The larger / smaller of two values where NaN loses to a number (torch.fmax / torch.fmin).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T fmax_impl(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) { if (a != a) return b; if (b != b) return a; }
  return a > b ? a : b;
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T fmin_impl(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) { if (a != a) return b; if (b != b) return a; }
  return a < b ? a : b;
}

/// sin(pi x) / (pi x), 1 at 0 (torch.sinc).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T sinc(T x) {
  if (x == T(0)) return T(1);
  const T px = T(3.14159265358979323846) * x;
  return sin(px) / px;
}

/// x * log(y), 0 where x is 0 unless y is NaN (torch.xlogy).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T xlogy(T x, T y) {
  if (y != y) return y;
  if (x == T(0)) return T(0);
  return x * log(y);
}

/// log(x / (1 - x)); with eps the input is first clamped to [eps, 1 - eps] (NaN stays NaN).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T logit_impl(T x, T eps, bool has_eps) {
  if (has_eps) {
    const T lo = eps, hi = T(1) - eps;
    x = x < lo ? lo : (x > hi ? hi : x);
  }
  return log(x / (T(1) - x));
}

/// log(exp(a) + exp(b)) without overflow; equal infinities give themselves.
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T logaddexp_impl(T a, T b) {
  if (isinf(a) && a == b) return a;
  const T m = a > b ? a : b;
  return m + log1p(exp(-abs(a - b)));
}
/// log2(2^a + 2^b) without overflow.
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T logaddexp2_impl(T a, T b) {
  if (isinf(a) && a == b) return a;
  const T m = a > b ? a : b;
  return m + log1p(exp2(-abs(a - b))) * T(1.44269504088896340736);
}

/// Greatest common divisor of the magnitudes (Euclid); gcd(0, 0) = 0. Magnitudes wrap as
/// integer negation does (-fwrapv): the most negative value stays itself.
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T gcd_impl(T a, T b) {
  a = abs(a);
  b = abs(b);
  while (a != 0) {
    const T r = static_cast<T>(b % a);
    b = a;
    a = r;
  }
  return b;
}
/// Least common multiple of the magnitudes; 0 when either is 0.
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T lcm_impl(T a, T b) {
  const T g = gcd_impl(a, b);
  if (g == 0) return T(0);
  return abs(static_cast<T>(static_cast<T>(a / g) * b));
}

namespace detail {
/// erfinv in double: a rational first guess (central region and tails) refined by Newton steps
/// on erf(x) - y, whose derivative is 2/sqrt(pi) exp(-x^2).
EMBER_HOST_DEVICE inline double erfinv_double(double y) {
  if (y != y || y < -1.0 || y > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1.0) return std::numeric_limits<double>::infinity();
  if (y == -1.0) return -std::numeric_limits<double>::infinity();
  if (y == 0.0) return y;  // keeps -0.0
  // First guess: w = -log(1 - y^2); two polynomial branches in w.
  const double w = -::log1p(-y * y);
  double p;
  if (w < 5.0) {
    const double v = w - 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * v;
    p = -3.5233877e-06 + p * v;
    p = -4.39150654e-06 + p * v;
    p = 0.00021858087 + p * v;
    p = -0.00125372503 + p * v;
    p = -0.00417768164 + p * v;
    p = 0.246640727 + p * v;
    p = 1.50140941 + p * v;
  } else {
    const double v = ::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * v;
    p = 0.00134934322 + p * v;
    p = -0.00367342844 + p * v;
    p = 0.00573950773 + p * v;
    p = -0.0076224613 + p * v;
    p = 0.00943887047 + p * v;
    p = 1.00167406 + p * v;
    p = 2.83297682 + p * v;
  }
  double x = p * y;
  // Newton on f(x) = erf(x) - y. Near |y| = 1, erfc keeps the residual accurate.
  for (int i = 0; i < 3; ++i) {
    const double r = (y > 0.5) ? (1.0 - y) - ::erfc(x) : (y < -0.5) ? ::erfc(-x) - (1.0 + y) : ::erf(x) - y;
    const double d = 1.12837916709551257390 * ::exp(-x * x);
    if (d == 0.0) break;
    x -= r / d;
  }
  return x;
}

/// digamma in double: reflection for negative inputs, the recurrence psi(x) = psi(x + 1) - 1/x
/// up to x >= 10, then the asymptotic series log x - 1/(2x) - sum B_2k / (2k x^2k).
EMBER_HOST_DEVICE inline double digamma_double(double x) {
  const double pi = 3.14159265358979323846;
  if (x == 0.0) return ::copysign(1.0, x) < 0.0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  if (x != x) return x;
  double result = 0.0;
  if (x < 0.0) {
    if (x == ::trunc(x)) return std::numeric_limits<double>::quiet_NaN();
    // psi(1 - x) - psi(x) = pi / tan(pi x); tan has period 1, and x minus its nearest integer is
    // exact, so tiny negative x keep their precision (x - floor(x) would round to 1).
    const double r = x - ::nearbyint(x);  // in [-1/2, 1/2]
    result = -pi / ::tan(pi * r);
    x = 1.0 - x;
  }
  if (x == std::numeric_limits<double>::infinity()) return result + x;  // psi(+inf) = +inf
  while (x < 10.0) {
    result -= 1.0 / x;
    x += 1.0;
  }
  const double z = 1.0 / (x * x);
  // B2/2 = 1/12, B4/4 = -1/120, B6/6 = 1/252, B8/8 = -1/240, B10/10 = 1/132, B12/12 = -691/32760,
  // B14/14 = 1/12; the sum runs over s * z, Horner from the highest power.
  double s = -1.0 / 12.0;
  s = 691.0 / 32760.0 + z * s;
  s = -1.0 / 132.0 + z * s;
  s = 1.0 / 240.0 + z * s;
  s = -1.0 / 252.0 + z * s;
  s = 1.0 / 120.0 + z * s;
  s = -1.0 / 12.0 + z * s;
  return result + ::log(x) - 0.5 / x + s * z;
}

/// Modified Bessel function I0 in double: the power series sum ((x/2)^k / k!)^2 up to |x| = 30,
/// then the asymptotic expansion e^x / sqrt(2 pi x) sum ((2k-1)!!)^2 / (k! (8x)^k).
EMBER_HOST_DEVICE inline double i0_double(double x) {
  x = ::fabs(x);
  if (x != x) return x;
  if (x <= 30.0) {
    const double q = 0.25 * x * x;
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 500; ++k) {
      term *= q / (static_cast<double>(k) * k);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return sum;
  }
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 30; ++k) {
    const double m = 2.0 * k - 1.0;
    term *= m * m / (8.0 * k * x);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  // e^x split in halves so that the product stays finite as long as the result is.
  const double h = ::exp(0.5 * x);
  return h * (h * sum / ::sqrt(2.0 * 3.14159265358979323846 * x));
}
}  // namespace detail

/// Inverse error function (torch.erfinv): NaN outside [-1, 1], +-inf at +-1.
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline auto erfinv(T x) {
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;
  return static_cast<R>(detail::erfinv_double(static_cast<double>(x)));
}
/// Logarithmic derivative of the gamma function (torch.digamma): NaN at negative integers,
/// -inf at +0 and +inf at -0.
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline auto digamma(T x) {
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;
  return static_cast<R>(detail::digamma_double(static_cast<double>(x)));
}
/// Modified Bessel function of the first kind, order 0 (torch.i0).
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline auto i0(T x) {
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;
  return static_cast<R>(detail::i0_double(static_cast<double>(x)));
}

}  // namespace ember::pw
#include <ATen/native/SpecialMath.h>

EMBER_PUBLIC_END
