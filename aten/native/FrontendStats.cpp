// libtorch's order statistics, NaN-aware reductions and scans as composites (issue #6): argsort,
// msort, median, kthvalue, mode, cummax/cummin, logcumsumexp, count_nonzero, nansum/nanmean,
// std_mean/var_mean and aminmax. Selections gather from the input with the indices they find, so
// the gradient goes to the selected element as in libtorch.
#include <ATen/native/NativeFunctions.h>
#include <ATen/Utils.h>
#include <limits>

namespace at::native {

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(at::sort(self, dim, descending));
}
// Ember's sort is stable (kernels/cpu/sort.cpp), so both overloads are.
Tensor argsort_stable(const Tensor& self, bool stable, int64_t dim, bool descending) {
  (void)stable;
  return std::get<1>(at::sort(self, dim, descending));
}
Tensor msort(const Tensor& self) { return std::get<0>(at::sort(self, 0)); }

Tensor count_nonzero_dim_IntList(const Tensor& self, IntArrayRef dim) {
  return at::sum(at::ne(self, 0), dim, false);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (dim) return at::sum(at::ne(self, 0), IntArrayRef{*dim}, false);
  return at::sum(at::ne(self, 0));
}

Tensor nansum(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const Tensor x = isFloatingType(self.scalar_type()) ? at::where(at::isnan(self), Scalar(0), self) : self;
  return at::sum(x, dim, keepdim, dtype);
}
Tensor nanmean(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[nanmean] expected a floating tensor; got ", self.scalar_type());
  const Tensor count = at::sum(at::logical_not(at::isnan(self)), dim, keepdim);
  return at::div(at::nansum(self, dim, keepdim, dtype), count);
}

std::tuple<Tensor, Tensor> std_mean_correction(const Tensor& self, OptionalIntArrayRef dim,
                                               const std::optional<Scalar>& correction, bool keepdim) {
  return {at::std(self, dim, correction, keepdim), at::mean(self, dim, keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased) {
  return {at::std(self, unbiased), at::mean(self)};
}
std::tuple<Tensor, Tensor> std_mean_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return {at::std(self, dim, unbiased, keepdim), at::mean(self, dim, keepdim)};
}
std::tuple<Tensor, Tensor> var_mean_correction(const Tensor& self, OptionalIntArrayRef dim,
                                               const std::optional<Scalar>& correction, bool keepdim) {
  return {at::var(self, dim, correction, keepdim), at::mean(self, dim, keepdim)};
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased) {
  return {at::var(self, unbiased), at::mean(self)};
}
std::tuple<Tensor, Tensor> var_mean_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return {at::var(self, dim, unbiased, keepdim), at::mean(self, dim, keepdim)};
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) {
    const int64_t d = maybe_wrap_dim(*dim, self.dim(), "aminmax");
    EMBER_CHECK(self.dim() == 0 || self.size(d) > 0, "[aminmax] expected a non-empty dim ", d,
                " (the reduction has no identity); got size 0");
    return {at::amin(self, {d}, keepdim), at::amax(self, {d}, keepdim)};
  }
  EMBER_CHECK(self.numel() > 0, "[aminmax] expected a non-empty tensor (the reduction has no identity); got 0 elements");
  Tensor lo = at::amin(self), hi = at::amax(self);
  if (keepdim) {
    const std::vector<int64_t> ones(static_cast<size_t>(self.dim()), 1);
    lo = lo.reshape(ones);
    hi = hi.reshape(ones);
  }
  return {lo, hi};
}

namespace {
// Values gathered at `idx` (keepdim shape) and the indices, squeezed unless keepdim.
std::tuple<Tensor, Tensor> select_at(const Tensor& self, int64_t dim, const Tensor& idx, bool keepdim) {
  Tensor values = self.gather(dim, idx);
  if (keepdim) return {values, idx};
  return {values.squeeze(dim), idx.squeeze(dim)};
}
// The position in each sorted slice that holds the answer: `k`, or where the first NaN went when
// the slice has one (sort orders NaN last, stably).
Tensor sorted_pos(const Tensor& self, int64_t dim, int64_t k, bool nan_wins) {
  std::vector<int64_t> shape = self.sizes().vec();
  shape[static_cast<size_t>(dim)] = 1;
  const Tensor pos = at::full(shape, k, self.options().dtype(kLong));
  if (!nan_wins || !isFloatingType(self.scalar_type())) return pos;
  const Tensor nan_count = at::sum(at::isnan(self), IntArrayRef{dim}, true);
  return at::where(at::gt(nan_count, 0), at::rsub(nan_count, self.size(dim)), pos);
}
}  // namespace

Tensor median(const Tensor& self) {
  const Tensor flat = self.reshape({-1});
  const int64_t n = flat.numel();
  if (n == 0) return at::full({}, std::numeric_limits<double>::quiet_NaN(), self.options());
  const Tensor sorted = std::get<0>(at::sort(flat.detach()));
  const Tensor mid = sorted.select(0, (n - 1) / 2);
  if (!isFloatingType(self.scalar_type())) return mid.clone();
  // The median of a slice with NaN is NaN. The result is the mean of the inputs equal to it, so
  // that the gradient is shared evenly among them (libtorch's median() without dim).
  const bool has_nan = !flat.is_meta() && at::isnan(flat.detach()).any().item<bool>();  // (meta: no values)
  const Tensor mask = has_nan ? at::isnan(flat.detach()) : at::eq(flat.detach(), mid);
  return at::div(at::where(mask, flat, Scalar(0)).sum(), mask.sum());
}

std::tuple<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim(), "median");
  if (self.dim() == 0) return {self.clone(), at::zeros({}, self.options().dtype(kLong))};
  EMBER_CHECK(self.size(dim) > 0, "[median] expected a non-empty dim ", dim, "; got size 0");
  const Tensor order = std::get<1>(at::sort(self.detach(), dim));
  const Tensor idx = order.gather(dim, sorted_pos(self, dim, (self.size(dim) - 1) / 2, true));
  return select_at(self, dim, idx, keepdim);
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim(), "kthvalue");
  const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
  EMBER_CHECK_T(IndexError, k >= 1 && k <= n, "[kthvalue] expected k in [1, ", n, "] (the size of dim ", dim,
                "); got ", k);
  if (self.dim() == 0) return {self.clone(), at::zeros({}, self.options().dtype(kLong))};
  const Tensor order = std::get<1>(at::sort(self.detach(), dim));
  const Tensor idx = order.gather(dim, sorted_pos(self, dim, k - 1, false));
  return select_at(self, dim, idx, keepdim);
}

// The most frequent value of each slice, the smallest of equally frequent ones, at the last index
// where it occurs (libtorch's CPU result). Counts compare every pair of a slice: n^2 work per slice.
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim(), "mode");
  if (self.dim() == 0) return {self.clone(), at::zeros({}, self.options().dtype(kLong))};
  EMBER_CHECK(self.size(dim) > 0, "[mode] expected a non-empty dim ", dim, "; got size 0");
  const Tensor x = self.detach().movedim(dim, -1);
  const int64_t n = x.size(-1);
  const Tensor counts = at::sum(at::eq(x.unsqueeze(-1), x.unsqueeze(-2)), IntArrayRef{-1}, false);
  const Tensor best = at::eq(counts, counts.amax({-1}, true));
  const Tensor value = at::where(best, x, x.amax({-1}, true)).amin({-1}, true);
  const Tensor pos = at::arange(n, self.options().dtype(kLong));
  const Tensor last = at::where(at::eq(x, value), pos, Scalar(-1)).amax({-1}, true);
  return select_at(self, dim, last.movedim(-1, dim), keepdim);
}

namespace {
// Running max (or min) indices along dim: a later element takes over when it is at least as large
// (ties go to the later index), and NaN takes over and then holds.
Tensor cumulative_extreme_indices(const Tensor& self, int64_t dim, bool is_max) {
  const Tensor x = self.detach();
  const int64_t n = x.size(dim);
  std::vector<Tensor> idx;
  Tensor best = x.select(dim, 0);
  Tensor cur = at::zeros(best.sizes(), self.options().dtype(kLong));
  idx.push_back(cur);
  for (int64_t i = 1; i < n; ++i) {
    const Tensor xi = x.select(dim, i);
    Tensor take = is_max ? at::ge(xi, best) : at::le(xi, best);
    if (isFloatingType(x.scalar_type()))
      take = at::logical_or(at::isnan(xi), at::logical_and(at::logical_not(at::isnan(best)), take));
    best = at::where(take, xi, best);
    cur = at::where(take, Scalar(i), cur);
    idx.push_back(cur);
  }
  return at::stack(idx, dim);
}
std::tuple<Tensor, Tensor> cumulative_extreme(const Tensor& self, int64_t dim, bool is_max) {
  dim = maybe_wrap_dim(dim, self.dim(), is_max ? "cummax" : "cummin");
  if (self.dim() == 0) return {self.clone(), at::zeros({}, self.options().dtype(kLong))};
  if (self.numel() == 0) return {self.clone(), at::zeros(self.sizes(), self.options().dtype(kLong))};
  const Tensor idx = cumulative_extreme_indices(self, dim, is_max);
  return {self.gather(dim, idx), idx};
}
}  // namespace

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) { return cumulative_extreme(self, dim, true); }
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) { return cumulative_extreme(self, dim, false); }

// A running logaddexp along dim: no intermediate exp overflows or underflows.
Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim(), "logcumsumexp");
  if (self.dim() == 0 || self.numel() == 0) return self.clone();
  std::vector<Tensor> parts;
  Tensor run = self.select(dim, 0);
  parts.push_back(run);
  for (int64_t i = 1; i < self.size(dim); ++i) {
    run = at::logaddexp(run, self.select(dim, i));
    parts.push_back(run);
  }
  return at::stack(parts, dim);
}

}  // namespace at::native
