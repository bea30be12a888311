// unique and its variants (_unique, _unique2, unique_dim, unique_consecutive,
// unique_dim_consecutive), written in ATen ops and registered for CPU and CUDA alike.
//
// Note [unique by sort and scan]
// The elements (or, with a dim, the slices along it) are ordered by a stable sort, or left in place
// for the consecutive variants. A run starts where an element differs from its predecessor (`ne`, so
// every NaN starts its own run, as in libtorch; -0.0 and 0.0 are one run and keep the first one met).
// The run starts give the values; a cumulative sum of the start flags numbers the runs, and those
// numbers scattered back through the sort order are the inverse; the gaps between run starts are
// the counts. Slices are ordered lexicographically by stable sorts column by column, last column
// first. Outputs the caller did not ask for are empty int64 tensors, as in libtorch, except for the
// slice variants, which (like libtorch's) always return both.
#include <ATen/native/NativeFunctions.h>
#include <ATen/core/GradMode.h>
#include <ATen/Utils.h>
#include <vector>

namespace at::native {
namespace {

using Triple = std::tuple<Tensor, Tensor, Tensor>;

Tensor longs(IntArrayRef sizes, const Tensor& like) { return at::empty(sizes, like.options().dtype(kLong)); }

// Given the run-start flags `starts` of `n` ordered items and the order they were taken in
// (`order`, undefined for the identity), the run index of every original item (shape `inv_shape`)
// and the length of every run.
std::pair<Tensor, Tensor> runs(const Tensor& starts, const Tensor& first, const Tensor& order, int64_t n,
                               IntArrayRef inv_shape, bool return_inverse, bool return_counts) {
  Tensor inverse = longs({0}, starts), counts = longs({0}, starts);
  if (return_inverse) {
    Tensor run_of = at::cumsum(starts.to(kLong), 0).sub_(1);
    if (order.defined()) run_of = at::zeros({n}, run_of.options()).scatter_(0, order, run_of);
    inverse = run_of.reshape(inv_shape);
  }
  if (return_counts) {
    Tensor ends = at::cat({first.slice(0, 1), at::full({1}, n, first.options())});
    counts = ends.sub(first);
  }
  return {inverse, counts};
}

// Flags [n]: item 0 and every item whose key row differs from the previous one. `keys` is [n] or [n, k].
Tensor run_starts(const Tensor& keys) {
  const int64_t n = keys.size(0);
  Tensor differs = at::ne(keys.slice(0, 1), keys.slice(0, 0, n - 1));
  if (keys.dim() == 2) differs = differs.any(1);
  return at::cat({at::ones({1}, keys.options().dtype(kBool)), differs});
}

Triple unique_flat(const Tensor& self, bool sort, bool return_inverse, bool return_counts) {
  at::NoGradGuard no_grad;
  const int64_t n = self.numel();
  const Tensor flat = self.detach().reshape({n});
  if (n == 0)
    return {flat.clone(), return_inverse ? longs(self.sizes(), self) : longs({0}, self), longs({0}, self)};
  Tensor ordered = flat, order;
  if (sort) std::tie(ordered, order) = at::sort(flat, 0, false);
  const Tensor starts = run_starts(ordered);
  const Tensor first = at::nonzero(starts).reshape({-1});
  auto [inverse, counts] = runs(starts, first, order, n, self.sizes(), return_inverse, return_counts);
  return {ordered.index_select(0, first), inverse, counts};
}

Triple unique_slices(const Tensor& self, int64_t dim, bool sort, const char* op) {
  at::NoGradGuard no_grad;
  EMBER_CHECK(self.dim() > 0, "[", op, "] expected a tensor of at least 1 dim to take unique slices along dim ", dim,
              "; got a 0-dim tensor");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), op);
  const int64_t n = self.size(d);
  if (n == 0) return {self.detach().clone(), longs({0}, self), longs({0}, self)};
  for (int64_t i = 0; i < self.dim(); ++i)
    EMBER_CHECK(i == d || self.size(i) != 0, "[", op, "] expected no zero-size dims other than dim ", d,
                " (the slices would be empty); got shape ", self.sizes());
  // [n, k]: one row per slice along d.
  std::vector<int64_t> perm{d};
  for (int64_t i = 0; i < self.dim(); ++i)
    if (i != d) perm.push_back(i);
  const Tensor moved = self.detach().permute(perm).contiguous();
  const Tensor rows = moved.reshape({n, -1});
  const int64_t k = rows.size(1);
  Tensor order;
  Tensor ordered = rows;
  if (sort) {
    order = at::arange(n, rows.options().dtype(kLong));
    for (int64_t c = k - 1; c >= 0; --c) {
      const Tensor step = std::get<1>(at::sort(rows.select(1, c).index_select(0, order), 0, false));
      order = order.index_select(0, step);
    }
    ordered = rows.index_select(0, order);
  }
  const Tensor starts = run_starts(ordered);
  const Tensor first = at::nonzero(starts).reshape({-1});
  // Slices always report their inverse and counts, asked for or not (libtorch does the same).
  auto [inverse, counts] = runs(starts, first, order, n, {n}, true, true);
  std::vector<int64_t> shape = moved.sizes().vec();
  shape[0] = first.size(0);
  std::vector<int64_t> back(static_cast<size_t>(self.dim()));
  for (size_t i = 0; i < perm.size(); ++i) back[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  Tensor values = ordered.index_select(0, first).reshape(shape).permute(back).contiguous();
  return {values, inverse, counts};
}

}  // namespace

std::tuple<Tensor, Tensor> unique_sorted_aten(const Tensor& self, bool /*sorted*/, bool return_inverse) {
  auto [values, inverse, counts] = unique_flat(self, true, return_inverse, false);
  return {values, inverse};
}

// `sorted` is accepted but the values always come out sorted (libtorch's CPU kernel does the same).
Triple unique2_aten(const Tensor& self, bool /*sorted*/, bool return_inverse, bool return_counts) {
  return unique_flat(self, true, return_inverse, return_counts);
}

Triple unique_dim_aten(const Tensor& self, int64_t dim, bool /*sorted*/, bool /*return_inverse*/, bool /*return_counts*/) {
  return unique_slices(self, dim, true, "unique_dim");
}

Triple unique_consecutive_aten(const Tensor& self, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
  if (!dim.has_value()) return unique_flat(self, false, return_inverse, return_counts);
  return unique_slices(self, *dim, false, "unique_consecutive");
}

Triple unique_dim_consecutive_aten(const Tensor& self, int64_t dim, bool /*return_inverse*/, bool /*return_counts*/) {
  return unique_slices(self, dim, false, "unique_dim_consecutive");
}

}  // namespace at::native
