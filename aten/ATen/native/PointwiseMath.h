#pragma once
// The vocabulary of pointwise expressions in ops.yaml, for scalars on host and device.
// cpu/Vec.h adds overloads for SIMD vectors (SLEEF); an expression that only uses functions with
// a Vec overload runs vectorised, any other falls back to the (auto-vectorisable) scalar loop.
//
//   pointwise: self + alpha * other       pointwise: 1 / (1 + exp(-self))
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
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
EMBER_HOST_DEVICE inline T floor_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return floor(a / b);
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

}  // namespace ember::pw
