// The batched float32 product for small matrices, compiled once per CPU capability level (Note
// [CPU capability levels]); gemm() in kernels/cpu/matmul.cpp decides when to call it.
//
// Note [Small batched sgemm]
// A batch of small products (bmm of 64 x 128 x 128 x 128) spent 96% of its time in oneDNN's brgemm
// kernels and still ran at 81% of the FMA peak against libtorch's (MKL) 86%. Run one at a time from
// L2 (a batch of 2) the same kernels reach 89%: the difference is waiting for each matrix to come
// from L3, since the whole batch (12 MB) does not fit in L2. So this kernel is a plain
// register-blocked AVX-512 loop that prefetches the next matrix of its batch while it computes the
// current one (tools/bench/run 'bmm': 1 thread 1.79-1.85 ms from 1.87-1.96 ms, libtorch 1.71-1.83
// ms, a ratio of 1.01-1.05; 2 threads 934-970 us from 959 us-1.02 ms, libtorch 967 us-1.22 ms).
//  - Per matrix: b is packed 32 columns at a time (K x 32, zero-padded past N) so that its loads
//    are contiguous, and each tile of 12 rows x 32 columns of c accumulates in 24 registers over
//    all of K, reading a's elements as broadcasts straight from a (row- or column-major).
//  - While it runs, each tile issues one prefetch (to L2) per k step for a line of the next
//    matrix's a, then b, then c (its stores then find the lines): one per FMA pair is enough for
//    K >= 48.
//  - Every element of c is one float32 chain of FMAs over k = 0..K-1, whatever the blocking, and
//    threads split the batch (never a product), so the result does not depend on the thread count.
// Levels below AVX512 register a kernel that declines, and gemm() takes oneDNN.
#include "../small_sgemm.h"
#include <ATen/Parallel.h>
#include <algorithm>
#include <array>
#include <utility>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace at::native {
namespace EMBER_CPU_NS {  // Note [CPU capability levels]
namespace {
#if defined(__AVX512F__)
constexpr int kMR = 12, kNR = 32;
#define EMBER_SGEMM_INLINE __attribute__((always_inline)) inline
#define EMBER_SGEMM_INLINE_LAMBDA __attribute__((always_inline))

// Where a tile prefetches: one line per k step, at base + off[k] (K entries).
struct Prefetch {
  const char* base;
  const int64_t* off;
};

// Element (I, k) of a row-major a for the current k: row I of 12 from four running pointers (rows
// 0, 3, 6, 9) and the row stride L in bytes, so that every address is base + index * {1, 2, 4, 8}
// and twelve rows need no twelve registers.
template <int I>
EMBER_SGEMM_INLINE const float* row_of(const char* q0, const char* q3, const char* q6, const char* q9, int64_t L) {
  if constexpr (I == 0) return reinterpret_cast<const float*>(q0);
  else if constexpr (I == 1) return reinterpret_cast<const float*>(q0 + L);
  else if constexpr (I == 2) return reinterpret_cast<const float*>(q0 + L * 2);
  else if constexpr (I == 3) return reinterpret_cast<const float*>(q3);
  else if constexpr (I == 4) return reinterpret_cast<const float*>(q0 + L * 4);
  else if constexpr (I == 5) return reinterpret_cast<const float*>(q3 + L * 2);
  else if constexpr (I == 6) return reinterpret_cast<const float*>(q6);
  else if constexpr (I == 7) return reinterpret_cast<const float*>(q3 + L * 4);
  else if constexpr (I == 8) return reinterpret_cast<const float*>(q0 + L * 8);
  else if constexpr (I == 9) return reinterpret_cast<const float*>(q9);
  else if constexpr (I == 10) return reinterpret_cast<const float*>(q6 + L * 4);
  else return reinterpret_cast<const float*>(q3 + L * 8);
}

template <bool A_ROW, int... I>
EMBER_SGEMM_INLINE void fma_rows(const char* q0, const char* q3, const char* q6, const char* q9, int64_t L, __m512 b0, __m512 b1,
                                 __m512* c0, __m512* c1, std::integer_sequence<int, I...>) {
  const auto one = [&](auto i) EMBER_SGEMM_INLINE_LAMBDA {
    constexpr int r = decltype(i)::value;
    const float* e = A_ROW ? row_of<r>(q0, q3, q6, q9, L) : reinterpret_cast<const float*>(q0) + r;
    const __m512 av = _mm512_set1_ps(*e);
    c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
    c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
  };
  (one(std::integral_constant<int, I>{}), ...);
}

// c[0..R, 0..32) (masked by m0, m1) = alpha * a @ panel + beta * c. a's element (i, k) is at
// a[i * lda + k] (A_ROW) or a[k * lda + i]; panel is K x 32, contiguous.
template <int R, bool A_ROW>
__attribute__((flatten)) void tile(const float* a, int64_t lda, const float* panel, float* c, int64_t ldc, int64_t K,
                                   __mmask16 m0, __mmask16 m1, float alpha, float beta, Prefetch pf) {
  __m512 c0[R], c1[R];
  for (int i = 0; i < R; ++i) {
    c0[i] = _mm512_setzero_ps();
    c1[i] = _mm512_setzero_ps();
  }
  const int64_t L = lda * 4;
  const char* q0 = reinterpret_cast<const char*>(a);
  const char *q3 = q0 + 3 * L, *q6 = q0 + 6 * L, *q9 = q0 + 9 * L;
  const int64_t step = A_ROW ? 4 : L;  // bytes from k to k + 1
  for (int64_t k = 0; k < K; ++k) {
    _mm_prefetch(pf.base + pf.off[k], _MM_HINT_T1);
    const __m512 b0 = _mm512_load_ps(panel), b1 = _mm512_load_ps(panel + 16);
    fma_rows<A_ROW>(q0, q3, q6, q9, L, b0, b1, c0, c1, std::make_integer_sequence<int, R>{});
    q0 += step;
    if constexpr (A_ROW) {
      q3 += step;
      q6 += step;
      q9 += step;
    }
    panel += kNR;
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  for (int i = 0; i < R; ++i) {
    float* row = c + i * ldc;
    __m512 r0 = c0[i], r1 = c1[i];
    if (alpha != 1.f) {
      r0 = _mm512_mul_ps(r0, va);
      r1 = _mm512_mul_ps(r1, va);
    }
    if (beta != 0.f) {
      r0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, row), r0);
      r1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, row + 16), r1);
    }
    _mm512_mask_storeu_ps(row, m0, r0);
    _mm512_mask_storeu_ps(row + 16, m1, r1);
  }
}

using tile_fn = void (*)(const float*, int64_t, const float*, float*, int64_t, int64_t, __mmask16, __mmask16, float, float,
                         Prefetch);

template <bool A_ROW, int... R>
constexpr std::array<tile_fn, sizeof...(R)> tiles_of(std::integer_sequence<int, R...>) {
  return {&tile<R + 1, A_ROW>...};
}
// tiles_*[R - 1]: the tile of R rows.
constexpr std::array<tile_fn, kMR> tiles_col = tiles_of<false>(std::make_integer_sequence<int, kMR>{});
constexpr std::array<tile_fn, kMR> tiles_row = tiles_of<true>(std::make_integer_sequence<int, kMR>{});

// Byte offsets of the cache lines of an `outer` x `inner` matrix (inner contiguous, outer stride
// `ld` elements) from its first element, written from out[n] on: each run of `inner` floats is
// covered from its start, with one line more for a run that does not start on a line. Returns the
// new count.
int64_t add_lines(int64_t* out, int64_t n, int64_t outer, int64_t inner, int64_t ld) {
  const int64_t lines = (inner * 4 + 63) / 64 + 1;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t l = 0; l < lines; ++l) out[n++] = o * ld * 4 + std::min(l * 64, inner * 4 - 4);
  return n;
}
int64_t lines_of(int64_t outer, int64_t inner) { return outer * ((inner * 4 + 63) / 64 + 1); }

// An int64 array on the heap (no std::vector here: its out-of-line members would be compiled with
// this level's flags, see Note [CPU capability levels]).
struct Offsets {
  int64_t* p;
  explicit Offsets(int64_t n) : p(new int64_t[static_cast<size_t>(n)]()) {}
  ~Offsets() { delete[] p; }
  Offsets(const Offsets&) = delete;
  Offsets& operator=(const Offsets&) = delete;
};

bool small_sgemm(const SmallSgemm& p) {
  const int64_t M = p.M, N = p.N, K = p.K;
  if (K > kSmallSgemmMaxK || K <= 0) return false;
  const bool a_row = p.asc == 1;
  const int64_t lda = a_row ? p.asr : p.asc;
  // Lines of the next matrix's a, then of its b, padded to whole tiles of K, then K zeros (tiles
  // past them prefetch their own rows of a, already in cache).
  const int64_t na = a_row ? lines_of(M, K) : lines_of(K, M), nb = p.bsc == 1 ? lines_of(K, N) : lines_of(N, K);
  const int64_t tiles_a = (na + K - 1) / K, tiles_b = (nb + K - 1) / K, tiles_c = (lines_of(M, N) + K - 1) / K;
  Offsets offsets((tiles_a + tiles_b + tiles_c + 1) * K);  // zero-filled
  int64_t* lines = offsets.p;
  if (a_row) add_lines(lines, 0, M, K, p.asr); else add_lines(lines, 0, K, M, p.asc);
  if (p.bsc == 1) add_lines(lines, tiles_a * K, K, N, p.bsr); else add_lines(lines, tiles_a * K, N, K, p.bsc);
  add_lines(lines, (tiles_a + tiles_b) * K, M, N, p.csr);
  const int64_t* idle = lines + (tiles_a + tiles_b + tiles_c) * K;
  const tile_fn* tiles = a_row ? tiles_row.data() : tiles_col.data();

  at::parallel_for(0, p.batch, at::internal::grain_for_tasks(p.batch * M * N * K, p.batch), [&](int64_t b0, int64_t b1) {
    alignas(64) float panel[kSmallSgemmMaxK * kNR];
    for (int64_t bi = b0; bi < b1; ++bi) {
      const float* a = p.a + bi * p.asb;
      const float* b = p.b + bi * p.bsb;
      float* c = p.c + bi * p.csb;
      const bool next = bi + 1 < b1;
      const char* next_a = reinterpret_cast<const char*>(a + p.asb);
      const char* next_b = reinterpret_cast<const char*>(b + p.bsb);
      const char* next_c = reinterpret_cast<const char*>(c + p.csb);
      int64_t t = 0;  // tile number within this matrix (its prefetch share)
      for (int64_t j0 = 0; j0 < N; j0 += kNR) {
        const int64_t w = std::min<int64_t>(kNR, N - j0);
        // Pack b[:, j0:j0+w] as K rows of 32, zeros past w.
        if (p.bsc == 1 && w == kNR) {
          for (int64_t k = 0; k < K; ++k) {
            const float* src = b + k * p.bsr + j0;
            _mm512_store_ps(panel + k * kNR, _mm512_loadu_ps(src));
            _mm512_store_ps(panel + k * kNR + 16, _mm512_loadu_ps(src + 16));
          }
        } else {
          for (int64_t k = 0; k < K; ++k) {
            float* dst = panel + k * kNR;
            int64_t j = 0;
            for (; j < w; ++j) dst[j] = b[k * p.bsr + (j0 + j) * p.bsc];
            for (; j < kNR; ++j) dst[j] = 0.f;
          }
        }
        const __mmask16 m0 = static_cast<__mmask16>(w >= 16 ? 0xFFFF : (1u << w) - 1);
        const __mmask16 m1 = static_cast<__mmask16>(w >= 32 ? 0xFFFF : w <= 16 ? 0 : (1u << (w - 16)) - 1);
        for (int64_t i0 = 0; i0 < M; i0 += kMR, ++t) {
          const int64_t r = std::min<int64_t>(kMR, M - i0);
          const float* ai = a + (a_row ? i0 * p.asr : i0);
          Prefetch pf{reinterpret_cast<const char*>(ai), idle};
          if (next && t < tiles_a) pf = {next_a, lines + t * K};
          else if (next && t < tiles_a + tiles_b) pf = {next_b, lines + t * K};
          else if (next && t < tiles_a + tiles_b + tiles_c) pf = {next_c, lines + t * K};
          tiles[r - 1](ai, lda, panel, c + i0 * p.csr + j0, p.csr, K, m0, m1, p.alpha, p.beta, pf);
        }
      }
    }
  });
  return true;
}
#else
bool small_sgemm(const SmallSgemm&) { return false; }
#endif
}  // namespace

EMBER_REGISTER_DISPATCH(small_sgemm_stub, &small_sgemm);

}  // namespace EMBER_CPU_NS
}  // namespace at::native
