#pragma once
// The host side of the indexing and joining kernels, shared by the CPU (kernels/cpu/index.cpp,
// join.cpp) and CUDA (kernels/cuda/index.cu, join.cu) versions: argument checks with their error
// messages, result shapes and dtypes, and the layout plan of advanced indexing. Nothing here
// touches tensor data except check_range (host tensors only) and make_advanced_plan (which calls
// at::nonzero for masks, on the mask's own device).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/Utils.h>
#include <ATen/TensorIterator.h>
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace at::native::index_detail {

/// Calls `f(T{})` with T the unsigned integer type as wide as one element (1, 2, 4 or 8 bytes).
template <typename F>
inline void by_elsize(size_t es, const F& f) {
  switch (es) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: EMBER_INTERNAL_ASSERT(false, "unexpected element size ", es);
  }
}

/// `index` as a contiguous int64 tensor on its own device; `op` names the op in the dtype error.
inline Tensor long_index(const Tensor& index, const char* op) {
  EMBER_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt, "[", op,
              "] expected index of dtype int64 or int32; got ", c10::dtypeName(index.scalar_type()));
  return (index.scalar_type() == kLong ? index : index.to(kLong)).contiguous();
}

/// Checks that every value of the contiguous int64 host tensor `idx` lies in [0, size). The CUDA
/// kernels range-check on the device and call this on a host copy only to raise the same error.
inline void check_range(const Tensor& idx, int64_t size, int64_t dim, const char* op) {
  const int64_t* p = idx.const_data_ptr<int64_t>();
  for (int64_t i = 0, n = idx.numel(); i < n; ++i)
    EMBER_CHECK_T(IndexError, p[i] >= 0 && p[i] < size, "[", op, "] expected an index in [0, ", size, ") for dim ",
                  dim, "; got ", p[i]);
}

/// Checks of index_select before its range check; returns the wrapped dim.
inline int64_t check_index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  EMBER_CHECK(index.dim() <= 1, "[index_select] expected index to be a 0-D or 1-D tensor; got ", index.dim(), "-D of shape ",
              index.sizes());
  // A 0-dim input has one element to pick: the result is 0-dim, so exactly one index is allowed.
  EMBER_CHECK(self.dim() > 0 || index.numel() == 1, "[index_select] expected exactly one index for a 0-dim input; got ",
              index.numel());
  return maybe_wrap_dim(dim, self.dim(), "index_select");
}

/// Checks index against self (and src) the way libtorch's gather/scatter do; `dim` is wrapped.
inline void check_gather_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  EMBER_CHECK(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1), "[", op,
              "] expected index and self to have the same number of dims; got index ", index.sizes(), " and self ",
              self.sizes());
  // A 0-dim index is one element: src must have one to give.
  if (src && index.dim() == 0)
    EMBER_CHECK(src->numel() >= 1, "[", op, "] expected a src with at least the index's one element; got src ",
                src->sizes());
  for (int64_t d = 0; d < index.dim(); ++d) {
    EMBER_CHECK(d == dim || index.size(d) <= (self.dim() == 0 ? 1 : self.size(d)), "[", op, "] expected index sizes ",
                index.sizes(), " to be at most self's sizes ", self.sizes(), " in every dim except ", dim);
    if (src)
      EMBER_CHECK(index.size(d) <= (src->dim() == 0 ? 1 : src->size(d)), "[", op, "] expected index sizes ", index.sizes(),
                  " to be at most src's sizes ", src->sizes());
  }
}

/// Checks of scatter_ / scatter_add_ before the range check; returns the wrapped dim.
inline int64_t check_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  dim = maybe_wrap_dim(dim, self.dim(), op);
  if (src) EMBER_CHECK(src->dim() == self.dim() || (src->dim() <= 1 && self.dim() <= 1), "[", op,
                       "] expected src and self to have the same number of dims; got src ", src->sizes(), " and self ",
                       self.sizes());
  check_gather_scatter(op, self, dim, index, src);
  if (src) EMBER_CHECK(src->scalar_type() == self.scalar_type(), "[", op, "] expected self and src to have the same dtype; got ",
                       c10::dtypeName(self.scalar_type()), " and ", c10::dtypeName(src->scalar_type()));
  return dim;
}

/// Checks of masked_fill_ (mask dtype, mask broadcasts to self without changing its shape).
/// The value must fit self's dtype even when nothing is filled (an empty self or an all-false
/// mask), so that a call is accepted or refused for its arguments alone.
inline void check_masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  EMBER_CHECK(mask.scalar_type() == kBool, "[masked_fill_] expected mask of dtype bool; got ",
              c10::dtypeName(mask.scalar_type()));
  auto shape = ember::broadcast_shapes("masked_fill_", self.sizes(), mask.sizes());
  EMBER_CHECK(IntArrayRef(shape) == self.sizes(), "[masked_fill_] mask of shape ", mask.sizes(),
              " must broadcast to self's shape ", self.sizes(), " (an in-place op cannot change self's shape)");
  EMBER_DISPATCH_ALL(self.scalar_type(), "masked_fill_", [&] { (void)value.to<scalar_t>(); });
}

/// Checks of masked_select; returns the broadcast shape of self and mask.
inline std::vector<int64_t> check_masked_select(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(mask.scalar_type() == kBool, "[masked_select] expected mask of dtype bool; got ",
              c10::dtypeName(mask.scalar_type()));
  return ember::broadcast_shapes("masked_select", self.sizes(), mask.sizes());
}

/// one_hot's checks given the input's dtype, element count and value range [lo, hi] (lo = 0,
/// hi = -1 when empty); returns the number of classes.
inline int64_t check_one_hot(const Tensor& self, int64_t n, int64_t lo, int64_t hi, int64_t num_classes) {
  EMBER_CHECK(lo >= 0, "[one_hot] expected non-negative class values; got ", lo);
  // An empty input has no values to infer the count from: it needs a positive num_classes
  // (libtorch refuses 0 there too).
  EMBER_CHECK(n > 0 || num_classes > 0, "[one_hot] expected a positive num_classes for an empty input; got ",
              num_classes, ", and there are no values to infer it from");
  if (num_classes == -1) num_classes = hi + 1;
  EMBER_CHECK(num_classes >= 0, "[one_hot] num_classes must be non-negative (or -1 to infer it); got ", num_classes);
  EMBER_CHECK_T(IndexError, hi < num_classes, "[one_hot] class value ", hi, " is out of range for num_classes ", num_classes);
  (void)self;
  return num_classes;
}

/// one_hot's dtype check (before any data is read).
inline void check_one_hot_dtype(const Tensor& self) {
  EMBER_CHECK(self.scalar_type() == kLong, "[one_hot] expected a tensor of dtype int64; got ",
              c10::dtypeName(self.scalar_type()));
}

// ---------------------------------------------------------------- cat
struct CatPlan {
  ScalarType dtype = ScalarType::Undefined;
  const Tensor* ref = nullptr;     // first tensor that is not 1-D empty; null: the result is empty [0]
  int64_t dim = 0;                 // wrapped
  std::vector<int64_t> shape;      // result shape
};

/// Checks cat's inputs and computes the result. 1-D empty tensors are skipped (libtorch's legacy
/// rule) but still take part in type promotion. `device_check(t, i)` checks each tensor's device.
template <typename DeviceCheck>
CatPlan plan_cat(TensorList tensors, int64_t dim, const DeviceCheck& device_check) {
  EMBER_CHECK(!tensors.empty(), "[cat] expected at least one tensor; got an empty list");
  CatPlan p;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), "[cat] expected a defined tensor at position ", i);
    device_check(t, i);
    EMBER_CHECK(t.dim() > 0, "[cat] expected tensors with at least one dim; got a 0-dim tensor at position ", i);
    p.dtype = p.dtype == ScalarType::Undefined ? t.scalar_type() : c10::promoteTypes(p.dtype, t.scalar_type());
    if (!p.ref && !(t.dim() == 1 && t.numel() == 0)) p.ref = &t;
  }
  if (!p.ref) return p;
  const Tensor* ref = p.ref;
  p.dim = dim = maybe_wrap_dim(dim, ref->dim(), "cat");
  p.shape = ref->sizes().vec();
  p.shape[dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() == 1 && t.numel() == 0) continue;
    EMBER_CHECK(t.dim() == ref->dim(), "[cat] expected every tensor to have the same number of dims (",
                ref->dim(), "); got ", t.dim(), " dims for tensor ", i);
    for (int64_t d = 0; d < t.dim(); ++d)
      EMBER_CHECK(d == dim || t.size(d) == ref->size(d), "[cat] expected equal sizes in all dims but dim ", dim,
                  "; got size ", t.size(d), " (expected ", ref->size(d), ") in dim ", d, " of tensor ", i);
    p.shape[dim] += t.size(dim);
  }
  return p;
}

// ---------------------------------------------------------------- where / flip / tril_ / triu_
/// where's result dtype and shape (the device check is the caller's).
inline std::pair<ScalarType, std::vector<int64_t>> plan_where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  ScalarType dtype = ember::result_type({&self, &other}, {});
  auto shape = ember::broadcast_shapes("where", condition.sizes(), ember::broadcast_shapes("where", self.sizes(), other.sizes()));
  return {dtype, shape};
}

/// where's condition dtype check.
inline void check_where_condition(const Tensor& condition) {
  EMBER_CHECK(condition.scalar_type() == kBool, "[where] expected condition of dtype bool; got ",
              c10::dtypeName(condition.scalar_type()));
}

/// flip's dims as a per-dim mask (size max(ndim, 1)); a dim may appear once.
inline std::vector<bool> flip_mask(int64_t nd, IntArrayRef dims) {
  std::vector<bool> flip(static_cast<size_t>(std::max<int64_t>(nd, 1)), false);
  for (int64_t d : dims) {
    int64_t w = maybe_wrap_dim(d, nd, "flip");
    EMBER_CHECK(!flip[w], "[flip] expected each dim at most once; got dim ", w, " more than once in ", dims);
    flip[w] = true;
  }
  return flip;
}

/// tril_ / triu_ need a matrix or a batch of them.
inline void check_tri(const Tensor& self, const char* op) {
  EMBER_CHECK(self.dim() >= 2, "[", op, "] expected a tensor with at least 2 dimensions; got ", self.dim());
}

// ---------------------------------------------------------------- advanced indexing
// See Note [Advanced indexing layout] in kernels/cpu/index.cpp.
struct AdvancedPlan {
  Tensor src;                          // self with the indexed dims moved to the front
  std::vector<int64_t> indexed;        // the indexed dims of self, ascending
  std::vector<Tensor> idx;             // int64 index tensor for each indexed dim (not yet broadcast)
  std::vector<int64_t> bshape;         // broadcast shape of the index tensors
  std::vector<int64_t> rest_sizes, rest_strides;
  std::vector<int64_t> result_shape;   // shape of the indexing result
  std::vector<int64_t> work_perm;      // permutes the result into [B, rest] order
};

/// Everything of advanced indexing except the element offsets and their range check: masks
/// become their nonzero() columns, the index tensors' broadcast shape, the permutations.
inline AdvancedPlan make_advanced_plan(const char* op, const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  const int64_t nd = self.dim();
  std::vector<Tensor> idx;  // one entry per dim of self (undefined = full slice)
  for (size_t k = 0; k < indices.size(); ++k) {
    const auto& opt = indices[k];
    if (!opt.has_value() || !opt->defined()) { idx.emplace_back(); continue; }
    const Tensor& t = *opt;
    const ScalarType dt = t.scalar_type();
    if (dt == kBool || dt == kByte) {
      EMBER_CHECK(t.dim() > 0, "[", op, "] a 0-dim boolean index tensor is not supported here; use the indexing API (t.index({true}))");
      const int64_t at_dim = static_cast<int64_t>(idx.size());
      EMBER_CHECK_T(IndexError, at_dim + t.dim() <= nd, "[", op, "] expected at most ", nd,
                    " indices (one per dim of the tensor); got ", at_dim + t.dim());
      for (int64_t j = 0; j < t.dim(); ++j)
        EMBER_CHECK_T(IndexError, t.size(j) == self.size(at_dim + j), "[", op, "] expected mask ", t.sizes(),
                      " to match the indexed tensor ", self.sizes(), " at mask dim ", j, " (tensor dim ", at_dim + j,
                      ")");
      Tensor nz = at::nonzero(dt == kBool ? t : t.ne(0));
      for (int64_t j = 0; j < t.dim(); ++j) idx.push_back(nz.select(1, j));
    } else {
      EMBER_CHECK(dt == kLong || dt == kInt, "[", op, "] expected index tensors of dtype int64, int32, uint8 or bool; got ",
                  c10::dtypeName(dt));
      idx.push_back(dt == kLong ? t : t.to(kLong));
    }
  }
  EMBER_CHECK_T(IndexError, static_cast<int64_t>(idx.size()) <= nd, "[", op, "] expected at most ", nd,
                " indices (one per dim of the tensor); got ", idx.size());
  idx.resize(static_cast<size_t>(nd));
  AdvancedPlan ai;
  std::vector<int64_t> plain;
  for (int64_t d = 0; d < nd; ++d) (idx[d].defined() ? ai.indexed : plain).push_back(d);
  EMBER_CHECK(!ai.indexed.empty(), "[", op, "] expected at least one index tensor");
  for (int64_t d : ai.indexed) ai.idx.push_back(idx[d]);
  ai.bshape = ai.idx[0].sizes().vec();
  for (const Tensor& t : ai.idx) ai.bshape = ember::broadcast_shapes(op, ai.bshape, t.sizes());
  const bool adjacent = ai.indexed.back() - ai.indexed.front() + 1 == static_cast<int64_t>(ai.indexed.size());
  std::vector<int64_t> perm = ai.indexed;
  perm.insert(perm.end(), plain.begin(), plain.end());
  ai.src = self.permute(perm);
  const int64_t k = static_cast<int64_t>(ai.indexed.size());
  for (int64_t d = k; d < nd; ++d) {
    ai.rest_sizes.push_back(ai.src.size(d));
    ai.rest_strides.push_back(ai.src.stride(d));
  }
  const int64_t nbd = static_cast<int64_t>(ai.bshape.size()), nr = nd - k;
  const int64_t p = (adjacent && ai.indexed.front() > 0) ? ai.indexed.front() : 0;
  ai.result_shape.assign(ai.rest_sizes.begin(), ai.rest_sizes.begin() + p);
  ai.result_shape.insert(ai.result_shape.end(), ai.bshape.begin(), ai.bshape.end());
  ai.result_shape.insert(ai.result_shape.end(), ai.rest_sizes.begin() + p, ai.rest_sizes.end());
  for (int64_t j = 0; j < nbd; ++j) ai.work_perm.push_back(p + j);
  for (int64_t j = 0; j < p; ++j) ai.work_perm.push_back(j);
  for (int64_t j = p; j < nr; ++j) ai.work_perm.push_back(nbd + j);
  return ai;
}

/// Range check of one broadcast, contiguous int64 host index tensor `e` for dim `d` of self
/// (negative indices count from the end).
inline void check_advanced_range(const char* op, const Tensor& e, int64_t d, int64_t size) {
  const int64_t* p = e.const_data_ptr<int64_t>();
  for (int64_t b = 0, nb = e.numel(); b < nb; ++b)
    EMBER_CHECK_T(IndexError, p[b] >= -size && p[b] < size, "[", op, "] expected an index in [", -size, ", ", size,
                  ") for dim ", d, "; got ", p[b]);
}

/// index_put_'s checks of `values` against the plan's result shape and self's dtype.
inline void check_index_put_values(const AdvancedPlan& ai, const Tensor& self, const Tensor& values) {
  bool fits = values.dim() <= static_cast<int64_t>(ai.result_shape.size());
  for (int64_t d = 1; fits && d <= values.dim(); ++d)
    fits = values.size(-d) == 1 || values.size(-d) == ai.result_shape[ai.result_shape.size() - d];
  EMBER_CHECK(fits, "[index_put_] expected values that broadcast to the indexing result's shape ",
              IntArrayRef(ai.result_shape), "; got values of shape ", values.sizes());
  EMBER_CHECK(values.scalar_type() == self.scalar_type(), "[index_put_] expected values of the destination's dtype ",
              c10::dtypeName(self.scalar_type()), "; got ", c10::dtypeName(values.scalar_type()),
              " (convert them with .to() first)");
}

}  // namespace at::native::index_detail

EMBER_PUBLIC_END
