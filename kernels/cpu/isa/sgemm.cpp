// Ember's own blocked float32 product for large single matrices, compiled once per CPU capability
// level (Note [CPU capability levels]); gemm() in kernels/cpu/matmul.cpp decides when to call it.
//
// Note [Blocked sgemm]
// Below AVX-512, oneDNN 2.x has no float32 brgemm: its matmul is the jit sgemm, which ran mm 1024
// and 2048 at 81-84% of this machine's FMA peak where libtorch's MKL ran at 85-88% (docs/
// benchmarks.md, the AVX2 host). This is the classic five-loop blocking (Goto's algorithm, as BLIS
// arranges it) around a 6 x 16 register tile:
//  - jc over N in kNC columns, pc over K in kKC steps: b[pc.., jc..] is packed into panels of
//    kKC x 16, contiguous, zero-padded past N (in L2/L3; each panel's 16 KiB then streams through
//    L1 once per block of a);
//  - ic over M in kMC rows: a[ic.., pc..] is packed into panels of kKC x 6 (72 x 256 floats,
//    72 KiB: they stay in L2);
//  - jr over the panels of b, ir over the panels of a: the micro-kernel keeps c's 6 x 16 tile in 12
//    ymm registers over kc steps, each step two loads of b, six broadcasts of a and twelve FMAs
//    (two FMA pipes: six cycles a step, the loads beside them). Alone on L1-resident panels it
//    runs at 93-98% of the FMA peak (as intrinsics GCC spilled two accumulators: 65%).
// Threads split c's rows (b packed by all of them first, then shared), or its columns when there
// are fewer than kMC rows a thread (then each packs its own columns of b). Never k: every element
// of c is one float32 chain of FMAs per block of kKC over k in order, the blocks added to c in
// order, so results do not depend on the thread count. beta == 0 never reads c.
// Packing reads each operand in its own layout, so the four transposition cases cost about the
// same; a row-major a and a column-major b are turned by 8 x 8 register transposes.
// Block sizes: nine pairs kMC x kKC (72, 144, 192, 240 x 256; 144, 120 x 384; 96, 48 x 512;
// 288 x 128) were timed on the Zen 3 host against oneDNN's sgemm in the same process at 1 thread: 72 x 256 was the
// best at 2048^3 (0.95-0.97x oneDNN's time, 1024^3 0.94-0.96x), 144 x 256 (BLIS's choice for
// Haswell-class cores) 0.99-1.07x at 2048^3.
// Only the AVX2 level has the kernel: AVX-512 CPUs keep oneDNN's brgemm, and the baseline has no
// FMA; there it declines and gemm() takes oneDNN.
#include "../sgemm.h"
#include <ATen/Parallel.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#if defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__)
#include <immintrin.h>
#define EMBER_BLOCKED_SGEMM 1
#endif

namespace at::native {
namespace EMBER_CPU_NS {  // Note [CPU capability levels]
namespace {
#if defined(EMBER_BLOCKED_SGEMM)
constexpr int64_t kMR = 6, kNR = 16;
// Zen 3: L1d 32 KiB, L2 512 KiB. b's micro-panel (kKC x 16 floats, 16 KiB) in L1, a's block
// (kMC x kKC, 72 KiB) in L2, b's block (kKC x kNC, 4 MiB at most) in L3.
constexpr int64_t kMC = 72, kKC = 256, kNC = 4080;
static_assert(kMC % kMR == 0 && kNC % kNR == 0);
// Floats past a packed block that the packing's overlapping stores may touch.
constexpr int64_t kSlack = 16;

#define EMBER_SGEMM_INLINE __attribute__((always_inline)) inline

// The packed blocks' memory: 64-byte aligned, kept per calling thread and grown when a product
// needs more (a fresh 4 MiB allocation per call would fault its pages in every time: 1% of a
// 1024^3 product). Plain malloc, no std::vector: see Note [CPU capability levels].
struct PackBuffer {
  float* p = nullptr;
  int64_t n = 0;
  ~PackBuffer() { std::free(p); }
  float* get(int64_t floats) {
    if (floats > n) {
      std::free(p);
      n = (floats + 15) / 16 * 16;
      p = static_cast<float*>(std::aligned_alloc(64, static_cast<size_t>(n) * 4));
      if (!p) n = 0;
    }
    return p;
  }
};

// r[j] becomes column j of the 8 x 8 matrix whose rows were r[0..8).
EMBER_SGEMM_INLINE void transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// a[i0 .. i0 + mc, k0 .. k0 + kc) into panels of kMR rows: panel q holds (i0 + q kMR + r, k0 + k)
// at dst[q kMR kc + k kMR + r], rows past M as zeros.
void pack_a(const BlockedSgemm& p, int64_t i0, int64_t mc, int64_t k0, int64_t kc, float* dst) {
  for (int64_t ir = 0; ir < mc; ir += kMR, dst += kMR * kc) {
    const int64_t rows = std::min(kMR, mc - ir);
    const float* a = p.a + (i0 + ir) * p.asr + k0 * p.asc;
    int64_t k = 0;
    if (p.asc == 1 && rows == kMR) {
      // Row-major: 8 k at a time, six rows (and two zero rows) transposed; each column is stored
      // as 8 floats whose last two the next store overwrites (kSlack covers the last).
      for (; k + 8 <= kc; k += 8) {
        __m256 r[8];
        for (int i = 0; i < 6; ++i) r[i] = _mm256_loadu_ps(a + i * p.asr + k);
        r[6] = r[7] = _mm256_setzero_ps();
        transpose8(r);
        for (int j = 0; j < 8; ++j) _mm256_storeu_ps(dst + (k + j) * kMR, r[j]);
      }
    }
    if (p.asr == 1 && rows == kMR) {
      for (; k < kc; ++k) {
        const float* s = a + k * p.asc;
        float* d = dst + k * kMR;
        _mm_storeu_ps(d, _mm_loadu_ps(s));
        _mm_storel_pi(reinterpret_cast<__m64*>(d + 4), _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(s + 4))));
      }
    }
    for (; k < kc; ++k) {
      int64_t r = 0;
      for (; r < rows; ++r) dst[k * kMR + r] = a[r * p.asr + k * p.asc];
      for (; r < kMR; ++r) dst[k * kMR + r] = 0.f;
    }
  }
}

// Panels jp0 .. jp1 of b[k0 .. k0 + kc, j0 .. j0 + nc) (kNR columns each): panel q holds (k0 + k,
// j0 + q kNR + j) at dst[q kNR kc + k kNR + j], columns past N as zeros.
void pack_b(const BlockedSgemm& p, int64_t j0, int64_t nc, int64_t k0, int64_t kc, int64_t jp0, int64_t jp1, float* dst) {
  for (int64_t jp = jp0; jp < jp1; ++jp) {
    const int64_t jr = jp * kNR, cols = std::min(kNR, nc - jr);
    const float* b = p.b + k0 * p.bsr + (j0 + jr) * p.bsc;
    float* d = dst + jp * kNR * kc;
    int64_t k = 0;
    if (p.bsc == 1 && cols == kNR) {
      for (; k < kc; ++k) {
        _mm256_store_ps(d + k * kNR, _mm256_loadu_ps(b + k * p.bsr));
        _mm256_store_ps(d + k * kNR + 8, _mm256_loadu_ps(b + k * p.bsr + 8));
      }
    } else if (p.bsr == 1) {
      // Column-major: for each half of the panel, 8 columns x 8 k transposed (missing columns
      // as zeros).
      for (; k + 8 <= kc; k += 8) {
        for (int h = 0; h < 2; ++h) {
          __m256 r[8];
          for (int j = 0; j < 8; ++j)
            r[j] = h * 8 + j < cols ? _mm256_loadu_ps(b + (h * 8 + j) * p.bsc + k) : _mm256_setzero_ps();
          transpose8(r);
          for (int i = 0; i < 8; ++i) _mm256_store_ps(d + (k + i) * kNR + h * 8, r[i]);
        }
      }
    }
    for (; k < kc; ++k) {
      int64_t j = 0;
      for (; j < cols; ++j) d[k * kNR + j] = b[k * p.bsr + j * p.bsc];
      for (; j < kNR; ++j) d[k * kNR + j] = 0.f;
    }
  }
}

// c[0..6, 0..16) = alpha * (a panel @ b panel) + beta * c (beta == 0: c not read). a: kc x 6,
// b: kc x 16, both packed.
__attribute__((flatten)) void micro(int64_t kc, const float* __restrict a, const float* __restrict b, float* c, int64_t ldc,
                                    float alpha, float beta) {
  __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;  // zeroed in the asm
  for (int i = 0; i < kMR; ++i) {  // c's lines, needed only after the k loop
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 15), _MM_HINT_T0);
  }
// One k step in asm: b's two vectors, then three pairs of broadcasts of a, each feeding four
// FMAs. Written as asm because GCC, given the same steps as intrinsics, spilled two accumulators
// to the stack inside the loop (the micro-kernel alone then ran at 65% of the FMA peak).
#define EMBER_SGEMM_ASM_STEP(B0, B1, A0, A1, A2, A3, A4, A5) \
  "vmovaps " B0 "(%[b]), %[b0]\n\t"                         \
  "vmovaps " B1 "(%[b]), %[b1]\n\t"                         \
  "vbroadcastss " A0 "(%[a]), %[x0]\n\t"                    \
  "vbroadcastss " A1 "(%[a]), %[x1]\n\t"                    \
  "vfmadd231ps %[b0], %[x0], %[c00]\n\t"                    \
  "vfmadd231ps %[b1], %[x0], %[c01]\n\t"                    \
  "vfmadd231ps %[b0], %[x1], %[c10]\n\t"                    \
  "vfmadd231ps %[b1], %[x1], %[c11]\n\t"                    \
  "vbroadcastss " A2 "(%[a]), %[x0]\n\t"                    \
  "vbroadcastss " A3 "(%[a]), %[x1]\n\t"                    \
  "vfmadd231ps %[b0], %[x0], %[c20]\n\t"                    \
  "vfmadd231ps %[b1], %[x0], %[c21]\n\t"                    \
  "vfmadd231ps %[b0], %[x1], %[c30]\n\t"                    \
  "vfmadd231ps %[b1], %[x1], %[c31]\n\t"                    \
  "vbroadcastss " A4 "(%[a]), %[x0]\n\t"                    \
  "vbroadcastss " A5 "(%[a]), %[x1]\n\t"                    \
  "vfmadd231ps %[b0], %[x0], %[c40]\n\t"                    \
  "vfmadd231ps %[b1], %[x0], %[c41]\n\t"                    \
  "vfmadd231ps %[b0], %[x1], %[c50]\n\t"                    \
  "vfmadd231ps %[b1], %[x1], %[c51]\n\t"
  {
    int64_t k4 = kc / 4, k1 = kc % 4;
    __m256 b0, b1, x0, x1;
    asm volatile(
        "vxorps %[c00], %[c00], %[c00]\n\t"
        "vxorps %[c01], %[c01], %[c01]\n\t"
        "vxorps %[c10], %[c10], %[c10]\n\t"
        "vxorps %[c11], %[c11], %[c11]\n\t"
        "vxorps %[c20], %[c20], %[c20]\n\t"
        "vxorps %[c21], %[c21], %[c21]\n\t"
        "vxorps %[c30], %[c30], %[c30]\n\t"
        "vxorps %[c31], %[c31], %[c31]\n\t"
        "vxorps %[c40], %[c40], %[c40]\n\t"
        "vxorps %[c41], %[c41], %[c41]\n\t"
        "vxorps %[c50], %[c50], %[c50]\n\t"
        "vxorps %[c51], %[c51], %[c51]\n\t"
        "test %[k4], %[k4]\n\t"
        "jz 2f\n\t"
        "1:\n\t"
        "prefetcht0 384(%[a])\n\t"  // a's panel, 16 steps ahead
    EMBER_SGEMM_ASM_STEP("0", "32", "0", "4", "8", "12", "16", "20")
    EMBER_SGEMM_ASM_STEP("64", "96", "24", "28", "32", "36", "40", "44")
    EMBER_SGEMM_ASM_STEP("128", "160", "48", "52", "56", "60", "64", "68")
    EMBER_SGEMM_ASM_STEP("192", "224", "72", "76", "80", "84", "88", "92")
        "add $96, %[a]\n\t"
        "add $256, %[b]\n\t"
        "dec %[k4]\n\t"
        "jnz 1b\n\t"
        "2:\n\t"  // the last kc % 4 steps, one at a time
        "test %[k1], %[k1]\n\t"
        "jz 4f\n\t"
        "3:\n\t"
    EMBER_SGEMM_ASM_STEP("0", "32", "0", "4", "8", "12", "16", "20")
        "add $24, %[a]\n\t"
        "add $64, %[b]\n\t"
        "dec %[k1]\n\t"
        "jnz 3b\n\t"
        "4:\n\t"
        : [c00] "=&x"(c00), [c01] "=&x"(c01), [c10] "=&x"(c10), [c11] "=&x"(c11), [c20] "=&x"(c20), [c21] "=&x"(c21),
          [c30] "=&x"(c30), [c31] "=&x"(c31), [c40] "=&x"(c40), [c41] "=&x"(c41), [c50] "=&x"(c50), [c51] "=&x"(c51),
          [a] "+r"(a), [b] "+r"(b), [k4] "+r"(k4), [k1] "+r"(k1), [b0] "=&x"(b0), [b1] "=&x"(b1), [x0] "=&x"(x0), [x1] "=&x"(x1)
        :
        : "cc", "memory");
  }
#undef EMBER_SGEMM_ASM_STEP
  const auto store = [&](float* row, __m256 v0, __m256 v1) __attribute__((always_inline)) {
    if (alpha != 1.f) {
      const __m256 va = _mm256_set1_ps(alpha);
      v0 = _mm256_mul_ps(v0, va);
      v1 = _mm256_mul_ps(v1, va);
    }
    if (beta == 1.f) {
      v0 = _mm256_add_ps(v0, _mm256_loadu_ps(row));
      v1 = _mm256_add_ps(v1, _mm256_loadu_ps(row + 8));
    } else if (beta != 0.f) {
      const __m256 vb = _mm256_set1_ps(beta);
      v0 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(row), v0);
      v1 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(row + 8), v1);
    }
    _mm256_storeu_ps(row, v0);
    _mm256_storeu_ps(row + 8, v1);
  };
  store(c, c00, c01);
  store(c + ldc, c10, c11);
  store(c + 2 * ldc, c20, c21);
  store(c + 3 * ldc, c30, c31);
  store(c + 4 * ldc, c40, c41);
  store(c + 5 * ldc, c50, c51);
}

// A tile of rows x cols (at most 6 x 16) at c: computed whole into a local tile, then merged.
void micro_edge(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int64_t rows, int64_t cols, float alpha,
                float beta) {
  alignas(32) float t[kMR * kNR];
  micro(kc, a, b, t, kNR, 1.f, 0.f);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      float v = alpha == 1.f ? t[i * kNR + j] : alpha * t[i * kNR + j];
      if (beta == 1.f) v = v + c[i * ldc + j];
      else if (beta != 0.f) v = std::fma(beta, c[i * ldc + j], v);
      c[i * ldc + j] = v;
    }
  }
}

bool blocked_sgemm(const BlockedSgemm& p) {
  const int64_t M = p.M, N = p.N, K = p.K;
  if (M <= 0 || N <= 0 || K <= 0) return false;
  if (!((p.asc == 1 || p.asr == 1) && (p.bsc == 1 || p.bsr == 1))) return false;
  const int64_t row_panels = (M + kMR - 1) / kMR;
  const int64_t nc_max = std::min(kNC, (N + kNR - 1) / kNR * kNR), kc_max = std::min(kKC, K);
  const int64_t threads = at::in_parallel_region() ? 1 : std::max<int64_t>(1, at::get_num_threads());
  // Threads split c's rows (each its own blocks of a, b packed by all of them first), or, with
  // fewer than kMC rows a thread, c's columns: then each packs and reads only its columns of b and
  // packs all of a (small). Either way each chunk is a contiguous, balanced run of panels.
  const bool split_cols = threads > 1 && M < threads * kMC;
  const int64_t chunks = split_cols ? std::min(threads, nc_max / kNR) : std::min(threads, row_panels);
  const int64_t a_floats = (kMC * kc_max + kSlack + 15) / 16 * 16;  // 64-byte multiples
  const int64_t b_floats = (nc_max * kc_max + kSlack + 15) / 16 * 16;
  thread_local PackBuffer buffer;
  float* const bblock = buffer.get(b_floats + chunks * a_floats);
  if (!bblock) return false;  // oneDNN then (it allocates differently)
  float* const ablocks = bblock + b_floats;
  for (int64_t jc = 0; jc < N; jc += kNC) {
    const int64_t nc = std::min(kNC, N - jc), col_panels = (nc + kNR - 1) / kNR;
    for (int64_t pc = 0; pc < K; pc += kKC) {
      const int64_t kc = std::min(kKC, K - pc);
      const float beta = pc == 0 ? p.beta : 1.f;
      if (!split_cols)
        at::parallel_for(0, col_panels, chunks > 1 ? (col_panels + chunks - 1) / chunks : col_panels,
                         [&](int64_t q0, int64_t q1) { pack_b(p, jc, nc, pc, kc, q0, q1, bblock); });
      at::parallel_for(0, chunks, 1, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          float* ablock = ablocks + t * a_floats;
          int64_t r0 = 0, r1 = M, q0 = 0, q1 = col_panels;
          if (split_cols) {
            q0 = col_panels * t / chunks;
            q1 = col_panels * (t + 1) / chunks;
            pack_b(p, jc, nc, pc, kc, q0, q1, bblock);
          } else {
            r0 = row_panels * t / chunks * kMR;
            r1 = std::min(M, row_panels * (t + 1) / chunks * kMR);
          }
          for (int64_t ic = r0; ic < r1; ic += kMC) {
            const int64_t mc = std::min(kMC, r1 - ic);
            pack_a(p, ic, mc, pc, kc, ablock);
            for (int64_t jr = q0 * kNR; jr < std::min(nc, q1 * kNR); jr += kNR) {
              const int64_t cols = std::min(kNR, nc - jr);
              const float* bp = bblock + jr * kc;
              for (int64_t ir = 0; ir < mc; ir += kMR) {
                const int64_t rows = std::min(kMR, mc - ir);
                float* c = p.c + (ic + ir) * p.csr + jc + jr;
                if (rows == kMR && cols == kNR) micro(kc, ablock + ir * kc, bp, c, p.csr, p.alpha, beta);
                else micro_edge(kc, ablock + ir * kc, bp, c, p.csr, rows, cols, p.alpha, beta);
              }
            }
          }
        }
      });
    }
  }
  return true;
}
#else
bool blocked_sgemm(const BlockedSgemm&) { return false; }
#endif
}  // namespace

EMBER_REGISTER_DISPATCH(blocked_sgemm_stub, &blocked_sgemm);

}  // namespace EMBER_CPU_NS
}  // namespace at::native
