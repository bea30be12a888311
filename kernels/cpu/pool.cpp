// 2-D and 3-D max pooling on the CPU: max_pool2d_with_indices, max_pool3d_with_indices and their
// backwards.
//
// Plain loops over (N * C) planes, one plane per loop index, so results do not depend on the
// thread count. Indices are flat positions h * W + w (2-D) or (t * H + h) * W + w (3-D) within the
// input plane (libtorch's convention), which the backward scatters the gradient to.
//
// Note [Channels-last pooling]
// A 4-d input whose strides suggest channels-last (conv_utils::suggests_channels_last, as for the
// convolution) is pooled in that layout: the output, the indices and, in the backward, the input
// gradient are channels-last too (sizes NCHW, strides NHWC), as libtorch returns them, so a
// channels-last network does not flip to NCHW (and back, at the next convolution) at every
// pooling layer. The loop runs over output positions with the channels innermost: each tap reads C
// contiguous values. Per channel the taps are scanned in the same order with the same rule, and the
// backward adds each channel's gradients in the same order, so both layouts give the same values,
// indices and gradients.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/Parallel.h>
#include <cmath>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <limits>
#include <type_traits>
#include <vector>

namespace at::native {

namespace {

using conv_utils::MaxPoolGeometry;
using conv_utils::Pool2dGeometry;

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// Note [Max pooling and NaN]
// A NaN in the window is the maximum: the scan takes any element that is greater than the
// running maximum or is NaN, so the last NaN of the window (in row-major order) gives both the
// value and the index. A window of only -inf (or the dtype's lowest value) keeps its first
// element in range. libtorch's CPU kernel picks the same elements.
//
// One loop nest serves 2-D and 3-D pooling: the geometry has three spatial slots (depth, height,
// width), 2-D pooling a depth of 1, and indices are flat positions (t * H + h) * W + w in the
// input plane (h * W + w in 2-D).

/// The taps of one window along one dim: from `lo` (the first tap inside the input) while < `hi`,
/// stepping by the dilation; empty when lo >= hi (every tap falls in the padding).
struct Taps {
  int64_t lo, hi;
};

inline Taps taps(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  int64_t lo = o * s - p;
  const int64_t hi = std::min(lo + (k - 1) * d + 1, in);
  if (lo < 0) lo += ((-lo + d - 1) / d) * d;
  return {lo, hi};
}

// Note [2x2 max pooling fast path]
// The 2x2 / stride 2 window without padding or dilation (every CNN's pooling; a third of the main
// job's time went through the general loop nest, which recomputes each window's taps) has its
// four taps inside the input whenever 2 * OH <= H and 2 * OW <= W: each output then reads two
// pairs of neighbours, in the same row-major order and with the same rule as the general scan
// (Note [Max pooling and NaN]), so both give the same values and indices. Starting from the first
// tap instead of -inf changes nothing: the scan takes the first tap unless it is the lowest value,
// and then the value is the same and the index is the first tap's too.
template <typename T>
bool max_pool_2x2_fast(const MaxPoolGeometry& g, const T* x, T* y, int64_t* ind) {
  if (g.in[0] != 1 || g.k[0] != 1 || g.k[1] != 2 || g.k[2] != 2 || g.s[1] != 2 || g.s[2] != 2 || g.p[1] != 0 ||
      g.p[2] != 0 || g.d[1] != 1 || g.d[2] != 1 || 2 * g.out[1] > g.in[1] || 2 * g.out[2] > g.in[2] ||
      g.in[1] * g.in[2] > std::numeric_limits<int32_t>::max())
    return false;
  const int64_t H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const int64_t grain = at::internal::grain_for_tasks(g.planes * g.out_plane() * 4, g.planes);
  at::parallel_for(0, g.planes, grain, [=](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * H * W;
      T* yp = y + p * OH * OW;
      int64_t* ip = ind + p * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t r0 = 2 * oh * W, r1 = r0 + W;
        T* yr = yp + oh * OW;
        int64_t* ir = ip + oh * OW;
        int64_t ow = 0;
#if defined(__SSE2__)
        if constexpr (std::is_same_v<T, float>) {
          // Four outputs at a time with SSE2 (the x86-64 baseline): the even and odd taps of two
          // rows, compared and selected lane by lane exactly as the scalar loop below does.
          // Positions in int32 lanes: a plane's H * W fits (checked by the caller).
          const __m128i lane = _mm_setr_epi32(0, 2, 4, 6), one = _mm_set1_epi32(1);
          const __m128i wv = _mm_set1_epi32(static_cast<int32_t>(W)), zero = _mm_setzero_si128();
          // Four windows whose rows start at ra and rb (W floats apart in the input), the first
          // at input position `pos`.
          auto four = [&](const float* ra, const float* rb, int64_t pos, __m128& best, __m128i& at) {
            const __m128 a0 = _mm_loadu_ps(ra), a1 = _mm_loadu_ps(ra + 4);
            const __m128 b0 = _mm_loadu_ps(rb), b1 = _mm_loadu_ps(rb + 4);
            const __m128 v0 = _mm_shuffle_ps(a0, a1, _MM_SHUFFLE(2, 0, 2, 0));
            const __m128 v1 = _mm_shuffle_ps(a0, a1, _MM_SHUFFLE(3, 1, 3, 1));
            const __m128 v2 = _mm_shuffle_ps(b0, b1, _MM_SHUFFLE(2, 0, 2, 0));
            const __m128 v3 = _mm_shuffle_ps(b0, b1, _MM_SHUFFLE(3, 1, 3, 1));
            const __m128i i0 = _mm_add_epi32(_mm_set1_epi32(static_cast<int32_t>(pos)), lane);
            const __m128i i1 = _mm_add_epi32(i0, one), i2 = _mm_add_epi32(i0, wv), i3 = _mm_add_epi32(i2, one);
            best = v0;
            at = i0;
            auto take = [&](__m128 v, __m128i i) {
              const __m128 m = _mm_or_ps(_mm_cmpgt_ps(v, best), _mm_cmpunord_ps(v, v));
              best = _mm_or_ps(_mm_and_ps(m, v), _mm_andnot_ps(m, best));
              const __m128i mi = _mm_castps_si128(m);
              at = _mm_or_si128(_mm_and_si128(mi, i), _mm_andnot_si128(mi, at));
            };
            take(v1, i1);
            take(v2, i2);
            take(v3, i3);
          };
          __m128 best;
          __m128i at;
          for (; ow + 4 <= OW; ow += 4) {
            four(xp + r0 + 2 * ow, xp + r1 + 2 * ow, r0 + 2 * ow, best, at);
            _mm_storeu_ps(yr + ow, best);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(ir + ow), _mm_unpacklo_epi32(at, zero));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(ir + ow + 2), _mm_unpackhi_epi32(at, zero));
          }
          if (ow < OW) {  // the last 1-3 windows, through zero-padded copies of their taps
            const int64_t n = OW - ow;
            alignas(16) float ta[8] = {}, tb[8] = {}, yv[4];
            alignas(16) int32_t iv[4];
            for (int64_t j = 0; j < 2 * n; ++j) ta[j] = xp[r0 + 2 * ow + j], tb[j] = xp[r1 + 2 * ow + j];
            four(ta, tb, r0 + 2 * ow, best, at);
            _mm_store_ps(yv, best);
            _mm_store_si128(reinterpret_cast<__m128i*>(iv), at);
            for (int64_t j = 0; j < n; ++j) yr[ow + j] = yv[j], ir[ow + j] = iv[j];
            ow = OW;
          }
        }
#endif
        for (; ow < OW; ++ow) {
          const int64_t c = 2 * ow;
          T best = xp[r0 + c];
          int64_t at = r0 + c;
          const T v1 = xp[r0 + c + 1], v2 = xp[r1 + c], v3 = xp[r1 + c + 1];
          // Selects, not branches: on real data the winner is a coin toss, and mispredicted
          // branches made this loop cost 18 ns per output.
          const bool t1 = (v1 > best) | is_nan(v1);
          best = t1 ? v1 : best;
          at = t1 ? r0 + c + 1 : at;
          const bool t2 = (v2 > best) | is_nan(v2);
          best = t2 ? v2 : best;
          at = t2 ? r1 + c : at;
          const bool t3 = (v3 > best) | is_nan(v3);
          best = t3 ? v3 : best;
          at = t3 ? r1 + c + 1 : at;
          yr[ow] = best;
          ir[ow] = at;
        }
      }
    }
  });
  return true;
}

template <typename T>
void max_pool_forward(const MaxPoolGeometry& g, const T* x, T* y, int64_t* ind) {
  if (max_pool_2x2_fast(g, x, y, ind)) return;  // Note [2x2 max pooling fast path]
  const int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t H = g.in[1], W = g.in[2];
  const int64_t window = g.k[0] * g.k[1] * g.k[2];
  const int64_t grain = at::internal::grain_for_tasks(g.planes * g.out_plane() * window, g.planes);
  at::parallel_for(0, g.planes, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * g.in_plane();
      T* yp = y + p * g.out_plane();
      int64_t* ip = ind + p * g.out_plane();
      for (int64_t od = 0; od < OD; ++od) {
        const Taps td = taps(od, g.in[0], g.k[0], g.s[0], g.p[0], g.d[0]);
        for (int64_t oh = 0; oh < OH; ++oh) {
          const Taps th = taps(oh, H, g.k[1], g.s[1], g.p[1], g.d[1]);
          for (int64_t ow = 0; ow < OW; ++ow) {
            const Taps tw = taps(ow, W, g.k[2], g.s[2], g.p[2], g.d[2]);
            int64_t best = (td.lo * H + th.lo) * W + tw.lo;
            T bestv = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                           : std::numeric_limits<T>::lowest();
            for (int64_t t = td.lo; t < td.hi; t += g.d[0]) {
              for (int64_t h = th.lo; h < th.hi; h += g.d[1]) {
                for (int64_t w = tw.lo; w < tw.hi; w += g.d[2]) {
                  const int64_t pos = (t * H + h) * W + w;
                  const T v = xp[pos];
                  if (v > bestv || is_nan(v)) {
                    bestv = v;
                    best = pos;
                  }
                }
              }
            }
            // A window whose taps all fall in the padding (a large dilation can skip over the
            // input) has no element: it gives the lowest value and index -1, which the backward
            // skips.
            const bool empty = td.lo >= td.hi || th.lo >= th.hi || tw.lo >= tw.hi;
            const int64_t o = (od * OH + oh) * OW + ow;
            yp[o] = empty ? bestv : xp[best];
            ip[o] = empty ? -1 : best;
          }
        }
      }
    }
  });
}

template <typename T>
void max_pool_backward(const MaxPoolGeometry& g, const T* gy, const int64_t* ind, T* gx) {
  const int64_t plane = g.in_plane(), out = g.out_plane();
  const int64_t grain = at::internal::grain_for_tasks(g.planes * out, g.planes);
  at::parallel_for(0, g.planes, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* gxp = gx + p * plane;
      for (int64_t o = 0; o < out; ++o) {
        const int64_t i = ind[p * out + o];
        if (i >= 0 && i < plane) gxp[i] += gy[p * out + o];
      }
    }
  });
}

// Channels-last (Note [Channels-last pooling]): tasks are (image, block of kChannelBlock channels).
constexpr int64_t kChannelBlock = 64;

// One output position's window over channels [0, cn) of a channels-last image `x` (C channels):
// float channels four at a time with SSE2 (the x86-64 baseline), positions in int32 lanes (a
// plane's H * W fits: checked by the caller), the rest one by one; the same rule and tap order as
// the NCHW scan (Note [Max pooling and NaN]).
template <typename T>
inline void max_window_cl(const T* x, int64_t C, int64_t W, Taps th, Taps tw, int64_t dh, int64_t dw, T lowest,
                          int64_t first, int64_t cn, bool narrow, T* yo, int64_t* io) {
  int64_t c = 0;
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, float>) {
    if (narrow) {
      const __m128i zero = _mm_setzero_si128();
      for (; c + 4 <= cn; c += 4) {
        __m128 best = _mm_set1_ps(lowest);
        __m128i at = _mm_set1_epi32(static_cast<int32_t>(first));
        for (int64_t h = th.lo; h < th.hi; h += dh) {
          for (int64_t w = tw.lo; w < tw.hi; w += dw) {
            const __m128 v = _mm_loadu_ps(x + (h * W + w) * C + c);
            const __m128 m = _mm_or_ps(_mm_cmpgt_ps(v, best), _mm_cmpunord_ps(v, v));
            const __m128i mi = _mm_castps_si128(m), pos = _mm_set1_epi32(static_cast<int32_t>(h * W + w));
            best = _mm_or_ps(_mm_and_ps(m, v), _mm_andnot_ps(m, best));
            at = _mm_or_si128(_mm_and_si128(mi, pos), _mm_andnot_si128(mi, at));
          }
        }
        _mm_storeu_ps(yo + c, best);
        // Positions are >= -1: sign-extend through a comparison with zero.
        const __m128i sign = _mm_cmpgt_epi32(zero, at);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(io + c), _mm_unpacklo_epi32(at, sign));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(io + c + 2), _mm_unpackhi_epi32(at, sign));
      }
    }
  }
#endif
  for (; c < cn; ++c) {
    T best = lowest;
    int64_t at = first;
    for (int64_t h = th.lo; h < th.hi; h += dh) {
      for (int64_t w = tw.lo; w < tw.hi; w += dw) {
        const T v = x[(h * W + w) * C + c];
        const bool take = v > best || is_nan(v);
        best = take ? v : best;
        at = take ? h * W + w : at;
      }
    }
    yo[c] = best;
    io[c] = at;
  }
}

// The 2x2 / stride 2 window without padding or dilation, every tap inside (as for Note [2x2 max
// pooling fast path]), channels-last: four loads per four channels, no tap bounds; the same scan
// order and rule as max_window_cl.
template <typename T>
bool max_pool_2x2_cl(const MaxPoolGeometry& g, int64_t N, int64_t C, const T* x, T* y, int64_t* ind) {
  if (g.in[0] != 1 || g.k[1] != 2 || g.k[2] != 2 || g.s[1] != 2 || g.s[2] != 2 || g.p[1] != 0 || g.p[2] != 0 ||
      g.d[1] != 1 || g.d[2] != 1 || 2 * g.out[1] > g.in[1] || 2 * g.out[2] > g.in[2] ||
      g.in[1] * g.in[2] > std::numeric_limits<int32_t>::max())
    return false;
  const int64_t H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  at::parallel_for(0, N * OH, at::internal::grain_for_tasks(N * OH * OW * C * 4, N * OH), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / OH, oh = r % OH;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t pos = 2 * oh * W + 2 * ow;
        const T* p0 = x + (n * H * W + pos) * C;
        const T *p1 = p0 + C, *p2 = p0 + W * C, *p3 = p2 + C;
        T* yo = y + (r * OW + ow) * C;
        int64_t* io = ind + (r * OW + ow) * C;
        int64_t c = 0;
#if defined(__SSE2__)
        if constexpr (std::is_same_v<T, float>) {
          const __m128i zero = _mm_setzero_si128();
          const __m128i i0 = _mm_set1_epi32(static_cast<int32_t>(pos)), i1 = _mm_set1_epi32(static_cast<int32_t>(pos + 1));
          const __m128i i2 = _mm_set1_epi32(static_cast<int32_t>(pos + W)), i3 = _mm_set1_epi32(static_cast<int32_t>(pos + W + 1));
          for (; c + 4 <= C; c += 4) {
            __m128 best = _mm_loadu_ps(p0 + c);
            __m128i at = i0;
            auto take = [&](__m128 v, __m128i i) {
              const __m128 m = _mm_or_ps(_mm_cmpgt_ps(v, best), _mm_cmpunord_ps(v, v));
              const __m128i mi = _mm_castps_si128(m);
              best = _mm_or_ps(_mm_and_ps(m, v), _mm_andnot_ps(m, best));
              at = _mm_or_si128(_mm_and_si128(mi, i), _mm_andnot_si128(mi, at));
            };
            take(_mm_loadu_ps(p1 + c), i1);
            take(_mm_loadu_ps(p2 + c), i2);
            take(_mm_loadu_ps(p3 + c), i3);
            _mm_storeu_ps(yo + c, best);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(io + c), _mm_unpacklo_epi32(at, zero));  // positions >= 0
            _mm_storeu_si128(reinterpret_cast<__m128i*>(io + c + 2), _mm_unpackhi_epi32(at, zero));
          }
        }
#endif
        for (; c < C; ++c) {
          T best = p0[c];
          int64_t at = pos;
          const T v[3] = {p1[c], p2[c], p3[c]};
          const int64_t q[3] = {pos + 1, pos + W, pos + W + 1};
          for (int k = 0; k < 3; ++k) {
            const bool take = v[k] > best || is_nan(v[k]);
            best = take ? v[k] : best;
            at = take ? q[k] : at;
          }
          yo[c] = best;
          io[c] = at;
        }
      }
    }
  });
  return true;
}

template <typename T>
void max_pool_forward_cl(const MaxPoolGeometry& g, int64_t N, int64_t C, const T* x, T* y, int64_t* ind) {
  if (max_pool_2x2_cl(g, N, C, x, y, ind)) return;
  const int64_t H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const int64_t blocks = (C + kChannelBlock - 1) / kChannelBlock, tasks = N * blocks;
  const int64_t grain = at::internal::grain_for_tasks(N * C * OH * OW * g.k[1] * g.k[2], tasks);
  const T lowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  const bool narrow = H * W <= std::numeric_limits<int32_t>::max();
  at::parallel_for(0, tasks, grain, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / blocks, c0 = (t % blocks) * kChannelBlock, cn = std::min(kChannelBlock, C - c0);
      const T* xn = x + n * H * W * C + c0;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const Taps th = taps(oh, H, g.k[1], g.s[1], g.p[1], g.d[1]);
        for (int64_t ow = 0; ow < OW; ++ow) {
          const Taps tw = taps(ow, W, g.k[2], g.s[2], g.p[2], g.d[2]);
          const int64_t o = ((n * OH + oh) * OW + ow) * C + c0;
          // A window whose every tap is in the padding keeps the lowest value and index -1.
          const bool empty = th.lo >= th.hi || tw.lo >= tw.hi;
          max_window_cl(xn, C, W, th, tw, g.d[1], g.d[2], lowest, empty ? -1 : th.lo * W + tw.lo, cn, narrow, y + o, ind + o);
        }
      }
    }
  });
}

template <typename T>
void max_pool_backward_cl(const MaxPoolGeometry& g, int64_t N, int64_t C, const T* gy, const int64_t* ind, T* gx) {
  const int64_t plane = g.in_plane(), out = g.out_plane();
  const int64_t blocks = (C + kChannelBlock - 1) / kChannelBlock, tasks = N * blocks;
  at::parallel_for(0, tasks, at::internal::grain_for_tasks(N * C * out, tasks), [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / blocks, c0 = (t % blocks) * kChannelBlock, cn = std::min(kChannelBlock, C - c0);
      T* gxn = gx + n * plane * C + c0;
      for (int64_t o = 0; o < out; ++o) {
        const int64_t at = (n * out + o) * C + c0;
        for (int64_t c = 0; c < cn; ++c) {
          const int64_t i = ind[at + c];
          if (i >= 0 && i < plane) gxn[i * C + c] += gy[at + c];
        }
      }
    }
  });
}

// Pooling in channels-last (Note [Channels-last pooling]): a 4-d input whose strides suggest it.
bool pool_channels_last(const Tensor& self, const MaxPoolGeometry& g) {
  return self.dim() == 4 && g.in[0] == 1 && conv_utils::suggests_channels_last(self);
}

Tensor empty_channels_last(IntArrayRef sizes, const TensorOptions& options) {
  const int64_t C = std::max<int64_t>(sizes[1], 1), H = std::max<int64_t>(sizes[2], 1), W = std::max<int64_t>(sizes[3], 1);
  return at::empty_strided(sizes, {H * W * C, 1, W * C, C}, options);
}

std::tuple<Tensor, Tensor> run_max_pool(const char* op, const Tensor& self, const MaxPoolGeometry& g,
                                        const std::vector<int64_t>& shape) {
  EMBER_CHECK(self.is_cpu(), "[", op, "] expected a CPU tensor; got one on ", self.device());
  if (pool_channels_last(self, g)) {
    const Tensor x = self.contiguous(MemoryFormat::ChannelsLast);
    Tensor y = empty_channels_last(shape, self.options());
    Tensor ind = empty_channels_last(shape, self.options().dtype(kLong));
    AT_DISPATCH_ALL_TYPES(x.scalar_type(), op, [&] {
      max_pool_forward_cl<scalar_t>(g, self.size(0), self.size(1), x.const_data_ptr<scalar_t>(), y._mutable_data_ptr_internal<scalar_t>(),
                                    ind._mutable_data_ptr_internal<int64_t>());
    });
    return {y, ind};
  }
  const Tensor x = self.contiguous();
  Tensor y = at::empty(shape, self.options());
  Tensor ind = at::empty(shape, self.options().dtype(kLong));
  AT_DISPATCH_ALL_TYPES(x.scalar_type(), op, [&] {
    max_pool_forward<scalar_t>(g, x.const_data_ptr<scalar_t>(), y._mutable_data_ptr_internal<scalar_t>(), ind._mutable_data_ptr_internal<int64_t>());
  });
  return {y, ind};
}

Tensor run_max_pool_backward(const char* op, const Tensor& grad_output, const Tensor& self, const Tensor& indices,
                             const MaxPoolGeometry& g) {
  EMBER_CHECK(self.is_cpu() && grad_output.is_cpu() && indices.is_cpu(), "[", op, "] expected CPU tensors");
  if (pool_channels_last(self, g)) {
    const Tensor gy = grad_output.contiguous(MemoryFormat::ChannelsLast), ind = indices.contiguous(MemoryFormat::ChannelsLast);
    Tensor gx = empty_channels_last(self.sizes(), self.options());
    gx.zero_();
    AT_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
      max_pool_backward_cl<scalar_t>(g, self.size(0), self.size(1), gy.const_data_ptr<scalar_t>(), ind.const_data_ptr<int64_t>(),
                                     gx._mutable_data_ptr_internal<scalar_t>());
    });
    return gx;
  }
  const Tensor gy = grad_output.contiguous(), ind = indices.contiguous();
  Tensor gx = at::zeros(self.sizes(), self.options());
  AT_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    max_pool_backward<scalar_t>(g, gy.const_data_ptr<scalar_t>(), ind.const_data_ptr<int64_t>(), gx._mutable_data_ptr_internal<scalar_t>());
  });
  return gx;
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d_with_indices";
  const Pool2dGeometry g = conv_utils::check_max_pool2d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  return run_max_pool(op, self, conv_utils::as_max_pool_geometry(g), conv_utils::pooled_shape(self, g));
}

Tensor max_pool2d_with_indices_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                            const Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const Pool2dGeometry g = conv_utils::check_max_pool2d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  conv_utils::check_max_pool2d_backward(op, grad_output, self, indices, g);
  return run_max_pool_backward(op, grad_output, self, indices, conv_utils::as_max_pool_geometry(g));
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool3d_with_indices";
  const MaxPoolGeometry g = conv_utils::check_max_pool3d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  return run_max_pool(op, self, g, conv_utils::pooled_shape(self, g));
}

Tensor max_pool3d_with_indices_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                            const Tensor& indices) {
  const char* op = "max_pool3d_with_indices_backward";
  const MaxPoolGeometry g = conv_utils::check_max_pool3d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  conv_utils::check_max_pool3d_backward(op, grad_output, self, indices, g);
  return run_max_pool_backward(op, grad_output, self, indices, g);
}

}  // namespace at::native
