// _softmax and _log_softmax on the CPU (the kernels under at::softmax / at::log_softmax), compiled
// once per CPU capability level (Note [CPU capability levels]); entry points in kernels/cpu/softmax.cpp.
//
// Numerically stable: every line subtracts its maximum before exponentiating. Two loops:
//   - softmax over the last (contiguous) dim: per row max, sum of exp, then scale; the exp loop
//     uses the SIMD Vec path for float/double when available;
//   - softmax over any other dim of a contiguous tensor: blocks of the contiguous inner dims are
//     processed together, striding over the softmax dim, so the inner loops vectorise.
// Half/BFloat16 compute in float; sums accumulate in double. Every exponential, in either loop and
// in a row's last n % W elements too, is the vector exp of Vec.h (Note [One vector-math source] in
// cpu/Loops.h): an element's e^(x - max) has the same bits whatever the row length or the dim.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/cpu/SoftmaxKernel.h>
#include <ATen/native/ReduceUtils.h>
#include <ATen/Parallel.h>
#include <ATen/Utils.h>
#include <ATen/native/cpu/Vec.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <omp.h>
#include <vector>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace at::native {
namespace EMBER_CPU_NS {  // Note [CPU capability levels]
namespace {

constexpr int64_t kGrain = at::kGrainSize;

template <typename T>
inline constexpr bool kVecExp = std::is_same_v<T, float> || std::is_same_v<T, double>;

// y[i] = e^(x[i] - m) for the n < W elements of a row's tail, as one zero-padded vector (the
// vector body's subtraction and exp, lane by lane the same); returns their sum in double.
template <typename T>
inline double exp_tail(const T* x, T* y, int64_t n, T m) {
  using V = ember::pw::Vec<T>;
  alignas(64) T b[V::size] = {};
  for (int64_t k = 0; k < n; ++k) b[k] = x[k] - m;
  ember::pw::exp(V::load(b)).store(b);
  double s = 0;
  for (int64_t k = 0; k < n; ++k) {
    y[k] = b[k];
    s += static_cast<double>(b[k]);
  }
  return s;
}

// y[i] = e^(y[i]) for i < n: whole vectors, then the rest as one zero-padded vector.
template <typename T>
inline void exp_inplace(T* y, int64_t n) {
  if constexpr (kVecExp<T>) {
    using V = ember::pw::Vec<T>;
    constexpr int64_t W = V::size;
    int64_t i = 0;
    for (; i + W <= n; i += W) ember::pw::exp(V::load(y + i)).store(y + i);
    if (i < n) exp_tail(y + i, y + i, n - i, T(0));
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = std::exp(y[i]);
  }
}

#if defined(__AVX2__)
// Adds 8 (AVX2) or 16 (AVX-512) floats into double accumulators: independent vector adds, so the
// double sum costs no more than the float one would.
struct DoubleAcc {
#if defined(__AVX512F__)
  static constexpr int64_t kWidth = 16;
  __m512d a = _mm512_setzero_pd(), b = _mm512_setzero_pd();
  void add(const float* p) { add(_mm512_loadu_ps(p)); }
  void add(__m512 v) {
    a = _mm512_add_pd(a, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
    b = _mm512_add_pd(b, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
  }
  double total() const {
    alignas(64) double t[8];
    _mm512_store_pd(t, _mm512_add_pd(a, b));
    return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
  }
#else
  static constexpr int64_t kWidth = 8;
  __m256d a = _mm256_setzero_pd(), b = _mm256_setzero_pd();
  void add(const float* p) { add(_mm256_loadu_ps(p)); }
  void add(__m256 v) {
    a = _mm256_add_pd(a, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    b = _mm256_add_pd(b, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
  }
  double total() const {
    alignas(32) double t[4];
    _mm256_store_pd(t, _mm256_add_pd(a, b));
    return (t[0] + t[1]) + (t[2] + t[3]);
  }
#endif
};
#endif

// y[i] = exp(x[i] - mx) for i < n; returns the sum of y in double.
template <typename T>
inline double exp_shifted(const T* x, T* y, int64_t n, T mx) {
  int64_t i = 0;
  double s = 0;
#ifdef EMBER_HAVE_VEC
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using V = ember::pw::Vec<T>;
    constexpr int W = V::size;
    const V vm(mx);
    for (; i + W <= n; i += W) (ember::pw::exp(V::load(x + i) - vm)).store(y + i);
    // The sum in a second pass over the (cache-resident) results.
    int64_t j = 0;
#if defined(__AVX2__)
    if constexpr (std::is_same_v<T, float>) {
      DoubleAcc acc;
      for (; j + DoubleAcc::kWidth <= i; j += DoubleAcc::kWidth) acc.add(y + j);
      s = acc.total();
    }
#endif
    for (; j < i; ++j) s += static_cast<double>(y[j]);
  }
#endif
  if constexpr (kVecExp<T>) {
    if (i < n) s += exp_tail(x + i, y + i, n - i, mx);
  } else {
    for (; i < n; ++i) {
      y[i] = std::exp(x[i] - mx);
      s += y[i];
    }
  }
  return s;
}

#ifdef EMBER_HAVE_VEC
// Note [Softmax rows in place]: float and double rows (input, output and compute type the same)
// skip the staging buffer: the max pass reads the input, one pass writes exp(x - max) to the
// output (log_softmax uses it as scratch) while summing it in double vector accumulators, and the
// last pass scales the output in place (softmax) or writes x - (max + log(sum)) over it. The exp
// pass is compute-bound, so it also prefetches the next row: the next max pass then reads from
// cache instead of stalling on memory (perf put a quarter of the 1-thread time on that pass's loads).
template <typename T>
void softmax_row_direct(const T* x, T* y, int64_t L, bool log, const T* next) {
  using V = ember::pw::Vec<T>;
  constexpr int64_t W = V::size;
  static_assert(W * sizeof(T) <= 64, "one prefetch per vector covers every cache line");
  T mx = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  {
    V m0(mx), m1(mx), m2(mx), m3(mx);
    for (; i + 4 * W <= L; i += 4 * W) {
      m0 = ember::pw::max_nan(m0, V::load(x + i));
      m1 = ember::pw::max_nan(m1, V::load(x + i + W));
      m2 = ember::pw::max_nan(m2, V::load(x + i + 2 * W));
      m3 = ember::pw::max_nan(m3, V::load(x + i + 3 * W));
    }
    for (; i + W <= L; i += W) m0 = ember::pw::max_nan(m0, V::load(x + i));
    alignas(64) T lanes[W];
    ember::pw::max_nan(ember::pw::max_nan(m0, m1), ember::pw::max_nan(m2, m3)).store(lanes);
    for (int k = 0; k < W; ++k) mx = std::isnan(lanes[k]) || std::isnan(mx) ? NAN : std::max(mx, lanes[k]);
    for (; i < L; ++i) mx = std::isnan(x[i]) || std::isnan(mx) ? NAN : std::max(mx, x[i]);
  }
  double s = 0;
  i = 0;
  {
    const V vm(mx);
#if defined(__AVX2__)
    if constexpr (std::is_same_v<T, float>) {
      DoubleAcc acc;
      for (; i + W <= L; i += W) {
        if (next) __builtin_prefetch(next + i, 0, 3);
        const V e = ember::pw::exp(V::load(x + i) - vm);
        e.store(y + i);
        acc.add(e.v);
      }
      s = acc.total();
    } else
#endif
    {
      V a(T(0));  // double rows sum in their own vectors (exp hides the add's latency); SSE2 float rows afterwards
      for (; i + W <= L; i += W) {
        if (next) __builtin_prefetch(next + i, 0, 3);
        const V e = ember::pw::exp(V::load(x + i) - vm);
        e.store(y + i);
        if constexpr (std::is_same_v<T, double>) a = a + e;
      }
      if constexpr (std::is_same_v<T, double>) {
        alignas(64) double t[W];
        a.store(t);
        for (int k = 0; k < W; ++k) s += t[k];
      } else {
        for (int64_t j = 0; j < i; ++j) s += static_cast<double>(y[j]);
      }
    }
    if (i < L) s += exp_tail(x + i, y + i, L - i, mx);
  }
  i = 0;
  if (log) {
    const T shift = mx + static_cast<T>(std::log(s));
    const V vs(shift);
    for (; i + W <= L; i += W) (V::load(x + i) - vs).store(y + i);
    for (; i < L; ++i) y[i] = x[i] - shift;
  } else {
    const T inv = static_cast<T>(1.0 / s);
    const V vi(inv);
    for (; i + W <= L; i += W) (V::load(y + i) * vi).store(y + i);
    for (; i < L; ++i) y[i] = y[i] * inv;
  }
}
#endif

template <typename in_t, typename out_t>
void softmax_lastdim(const in_t* in, out_t* out, int64_t rows, int64_t L, bool log) {
  using op_t = c10::opmath_t<in_t>;
#ifdef EMBER_HAVE_VEC
  if constexpr (std::is_same_v<in_t, op_t> && std::is_same_v<out_t, op_t> &&
                (std::is_same_v<op_t, float> || std::is_same_v<op_t, double>)) {
    at::parallel_for(0, rows, at::internal::grain_for_tasks(rows * L, rows), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        softmax_row_direct(in + r * L, out + r * L, L, log, r + 1 < r1 ? in + (r + 1) * L : nullptr);
    });
    return;
  }
#endif
  at::parallel_for(0, rows, at::internal::grain_for_tasks(rows * L, rows), [&](int64_t r0, int64_t r1) {
    std::vector<op_t> buf(static_cast<size_t>(L)), ebuf(log ? static_cast<size_t>(L) : 0);
    for (int64_t r = r0; r < r1; ++r) {
      const in_t* x = in + r * L;
      out_t* y = out + r * L;
      op_t* xb = buf.data();
      // The row's maximum (NaN anywhere makes the row NaN through exp, whichever max is taken).
      op_t mx = -std::numeric_limits<op_t>::infinity();
      int64_t i = 0;
#ifdef EMBER_HAVE_VEC
      if constexpr (std::is_same_v<in_t, op_t> && (std::is_same_v<op_t, float> || std::is_same_v<op_t, double>)) {
        using V = ember::pw::Vec<op_t>;
        // Four running maxima: independent chains of the max's latency.
        V m0(mx), m1(mx), m2(mx), m3(mx);
        constexpr int64_t W = V::size;
        for (; i + 4 * W <= L; i += 4 * W) {
          const V v0 = V::load(x + i), v1 = V::load(x + i + W), v2 = V::load(x + i + 2 * W), v3 = V::load(x + i + 3 * W);
          v0.store(xb + i);
          v1.store(xb + i + W);
          v2.store(xb + i + 2 * W);
          v3.store(xb + i + 3 * W);
          m0 = ember::pw::max_nan(m0, v0);
          m1 = ember::pw::max_nan(m1, v1);
          m2 = ember::pw::max_nan(m2, v2);
          m3 = ember::pw::max_nan(m3, v3);
        }
        for (; i + W <= L; i += W) {
          const V v = V::load(x + i);
          v.store(xb + i);
          m0 = ember::pw::max_nan(m0, v);
        }
        alignas(64) op_t lanes[W];
        ember::pw::max_nan(ember::pw::max_nan(m0, m1), ember::pw::max_nan(m2, m3)).store(lanes);
        for (int k = 0; k < W; ++k) mx = std::isnan(lanes[k]) || std::isnan(mx) ? NAN : std::max(mx, lanes[k]);
      }
#endif
      for (; i < L; ++i) {
        xb[i] = static_cast<op_t>(x[i]);
        mx = std::max(mx, xb[i]);
      }
      // A row of all -inf stays NaN like libtorch; a +inf max would turn every entry NaN too.
      if (log) {
        const double s = exp_shifted<op_t>(xb, ebuf.data(), L, mx);
        const op_t shift = mx + static_cast<op_t>(std::log(s));
        for (int64_t i = 0; i < L; ++i) y[i] = static_cast<out_t>(xb[i] - shift);
      } else {
        const double s = exp_shifted<op_t>(xb, xb, L, mx);
        const op_t inv = static_cast<op_t>(1.0 / s);
        for (int64_t i = 0; i < L; ++i) y[i] = static_cast<out_t>(xb[i] * inv);
      }
    }
  });
}

template <typename in_t, typename out_t>
void softmax_strided(const in_t* in, out_t* out, int64_t outer, int64_t L, int64_t inner, bool log) {
  using op_t = c10::opmath_t<in_t>;
  constexpr int64_t IC = 128;
  const int64_t nb = (inner + IC - 1) / IC, tasks = outer * nb;
  at::parallel_for(0, tasks, at::internal::grain_for_tasks(outer * L * inner, tasks), [&](int64_t t0, int64_t t1) {
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t o = t / nb, i0 = (t % nb) * IC, n = std::min(IC, inner - i0);
    const in_t* x = in + o * L * inner + i0;
    out_t* y = out + o * L * inner + i0;
    alignas(64) op_t mx[IC], e[IC];
    double s[IC];
    for (int64_t i = 0; i < n; ++i) { mx[i] = -std::numeric_limits<op_t>::infinity(); s[i] = 0; }
    for (int64_t k = 0; k < L; ++k)
      for (int64_t i = 0; i < n; ++i) mx[i] = std::max(mx[i], static_cast<op_t>(x[k * inner + i]));
    // e = exp(x - max) for one k across the block, through the vector exp (exp_inplace).
    const auto exps = [&](int64_t k) {
      for (int64_t i = 0; i < n; ++i) e[i] = static_cast<op_t>(x[k * inner + i]) - mx[i];
      exp_inplace(e, n);
    };
    for (int64_t k = 0; k < L; ++k) {
      exps(k);
      for (int64_t i = 0; i < n; ++i) s[i] += static_cast<double>(e[i]);
    }
    if (log) {
      for (int64_t i = 0; i < n; ++i) mx[i] += static_cast<op_t>(std::log(s[i]));
      for (int64_t k = 0; k < L; ++k)
        for (int64_t i = 0; i < n; ++i) y[k * inner + i] = static_cast<out_t>(static_cast<op_t>(x[k * inner + i]) - mx[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) s[i] = 1.0 / s[i];
      for (int64_t k = 0; k < L; ++k) {
        exps(k);
        for (int64_t i = 0; i < n; ++i) y[k * inner + i] = static_cast<out_t>(e[i] * static_cast<op_t>(s[i]));
      }
    }
  }
  });
}

// The arguments were checked by softmax_cpu / log_softmax_cpu (baseline code: see Note [CPU
// capability levels] on why per-level files leave error messages to the baseline); `d` is wrapped.
Tensor softmax_impl(const char* op, const Tensor& self, int64_t d, bool log) {
  const ScalarType dt = self.scalar_type();
  const ScalarType out_dt = dt;
  Tensor x = self.contiguous();
  Tensor out = at::empty(x.sizes(), at::TensorOptions().dtype(out_dt));
  if (x.numel() == 0) return out;
  const reduce::Lines lines = reduce::lines_along(x, d);
  const int64_t outer = lines.outer, L = lines.L, inner = lines.inner;
  EMBER_DISPATCH_ALL_FLOATING(dt, op, [&] {
    using in_t = scalar_t;
    auto go = [&](auto* o) {
      if (inner == 1) softmax_lastdim(x.const_data_ptr<in_t>(), o, outer, L, log);
      else softmax_strided(x.const_data_ptr<in_t>(), o, outer, L, inner, log);
    };
    if (out_dt == dt) go(out._mutable_data_ptr_internal<in_t>());
    else go(out._mutable_data_ptr_internal<float>());
  });
  return out;
}

}  // namespace

EMBER_REGISTER_DISPATCH(softmax_stub, &softmax_impl);

}  // namespace EMBER_CPU_NS
}  // namespace at::native
