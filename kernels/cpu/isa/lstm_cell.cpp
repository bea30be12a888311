// The LSTM step's gate arithmetic as one pass over the gate rows (see aten/ATen/native/cpu/LstmCell.h),
// compiled once per CPU capability level (Note [CPU capability levels]); the entry points are in
// kernels/cpu/rnn.cpp.
// Composed from pointwise ops, a step of an LSTM with hidden size H over n rows runs about ten
// kernels that each allocate an [n, H] or [n, 4H] result and read their inputs again; here one
// loop reads the two gate pre-activations and c_prev once and writes the activated gates, c,
// tanh(c) and h.
//
// Note [LSTM gate activations in float]
// Five activations per hidden unit and step dominate the pass, and SLEEF's 1-ulp tanh costs about
// 50 cycles per 8 floats here. For float the pass uses its own AVX2 functions instead: e^y by
// reduction to r = y - n ln 2 (|r| <= ln 2 / 2, n ln 2 subtracted in two parts) and the Taylor
// polynomial of e^r to r^7, scaled by 2^n (max error 0.94 ulp over [-87, 88]); sigmoid(x) =
// 1 / (1 + e^-x) as the pointwise sigmoid (2.5 ulp, like SLEEF's e^x in the same formula);
// tanh from its Taylor polynomial to x^17 below |x| = 0.55 and 1 - 2 / (e^2|x| + 1) above
// (1.55 ulp against SLEEF's 1.0, checked over every float). NaN, infinities and -0.0 come out as
// from tanh and sigmoid. At the AVX512 level the same operations run on 16 lanes (bit for bit the
// AVX2 results, checked over a third of all floats), at the DEFAULT level one float at a time
// (the same operations again: tests/nn/test_rnn.cpp compares the levels). Double keeps the
// pointwise kernels' SLEEF functions.
#include <ATen/native/DispatchStub.h>
#include <ATen/native/cpu/LstmCell.h>
#include <ATen/Parallel.h>
#include <ATen/Utils.h>
#include <ATen/native/cpu/Vec.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <omp.h>

namespace at::native::cpu {
namespace EMBER_CPU_NS {  // Note [CPU capability levels]
namespace {

// Rows are the unit of parallel work; the forward's five transcendental functions per hidden unit
// make a small batch worth splitting, the backward's products only a large one.
constexpr int64_t kForwardGrain = 1024, kBackwardGrain = at::kGrainSize;

void check_block(const Tensor& t, int64_t n, int64_t width, ScalarType dtype, const char* name) {
  EMBER_INTERNAL_ASSERT(t.is_cpu() && t.scalar_type() == dtype && t.is_contiguous() && t.dim() == 2 &&
                            t.size(0) == n && t.size(1) == width,
                        "[lstm_cell] ", name, " is not a contiguous [", n, ", ", width, "] block: ", t.sizes());
}

#if defined(__AVX2__) && defined(__FMA__)
// See Note [LSTM gate activations in float].
inline __m256 exp_lanes(__m256 y) {
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(y, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), y);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606765330187e-06f), r);
  __m256 p = _mm256_set1_ps(1.0f / 5040);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  const __m256i scale = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
}

// e^-x is taken as +inf below x = -88 (sigmoid 0 there: the exact value is under 6e-39) and as
// 0 above x = 87 (sigmoid rounds to 1 there anyway); min/max keep NaN (their second operand).
inline __m256 sigmoid_lanes(__m256 x) {
  const __m256 y = _mm256_max_ps(_mm256_set1_ps(-87.0f),
                                 _mm256_min_ps(_mm256_set1_ps(88.0f), _mm256_sub_ps(_mm256_setzero_ps(), x)));
  __m256 e = exp_lanes(y);
  e = _mm256_blendv_ps(e, _mm256_set1_ps(std::numeric_limits<float>::infinity()),
                       _mm256_cmp_ps(x, _mm256_set1_ps(-88.0f), _CMP_LT_OQ));
  return _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

// Computed on |x| (tanh is 1 in float from |x| = 9.1 on), then given the sign of x.
inline __m256 tanh_lanes(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 ax = _mm256_andnot_ps(sign, x);
  const __m256 x2 = _mm256_mul_ps(ax, ax);
  __m256 q = _mm256_set1_ps(6404582.0f / 10854718875.0f);
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(-929569.0f / 638512875.0f));
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(21844.0f / 6081075.0f));
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(-1382.0f / 155925.0f));
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(62.0f / 2835.0f));
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(-17.0f / 315.0f));
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(2.0f / 15.0f));
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(-1.0f / 3.0f));
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(ax, x2), q, ax);
  const __m256 capped = _mm256_min_ps(_mm256_set1_ps(9.1f), ax);
  const __m256 e = exp_lanes(_mm256_add_ps(capped, capped));
  const __m256 big =
      _mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, _mm256_set1_ps(1.0f))));
  const __m256 magnitude = _mm256_blendv_ps(big, small, _mm256_cmp_ps(ax, _mm256_set1_ps(0.55f), _CMP_LT_OQ));
  return _mm256_or_ps(magnitude, _mm256_and_ps(x, sign));
}

// 8 hidden units of one row at units j.. (Full: all 8; else the first `left` through masked loads
// and stores). Whole groups use plain loads and stores: on a Zen 3 a masked 256-bit store
// (vmaskmovps) costs 10-13 TSC cycles against ~1.5 for a plain one, and a group makes seven.
template <bool Full>
inline void forward_group_float(int64_t j, int64_t left, int64_t H, const float* x, const float* bias, const float* p,
                                float* gr, const float* cpr, float* cr, float* tr, float* hr) {
  const __m256i m = Full ? _mm256_setzero_si256()
                         : _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left)),
                                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  auto ld = [&](const float* q) {
    if constexpr (Full) return _mm256_loadu_ps(q + j);
    else return _mm256_maskload_ps(q + j, m);
  };
  auto st = [&](float* q, __m256 v) {
    if constexpr (Full) _mm256_storeu_ps(q + j, v);
    else _mm256_maskstore_ps(q + j, m, v);
  };
  // (x W_ih^T + bias) + h W_hh^T: the order of the composed addmm steps.
  auto pre = [&](int64_t k) {
    const __m256 xb = bias ? _mm256_add_ps(ld(x + k * H), ld(bias + k * H)) : ld(x + k * H);
    return _mm256_add_ps(xb, ld(p + k * H));
  };
  const __m256 i = sigmoid_lanes(pre(0));
  const __m256 f = sigmoid_lanes(pre(1));
  const __m256 cand = tanh_lanes(pre(2));
  const __m256 o = sigmoid_lanes(pre(3));
  const __m256 cn = _mm256_fmadd_ps(i, cand, _mm256_mul_ps(f, ld(cpr)));
  const __m256 t = tanh_lanes(cn);
  st(gr, i);
  st(gr + H, f);
  st(gr + 2 * H, cand);
  st(gr + 3 * H, o);
  st(cr, cn);
  st(tr, t);
  st(hr, _mm256_mul_ps(o, t));
}

// The float rows: 8 hidden units at a time, the last partial group through masked loads and stores.
void forward_rows_float(int64_t r0, int64_t r1, int64_t H, const float* xp, const float* bias, const float* hh,
                        const float* cp, float* g, float* c, float* tc, float* h) {
  for (int64_t r = r0; r < r1; ++r) {
    const float* x = xp + r * 4 * H;
    const float* p = hh + r * 4 * H;
    float* gr = g + r * 4 * H;
    const float* cpr = cp + r * H;
    float* cr = c + r * H;
    float* tr = tc + r * H;
    float* hr = h + r * H;
    int64_t j = 0;
    for (; j + 8 <= H; j += 8) forward_group_float<true>(j, 8, H, x, bias, p, gr, cpr, cr, tr, hr);
    if (j < H) forward_group_float<false>(j, H - j, H, x, bias, p, gr, cpr, cr, tr, hr);
  }
}

// The same functions on 16 lanes, at the AVX512 level. Every operation is the AVX2 one on wider
// registers, so the results do not depend on which of the two runs.
#if defined(__AVX512F__)
#define EMBER_AVX512
EMBER_AVX512 inline __m512 exp_lanes16(__m512 y) {
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(y, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), y);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);
  __m512 p = _mm512_set1_ps(1.0f / 5040);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  const __m512i scale = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_mul_ps(p, _mm512_castsi512_ps(scale));
}

EMBER_AVX512 inline __m512 sigmoid_lanes16(__m512 x) {
  const __m512 y = _mm512_max_ps(_mm512_set1_ps(-87.0f),
                                 _mm512_min_ps(_mm512_set1_ps(88.0f), _mm512_sub_ps(_mm512_setzero_ps(), x)));
  __m512 e = exp_lanes16(y);
  e = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(-88.0f), _CMP_LT_OQ), e,
                           _mm512_set1_ps(std::numeric_limits<float>::infinity()));
  return _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

EMBER_AVX512 inline __m512 tanh_lanes16(__m512 x) {
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  const __m512i xi = _mm512_castps_si512(x);
  const __m512 ax = _mm512_castsi512_ps(_mm512_andnot_si512(sign, xi));
  const __m512 x2 = _mm512_mul_ps(ax, ax);
  __m512 q = _mm512_set1_ps(6404582.0f / 10854718875.0f);
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-929569.0f / 638512875.0f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(21844.0f / 6081075.0f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-1382.0f / 155925.0f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(62.0f / 2835.0f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-17.0f / 315.0f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(2.0f / 15.0f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-1.0f / 3.0f));
  const __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(ax, x2), q, ax);
  const __m512 capped = _mm512_min_ps(_mm512_set1_ps(9.1f), ax);
  const __m512 e = exp_lanes16(_mm512_add_ps(capped, capped));
  const __m512 big =
      _mm512_sub_ps(_mm512_set1_ps(1.0f), _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, _mm512_set1_ps(1.0f))));
  const __m512 magnitude =
      _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.55f), _CMP_LT_OQ), big, small);
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(magnitude), _mm512_and_si512(xi, sign)));
}

// Gate k's pre-activation (x W_ih^T + bias) + h W_hh^T at units j.. under mask m.
EMBER_AVX512 inline __m512 pre_lanes16(const float* x, const float* bias, const float* p, int64_t k, int64_t H,
                                       int64_t j, __mmask16 m) {
  const __m512 xv = _mm512_maskz_loadu_ps(m, x + k * H + j);
  const __m512 xb = bias ? _mm512_add_ps(xv, _mm512_maskz_loadu_ps(m, bias + k * H + j)) : xv;
  return _mm512_add_ps(xb, _mm512_maskz_loadu_ps(m, p + k * H + j));
}

EMBER_AVX512 void forward_rows_float16(int64_t r0, int64_t r1, int64_t H, const float* xp, const float* bias,
                                       const float* hh, const float* cp, float* g, float* c, float* tc, float* h) {
  for (int64_t r = r0; r < r1; ++r) {
    const float* x = xp + r * 4 * H;
    const float* p = hh + r * 4 * H;
    float* gr = g + r * 4 * H;
    const float* cpr = cp + r * H;
    float* cr = c + r * H;
    float* tr = tc + r * H;
    float* hr = h + r * H;
    for (int64_t j = 0; j < H; j += 16) {
      const int64_t left = std::min<int64_t>(16, H - j);
      const __mmask16 m = static_cast<__mmask16>((1u << left) - 1u);
      // (Lambdas would not inherit the target attribute.)
      const __m512 i = sigmoid_lanes16(pre_lanes16(x, bias, p, 0, H, j, m));
      const __m512 f = sigmoid_lanes16(pre_lanes16(x, bias, p, 1, H, j, m));
      const __m512 cand = tanh_lanes16(pre_lanes16(x, bias, p, 2, H, j, m));
      const __m512 o = sigmoid_lanes16(pre_lanes16(x, bias, p, 3, H, j, m));
      const __m512 cn = _mm512_fmadd_ps(i, cand, _mm512_mul_ps(f, _mm512_maskz_loadu_ps(m, cpr + j)));
      const __m512 t = tanh_lanes16(cn);
      _mm512_mask_storeu_ps(gr + j, m, i);
      _mm512_mask_storeu_ps(gr + H + j, m, f);
      _mm512_mask_storeu_ps(gr + 2 * H + j, m, cand);
      _mm512_mask_storeu_ps(gr + 3 * H + j, m, o);
      _mm512_mask_storeu_ps(cr + j, m, cn);
      _mm512_mask_storeu_ps(tr + j, m, t);
      _mm512_mask_storeu_ps(hr + j, m, _mm512_mul_ps(o, t));
    }
  }
}
#undef EMBER_AVX512
#endif  // __AVX512F__
#endif  // __AVX2__ && __FMA__

// The functions of Note [LSTM gate activations in float] one float at a time, for the DEFAULT
// level: the same operations in the same order as the SIMD lanes (an FMA is one rounding either
// way; min/max/compare-and-select as the instructions define them for NaN), so every level gives
// the same bits.
inline float min_lane(float a, float b) { return a < b ? a : b; }  // minps: b when unordered
inline float max_lane(float a, float b) { return a > b ? a : b; }  // maxps: b when unordered
inline float exp_lane(float y) {
  const float n = std::nearbyint(y * 1.44269504088896341f);
  float r = std::fma(-n, 0.693145751953125f, y);
  r = std::fma(-n, 1.428606765330187e-06f, r);
  float p = 1.0f / 5040;
  p = std::fma(p, r, 1.0f / 720);
  p = std::fma(p, r, 1.0f / 120);
  p = std::fma(p, r, 1.0f / 24);
  p = std::fma(p, r, 1.0f / 6);
  p = std::fma(p, r, 0.5f);
  p = std::fma(p, r, 1.0f);
  p = std::fma(p, r, 1.0f);
  // cvtps2dq gives INT_MIN for NaN; the product is NaN then anyway.
  const int32_t ni = std::isnan(n) ? INT32_MIN : static_cast<int32_t>(n);
  const uint32_t bits = static_cast<uint32_t>(ni + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}
inline float sigmoid_lane(float x) {
  const float y = max_lane(-87.0f, min_lane(88.0f, 0.0f - x));
  const float e = x < -88.0f ? std::numeric_limits<float>::infinity() : exp_lane(y);
  return 1.0f / (1.0f + e);
}
inline float tanh_lane(float x) {
  const float ax = std::fabs(x);
  const float x2 = ax * ax;
  float q = 6404582.0f / 10854718875.0f;
  q = std::fma(q, x2, -929569.0f / 638512875.0f);
  q = std::fma(q, x2, 21844.0f / 6081075.0f);
  q = std::fma(q, x2, -1382.0f / 155925.0f);
  q = std::fma(q, x2, 62.0f / 2835.0f);
  q = std::fma(q, x2, -17.0f / 315.0f);
  q = std::fma(q, x2, 2.0f / 15.0f);
  q = std::fma(q, x2, -1.0f / 3.0f);
  const float small = std::fma(ax * x2, q, ax);
  const float capped = min_lane(9.1f, ax);
  const float e = exp_lane(capped + capped);
  const float big = 1.0f - 2.0f / (e + 1.0f);
  const float magnitude = ax < 0.55f ? small : big;
  uint32_t mb, xb;
  std::memcpy(&mb, &magnitude, sizeof mb);
  std::memcpy(&xb, &x, sizeof xb);
  mb |= xb & 0x80000000u;  // the sign of x, or-ed in as the SIMD version does
  float out;
  std::memcpy(&out, &mb, sizeof out);
  return out;
}

void forward_rows_float1(int64_t r0, int64_t r1, int64_t H, const float* xp, const float* bias, const float* hh,
                         const float* cp, float* g, float* c, float* tc, float* h) {
  for (int64_t r = r0; r < r1; ++r) {
    const float* x = xp + r * 4 * H;
    const float* p = hh + r * 4 * H;
    float* gr = g + r * 4 * H;
    const float* cpr = cp + r * H;
    for (int64_t j = 0; j < H; ++j) {
      auto pre = [&](int64_t k) { return (bias ? x[k * H + j] + bias[k * H + j] : x[k * H + j]) + p[k * H + j]; };
      const float i = sigmoid_lane(pre(0));
      const float f = sigmoid_lane(pre(1));
      const float cand = tanh_lane(pre(2));
      const float o = sigmoid_lane(pre(3));
      const float cn = std::fma(i, cand, f * cpr[j]);
      const float t = tanh_lane(cn);
      gr[j] = i;
      gr[H + j] = f;
      gr[2 * H + j] = cand;
      gr[3 * H + j] = o;
      c[r * H + j] = cn;
      tc[r * H + j] = t;
      h[r * H + j] = o * t;
    }
  }
}

template <typename T>
void forward_rows(int64_t r0, int64_t r1, int64_t H, const T* xp, const T* bias, const T* hh, const T* cp, T* g, T* c,
                  T* tc, T* h) {
  for (int64_t r = r0; r < r1; ++r) {
    const T* x = xp + r * 4 * H;
    const T* p = hh + r * 4 * H;
    T* gr = g + r * 4 * H;
    const T* cpr = cp + r * H;
    T* cr = c + r * H;
    T* tr = tc + r * H;
    T* hr = h + r * H;
    int64_t j = 0;
#ifdef EMBER_HAVE_VEC
    using V = ember::pw::Vec<T>;
    for (; j + V::size <= H; j += V::size) {
      auto pre = [&](int64_t k) {
        const V xb = bias ? V::load(x + k * H + j) + V::load(bias + k * H + j) : V::load(x + k * H + j);
        return xb + V::load(p + k * H + j);
      };
      const V i = ember::pw::sigmoid(pre(0));
      const V f = ember::pw::sigmoid(pre(1));
      const V cand = ember::pw::tanh(pre(2));
      const V o = ember::pw::sigmoid(pre(3));
      const V cn = f * V::load(cpr + j) + i * cand;
      const V t = ember::pw::tanh(cn);
      i.store(gr + j);
      f.store(gr + H + j);
      cand.store(gr + 2 * H + j);
      o.store(gr + 3 * H + j);
      cn.store(cr + j);
      t.store(tr + j);
      (o * t).store(hr + j);
    }
#endif
    for (; j < H; ++j) {
      auto pre = [&](int64_t k) { return (bias ? x[k * H + j] + bias[k * H + j] : x[k * H + j]) + p[k * H + j]; };
      const T i = ember::pw::sigmoid(pre(0));
      const T f = ember::pw::sigmoid(pre(1));
      const T cand = ember::pw::tanh(pre(2));
      const T o = ember::pw::sigmoid(pre(3));
      const T cn = f * cpr[j] + i * cand;
      const T t = ember::pw::tanh(cn);
      gr[j] = i;
      gr[H + j] = f;
      gr[2 * H + j] = cand;
      gr[3 * H + j] = o;
      cr[j] = cn;
      tr[j] = t;
      hr[j] = o * t;
    }
  }
}

// Float rows take the functions of Note [LSTM gate activations in float] at every level.
template <typename T>
void forward_pass(int64_t r0, int64_t r1, int64_t H, const T* xp, const T* bias, const T* hh, const T* cp, T* g, T* c,
                  T* tc, T* h) {
  forward_rows<T>(r0, r1, H, xp, bias, hh, cp, g, c, tc, h);
}
void forward_pass(int64_t r0, int64_t r1, int64_t H, const float* xp, const float* bias, const float* hh,
                  const float* cp, float* g, float* c, float* tc, float* h) {
#if defined(__AVX512F__)
  forward_rows_float16(r0, r1, H, xp, bias, hh, cp, g, c, tc, h);
#elif defined(__AVX2__) && defined(__FMA__)
  forward_rows_float(r0, r1, H, xp, bias, hh, cp, g, c, tc, h);
#else
  forward_rows_float1(r0, r1, H, xp, bias, hh, cp, g, c, tc, h);
#endif
}

// The products follow the composed backward's order (Note [Fused LSTM direction]); written once
// for SIMD vectors and scalars (the tail).
template <typename V, typename T, typename Load, typename Store>
inline void backward_unit(int64_t H, const T* gr, const T* cpr, const T* tr, V dh, T* dcr, T* dr, const Load& ld,
                          const Store& st) {
  const V i = ld(gr), f = ld(gr + H), cand = ld(gr + 2 * H), o = ld(gr + 3 * H), t = ld(tr);
  const V dc = ld(dcr) + dh * o * (V(T(1)) - t * t);
  st(dr, dc * cand * i * (V(T(1)) - i));
  st(dr + H, dc * ld(cpr) * f * (V(T(1)) - f));
  st(dr + 2 * H, dc * i * (V(T(1)) - cand * cand));
  st(dr + 3 * H, dh * t * o * (V(T(1)) - o));
  st(dcr, dc * f);
}

template <typename T>
void backward_rows(int64_t r0, int64_t r1, int64_t H, const T* g, const T* cp, const T* tc, const T* dh_in,
                   const T* d_out, T* dc, T* d) {
  for (int64_t r = r0; r < r1; ++r) {
    const T* gr = g + r * 4 * H;
    const T* cpr = cp + r * H;
    const T* tr = tc + r * H;
    const T* dhr = dh_in + r * H;
    const T* dor = d_out ? d_out + r * H : nullptr;
    T* dcr = dc + r * H;
    T* dr = d + r * 4 * H;
    int64_t j = 0;
#ifdef EMBER_HAVE_VEC
    using V = ember::pw::Vec<T>;
    for (; j + V::size <= H; j += V::size) {
      const auto ld = [j](const T* q) { return V::load(q + j); };
      const auto st = [j](T* q, V v) { v.store(q + j); };
      const V dh = dor ? ld(dhr) + ld(dor) : ld(dhr);
      backward_unit<V>(H, gr, cpr, tr, dh, dcr, dr, ld, st);
    }
#endif
    for (; j < H; ++j) {
      const auto ld = [j](const T* q) { return q[j]; };
      const auto st = [j](T* q, T v) { q[j] = v; };
      const T dh = dor ? dhr[j] + dor[j] : dhr[j];
      backward_unit<T>(H, gr, cpr, tr, dh, dcr, dr, ld, st);
    }
  }
}

// Runs body(r0, r1) over [0, n) rows, split across threads when work (elements) is worth it.
template <typename F>
void over_rows(int64_t n, int64_t work, int64_t grain, const F& body) {
  const int64_t per_row = std::max<int64_t>(1, work / std::max<int64_t>(n, 1));
  at::parallel_for(0, n, std::max<int64_t>(1, grain / per_row), body);
}


void forward_impl(const Tensor& x_proj, const Tensor& bias, const Tensor& hh, const Tensor& c_prev, const Tensor& gates,
                       const Tensor& c, const Tensor& tanh_c, const Tensor& h) {
  const int64_t n = c_prev.size(0), H = c_prev.size(1);
  const ScalarType dt = c_prev.scalar_type();
  check_block(x_proj, n, 4 * H, dt, "x_proj");
  if (bias.defined()) check_block(bias.view({1, 4 * H}), 1, 4 * H, dt, "bias");
  check_block(hh, n, 4 * H, dt, "hh");
  check_block(c_prev, n, H, dt, "c_prev");
  check_block(gates, n, 4 * H, dt, "gates");
  check_block(c, n, H, dt, "c");
  check_block(tanh_c, n, H, dt, "tanh_c");
  check_block(h, n, H, dt, "h");
  AT_DISPATCH_FLOATING_TYPES(dt, "lstm_cell_forward", [&] {
    const scalar_t *xp = x_proj.const_data_ptr<scalar_t>(), *pp = hh.const_data_ptr<scalar_t>(), *cp = c_prev.const_data_ptr<scalar_t>();
    const scalar_t* bp = bias.defined() ? bias.const_data_ptr<scalar_t>() : nullptr;
    scalar_t *g = gates._mutable_data_ptr_internal<scalar_t>(), *cc = c._mutable_data_ptr_internal<scalar_t>(), *tc = tanh_c._mutable_data_ptr_internal<scalar_t>(),
             *hp = h._mutable_data_ptr_internal<scalar_t>();
    over_rows(n, n * H, kForwardGrain, [&](int64_t r0, int64_t r1) {
      forward_pass(r0, r1, H, xp, bp, pp, cp, g, cc, tc, hp);
    });
  });
}

void backward_impl(const Tensor& gates, const Tensor& c_prev, const Tensor& tanh_c, const Tensor& dh,
                        const Tensor& d_out, const Tensor& dc, const Tensor& d_gates) {
  const int64_t n = c_prev.size(0), H = c_prev.size(1);
  const ScalarType dt = c_prev.scalar_type();
  check_block(gates, n, 4 * H, dt, "gates");
  check_block(c_prev, n, H, dt, "c_prev");
  check_block(tanh_c, n, H, dt, "tanh_c");
  check_block(dh, n, H, dt, "dh");
  if (d_out.defined()) check_block(d_out, n, H, dt, "d_out");
  check_block(dc, n, H, dt, "dc");
  check_block(d_gates, n, 4 * H, dt, "d_gates");
  AT_DISPATCH_FLOATING_TYPES(dt, "lstm_cell_backward", [&] {
    const scalar_t *g = gates.const_data_ptr<scalar_t>(), *cp = c_prev.const_data_ptr<scalar_t>(), *tc = tanh_c.const_data_ptr<scalar_t>(),
                   *dhp = dh.const_data_ptr<scalar_t>(), *dop = d_out.defined() ? d_out.const_data_ptr<scalar_t>() : nullptr;
    scalar_t *dcp = dc._mutable_data_ptr_internal<scalar_t>(), *d = d_gates._mutable_data_ptr_internal<scalar_t>();
    over_rows(n, n * H, kBackwardGrain,
              [&](int64_t r0, int64_t r1) { backward_rows<scalar_t>(r0, r1, H, g, cp, tc, dhp, dop, dcp, d); });
  });
}

}  // namespace

EMBER_REGISTER_DISPATCH(lstm_cell_forward_stub, &forward_impl);
EMBER_REGISTER_DISPATCH(lstm_cell_backward_stub, &backward_impl);

}  // namespace EMBER_CPU_NS
}  // namespace at::native::cpu
