#pragma once
// SIMD vectors for the contiguous fast path of pointwise kernels: Vec<float> (8 lanes) and
// Vec<double> (4 lanes) on AVX2, with transcendental functions from SLEEF (u10: 1-ulp accuracy).
// An expression is vectorised only when every function it uses has a Vec overload here.
#include <ATen/native/PointwiseMath.h>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <sleef.h>
#define EMBER_HAVE_VEC 1

namespace ember::pw {

template <typename T> struct Vec;

template <> struct Vec<float> {
  static constexpr int size = 8;
  __m256 v;
  Vec() = default;
  Vec(__m256 x) : v(x) {}
  Vec(float x) : v(_mm256_set1_ps(x)) {}
  static Vec load(const void* p) { return _mm256_loadu_ps(static_cast<const float*>(p)); }
  void store(void* p) const { _mm256_storeu_ps(static_cast<float*>(p), v); }
};
template <> struct Vec<double> {
  static constexpr int size = 4;
  __m256d v;
  Vec() = default;
  Vec(__m256d x) : v(x) {}
  Vec(double x) : v(_mm256_set1_pd(x)) {}
  static Vec load(const void* p) { return _mm256_loadu_pd(static_cast<const double*>(p)); }
  void store(void* p) const { _mm256_storeu_pd(static_cast<double*>(p), v); }
};

using VF = Vec<float>;
using VD = Vec<double>;

// Arithmetic, including with scalars of any arithmetic type on either side.
#define EMBER_VEC_BINOP(OP, PS, PD)                                                           \
  inline VF operator OP(VF a, VF b) { return PS(a.v, b.v); }                                \
  inline VD operator OP(VD a, VD b) { return PD(a.v, b.v); }                                \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                 \
  inline VF operator OP(VF a, S b) { return PS(a.v, _mm256_set1_ps(static_cast<float>(b))); } \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                 \
  inline VF operator OP(S a, VF b) { return PS(_mm256_set1_ps(static_cast<float>(a)), b.v); } \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                 \
  inline VD operator OP(VD a, S b) { return PD(a.v, _mm256_set1_pd(static_cast<double>(b))); } \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                 \
  inline VD operator OP(S a, VD b) { return PD(_mm256_set1_pd(static_cast<double>(a)), b.v); }
EMBER_VEC_BINOP(+, _mm256_add_ps, _mm256_add_pd)
EMBER_VEC_BINOP(-, _mm256_sub_ps, _mm256_sub_pd)
EMBER_VEC_BINOP(*, _mm256_mul_ps, _mm256_mul_pd)
EMBER_VEC_BINOP(/, _mm256_div_ps, _mm256_div_pd)
#undef EMBER_VEC_BINOP

inline VF operator-(VF a) { return _mm256_xor_ps(a.v, _mm256_set1_ps(-0.0f)); }
inline VD operator-(VD a) { return _mm256_xor_pd(a.v, _mm256_set1_pd(-0.0)); }

#define EMBER_VEC_SLEEF1(NAME, F8, D4) \
  inline VF NAME(VF a) { return F8(a.v); } \
  inline VD NAME(VD a) { return D4(a.v); }
EMBER_VEC_SLEEF1(exp, Sleef_expf8_u10, Sleef_expd4_u10)
EMBER_VEC_SLEEF1(exp2, Sleef_exp2f8_u10, Sleef_exp2d4_u10)
EMBER_VEC_SLEEF1(expm1, Sleef_expm1f8_u10, Sleef_expm1d4_u10)
EMBER_VEC_SLEEF1(log, Sleef_logf8_u10, Sleef_logd4_u10)
EMBER_VEC_SLEEF1(log2, Sleef_log2f8_u10, Sleef_log2d4_u10)
EMBER_VEC_SLEEF1(log10, Sleef_log10f8_u10, Sleef_log10d4_u10)
EMBER_VEC_SLEEF1(log1p, Sleef_log1pf8_u10, Sleef_log1pd4_u10)
EMBER_VEC_SLEEF1(sin, Sleef_sinf8_u10, Sleef_sind4_u10)
EMBER_VEC_SLEEF1(cos, Sleef_cosf8_u10, Sleef_cosd4_u10)
EMBER_VEC_SLEEF1(tan, Sleef_tanf8_u10, Sleef_tand4_u10)
EMBER_VEC_SLEEF1(asin, Sleef_asinf8_u10, Sleef_asind4_u10)
EMBER_VEC_SLEEF1(acos, Sleef_acosf8_u10, Sleef_acosd4_u10)
EMBER_VEC_SLEEF1(atan, Sleef_atanf8_u10, Sleef_atand4_u10)
EMBER_VEC_SLEEF1(sinh, Sleef_sinhf8_u10, Sleef_sinhd4_u10)
EMBER_VEC_SLEEF1(cosh, Sleef_coshf8_u10, Sleef_coshd4_u10)
EMBER_VEC_SLEEF1(tanh, Sleef_tanhf8_u10, Sleef_tanhd4_u10)
EMBER_VEC_SLEEF1(erf, Sleef_erff8_u10, Sleef_erfd4_u10)
#undef EMBER_VEC_SLEEF1

inline VF sqrt(VF a) { return _mm256_sqrt_ps(a.v); }
inline VD sqrt(VD a) { return _mm256_sqrt_pd(a.v); }
inline VF abs(VF a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v); }
inline VD abs(VD a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a.v); }
inline VF floor(VF a) { return _mm256_floor_ps(a.v); }
inline VD floor(VD a) { return _mm256_floor_pd(a.v); }
inline VF ceil(VF a) { return _mm256_ceil_ps(a.v); }
inline VD ceil(VD a) { return _mm256_ceil_pd(a.v); }
inline VF trunc(VF a) { return _mm256_round_ps(a.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline VD trunc(VD a) { return _mm256_round_pd(a.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline VF round(VF a) { return _mm256_round_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
inline VD round(VD a) { return _mm256_round_pd(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
inline VF rsqrt(VF a) { return VF(1.0f) / sqrt(a); }
inline VD rsqrt(VD a) { return VD(1.0) / sqrt(a); }
inline VF reciprocal(VF a) { return VF(1.0f) / a; }
inline VD reciprocal(VD a) { return VD(1.0) / a; }
inline VF frac(VF a) { return a - trunc(a); }
inline VD frac(VD a) { return a - trunc(a); }
inline VF sigmoid(VF a) { return VF(1.0f) / (VF(1.0f) + exp(-a)); }
inline VD sigmoid(VD a) { return VD(1.0) / (VD(1.0) + exp(-a)); }
inline VF atan2(VF a, VF b) { return Sleef_atan2f8_u10(a.v, b.v); }
inline VD atan2(VD a, VD b) { return Sleef_atan2d4_u10(a.v, b.v); }
inline VF pow(VF a, VF b) { return Sleef_powf8_u10(a.v, b.v); }
inline VD pow(VD a, VD b) { return Sleef_powd4_u10(a.v, b.v); }

// NaN-propagating max/min: where either lane is NaN the result is that NaN.
inline VF max_nan(VF a, VF b) {
  __m256 m = _mm256_max_ps(a.v, b.v);
  __m256 nan = _mm256_cmp_ps(a.v, b.v, _CMP_UNORD_Q);
  return _mm256_or_ps(m, nan);  // NaN lanes become all-ones = a quiet NaN
}
inline VD max_nan(VD a, VD b) {
  __m256d m = _mm256_max_pd(a.v, b.v);
  return _mm256_or_pd(m, _mm256_cmp_pd(a.v, b.v, _CMP_UNORD_Q));
}
inline VF min_nan(VF a, VF b) {
  __m256 m = _mm256_min_ps(a.v, b.v);
  return _mm256_or_ps(m, _mm256_cmp_ps(a.v, b.v, _CMP_UNORD_Q));
}
inline VD min_nan(VD a, VD b) {
  __m256d m = _mm256_min_pd(a.v, b.v);
  return _mm256_or_pd(m, _mm256_cmp_pd(a.v, b.v, _CMP_UNORD_Q));
}
template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>
inline VF max_nan(VF a, S b) { return max_nan(a, VF(static_cast<float>(b))); }
template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>
inline VD max_nan(VD a, S b) { return max_nan(a, VD(static_cast<double>(b))); }
template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>
inline VF min_nan(VF a, S b) { return min_nan(a, VF(static_cast<float>(b))); }
template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>
inline VD min_nan(VD a, S b) { return min_nan(a, VD(static_cast<double>(b))); }

#define EMBER_VEC_COMPOSITES(V, S)                                                   \
  inline V clamp_opt(V x, S lo, bool has_lo, S hi, bool has_hi) {                  \
    if (has_lo) x = max_nan(x, lo);                                                \
    if (has_hi) x = min_nan(x, hi);                                                \
    return x;                                                                      \
  }                                                                                \
  inline V gelu_tanh(V x) {                                                        \
    return S(0.5) * x * (S(1) + tanh(S(0.7978845608028654) * (x + S(0.044715) * x * x * x))); \
  }                                                                                \
  inline V gelu_erf(V x) { return S(0.5) * x * (S(1) + erf(x * S(0.7071067811865476))); }
EMBER_VEC_COMPOSITES(VF, float)
EMBER_VEC_COMPOSITES(VD, double)
#undef EMBER_VEC_COMPOSITES

}  // namespace ember::pw
#endif
