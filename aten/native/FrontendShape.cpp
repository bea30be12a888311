// libtorch's everyday tensor functions as composites over existing ops (issue #6): aliases, new_*
// factories, dimension moves, broadcasting, joins, atleast_*, tiling, index_add / index_fill /
// take / take_along_dim, rot90 and diff.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <ATen/Utils.h>
#include <algorithm>
#include <string>

namespace at::native {

namespace {
std::string shape_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}
}  // namespace

Tensor square(const Tensor& self) { return at::pow(self, 2); }
Tensor& square_(Tensor& self) { return self.pow_(2); }

Tensor clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return at::clamp(self, min, max);
}
Tensor& clip_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return self.clamp_(min, max);
}

Tensor type_as(const Tensor& self, const Tensor& other) { return self.to(other.options()); }

Tensor new_zeros(const Tensor& self, IntArrayRef size, TensorOptions options) {
  return at::zeros(size, self.options().merge_in(options));
}
Tensor new_ones(const Tensor& self, IntArrayRef size, TensorOptions options) {
  return at::ones(size, self.options().merge_in(options));
}
Tensor new_full(const Tensor& self, IntArrayRef size, const Scalar& fill_value, TensorOptions options) {
  return at::full(size, fill_value, self.options().merge_in(options));
}
Tensor new_empty(const Tensor& self, IntArrayRef size, TensorOptions options) {
  return at::empty(size, self.options().merge_in(options));
}

Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) { return self.transpose(axis0, axis1); }
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) { return self.transpose(dim0, dim1); }

Tensor movedim_intlist(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  EMBER_CHECK(source.size() == destination.size(), "[movedim] expected as many source as destination dims; got ",
              source.size(), " and ", destination.size());
  const int64_t n = self.dim();
  std::vector<int64_t> perm(static_cast<size_t>(n), -1);
  std::vector<bool> src_used(static_cast<size_t>(n), false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = maybe_wrap_dim(source[i], n, "movedim"), d = maybe_wrap_dim(destination[i], n, "movedim");
    EMBER_CHECK(!src_used[static_cast<size_t>(s)], "[movedim] expected distinct source dims; got ", shape_str(source));
    EMBER_CHECK(perm[static_cast<size_t>(d)] == -1, "[movedim] expected distinct destination dims; got ",
                shape_str(destination));
    src_used[static_cast<size_t>(s)] = true;
    perm[static_cast<size_t>(d)] = s;
  }
  // The dims not moved keep their order in the destination slots left over.
  int64_t next = 0;
  for (auto& p : perm) {
    if (p != -1) continue;
    while (src_used[static_cast<size_t>(next)]) ++next;
    p = next++;
  }
  if (n == 0) return at::alias(self);
  return self.permute(perm);
}
Tensor movedim_int(const Tensor& self, int64_t source, int64_t destination) {
  return movedim_intlist(self, {source}, {destination});
}
Tensor moveaxis_intlist(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return movedim_intlist(self, source, destination);
}
Tensor moveaxis_int(const Tensor& self, int64_t source, int64_t destination) {
  return movedim_intlist(self, {source}, {destination});
}

Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return self.expand(size); }

std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) shape = ember::broadcast_shapes("broadcast_tensors", shape, t.sizes());
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

std::vector<Tensor> meshgrid_indexing(TensorList tensors, c10::string_view indexing) {
  const std::string ix(indexing);
  EMBER_CHECK(ix == "ij" || ix == "xy", "[meshgrid] expected indexing \"ij\" or \"xy\"; got \"", ix, "\"");
  EMBER_CHECK(!tensors.empty(), "[meshgrid] expected at least one tensor; got an empty list");
  std::vector<Tensor> in(tensors.begin(), tensors.end());
  for (size_t i = 0; i < in.size(); ++i) {
    EMBER_CHECK(in[i].dim() <= 1, "[meshgrid] expected 0-D or 1-D tensors; got ", in[i].dim(), " dims at ", i);
    EMBER_CHECK(in[i].scalar_type() == in[0].scalar_type() && in[i].device() == in[0].device(),
                "[meshgrid] expected tensors of one dtype and device; got ", in[0].scalar_type(), " and ",
                in[i].scalar_type(), " at ", i);
  }
  // "xy" swaps the roles of the first two inputs: grid on (y, x, ...), then swap the outputs back.
  const bool swap = ix == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  std::vector<int64_t> shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  std::vector<Tensor> out;
  for (size_t i = 0; i < in.size(); ++i) {
    std::vector<int64_t> view(in.size(), 1);
    view[i] = -1;
    out.push_back(in[i].reshape(view).expand(shape));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}
std::vector<Tensor> meshgrid(TensorList tensors) { return meshgrid_indexing(tensors, "ij"); }

Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self; }
Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  return self.dim() == 1 ? self.unsqueeze(0) : self;
}
Tensor atleast_3d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1, 1});
  if (self.dim() == 1) return self.unsqueeze(0).unsqueeze(-1);
  return self.dim() == 2 ? self.unsqueeze(-1) : self;
}
std::vector<Tensor> atleast_1d_Sequence(TensorList tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(at::atleast_1d(t));
  return out;
}
std::vector<Tensor> atleast_2d_Sequence(TensorList tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(at::atleast_2d(t));
  return out;
}
std::vector<Tensor> atleast_3d_Sequence(TensorList tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(at::atleast_3d(t));
  return out;
}

Tensor hstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "[hstack] expected at least one tensor; got an empty list");
  std::vector<Tensor> ts = atleast_1d_Sequence(tensors);
  return at::cat(ts, ts[0].dim() == 1 ? 0 : 1);
}
Tensor vstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "[vstack] expected at least one tensor; got an empty list");
  return at::cat(atleast_2d_Sequence(tensors), 0);
}
Tensor dstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "[dstack] expected at least one tensor; got an empty list");
  return at::cat(atleast_3d_Sequence(tensors), 2);
}
Tensor column_stack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "[column_stack] expected at least one tensor; got an empty list");
  std::vector<Tensor> ts;
  for (const Tensor& t : tensors) ts.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return at::cat(ts, 1);
}

Tensor ravel(const Tensor& self) { return self.reshape({-1}); }

Tensor tile(const Tensor& self, IntArrayRef dims) {
  std::vector<int64_t> reps(dims.begin(), dims.end());
  if (static_cast<int64_t>(reps.size()) < self.dim()) reps.insert(reps.begin(), self.dim() - reps.size(), 1);
  return self.repeat(reps);
}

Tensor positive(const Tensor& self) {
  EMBER_CHECK(self.scalar_type() != kBool, "[positive] expected a non-bool tensor (unary + of bool is not defined); got bool");
  return self;
}

Tensor unflatten_int(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  dim = maybe_wrap_dim(dim, self.dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), "[unflatten] expected a non-empty sizes list; got []");
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK(infer == -1, "[unflatten] expected at most one -1 in sizes; got ", shape_str(sizes));
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(sizes[i] >= 0, "[unflatten] expected non-negative sizes (or one -1); got ", shape_str(sizes));
      known *= sizes[i];
    }
  }
  std::vector<int64_t> inner(sizes.begin(), sizes.end());
  if (infer >= 0) {
    EMBER_CHECK(known != 0 && self.size(dim) % known == 0, "[unflatten] expected sizes ", shape_str(sizes),
                " to fit dim ", dim, " of size ", self.size(dim));
    inner[static_cast<size_t>(infer)] = self.size(dim) / known;
  } else {
    EMBER_CHECK(known == self.size(dim), "[unflatten] expected sizes whose product is ", self.size(dim), " (dim ", dim,
                "); got ", shape_str(sizes));
  }
  std::vector<int64_t> shape = self.sizes().vec();
  shape.erase(shape.begin() + dim);
  shape.insert(shape.begin() + dim, inner.begin(), inner.end());
  return self.reshape(shape);
}

namespace {
// index (1-D, k entries) shaped to select along `dim` of a tensor shaped like `like`.
Tensor index_along(const Tensor& index, int64_t dim, IntArrayRef like) {
  std::vector<int64_t> view(like.size(), 1);
  if (!like.empty()) view[static_cast<size_t>(dim)] = index.numel();
  return index.reshape(view).expand(like);
}
void check_index_arg(const char* op, const Tensor& self, int64_t dim, const Tensor& index) {
  EMBER_CHECK(index.dim() <= 1, "[", op, "] expected a 0-D or 1-D index; got ", index.dim(), " dims");
  EMBER_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt, "[", op,
              "] expected an int64 or int32 index; got ", index.scalar_type());
  (void)self;
  (void)dim;
}
Tensor index_add_source(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                        const Scalar& alpha) {
  check_index_arg(op, self, dim, index);
  const Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  EMBER_CHECK(src.dim() == nd, "[", op, "] expected source with as many dims as self (", nd, "); got ", src.dim());
  EMBER_CHECK(src.size(dim) == index.numel(), "[", op, "] expected source.size(", dim, ") == index.numel() (",
              index.numel(), "); got ", src.size(dim));
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK(d == dim || src.size(d) == self.size(d), "[", op, "] expected source of shape ",
                shape_str(self.sizes()), " except along dim ", dim, "; got ", shape_str(src.sizes()));
  EMBER_CHECK(!(isIntegralType(self.scalar_type(), true) && alpha.isFloatingPoint()), "[", op,
              "] expected an integral alpha for an integral tensor; got ", alpha);
  return alpha.toDouble() == 1.0 ? src : src * alpha;
}
}  // namespace

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_add");
  const Tensor src = index_add_source("index_add", self, dim, index, source, alpha);
  const Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
  Tensor out = at::scatter_add(s, dim, index_along(index.to(kLong), dim, src.sizes()), src.to(self.scalar_type()));
  return self.dim() == 0 ? out.reshape({}) : out;
}
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_add_");
  const Tensor src = index_add_source("index_add_", self, dim, index, source, alpha);
  Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
  s.scatter_add_(dim, index_along(index.to(kLong), dim, src.sizes()), src.to(self.scalar_type()));
  return self;
}

namespace {
// A bool mask, broadcastable to self, true along `dim` at the (possibly negative) indices.
Tensor index_fill_mask(const char* op, const Tensor& self, int64_t dim, const Tensor& index) {
  check_index_arg(op, self, dim, index);
  const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
  Tensor idx = index.to(kLong).reshape({-1});
  if (idx.numel() > 0 && !idx.is_meta()) {  // (meta tensors have no values to check)
    const int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
    EMBER_CHECK_T(IndexError, lo >= -n && hi < n, "[", op, "] expected indices in [", -n, ", ", n - 1, "]; got ",
                  lo < -n ? lo : hi);
  }
  idx = at::remainder(idx, n);
  Tensor mask = at::zeros({n}, self.options().dtype(kBool));
  if (idx.numel() > 0) mask.scatter_(0, idx, true);
  std::vector<int64_t> view(static_cast<size_t>(self.dim()), 1);
  if (self.dim() == 0) return mask.reshape({});
  view[static_cast<size_t>(dim)] = n;
  return mask.reshape(view);
}
Tensor fill_value_tensor(const char* op, const Tensor& self, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "[", op, "] expected a 0-D value tensor; got ", value.dim(), " dims");
  return value.to(self.scalar_type());
}
}  // namespace

Tensor index_fill_int_Scalar(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_fill");
  return self.masked_fill(index_fill_mask("index_fill", self, dim, index), value);
}
Tensor index_fill_int_Tensor(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_fill");
  return self.masked_fill(index_fill_mask("index_fill", self, dim, index), fill_value_tensor("index_fill", self, value));
}
Tensor& index_fill__int_Scalar(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_fill_");
  return self.masked_fill_(index_fill_mask("index_fill_", self, dim, index), value);
}
Tensor& index_fill__int_Tensor(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_fill_");
  return self.masked_fill_(index_fill_mask("index_fill_", self, dim, index),
                           fill_value_tensor("index_fill_", self, value));
}

Tensor take(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(index.scalar_type() == kLong, "[take] expected an int64 index; got ", index.scalar_type());
  c10::List<std::optional<Tensor>> idx;
  idx.push_back(index);
  return at::index(self.reshape({-1}), idx);
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.scalar_type() == kLong, "[take_along_dim] expected int64 indices; got ", indices.scalar_type());
  if (!dim) return self.reshape({-1}).gather(0, indices.reshape({-1}));
  EMBER_CHECK(self.dim() == indices.dim(), "[take_along_dim] expected indices with as many dims as self (",
              self.dim(), "); got ", indices.dim());
  const int64_t d = maybe_wrap_dim(*dim, self.dim(), "take_along_dim");
  std::vector<int64_t> a = self.sizes().vec(), b = indices.sizes().vec();
  if (self.dim() == 0) return self.gather(0, indices);
  a[static_cast<size_t>(d)] = 1;
  b[static_cast<size_t>(d)] = 1;
  std::vector<int64_t> shape = ember::broadcast_shapes("take_along_dim", a, b);
  std::vector<int64_t> self_shape = shape, idx_shape = shape;
  self_shape[static_cast<size_t>(d)] = self.size(d);
  idx_shape[static_cast<size_t>(d)] = indices.size(d);
  return self.expand(self_shape).gather(d, indices.expand(idx_shape));
}

Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  EMBER_CHECK(dims.size() == 2, "[rot90] expected 2 dims; got ", dims.size());
  EMBER_CHECK(self.dim() >= 2, "[rot90] expected a tensor of at least 2 dims; got ", self.dim());
  const int64_t d0 = maybe_wrap_dim(dims[0], self.dim(), "rot90"), d1 = maybe_wrap_dim(dims[1], self.dim(), "rot90");
  EMBER_CHECK(d0 != d1, "[rot90] expected two different dims; got ", dims[0], " and ", dims[1]);
  switch (((k % 4) + 4) % 4) {
    case 1: return self.flip({d1}).transpose(d0, d1);
    case 2: return self.flip({d0, d1});
    case 3: return self.flip({d0}).transpose(d0, d1);
    default: return self.clone(at::MemoryFormat::Contiguous);
  }
}

Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  EMBER_CHECK(self.dim() >= 1, "[diff] expected a tensor of at least 1 dim; got a 0-D tensor");
  EMBER_CHECK(n >= 0, "[diff] expected a non-negative order n; got ", n);
  dim = maybe_wrap_dim(dim, self.dim(), "diff");
  Tensor x = self;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<Tensor> parts;
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(self);
    if (append && append->defined()) parts.push_back(*append);
    for (const Tensor& p : parts)
      EMBER_CHECK(p.dim() == self.dim(), "[diff] expected prepend and append with as many dims as self (", self.dim(),
                  "); got ", p.dim());
    x = at::cat(parts, dim);
  }
  for (int64_t i = 0; i < n && x.size(dim) > 0; ++i) {
    const int64_t len = x.size(dim) - 1;
    const Tensor hi = x.narrow(dim, 1, len), lo = x.narrow(dim, 0, len);
    x = x.scalar_type() == kBool ? at::logical_xor(hi, lo) : at::sub(hi, lo);
  }
  return x;
}

}  // namespace at::native
