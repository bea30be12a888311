// Batch normalisation's CPU passes (see aten/ATen/native/cpu/BatchNorm.h), compiled once per CPU
// capability level (Note [CPU capability levels]); the entry points are in kernels/cpu/batch_norm.cpp. The input is viewed as
// (N, C, S): channel c's values are N runs of S contiguous elements, S = 1 for (N, C) inputs.
// Sums accumulate in double: the mean first, then the squared deviations from it (two reads of a
// channel that stays in cache between them), so a large mean does not cost the variance digits.
#include <ATen/native/DispatchStub.h>
#include <ATen/native/cpu/BatchNorm.h>
#include <ATen/Parallel.h>
#include <ATen/Utils.h>
#include <ATen/native/cpu/Vec.h>
#include <cmath>
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
    stats_impl(input.data_ptr<scalar_t>(), L, task_grain(input, L.C), mean.data(), var.data());
  });
}

Tensor apply_entry(const Tensor& input, const Tensor& scale, const Tensor& shift) {
  const Layout L = layout_of(input);
  Tensor out = at::empty(input.sizes(), input.options());
  const Tensor sc = scale.contiguous(), sh = shift.contiguous();
  AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "batch_norm_apply", [&] {
    apply_impl(input.data_ptr<scalar_t>(), sc.data_ptr<scalar_t>(), sh.data_ptr<scalar_t>(), L,
               task_grain(input, L.N * L.C), out.data_ptr<scalar_t>());
  });
  return out;
}

std::tuple<Tensor, Tensor, Tensor> backward_entry(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& invstd,
                                                       std::array<bool, 3> grad_input_mask) {
  const Layout L = layout_of(input);
  const Tensor dy = grad.contiguous();
  const auto opts = input.options();
  Tensor grad_input = grad_input_mask[0] ? at::empty(input.sizes(), opts) : Tensor();
  Tensor grad_weight = at::empty({L.C}, opts), grad_bias = at::empty({L.C}, opts);
  const Tensor m_t = mean.contiguous(), i_t = invstd.contiguous();
  const Tensor w_t = weight.defined() ? weight.contiguous() : Tensor();
  AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "batch_norm_backward", [&] {
    backward_impl(dy.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(), m_t.data_ptr<scalar_t>(),
                  i_t.data_ptr<scalar_t>(), w_t.defined() ? w_t.data_ptr<scalar_t>() : nullptr, L,
                  task_grain(input, L.C), grad_input.defined() ? grad_input.data_ptr<scalar_t>() : nullptr,
                  grad_weight.data_ptr<scalar_t>(), grad_bias.data_ptr<scalar_t>());
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
