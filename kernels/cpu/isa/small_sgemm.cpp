// The batched float32 product for small matrices, compiled once per CPU capability level (Note
// [CPU capability levels]); gemm() in kernels/cpu/matmul.cpp decides when to call it.
//
// Note [Small batched sgemm]
// A batch of small products (bmm of 64 x 128 x 128 x 128) spent 96% of its time in oneDNN's brgemm
// kernels and still ran at 81% of the FMA peak against libtorch's (MKL) 86%. Run one at a time from
// L2 (a batch of 2) the same kernels reach 89%: the difference is waiting for each matrix to come
// from L3, since the whole batch (12 MB) does not fit in L2. So this kernel is a plain
// register-blocked AVX-512 loop that prefetches the next matrix of its batch while it computes the
// current one.
//  - b is packed 32 columns at a time (K x 32, zero-padded past N) so that its loads are
//    contiguous, and each tile of 12 rows x 32 columns of c accumulates in 24 registers over all
//    of K (the k loop unrolled by 4), reading a's elements as broadcasts straight from a (row- or
//    column-major).
//  - The panels are double-buffered: while a panel computes, its first two row tiles each copy
//    half of the next panel (the next 32 columns, or the first of the next matrix) inside their k
//    loops, one 64-byte row per k step, beside the FMAs (it still slows those two tiles by ~15%:
//    3.5% of the run, against 4.5% for packing apart). A b that is not row-major is packed
//    between panels instead.
//  - While it runs, each tile issues one prefetch (to L2) per k step for a line of the next
//    matrix's a, then b, then c (its stores then find the lines): one per FMA pair is enough for
//    K >= 48.
//  - The accumulators live in registers from start to store (loops over rows fully unrolled):
//    GCC kept arrays indexed in a runtime loop on the stack, zeroing them with rep stos and
//    spilling them after the k loop.
//  - Every element of c is one float32 chain of FMAs over k = 0..K-1, whatever the blocking, and
//    threads split the batch (never a product), so the result does not depend on the thread count.
// Before the in-tile copy, the unroll by 4 and the register-resident accumulators, perf put 4.5% of
// a 1-thread run in packing b and 3% in the tiles' entry (rep stos) and exit; the kernel alone (a
// driver calling it on the 64 x 128^3 batch, best of 1500) went from 1.74 to 1.65-1.67 ms, and to
// 1.62-1.63 ms with a's broadcasts addressed from five registers (asm, below). Four runs of
// tools/bench/run 'bmm' then gave ratios to libtorch of 0.97, 0.97, 0.98 and 1.01 at 1 thread
// (1.67-1.75 ms against 1.72-1.74) and, in the two at load average ~1, 1.01 and 0.98 at 2: parity
// within the host's run-to-run spread. TODO(#8): the last few percent (the copying tiles, the
// 8-row tail tile of M = 128).
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

// Where a tile prefetches: one line per k step, at base + off[k] (K entries).
struct Prefetch {
  const char* base;
  const int64_t* off;
};

// A copy that rides along a tile's k loop (Note [Small batched sgemm]): for k < K, dst[k * 32 +
// 0..16) = src[k * ld + 0..16), masked (zeros where mask is clear). dst is 64-byte aligned.
struct Copy {
  const float* src;
  int64_t ld;
  float* dst;
  __mmask16 mask;
};

// c[0..R, 0..32) (masked by m0, m1) = alpha * a @ panel + beta * c, and the copy cp when COPY.
// a's element (i, k) is at a[i * lda + k] (A_ROW) or a[k * lda + i]; panel is K x 32, contiguous.
template <int R, bool A_ROW, bool COPY>
__attribute__((flatten)) void tile(const float* a, int64_t lda, const float* panel, float* c, int64_t ldc, int64_t K,
                                   __mmask16 m0, __mmask16 m1, float alpha, float beta, Prefetch pf, Copy cp) {
  __m512 c0[R], c1[R];
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) {
    c0[i] = _mm512_setzero_ps();
    c1[i] = _mm512_setzero_ps();
  }
  const int64_t L = lda * 4;
  const char* q0 = reinterpret_cast<const char*>(a);
  const char *q3 = q0 + 3 * L, *q6 = q0 + 6 * L, *q9 = q0 + 9 * L;
  const char* src = reinterpret_cast<const char*>(cp.src);
  const int64_t src_step = cp.ld * 4;
  float* dst = cp.dst;
  const int64_t* off = pf.off;
  // One k step, D steps past the running pointers.
  const auto step = [&](auto d) __attribute__((always_inline)) {
    constexpr int D = decltype(d)::value;
    _mm_prefetch(pf.base + off[D], _MM_HINT_T1);
    if constexpr (COPY) {
      _mm512_store_ps(dst + D * kNR, _mm512_maskz_loadu_ps(cp.mask, src));
      src += src_step;
    }
    const __m512 b0 = _mm512_load_ps(panel + D * kNR), b1 = _mm512_load_ps(panel + D * kNR + 16);
    const auto row = [&](auto i) __attribute__((always_inline)) {
      constexpr int r = decltype(i)::value;
      __m512 av;
      if constexpr (!A_ROW) {
        av = _mm512_set1_ps(reinterpret_cast<const float*>(q0)[r]);
      } else {
        // Row r of a row-major a is base row 0, 3, 6 or 9 plus 0, 1, 2, 4 or 8 row strides (L
        // bytes), so that every address is base + L * scale + 4 * D: twelve rows from five
        // registers. Written as asm because GCC, given the C++ addresses, kept a register per
        // multiple of L and spilled the loop's pointers (the tile ran 2% slower).
        constexpr int base = r == 0 || r == 1 || r == 2 || r == 4 || r == 8 ? 0
                             : r == 3 || r == 5 || r == 7 || r == 11    ? 3
                             : r == 6 || r == 10                        ? 6
                                                                        : 9;
        constexpr int scale = r - base;
        const char* q = base == 0 ? q0 : base == 3 ? q3 : base == 6 ? q6 : q9;
        if constexpr (scale == 0) asm("vbroadcastss %c2(%1), %0" : "=v"(av) : "r"(q), "i"(4 * D));
        else if constexpr (scale == 1) asm("vbroadcastss %c3(%1,%2,1), %0" : "=v"(av) : "r"(q), "r"(L), "i"(4 * D));
        else if constexpr (scale == 2) asm("vbroadcastss %c3(%1,%2,2), %0" : "=v"(av) : "r"(q), "r"(L), "i"(4 * D));
        else if constexpr (scale == 4) asm("vbroadcastss %c3(%1,%2,4), %0" : "=v"(av) : "r"(q), "r"(L), "i"(4 * D));
        else asm("vbroadcastss %c3(%1,%2,8), %0" : "=v"(av) : "r"(q), "r"(L), "i"(4 * D));
      }
      c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
      c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
    };
    [&]<int... I>(std::integer_sequence<int, I...>) __attribute__((always_inline)) {
      (row(std::integral_constant<int, I>{}), ...);
    }(std::make_integer_sequence<int, R>{});
    if constexpr (!A_ROW) q0 += L;
  };
  // The pointers move once per 4 steps, the steps addressing from them by displacement.
  const auto advance = [&](int n) __attribute__((always_inline)) {
    if constexpr (A_ROW) {
      q0 += 4 * n;
      q3 += 4 * n;
      q6 += 4 * n;
      q9 += 4 * n;
    }
    if constexpr (COPY) dst += n * kNR;
    panel += n * kNR;
    off += n;
  };
  int64_t k = 0;
  for (; k + 4 <= K; k += 4) {
    step(std::integral_constant<int, 0>{});
    step(std::integral_constant<int, 1>{});
    step(std::integral_constant<int, 2>{});
    step(std::integral_constant<int, 3>{});
    advance(4);
  }
  for (; k < K; ++k) {
    step(std::integral_constant<int, 0>{});
    advance(1);
  }
  if (alpha != 1.f) {
    const __m512 va = _mm512_set1_ps(alpha);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      c0[i] = _mm512_mul_ps(c0[i], va);
      c1[i] = _mm512_mul_ps(c1[i], va);
    }
  }
  if (beta != 0.f) {
    const __m512 vb = _mm512_set1_ps(beta);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      c0[i] = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, c + i * ldc), c0[i]);
      c1[i] = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, c + i * ldc + 16), c1[i]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) {
    _mm512_mask_storeu_ps(c + i * ldc, m0, c0[i]);
    _mm512_mask_storeu_ps(c + i * ldc + 16, m1, c1[i]);
  }
}

using tile_fn = void (*)(const float*, int64_t, const float*, float*, int64_t, int64_t, __mmask16, __mmask16, float, float,
                         Prefetch, Copy);

template <bool A_ROW, bool COPY, int... R>
constexpr std::array<tile_fn, sizeof...(R)> tiles_of(std::integer_sequence<int, R...>) {
  return {&tile<R + 1, A_ROW, COPY>...};
}
// tiles[A_ROW][COPY][R - 1]: the tile of R rows.
constexpr std::array<tile_fn, kMR> tiles[2][2] = {
    {tiles_of<false, false>(std::make_integer_sequence<int, kMR>{}), tiles_of<false, true>(std::make_integer_sequence<int, kMR>{})},
    {tiles_of<true, false>(std::make_integer_sequence<int, kMR>{}), tiles_of<true, true>(std::make_integer_sequence<int, kMR>{})}};

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

// The first w (clamped to [0, 16]) lanes.
__mmask16 lanes(int64_t w) { return static_cast<__mmask16>(w >= 16 ? 0xFFFF : w <= 0 ? 0 : (1u << w) - 1); }

// Packs b[:, j0:j0+32) of one matrix (K rows, zeros past N) into panel, K rows of 32.
void pack_panel(const SmallSgemm& p, const float* b, int64_t j0, float* panel) {
  const int64_t w = std::min<int64_t>(kNR, p.N - j0);
  if (p.bsc == 1) {
    const __mmask16 m0 = lanes(w), m1 = lanes(w - 16);
    for (int64_t k = 0; k < p.K; ++k) {
      const float* src = b + k * p.bsr + j0;
      _mm512_store_ps(panel + k * kNR, _mm512_maskz_loadu_ps(m0, src));
      _mm512_store_ps(panel + k * kNR + 16, _mm512_maskz_loadu_ps(m1, src + 16));
    }
    return;
  }
  for (int64_t k = 0; k < p.K; ++k) {
    float* dst = panel + k * kNR;
    int64_t j = 0;
    for (; j < w; ++j) dst[j] = b[k * p.bsr + (j0 + j) * p.bsc];
    for (; j < kNR; ++j) dst[j] = 0.f;
  }
}

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
  const auto& tiles_a_row = tiles[a_row];
  const int64_t panels = (N + kNR - 1) / kNR;
  const bool ride = p.bsc == 1;  // the next panel is copied inside the tiles (else packed between)

  at::parallel_for(0, p.batch, at::internal::grain_for_tasks(p.batch * M * N * K, p.batch), [&](int64_t b0, int64_t b1) {
    alignas(64) float panel[2][kSmallSgemmMaxK * kNR];
    int cur = 0;  // the buffer being computed from; the other receives the next panel
    pack_panel(p, p.b + b0 * p.bsb, 0, panel[cur]);
    for (int64_t bi = b0; bi < b1; ++bi) {
      const float* a = p.a + bi * p.asb;
      const float* b = p.b + bi * p.bsb;
      float* c = p.c + bi * p.csb;
      const bool next = bi + 1 < b1;
      const char* next_a = reinterpret_cast<const char*>(a + p.asb);
      const char* next_b = reinterpret_cast<const char*>(b + p.bsb);
      const char* next_c = reinterpret_cast<const char*>(c + p.csb);
      int64_t t = 0;  // tile number within this matrix (its prefetch share)
      for (int64_t jp = 0; jp < panels; ++jp) {
        const int64_t j0 = jp * kNR, w = std::min<int64_t>(kNR, N - j0);
        const __mmask16 m0 = lanes(w), m1 = lanes(w - 16);
        // The next panel: this matrix's next 32 columns, else the next matrix's first.
        const float* nb = jp + 1 < panels ? b : next ? b + p.bsb : nullptr;
        const int64_t nj0 = jp + 1 < panels ? j0 + kNR : 0, nw = std::min<int64_t>(kNR, N - nj0);
        float* npanel = panel[cur ^ 1];
        int halves = 0;  // halves of the next panel copied so far
        for (int64_t i0 = 0; i0 < M; i0 += kMR, ++t) {
          const int64_t r = std::min<int64_t>(kMR, M - i0);
          const float* ai = a + (a_row ? i0 * p.asr : i0);
          Prefetch pf{reinterpret_cast<const char*>(ai), idle};
          if (next && t < tiles_a) pf = {next_a, lines + t * K};
          else if (next && t < tiles_a + tiles_b) pf = {next_b, lines + t * K};
          else if (next && t < tiles_a + tiles_b + tiles_c) pf = {next_c, lines + t * K};
          const bool copy = ride && nb && halves < 2;
          Copy cp{};
          if (copy) {
            cp = {nb + nj0 + 16 * halves, p.bsr, npanel + 16 * halves, lanes(nw - 16 * halves)};
            ++halves;
          }
          tiles_a_row[copy][r - 1](ai, lda, panel[cur], c + i0 * p.csr + j0, p.csr, K, m0, m1, p.alpha, p.beta, pf, cp);
        }
        if (nb) {
          if (halves < 2) pack_panel(p, nb, nj0, npanel);  // not row-major, or fewer than 2 row tiles
          cur ^= 1;
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
