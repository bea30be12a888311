// More of libtorch's frontend as composites (issue #6): cosine_similarity, pairwise_distance, dist,
// scatter_reduce (sum, prod, mean, amax, amin), masked_scatter, slice_scatter, select_scatter and
// diagonal_scatter. Autograd comes through their parts.
//
// Note [scatter through linear positions]
// The scatter variants find, for every element they write, its position in self read as a flat
// row-major vector, and write with index_put on the flattened self. The positions come from the
// views of an arange over self's numel (slice, select, diagonal) or from the index (scatter_reduce),
// so their checks and clamping are the views' own.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <ATen/Utils.h>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace at::native {
namespace {

std::vector<int64_t> broadcast_of(const char* op, const Tensor& a, const Tensor& b) {
  return ember::broadcast_shapes(op, a.sizes(), b.sizes());
}

// The flat positions of self's elements, shaped like self.
Tensor flat_positions(const Tensor& self) {
  return at::arange(self.numel(), self.options().dtype(kLong)).view(self.sizes());
}

// self with the elements at the flat `positions` replaced by `src` (same shape as positions).
Tensor put_flat(const Tensor& self, const Tensor& positions, const Tensor& src) {
  const Tensor flat = self.reshape({-1});
  c10::List<std::optional<Tensor>> idx;
  idx.push_back(positions.reshape({-1}));
  return at::index_put(flat, idx, src.to(self.scalar_type()).reshape({-1}), false).view(self.sizes());
}

void check_src_shape(const char* op, const Tensor& src, const Tensor& positions) {
  EMBER_CHECK(src.sizes() == positions.sizes(), "[", op, "] expected src of the shape of the region it fills, ",
              positions.sizes(), "; got ", src.sizes());
}

}  // namespace

// ---------------------------------------------------------------- distances

// The product of the unit vectors along dim. As libtorch's, the norms are clamped at eps as
// constants: the value divides by max(norm, eps), the gradient sees the unclamped norm.
Tensor cosine_similarity(const Tensor& x1_, const Tensor& x2_, int64_t dim, double eps) {
  // Both operands are broadcast before the dtypes meet, so a 0-dim operand's dtype counts in full
  // (libtorch: float16 [n] with a float64 0-dim tensor is float64, not result_type's float16).
  const ScalarType common = promoteTypes(x1_.scalar_type(), x2_.scalar_type());
  EMBER_CHECK(eps >= 0, "[cosine_similarity] expected a non-negative eps; got ", eps);
  EMBER_CHECK(isFloatingType(common), "[cosine_similarity] expected x1 and x2 whose common dtype is floating; got ",
              c10::dtypeName(x1_.scalar_type()), " and ", c10::dtypeName(x2_.scalar_type()));
  const std::vector<int64_t> shape = broadcast_of("cosine_similarity", x1_, x2_);
  const Tensor x1 = x1_.to(common).expand(shape), x2 = x2_.to(common).expand(shape);
  dim = maybe_wrap_dim(dim, static_cast<int64_t>(shape.size()), "cosine_similarity");
  auto clamped_norm = [&](const Tensor& x) {
    const Tensor n = at::norm(x, Scalar(2.0), IntArrayRef{dim}, true);
    const Tensor nd = n.detach();
    // (Adding eps - norm only where the norm is below eps keeps an infinite norm infinite.)
    return at::add(n, at::where(at::lt(nd, Scalar(eps)), at::rsub(nd, Scalar(eps)), Scalar(0)));
  };
  return at::sum(at::mul(at::div(x1, clamped_norm(x1)), at::div(x2, clamped_norm(x2))), IntArrayRef{dim}, false);
}

// The p-norm of x1 - x2 + eps over the last dim of the broadcast shape (libtorch adds eps to
// every difference).
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const std::vector<int64_t> shape = broadcast_of("pairwise_distance", x1, x2);
  EMBER_CHECK(x1.scalar_type() != kBool && x2.scalar_type() != kBool,
              "[pairwise_distance] expected numeric x1 and x2 (their difference); got ", c10::dtypeName(x1.scalar_type()),
              " and ", c10::dtypeName(x2.scalar_type()));
  const Tensor diff = at::add(at::sub(x1, x2), Scalar(eps));
  const int64_t last = shape.empty() ? 0 : static_cast<int64_t>(shape.size()) - 1;
  return at::norm(diff, Scalar(p), IntArrayRef{last}, keepdim);
}

Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) {
  broadcast_of("dist", self, other);
  EMBER_CHECK(self.scalar_type() != kBool && other.scalar_type() != kBool,
              "[dist] expected numeric inputs (their difference); got ", c10::dtypeName(self.scalar_type()), " and ",
              c10::dtypeName(other.scalar_type()));
  const Tensor diff = at::sub(self, other);
  EMBER_CHECK(isFloatingType(diff.scalar_type()), "[dist] expected floating inputs; got ",
              c10::dtypeName(self.scalar_type()), " and ", c10::dtypeName(other.scalar_type()));
  return at::norm(diff, p);
}

// ---------------------------------------------------------------- scatter_reduce

namespace {

enum class Reduce { Sum, Prod, Mean, Amax, Amin };

Reduce reduce_of(const char* op, c10::string_view reduce) {
  const std::string r(reduce);
  if (r == "sum") return Reduce::Sum;
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  // libtorch also takes "max" and "min" for amax and amin.
  if (r == "amax" || r == "max") return Reduce::Amax;
  if (r == "amin" || r == "min") return Reduce::Amin;
  EMBER_CHECK(false, "[", op, "] expected reduce \"sum\", \"prod\", \"mean\", \"amax\" or \"amin\"; got \"", r, "\"");
  return Reduce::Sum;
}

// A tensor of zeros of a bool/long dtype at the positions in flat `pos`, or ones with accumulate.
Tensor count_at(int64_t numel, const Tensor& pos, const TensorOptions& opts) {
  c10::List<std::optional<Tensor>> idx;
  idx.push_back(pos);
  return at::index_put(at::zeros({numel}, opts), idx, at::ones({pos.numel()}, opts), true);
}

Tensor put_acc(const Tensor& base, const Tensor& pos, const Tensor& values) {
  c10::List<std::optional<Tensor>> idx;
  idx.push_back(pos);
  return at::index_put(base, idx, values, true);
}

Tensor scatter_reduce_impl(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           c10::string_view reduce_name, bool include_self) {
  const Reduce reduce = reduce_of(op, reduce_name);
  dim = maybe_wrap_dim(dim, self.dim(), op);
  EMBER_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt, "[", op,
              "] expected an int64 or int32 index; got ", c10::dtypeName(index.scalar_type()));
  EMBER_CHECK(self.scalar_type() == src.scalar_type(), "[", op, "] expected self and src of one dtype; got ",
              c10::dtypeName(self.scalar_type()), " and ", c10::dtypeName(src.scalar_type()));
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == std::max<int64_t>(self.dim(), 1) &&
                  std::max<int64_t>(src.dim(), 1) == std::max<int64_t>(self.dim(), 1),
              "[", op, "] expected index and src with as many dims as self (", self.dim(), "); got ", index.dim(),
              " and ", src.dim());
  // Work on at least 1-d views (a 0-d tensor is one element along dim 0).
  const Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
  const Tensor ix = (index.dim() == 0 ? index.reshape({1}) : index).to(kLong);
  const Tensor sr = src.dim() == 0 ? src.reshape({1}) : src;
  const int64_t nd = s.dim();
  for (int64_t d = 0; d < nd; ++d) {
    EMBER_CHECK(ix.size(d) <= sr.size(d) && (d == dim || ix.size(d) <= s.size(d)), "[", op,
                "] expected index no larger than src in every dim and than self outside dim ", dim,
                "; got index ", ix.sizes(), ", self ", s.sizes(), ", src ", sr.sizes());
  }
  if (ix.numel() > 0 && !ix.is_meta()) {  // (meta tensors have no values to check)
    const int64_t lo = ix.min().item<int64_t>(), hi = ix.max().item<int64_t>();
    EMBER_CHECK_T(IndexError, lo >= 0 && hi < s.size(dim), "[", op, "] expected index values in [0, ", s.size(dim),
                  ") along dim ", dim, "; got ", lo < 0 ? lo : hi);
  }
  // The flat position in s of every element the index writes (Note [scatter through linear positions]).
  const std::vector<int64_t> strides = contiguous_strides(s.sizes());
  Tensor pos = at::mul(ix, strides[static_cast<size_t>(dim)]);
  for (int64_t d = 0; d < nd; ++d) {
    if (d == dim || ix.size(d) == 0) continue;
    std::vector<int64_t> view(static_cast<size_t>(nd), 1);
    view[static_cast<size_t>(d)] = ix.size(d);
    pos = at::add(pos, at::mul(at::arange(ix.size(d), ix.options()).view(view), strides[static_cast<size_t>(d)]));
  }
  pos = pos.reshape({-1});
  Tensor values = sr;
  for (int64_t d = 0; d < nd; ++d) values = values.narrow(d, 0, ix.size(d));
  values = values.reshape({-1});
  const int64_t numel = s.numel();
  const Tensor flat = s.reshape({-1});
  const Tensor hit = at::gt(count_at(numel, pos, flat.options().dtype(kLong)), 0);
  const bool floating = isFloatingType(s.scalar_type());
  Tensor out;
  if (reduce == Reduce::Sum || reduce == Reduce::Mean) {
    const Tensor base = include_self ? flat : at::masked_fill(flat, hit, Scalar(0));
    out = put_acc(base, pos, values);
    if (reduce == Reduce::Mean) {
      // Untouched elements count themselves once (so keep their value).
      Tensor count = put_acc(include_self ? at::ones({numel}, flat.options()) : at::logical_not(hit).to(s.scalar_type()),
                             pos, at::ones({pos.numel()}, flat.options()));
      out = floating ? at::div(out, count) : at::div(out, count, c10::string_view("floor"));
    }
  } else {
    // Each written element's slot within its target: rank among the elements with the same
    // position, in index order (a stable sort of the positions).
    const Tensor order = std::get<1>(at::sort(pos, 0, false));
    const Tensor sorted = pos.index_select(0, order);
    const Tensor rank_sorted = at::sub(at::arange(pos.numel(), pos.options()), at::searchsorted(sorted, sorted));
    const Tensor rank = at::scatter(at::zeros_like(rank_sorted), 0, order, rank_sorted);  // by original element
    // The most values any element receives (the table's width) depends on data; the result's shape
    // does not, so a meta table has one slot per element.
    const int64_t slots = pos.numel() == 0 ? 0 : pos.is_meta() ? 1 : rank.max().item<int64_t>() + 1;
    Scalar identity(0);
    if (reduce == Reduce::Prod) identity = Scalar(1);
    else if (floating) identity = Scalar(reduce == Reduce::Amax ? -INFINITY : INFINITY);
    else if (s.scalar_type() == kBool) identity = Scalar(reduce != Reduce::Amax);
    else {
      AT_DISPATCH_INTEGRAL_TYPES(s.scalar_type(), op, [&] {
        identity = Scalar(static_cast<int64_t>(reduce == Reduce::Amax ? std::numeric_limits<scalar_t>::lowest()
                                                                      : std::numeric_limits<scalar_t>::max()));
      });
    }
    // A dense [numel, 1 + slots] table: column 0 holds self (or the identity), the others the
    // values written to each element.
    auto table_of = [&](const Tensor& f, const Tensor& v) {
      Tensor first = include_self ? f.unsqueeze(1) : at::full({numel, 1}, identity, f.options());
      Tensor rest = at::full({numel, slots}, identity, f.options());
      c10::List<std::optional<Tensor>> idx;
      idx.push_back(pos);
      idx.push_back(rank);
      rest = at::index_put(rest, idx, v, false);
      return at::cat({first, rest}, 1);
    };
    if (reduce == Reduce::Prod) {
      Tensor p = at::prod(table_of(flat, values), 1, false);
      out = at::where(hit, p.to(s.scalar_type()), flat);
    } else {
      const Tensor table = table_of(flat.detach(), values.detach());
      const Tensor m = reduce == Reduce::Amax ? at::amax(table, IntArrayRef{1}, false) : at::amin(table, IntArrayRef{1}, false);
      const bool grad = floating && (self.requires_grad() || src.requires_grad());
      if (!grad) {
        out = at::where(hit, m, flat);
      } else {
        // The gradient is shared evenly among the elements equal to the result (as libtorch).
        auto equal = [](const Tensor& a, const Tensor& b) {
          return at::logical_or(at::eq(a, b), at::logical_and(at::isnan(a), at::isnan(b)));
        };
        const Tensor m_at = m.index_select(0, pos);
        const Tensor eq_src = equal(values.detach(), m_at);
        const Tensor eq_self = include_self ? equal(flat.detach(), m) : at::zeros_like(hit);
        const Tensor n = put_acc(eq_self.to(s.scalar_type()), pos, eq_src.to(s.scalar_type()));
        const Tensor w_self = at::div(eq_self.to(s.scalar_type()), n.clamp_min(Scalar(1)));
        const Tensor w_src = at::div(eq_src.to(s.scalar_type()), n.index_select(0, pos));
        const Tensor from_self = at::mul(at::where(eq_self, flat, Scalar(0)), w_self);
        const Tensor from_src = at::mul(at::where(eq_src, values, Scalar(0)), w_src);
        out = at::where(hit, put_acc(from_self, pos, from_src), flat);
      }
    }
  }
  return out.view(self.sizes());
}

}  // namespace

Tensor scatter_reduce_two(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          c10::string_view reduce, bool include_self) {
  return scatter_reduce_impl("scatter_reduce", self, dim, index, src, reduce, include_self);
}
Tensor& scatter_reduce__two(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, c10::string_view reduce,
                            bool include_self) {
  self.copy_(scatter_reduce_impl("scatter_reduce_", self, dim, index, src, reduce, include_self));
  return self;
}

// ---------------------------------------------------------------- masked_scatter

namespace {
Tensor masked_scatter_impl(const char* op, const Tensor& self, const Tensor& mask, const Tensor& source,
                           IntArrayRef shape) {
  EMBER_CHECK(mask.scalar_type() == kBool, "[", op, "] expected a bool mask; got ", c10::dtypeName(mask.scalar_type()));
  EMBER_CHECK(self.scalar_type() == source.scalar_type(), "[", op, "] expected self and source of one dtype; got ",
              c10::dtypeName(self.scalar_type()), " and ", c10::dtypeName(source.scalar_type()));
  const Tensor m = mask.expand(shape).reshape({-1});
  // How many positions are true depends on data, the result's shape does not: meta inputs write
  // none (source still takes part, so a gradient reaches it with its shape).
  const Tensor positions = m.is_meta() ? at::empty({0}, m.options().dtype(kLong)) : at::nonzero(m).reshape({-1});
  const int64_t count = positions.numel();
  EMBER_CHECK(source.numel() >= count, "[", op, "] expected source with at least as many elements as mask has true values (",
              count, "); got ", source.numel());
  const Tensor flat = self.expand(shape).reshape({-1});
  c10::List<std::optional<Tensor>> idx;
  idx.push_back(positions);
  return at::index_put(flat, idx, source.reshape({-1}).narrow(0, 0, count), false).view(shape);
}
}  // namespace

// The true positions of mask (broadcast with self) take source's elements in order.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const std::vector<int64_t> shape = broadcast_of("masked_scatter", self, mask);
  return masked_scatter_impl("masked_scatter", self, mask, source, shape);
}
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  const std::vector<int64_t> shape = broadcast_of("masked_scatter_", self, mask);
  EMBER_CHECK(IntArrayRef(shape) == self.sizes(), "[masked_scatter_] expected a mask that broadcasts to self's shape ",
              self.sizes(), "; got ", mask.sizes());
  self.copy_(masked_scatter_impl("masked_scatter_", self, mask, source, shape));
  return self;
}

// ---------------------------------------------------------------- slice / select / diagonal scatter

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  EMBER_CHECK(self.dim() > 0, "[slice_scatter] expected self of at least 1 dim; got a 0-dim tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "slice_scatter");
  EMBER_CHECK(step > 0, "[slice_scatter] expected a positive step; got ", step);
  const Tensor positions = flat_positions(self).slice(dim, start, end, step);
  check_src_shape("slice_scatter", src, positions);
  return put_flat(self, positions, src);
}

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  EMBER_CHECK(self.dim() > 0, "[select_scatter] expected self of at least 1 dim; got a 0-dim tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "select_scatter");
  const int64_t size = self.size(dim);
  EMBER_CHECK_T(IndexError, index >= -size && index < size, "[select_scatter] expected an index in [", -size, ", ",
                size - 1, "] for dim ", dim, "; got ", index);
  const Tensor positions = flat_positions(self).select(dim, index);
  check_src_shape("select_scatter", src, positions);
  return put_flat(self, positions, src);
}

Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  const Tensor positions = flat_positions(self).diagonal(offset, dim1, dim2);
  check_src_shape("diagonal_scatter", src, positions);
  return put_flat(self, positions, src);
}

}  // namespace at::native
