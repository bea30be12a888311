// Batch normalisation's CPU passes (see aten/ATen/native/cpu/BatchNorm.h), compiled once per CPU
// capability level (Note [CPU capability levels]); the entry points are in kernels/cpu/batch_norm.cpp. The input is viewed as
// (N, C, S): channel c's values are N runs of S contiguous elements, S = 1 for (N, C) inputs.
// Sums accumulate in double: the mean first, then the squared deviations from it (two reads of a
// channel that stays in cache between them), so a large mean does not cost the variance digits.
//
// Note [Channels-last batch norm]
// A 4-d channels-last input (and not also contiguous) is (R, C) memory, R = N * H * W rows of C
// channels. Its passes run over rows with the channels innermost (per-channel accumulators and
// factors, which vectorise over c): the sums in blocks of rows_per_block rows, each block's partial
// sums kept apart and added in block order at the end, so the results do not depend on the thread
// count; the output and the input gradient are channels-last too. A channel's values are not
// cache-resident between passes here, so the statistics take one read (sums of x - x0 and its
// square, x0 a value of the channel: stats_cl) and the backward's two sums one read of dy and x. Before this path such inputs
// went through the composed ops (libtorch's channels-last kernel took 2.6 ms, the composed ops
// 11.6 ms for the 8x64x56^2 fwd+bwd at 1 thread).
#include <ATen/native/DispatchStub.h>
#include <ATen/native/cpu/BatchNorm.h>
#include <ATen/Parallel.h>
#include <ATen/Utils.h>
#include <ATen/native/cpu/Vec.h>
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>
#include <omp.h>

namespace at::native::cpu {
namespace EMBER_CPU_NS {  // Note [CPU capability levels]
namespace {

struct Layout {
  int64_t N, C, S;
};

Layout layout_of(const Tensor& input) {
  const int64_t N = input.size(0), C = input.size(1);
  return {N, C, C == 0 || N == 0 ? 0 : input.numel() / (N * C)};
}

int64_t task_grain(const Tensor& input, int64_t tasks) { return at::internal::grain_for_tasks(input.numel(), tasks); }

// Note [Channels-last batch norm]: a 4-d input in channels-last memory (batch_norm_supported takes
// contiguous or channels-last inputs; one that is both runs as contiguous).
bool rows_of_channels(const Tensor& input) { return !input.is_contiguous(); }

Tensor empty_like_layout(const Tensor& input) {
  if (!rows_of_channels(input)) return at::empty(input.sizes(), input.options());
  const int64_t C = input.size(1), H = input.size(2), W = input.size(3);
  return at::empty_strided(input.sizes(), {H * W * C, 1, W * C, C}, input.options());
}

// Rows per block of the channels-last sums: a function of the shape only (not of the thread
// count), at least 64, and enough that the partial sums stay within 2^19 doubles.
int64_t rows_per_block(int64_t R, int64_t C) {
  const int64_t cap = int64_t{1} << 19;
  return std::max<int64_t>(64, (R * C + cap - 1) / cap);
}

// out[k * C + c] = sum over rows of the K terms f adds per channel, accumulated in double per block
// of rows and the blocks added in order (Note [Channels-last batch norm]). Within a block the
// channels go kChunk at a time, each chunk's K * kChunk accumulators in registers across the
// block's rows (which stay in L1 between chunks): `f(r, c, n, acc)` adds row r's terms for channels
// [c, c + n) into acc[k * kChunk + j].
constexpr int64_t kChunk = 16;
// With A = float (the backward's sums for a float input, Note [Channels-last batch norm]) a row's
// terms go into float partials, which are added to the double accumulators every kFloatRows rows.
constexpr int64_t kFloatRows = 8;
template <int K, typename A = double, int64_t W = kChunk, typename F>
void channel_sums(int64_t R, int64_t C, const F& f, double* out) {
  const int64_t rpb = rows_per_block(R, K * C), nb = (R + rpb - 1) / rpb, width = K * C;
  std::vector<double> part(static_cast<size_t>(nb * width), 0.0);
  at::parallel_for(0, nb, at::internal::grain_for_tasks(R * C, nb), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t r0 = b * rpb, r1 = std::min(R, r0 + rpb);
      double* dst = part.data() + b * width;
      for (int64_t c = 0; c < C; c += W) {
        double acc[K * W] = {};
        const int64_t n = std::min(W, C - c);
        // Double terms go straight into acc's copy for the whole block; float ones kFloatRows at a time.
        const int64_t sub = std::is_same_v<A, double> ? rpb : kFloatRows;
        for (int64_t s0 = r0; s0 < r1; s0 += sub) {
          const int64_t s1 = std::min(r1, s0 + sub);
          A fa[K * W] = {};
          if (n == W) {
            for (int64_t r = s0; r < s1; ++r) f(r, c, W, fa);  // a constant count: unrolled, in registers
          } else {
            for (int64_t r = s0; r < s1; ++r) f(r, c, n, fa);
          }
          for (int64_t j = 0; j < K * W; ++j) acc[j] += static_cast<double>(fa[j]);
        }
        for (int k = 0; k < K; ++k)
          for (int64_t j = 0; j < n; ++j) dst[k * C + c + j] = acc[k * W + j];
      }
    }
  });
  for (int64_t j = 0; j < width; ++j) out[j] = 0;
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t j = 0; j < width; ++j) out[j] += part[static_cast<size_t>(b * width + j)];
}

// One read of the input: the sums of d = x - x0 and of d^2 per channel, x0 the channel's value in
// the first row (0 where that is inf or NaN), then mean = x0 + E[d] and var = E[d^2] - E[d]^2. In
// double and shifted by a value of the data, the subtraction loses about (mean - x0)^2 / var ulps
// of a double: nothing a float or double result sees unless the first row lies millions of
// standard deviations out. An inf in a channel gives mean ±inf (NaN with both signs) and var NaN, a
// NaN gives NaN for both, as the two-pass NCHW statistics do.
template <typename T>
void stats_cl(const T* x, int64_t R, int64_t C, double* mean, double* var) {
  std::vector<double> x0(static_cast<size_t>(C)), sums(static_cast<size_t>(2 * C));
  for (int64_t c = 0; c < C; ++c) {
    const double v = static_cast<double>(x[c]);
    x0[static_cast<size_t>(c)] = std::isfinite(v) ? v : 0.0;
  }
  const double* shift = x0.data();
  constexpr int64_t kW = ember::pw::VF::size >= 16 ? 64 : kChunk;  // 16 AVX-512 registers of double sums
  channel_sums<2, double, kW>(R, C, [&](int64_t r, int64_t c, int64_t n, double* acc) {
    const T* xr = x + r * C + c;
    for (int64_t j = 0; j < n; ++j) {
      const double d = static_cast<double>(xr[j]) - shift[c + j];
      acc[j] += d;
      acc[kW + j] += d * d;
    }
  }, sums.data());
  const double n = static_cast<double>(R);
  for (int64_t c = 0; c < C; ++c) {
    const double md = sums[static_cast<size_t>(c)] / n;
    mean[c] = shift[c] + md;
    const double v = sums[static_cast<size_t>(C + c)] / n - md * md;
    var[c] = v < 0 ? 0.0 : v;  // rounding can leave a tiny negative; NaN stays NaN
  }
}

template <typename T>
void apply_cl(const T* x, const T* scale, const T* shift, int64_t R, int64_t C, T* y) {
  at::parallel_for(0, R, at::internal::grain_for_tasks(R * C, R), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * C;
      T* yr = y + r * C;
      for (int64_t c = 0; c < C; ++c) yr[c] = xr[c] * scale[c] + shift[c];
    }
  });
}

// The NCHW backward_impl's formulas, over rows of channels.
template <typename T>
void backward_cl(const T* g, const T* x, const T* mp, const T* ip, const T* wp, int64_t R, int64_t C, T* dx, T* gw, T* gb) {
  // sum(dy) and sum(dy * (x - mean)) per channel in one read of both.
  // For a float input the terms are summed in float over kFloatRows rows at a time and those
  // partials in double (channel_sums): a term then sees at most kFloatRows + 2 float roundings (its
  // difference's, its product's, the chain's) before it reaches double, so the error stays below
  // ~10 u_float * sum|term| at any R. Summed in double throughout, every value of dy and x was
  // converted (vcvtps2pd held 29% of the backward's samples); the statistics stay in double, as
  // their shifted sum of squares cancels (E[d^2] - E[d]^2) and these sums do not. The float
  // partials of 64 channels fit in registers, so a row is read once, in order, rather than a
  // 16-channel chunk at a time (the statistics' double sums take 64 channels at AVX-512 too). On a
  // Zen 4 the 8x64x56^2 channels-last fwd+bwd went from 1.97-2.83 ms at 1 thread (libtorch
  // 1.88-2.45) to 1.25-1.36 (libtorch 1.77-2.03); at 2 threads 0.63-0.72 against 0.92-0.98.
  std::vector<double> sums(static_cast<size_t>(2 * C));
  if constexpr (std::is_same_v<T, float>) {
    // A chunk of 64 channels is 8 AVX-512 registers of float partials (32 on AVX2 levels).
    constexpr int64_t kW = ember::pw::VF::size >= 16 ? 64 : ember::pw::VF::size >= 8 ? 32 : kChunk;
    channel_sums<2, float, kW>(R, C, [&](int64_t r, int64_t c, int64_t n, float* acc) {
      const float *gr = g + r * C + c, *xr = x + r * C + c, *mr = mp + c;
      for (int64_t j = 0; j < n; ++j) {
        acc[j] += gr[j];
        acc[kW + j] += gr[j] * (xr[j] - mr[j]);
      }
    }, sums.data());
  } else {
    std::vector<double> m(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) m[static_cast<size_t>(c)] = static_cast<double>(mp[c]);
    const double* mv = m.data();
    channel_sums<2>(R, C, [&](int64_t r, int64_t c, int64_t n, double* acc) {
      const T *gr = g + r * C + c, *xr = x + r * C + c;
      for (int64_t j = 0; j < n; ++j) {
        const double gv = static_cast<double>(gr[j]);
        acc[j] += gv;
        acc[kChunk + j] += gv * (static_cast<double>(xr[j]) - mv[c + j]);
      }
    }, sums.data());
  }
  const double *sum_dy = sums.data(), *dot = sums.data() + C;
  std::vector<T> k_scale(static_cast<size_t>(C)), k_shift(static_cast<size_t>(C)), k_centered(static_cast<size_t>(C));
  const double count = static_cast<double>(R);
  for (int64_t c = 0; c < C; ++c) {
    const size_t i = static_cast<size_t>(c);
    const double inv = static_cast<double>(ip[c]);
    gb[c] = static_cast<T>(sum_dy[c]);
    gw[c] = static_cast<T>(dot[c] * inv);
    const double scale = inv * (wp ? static_cast<double>(wp[c]) : 1.0);
    k_scale[i] = static_cast<T>(scale);
    k_shift[i] = static_cast<T>(-scale * sum_dy[c] / count);
    k_centered[i] = static_cast<T>(-scale * inv * inv * dot[c] / count);
  }
  if (!dx) return;
  const T *ks = k_scale.data(), *kh = k_shift.data(), *kc = k_centered.data();
  at::parallel_for(0, R, at::internal::grain_for_tasks(R * C, R), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T *gr = g + r * C, *xr = x + r * C;
      T* dr = dx + r * C;
      for (int64_t c = 0; c < C; ++c) dr[c] = gr[c] * ks[c] + kh[c] + (xr[c] - mp[c]) * kc[c];
    }
  });
}

// Four partial sums in double per call, so the adds of consecutive elements do not wait on each other.
#if defined(__AVX2__)
inline __m256d lo_pd(__m256 v) { return _mm256_cvtps_pd(_mm256_castps256_ps128(v)); }
inline __m256d hi_pd(__m256 v) { return _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)); }
inline double hsum(__m256d v) {
  alignas(32) double a[4];
  _mm256_store_pd(a, v);
  return (a[0] + a[1]) + (a[2] + a[3]);
}
#endif

// sum(x[0..n)) and, with dev, sum((x - m)^2) over the same run.
template <typename T>
double run_sum(const T* x, int64_t n) {
  int64_t i = 0;
  double s = 0;
#if defined(__AVX2__)
  __m256d a0 = _mm256_setzero_pd(), a1 = a0;
  if constexpr (std::is_same_v<T, float>) {
    for (; i + 8 <= n; i += 8) {
      const __m256 v = _mm256_loadu_ps(x + i);
      a0 = _mm256_add_pd(a0, lo_pd(v));
      a1 = _mm256_add_pd(a1, hi_pd(v));
    }
  } else {
    for (; i + 8 <= n; i += 8) {
      a0 = _mm256_add_pd(a0, _mm256_loadu_pd(x + i));
      a1 = _mm256_add_pd(a1, _mm256_loadu_pd(x + i + 4));
    }
  }
  s = hsum(_mm256_add_pd(a0, a1));
#endif
  for (; i < n; ++i) s += static_cast<double>(x[i]);
  return s;
}

template <typename T>
double run_sq_dev(const T* x, int64_t n, double m) {
  int64_t i = 0;
  double s = 0;
#if defined(__AVX2__)
  const __m256d mv = _mm256_set1_pd(m);
  __m256d a0 = _mm256_setzero_pd(), a1 = a0;
  for (; i + 8 <= n; i += 8) {
    __m256d d0, d1;
    if constexpr (std::is_same_v<T, float>) {
      const __m256 v = _mm256_loadu_ps(x + i);
      d0 = _mm256_sub_pd(lo_pd(v), mv);
      d1 = _mm256_sub_pd(hi_pd(v), mv);
    } else {
      d0 = _mm256_sub_pd(_mm256_loadu_pd(x + i), mv);
      d1 = _mm256_sub_pd(_mm256_loadu_pd(x + i + 4), mv);
    }
    a0 = _mm256_fmadd_pd(d0, d0, a0);
    a1 = _mm256_fmadd_pd(d1, d1, a1);
  }
  s = hsum(_mm256_add_pd(a0, a1));
#endif
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - m;
    s += d * d;
  }
  return s;
}

// sum(dy) and sum(dy * (x - m)) over one run.
template <typename T>
void run_grad_sums(const T* dy, const T* x, int64_t n, double m, double& sum_dy, double& dot) {
  int64_t i = 0;
  double s = 0, p = 0;
#if defined(__AVX2__)
  const __m256d mv = _mm256_set1_pd(m);
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, p0 = s0, p1 = s0;
  for (; i + 8 <= n; i += 8) {
    __m256d g0, g1, x0, x1;
    if constexpr (std::is_same_v<T, float>) {
      const __m256 g = _mm256_loadu_ps(dy + i), v = _mm256_loadu_ps(x + i);
      g0 = lo_pd(g), g1 = hi_pd(g), x0 = lo_pd(v), x1 = hi_pd(v);
    } else {
      g0 = _mm256_loadu_pd(dy + i), g1 = _mm256_loadu_pd(dy + i + 4);
      x0 = _mm256_loadu_pd(x + i), x1 = _mm256_loadu_pd(x + i + 4);
    }
    s0 = _mm256_add_pd(s0, g0);
    s1 = _mm256_add_pd(s1, g1);
    p0 = _mm256_fmadd_pd(g0, _mm256_sub_pd(x0, mv), p0);
    p1 = _mm256_fmadd_pd(g1, _mm256_sub_pd(x1, mv), p1);
  }
  s = hsum(_mm256_add_pd(s0, s1));
  p = hsum(_mm256_add_pd(p0, p1));
#endif
  for (; i < n; ++i) {
    s += static_cast<double>(dy[i]);
    p += static_cast<double>(dy[i]) * (static_cast<double>(x[i]) - m);
  }
  sum_dy += s;
  dot += p;
}

template <typename T>
void stats_impl(const T* x, const Layout& L, int64_t grain, double* mean, double* var) {
  const double count = static_cast<double>(L.N * L.S);
  at::parallel_for(0, L.C, grain, [&](int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c) {
    double s = 0;
    for (int64_t n = 0; n < L.N; ++n) s += run_sum(x + (n * L.C + c) * L.S, L.S);
    const double m = s / count;
    double q = 0;
    for (int64_t n = 0; n < L.N; ++n) q += run_sq_dev(x + (n * L.C + c) * L.S, L.S, m);
    mean[c] = m;
    var[c] = q / count;
  }
  });
}

template <typename T>
void apply_impl(const T* x, const T* scale, const T* shift, const Layout& L, int64_t grain, T* y) {
  at::parallel_for(0, L.N * L.C, grain, [&](int64_t nc0, int64_t nc1) {
  for (int64_t nc = nc0; nc < nc1; ++nc) {
    const T k = scale[nc % L.C], d = shift[nc % L.C];
    const T* xr = x + nc * L.S;
    T* yr = y + nc * L.S;
    for (int64_t i = 0; i < L.S; ++i) yr[i] = xr[i] * k + d;
  }
  });
}

// Per channel: sum(dy) and sum(dy * (x - mean)) in one read, then dx from the same (cached) values:
// dx = scale * (dy - sum(dy) / n - (x - mean) * invstd^2 * sum(dy * (x - mean)) / n) with
// scale = invstd * weight, as dy * scale + k_shift + (x - mean) * k_centered.
template <typename T>
void backward_impl(const T* g, const T* x, const T* mp, const T* ip, const T* wp, const Layout& L, int64_t grain, T* dx,
                   T* gw, T* gb) {
  const double count = static_cast<double>(L.N * L.S);
  at::parallel_for(0, L.C, grain, [&](int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c) {
    const T m = mp[c], inv = ip[c];
    double sum_dy = 0, dot = 0;
    for (int64_t n = 0; n < L.N; ++n) {
      const int64_t off = (n * L.C + c) * L.S;
      run_grad_sums(g + off, x + off, L.S, static_cast<double>(m), sum_dy, dot);
    }
    gb[c] = static_cast<T>(sum_dy);
    gw[c] = static_cast<T>(dot * static_cast<double>(inv));
    if (!dx) continue;
    const double scale = static_cast<double>(inv) * (wp ? static_cast<double>(wp[c]) : 1.0);
    const T k_scale = static_cast<T>(scale);
    const T k_shift = static_cast<T>(-scale * sum_dy / count);
    const T k_centered = static_cast<T>(-scale * static_cast<double>(inv) * static_cast<double>(inv) * dot / count);
    for (int64_t n = 0; n < L.N; ++n) {
      const int64_t off = (n * L.C + c) * L.S;
      const T *gr = g + off, *xr = x + off;
      T* dr = dx + off;
      for (int64_t i = 0; i < L.S; ++i) dr[i] = gr[i] * k_scale + k_shift + (xr[i] - m) * k_centered;
    }
  }
  });
}

void stats_entry(const Tensor& input, std::vector<double>& mean, std::vector<double>& var) {
  const Layout L = layout_of(input);
  mean.assign(static_cast<size_t>(L.C), 0.0);
  var.assign(static_cast<size_t>(L.C), 0.0);
  AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "batch_norm_stats", [&] {
    if (rows_of_channels(input)) stats_cl(input.const_data_ptr<scalar_t>(), L.N * L.S, L.C, mean.data(), var.data());
    else stats_impl(input.const_data_ptr<scalar_t>(), L, task_grain(input, L.C), mean.data(), var.data());
  });
}

Tensor apply_entry(const Tensor& input, const Tensor& scale, const Tensor& shift) {
  const Layout L = layout_of(input);
  Tensor out = empty_like_layout(input);
  const Tensor sc = scale.contiguous(), sh = shift.contiguous();
  AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "batch_norm_apply", [&] {
    if (rows_of_channels(input))
      return apply_cl(input.const_data_ptr<scalar_t>(), sc.const_data_ptr<scalar_t>(), sh.const_data_ptr<scalar_t>(), L.N * L.S, L.C,
                      out._mutable_data_ptr_internal<scalar_t>());
    apply_impl(input.const_data_ptr<scalar_t>(), sc.const_data_ptr<scalar_t>(), sh.const_data_ptr<scalar_t>(), L,
               task_grain(input, L.N * L.C), out._mutable_data_ptr_internal<scalar_t>());
  });
  return out;
}

std::tuple<Tensor, Tensor, Tensor> backward_entry(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& invstd,
                                                       std::array<bool, 3> grad_input_mask) {
  const Layout L = layout_of(input);
  const bool cl = rows_of_channels(input);
  const Tensor dy = cl ? grad.contiguous(MemoryFormat::ChannelsLast) : grad.contiguous();
  const auto opts = input.options();
  Tensor grad_input = grad_input_mask[0] ? empty_like_layout(input) : Tensor();
  Tensor grad_weight = at::empty({L.C}, opts), grad_bias = at::empty({L.C}, opts);
  const Tensor m_t = mean.contiguous(), i_t = invstd.contiguous();
  const Tensor w_t = weight.defined() ? weight.contiguous() : Tensor();
  AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "batch_norm_backward", [&] {
    if (cl)
      return backward_cl(dy.const_data_ptr<scalar_t>(), input.const_data_ptr<scalar_t>(), m_t.const_data_ptr<scalar_t>(),
                         i_t.const_data_ptr<scalar_t>(), w_t.defined() ? w_t.const_data_ptr<scalar_t>() : nullptr, L.N * L.S, L.C,
                         grad_input.defined() ? grad_input._mutable_data_ptr_internal<scalar_t>() : nullptr, grad_weight._mutable_data_ptr_internal<scalar_t>(),
                         grad_bias._mutable_data_ptr_internal<scalar_t>());
    backward_impl(dy.const_data_ptr<scalar_t>(), input.const_data_ptr<scalar_t>(), m_t.const_data_ptr<scalar_t>(),
                  i_t.const_data_ptr<scalar_t>(), w_t.defined() ? w_t.const_data_ptr<scalar_t>() : nullptr, L,
                  task_grain(input, L.C), grad_input.defined() ? grad_input._mutable_data_ptr_internal<scalar_t>() : nullptr,
                  grad_weight._mutable_data_ptr_internal<scalar_t>(), grad_bias._mutable_data_ptr_internal<scalar_t>());
  });
  return {grad_input, grad_input_mask[1] && weight.defined() ? grad_weight : Tensor(),
          grad_input_mask[2] ? grad_bias : Tensor()};
}

}  // namespace

EMBER_REGISTER_DISPATCH(batch_norm_stats_stub, &stats_entry);
EMBER_REGISTER_DISPATCH(batch_norm_apply_stub, &apply_entry);
EMBER_REGISTER_DISPATCH(batch_norm_backward_stub, &backward_entry);

}  // namespace EMBER_CPU_NS
}  // namespace at::native::cpu
