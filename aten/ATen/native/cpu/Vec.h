#pragma once
// SIMD vectors for pointwise kernels: Vec<float> and Vec<double>, one implementation per
// instruction-set level, chosen from the compiler's predefined macros, so a kernel file compiled
// once per level gets that level's vectors:
//
//   level     when                                      float/double lanes  transcendentals (SLEEF u10; float
//                                                                           exp, erf, gelu: own, below)
//   avx512    __AVX512F__ BW VL DQ                      16 / 8              Sleef_finz_<fn>f16_u10avx512f
//   avx2      __AVX2__ and __FMA__                      8 / 4               Sleef_finz_<fn>f8_u10avx2
//   sse2      x86-64 baseline (__SSE2__)                4 / 2               Sleef_cinz_<fn>f4_u10sse2
//   generic   other architectures, or EMBER_VEC_GENERIC 4 / 2 (an array)    Sleef_finz_<fn>f1_u10purecfma
//                                                                           per lane (cinz_..purec without FMA)
//
// Note [Deterministic SLEEF]: the names are SLEEF's explicit per-ISA ones (not the dispatching
// Sleef_expf8_u10), so the code a level runs is fixed by how its file was compiled, and they are
// its deterministic variants (finz_: with FMA, cinz_: without). The plain variants pick an
// argument-reduction path per vector (cosf: if any lane is 125 or more, every lane takes the slow
// one), so a lane's result would depend on its neighbours; the deterministic ones decide per lane,
// and the finz_ ones give the same bits at every FMA level (avx512, avx2, generic on ARM).
// EMBER_HAVE_VEC is defined at every level: a vectorisable functor has exactly one math source per
// level (Note [One vector-math source] in Loops.h); the accuracy of each function is tabled in
// docs/vector-math.md.
//
// An expression is vectorised only when every function it uses has a Vec overload here.
//
//   using V = ember::pw::Vec<float>;
//   V y = exp(V::load(x) * 2.0f);  y.store(out);         // V::size floats at a time
//   V h = load_opmath(half_ptr);   store_opmath(h, half_ptr);  // Half/BFloat16 through float
#include <ATen/native/PointwiseMath.h>
#include <sleef.h>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if !defined(EMBER_VEC_GENERIC) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__AVX512DQ__)
#define EMBER_VEC_AVX512 1
#elif !defined(EMBER_VEC_GENERIC) && defined(__AVX2__) && defined(__FMA__)
#define EMBER_VEC_AVX2 1
#elif !defined(EMBER_VEC_GENERIC) && defined(__SSE2__)
#define EMBER_VEC_SSE2 1
#elif !defined(EMBER_VEC_GENERIC)
#define EMBER_VEC_GENERIC 1
#endif
#define EMBER_HAVE_VEC 1

// Note [Vec levels in one library]: a kernel file compiled at several levels defines Vec<float>,
// exp(Vec<float>), cpu_pointwise's loops... once per level. Inline functions are merged by the
// linker under their mangled names, so a baseline file could end up calling an AVX-512 copy
// (SIGILL). Everything here and in Loops.h lives in an inline namespace named after the level:
// ember::pw::Vec still names it, and the levels' symbols differ.
#if defined(EMBER_VEC_AVX512)
#define EMBER_VEC_NS vec_avx512
#elif defined(EMBER_VEC_AVX2)
#define EMBER_VEC_NS vec_avx2
#elif defined(EMBER_VEC_SSE2)
#define EMBER_VEC_NS vec_sse2
#else
#define EMBER_VEC_NS vec_generic
#endif

#if defined(EMBER_VEC_AVX512) || defined(EMBER_VEC_AVX2) || defined(EMBER_VEC_SSE2)
#include <immintrin.h>
#endif

namespace ember::pw {
inline namespace EMBER_VEC_NS {

// Level primitives on the native register types NF (float lanes) and ND (double lanes): set1,
// loadu, storeu, add, sub, mul, div, neg, abs, sqrt, floor, ceil, trunc, round (half to even),
// max_nan/min_nan (a NaN operand is returned as it is, a's first, like the scalar versions),
// max_c/min_c (float lanes: the same as max_nan/min_nan(a, c) for a c with no NaN and no zero
// lane, in one vmax/vmin: those return their second operand a where either is NaN),
// blend_gt(x, t, a, b) (x > t ? a : b per lane; false for NaN), any_gt(x, t), any_nle(x, t) (some
// lane not <= t: greater, or NaN; float lanes), and apply1/apply2,
// which run a SLEEF function named by EMBER_SLEEF_F / EMBER_SLEEF_D. Float lanes only: fma(a, b, c)
// (fused where the level has FMA, a * b + c rounded twice at sse2 and generic without it),
// bit_and(a, b) (of the bit patterns) and pow2i(n) (2^n for an integer-valued n in [-126, 127]).
namespace vecimpl {

#if defined(EMBER_VEC_AVX512)
inline constexpr const char* kLevel = "avx512";
using NF = __m512;
using ND = __m512d;
inline constexpr int kLanesF = 16, kLanesD = 8;
inline constexpr bool kFusedFma = true;  // fma(a, b, c) rounds once
#define EMBER_SLEEF_F(fn) Sleef_finz_##fn##f16_u10avx512f
#define EMBER_SLEEF_D(fn) Sleef_finz_##fn##d8_u10avx512f
inline NF set1(float x) { return _mm512_set1_ps(x); }
inline ND set1(double x) { return _mm512_set1_pd(x); }
inline NF loadu(const float* p) { return _mm512_loadu_ps(p); }
inline ND loadu(const double* p) { return _mm512_loadu_pd(p); }
inline void storeu(float* p, NF v) { _mm512_storeu_ps(p, v); }
inline void storeu(double* p, ND v) { _mm512_storeu_pd(p, v); }
// Non-temporal stores (Note [Streaming stores] in Loops.h); p aligned to the vector's size.
inline void stream(float* p, NF v) { _mm512_stream_ps(p, v); }
inline void stream(double* p, ND v) { _mm512_stream_pd(p, v); }
inline void stream_fence() { _mm_sfence(); }
inline NF add(NF a, NF b) { return _mm512_add_ps(a, b); }
inline ND add(ND a, ND b) { return _mm512_add_pd(a, b); }
inline NF sub(NF a, NF b) { return _mm512_sub_ps(a, b); }
inline ND sub(ND a, ND b) { return _mm512_sub_pd(a, b); }
inline NF mul(NF a, NF b) { return _mm512_mul_ps(a, b); }
inline ND mul(ND a, ND b) { return _mm512_mul_pd(a, b); }
inline NF div(NF a, NF b) { return _mm512_div_ps(a, b); }
inline ND div(ND a, ND b) { return _mm512_div_pd(a, b); }
inline NF neg(NF a) { return _mm512_xor_ps(a, _mm512_set1_ps(-0.0f)); }
inline ND neg(ND a) { return _mm512_xor_pd(a, _mm512_set1_pd(-0.0)); }
inline NF abs(NF a) { return _mm512_andnot_ps(_mm512_set1_ps(-0.0f), a); }
inline ND abs(ND a) { return _mm512_andnot_pd(_mm512_set1_pd(-0.0), a); }
inline NF sqrt(NF a) { return _mm512_sqrt_ps(a); }
inline ND sqrt(ND a) { return _mm512_sqrt_pd(a); }
inline NF floor(NF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
inline ND floor(ND a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
inline NF ceil(NF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
inline ND ceil(ND a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
inline NF trunc(NF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline ND trunc(ND a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline NF round(NF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
inline ND round(ND a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
// vmax/vmin return their second operand when either is NaN (and for ±0 pairs, as a > b ? a : b does).
inline NF max_nan(NF a, NF b) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), _mm512_max_ps(a, b), a);
}
inline ND max_nan(ND a, ND b) {
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q), _mm512_max_pd(a, b), a);
}
inline NF min_nan(NF a, NF b) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), _mm512_min_ps(a, b), a);
}
inline ND min_nan(ND a, ND b) {
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q), _mm512_min_pd(a, b), a);
}
inline NF max_c(NF a, NF c) { return _mm512_max_ps(c, a); }
inline NF min_c(NF a, NF c) { return _mm512_min_ps(c, a); }
inline NF blend_gt(NF x, NF t, NF a, NF b) { return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, t, _CMP_GT_OQ), b, a); }
inline ND blend_gt(ND x, ND t, ND a, ND b) { return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, t, _CMP_GT_OQ), b, a); }
inline bool any_gt(NF x, NF t) { return _mm512_cmp_ps_mask(x, t, _CMP_GT_OQ) != 0; }
inline bool any_gt(ND x, ND t) { return _mm512_cmp_pd_mask(x, t, _CMP_GT_OQ) != 0; }
inline bool any_nle(NF x, NF t) { return _mm512_cmp_ps_mask(x, t, _CMP_NLE_UQ) != 0; }
inline NF fma(NF a, NF b, NF c) { return _mm512_fmadd_ps(a, b, c); }
inline NF bit_and(NF a, NF b) { return _mm512_and_ps(a, b); }
inline NF pow2i(NF n) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
}
inline NF scale2(NF p, NF n) { return _mm512_scalef_ps(p, n); }
#define EMBER_VEC_HAVE_SCALE2 1

#elif defined(EMBER_VEC_AVX2)
inline constexpr const char* kLevel = "avx2";
using NF = __m256;
using ND = __m256d;
inline constexpr int kLanesF = 8, kLanesD = 4;
inline constexpr bool kFusedFma = true;
#define EMBER_SLEEF_F(fn) Sleef_finz_##fn##f8_u10avx2
#define EMBER_SLEEF_D(fn) Sleef_finz_##fn##d4_u10avx2
inline NF set1(float x) { return _mm256_set1_ps(x); }
inline ND set1(double x) { return _mm256_set1_pd(x); }
inline NF loadu(const float* p) { return _mm256_loadu_ps(p); }
inline ND loadu(const double* p) { return _mm256_loadu_pd(p); }
inline void storeu(float* p, NF v) { _mm256_storeu_ps(p, v); }
inline void storeu(double* p, ND v) { _mm256_storeu_pd(p, v); }
inline void stream(float* p, NF v) { _mm256_stream_ps(p, v); }
inline void stream(double* p, ND v) { _mm256_stream_pd(p, v); }
inline void stream_fence() { _mm_sfence(); }
inline NF add(NF a, NF b) { return _mm256_add_ps(a, b); }
inline ND add(ND a, ND b) { return _mm256_add_pd(a, b); }
inline NF sub(NF a, NF b) { return _mm256_sub_ps(a, b); }
inline ND sub(ND a, ND b) { return _mm256_sub_pd(a, b); }
inline NF mul(NF a, NF b) { return _mm256_mul_ps(a, b); }
inline ND mul(ND a, ND b) { return _mm256_mul_pd(a, b); }
inline NF div(NF a, NF b) { return _mm256_div_ps(a, b); }
inline ND div(ND a, ND b) { return _mm256_div_pd(a, b); }
inline NF neg(NF a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
inline ND neg(ND a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }
inline NF abs(NF a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
inline ND abs(ND a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
inline NF sqrt(NF a) { return _mm256_sqrt_ps(a); }
inline ND sqrt(ND a) { return _mm256_sqrt_pd(a); }
inline NF floor(NF a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
inline ND floor(ND a) { return _mm256_round_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
inline NF ceil(NF a) { return _mm256_round_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
inline ND ceil(ND a) { return _mm256_round_pd(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
inline NF trunc(NF a) { return _mm256_round_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline ND trunc(ND a) { return _mm256_round_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline NF round(NF a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
inline ND round(ND a) { return _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
inline NF max_nan(NF a, NF b) { return _mm256_blendv_ps(_mm256_max_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q)); }
inline ND max_nan(ND a, ND b) { return _mm256_blendv_pd(_mm256_max_pd(a, b), a, _mm256_cmp_pd(a, a, _CMP_UNORD_Q)); }
inline NF min_nan(NF a, NF b) { return _mm256_blendv_ps(_mm256_min_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q)); }
inline ND min_nan(ND a, ND b) { return _mm256_blendv_pd(_mm256_min_pd(a, b), a, _mm256_cmp_pd(a, a, _CMP_UNORD_Q)); }
inline NF max_c(NF a, NF c) { return _mm256_max_ps(c, a); }
inline NF min_c(NF a, NF c) { return _mm256_min_ps(c, a); }
inline NF blend_gt(NF x, NF t, NF a, NF b) { return _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, t, _CMP_GT_OQ)); }
inline ND blend_gt(ND x, ND t, ND a, ND b) { return _mm256_blendv_pd(b, a, _mm256_cmp_pd(x, t, _CMP_GT_OQ)); }
inline bool any_gt(NF x, NF t) { return _mm256_movemask_ps(_mm256_cmp_ps(x, t, _CMP_GT_OQ)) != 0; }
inline bool any_gt(ND x, ND t) { return _mm256_movemask_pd(_mm256_cmp_pd(x, t, _CMP_GT_OQ)) != 0; }
inline bool any_nle(NF x, NF t) { return _mm256_movemask_ps(_mm256_cmp_ps(x, t, _CMP_NLE_UQ)) != 0; }
inline NF fma(NF a, NF b, NF c) { return _mm256_fmadd_ps(a, b, c); }
inline NF bit_and(NF a, NF b) { return _mm256_and_ps(a, b); }
inline NF pow2i(NF n) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}

#elif defined(EMBER_VEC_SSE2)
inline constexpr const char* kLevel = "sse2";
using NF = __m128;
using ND = __m128d;
inline constexpr int kLanesF = 4, kLanesD = 2;
inline constexpr bool kFusedFma = false;
#define EMBER_SLEEF_F(fn) Sleef_cinz_##fn##f4_u10sse2
#define EMBER_SLEEF_D(fn) Sleef_cinz_##fn##d2_u10sse2
inline NF set1(float x) { return _mm_set1_ps(x); }
inline ND set1(double x) { return _mm_set1_pd(x); }
inline NF loadu(const float* p) { return _mm_loadu_ps(p); }
inline ND loadu(const double* p) { return _mm_loadu_pd(p); }
inline void storeu(float* p, NF v) { _mm_storeu_ps(p, v); }
inline void storeu(double* p, ND v) { _mm_storeu_pd(p, v); }
inline void stream(float* p, NF v) { _mm_stream_ps(p, v); }
inline void stream(double* p, ND v) { _mm_stream_pd(p, v); }
inline void stream_fence() { _mm_sfence(); }
inline NF add(NF a, NF b) { return _mm_add_ps(a, b); }
inline ND add(ND a, ND b) { return _mm_add_pd(a, b); }
inline NF sub(NF a, NF b) { return _mm_sub_ps(a, b); }
inline ND sub(ND a, ND b) { return _mm_sub_pd(a, b); }
inline NF mul(NF a, NF b) { return _mm_mul_ps(a, b); }
inline ND mul(ND a, ND b) { return _mm_mul_pd(a, b); }
inline NF div(NF a, NF b) { return _mm_div_ps(a, b); }
inline ND div(ND a, ND b) { return _mm_div_pd(a, b); }
inline NF neg(NF a) { return _mm_xor_ps(a, _mm_set1_ps(-0.0f)); }
inline ND neg(ND a) { return _mm_xor_pd(a, _mm_set1_pd(-0.0)); }
inline NF abs(NF a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
inline ND abs(ND a) { return _mm_andnot_pd(_mm_set1_pd(-0.0), a); }
inline NF sqrt(NF a) { return _mm_sqrt_ps(a); }
inline ND sqrt(ND a) { return _mm_sqrt_pd(a); }
inline NF select(NF m, NF a, NF b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }
inline ND select(ND m, ND a, ND b) { return _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b)); }
// SSE2 has no rounding instruction. Note [Rounding without SSE4.1]: for |x| < 2^23 (2^52 for
// double), (|x| + 2^23) - 2^23 is |x| rounded to the nearest integer, ties to even (the sum lies
// in [2^23, 2^24), where the spacing is 1); one step down where that overshot gives trunc, and the
// sign of x is put back, so -0.4 rounds to -0. From 2^23 on every float is an integer; those, the
// infinities and NaN (whose comparisons are false) are returned unchanged.
inline NF round_nearest_magic(NF x, bool toward_zero) {
  const NF sign = _mm_set1_ps(-0.0f), big = _mm_set1_ps(8388608.0f);
  const NF a = _mm_andnot_ps(sign, x);
  NF r = _mm_sub_ps(_mm_add_ps(a, big), big);
  if (toward_zero) r = _mm_sub_ps(r, _mm_and_ps(_mm_cmpgt_ps(r, a), _mm_set1_ps(1.0f)));
  return select(_mm_cmplt_ps(a, big), _mm_or_ps(r, _mm_and_ps(sign, x)), x);
}
inline ND round_nearest_magic(ND x, bool toward_zero) {
  const ND sign = _mm_set1_pd(-0.0), big = _mm_set1_pd(4503599627370496.0);
  const ND a = _mm_andnot_pd(sign, x);
  ND r = _mm_sub_pd(_mm_add_pd(a, big), big);
  if (toward_zero) r = _mm_sub_pd(r, _mm_and_pd(_mm_cmpgt_pd(r, a), _mm_set1_pd(1.0)));
  return select(_mm_cmplt_pd(a, big), _mm_or_pd(r, _mm_and_pd(sign, x)), x);
}
inline NF trunc(NF a) { return round_nearest_magic(a, true); }
inline ND trunc(ND a) { return round_nearest_magic(a, true); }
inline NF round(NF a) { return round_nearest_magic(a, false); }
inline ND round(ND a) { return round_nearest_magic(a, false); }
// floor/ceil from trunc: one step where trunc moved the wrong way. Both subtract (+0 where no step
// is taken), so a -0 from trunc stays -0: ceil(-0.5) is -0.
inline NF floor(NF a) { NF t = trunc(a); return _mm_sub_ps(t, _mm_and_ps(_mm_cmpgt_ps(t, a), _mm_set1_ps(1.0f))); }
inline ND floor(ND a) { ND t = trunc(a); return _mm_sub_pd(t, _mm_and_pd(_mm_cmpgt_pd(t, a), _mm_set1_pd(1.0))); }
inline NF ceil(NF a) { NF t = trunc(a); return _mm_sub_ps(t, _mm_and_ps(_mm_cmplt_ps(t, a), _mm_set1_ps(-1.0f))); }
inline ND ceil(ND a) { ND t = trunc(a); return _mm_sub_pd(t, _mm_and_pd(_mm_cmplt_pd(t, a), _mm_set1_pd(-1.0))); }
inline NF max_nan(NF a, NF b) { return select(_mm_cmpunord_ps(a, a), a, _mm_max_ps(a, b)); }
inline ND max_nan(ND a, ND b) { return select(_mm_cmpunord_pd(a, a), a, _mm_max_pd(a, b)); }
inline NF min_nan(NF a, NF b) { return select(_mm_cmpunord_ps(a, a), a, _mm_min_ps(a, b)); }
inline NF max_c(NF a, NF c) { return _mm_max_ps(c, a); }
inline NF min_c(NF a, NF c) { return _mm_min_ps(c, a); }
inline ND min_nan(ND a, ND b) { return select(_mm_cmpunord_pd(a, a), a, _mm_min_pd(a, b)); }
inline NF blend_gt(NF x, NF t, NF a, NF b) { return select(_mm_cmpgt_ps(x, t), a, b); }
inline ND blend_gt(ND x, ND t, ND a, ND b) { return select(_mm_cmpgt_pd(x, t), a, b); }
inline bool any_gt(NF x, NF t) { return _mm_movemask_ps(_mm_cmpgt_ps(x, t)) != 0; }
inline bool any_gt(ND x, ND t) { return _mm_movemask_pd(_mm_cmpgt_pd(x, t)) != 0; }
inline bool any_nle(NF x, NF t) { return _mm_movemask_ps(_mm_cmpnle_ps(x, t)) != 0; }
inline NF fma(NF a, NF b, NF c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
inline NF bit_and(NF a, NF b) { return _mm_and_ps(a, b); }
inline NF pow2i(NF n) { return _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(_mm_cvtps_epi32(n), _mm_set1_epi32(127)), 23)); }

#else  // EMBER_VEC_GENERIC
inline constexpr const char* kLevel = "generic";
/// A few lanes as a plain array; the compiler may vectorise the per-lane loops.
template <typename T, int N>
struct Lanes {
  T l[N];
};
inline constexpr int kLanesF = 4, kLanesD = 2;
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
inline constexpr bool kFusedFma = true;
#else
inline constexpr bool kFusedFma = false;
#endif
using NF = Lanes<float, kLanesF>;
using ND = Lanes<double, kLanesD>;
// SLEEF's portable scalar code: its FMA build where the target has fused multiply-add (more
// accurate: see docs/vector-math.md), the plain one elsewhere.
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
#define EMBER_SLEEF_F(fn) Sleef_finz_##fn##f1_u10purecfma
#define EMBER_SLEEF_D(fn) Sleef_finz_##fn##d1_u10purecfma
#else
#define EMBER_SLEEF_F(fn) Sleef_cinz_##fn##f1_u10purec
#define EMBER_SLEEF_D(fn) Sleef_cinz_##fn##d1_u10purec
#endif
template <typename T, int N, typename G>
inline Lanes<T, N> map_lanes(Lanes<T, N> a, const G& g) {
  for (int i = 0; i < N; ++i) a.l[i] = g(a.l[i]);
  return a;
}
template <typename T, int N, typename G>
inline Lanes<T, N> map_lanes(Lanes<T, N> a, Lanes<T, N> b, const G& g) {
  for (int i = 0; i < N; ++i) a.l[i] = g(a.l[i], b.l[i]);
  return a;
}
inline NF set1(float x) { return map_lanes(NF{}, [x](float) { return x; }); }
inline ND set1(double x) { return map_lanes(ND{}, [x](double) { return x; }); }
inline NF loadu(const float* p) { NF r; for (int i = 0; i < kLanesF; ++i) r.l[i] = p[i]; return r; }
inline ND loadu(const double* p) { ND r; for (int i = 0; i < kLanesD; ++i) r.l[i] = p[i]; return r; }
inline void storeu(float* p, NF v) { for (int i = 0; i < kLanesF; ++i) p[i] = v.l[i]; }
inline void storeu(double* p, ND v) { for (int i = 0; i < kLanesD; ++i) p[i] = v.l[i]; }
inline void stream(float* p, NF v) { storeu(p, v); }  // no non-temporal store in portable C++
inline void stream(double* p, ND v) { storeu(p, v); }
inline void stream_fence() {}
#define EMBER_VEC_GENERIC_OP2(NAME, EXPR)                                                   \
  template <typename T, int N>                                                              \
  inline Lanes<T, N> NAME(Lanes<T, N> a, Lanes<T, N> b) { return map_lanes(a, b, [](T x, T y) { return EXPR; }); }
EMBER_VEC_GENERIC_OP2(add, x + y)
EMBER_VEC_GENERIC_OP2(sub, x - y)
EMBER_VEC_GENERIC_OP2(mul, x * y)
EMBER_VEC_GENERIC_OP2(div, x / y)
EMBER_VEC_GENERIC_OP2(max_nan, ::ember::pw::max_nan(x, y))
EMBER_VEC_GENERIC_OP2(min_nan, ::ember::pw::min_nan(x, y))
inline NF max_c(NF a, NF c) { return max_nan(a, c); }
inline NF min_c(NF a, NF c) { return min_nan(a, c); }
#undef EMBER_VEC_GENERIC_OP2
#define EMBER_VEC_GENERIC_OP1(NAME, EXPR) \
  template <typename T, int N>            \
  inline Lanes<T, N> NAME(Lanes<T, N> a) { return map_lanes(a, [](T x) { return EXPR; }); }
EMBER_VEC_GENERIC_OP1(neg, -x)
EMBER_VEC_GENERIC_OP1(abs, std::fabs(x))
EMBER_VEC_GENERIC_OP1(sqrt, std::sqrt(x))
EMBER_VEC_GENERIC_OP1(floor, std::floor(x))
EMBER_VEC_GENERIC_OP1(ceil, std::ceil(x))
EMBER_VEC_GENERIC_OP1(trunc, std::trunc(x))
EMBER_VEC_GENERIC_OP1(round, std::nearbyint(x))
#undef EMBER_VEC_GENERIC_OP1
template <typename T, int N>
inline Lanes<T, N> blend_gt(Lanes<T, N> x, Lanes<T, N> t, Lanes<T, N> a, Lanes<T, N> b) {
  for (int i = 0; i < N; ++i) a.l[i] = x.l[i] > t.l[i] ? a.l[i] : b.l[i];
  return a;
}
template <typename T, int N>
inline bool any_gt(Lanes<T, N> x, Lanes<T, N> t) {
  bool any = false;
  for (int i = 0; i < N; ++i) any = any || x.l[i] > t.l[i];
  return any;
}
inline bool any_nle(NF x, NF t) {
  bool any = false;
  for (int i = 0; i < kLanesF; ++i) any = any || !(x.l[i] <= t.l[i]);
  return any;
}
inline NF fma(NF a, NF b, NF c) {
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
  for (int i = 0; i < kLanesF; ++i) a.l[i] = std::fma(a.l[i], b.l[i], c.l[i]);
#else
  for (int i = 0; i < kLanesF; ++i) a.l[i] = a.l[i] * b.l[i] + c.l[i];
#endif
  return a;
}
inline NF bit_and(NF a, NF b) {
  for (int i = 0; i < kLanesF; ++i) {
    uint32_t x, y;
    std::memcpy(&x, &a.l[i], 4);
    std::memcpy(&y, &b.l[i], 4);
    x &= y;
    std::memcpy(&a.l[i], &x, 4);
  }
  return a;
}
inline NF pow2i(NF n) {
  for (int i = 0; i < kLanesF; ++i) {
    const uint32_t x = static_cast<uint32_t>(static_cast<int32_t>(n.l[i]) + 127) << 23;
    std::memcpy(&n.l[i], &x, 4);
  }
  return n;
}
template <typename G, typename X>
inline X apply1(const G& f, X a) { return map_lanes(a, f); }
template <typename G, typename X>
inline X apply2(const G& f, X a, X b) { return map_lanes(a, b, f); }
#endif

#if !defined(EMBER_VEC_GENERIC)
template <typename G, typename X>
inline X apply1(const G& f, X a) { return f(a); }
template <typename G, typename X>
inline X apply2(const G& f, X a, X b) { return f(a, b); }
#endif

#if !defined(EMBER_VEC_HAVE_SCALE2)
// p 2^n rounded once, for p in [0.5, 2) and an integer-valued n in [-152, 128]: p 2^m with m
// clamped to [-125, 127] is a normal float (exact), and the rest of n, in [-27, 1], rounds once.
// When every lane's n is in [-125, 127] that is p 2^n in one step, the same bits (the second factor
// is 1); exp takes it for all but arguments past about +-86.6. (A NaN n lane comes with a NaN p
// from exp, whose bits any factor keeps.)
inline NF scale2(NF p, NF n) {
  if (!any_gt(n, set1(127.0f)) && !any_gt(set1(-125.0f), n)) return mul(p, pow2i(n));
  const NF m = min_c(max_c(n, set1(-125.0f)), set1(127.0f));
  return mul(mul(p, pow2i(m)), pow2i(sub(n, m)));
}
#endif
#undef EMBER_VEC_HAVE_SCALE2

// Float lanes, for gelu_erf (Note [Own float erf]): fms(a, b, c) = a b - c and fnma(a, b, c) =
// c - a b (rounded once where fma is fused), min_num(a, b) = a < b ? a : b (b where a is NaN, as
// minps), and add_exp(p, k): p with the low 9 bits of k's pattern added to its exponent field,
// which is p 2^j, exact while that is a normal float, for k = 1.5 2^23 + j (|j| < 2^22).
// lut_key(y), for y in [1, 16): the int32 lanes 2 (e - 127) + m, e y's biased exponent and m its
// top mantissa bit (0..7: which half of which octave), as the float register's pattern;
// lut8(t, key): t[key] per lane from a table of 8 floats (one permute at avx512 and avx2, lane by
// lane below); lut16(t, key): t[key & 15] from a 64-byte aligned table of 16 floats, key any int32
// pattern (one permute at avx512, two and a blend at avx2, lane by lane below).
#if defined(EMBER_VEC_AVX512)
inline NF fms(NF a, NF b, NF c) { return _mm512_fmsub_ps(a, b, c); }
inline NF fnma(NF a, NF b, NF c) { return _mm512_fnmadd_ps(a, b, c); }
inline NF min_num(NF a, NF b) { return _mm512_min_ps(a, b); }
inline NF add_exp(NF p, NF k) {
  return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), _mm512_slli_epi32(_mm512_castps_si512(k), 23)));
}
inline NF lut_key(NF y) {
  return _mm512_castsi512_ps(_mm512_sub_epi32(_mm512_srli_epi32(_mm512_castps_si512(y), 22), _mm512_set1_epi32(254)));
}
inline NF lut8(const float* t, NF key) {  // keys are 0..7: the upper half of the table register is never read
  return _mm512_permutexvar_ps(_mm512_castps_si512(key), _mm512_zextps256_ps512(_mm256_loadu_ps(t)));
}
inline NF lut16(const float* t, NF key) { return _mm512_permutexvar_ps(_mm512_castps_si512(key), _mm512_load_ps(t)); }
#elif defined(EMBER_VEC_AVX2)
inline NF fms(NF a, NF b, NF c) { return _mm256_fmsub_ps(a, b, c); }
inline NF fnma(NF a, NF b, NF c) { return _mm256_fnmadd_ps(a, b, c); }
inline NF min_num(NF a, NF b) { return _mm256_min_ps(a, b); }
inline NF add_exp(NF p, NF k) {
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(_mm256_castps_si256(k), 23)));
}
inline NF lut_key(NF y) {
  return _mm256_castsi256_ps(_mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(y), 22), _mm256_set1_epi32(254)));
}
inline NF lut8(const float* t, NF key) { return _mm256_permutevar8x32_ps(_mm256_loadu_ps(t), _mm256_castps_si256(key)); }
inline NF lut16(const float* t, NF key) {  // the blend reads bit 3 of the key, moved to the sign
  const __m256i k = _mm256_castps_si256(key);
  return _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_load_ps(t), k), _mm256_permutevar8x32_ps(_mm256_load_ps(t + 8), k),
                          _mm256_castsi256_ps(_mm256_slli_epi32(k, 28)));
}
#elif defined(EMBER_VEC_SSE2)
inline NF fms(NF a, NF b, NF c) { return _mm_sub_ps(_mm_mul_ps(a, b), c); }
inline NF fnma(NF a, NF b, NF c) { return _mm_sub_ps(c, _mm_mul_ps(a, b)); }
inline NF min_num(NF a, NF b) { return _mm_min_ps(a, b); }
inline NF add_exp(NF p, NF k) { return _mm_castsi128_ps(_mm_add_epi32(_mm_castps_si128(p), _mm_slli_epi32(_mm_castps_si128(k), 23))); }
inline NF lut_key(NF y) { return _mm_castsi128_ps(_mm_sub_epi32(_mm_srli_epi32(_mm_castps_si128(y), 22), _mm_set1_epi32(254))); }
template <int Mask> inline NF lut_lanes(const float* t, NF key) {  // t[key & Mask] lane by lane
  alignas(16) int32_t k[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(k), _mm_castps_si128(key));
  return _mm_setr_ps(t[k[0] & Mask], t[k[1] & Mask], t[k[2] & Mask], t[k[3] & Mask]);
}
inline NF lut8(const float* t, NF key) { return lut_lanes<7>(t, key); }
inline NF lut16(const float* t, NF key) { return lut_lanes<15>(t, key); }
#else
inline NF fms(NF a, NF b, NF c) {
  for (int i = 0; i < kLanesF; ++i) a.l[i] = kFusedFma ? std::fma(a.l[i], b.l[i], -c.l[i]) : a.l[i] * b.l[i] - c.l[i];
  return a;
}
inline NF fnma(NF a, NF b, NF c) {
  for (int i = 0; i < kLanesF; ++i) a.l[i] = kFusedFma ? std::fma(-a.l[i], b.l[i], c.l[i]) : c.l[i] - a.l[i] * b.l[i];
  return a;
}
inline NF min_num(NF a, NF b) { return map_lanes(a, b, [](float x, float y) { return x < y ? x : y; }); }
inline NF add_exp(NF p, NF k) {
  for (int i = 0; i < kLanesF; ++i) {
    uint32_t x, y;
    std::memcpy(&x, &p.l[i], 4);
    std::memcpy(&y, &k.l[i], 4);
    x += y << 23;
    std::memcpy(&p.l[i], &x, 4);
  }
  return p;
}
inline NF lut_key(NF y) {
  for (int i = 0; i < kLanesF; ++i) {
    uint32_t x;
    std::memcpy(&x, &y.l[i], 4);
    x = (x >> 22) - 254u;
    std::memcpy(&y.l[i], &x, 4);
  }
  return y;
}
template <uint32_t Mask> inline NF lut_lanes(const float* t, NF key) {  // t[key & Mask] lane by lane
  for (int i = 0; i < kLanesF; ++i) {
    uint32_t k;
    std::memcpy(&k, &key.l[i], 4);
    key.l[i] = t[k & Mask];
  }
  return key;
}
inline NF lut8(const float* t, NF key) { return lut_lanes<7>(t, key); }
inline NF lut16(const float* t, NF key) { return lut_lanes<15>(t, key); }
#endif

}  // namespace vecimpl

/// Vec<T>::size lanes of float or double at the level this file was compiled for.
template <typename T> struct Vec;

template <> struct Vec<float> {
  static constexpr int size = vecimpl::kLanesF;
  vecimpl::NF v;
  Vec() = default;
  Vec(vecimpl::NF x) : v(x) {}
  Vec(float x) : v(vecimpl::set1(x)) {}
  /// Unaligned load / store of `size` floats.
  static Vec load(const void* p) { return vecimpl::loadu(static_cast<const float*>(p)); }
  void store(void* p) const { vecimpl::storeu(static_cast<float*>(p), v); }
};
template <> struct Vec<double> {
  static constexpr int size = vecimpl::kLanesD;
  vecimpl::ND v;
  Vec() = default;
  Vec(vecimpl::ND x) : v(x) {}
  Vec(double x) : v(vecimpl::set1(x)) {}
  static Vec load(const void* p) { return vecimpl::loadu(static_cast<const double*>(p)); }
  void store(void* p) const { vecimpl::storeu(static_cast<double*>(p), v); }
};

using VF = Vec<float>;
using VD = Vec<double>;

/// The level's name: "avx512", "avx2", "sse2" or "generic".
inline constexpr const char* vec_level() { return vecimpl::kLevel; }

// Arithmetic, including with scalars of any arithmetic type on either side.
#define EMBER_VEC_BINOP(OP, FN)                                                                   \
  inline VF operator OP(VF a, VF b) { return vecimpl::FN(a.v, b.v); }                           \
  inline VD operator OP(VD a, VD b) { return vecimpl::FN(a.v, b.v); }                           \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                     \
  inline VF operator OP(VF a, S b) { return vecimpl::FN(a.v, vecimpl::set1(static_cast<float>(b))); }  \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                     \
  inline VF operator OP(S a, VF b) { return vecimpl::FN(vecimpl::set1(static_cast<float>(a)), b.v); }  \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                     \
  inline VD operator OP(VD a, S b) { return vecimpl::FN(a.v, vecimpl::set1(static_cast<double>(b))); } \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                     \
  inline VD operator OP(S a, VD b) { return vecimpl::FN(vecimpl::set1(static_cast<double>(a)), b.v); }
EMBER_VEC_BINOP(+, add)
EMBER_VEC_BINOP(-, sub)
EMBER_VEC_BINOP(*, mul)
EMBER_VEC_BINOP(/, div)
#undef EMBER_VEC_BINOP

inline VF operator-(VF a) { return vecimpl::neg(a.v); }
inline VD operator-(VD a) { return vecimpl::neg(a.v); }

#define EMBER_VEC_NATIVE1(NAME)                          \
  inline VF NAME(VF a) { return vecimpl::NAME(a.v); } \
  inline VD NAME(VD a) { return vecimpl::NAME(a.v); }
EMBER_VEC_NATIVE1(sqrt)
EMBER_VEC_NATIVE1(abs)
EMBER_VEC_NATIVE1(floor)
EMBER_VEC_NATIVE1(ceil)
EMBER_VEC_NATIVE1(trunc)
EMBER_VEC_NATIVE1(round)
#undef EMBER_VEC_NATIVE1

#define EMBER_VEC_SLEEF1(NAME)                                                   \
  inline VF NAME(VF a) { return vecimpl::apply1(EMBER_SLEEF_F(NAME), a.v); } \
  inline VD NAME(VD a) { return vecimpl::apply1(EMBER_SLEEF_D(NAME), a.v); }
EMBER_VEC_SLEEF1(exp2)
EMBER_VEC_SLEEF1(expm1)
EMBER_VEC_SLEEF1(log)
EMBER_VEC_SLEEF1(log2)
EMBER_VEC_SLEEF1(log10)
EMBER_VEC_SLEEF1(sin)
EMBER_VEC_SLEEF1(cos)
EMBER_VEC_SLEEF1(tan)
EMBER_VEC_SLEEF1(asin)
EMBER_VEC_SLEEF1(acos)
EMBER_VEC_SLEEF1(atan)
EMBER_VEC_SLEEF1(tanh)
#undef EMBER_VEC_SLEEF1

// Note [Own float exp]: float exp is computed here, inline, rather than by SLEEF's u10 call: exp is
// the inner step of sigmoid, softmax, log_softmax, silu, elu, the losses..., and a call per vector
// (with the registers it clobbers) cost a third of exp's loop over 16M floats. e^x = 2^n e^r with
// n = round(x log2 e) and r = x - n ln 2 (ln 2 in two parts; n ln2_hi is exact, r exact at the FMA
// levels), e^r = p = 1 + (r + r^2 P(r)) with the degree-5 P of tools/fit_exp.py, and p 2^n rounded
// once. When every lane has |x| <= 87 (no NaN), e^x is a normal float, so p 2^n is exact: n is
// added to p's exponent field as an integer (k = 1.5 2^23 + n holds it in its low bits). Other
// vectors take the wide path: x clamped to [-104, 89] first (NaN passes), then p 2^n rounded once
// (vscalefps at avx512; two exact-then-one-rounding steps elsewhere, the same bits), which also
// gives inf past 88.72 and denormals down to 0 below -103.97. The two paths give the same bits where
// both apply; the fast one skips the clamp, the conversion of n and the range checks of the scaling
// (12.5 -> 9.8 cycles per 8 lanes in L1 on a Zen 3). Every FMA level runs the same operations and
// agrees bit for bit; the errors are in docs/vector-math.md. Double exp stays SLEEF's.
namespace exp_detail {
// (e^r - 1 - r) / r^2, |r| <= ln 2 / 2 (weighted least squares, tools/fit_exp.py)
inline constexpr float kExp[] = {0x1p-1f, 0x1.555552p-3f, 0x1.5554e6p-5f, 0x1.1115c8p-7f, 0x1.6d4efep-10f,
                                 0x1.9a6adp-13f};
/// e^r for r = x - n ln 2, n = round(x log2 e), for |x| <= 104; k = 1.5 2^23 + n (n = k - 1.5 2^23).
inline VF reduced(VF x, VF& k) {
  using vecimpl::fma;
  k = VF(fma(x.v, VF(1.44269504f).v, VF(12582912.0f).v));
  const VF n = k - 12582912.0f;
  const VF r = fma(n.v, VF(-0x1.7f7d1cp-20f).v, fma(n.v, VF(-0x1.62e4p-1f).v, x.v));
  VF q(kExp[5]);
  for (int i = 4; i >= 0; --i) q = fma(q.v, r.v, VF(kExp[i]).v);
  // e^r = 1 + r + r^2 q: as 1 + r (1 + r q) where fma rounds once, else as 1 + (r + r^2 q), whose
  // roundings cost less there (0.87 / 0.95 ulp at most, over every float).
  if constexpr (vecimpl::kFusedFma) {
    return VF(fma(r.v, fma(r.v, q.v, VF(1.0f).v), VF(1.0f).v));
  } else {
    return VF(fma((r * r).v, q.v, r.v)) + 1.0f;
  }
}
/// Whether every lane of x has |x| <= 87 (none NaN): then e^x and e^-x are normal floats.
inline bool in_fast_range(VF x) { return !vecimpl::any_nle(abs(x).v, VF(87.0f).v); }
/// e^x for any x (Note [Own float exp]: the wide path).
inline VF wide(VF x) {
  const VF xc = vecimpl::min_c(vecimpl::max_c(x.v, VF(-104.0f).v), VF(89.0f).v);
  VF k;
  const VF p = reduced(xc, k);
  return VF(vecimpl::scale2(p.v, (k - 12582912.0f).v));
}
}  // namespace exp_detail
inline VF exp(VF x) {  // Note [Own float exp]
  if (!exp_detail::in_fast_range(x)) return exp_detail::wide(x);
  VF k;
  const VF p = exp_detail::reduced(x, k);
  return VF(vecimpl::add_exp(p.v, k.v));
}
inline VD exp(VD a) { return vecimpl::apply1(EMBER_SLEEF_D(exp), a.v); }

// Note [SLEEF range fixes]: SLEEF's sinh and cosh overflow where e^|x| does (float |x| > 88.72,
// double > 709.78), short of where the results do (89.41, 710.47), and its log1p returns inf
// from x = 2e38 (float) / 1e308 (double). Past |x| = 88.5 (709.5) sinh and cosh are e^|x| / 2, taken
// as e^(|x| - 64) * (e^64 / 2) (512 for double; |x| - 64 is exact there); past 1e38 (1e307)
// log1p(x) is log(x) to well under an ulp. SLEEF's double erf without FMA (sse2, generic) was 1.078
// ulp off at a subnormal input (8.9e-309; check_levels --full): below |x| = 2^-1000, where erf(x) is
// (2 / sqrt pi) x to far under an ulp, every level takes that product, rounded once. The extra work
// runs only when a lane needs it.
template <typename S> struct RangeFix;
template <> struct RangeFix<float> {
  static constexpr float exp_limit = 88.5f, shift = 64.0f, half_e_shift_hi = 3.1175744e27f,
                         half_e_shift_lo = 1.1952888e20f, log1p_limit = 1e38f;
};
template <> struct RangeFix<double> {
  static constexpr double exp_limit = 709.5, shift = 512.0, half_e_shift_hi = 1.1422067932698783e222,
                          half_e_shift_lo = 6.774612472011722e205, log1p_limit = 1e307;
};
#define EMBER_VEC_RANGE_FIXES(V, S, SLEEF)                                                     \
  inline V half_exp_large(V ax) {                                                             \
    const V e = exp(ax - RangeFix<S>::shift);                                                 \
    return e * RangeFix<S>::half_e_shift_hi + e * RangeFix<S>::half_e_shift_lo;              \
  }                                                                                           \
  inline V sinh(V a) {                                                                        \
    const V r = vecimpl::apply1(SLEEF(sinh), a.v), ax = abs(a), lim(RangeFix<S>::exp_limit); \
    if (!vecimpl::any_gt(ax.v, lim.v)) return r;                                              \
    const V h = half_exp_large(ax);                                                           \
    return vecimpl::blend_gt(ax.v, lim.v, vecimpl::blend_gt(a.v, V(S(0)).v, h.v, (-h).v), r.v); \
  }                                                                                           \
  inline V cosh(V a) {                                                                        \
    const V r = vecimpl::apply1(SLEEF(cosh), a.v), ax = abs(a), lim(RangeFix<S>::exp_limit); \
    if (!vecimpl::any_gt(ax.v, lim.v)) return r;                                              \
    return vecimpl::blend_gt(ax.v, lim.v, half_exp_large(ax).v, r.v);                         \
  }                                                                                           \
  inline V log1p(V a) {                                                                       \
    const V r = vecimpl::apply1(SLEEF(log1p), a.v), lim(RangeFix<S>::log1p_limit);            \
    if (!vecimpl::any_gt(a.v, lim.v)) return r;                                               \
    return vecimpl::blend_gt(a.v, lim.v, log(a).v, r.v);                                      \
  }
EMBER_VEC_RANGE_FIXES(VF, float, EMBER_SLEEF_F)
EMBER_VEC_RANGE_FIXES(VD, double, EMBER_SLEEF_D)
#undef EMBER_VEC_RANGE_FIXES

inline VF atan2(VF a, VF b) { return vecimpl::apply2(EMBER_SLEEF_F(atan2), a.v, b.v); }
inline VD atan2(VD a, VD b) { return vecimpl::apply2(EMBER_SLEEF_D(atan2), a.v, b.v); }
inline VF pow(VF a, VF b) { return vecimpl::apply2(EMBER_SLEEF_F(pow), a.v, b.v); }
inline VD pow(VD a, VD b) { return vecimpl::apply2(EMBER_SLEEF_D(pow), a.v, b.v); }

/// NaN-propagating max/min (torch.maximum): where a lane of a is NaN the result is a, else where
/// b is NaN it is b — the same bits as the scalar max_nan/min_nan.
inline VF max_nan(VF a, VF b) { return vecimpl::max_nan(a.v, b.v); }
inline VD max_nan(VD a, VD b) { return vecimpl::max_nan(a.v, b.v); }
inline VF min_nan(VF a, VF b) { return vecimpl::min_nan(a.v, b.v); }
inline VD min_nan(VD a, VD b) { return vecimpl::min_nan(a.v, b.v); }
template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>
inline VF max_nan(VF a, S b) { return max_nan(a, VF(static_cast<float>(b))); }
template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>
inline VD max_nan(VD a, S b) { return max_nan(a, VD(static_cast<double>(b))); }
template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>
inline VF min_nan(VF a, S b) { return min_nan(a, VF(static_cast<float>(b))); }
template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>
inline VD min_nan(VD a, S b) { return min_nan(a, VD(static_cast<double>(b))); }

// Composites, written as the scalar versions in PointwiseMath.h are, but sigmoid.
// Note [Vectorised sigmoid]: 1 / (1 + e^-x) loses the result where e^-x overflows (x < -88.7 in
// float: the exact value is a denormal, the formula gives 0); below x = -88.5 (-709.5 for double)
// it is e^x / (1 + e^x) instead, computed only when a lane is there.
#define EMBER_VEC_COMPOSITES(V, S)                                                   \
  inline V rsqrt(V a) { return V(S(1)) / sqrt(a); }                                \
  inline V reciprocal(V a) { return V(S(1)) / a; }                                 \
  inline V frac(V a) { return a - trunc(a); }                                      \
  inline V sigmoid_wide(V a) { /* Note [Vectorised sigmoid] */                    \
    const V r = V(S(1)) / (V(S(1)) + exp(-a)), na = -a, lim(RangeFix<S>::exp_limit); \
    if (!vecimpl::any_gt(na.v, lim.v)) return r;                                   \
    const V e = exp(a);                                                            \
    return vecimpl::blend_gt(na.v, lim.v, (e / (V(S(1)) + e)).v, r.v);             \
  }                                                                                \
  inline V clamp_opt(V x, S lo, bool has_lo, S hi, bool has_hi) {                  \
    if (has_lo) x = max_nan(x, lo);                                                \
    if (has_hi) x = min_nan(x, hi);                                                \
    return x;                                                                      \
  }                                                                                \
  inline V gelu_tanh(V x) {                                                        \
    return S(0.5) * x * (S(1) + tanh(S(0.7978845608028654) * (x + S(0.044715) * x * x * x))); \
  }
EMBER_VEC_COMPOSITES(VF, float)
EMBER_VEC_COMPOSITES(VD, double)
#undef EMBER_VEC_COMPOSITES
inline VD sigmoid(VD a) { return sigmoid_wide(a); }
// Float: one range check for the whole op; with every |x| <= 87 (Note [Own float exp]) e^-x is
// exact-scaled and no lane needs the e^x / (1 + e^x) form; the same bits as sigmoid_wide.
inline VF sigmoid(VF a) {
  if (!exp_detail::in_fast_range(a)) return sigmoid_wide(a);
  VF k;
  const VF p = exp_detail::reduced(-a, k);
  return VF(1.0f) / (VF(1.0f) + VF(vecimpl::add_exp(p.v, k.v)));
}

// Note [Own float erf]: float erf and gelu_erf are computed here rather than by SLEEF (whose u10
// erff costs about 40 ns per 16 lanes, and whose 1 + erf(x / sqrt 2) cancels for negative x), written
// once over the level primitives so that every level runs the same operations: the FMA levels
// agree bit for bit, and so do sse2 and generic without FMA.
//   - erf: near 0, erf(z) = z + z P(z^2) (|z| <= 0.9); beyond, 1 - erfc(z) with erfc(z) =
//     t e^(-z^2 + Q(u)) / 2, t = 1 / (1 + p z), p = 1 / sqrt 2, u = 2t - 1, for z in [0.3, 11].
//   - gelu: with E = erfc(a / sqrt 2) / 2 = Phi(-a), a = |x|: x - x E (one fnma) for x > 0, x E
//     below; neither cancels. Two forms of E. Where activations live, |x| < 3.875 (gelu_near), E
//     itself is a degree-6 polynomial in s = a - j / 4 on 16 intervals of width 1/4, j = round(4a)
//     read from the low bits of 1.5 2^23 + 4a, coefficients by lane from 16-entry tables (lut16: one
//     permute at avx512, two and a blend at avx2): 7 lookups and 7 fmas, no exponential. That made
//     the 16M-float loop memory-bound at avx512 (13.7 -> 5.0 ms at one thread on a Zen 4; 16.8 ->
//     10.7 ms at avx2): the form below spent 47 cycles per 16 lanes. (The constant term in two
//     floats, with x c0 exact inside an fma for x < 0, gave 1.06 ulp for x >= -1 instead of 1.4
//     but one lookup and two operations more: 5.4 ms.)
//     Beyond 3.875 E falls too fast for one polynomial per interval, so gelu_any has
//     E = e^(-a^2 / 2) R(a), R(a) = Phi(-a) e^(a^2 / 2)
//     smooth and between 0.5 and 0.4 / a, so no division: R is a degree-8 polynomial in s = a - a0
//     on 8 intervals (halves of the octaves of y = 1 + a: width 1/2 below a = 1, then 1, 2, 4; a0
//     the midpoint but in the first), its coefficients and a0 looked up by lane from 8-entry tables
//     (lut8: one permute at avx2 as at avx512), the constant term in two floats. Why 8 entries: at
//     avx2 a 16-entry lookup takes two permutes and a blend, and the 13-interval degree-6 form spent
//     half its time on them (57-73 cycles per 8 lanes on a Zen 3, 30-36 with the lookups replaced
//     by constants). e^(-a^2 / 2) = 2^n (1 + p), p = e^r - 1 with
//     -a^2 / 2 = P + Pl exactly and r = P - n ln 2 + Pl, and E = (c0 + V)(1 + p) 2^n, rounded once
//     before the scaling; 2^n is added to the exponent field as an integer, and only a vector with a
//     lane past a = 12.8 (results that turn subnormal, inf, NaN) takes the slower path that rounds
//     those once.
// -z^2 is taken exactly (two-product with fma; without fma, the leading 12 bits of |x| squared
// plus a small remainder), and e^y = 2^n e^r (r = y - n ln 2, split so that its large parts add
// exactly). The coefficients are minimax fits to erf, log(erfc(z) e^(z^2) / t), R and e^r rounded
// to float (tools/fit_erf.py), as are E's near 0. Errors are tabled in docs/vector-math.md.
namespace erf_detail {
inline VF fma(VF a, VF b, VF c) { return vecimpl::fma(a.v, b.v, c.v); }
inline VF select_gt(VF x, VF t, VF a, VF b) { return vecimpl::blend_gt(x.v, t.v, a.v, b.v); }
inline VF min_v(VF a, float b) { return vecimpl::min_c(a.v, VF(b).v); }  // b: a nonzero constant
inline VF max_v(VF a, float b) { return vecimpl::max_c(a.v, VF(b).v); }
inline VF fms(VF a, VF b, VF c) { return vecimpl::fms(a.v, b.v, c.v); }
inline VF fnma(VF a, VF b, VF c) { return vecimpl::fnma(a.v, b.v, c.v); }
// c[From] + c[From + 1] x + ... + c[N - 1] x^(N - 1 - From)
template <int From = 0, int N> inline VF horner(VF x, const float (&c)[N]) {
  VF r(c[N - 1]);
  for (int i = N - 2; i >= From; --i) r = fma(r, x, VF(c[i]));
  return r;
}
// erf(z) / z - 1 in z^2, z in [0, 0.9]
inline constexpr float kErfSmall[] = {0x1.06eba8p-3f, -0x1.81274p-2f, 0x1.ce2d6p-4f, -0x1.b80062p-6f,
                                      0x1.543f2ap-8f, -0x1.a583bcp-11f, 0x1.4d2864p-14f};
// gelu: R(a0 + s) = Phi(-a) e^(a^2 / 2) ~ (c0hi + c0lo) + c1 s + ... + c8 s^8 on interval k (the
// halves of the octaves of 1 + a: [0, 1/2), [1/2, 1), [1, 2), [2, 3), [3, 5), [5, 7), [7, 11),
// [11, 15)), a0 = kGeluA0[k] its midpoint (0 for the first); row j holds coefficient j (c0hi, c0lo,
// c1, ..., c8) of the 8 intervals (tools/fit_erf.py).
alignas(32) inline constexpr float kGeluA0[8] = {0.0f, 0.75f, 1.5f, 2.5f, 4.0f, 6.0f, 9.0f, 13.0f};
alignas(32) inline constexpr float kGeluR[10][8] = {{0x1p-1f, 0x1.337024p-2f, 0x1.a57056p-3f, 0x1.217252p-3f, 0x1.82b4bcp-4f, 0x1.095608p-4f, 0x1.66ccb8p-5f, 0x1.f3ddc2p-6f},
 {0.0f, -0x1.086b3cp-27f, -0x1.a5db52p-29f, 0x1.8b805cp-30f, -0x1.cdac8cp-30f, 0x1.8f62bep-29f, -0x1.18fceap-31f, 0x1.7a2c42p-32f},
 {-0x1.988454p-2f, -0x1.63e072p-3f, -0x1.71c04cp-4f, -0x1.75ab64p-5f, -0x1.5cf97ap-6f, -0x1.5068c2p-7f, -0x1.37812p-8f, -0x1.3012a8p-9f},
 {0x1.000024p-2f, 0x1.5bf7f2p-4f, 0x1.20403ap-5f, 0x1.bf399ep-7f, 0x1.2dda04p-8f, 0x1.a0eee4p-10f, 0x1.0b6e06p-11f, 0x1.6fdc4p-13f},
 {-0x1.105cbep-3f, -0x1.2c831cp-5f, -0x1.9980b4p-7f, -0x1.f6276cp-9f, -0x1.f6a73ep-11f, -0x1.f9cd48p-13f, -0x1.c63e7ep-15f, -0x1.ba92p-17f},
 {0x1.004496p-4f, 0x1.d68b14p-7f, 0x1.0d5fbp-8f, 0x1.0ac1d6p-10f, 0x1.943d4ap-13f, 0x1.2cab74p-15f, 0x1.7db9p-18f, 0x1.08c6c4p-20f},
 {-0x1.b7fd7p-6f, -0x1.552bd2p-8f, -0x1.4bc6fp-10f, -0x1.0de0b4p-12f, -0x1.3a57fap-15f, -0x1.5e692ep-18f, -0x1.3c719p-21f, -0x1.3ad21ep-24f},
 {0x1.668422p-7f, 0x1.cb82f2p-10f, 0x1.82731p-12f, 0x1.0581d8p-14f, 0x1.dbc50ep-18f, 0x1.917ffp-21f, 0x1.049ddp-24f, 0x1.74a7fcp-28f},
 {-0x1.143808p-8f, -0x1.6b313p-12f, -0x1.bb4e5ap-14f, -0x1.f2944cp-17f, -0x1.77addep-20f, -0x1.d9941ap-24f, -0x1.d5612p-28f, -0x1.cea622p-32f},
 {0x1.2551a2p-10f, 0x1.713674p-14f, 0x1.cca06ap-16f, 0x1.ba3092p-19f, 0x1.0b8c0ep-22f, 0x1.03596cp-26f, 0x1.7b4d0ep-31f, 0x1.0fb854p-35f}};
// Q(u) = log(erfc(z) e^(z^2) / t) + ln 2 in u, z in [0.3, 11]
inline constexpr float kErfcTail[] = {0x1.2f5e0cp-2f, 0x1.f8b0dap-2f, -0x1.420fdp-4f, -0x1.25559ap-5f,
                                      0x1.57000cp-6f, 0x1.06f498p-10f, -0x1.72a1eap-8f, 0x1.37fef4p-9f,
                                      0x1.f59f6ap-12f, -0x1.64b492p-10f, 0x1.8c21d2p-12f, 0x1.ee79f6p-12f};
// (e^r - 1 - r) / r^2, |r| <= ln 2 / 2
inline constexpr float kExpPoly[] = {0x1.fffffcp-2f, 0x1.555492p-3f, 0x1.5558bcp-5f, 0x1.1239c6p-7f,
                                     0x1.6a4154p-10f};

/// erfc(k a) for a in [0.3 / k, 11 / k], where sq = k^2 (1 or 1/2, so z^2 = sq a^2 exactly) and
/// pk = k / sqrt 2 (p z = pk a). Gelu (results down to 0) scales by 2^n in two steps, so that
/// results under 2^-126 round once; erf (a <= 4) returns 1 - erfc with one rounding.
template <bool Gelu> inline VF erfc_tail(VF a, float sq, float pk) {
  // -z^2 = nh + nl with nh exact: a's leading 12 bits (ah) squared.
  const VF ah(vecimpl::bit_and(a.v, VF(std::bit_cast<float>(0xfffff000u)).v)), al = a - ah;
  const VF nh = ah * (ah * -sq);
  // t = 1 / d, d = 1 + p z (d_lo: what rounding d lost); 1 / (d + d_lo) = t (1 + delta0), and since
  // dQ/du is about 1/2, evaluating Q at the rounded u = 2t - 1 is made good by delta0 t more.
  const VF pz = a * pk, d = fma(a, pk, 1.0f);
  const VF d_lo = min_v(pz, 1.0f) - (d - max_v(pz, 1.0f));
  const VF t = VF(1.0f) / d, u = fma(t, 2.0f, -1.0f);
  const VF delta0 = fma(-t, d_lo, fma(-t, d, 1.0f));
  const VF rest = fma(al * -sq, (ah + ah) + al, fma(delta0, t, delta0));  // nl + delta
  // nh + rest + Q(u) = n ln 2 + r, r = (A + Q0) + B: A = nh - n ln2_hi is exact (ln2_hi has 16
  // bits, nh's last bit is no finer than ln2_hi's where n is large), A + Q0 nearly so.
  const VF R = horner<1>(u, kErfcTail);  // (Q(u) - Q0) / u
  const VF n = fma(fma(u, R, nh) + kErfcTail[0], 1.44269504f, 12582912.0f) - 12582912.0f;
  const VF A = fma(n, -0x1.62e4p-1f, nh);
  const VF B = fma(u, R, fma(n, -0x1.7f7d1cp-20f, rest));
  const VF r = (A + kErfcTail[0]) + B;
  const VF te = fma(t, fma(r * r, horner(r, kExpPoly), r), t);  // t e^r, rounded once
  const VF m = n - 1.0f;                                         // the ln 2 in Q
  if constexpr (Gelu) {
    const VF m1 = max_v(m, -126.0f);
    return (te * VF(vecimpl::pow2i(m1.v))) * VF(vecimpl::pow2i((m - m1).v));
  } else {
    return fma(-te, VF(vecimpl::pow2i(m.v)), 1.0f);
  }
}
}  // namespace erf_detail

inline VF erf(VF x) {  // Note [Own float erf]
  using namespace erf_detail;
  const VF ax = abs(x);
  const VF near0 = fma(x, horner(x * x, kErfSmall), x);
  const VF c = erfc_tail<false>(min_v(ax, 4.0f), 1.0f, 0.70710678f);  // erf(4) rounds to 1
  return select_gt(ax, 0.9f, select_gt(x, 0.0f, c, -c), near0);
}
inline VD erf(VD a) {  // Note [SLEEF range fixes]: below 2^-1000, (2 / sqrt pi) a rounded once
  const VD r = vecimpl::apply1(EMBER_SLEEF_D(erf), a.v), ax = abs(a), lim(0x1p-1000);
  if (!vecimpl::any_gt(lim.v, ax.v)) return r;
  return vecimpl::blend_gt(lim.v, ax.v, (a * 1.1283791670955126).v, r.v);
}

namespace erf_detail {
// gelu for |x| < 3.875: E(a0 + s) = Phi(-a) ~ c0 + c1 s + ... + c6 s^6 on interval j, a0 = j / 4
// (j = 0..15), s in [-1/8, 1/8] ([0, 1/8] for j = 0); row i holds coefficient i of the 16
// intervals (tools/fit_erf.py).
alignas(64) inline constexpr float kGeluNear[7][16] = {
 {0x1p-1f, 0x1.9aecbap-2f, 0x1.3bf144p-2f, 0x1.d022p-3f, 0x1.44ed0cp-3f, 0x1.b0bdd2p-4f, 0x1.11a46ep-4f, 0x1.482a24p-5f, 0x1.74bcf8p-6f, 0x1.90925p-7f, 0x1.96f4e6p-8f, 0x1.869044p-9f, 0x1.61de2p-10f, 0x1.2e86fep-11f, 0x1.e7dbcap-13f, 0x1.72d956p-14f},
 {-0x1.988454p-2f, -0x1.8bf2bap-2f, -0x1.6883dp-2f, -0x1.345d5ep-2f, -0x1.ef8e5ap-3f, -0x1.7610bap-3f, -0x1.094086p-3f, -0x1.616454p-4f, -0x1.ba4b44p-5f, -0x1.0402ep-5f, -0x1.1f2f06p-6f, -0x1.29fa56p-7f, -0x1.227214p-8f, -0x1.09f38ep-9f, -0x1.c9897ep-11f, -0x1.71b92ep-12f},
 {0x1.55b26ap-20f, 0x1.8c07b6p-5f, 0x1.687f2p-4f, 0x1.ce8ecap-4f, 0x1.ef8c0ep-4f, 0x1.d3918p-4f, 0x1.8ddee8p-4f, 0x1.3537f6p-4f, 0x1.ba4ba6p-5f, 0x1.24825ep-5f, 0x1.66fa4cp-6f, 0x1.99b78ep-7f, 0x1.b3aabap-8f, 0x1.b02b46p-9f, 0x1.9057e8p-10f, 0x1.5a9db2p-11f},
 {0x1.10276p-4f, 0x1.eee748p-5f, 0x1.688654p-5f, 0x1.67a9fap-6f, 0x1.031c12p-18f, -0x1.187c78p-6f, -0x1.ba0b28p-6f, -0x1.e5e772p-6f, -0x1.ba4a8p-6f, -0x1.60173ap-6f, -0x1.f68ffp-7f, -0x1.45e7ccp-7f, -0x1.83426p-8f, -0x1.a7dba8p-9f, -0x1.acefbcp-10f, -0x1.9275b2p-11f},
 {0x1.87303ap-11f, -0x1.b98c98p-7f, -0x1.3e79a4p-6f, -0x1.7e7414p-6f, -0x1.44c2c4p-6f, -0x1.af4ed2p-7f, -0x1.7b9e6ep-8f, 0x1.7e81f4p-12f, 0x1.24dea2p-8f, 0x1.9658d6p-8f, 0x1.85fb74p-8f, 0x1.384736p-8f, 0x1.b41e12p-9f, 0x1.10a6e2p-9f, 0x1.34d36p-10f, 0x1.3f80aep-11f},
 {-0x1.f9612p-7f, -0x1.090dcap-7f, -0x1.358112p-8f, 0x1.136f64p-11f, 0x1.ebb59cp-9f, 0x1.73ee38p-8f, 0x1.730d98p-8f, 0x1.183f1cp-8f, 0x1.266098p-9f, 0x1.bd1abcp-12f, -0x1.65718cp-11f, -0x1.29b9cp-10f, -0x1.22b47ap-10f, -0x1.c67f5ep-11f, -0x1.302a02p-11f, -0x1.670342p-12f},
 {0x1.eba9e2p-7f, 0x1.1d0238p-4f, -0x1.ba29cep-6f, 0x1.35a9f8p-6f, -0x1.7851a6p-7f, -0x1.438216p-6f, -0x1.7b54dep-7f, -0x1.bcff22p-14f, -0x1.87cbb4p-14f, -0x1.c0f186p-9f, -0x1.27c148p-10f, -0x1.105dacp-11f, -0x1.24efeep-16f, 0x1.c09ed2p-14f, 0x1.374eacp-13f, 0x1.19293p-13f}};

/// gelu for lanes with a = |x| < 3.875 (others get a meaningless value): j = round(4a) from the low
/// bits of 1.5 2^23 + 4a (rounded once, also without FMA, as 4a is exact), s = a - j / 4 exact, E by
/// Horner's rule, then x - x E (one fnma) for x > 0 and x E below.
inline VF gelu_near(VF x, VF a) {
  const VF k = fma(a, 4.0f, 12582912.0f);
  const VF s = fnma(k - 12582912.0f, VF(0.25f), a);
  auto c = [&](int i) { return VF(vecimpl::lut16(kGeluNear[i], k.v)); };
  VF E = c(6);
  for (int i = 5; i >= 0; --i) E = fma(E, s, c(i));
  return select_gt(x, 0.0f, fnma(x, E, x), x * E);
}

/// x (c + w) as x c + x w with x c exact inside one fma; without FMA, x c = h + l exactly (halves
/// of 12 bits, whose products are exact), then one rounding. a: 0 exactly where x is (then h, so
/// that -0 stays -0: l + x w is +0 there).
inline VF x_times_sum(VF x, VF c, VF w, VF a) {
  if constexpr (vecimpl::kFusedFma) {
    return fma(x, c, x * w);
  } else {
    const VF m(std::bit_cast<float>(0xfffff000u));
    const VF xh(vecimpl::bit_and(x.v, m.v)), xl = x - xh, ch(vecimpl::bit_and(c.v, m.v)), cl = c - ch;
    const VF h = x * c, l = (((xh * ch - h) + xh * cl) + xl * ch) + xl * cl;
    return select_gt(a, 0.0f, h + (l + x * w), h);
  }
}

/// gelu for every x (the form for |x| >= 3.875, NaN and inf: e^(-x^2 / 2) R(|x|)).
inline VF gelu_any(VF x) {
  const VF a(vecimpl::min_num(abs(x).v, VF(15.5f).v));  // 15.5 for NaN: then x E is x's NaN
  // The interval: y = 1 + ap, rounded (ap a hair below an interval's start may get that interval, with s
  // a hair below its start, inside the fit), its key the octave and half of y; s = ap - a0 is exact
  // (a0 = 0, or a0 / 2 <= ap <= 2 a0: Sterbenz). R is taken at ap = min(a, 14.875): from a = 14.3 on
  // every result is x or ±0 whatever R's value (its use there: near 0.027, as R(a) is).
  const VF ap = min_v(a, 14.875f), y = ap + 1.0f;
  const VF key(vecimpl::lut_key(y.v));
  const VF s = ap - VF(vecimpl::lut8(kGeluA0, key.v));
  auto c = [&](int j) { return VF(vecimpl::lut8(kGeluR[j], key.v)); };
  // V = R - c0hi = c0lo + c1 s + s^2 Q(s): the c1 s term is added last, inside one fma, so that Q's
  // rounding counts at s^2 rather than s.
  VF q = c(9);
  for (int j = 8; j >= 3; --j) q = fma(q, s, c(j));
  const VF V = fma(c(2), s, fma(q, s * s, c(1))), c0 = c(0);  // R = c0 + V
  VF P, Pl;  // -a^2 / 2 = P + Pl
  if constexpr (vecimpl::kFusedFma) {
    const VF h = a * -0.5f;
    P = a * h;
    Pl = fms(a, h, P);
  } else {
    const VF ah(vecimpl::bit_and(a.v, VF(std::bit_cast<float>(0xfffff000u)).v)), al = a - ah;
    P = ah * (ah * -0.5f);
    Pl = (al * -0.5f) * ((ah + ah) + al);
  }
  // e^(P + Pl) = 2^n e^r, k = 1.5 2^23 + n; A = P - n ln2_hi is exact (ln2_hi has 16 bits).
  const VF k = fma(P, 1.44269504f, 12582912.0f), n = k - 12582912.0f;
  const VF r = fma(n, -0x1.62e4p-1f, P) + fma(n, -0x1.7f7d1cp-20f, Pl);
  const VF p = fma(r * r, horner(r, kExpPoly), r);  // e^r - 1
  // (c0 + V)(1 + p) = c0 + inner, inner = c0 p + V (1 + p) (the smaller part first), and x times it
  // with x c0 exact inside one fma (x E for x < 0).
  const VF inner = fma(c0, p, fma(V, p, V));
  const VF Em = c0 + inner;
  const VF xEm = x_times_sum(x, c0, inner, a);
  VF E(vecimpl::add_exp(Em.v, k.v)), neg;  // times 2^n, exact while normal (xEm is 0 only at n = 0)
  if (!vecimpl::any_gt(a.v, VF(12.8f).v)) {
    neg = VF(vecimpl::add_exp(xEm.v, k.v));
  } else {  // subnormal or 0 in some lane: each rounded once, from the normal values times 2^m1
    const VF m1 = max_v(n, -100.0f);
    const VF p1(vecimpl::pow2i(m1.v)), sc(vecimpl::pow2i((n - m1).v));
    E = (Em * p1) * sc;
    // -0 from |x| = 15.4 on (the result is 0 from 14.5); NaN for -inf, as 0.5 x (1 + erf) gives.
    neg = select_gt(a, 15.4f, x * 0.0f, (xEm * p1) * sc);
  }
  // E is 0.5 at x = ±0 (±0 results) and 0 from 15.5 on (x - a E = x up to +inf).
  return select_gt(x, 0.0f, fnma(a, E, x), neg);
}
}  // namespace erf_detail

/// 0.5 x (1 + erf(x / sqrt 2)), as x - x E for x > 0 and x E below, E = erfc(|x| / sqrt 2) / 2.
/// Note [Own float erf]: a vector with every |x| < 3.875 takes gelu_near alone; any other takes
/// gelu_any for its lanes from 3.875 (and NaN) and gelu_near for the rest, so a lane's result never
/// depends on its neighbours.
inline VF gelu_erf(VF x) {
  using namespace erf_detail;
  const VF a = abs(x), near = gelu_near(x, a);
  if (!vecimpl::any_nle(a.v, VF(0x1.effffep1f).v)) return near;
  return select_gt(VF(3.875f), a, near, gelu_any(x));
}
inline VD gelu_erf(VD x) { return 0.5 * x * (1.0 + erf(x * 0.7071067811865476)); }

// Storage types to and from their compute type: float and double load and store as they are;
// Half and BFloat16 widen to float exactly and narrow with c10's rounding (Half.h: nearest-even,
// overflow to inf; a NaN becomes sign|0x7e00 for Half, 0x7fc0 for BFloat16), bit for bit.
/// Vec<float>::size (Vec<double>::size for double) values from p, as their compute type.
inline VF load_opmath(const float* p) { return VF::load(p); }
inline VD load_opmath(const double* p) { return VD::load(p); }
/// The reverse of load_opmath, rounding once.
inline void store_opmath(VF v, float* p) { v.store(p); }
inline void store_opmath(VD v, double* p) { v.store(p); }
/// store_opmath past the caches, for float and double: p must be aligned to sizeof(VF) (sizeof(VD));
/// stream_fence() orders these stores before the thread's later ones (Note [Streaming stores]).
inline void stream_opmath(VF v, float* p) { vecimpl::stream(p, v.v); }
inline void stream_opmath(VD v, double* p) { vecimpl::stream(p, v.v); }
inline void stream_fence() { vecimpl::stream_fence(); }

#if defined(EMBER_VEC_AVX512)
// A half lane is NaN when its magnitude is above 0x7c00; c10 writes those as sign|0x7e00, where
// vcvtps2ph keeps the top payload bits.
inline __m256i half_canonical_nan(__m256i h) {
  const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
  const __m256i nan = _mm256_cmpgt_epi16(mag, _mm256_set1_epi16(0x7c00));
  const __m256i canon = _mm256_or_si256(_mm256_and_si256(h, _mm256_set1_epi16(static_cast<int16_t>(0x8000))),
                                        _mm256_set1_epi16(0x7e00));
  return _mm256_blendv_epi8(h, canon, nan);
}
inline VF load_opmath(const c10::Half* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
inline void store_opmath(VF v, c10::Half* p) {
  const __m256i h = _mm512_cvtps_ph(v.v, _MM_FROUND_TO_NEAREST_INT);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), half_canonical_nan(h));
}
inline VF load_opmath(const c10::BFloat16* p) {
  const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}
// c10's bf16_from_fp32 in integer lanes: (x + 0x7fff + lsb) >> 16, NaN -> 0x7fc0. (vcvtneps2bf16
// would flush denormals.)
inline void store_opmath(VF v, c10::BFloat16* p) {
  const __m512i x = _mm512_castps_si512(v.v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)), lsb), 16);
  r = _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(v.v, v.v, _CMP_UNORD_Q), r, _mm512_set1_epi32(0x7fc0));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(r));
}
#elif defined(EMBER_VEC_AVX2)
inline VF load_opmath(const c10::BFloat16* p) {
  const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}
inline void store_opmath(VF v, c10::BFloat16* p) {
  const __m256i x = _mm256_castps_si256(v.v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), lsb), 16);
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7fc0), _mm256_castps_si256(_mm256_cmp_ps(v.v, v.v, _CMP_UNORD_Q)));
  // packus works within 128-bit halves: [0..3 0..3 | 4..7 4..7]; qwords 0 and 2 hold 0..7.
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
}
#if defined(__F16C__)
inline __m128i half_canonical_nan(__m128i h) {
  const __m128i mag = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
  const __m128i nan = _mm_cmpgt_epi16(mag, _mm_set1_epi16(0x7c00));
  const __m128i canon = _mm_or_si128(_mm_and_si128(h, _mm_set1_epi16(static_cast<int16_t>(0x8000))),
                                     _mm_set1_epi16(0x7e00));
  return _mm_blendv_epi8(h, canon, nan);
}
inline VF load_opmath(const c10::Half* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline void store_opmath(VF v, c10::Half* p) {
  const __m128i h = _mm256_cvtps_ph(v.v, _MM_FROUND_TO_NEAREST_INT);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), half_canonical_nan(h));
}
#define EMBER_VEC_HALF_DONE 1
#endif
#define EMBER_VEC_BF16_DONE 1
#endif
#if defined(EMBER_VEC_AVX512)
#define EMBER_VEC_HALF_DONE 1
#define EMBER_VEC_BF16_DONE 1
#endif

// Elsewhere, through c10's own scalar conversions.
#if !defined(EMBER_VEC_HALF_DONE)
inline VF load_opmath(const c10::Half* p) {
  alignas(64) float f[VF::size];
  for (int i = 0; i < VF::size; ++i) f[i] = static_cast<float>(p[i]);
  return VF::load(f);
}
inline void store_opmath(VF v, c10::Half* p) {
  alignas(64) float f[VF::size];
  v.store(f);
  for (int i = 0; i < VF::size; ++i) p[i] = c10::Half(f[i]);
}
#endif
#if !defined(EMBER_VEC_BF16_DONE)
inline VF load_opmath(const c10::BFloat16* p) {
  alignas(64) float f[VF::size];
  for (int i = 0; i < VF::size; ++i) f[i] = static_cast<float>(p[i]);
  return VF::load(f);
}
inline void store_opmath(VF v, c10::BFloat16* p) {
  alignas(64) float f[VF::size];
  v.store(f);
  for (int i = 0; i < VF::size; ++i) p[i] = c10::BFloat16(f[i]);
}
#endif
#undef EMBER_VEC_HALF_DONE
#undef EMBER_VEC_BF16_DONE
#undef EMBER_SLEEF_F
#undef EMBER_SLEEF_D

}  // namespace EMBER_VEC_NS
}  // namespace ember::pw
