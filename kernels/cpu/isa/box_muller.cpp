// The float Box-Muller pass of normal_ (kernels/cpu/box_muller.h), compiled once per CPU capability
// level (Note [CPU capability levels]) so that its fused multiply-adds are single instructions where
// the level has FMA: the baseline build has no FMA instruction, so every std::fma there is a call into
// libm (about 30 per pair of normals), which made randn of 16M floats 4.6 times slower than
// libtorch's on a Zen 3 (684 against 147 ms). With FMA (the AVX2 and AVX-512 levels) the eight
// pairs of a block also run as the eight lanes of one AVX2 vector: box_muller.h's operations one
// for one (the same fused multiply-adds, selects for its branches, IEEE sqrt), so the bits are the
// scalar code's. tests/aten/test_random.cpp compares the streams with libtorch's recorded ones, and
// the ctests cpu_level.* run it at every level.
#include <ATen/native/DispatchStub.h>
#include <cstdint>
#include "../box_muller.h"
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace at::native {
using normal_fill_float_fn = void (*)(float*, int64_t, float, float);
EMBER_DECLARE_DISPATCH(normal_fill_float_fn, normal_fill_float_stub);

namespace EMBER_CPU_NS {  // Note [CPU capability levels]
namespace {
#if defined(__AVX2__) && defined(__FMA__)
inline __m256 set1(float v) { return _mm256_set1_ps(v); }
inline __m256 select(__m256 mask, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, mask); }  // mask ? a : b

// box_muller::cephes_log, lane by lane.
inline __m256 log8(__m256 x) {
  x = _mm256_max_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x00800000)));  // x < smallest normal -> it
  const __m256i bits = _mm256_castps_si256(x);
  const __m256i exponent = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(0x7f));
  __m256 m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_andnot_si256(_mm256_set1_epi32(0x7f800000), bits),
                                                 _mm256_castps_si256(set1(0.5f))));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(exponent), set1(1.0f));
  const __m256 small = _mm256_cmp_ps(m, set1(0.707106781186547524f), _CMP_LT_OQ);
  const __m256 extra = _mm256_and_ps(small, m);
  m = _mm256_sub_ps(m, set1(1.0f));
  e = _mm256_sub_ps(e, _mm256_and_ps(small, set1(1.0f)));
  m = _mm256_add_ps(m, extra);
  const __m256 z = _mm256_mul_ps(m, m);
  static constexpr float kP[9] = {7.0376836292e-2f,  -1.1514610310e-1f, 1.1676998740e-1f,
                                  -1.2420140846e-1f, 1.4249322787e-1f,  -1.6668057665e-1f,
                                  2.0000714765e-1f,  -2.4999993993e-1f, 3.3333331174e-1f};
  __m256 y = set1(kP[0]);
  for (int k = 1; k < 9; ++k) y = _mm256_fmadd_ps(y, m, set1(kP[k]));
  y = _mm256_mul_ps(y, m);
  const __m256 low = _mm256_mul_ps(e, set1(-2.12194440e-4f));
  y = _mm256_fmadd_ps(y, z, low);
  y = _mm256_fmadd_ps(_mm256_xor_ps(z, set1(-0.0f)), set1(0.5f), y);
  const __m256 sum = _mm256_add_ps(m, y);
  return _mm256_fmadd_ps(e, set1(0.693359375f), sum);
}

// box_muller::cephes_sincos, lane by lane.
inline void sincos8(__m256 x, __m256* s, __m256* c) {
  const __m256i negative = _mm256_srai_epi32(_mm256_castps_si256(x), 31);  // all ones where the sign is set
  x = _mm256_andnot_ps(set1(-0.0f), x);
  __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(x, set1(1.27323954473516f)));
  j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
  const __m256 y = _mm256_cvtepi32_ps(j);
  x = _mm256_fmadd_ps(y, set1(-0.78515625f), x);
  x = _mm256_fmadd_ps(y, set1(-2.4187564849853515625e-4f), x);
  x = _mm256_fmadd_ps(y, set1(-3.77489497744594108e-8f), x);
  const __m256i four = _mm256_set1_epi32(4), two = _mm256_set1_epi32(2), ones = _mm256_set1_epi32(-1);
  const __m256i j4 = _mm256_cmpeq_epi32(_mm256_and_si256(j, four), four);
  const __m256i sin_negative = _mm256_xor_si256(negative, j4);
  const __m256i cos_negative =
      _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_xor_si256(_mm256_sub_epi32(j, two), ones), four), four);
  const __m256 swap = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, two), two));
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 pc = set1(2.443315711809948e-5f);
  pc = _mm256_fmadd_ps(pc, z, set1(-1.388731625493765e-3f));
  pc = _mm256_fmadd_ps(pc, z, set1(4.166664568298827e-2f));
  pc = _mm256_mul_ps(pc, z);
  const __m256 half_z = _mm256_mul_ps(z, set1(0.5f));
  pc = _mm256_fmadd_ps(pc, z, _mm256_xor_ps(half_z, set1(-0.0f)));
  pc = _mm256_add_ps(pc, set1(1.0f));
  __m256 ps = set1(-1.9515295891e-4f);
  ps = _mm256_fmadd_ps(ps, z, set1(8.3321608736e-3f));
  ps = _mm256_fmadd_ps(ps, z, set1(-1.6666654611e-1f));
  ps = _mm256_mul_ps(ps, z);
  ps = _mm256_fmadd_ps(ps, x, x);
  const __m256 sv = select(swap, pc, ps), cv = select(swap, ps, pc);
  const __m256 sign = set1(-0.0f);
  *s = _mm256_xor_ps(sv, _mm256_and_ps(_mm256_castsi256_ps(sin_negative), sign));
  *c = _mm256_xor_ps(cv, _mm256_and_ps(_mm256_castsi256_ps(cos_negative), sign));
}

// box_muller::fill16 (float) with pair j in lane j.
inline void fill16_avx2(float* data, __m256 mean, __m256 std) {
  const __m256 u1 = _mm256_sub_ps(set1(1.0f), _mm256_loadu_ps(data));
  const __m256 u2 = _mm256_loadu_ps(data + 8);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(set1(-2.0f), log8(u1)));
  __m256 s, c;
  sincos8(_mm256_mul_ps(set1(static_cast<float>(2.0f * 3.14159265358979323846)), u2), &s, &c);
  _mm256_storeu_ps(data, _mm256_fmadd_ps(_mm256_mul_ps(radius, c), std, mean));
  _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, s), std, mean));
}
#endif

// fill16 over the blocks [16 b, 16 b + 16) of p[0, n), n a multiple of 16.
void normal_fill_float(float* p, int64_t n, float mean, float std) {
#if defined(__AVX2__) && defined(__FMA__)
  const __m256 m = _mm256_set1_ps(mean), s = _mm256_set1_ps(std);
  for (int64_t i = 0; i + 16 <= n; i += 16) fill16_avx2(p + i, m, s);
#else
  for (int64_t i = 0; i + 16 <= n; i += 16) box_muller::fill16(p + i, mean, std);
#endif
}
}  // namespace

EMBER_REGISTER_DISPATCH(normal_fill_float_stub, &normal_fill_float);

}  // namespace EMBER_CPU_NS
}  // namespace at::native
