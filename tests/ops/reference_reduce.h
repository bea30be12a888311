#pragma once
// Naive float64 references for the reduction family (sum, mean, prod, amax/amin, var/std, norm,
// logsumexp, cumsum/cumprod, softmax/log_softmax). Inputs are contiguous float64 CPU tensors;
// everything is plain loops over data_ptr<double>().
#include <ATen/ATen.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace ember_test::ref {

/// Groups the elements of `x` by output position of a reduction over `dim` (None/[] = all dims)
/// and returns f(values) per output, shaped like the libtorch result.
template <typename F>
at::Tensor reduce_values(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim, F f) {
  const int64_t nd = x.dim();
  std::vector<bool> red(static_cast<size_t>(nd), dim.has_value() && !dim->empty() ? false : true);
  if (dim.has_value())
    for (int64_t d : *dim)
      if (nd > 0) red[static_cast<size_t>((d % nd + nd) % nd)] = true;
  std::vector<int64_t> shape, oshape;
  for (int64_t d = 0; d < nd; ++d) {
    if (!red[d]) oshape.push_back(x.size(d));
    if (!red[d]) shape.push_back(x.size(d));
    else if (keepdim) shape.push_back(1);
  }
  int64_t m = 1;
  for (auto s : oshape) m *= s;
  std::vector<std::vector<double>> groups(static_cast<size_t>(m));
  const double* p = x.data_ptr<double>();
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t rem = i, o = 0, mul = 1;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d] = rem % x.size(d);
      rem /= x.size(d);
    }
    for (int64_t d = nd - 1; d >= 0; --d)
      if (!red[d]) { o += idx[d] * mul; mul *= x.size(d); }
    groups[o].push_back(p[i]);
  }
  at::Tensor out = at::empty(shape, at::TensorOptions().dtype(at::kDouble));
  double* q = out.data_ptr<double>();
  for (int64_t i = 0; i < m; ++i) q[i] = f(groups[i]);
  return out;
}

inline at::Tensor sum(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim) {
  return reduce_values(x, dim, keepdim, [](const std::vector<double>& v) { double s = 0; for (double a : v) s += a; return s; });
}
inline at::Tensor mean(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim) {
  return reduce_values(x, dim, keepdim, [](const std::vector<double>& v) {
    double s = 0;
    for (double a : v) s += a;
    return s / static_cast<double>(v.size());
  });
}
inline at::Tensor prod(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim) {
  return reduce_values(x, dim, keepdim, [](const std::vector<double>& v) { double s = 1; for (double a : v) s *= a; return s; });
}
inline at::Tensor amax(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim) {
  return reduce_values(x, dim, keepdim, [](const std::vector<double>& v) {
    double s = -INFINITY;
    for (double a : v) { if (std::isnan(a)) return a; s = std::max(s, a); }
    return s;
  });
}
inline at::Tensor amin(const at::Tensor& x, at::OptionalIntArrayRef dim, bool keepdim) {
  return reduce_values(x, dim, keepdim, [](const std::vector<double>& v) {
    double s = INFINITY;
    for (double a : v) { if (std::isnan(a)) return a; s = std::min(s, a); }
    return s;
  });
}
inline at::Tensor var(const at::Tensor& x, at::OptionalIntArrayRef dim, std::optional<at::Scalar> correction, bool keepdim) {
  const double c = correction ? correction->toDouble() : 1.0;
  return reduce_values(x, dim, keepdim, [c](const std::vector<double>& v) {
    double s = 0;
    for (double a : v) s += a;
    const double mu = s / static_cast<double>(v.size());
    double m2 = 0;
    for (double a : v) m2 += (a - mu) * (a - mu);
    return m2 / std::max(0.0, static_cast<double>(v.size()) - c);
  });
}
inline at::Tensor std(const at::Tensor& x, at::OptionalIntArrayRef dim, std::optional<at::Scalar> correction, bool keepdim) {
  at::Tensor v = ember_test::ref::var(x, dim, correction, keepdim);
  double* p = v.data_ptr<double>();
  for (int64_t i = 0; i < v.numel(); ++i) p[i] = std::sqrt(p[i]);
  return v;
}
inline at::Tensor norm(const at::Tensor& x, const at::Scalar& p, at::IntArrayRef dim, bool keepdim) {
  const double pv = p.toDouble();
  return reduce_values(x, dim, keepdim, [pv](const std::vector<double>& v) {
    if (pv == 0) { double n = 0; for (double a : v) n += a != 0; return n; }
    if (std::isinf(pv)) {
      double r = pv > 0 ? 0.0 : INFINITY;
      for (double a : v) r = pv > 0 ? std::max(r, std::fabs(a)) : std::min(r, std::fabs(a));
      return r;
    }
    double s = 0;
    for (double a : v) s += std::pow(std::fabs(a), pv);
    return std::pow(s, 1.0 / pv);
  });
}
inline at::Tensor logsumexp(const at::Tensor& x, at::IntArrayRef dim, bool keepdim) {
  return reduce_values(x, dim, keepdim, [](const std::vector<double>& v) {
    double mx = -INFINITY;
    for (double a : v) mx = std::max(mx, a);
    if (!std::isfinite(mx)) return mx;
    double s = 0;
    for (double a : v) s += std::exp(a - mx);
    return mx + std::log(s);
  });
}

/// Calls f(offset, stride, length) for every line of contiguous `x` along `dim`.
template <typename F>
void for_each_line(const at::Tensor& x, int64_t dim, F f) {
  const int64_t nd = x.dim();
  if (nd == 0) { f(0, 1, 1); return; }
  const int64_t d = (dim % nd + nd) % nd;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= x.size(i);
  for (int64_t i = d + 1; i < nd; ++i) inner *= x.size(i);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) f(o * x.size(d) * inner + i, inner, x.size(d));
}

inline at::Tensor scan_lines(const at::Tensor& x, int64_t dim, bool product) {
  at::Tensor out = at::empty(x.sizes(), at::TensorOptions().dtype(at::kDouble));
  const double* p = x.data_ptr<double>();
  double* q = out.data_ptr<double>();
  for_each_line(x, dim, [&](int64_t off, int64_t st, int64_t n) {
    double a = product ? 1 : 0;
    for (int64_t k = 0; k < n; ++k) {
      a = product ? a * p[off + k * st] : a + p[off + k * st];
      q[off + k * st] = a;
    }
  });
  return out;
}
inline at::Tensor cumsum(const at::Tensor& x, int64_t dim) { return scan_lines(x, dim, false); }
inline at::Tensor cumprod(const at::Tensor& x, int64_t dim) { return scan_lines(x, dim, true); }

inline at::Tensor softmax(const at::Tensor& x, int64_t dim, bool log) {
  at::Tensor out = at::empty(x.sizes(), at::TensorOptions().dtype(at::kDouble));
  const double* p = x.data_ptr<double>();
  double* q = out.data_ptr<double>();
  for_each_line(x, dim, [&](int64_t off, int64_t st, int64_t n) {
    double mx = -INFINITY, s = 0;
    for (int64_t k = 0; k < n; ++k) mx = std::max(mx, p[off + k * st]);
    for (int64_t k = 0; k < n; ++k) s += std::exp(p[off + k * st] - mx);
    for (int64_t k = 0; k < n; ++k)
      q[off + k * st] = log ? p[off + k * st] - mx - std::log(s) : std::exp(p[off + k * st] - mx) / s;
  });
  return out;
}

}  // namespace ember_test::ref
