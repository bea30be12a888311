// More of libtorch's frontend as composites (issue #6), continued from FrontendMore.cpp: quantile and
// nanquantile, cov and corrcoef, histc, bincount, isin, block_diag, cartesian_prod, combinations,
// diag_embed, tril_indices/triu_indices, vander, trapezoid/trapz, cumulative_trapezoid, renorm,
// chain_matmul and scalar_tensor. Autograd comes through their parts; the counting ones (histc,
// bincount, isin, the index factories) are not differentiable, as in libtorch.
#include <ATen/native/NativeFunctions.h>
#include <ATen/Factory.h>
#include <ATen/TensorIterator.h>
#include <ATen/Utils.h>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace at::native {

// ---------------------------------------------------------------- quantile / nanquantile

namespace {

enum class Interp { Linear, Lower, Higher, Midpoint, Nearest };

// The q-th quantiles of self along dim (all elements when dim is absent), with q a 0-d or 1-d
// tensor of self's dtype. Rows are sorted (NaN last, ties in index order) and the answer is read
// at rank q * (n - 1), the gradient going to the elements read, as libtorch's. A row with NaN gives
// NaN, or with ignore_nan only its other elements count (all NaN: NaN).
Tensor quantile_impl(const char* op, const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     c10::string_view interpolation, bool ignore_nan) {
  const std::string how(interpolation);
  Interp interp = Interp::Linear;
  if (how == "lower") interp = Interp::Lower;
  else if (how == "higher") interp = Interp::Higher;
  else if (how == "midpoint") interp = Interp::Midpoint;
  else if (how == "nearest") interp = Interp::Nearest;
  else EMBER_CHECK(how == "linear", "[", op, "] expected interpolation \"linear\", \"lower\", \"higher\", \"midpoint\" or ",
                   "\"nearest\"; got \"", how, "\"");
  EMBER_CHECK(self.scalar_type() == kFloat || self.scalar_type() == kDouble, "[", op,
              "] expected a float32 or float64 input; got ", c10::dtypeName(self.scalar_type()));
  EMBER_CHECK(q.scalar_type() == self.scalar_type(), "[", op, "] expected q of the input's dtype ",
              c10::dtypeName(self.scalar_type()), "; got ", c10::dtypeName(q.scalar_type()));
  EMBER_CHECK(q.dim() <= 1, "[", op, "] expected q of 0 or 1 dims; got ", q.dim(), " dims");
  EMBER_CHECK(self.numel() > 0, "[", op, "] expected a non-empty input; got shape ", self.sizes());
  if (q.numel() > 0 && !q.is_meta()) {  // (meta tensors have no values to check)
    const Tensor qd = q.detach();
    EMBER_CHECK(at::logical_and(at::ge(qd, 0), at::le(qd, 1)).all().item<bool>(), "[", op,
                "] expected q values in [0, 1]; got ", (q.dim() == 0 ? qd.item<double>() : qd.min().item<double>()),
                " to ", (q.dim() == 0 ? qd.item<double>() : qd.max().item<double>()));
  }
  // rows: [..., n]; out_shape: the reduced shape (keepdim applied).
  Tensor rows;
  std::vector<int64_t> out_shape;
  if (!dim) {
    rows = self.reshape({-1});
    if (keepdim) out_shape.assign(static_cast<size_t>(self.dim()), 1);
  } else {
    const int64_t d = maybe_wrap_dim(*dim, self.dim(), op);
    const Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
    rows = s.movedim(d, -1);
    for (int64_t i = 0; i < self.dim(); ++i) {
      if (i != d) out_shape.push_back(self.size(i));
      else if (keepdim) out_shape.push_back(1);
    }
  }
  const int64_t n = rows.size(-1);
  const Tensor sorted = std::get<0>(at::sort(rows, -1));
  const Tensor qv = q.reshape({-1});
  std::vector<int64_t> rank_shape = rows.sizes().vec();
  rank_shape.back() = qv.numel();
  // Ranks in float64 (as libtorch: 0.6f * 5 is a little above 3, so "higher" reads index 4), with
  // the gradient to q through the linear weights; a row with NaN reads its last element (NaN), an
  // all-NaN row of nanquantile its first.
  const Tensor sd = sorted.detach();
  const Tensor q64 = qv.to(kDouble);
  Tensor ranks;
  if (ignore_nan) {
    const Tensor valid = at::sum(at::logical_not(at::isnan(sd)), IntArrayRef{-1}, true);
    ranks = at::mul(q64, at::sub(valid, 1));
    ranks = at::where(at::lt(ranks.detach(), 0), at::zeros({}, ranks.options()), ranks);
  } else {
    const Tensor has_nan = at::isnan(sd.narrow(-1, n - 1, 1));
    ranks = at::where(has_nan, at::full({}, static_cast<double>(n - 1), q64.options()), at::mul(q64, n - 1));
  }
  ranks = ranks.expand(rank_shape);
  const Tensor rd = ranks.detach();
  Tensor result;
  auto at_rank = [&](const Tensor& r) { return sorted.gather(-1, r.to(kLong)); };
  if (interp == Interp::Lower) result = at_rank(at::floor(rd));
  else if (interp == Interp::Higher) result = at_rank(at::ceil(rd));
  else if (interp == Interp::Nearest) result = at_rank(at::round(rd));
  else {
    const Tensor below_rank = at::floor(rd);
    const Tensor below = at_rank(below_rank), above = at_rank(at::ceil(rd));
    const Tensor w = interp == Interp::Midpoint ? at::full(rank_shape, 0.5, sorted.options())
                                                : at::sub(ranks, below_rank).to(sorted.scalar_type());
    // libtorch's lerp: from the nearer end.
    const Tensor span = at::sub(above, below);
    result = at::where(at::lt(w.detach(), 0.5), at::add(below, at::mul(w, span)), at::sub(above, at::mul(span, at::rsub(w, 1))));
  }
  // [..., Q] -> [Q, out_shape...]
  result = result.movedim(-1, 0);
  std::vector<int64_t> shape;
  if (q.dim() == 1) shape.push_back(qv.numel());
  shape.insert(shape.end(), out_shape.begin(), out_shape.end());
  return result.reshape(shape);
}

// q as a 0-d tensor of self's dtype (float64 for a non-floating self, which is refused anyway).
Tensor q_tensor(const Tensor& self, double q) {
  return at::scalar_tensor(q, self.options().dtype(isFloatingType(self.scalar_type()) ? self.scalar_type() : kDouble));
}

}  // namespace

Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim, c10::string_view interpolation) {
  return quantile_impl("quantile", self, q, dim, keepdim, interpolation, false);
}
Tensor quantile_scalar(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim, c10::string_view interpolation) {
  return quantile_impl("quantile", self, q_tensor(self, q), dim, keepdim, interpolation, false);
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim, c10::string_view interpolation) {
  return quantile_impl("nanquantile", self, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile_scalar(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                          c10::string_view interpolation) {
  return quantile_impl("nanquantile", self, q_tensor(self, q), dim, keepdim, interpolation, true);
}

// ---------------------------------------------------------------- cov / corrcoef

// Rows are variables, columns observations (a 1-d input is one variable). Frequency weights
// (integral) and observation weights (floating) multiply; the normalisation follows numpy's.
Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  EMBER_CHECK(self.dim() <= 2, "[cov] expected an input of at most 2 dims; got ", self.dim(), " dims");
  EMBER_CHECK(self.scalar_type() != kBool, "[cov] expected a numeric input; got Bool");
  Tensor x = self.dim() < 2 ? self.reshape({1, -1}) : self;
  if (!isFloatingType(x.scalar_type())) x = x.to(get_default_dtype());
  const int64_t n_obs = x.size(1);
  Tensor w;
  auto check_weights = [&](const Tensor& t, const char* name) {
    EMBER_CHECK(t.dim() <= 1, "[cov] expected ", name, " of at most 1 dim; got ", t.dim(), " dims");
    EMBER_CHECK(t.numel() == n_obs, "[cov] expected ", name, " with one value per observation (", n_obs, "); got ",
                t.numel());
    // (meta weights have no values to check)
    EMBER_CHECK(t.numel() == 0 || t.is_meta() || t.min().item<double>() >= 0, "[cov] expected non-negative ", name);
  };
  if (fweights && fweights->defined()) {
    EMBER_CHECK(!isFloatingType(fweights->scalar_type()) && fweights->scalar_type() != kBool,
                "[cov] expected integral fweights; got ", c10::dtypeName(fweights->scalar_type()));
    check_weights(*fweights, "fweights");
    w = *fweights;
  }
  const bool has_aw = aweights && aweights->defined();
  if (has_aw) {
    EMBER_CHECK(isFloatingType(aweights->scalar_type()), "[cov] expected floating aweights; got ",
                c10::dtypeName(aweights->scalar_type()));
    check_weights(*aweights, "aweights");
    w = w.defined() ? at::mul(w, *aweights) : *aweights;
  }
  Tensor avg, norm;
  if (w.defined()) {
    w = w.reshape({-1});
    const Tensor w_sum = w.sum();
    EMBER_CHECK(w_sum.is_meta() || w_sum.item<double>() != 0, "[cov] expected weights whose sum is not zero");
    avg = at::div(at::mul(x, w).sum(IntArrayRef{1}, false), w_sum);
    if (correction == 0) norm = w_sum;
    else if (!has_aw) norm = at::sub(w_sum, correction);
    else norm = at::sub(w_sum, at::div(at::mul(at::mul(w, *aweights).sum(), correction), w_sum));
  } else {
    avg = x.mean(IntArrayRef{1}, false);
    norm = at::full({}, static_cast<double>(n_obs - correction), x.options());
  }
  // Degrees of freedom <= 0 divide by zero (inf or NaN), as libtorch (which also warns).
  norm = at::clamp_min(norm.to(x.scalar_type()), Scalar(0));
  const Tensor xm = at::sub(x, avg.unsqueeze(1));
  const Tensor xw = w.defined() ? at::mul(xm, w) : xm;
  const Tensor c = at::div(at::mm(xm, xw.t()), norm);
  return c.squeeze();  // one variable gives a 0-dim result, as libtorch
}

Tensor corrcoef(const Tensor& self) {
  const Tensor c = at::cov(self);
  if (c.dim() == 0) return at::div(c, c);
  const Tensor stddev = at::sqrt(at::diagonal(c));
  return at::clamp(at::div(at::div(c, stddev.unsqueeze(1)), stddev.unsqueeze(0)), Scalar(-1), Scalar(1));
}

// ---------------------------------------------------------------- histc / bincount / isin

Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[histc] expected a floating input; got ",
              c10::dtypeName(self.scalar_type()));
  EMBER_CHECK(bins > 0, "[histc] expected bins > 0; got ", bins);
  double lo = min.toDouble(), hi = max.toDouble();
  const Tensor x = self.detach().reshape({-1});
  if (lo == hi && x.numel() > 0) {
    EMBER_CHECK(!x.is_meta(), "[histc] expected min < max for a meta input; got min == max (", lo,
                "), which takes the range from the values (meta tensors have no data)");
    lo = x.min().item<double>();
    hi = x.max().item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "[histc] expected a finite range; got [", lo, ", ", hi, "]");
  EMBER_CHECK(lo < hi, "[histc] expected max > min; got min ", lo, " and max ", hi);
  // The edges are values of self's dtype; an element's bin is (x - lo) * bins / (hi - lo), the
  // last bin closed.
  const Tensor lo_t = at::scalar_tensor(lo, x.options()), hi_t = at::scalar_tensor(hi, x.options());
  const Tensor inside = at::logical_and(at::ge(x, lo_t), at::le(x, hi_t));
  // (How many values fall inside depends on data, the result's shape does not: meta counts none.)
  const Tensor xs = x.is_meta() ? at::empty({0}, x.options()) : x.masked_select(inside);
  Tensor pos = at::div(at::mul(at::sub(xs, lo_t), bins), at::sub(hi_t, lo_t)).floor().to(kLong).clamp_max(Scalar(bins - 1));
  c10::List<std::optional<Tensor>> idx;
  idx.push_back(pos);
  return at::index_put(at::zeros({bins}, x.options()), idx, at::ones({pos.numel()}, x.options()), true);
}

Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  EMBER_CHECK(self.dim() == 1, "[bincount] expected a 1-d input; got ", self.dim(), " dims");
  EMBER_CHECK(!isFloatingType(self.scalar_type()) && self.scalar_type() != kBool,
              "[bincount] expected an integral input; got ", c10::dtypeName(self.scalar_type()));
  EMBER_CHECK(minlength >= 0, "[bincount] expected minlength >= 0; got ", minlength);
  const Tensor x = self.to(kLong);
  int64_t n = minlength;
  if (x.numel() > 0) {
    const int64_t lo = x.min().item<int64_t>();
    EMBER_CHECK(lo >= 0, "[bincount] expected non-negative values; got ", lo);
    n = std::max(n, x.max().item<int64_t>() + 1);
  }
  c10::List<std::optional<Tensor>> idx;
  idx.push_back(x);
  if (!weights || !weights->defined())
    return at::index_put(at::zeros({n}, x.options()), idx, at::ones({x.numel()}, x.options()), true);
  EMBER_CHECK(weights->dim() == 1 && weights->numel() == x.numel(), "[bincount] expected 1-d weights with one value per ",
              "input element (", x.numel(), "); got shape ", weights->sizes());
  const ScalarType dt = weights->scalar_type() == kFloat ? kFloat : kDouble;
  const Tensor wv = weights->detach().to(dt);
  return at::index_put(at::zeros({n}, wv.options()), idx, wv, true);
}

namespace {
Tensor isin_impl(const Tensor& elements, const Tensor& test, ScalarType common, bool invert) {
  EMBER_CHECK(elements.scalar_type() != kBool && test.scalar_type() != kBool,
              "[isin] expected numeric elements and test_elements; got ", c10::dtypeName(elements.scalar_type()), " and ",
              c10::dtypeName(test.scalar_type()));
  const Tensor e = elements.detach().to(common);
  // NaN equals nothing: dropped before the binary search (which needs an ordered sequence). How
  // many are left depends on data; the result's shape does not, so meta inputs keep them all.
  Tensor tv = test.detach().to(common).reshape({-1});
  if (isFloatingType(common) && !tv.is_meta()) tv = tv.masked_select(at::logical_not(at::isnan(tv)));
  const Tensor t = std::get<0>(at::sort(tv));
  Tensor found;
  if (t.numel() == 0) {
    found = at::zeros(e.sizes(), e.options().dtype(kBool));
  } else {
    const Tensor pos = at::searchsorted(t, e.reshape({-1})).clamp_max(Scalar(t.numel() - 1));
    found = at::eq(t.index_select(0, pos), e.reshape({-1})).view(e.sizes());
  }
  return invert ? at::logical_not(found) : found;
}
}  // namespace

Tensor isin_Tensor_Tensor(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;  // a hint only; the answer is the same
  // libtorch's result_type, where a 0-dim operand of the same category does not promote: a 0-dim
  // int32 -11 is compared as uint8 with uint8 test elements (so it matches 245).
  return isin_impl(elements, test_elements, at::result_type(elements, test_elements), invert);
}
Tensor isin_Tensor_Scalar(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  (void)assume_unique;
  const ScalarType common = at::result_type(elements, test_element);
  return isin_impl(elements, at::scalar_tensor(test_element, elements.options().dtype(common)), common, invert);
}
Tensor isin_Scalar_Tensor(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;
  const ScalarType common = at::result_type(test_elements, element);
  return isin_impl(at::scalar_tensor(element, test_elements.options().dtype(common)), test_elements, common, invert);
}

// ---------------------------------------------------------------- block_diag, cartesian_prod, combinations

Tensor block_diag(TensorList tensors) {
  if (tensors.empty()) return at::empty({1, 0});
  ScalarType dt = tensors[0].scalar_type();
  std::vector<Tensor> blocks;
  int64_t cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2, "[block_diag] expected tensors of at most 2 dims; tensor ", i, " has ", t.dim(), " dims");
    dt = promoteTypes(dt, t.scalar_type());
    blocks.push_back(t.dim() == 0 ? t.reshape({1, 1}) : t.dim() == 1 ? t.reshape({1, -1}) : t);
    cols += blocks.back().size(1);
  }
  std::vector<Tensor> rows;
  int64_t before = 0;
  for (const Tensor& b : blocks) {
    const Tensor bb = b.to(dt);
    const int64_t r = bb.size(0), c = bb.size(1);
    rows.push_back(at::cat({at::zeros({r, before}, bb.options()), bb, at::zeros({r, cols - before - c}, bb.options())}, 1));
    before += c;
  }
  return at::cat(rows, 0);
}

Tensor cartesian_prod(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "[cartesian_prod] expected at least one tensor");
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].dim() == 1, "[cartesian_prod] expected 1-d tensors; tensor ", i, " has shape ", tensors[i].sizes());
  if (tensors.size() == 1) return tensors[0];
  for (size_t i = 1; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].scalar_type() == tensors[0].scalar_type(), "[cartesian_prod] expected tensors of one dtype; got ",
                c10::dtypeName(tensors[0].scalar_type()), " and ", c10::dtypeName(tensors[i].scalar_type()));
  std::vector<Tensor> grids = at::meshgrid(tensors, "ij");
  for (auto& g : grids) g = g.reshape({-1});
  return at::stack(grids, 1);
}

Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  EMBER_CHECK(self.dim() == 1, "[combinations] expected a 1-d tensor; got shape ", self.sizes());
  EMBER_CHECK(r >= 0, "[combinations] expected r >= 0; got ", r);
  if (r == 0) return at::empty({0}, self.options());
  const int64_t n = self.size(0);
  // Every non-decreasing (with replacement) or increasing index tuple, in lexicographic order.
  std::vector<int64_t> flat;
  std::vector<int64_t> cur(static_cast<size_t>(r));
  const int64_t step = with_replacement ? 0 : 1;
  std::function<void(int64_t, int64_t)> fill = [&](int64_t pos, int64_t start) {
    if (pos == r) {
      flat.insert(flat.end(), cur.begin(), cur.end());
      return;
    }
    for (int64_t i = start; i < n; ++i) {
      cur[static_cast<size_t>(pos)] = i;
      fill(pos + 1, i + step);
    }
  };
  fill(0, 0);
  const int64_t count = static_cast<int64_t>(flat.size()) / r;
  const Tensor idx = at::tensor(flat, self.options().dtype(kLong));
  return self.index_select(0, idx).reshape({count, r});
}

// ---------------------------------------------------------------- diag_embed, tril/triu_indices, vander

Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim() + 1;
  dim1 = maybe_wrap_dim(dim1, nd, "diag_embed", false);
  dim2 = maybe_wrap_dim(dim2, nd, "diag_embed", false);
  EMBER_CHECK(dim1 != dim2, "[diag_embed] expected two different dims; got ", dim1, " and ", dim2);
  const int64_t n = self.size(-1) + std::abs(offset);
  std::vector<int64_t> shape = self.sizes().vec();
  shape.pop_back();
  const int64_t lo = std::min(dim1, dim2), hi = std::max(dim1, dim2);
  shape.insert(shape.begin() + lo, n);
  shape.insert(shape.begin() + hi, n);
  return at::diagonal_scatter(at::zeros(shape, self.options()), self, offset, dim1, dim2);
}

namespace {
Tensor tri_indices(const char* op, int64_t row, int64_t col, int64_t offset, TensorOptions options, bool lower) {
  EMBER_CHECK(row >= 0, "[", op, "] expected row >= 0; got ", row);
  EMBER_CHECK(col >= 0, "[", op, "] expected col >= 0; got ", col);
  const ScalarType dt = options.has_dtype() ? options.scalar_type() : kLong;
  EMBER_CHECK(dt == kLong || dt == kInt || dt == kShort || dt == kChar || dt == kByte, "[", op,
              "] expected an integral dtype; got ", c10::dtypeName(dt));
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < row; ++i)
    for (int64_t j = 0; j < col; ++j)
      if (lower ? j - i <= offset : j - i >= offset) {
        rows.push_back(i);
        cols.push_back(j);
      }
  rows.insert(rows.end(), cols.begin(), cols.end());
  const int64_t n = static_cast<int64_t>(cols.size());
  return new_tensor_version(at::tensor(rows, TensorOptions().dtype(kLong)).reshape({2, n}).to(options.dtype(dt)));
}
}  // namespace

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return tri_indices("tril_indices", row, col, offset, options, true);
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return tri_indices("triu_indices", row, col, offset, options, false);
}

// Columns x^(N-1) ... x^0 (or increasing), by a running product as libtorch's; integers widen to
// int64.
Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  EMBER_CHECK(x.dim() == 1, "[vander] expected a 1-d x; got ", x.dim(), " dims");
  const int64_t n = N.value_or(x.size(0));
  EMBER_CHECK(n >= 0, "[vander] expected N >= 0; got ", n);
  const ScalarType dt = promoteTypes(x.scalar_type(), kLong);
  const Tensor xx = x.to(dt);
  if (n == 0) return at::empty({x.size(0), 0}, xx.options());
  Tensor result = at::ones({x.size(0), 1}, xx.options());
  if (n > 1) result = at::cat({result, at::cumprod(xx.unsqueeze(1).expand({x.size(0), n - 1}), 1)}, 1);
  return increasing ? result : result.flip({1});
}

// ---------------------------------------------------------------- trapezoid rules, renorm, chain_matmul

namespace {
// x's spacing along dim, as libtorch's: a 1-d x lies along dim; an x of fewer dims than y gets
// leading dims of size 1; otherwise x is sliced along the same dim index as y (so an x of more
// dims than y is sliced along its own dim `dim`, not aligned from the right). Shapes that do not
// broadcast raise in the arithmetic that follows.
Tensor spacing_from_x(const char* op, const Tensor& y, const Tensor& x, int64_t dim) {
  Tensor xv = x;
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == y.size(dim), "[", op, "] expected one x per sample along dim ", dim, " (", y.size(dim),
                "); got ", x.size(0));
    std::vector<int64_t> view(static_cast<size_t>(y.dim()), 1);
    view[static_cast<size_t>(dim)] = x.size(0);
    xv = x.view(view);
  } else if (x.dim() < y.dim()) {
    std::vector<int64_t> view(static_cast<size_t>(y.dim() - x.dim()), 1);
    for (int64_t s : x.sizes()) view.push_back(s);
    xv = x.view(view);
  }
  return at::sub(xv.slice(dim, 1), xv.slice(dim, 0, -1));
}
Tensor empty_reduce(const Tensor& y, int64_t dim) {
  std::vector<int64_t> shape = y.sizes().vec();
  shape.erase(shape.begin() + dim);
  return at::zeros(shape, y.options());
}
void check_not_bool(const char* op, const Tensor& y, const Tensor* x) {
  EMBER_CHECK(y.scalar_type() != kBool && (x == nullptr || x->scalar_type() != kBool), "[", op,
              "] expected numeric y", x ? " and x" : "", "; got ", c10::dtypeName(y.scalar_type()),
              x ? " and " : "", x ? c10::dtypeName(x->scalar_type()) : "");
}
}  // namespace

// The sums are arranged as libtorch's, so that infinities and integer overflow come out alike:
// with x, sum(dx * (y[i] + y[i+1])) / 2; with dx, (sum(y) - (y[0] + y[n-1]) / 2) * dx. An empty
// dim gives zeros of y's dtype (before any other check, as libtorch).
Tensor trapezoid_x(const Tensor& y, const Tensor& x, int64_t dim) {
  dim = maybe_wrap_dim(dim, y.dim(), "trapezoid", false);
  if (y.size(dim) == 0) return empty_reduce(y, dim);
  check_not_bool("trapezoid", y, &x);
  const Tensor dx = spacing_from_x("trapezoid", y, x, dim);
  return at::div(at::mul(dx, at::add(y.slice(dim, 1), y.slice(dim, 0, -1))).sum(IntArrayRef{dim}, false), 2.);
}
Tensor trapezoid_dx(const Tensor& y, const Scalar& dx, int64_t dim) {
  dim = maybe_wrap_dim(dim, y.dim(), "trapezoid", false);
  if (y.size(dim) == 0) return empty_reduce(y, dim);
  check_not_bool("trapezoid", y, nullptr);
  const Tensor ends = at::add(y.select(dim, 0), y.select(dim, -1));
  return at::mul(at::sub(y.sum(IntArrayRef{dim}, false), at::mul(ends, 0.5)), dx);
}
Tensor trapz_x(const Tensor& y, const Tensor& x, int64_t dim) { return at::trapezoid(y, x, dim); }
Tensor trapz_dx(const Tensor& y, double dx, int64_t dim) { return at::trapezoid(y, Scalar(dx), dim); }

// Running sums: with x, cumsum(dx * (y[i] + y[i+1]) / 2); with dx, cumsum(dx / 2 * (y[i] + y[i+1])).
// No shortcut for an empty dim: the result has n - 1 = 0 entries there and the promoted dtype.
Tensor cumulative_trapezoid_x(const Tensor& y, const Tensor& x, int64_t dim) {
  dim = maybe_wrap_dim(dim, y.dim(), "cumulative_trapezoid", false);
  check_not_bool("cumulative_trapezoid", y, &x);
  const Tensor dx = spacing_from_x("cumulative_trapezoid", y, x, dim);
  return at::cumsum(at::div(at::mul(dx, at::add(y.slice(dim, 1), y.slice(dim, 0, -1))), 2.), dim);
}
Tensor cumulative_trapezoid_dx(const Tensor& y, const Scalar& dx, int64_t dim) {
  dim = maybe_wrap_dim(dim, y.dim(), "cumulative_trapezoid", false);
  check_not_bool("cumulative_trapezoid", y, nullptr);
  const Scalar half_dx(dx.toDouble() / 2.0);
  return at::cumsum(at::mul(at::add(y.slice(dim, 1), y.slice(dim, 0, -1)), half_dx), dim);
}

// Each slice along dim whose p-norm exceeds maxnorm is scaled to norm maxnorm (libtorch divides by
// norm + 1e-7).
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  EMBER_CHECK(self.dim() >= 2, "[renorm] expected an input of at least 2 dims; got ", self.dim(), " dims");
  EMBER_CHECK(p.toDouble() > 0, "[renorm] expected p > 0; got ", p.toDouble());
  EMBER_CHECK(maxnorm.toDouble() >= 0, "[renorm] expected maxnorm >= 0; got ", maxnorm.toDouble());
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[renorm] expected a floating input; got ",
              c10::dtypeName(self.scalar_type()));
  dim = maybe_wrap_dim(dim, self.dim(), "renorm");
  std::vector<int64_t> others;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != dim) others.push_back(d);
  const Tensor norm = at::norm(self, p, others, true);
  const Tensor factor = at::where(at::gt(norm, maxnorm), at::div(at::full({}, maxnorm, self.options()),
                                                                  at::add(norm, Scalar(1e-7))),
                                  at::ones({}, self.options()));
  return at::mul(self, factor);
}
Tensor& renorm_(Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  self.copy_(at::renorm(self, p, dim, maxnorm));
  return self;
}

Tensor chain_matmul(TensorList matrices) {
  EMBER_CHECK(!matrices.empty(), "[chain_matmul] expected one or more matrices");
  for (size_t i = 0; i < matrices.size(); ++i)
    EMBER_CHECK(matrices[i].dim() == 2, "[chain_matmul] expected 2-d matrices; matrix ", i, " has ", matrices[i].dim(),
                " dims");
  if (matrices.size() == 1) return matrices[0].clone();
  Tensor out = at::mm(matrices[0], matrices[1]);
  for (size_t i = 2; i < matrices.size(); ++i) out = at::mm(out, matrices[i]);
  return out;
}

// A 0-d tensor holding s; the dtype defaults to the default float dtype, whatever s holds.
Tensor scalar_tensor(const Scalar& s, TensorOptions options) {
  if (!options.has_dtype()) options = options.dtype(get_default_dtype());
  return new_tensor_version(at::empty({}, options).fill_(s));
}

}  // namespace at::native
