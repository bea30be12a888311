// Reductions on the CPU: sum, prod, amax/amin, max/min (with indices), argmax/argmin, var, norm,
// logsumexp, all/any; and the scans cumsum/cumprod. Compiled once per CPU capability level (Note
// [CPU capability levels]); kernels/cpu/reduce.cpp has the entry points.
//
// Note [Reduction layout]
// A reduction splits the input's dims into kept dims (they index the output, row-major, in their
// original order) and reduced dims. Both lists drop size-1 dims and merge neighbours that are
// contiguous with each other, so most reductions become one of two loops:
//   - "inner": the reduced elements of one output form a contiguous run (sum over the last dim):
//     one accumulator per output, a tight loop over the run;
//   - "outer": the innermost kept dim is contiguous and the reduced run is not (sum over dim 0):
//     a block of contiguous outputs is updated once per reduced element, which vectorises and
//     reads the input in memory order.
// Anything else walks the reduced elements as strided runs. Parallelism is over outputs, or over
// the reduced range (per-thread partial accumulators merged in order) when there are too few
// outputs to keep the threads busy. The ops' contiguous loops are vector code (Vec.h): float,
// Half and BFloat16 sums as blocked float chains into double partials (Note [Float sums]), double
// and integer sums in 32 partials the compiler vectorises, max/min with indices in two vector
// passes (ArgOp::run); the "outer" loop's rows vectorise per op (step_row).
#include <ATen/native/cpu/ReduceKernels.h>
#include <ATen/native/cpu/Vec.h>
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ReduceUtils.h>
#include <ATen/Parallel.h>
#include <ATen/Utils.h>
#include <c10/util/SmallBuffer.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

namespace at::native {
namespace EMBER_CPU_NS {  // Note [CPU capability levels]
namespace {

constexpr int64_t kGrain = at::kGrainSize;

template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<T> || std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>;

// Converts an element to an accumulator type (Half/BFloat16 go through float; integers through
// int64 so that unsigned accumulators wrap like two's complement instead of overflowing).
template <typename A, typename T>
inline A to_acc(T v) {
  if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) return static_cast<A>(static_cast<float>(v));
  else if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) return static_cast<A>(static_cast<int64_t>(v));
  else return static_cast<A>(v);
}
template <typename T, typename A>
inline T from_acc(A a) {
  if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) return T(static_cast<float>(a));
  else if constexpr (std::is_same_v<T, bool>) return a != A(0);
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<A>) return static_cast<T>(static_cast<int64_t>(a));
  else return static_cast<T>(a);
}
template <typename T> inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// ---------------------------------------------------------------- layout
using reduce::Geom;
using reduce::dim_mask;
using reduce::make_geom;
using reduce::one_dim_mask;
using reduce::shape_out;
using reduce::sum_dtype;

// Element offset of the first input element of output `m` (kept dims [0, nd)).
inline int64_t kept_offset(const Geom& g, int64_t m, size_t nd) {
  int64_t off = 0;
  for (size_t d = nd; d-- > 0;) {
    off += (m % g.ks[d]) * g.kst[d];
    m /= g.ks[d];
  }
  return off;
}

// Calls f(ptr, len, stride, r) for the reduced elements [r0, r1) of the output starting at `base`,
// as runs along the innermost reduced dim; r is the linear reduced index of the run's first element.
template <typename T, typename F>
inline void for_runs(const Geom& g, const T* base, int64_t r0, int64_t r1, const F& f) {
  const int64_t nd = static_cast<int64_t>(g.rs.size());
  if (r0 >= r1) return;
  if (nd == 0) return f(base, int64_t(1), int64_t(1), r0);
  const int64_t inner = g.rs[nd - 1], ist = g.rst[nd - 1];
  if (nd == 1) return f(base + r0 * ist, r1 - r0, ist, r0);
  c10::SmallBuffer<int64_t, 16> idx(static_cast<size_t>(nd));
  int64_t rem = r0, off = 0;
  for (int64_t d = nd - 1; d >= 0; --d) {
    idx[d] = rem % g.rs[d];
    rem /= g.rs[d];
    off += idx[d] * g.rst[d];
  }
  int64_t r = r0;
  while (r < r1) {
    int64_t len = std::min(inner - idx[nd - 1], r1 - r);
    f(base + off, len, ist, r);
    r += len;
    idx[nd - 1] += len;
    off += len * ist;
    if (idx[nd - 1] < inner) continue;
    off -= inner * ist;
    idx[nd - 1] = 0;
    for (int64_t d = nd - 2; d >= 0; --d) {
      off += g.rst[d];
      if (++idx[d] < g.rs[d]) break;
      off -= g.rs[d] * g.rst[d];
      idx[d] = 0;
    }
  }
}

// The reduction ops: init(), step(acc, value, r), merge(acc, later acc), write(m, acc), and the
// run loops (overridable for a faster contiguous loop).
template <typename D, typename in_t, typename acc_t>
struct OpBase {
  using in = in_t;
  using acc = acc_t;
  void run(acc_t& a, const in_t* p, int64_t n, int64_t r) const {
    const D& d = static_cast<const D&>(*this);
    for (int64_t i = 0; i < n; ++i) d.step(a, p[i], r + i);
  }
  void run_strided(acc_t& a, const in_t* p, int64_t n, int64_t s, int64_t r) const {
    const D& d = static_cast<const D&>(*this);
    for (int64_t i = 0; i < n; ++i) d.step(a, p[i * s], r + i);
  }
  // a[j] (op)= row[j] for j < jn: one reduced element into a block of contiguous outputs.
  void step_row(acc_t* a, const in_t* row, int64_t jn, int64_t r) const {
    const D& d = static_cast<const D&>(*this);
    for (int64_t j = 0; j < jn; ++j) d.step(a[j], row[j], r);
  }
};

template <typename Op>
void reduce_run(const Geom& g, const Tensor& input, const Op& op) {
  using in_t = typename Op::in;
  using acc_t = typename Op::acc;
  const int64_t M = g.M, N = g.N;
  if (M == 0) return;
  if (N == 0) {
    // Nothing to reduce (the input may have no storage at all): every output is the identity.
    for (int64_t m = 0; m < M; ++m) op.write(m, op.init());
    return;
  }
  const in_t* data = static_cast<const in_t*>(input.const_data_ptr());
  const int nt = at::in_parallel_region() ? 1 : at::get_num_threads();
  const bool par = nt > 1 && M * N >= kGrain;
  // A reduction split across threads has min(nt, ceil(work / grain)) parts: the result depends on
  // get_num_threads() and the shape, never on how many threads the region actually gets.
  const auto parts_for = [&](int64_t work) { return std::clamp<int64_t>(at::divup(work, kGrain), 1, nt); };
  auto reduce_range = [&](const in_t* base, int64_t r0, int64_t r1, acc_t& a) {
    for_runs(g, base, r0, r1, [&](const in_t* p, int64_t len, int64_t st, int64_t r) {
      if (st == 1) op.run(a, p, len, r);
      else op.run_strided(a, p, len, st, r);
    });
  };
  const bool inner_contig = !g.rs.empty() && g.rst.back() == 1;
  if (!inner_contig && !g.rs.empty() && !g.ks.empty() && g.kst.back() == 1 && g.ks.back() >= 8) {
    // "outer" loop: blocks of contiguous outputs, each reduced element updates the whole block.
    // Note [Outer reduction blocks]: a block is as wide as 128 KiB of accumulators allow (16384
    // double sums: a row of up to 64 KiB of float input), so that the input is read in long runs
    // in memory order and the accumulators stay in L2. The blocks of one output row are made
    // equal, and with several threads their count a multiple of the threads. On a Zen 3 (AVX2), the
    // 4096^2 sum over dim 0 at 1 thread took 9.0 ms in 1024-output blocks (4 KiB runs, a new page
    // per run, prefetched two elements ahead; what this was until 2026-12-03) and 4.2 ms in one
    // 4096-output block, where software prefetch only slowed it down (7.0 ms); [1024, 16384] took
    // 4.9 ms in 1024-output blocks and 3.5 ms in one. The sums are the same either way: each
    // output still adds the reduced elements in order.
    constexpr int64_t kMaxBlock = std::max<int64_t>(64, int64_t{128 * 1024} / static_cast<int64_t>(sizeof(acc_t)));
    const int64_t J = g.ks.back(), O = M / J;
    int64_t nb = at::divup(J, kMaxBlock);
    if (par && O == 1 && nb >= nt) nb = at::divup(nb, nt) * nt;
    const int64_t B = std::min(J, at::divup(at::divup(J, nb), 16) * 16);
    nb = at::divup(J, B);
    const size_t nko = g.ks.size() - 1;
    auto block = [&](int64_t t, int64_t r0, int64_t r1, acc_t* a) {
      const int64_t o = t / nb, j0 = (t % nb) * B, jn = std::min(B, J - j0);
      const in_t* base = data + kept_offset(g, o, nko) + j0;
      for (int64_t j = 0; j < jn; ++j) a[j] = op.init();
      for_runs(g, base, r0, r1, [&](const in_t* p, int64_t len, int64_t st, int64_t r) {
        if constexpr (requires { op.step_rows(a, p, st, len, jn); }) op.step_rows(a, p, st, len, jn);
        else for (int64_t i = 0; i < len; ++i) op.step_row(a, p + i * st, jn, r + i);
      });
    };
    auto write_block = [&](int64_t t, const acc_t* a) {
      const int64_t o = t / nb, j0 = (t % nb) * B, jn = std::min(B, J - j0);
      for (int64_t j = 0; j < jn; ++j) op.write(o * J + j0 + j, a[j]);
    };
    const int64_t tasks = O * nb;
    if (par && tasks < nt && N >= 4 * nt) {
      const int64_t used = parts_for(N * B), chunk = at::divup(N, used);
      std::unique_ptr<acc_t[]> part(new acc_t[static_cast<size_t>(used * B)]);
      for (int64_t t = 0; t < tasks; ++t) {
        at::parallel_for(0, used, 1, [&](int64_t q0, int64_t q1) {
          for (int64_t q = q0; q < q1; ++q) {
            const int64_t r0 = std::min(N, q * chunk), r1 = std::min(N, r0 + chunk);
            block(t, r0, r1, part.get() + q * B);
          }
        });
        for (int64_t th = 1; th < used; ++th)
          for (int64_t j = 0; j < B; ++j) op.merge(part[j], part[th * B + j]);
        write_block(t, part.get());
      }
      return;
    }
    at::parallel_for(0, tasks, at::internal::grain_for_tasks(M * N, tasks), [&](int64_t tb, int64_t te) {
      std::unique_ptr<acc_t[]> a(new acc_t[static_cast<size_t>(B)]);
      for (int64_t t = tb; t < te; ++t) {
        block(t, 0, N, a.get());
        write_block(t, a.get());
      }
    });
    return;
  }
  const size_t nk = g.ks.size();
  if (par && M < 2 * nt && N >= kGrain) {
    // Too few outputs: split each output's reduction across the threads.
    const int64_t used = parts_for(N), chunk = at::divup(N, used);
    std::unique_ptr<acc_t[]> part(new acc_t[static_cast<size_t>(used)]);
    for (int64_t m = 0; m < M; ++m) {
      const in_t* base = data + kept_offset(g, m, nk);
      at::parallel_for(0, used, 1, [&](int64_t q0, int64_t q1) {
        for (int64_t q = q0; q < q1; ++q) {
          const int64_t r0 = std::min(N, q * chunk), r1 = std::min(N, r0 + chunk);
          part[q] = op.init();
          reduce_range(base, r0, r1, part[q]);
        }
      });
      acc_t a = part[0];
      for (int64_t th = 1; th < used; ++th) op.merge(a, part[th]);
      op.write(m, a);
    }
    return;
  }
  at::parallel_for(0, M, at::internal::grain_for_tasks(M * N, M), [&](int64_t m0, int64_t m1) {
    for (int64_t m = m0; m < m1; ++m) {
      acc_t a = op.init();
      reduce_range(data + kept_offset(g, m, nk), 0, N, a);
      op.write(m, a);
    }
  });
}

// ---------------------------------------------------------------- ops
// Sum of a contiguous run in 32 partial sums (lane k takes elements k, k + 32, ...; the rest go to
// lane 0) added up as a tree: a fixed order, so the same bits at every level. The compiler
// vectorises it (four AVX-512 / eight AVX2 registers); used for double and integer inputs (exact
// modular arithmetic in uint64 for the latter) and for float runs that overflow their float blocks.
template <typename acc_t, typename in_t>
acc_t partial_sum(const in_t* p, int64_t n) {
  constexpr int K = 32;
  acc_t s[K] = {};
  int64_t i = 0;
  for (; i + K <= n; i += K)
    for (int k = 0; k < K; ++k) s[k] += to_acc<acc_t>(p[i + k]);
  for (; i < n; ++i) s[0] += to_acc<acc_t>(p[i]);
  for (int w = K / 2; w >= 1; w /= 2)
    for (int k = 0; k < w; ++k) s[k] += s[k + w];
  return s[0];
}

// Note [Float sums]: a contiguous float (Half, BFloat16) run is cut into blocks of 16 rows of 16
// logical lanes (256 elements). Per lane, a block's 16 values are added in float as two chains, the
// even rows and the odd rows, (((r0 + r2) + r4) + ... + r14) + (((r1 + r3) + r5) + ... + r15), and
// that is widened and added to the lane's double partial sum; the last n % 256 elements go straight
// into the double partials (16 at a time, then lane 0), and the 16 partials are added up as a tree.
// The lanes are logical: a level holds them in 1 (AVX-512), 2 (AVX2) or 4 (SSE2) vectors, and the
// order of every addition is the same, so every level gives the same bits.
// Why not double throughout: widening every element costs two conversions per vector (vcvtps2pd is
// port-5 bound), which held a 1-thread sum over 64 MB to ~85% of the memory bandwidth; the blocked
// float chains convert once per 16 vectors and run at the speed of a plain float sum. Why chains and
// not a pairwise tree per lane (what this was until 2026-12-03): the block read in memory order with
// independent running sums kept more loads in flight; on a Zen 3 (AVX2) the 4096 x 4096 row sums took
// 3.1 ms at 1 thread and 1.9 ms at 2 against the tree's 4.1 and 2.4 (a standalone loop of each).
// Accuracy: each element goes through at most 8 float roundings (7 in its chain, 1 joining the
// chains) before it reaches double, so the error is below ~8 u_float * sum|x| plus the double
// part's (n / 256) u_double * sum|x|: a fixed bound for every n, where a float pairwise or cascade
// sum's grows with log2(n); runs shorter than 256 sum in double only. A float chain can overflow
// where the double sum would not (1e38 + 1e38 - 1e38 - 1e38): when any block's result is inf or
// NaN, the whole run is summed again in double (partial_sum), which also gives inf and NaN inputs
// their double-sum result.
constexpr int64_t kSumLanes = 16, kSumBlock = 16 * kSumLanes;

// One block's 16-row chains (Note [Float sums]): s[c] holds logical lanes [c * W, (c + 1) * W).
template <typename in_t, int C>
inline void block_chains(const in_t* p, ember::pw::VF* s) {
  using ember::pw::load_opmath;
  using ember::pw::VF;
  constexpr int W = VF::size;
  VF even[C], odd[C];
  for (int c = 0; c < C; ++c) {
    even[c] = load_opmath(p + c * W);
    odd[c] = load_opmath(p + kSumLanes + c * W);
  }
#pragma GCC unroll 1  // in memory order, line by line (see float_blocks_ymm)
  for (int k = 2; k < 16; k += 2)
    for (int c = 0; c < C; ++c) {
      even[c] = even[c] + load_opmath(p + k * kSumLanes + c * W);
      odd[c] = odd[c] + load_opmath(p + (k + 1) * kSumLanes + c * W);
    }
  for (int c = 0; c < C; ++c) s[c] = even[c] + odd[c];
}

// The float lanes of v as two double vectors, the low half first. (Vec.h has no float -> double
// conversion; this is the per-level code for the one place that needs it.)
inline void widen(ember::pw::VF v, ember::pw::VD& lo, ember::pw::VD& hi) {
  static_assert(2 * ember::pw::VD::size == ember::pw::VF::size, "a float vector widens to two double vectors");
#if defined(EMBER_VEC_AVX512)
  lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v.v));
  hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v.v), 1)));
#elif defined(EMBER_VEC_AVX2)
  lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v.v));
  hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v.v, 1));
#elif defined(EMBER_VEC_SSE2)
  lo = _mm_cvtps_pd(v.v);
  hi = _mm_cvtps_pd(_mm_movehl_ps(v.v, v.v));
#else
  alignas(64) float f[ember::pw::VF::size];
  alignas(64) double d[ember::pw::VF::size];
  v.store(f);
  for (int l = 0; l < ember::pw::VF::size; ++l) d[l] = f[l];
  lo = ember::pw::VD::load(d);
  hi = ember::pw::VD::load(d + ember::pw::VD::size);
#endif
}

#if defined(EMBER_VEC_AVX512) && defined(__AVX2__)
// Note [Float sums at 256 bits]
// At the AVX-512 level a float run's blocks are still read 256 bits at a time: the 16 logical
// lanes as two ymm vectors per row, as the AVX2 level holds them, so the bits are the same. On a
// Zen 4 (which splits a 512-bit load in two) the same block loop streamed 64 MB 10-17% faster with
// ymm loads than with zmm loads (1.8-2.4 against 2.0-2.8 ms, alternated in one process, 1 thread);
// a memory-bound loop gains nothing from the wider registers. Fills d[] with the 16 lanes' double
// partials of the whole blocks and returns how many elements they took, or -1 when a block's float
// result was inf or NaN somewhere (the caller then sums the run in double).
inline int64_t float_blocks_ymm(const float* p, int64_t n, double* d) {
  __m256d acc[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd()};
  __m256 poison = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + kSumBlock <= n; i += kSumBlock) {
    const float* q = p + i;
    __m256 e0 = _mm256_loadu_ps(q), e1 = _mm256_loadu_ps(q + 8);
    __m256 o0 = _mm256_loadu_ps(q + kSumLanes), o1 = _mm256_loadu_ps(q + kSumLanes + 8);
    // Kept a loop: unrolled, GCC loaded the first halves of the 16 rows (cache lines) and then the
    // second halves, and the block loop ran ~10% slower than this one, which reads line by line.
#pragma GCC unroll 1
    for (int k = 2; k < 16; k += 2) {
      e0 = _mm256_add_ps(e0, _mm256_loadu_ps(q + k * kSumLanes));
      e1 = _mm256_add_ps(e1, _mm256_loadu_ps(q + k * kSumLanes + 8));
      o0 = _mm256_add_ps(o0, _mm256_loadu_ps(q + (k + 1) * kSumLanes));
      o1 = _mm256_add_ps(o1, _mm256_loadu_ps(q + (k + 1) * kSumLanes + 8));
    }
    const __m256 s0 = _mm256_add_ps(e0, o0), s1 = _mm256_add_ps(e1, o1);
    poison = _mm256_add_ps(poison, _mm256_add_ps(_mm256_sub_ps(s0, s0), _mm256_sub_ps(s1, s1)));
    acc[0] = _mm256_add_pd(acc[0], _mm256_cvtps_pd(_mm256_castps256_ps128(s0)));
    acc[1] = _mm256_add_pd(acc[1], _mm256_cvtps_pd(_mm256_extractf128_ps(s0, 1)));
    acc[2] = _mm256_add_pd(acc[2], _mm256_cvtps_pd(_mm256_castps256_ps128(s1)));
    acc[3] = _mm256_add_pd(acc[3], _mm256_cvtps_pd(_mm256_extractf128_ps(s1, 1)));
  }
  // poison's lanes are 0, or NaN where a block gave inf or NaN; NaN is unordered with itself.
  if (_mm256_movemask_ps(_mm256_cmp_ps(poison, poison, _CMP_UNORD_Q)) != 0) return -1;
  for (int k = 0; k < 4; ++k) _mm256_store_pd(d + 4 * k, acc[k]);
  return i;
}
#endif

template <typename in_t>
double float_sum(const in_t* p, int64_t n) {  // Note [Float sums]
  using ember::pw::VD;
  using ember::pw::VF;
  constexpr int W = VF::size, C = kSumLanes / W;
  static_assert(kSumLanes % W == 0, "the logical lanes fill whole vectors");
  alignas(64) double d[kSumLanes];  // filled below by vector stores (an `= {}` became a rep stos per run)
  int64_t i = 0;
  if (n < kSumBlock) {
    for (int k = 0; k < 2 * C; ++k) VD(0.0).store(d + k * VD::size);
#if defined(EMBER_VEC_AVX512) && defined(__AVX2__)
  } else if constexpr (std::is_same_v<in_t, float>) {  // Note [Float sums at 256 bits]
    i = float_blocks_ymm(p, n, d);
    if (i < 0) return partial_sum<double>(p, n);
#endif
  } else {
    VD acc[2 * C];
    for (auto& x : acc) x = VD(0.0);
    VF poison(0.0f);  // a lane turns NaN once a block's result was inf or NaN there
    for (; i + kSumBlock <= n; i += kSumBlock) {
      VF s[C];
      block_chains<in_t, C>(p + i, s);
      for (int c = 0; c < C; ++c) {
        poison = poison + (s[c] - s[c]);
        VD lo, hi;
        widen(s[c], lo, hi);
        acc[2 * c] = acc[2 * c] + lo;
        acc[2 * c + 1] = acc[2 * c + 1] + hi;
      }
    }
    // Lanes of poison are 0 or NaN; a NaN lane is not <= 0.
    if (ember::pw::vecimpl::any_nle(poison.v, VF(0.0f).v)) return partial_sum<double>(p, n);
    for (int k = 0; k < 2 * C; ++k) acc[k].store(d + k * VD::size);
  }
  for (; i + kSumLanes <= n; i += kSumLanes)
    for (int l = 0; l < kSumLanes; ++l) d[l] += to_acc<double>(p[i + l]);
  for (; i < n; ++i) d[0] += to_acc<double>(p[i]);
  for (int w = kSumLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) d[l] += d[l + w];
  return d[0];
}

// Note [Float outer sums]: in the "outer" loop (a sum over a dim that is not innermost, e.g. dim 0
// of a matrix) a float (Half, BFloat16) input's rows go kOuterRows at a time: per column, the rows'
// values are added in float in row order, ((r0 + r1) + ... + r7), and that chain is added to the
// column's double sum. Each element thus sees at most 7 float roundings before double, within Note
// [Float sums]' bound, and the double sums are read and written once per 8 rows instead of once per
// row, where converting and adding every element in double held the 4096^2 sum over dim 0 to 5.9 ms
// at 1 thread on a Zen 4 (42% of the triad bandwidth). Columns are independent, so every level
// gives the same bits. A column whose chain comes out inf or NaN is summed in double, so that float
// overflow (3e38 + 3e38) never decides a result the double sum would not; and runs of fewer than
// kSumBlock rows are summed in double only, as float_sum's are.
constexpr int64_t kOuterRows = 8;

template <typename in_t, typename acc_t, typename out_t>
struct SumOp : OpBase<SumOp<in_t, acc_t, out_t>, in_t, acc_t> {
  static constexpr bool kFloatBlocks = kIsFloat<in_t> && !std::is_same_v<in_t, double>;
  out_t* out;
  explicit SumOp(out_t* o) : out(o) {}
  acc_t init() const { return acc_t(0); }
  void step(acc_t& a, in_t v, int64_t) const { a += to_acc<acc_t>(v); }
  void merge(acc_t& a, const acc_t& b) const { a += b; }
  void write(int64_t m, const acc_t& a) const { out[m] = from_acc<out_t>(a); }
  void run(acc_t& a, const in_t* p, int64_t n, int64_t) const {
    if constexpr (kFloatBlocks) a += float_sum(p, n);
    else a += partial_sum<acc_t>(p, n);
  }
  // "outer" loop: Half and BFloat16 rows widen a vector at a time (c10's scalar conversion does
  // not vectorise); the sums stay one double chain per output.
  void step_row(acc_t* a, const in_t* row, int64_t jn, int64_t r) const {
    if constexpr (std::is_same_v<in_t, c10::Half> || std::is_same_v<in_t, c10::BFloat16>) {
      constexpr int W = ember::pw::VF::size;
      int64_t j = 0;
      for (; j + W <= jn; j += W) {
        alignas(64) float t[W];
        ember::pw::load_opmath(row + j).store(t);
        for (int l = 0; l < W; ++l) a[j + l] += static_cast<double>(t[l]);
      }
      for (; j < jn; ++j) a[j] += to_acc<acc_t>(row[j]);
    } else {
      OpBase<SumOp, in_t, acc_t>::step_row(a, row, jn, r);
    }
  }
  // "outer" loop of a float (Half, BFloat16) sum, Note [Float outer sums]: len rows of jn values,
  // st apart, into the double sums a.
  void step_rows(acc_t* a, const in_t* p, int64_t st, int64_t len, int64_t jn) const
    requires(kFloatBlocks && std::is_same_v<acc_t, double>) {
    using ember::pw::load_opmath;
    using ember::pw::VD;
    using ember::pw::VF;
    namespace vi = ember::pw::vecimpl;
    constexpr int W = VF::size;
    if (len < kSumBlock) {  // short runs in double only, as in float_sum
      for (int64_t i = 0; i < len; ++i) step_row(a, p + i * st, jn, 0);
      return;
    }
    for (int64_t i0 = 0; i0 < len; i0 += kOuterRows) {
      const int64_t nr = std::min(kOuterRows, len - i0);
      const in_t* q = p + i0 * st;
      // A column whose float chain came out inf or NaN is added again in double, on its own.
      const auto in_double = [&](int64_t j) {
        double t = 0;
        for (int64_t k = 0; k < nr; ++k) t += to_acc<double>(q[k * st + j]);
        a[j] += t;
      };
      int64_t j = 0;
      for (; j + W <= jn; j += W) {
        VF s = load_opmath(q + j);
        for (int64_t k = 1; k < nr; ++k) s = s + load_opmath(q + k * st + j);
        const VF poison = s - s;  // 0, or NaN where s is inf or NaN
        if (vi::any_nle(poison.v, VF(0.0f).v)) {  // some lane NaN
          alignas(64) float t[W];
          s.store(t);
          for (int l = 0; l < W; ++l) {
            if (std::isfinite(t[l])) a[j + l] += static_cast<double>(t[l]);
            else in_double(j + l);
          }
          continue;
        }
        VD lo, hi;
        widen(s, lo, hi);
        (VD::load(a + j) + lo).store(a + j);
        (VD::load(a + j + VD::size) + hi).store(a + j + VD::size);
      }
      for (; j < jn; ++j) {
        float s = to_acc<float>(q[j]);
        for (int64_t k = 1; k < nr; ++k) s += to_acc<float>(q[k * st + j]);
        if (std::isfinite(s)) a[j] += static_cast<double>(s);
        else in_double(j);
      }
    }
  }
};

template <typename in_t, typename acc_t, typename out_t>
struct ProdOp : OpBase<ProdOp<in_t, acc_t, out_t>, in_t, acc_t> {
  out_t* out;
  explicit ProdOp(out_t* o) : out(o) {}
  acc_t init() const { return acc_t(1); }
  void step(acc_t& a, in_t v, int64_t) const { a *= to_acc<acc_t>(v); }
  void merge(acc_t& a, const acc_t& b) const { a *= b; }
  void write(int64_t m, const acc_t& a) const { out[m] = from_acc<out_t>(a); }
};

// max (IsMax) or min of values; NaN wins.
template <typename in_t, bool IsMax>
struct ExtremeOp : OpBase<ExtremeOp<in_t, IsMax>, in_t, c10::opmath_t<in_t>> {
  using acc_t = c10::opmath_t<in_t>;
  in_t* out;
  explicit ExtremeOp(in_t* o) : out(o) {}
  acc_t init() const {
    if constexpr (std::is_floating_point_v<acc_t>)
      return IsMax ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    else return IsMax ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  static bool better(acc_t v, acc_t a) { return IsMax ? (v > a) : (v < a); }
  void step(acc_t& a, in_t x, int64_t) const {
    acc_t v = static_cast<acc_t>(x);
    if (better(v, a) || is_nan(v)) a = v;
  }
  void merge(acc_t& a, const acc_t& b) const {
    if (!is_nan(a) && (better(b, a) || is_nan(b))) a = b;
  }
  void write(int64_t m, const acc_t& a) const { out[m] = from_acc<in_t>(a); }
};

// Index of the first element of p[0, n) equal to m (the first NaN when m is NaN); n if none.
template <typename T>
int64_t find_first(const T* p, int64_t n, T m) {
  const bool nan = std::isnan(m);
  int64_t i = 0;
#if defined(EMBER_VEC_AVX512)
  if constexpr (std::is_same_v<T, float>) {
    const __m512 vm = _mm512_set1_ps(m);
    for (; i + 16 <= n; i += 16) {
      const __m512 v = _mm512_loadu_ps(p + i);
      const __mmask16 k = nan ? _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) : _mm512_cmp_ps_mask(v, vm, _CMP_EQ_OQ);
      if (k) return i + __builtin_ctz(k);
    }
  } else {
    const __m512d vm = _mm512_set1_pd(m);
    for (; i + 8 <= n; i += 8) {
      const __m512d v = _mm512_loadu_pd(p + i);
      const __mmask8 k = nan ? _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q) : _mm512_cmp_pd_mask(v, vm, _CMP_EQ_OQ);
      if (k) return i + __builtin_ctz(k);
    }
  }
#elif defined(EMBER_VEC_AVX2)
  if constexpr (std::is_same_v<T, float>) {
    const __m256 vm = _mm256_set1_ps(m);
    for (; i + 8 <= n; i += 8) {
      const __m256 v = _mm256_loadu_ps(p + i);
      const int k = _mm256_movemask_ps(nan ? _mm256_cmp_ps(v, v, _CMP_UNORD_Q) : _mm256_cmp_ps(v, vm, _CMP_EQ_OQ));
      if (k) return i + __builtin_ctz(k);
    }
  } else {
    const __m256d vm = _mm256_set1_pd(m);
    for (; i + 4 <= n; i += 4) {
      const __m256d v = _mm256_loadu_pd(p + i);
      const int k = _mm256_movemask_pd(nan ? _mm256_cmp_pd(v, v, _CMP_UNORD_Q) : _mm256_cmp_pd(v, vm, _CMP_EQ_OQ));
      if (k) return i + __builtin_ctz(k);
    }
  }
#endif
  for (; i < n; ++i)
    if (nan ? std::isnan(p[i]) : p[i] == m) return i;
  return n;
}

// max/min with the index of the first extreme element (the first NaN if any).
template <typename in_t, bool IsMax>
struct ArgOp : OpBase<ArgOp<in_t, IsMax>, in_t, std::pair<c10::opmath_t<in_t>, int64_t>> {
  using val_t = c10::opmath_t<in_t>;
  using acc_t = std::pair<val_t, int64_t>;
  in_t* values;  // may be null (argmax)
  int64_t* indices;
  ArgOp(in_t* v, int64_t* i) : values(v), indices(i) {}
  acc_t init() const { return {ExtremeOp<in_t, IsMax>(nullptr).init(), 0}; }
  static bool better(val_t v, val_t a) { return IsMax ? (v > a) : (v < a); }
  void step(acc_t& a, in_t x, int64_t r) const {
    val_t v = static_cast<val_t>(x);
    if (!is_nan(a.first) && (better(v, a.first) || is_nan(v))) a = {v, r};
  }
  void merge(acc_t& a, const acc_t& b) const {
    if (!is_nan(a.first) && (better(b.first, a.first) || is_nan(b.first))) a = b;
  }
  // A float/double run in two vector passes: its extreme value (NaN if any), then the first
  // element equal to it (the first NaN). The element itself is what gets kept, so a tie between
  // -0 and +0 keeps the first one, as step() does; merging after `a` keeps a's element on a tie.
  void run(acc_t& a, const in_t* p, int64_t n, int64_t r) const {
    if constexpr (std::is_same_v<in_t, float> || std::is_same_v<in_t, double>) {
      using V = ember::pw::Vec<in_t>;
      constexpr int64_t W = V::size;
      if (n >= 4 * W && !is_nan(a.first)) {
        V m0 = V::load(p), m1 = V::load(p + W), m2 = V::load(p + 2 * W), m3 = V::load(p + 3 * W);
        const auto pick = [](V x, V y) { return IsMax ? ember::pw::max_nan(x, y) : ember::pw::min_nan(x, y); };
        int64_t i = 4 * W;
        for (; i + 4 * W <= n; i += 4 * W) {
          m0 = pick(m0, V::load(p + i));
          m1 = pick(m1, V::load(p + i + W));
          m2 = pick(m2, V::load(p + i + 2 * W));
          m3 = pick(m3, V::load(p + i + 3 * W));
        }
        for (; i + W <= n; i += W) m0 = pick(m0, V::load(p + i));
        alignas(64) in_t lanes[W];
        pick(pick(m0, m1), pick(m2, m3)).store(lanes);
        in_t m = lanes[0];
        for (int64_t k = 1; k < W; ++k)
          if (std::isnan(lanes[k]) || (!std::isnan(m) && better(lanes[k], m))) m = lanes[k];
        for (; i < n; ++i)
          if (std::isnan(p[i]) || (!std::isnan(m) && better(p[i], m))) m = p[i];
        const int64_t k = find_first(p, n, m);
        merge(a, acc_t{static_cast<val_t>(p[k]), r + k});
        return;
      }
    }
    OpBase<ArgOp, in_t, acc_t>::run(a, p, n, r);
  }
  void write(int64_t m, const acc_t& a) const {
    if (values) values[m] = from_acc<in_t>(a.first);
    indices[m] = a.second;
  }
};

template <typename in_t, typename out_t, bool IsAll>
struct LogicalOp : OpBase<LogicalOp<in_t, out_t, IsAll>, in_t, bool> {
  out_t* out;
  explicit LogicalOp(out_t* o) : out(o) {}
  bool init() const { return IsAll; }
  void step(bool& a, in_t v, int64_t) const {
    bool nz = static_cast<c10::opmath_t<in_t>>(v) != 0;
    a = IsAll ? (a && nz) : (a || nz);
  }
  void merge(bool& a, const bool& b) const { a = IsAll ? (a && b) : (a || b); }
  void write(int64_t m, const bool& a) const { out[m] = static_cast<out_t>(a); }
};

// Welford / Chan: count, mean, sum of squared deviations, all in double.
struct Moments {
  double n = 0, mean = 0, m2 = 0;
};
inline void merge_moments(Moments& a, const Moments& b) {
  if (b.n == 0) return;
  if (a.n == 0) { a = b; return; }
  const double n = a.n + b.n, d = b.mean - a.mean;
  a.mean += d * (b.n / n);
  a.m2 += b.m2 + d * d * (a.n * b.n / n);
  a.n = n;
}
template <typename in_t>
struct VarOp : OpBase<VarOp<in_t>, in_t, Moments> {
  in_t* out;
  double correction;
  bool take_sqrt;  // std: the square root is taken in double, before rounding to in_t
  VarOp(in_t* o, double c, bool sq) : out(o), correction(c), take_sqrt(sq) {}
  Moments init() const { return {}; }
  void step(Moments& a, in_t x, int64_t) const {
    const double v = to_acc<double>(x);
    a.n += 1;
    const double d = v - a.mean;
    a.mean += d / a.n;
    a.m2 += d * (v - a.mean);
  }
  void merge(Moments& a, const Moments& b) const { merge_moments(a, b); }
  // Contiguous runs: exact two-pass moments of small blocks (vectorisable), merged with Chan's formula.
  void run(Moments& a, const in_t* p, int64_t n, int64_t) const {
    constexpr int64_t kB = 256;
    for (int64_t i0 = 0; i0 < n; i0 += kB) {
      const int64_t len = std::min(kB, n - i0);
      double s = 0;
      for (int64_t i = 0; i < len; ++i) s += to_acc<double>(p[i0 + i]);
      const double mean = s / static_cast<double>(len);
      double m2 = 0;
      for (int64_t i = 0; i < len; ++i) {
        const double d = to_acc<double>(p[i0 + i]) - mean;
        m2 += d * d;
      }
      merge_moments(a, Moments{static_cast<double>(len), mean, m2});
    }
  }
  void write(int64_t m, const Moments& a) const {
    const double v = a.m2 / std::max(0.0, a.n - correction);
    out[m] = from_acc<in_t>(take_sqrt ? std::sqrt(v) : v);
  }
};

enum class NormKind { Zero, One, Two, Inf, NegInf, General };
// Each term (|x|, x^2, |x|^p) is computed in the element's opmath type (float for float, Half and
// BFloat16; double for double) and the sum is rounded to that type before the root: a float32
// square past the float range is inf and one below it flushes to 0, and a float32 sum of squares
// past the range is inf, as in libtorch's CPU norms. The terms add up in double, so long rows
// keep their digits.
template <typename in_t, NormKind K>
struct NormOp : OpBase<NormOp<in_t, K>, in_t, double> {
  using op_t = c10::opmath_t<in_t>;
  in_t* out;
  op_t p;
  NormOp(in_t* o, double pp) : out(o), p(static_cast<op_t>(pp)) {}
  double init() const { return K == NormKind::NegInf ? std::numeric_limits<double>::infinity() : 0.0; }
  double term(in_t x) const {
    const op_t v = std::fabs(to_acc<op_t>(x));
    if constexpr (K == NormKind::Zero) return v != 0 ? 1.0 : 0.0;
    else if constexpr (K == NormKind::One) return v;
    else if constexpr (K == NormKind::Two) return static_cast<double>(v * v);
    else return static_cast<double>(std::pow(v, p));
  }
  void step(double& a, in_t x, int64_t) const {
    if constexpr (K == NormKind::Inf || K == NormKind::NegInf) {
      const double v = std::fabs(to_acc<double>(x));
      if ((K == NormKind::Inf ? v > a : v < a) || std::isnan(v)) a = v;
    } else {
      a += term(x);
    }
  }
  void merge(double& a, const double& b) const {
    if constexpr (K == NormKind::Inf) { if (!std::isnan(a) && (b > a || std::isnan(b))) a = b; }
    else if constexpr (K == NormKind::NegInf) { if (!std::isnan(a) && (b < a || std::isnan(b))) a = b; }
    else a += b;
  }
  void write(int64_t m, const double& a) const {
    const op_t s = static_cast<op_t>(a);
    op_t v = s;
    if constexpr (K == NormKind::Two) v = std::sqrt(s);
    else if constexpr (K == NormKind::General) v = std::pow(s, op_t(1) / p);
    out[m] = from_acc<in_t>(v);
  }
};

// Streaming log-sum-exp: (running max, sum of exp(x - max)).
struct Lse {
  double mx = -std::numeric_limits<double>::infinity(), s = 0;
};
template <typename in_t>
struct LseOp : OpBase<LseOp<in_t>, in_t, Lse> {
  in_t* out;
  explicit LseOp(in_t* o) : out(o) {}
  Lse init() const { return {}; }
  static void add(Lse& a, double mx, double s) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (std::isnan(a.mx)) return;
    if (std::isnan(mx)) { a.mx = mx; return; }
    if (mx == -inf || a.mx == inf) return;
    if (a.mx == -inf || mx == inf) { a.mx = mx; a.s = s; return; }
    if (mx > a.mx) {
      a.s = a.s * std::exp(a.mx - mx) + s;
      a.mx = mx;
    } else {
      a.s += s * std::exp(mx - a.mx);
    }
  }
  void step(Lse& a, in_t x, int64_t) const { add(a, to_acc<double>(x), 1.0); }
  void merge(Lse& a, const Lse& b) const { add(a, b.mx, b.s); }
  void write(int64_t m, const Lse& a) const {
    double r = a.mx;
    if (std::isfinite(a.mx)) r = a.mx + std::log(a.s);
    out[m] = from_acc<in_t>(r);
  }
};

// ---------------------------------------------------------------- entry helpers
Tensor new_out(const Geom& g, ScalarType dt) { return reduce::new_out(g, dt, kCPU); }

void check_cpu(const char* op, const Tensor& self) {
  EMBER_CHECK(self.defined(), "[", op, "] expected a defined tensor; got an undefined one");
  EMBER_CHECK(self.is_cpu(), "[", op, "] expected a CPU tensor; got one on ", self.device());
}

template <template <typename, typename, typename> class OpT>
Tensor sum_like(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim, std::optional<ScalarType> dtype) {
  check_cpu(op, self);
  const ScalarType out_dt = sum_dtype(self, dtype);
  // Float results reduce in their own dtype; integer results read integer inputs as they are
  // (wrapping sums and products are the same whether the input is narrowed first or the result
  // after); a bool result reads its input as bool first, as libtorch's does (sum([1, -1]) is true).
  const ScalarType in_dt = self.scalar_type();
  const bool convert = isFloatingType(out_dt) ? in_dt != out_dt
                                              : isFloatingType(in_dt) || (out_dt == kBool && in_dt != kBool);
  Tensor x = convert ? self.to(out_dt) : self;
  const Geom g = make_geom(x, mask, false);
  // Integer and bool results accumulate in uint64 (wrapping, as libtorch's do) and are written as
  // int64, then narrowed to a requested smaller type: a narrowing cast keeps the low bits either
  // way, and the reduction is instantiated once per input type, not per (input, output) pair.
  const bool narrow = !isFloatingType(out_dt) && out_dt != kLong;
  Tensor out = new_out(g, narrow ? kLong : out_dt);
  EMBER_DISPATCH_ALL(x.scalar_type(), op, [&] {
    using in_t = scalar_t;
    if constexpr (kIsFloat<in_t>) reduce_run(g, x, OpT<in_t, double, in_t>(out._mutable_data_ptr_internal<in_t>()));
    else reduce_run(g, x, OpT<in_t, uint64_t, int64_t>(out._mutable_data_ptr_internal<int64_t>()));
  });
  if (narrow) out = out.to(out_dt);
  return shape_out(out, g, keepdim);
}

template <bool IsMax>
Tensor extreme(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim) {
  check_cpu(op, self);
  const Geom g = make_geom(self, mask, false);
  EMBER_CHECK(g.N > 0 || g.M == 0, "[", op, "] expected a non-empty reduction: the reduced dims of input ", self.sizes(),
              " have zero elements and the reduction has no identity");
  Tensor out = new_out(g, self.scalar_type());
  EMBER_DISPATCH_ALL(self.scalar_type(), op, [&] { reduce_run(g, self, ExtremeOp<scalar_t, IsMax>(out._mutable_data_ptr_internal<scalar_t>())); });
  return shape_out(out, g, keepdim);
}

template <bool IsMax>
std::tuple<Tensor, Tensor> arg_extreme(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim,
                                       bool with_values) {
  check_cpu(op, self);
  const Geom g = make_geom(self, mask, true);
  EMBER_CHECK(g.N > 0, "[", op, "] expected a non-empty reduction: the reduced dims of input ", self.sizes(),
              " have zero elements");
  Tensor idx = new_out(g, kLong);
  Tensor vals = with_values ? new_out(g, self.scalar_type()) : Tensor();
  EMBER_DISPATCH_ALL(self.scalar_type(), op, [&] {
    reduce_run(g, self, ArgOp<scalar_t, IsMax>(with_values ? vals._mutable_data_ptr_internal<scalar_t>() : nullptr, idx._mutable_data_ptr_internal<int64_t>()));
  });
  return {with_values ? shape_out(vals, g, keepdim) : vals, shape_out(idx, g, keepdim)};
}

template <bool IsAll>
Tensor logical(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim) {
  check_cpu(op, self);
  const Geom g = make_geom(self, mask, false);
  // libtorch keeps uint8 for uint8 input; every other dtype gives bool.
  const ScalarType out_dt = self.scalar_type() == kByte ? kByte : kBool;
  Tensor out = new_out(g, out_dt);
  EMBER_DISPATCH_ALL(self.scalar_type(), op, [&] {
    using in_t = scalar_t;
    if (out_dt == kByte) reduce_run(g, self, LogicalOp<in_t, uint8_t, IsAll>(out._mutable_data_ptr_internal<uint8_t>()));
    else reduce_run(g, self, LogicalOp<in_t, bool, IsAll>(out._mutable_data_ptr_internal<bool>()));
  });
  return shape_out(out, g, keepdim);
}

void check_floating(const char* op, const Tensor& self) {
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[", op, "] expected a floating point input; got ",
              c10::dtypeName(self.scalar_type()));
}

}  // namespace

// ---------------------------------------------------------------- kernels
Tensor sum_dim_cpu(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like<SumOp>("sum", self, dim_mask("sum", self.dim(), dim), keepdim, dtype);
}

Tensor prod_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like<ProdOp>("prod", self, dim_mask("prod", self.dim(), std::nullopt), false, dtype);
}

Tensor prod_dim_cpu(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like<ProdOp>("prod", self, one_dim_mask("prod", self.dim(), dim), keepdim, dtype);
}

Tensor max_cpu(const Tensor& self) {
  EMBER_CHECK(self.numel() > 0, "[max] expected a non-empty input to reduce over all elements; got sizes ", self.sizes(),
              " (pass dim= to reduce one dimension)");
  return extreme<true>("max", self, dim_mask("max", self.dim(), std::nullopt), false);
}

Tensor min_cpu(const Tensor& self) {
  EMBER_CHECK(self.numel() > 0, "[min] expected a non-empty input to reduce over all elements; got sizes ", self.sizes(),
              " (pass dim= to reduce one dimension)");
  return extreme<false>("min", self, dim_mask("min", self.dim(), std::nullopt), false);
}

std::tuple<Tensor, Tensor> max_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_extreme<true>("max", self, one_dim_mask("max", self.dim(), dim), keepdim, true);
}

std::tuple<Tensor, Tensor> min_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_extreme<false>("min", self, one_dim_mask("min", self.dim(), dim), keepdim, true);
}

Tensor amax_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme<true>("amax", self, dim_mask("amax", self.dim(), dim), keepdim);
}

Tensor amin_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme<false>("amin", self, dim_mask("amin", self.dim(), dim), keepdim);
}

Tensor argmax_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CHECK(self.scalar_type() != kBool, "[argmax] expected a numeric tensor; got Bool");
  auto mask = dim ? one_dim_mask("argmax", self.dim(), *dim) : dim_mask("argmax", self.dim(), std::nullopt);
  return std::get<1>(arg_extreme<true>("argmax", self, mask, keepdim, false));
}

Tensor argmin_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CHECK(self.scalar_type() != kBool, "[argmin] expected a numeric tensor; got Bool");
  auto mask = dim ? one_dim_mask("argmin", self.dim(), *dim) : dim_mask("argmin", self.dim(), std::nullopt);
  return std::get<1>(arg_extreme<false>("argmin", self, mask, keepdim, false));
}

namespace {
// var (take_sqrt false) or std of the reduced slices: Welford/Chan moments in double.
Tensor moments_cpu(const char* op, const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                   bool keepdim, bool take_sqrt) {
  check_cpu(op, self);
  check_floating(op, self);
  const double c = correction ? correction->toDouble() : 1.0;
  const Geom g = make_geom(self, dim_mask(op, self.dim(), dim), false);
  Tensor out = new_out(g, self.scalar_type());
  EMBER_DISPATCH_ALL_FLOATING(self.scalar_type(), op, [&] {
    reduce_run(g, self, VarOp<scalar_t>(out._mutable_data_ptr_internal<scalar_t>(), c, take_sqrt));
  });
  return shape_out(out, g, keepdim);
}

}  // namespace

Tensor var_correction_cpu(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  return moments_cpu("var", self, dim, correction, keepdim, false);
}

Tensor std_correction_cpu(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  return moments_cpu("std", self, dim, correction, keepdim, true);
}

Tensor norm_cpu(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  check_cpu("norm", self);
  check_floating("norm", self);
  const double pv = p ? p->toDouble() : 2.0;  // not NaN: checked by the baseline entry point
  const Geom g = make_geom(self, dim_mask("norm", self.dim(), dim), false);
  Tensor out = new_out(g, self.scalar_type());
  EMBER_DISPATCH_ALL_FLOATING(self.scalar_type(), "norm", [&] {
    using in_t = scalar_t;
    in_t* o = out._mutable_data_ptr_internal<in_t>();
    if (pv == 0) reduce_run(g, self, NormOp<in_t, NormKind::Zero>(o, pv));
    else if (pv == 1) reduce_run(g, self, NormOp<in_t, NormKind::One>(o, pv));
    else if (pv == 2) reduce_run(g, self, NormOp<in_t, NormKind::Two>(o, pv));
    else if (std::isinf(pv) && pv > 0) reduce_run(g, self, NormOp<in_t, NormKind::Inf>(o, pv));
    else if (std::isinf(pv)) reduce_run(g, self, NormOp<in_t, NormKind::NegInf>(o, pv));
    else reduce_run(g, self, NormOp<in_t, NormKind::General>(o, pv));
  });
  return shape_out(out, g, keepdim);
}

Tensor logsumexp_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  check_cpu("logsumexp", self);
  // Integer inputs compute in the default float dtype (libtorch promotes them).
  Tensor x = isFloatingType(self.scalar_type()) ? self : self.to(kFloat);
  const Geom g = make_geom(x, dim_mask("logsumexp", x.dim(), dim), false);
  Tensor out = new_out(g, x.scalar_type());
  EMBER_DISPATCH_ALL_FLOATING(x.scalar_type(), "logsumexp", [&] { reduce_run(g, x, LseOp<scalar_t>(out._mutable_data_ptr_internal<scalar_t>())); });
  return shape_out(out, g, keepdim);
}

Tensor all_cpu(const Tensor& self) { return logical<true>("all", self, dim_mask("all", self.dim(), std::nullopt), false); }
Tensor any_cpu(const Tensor& self) { return logical<false>("any", self, dim_mask("any", self.dim(), std::nullopt), false); }
Tensor all_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return logical<true>("all", self, one_dim_mask("all", self.dim(), dim), keepdim);
}
Tensor any_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return logical<false>("any", self, one_dim_mask("any", self.dim(), dim), keepdim);
}

// ---------------------------------------------------------------- scans
namespace {
// out[..., k, ...] = x[..., 0, ...] (op) ... (op) x[..., k, ...] along the middle dim of a
// contiguous [outer, L, inner] block, accumulating in double (floats) or wrapping 64-bit integers.
template <typename T, bool IsProd>
void scan_loop(const T* in, T* o, int64_t outer, int64_t L, int64_t inner) {
  using acc_t = std::conditional_t<kIsFloat<T>, double, uint64_t>;
  constexpr int64_t IC = 256;
  const int64_t nb = (inner + IC - 1) / IC, tasks = outer * nb;
  const int64_t grain = at::internal::grain_for_tasks(outer * L * inner, tasks);
  at::parallel_for(0, tasks, grain, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; ++t) {
      const int64_t ob = t / nb, i0 = (t % nb) * IC, n = std::min(IC, inner - i0);
      const T* src = in + ob * L * inner + i0;
      T* dst = o + ob * L * inner + i0;
      if (inner == 1) {  // one contiguous line
        acc_t a = acc_t(IsProd ? 1 : 0);
        for (int64_t k = 0; k < L; ++k) {
          if constexpr (IsProd) a *= to_acc<acc_t>(src[k]);
          else a += to_acc<acc_t>(src[k]);
          dst[k] = from_acc<T>(a);
        }
        continue;
      }
      acc_t a[IC];
      for (int64_t i = 0; i < n; ++i) a[i] = acc_t(IsProd ? 1 : 0);
      for (int64_t k = 0; k < L; ++k) {
        for (int64_t i = 0; i < n; ++i) {
          if constexpr (IsProd) a[i] *= to_acc<acc_t>(src[k * inner + i]);
          else a[i] += to_acc<acc_t>(src[k * inner + i]);
          dst[k * inner + i] = from_acc<T>(a[i]);
        }
      }
    }
  });
}

template <bool IsProd>
Tensor scan(const char* op, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  check_cpu(op, self);
  const int64_t d = maybe_wrap_dim(dim, self.dim(), op);
  const ScalarType out_dt = sum_dtype(self, dtype);
  Tensor x = (self.scalar_type() == out_dt ? self : self.to(out_dt)).contiguous();
  Tensor out = at::empty(x.sizes(), at::TensorOptions().dtype(out_dt));
  if (x.numel() == 0) return out;
  const reduce::Lines lines = reduce::lines_along(x, d);
  const int64_t outer = lines.outer, L = lines.L, inner = lines.inner;
  EMBER_DISPATCH_ALL(out_dt, op, [&] { scan_loop<scalar_t, IsProd>(x.const_data_ptr<scalar_t>(), out._mutable_data_ptr_internal<scalar_t>(), outer, L, inner); });
  return out;
}
}  // namespace

Tensor cumsum_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return scan<false>("cumsum", self, dim, dtype); }
Tensor cumprod_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return scan<true>("cumprod", self, dim, dtype); }

EMBER_REGISTER_DISPATCH(sum_dim_cpu_stub, &sum_dim_cpu);
EMBER_REGISTER_DISPATCH(prod_cpu_stub, &prod_cpu);
EMBER_REGISTER_DISPATCH(prod_dim_cpu_stub, &prod_dim_cpu);
EMBER_REGISTER_DISPATCH(max_cpu_stub, &max_cpu);
EMBER_REGISTER_DISPATCH(min_cpu_stub, &min_cpu);
EMBER_REGISTER_DISPATCH(max_dim_cpu_stub, &max_dim_cpu);
EMBER_REGISTER_DISPATCH(min_dim_cpu_stub, &min_dim_cpu);
EMBER_REGISTER_DISPATCH(amax_cpu_stub, &amax_cpu);
EMBER_REGISTER_DISPATCH(amin_cpu_stub, &amin_cpu);
EMBER_REGISTER_DISPATCH(argmax_cpu_stub, &argmax_cpu);
EMBER_REGISTER_DISPATCH(argmin_cpu_stub, &argmin_cpu);
EMBER_REGISTER_DISPATCH(var_correction_cpu_stub, &var_correction_cpu);
EMBER_REGISTER_DISPATCH(std_correction_cpu_stub, &std_correction_cpu);
EMBER_REGISTER_DISPATCH(norm_cpu_stub, &norm_cpu);
EMBER_REGISTER_DISPATCH(logsumexp_cpu_stub, &logsumexp_cpu);
EMBER_REGISTER_DISPATCH(all_cpu_stub, &all_cpu);
EMBER_REGISTER_DISPATCH(any_cpu_stub, &any_cpu);
EMBER_REGISTER_DISPATCH(all_dim_cpu_stub, &all_dim_cpu);
EMBER_REGISTER_DISPATCH(any_dim_cpu_stub, &any_dim_cpu);
EMBER_REGISTER_DISPATCH(cumsum_cpu_stub, &cumsum_cpu);
EMBER_REGISTER_DISPATCH(cumprod_cpu_stub, &cumprod_cpu);

}  // namespace EMBER_CPU_NS
}  // namespace at::native
