// View operators: new sizes/strides/offset over the same storage, no copies. Device-agnostic:
// registered for CPU and CUDA alike.
#include <ATen/native/NativeFunctions.h>
#include <ATen/Utils.h>
#include <c10/util/safe_numerics.h>

namespace at::native {
namespace {
std::vector<int64_t> infer_size(const char* op, IntArrayRef shape, int64_t numel) {
  std::vector<int64_t> out(shape.begin(), shape.end());
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      EMBER_CHECK(infer < 0, "[", op, "] expected at most one -1 (inferred) entry in the shape; got shape ", shape);
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(out[i] >= 0, "[", op, "] expected shape entries that are -1 or non-negative; got ", out[i], " in shape ", shape);
      known *= out[i];
    }
  }
  if (infer >= 0) {
    EMBER_CHECK(known != 0 && numel % known == 0, "[", op, "] expected a shape that holds ", numel,
                " elements once its -1 entry is filled in; got shape ", shape);
    out[infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, "[", op, "] expected a shape that holds ", numel, " elements; got shape ", shape);
  }
  return out;
}

// Note [When a reshape can be a view]
// Memory addressed by a strided tensor splits into "runs": maximal groups of adjacent dims that
// step through memory as one dim would (dim d folds into the run of the dim after it when
// stride[d] == stride[next] * size[next]; size-1 dims step nowhere and fold into anything). A
// new shape can address the same elements without a copy exactly when its dims, read innermost
// first, can be cut into consecutive groups whose element counts equal the runs' counts, in the
// same order: each group then re-slices one run, and a new dim's stride is the run's innermost
// stride times the sizes of the group's dims inside it.
struct Run {
  int64_t numel;
  int64_t stride;  // of the run's innermost element step
};

std::optional<std::vector<int64_t>> view_strides(IntArrayRef old_sizes, IntArrayRef old_strides, IntArrayRef shape) {
  const int64_t nd_new = static_cast<int64_t>(shape.size());
  std::vector<int64_t> out(static_cast<size_t>(nd_new), 1);
  if (prod_sizes(old_sizes) == 0) {
    // No element to address: any strides are valid; keep the old ones when nothing changes.
    if (old_sizes == shape) return old_strides.vec();
    return contiguous_strides(shape);
  }
  // Runs, innermost first.
  std::vector<Run> runs;
  int64_t prev = -1;  // the last non-size-1 dim seen (inner side)
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    if (old_sizes[d] == 1) continue;
    const bool continues = prev >= 0 && old_strides[d] == old_strides[prev] * old_sizes[prev];
    if (continues) runs.back().numel *= old_sizes[d];
    else runs.push_back({old_sizes[d], old_strides[d]});
    prev = d;
  }
  // Cut the new dims, innermost first, into one group per run.
  int64_t d = nd_new - 1;
  int64_t step = old_sizes.empty() ? 1 : old_strides.back();  // stride given to size-1 dims before any run
  for (const Run& run : runs) {
    int64_t covered = 1;
    while (d >= 0 && covered < run.numel) {
      out[d] = run.stride * covered;
      covered *= shape[d];
      --d;
    }
    if (covered != run.numel) return std::nullopt;  // a new dim straddles two runs
    step = run.stride * run.numel;
    // Size-1 dims right outside the group stay with it.
    while (d >= 0 && shape[d] == 1) out[d--] = step;
  }
  while (d >= 0) {
    if (shape[d] != 1) return std::nullopt;  // more new elements than old ones (cannot happen: numel matches)
    out[d--] = step;
  }
  return out;
}
}  // namespace

Tensor as_strided_generic(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  const int64_t off = storage_offset.value_or(self.storage_offset());
  const int64_t need = c10::checked_storage_nbytes(size, stride, off, self.element_size(), "as_strided");
  EMBER_CHECK(need <= static_cast<int64_t>(self.storage().nbytes()), "[as_strided] expected a view inside the storage of ",
              self.storage().nbytes(), " bytes; got size ", size, ", stride ", stride, " and offset ", off, ", which need ",
              need, " bytes");
  return make_view(self, size, stride, off);
}

// The same bytes read as another dtype. Of the same element size: same sizes, strides and offset. Of
// another size: the last dim must be contiguous (stride 1) and the byte sizes, strides and offset must
// divide evenly into the new element size; the last dim grows or shrinks by the size ratio.
Tensor view_dtype_generic(const Tensor& self, ScalarType dtype) {
  const int64_t from = static_cast<int64_t>(self.element_size()), to = static_cast<int64_t>(elementSize(dtype));
  auto retype = [&](Tensor v) {
    v.unsafeGetTensorImpl()->set_dtype(dtype);
    return v;
  };
  if (from == to) return retype(make_view(self, self.sizes(), self.strides(), self.storage_offset()));
  EMBER_CHECK(self.dim() > 0, "[view] expected a tensor with at least one dimension to view as ", c10::dtypeName(dtype),
              " (element size ", to, " bytes, not ", from, "); got a 0-dim tensor");
  const int64_t last = self.dim() - 1;
  EMBER_CHECK(self.stride(last) == 1, "[view] expected the last dimension to be contiguous (stride 1) ",
              "to view ", c10::dtypeName(self.scalar_type()), " as ", c10::dtypeName(dtype), "; got strides ", self.strides());
  std::vector<int64_t> sz = self.sizes().vec(), st = self.strides().vec();
  if (to > from) {
    const int64_t k = to / from;
    EMBER_CHECK(sz[last] % k == 0, "[view] expected the last dimension's size to be a multiple of ", k, " to view ",
                c10::dtypeName(self.scalar_type()), " as ", c10::dtypeName(dtype), "; got size ", sz[last]);
    EMBER_CHECK(self.storage_offset() % k == 0, "[view] expected a storage offset that is a multiple of ", k, " to view ",
                c10::dtypeName(self.scalar_type()), " as ", c10::dtypeName(dtype), "; got ", self.storage_offset());
    for (int64_t d = 0; d < last; ++d)
      EMBER_CHECK(st[d] % k == 0, "[view] expected every stride but the last to be a multiple of ", k, " to view ",
                  c10::dtypeName(self.scalar_type()), " as ", c10::dtypeName(dtype), "; got strides ", self.strides());
    for (int64_t d = 0; d < last; ++d) st[d] /= k;
    sz[last] /= k;
    st[last] = 1;
    return retype(make_view(self, sz, st, self.storage_offset() / k));
  }
  const int64_t k = from / to;
  for (int64_t d = 0; d < last; ++d) st[d] *= k;
  sz[last] *= k;
  st[last] = 1;
  return retype(make_view(self, sz, st, self.storage_offset() * k));
}

Tensor view_generic(const Tensor& self, IntArrayRef size) {
  auto shape = infer_size("view", size, self.numel());
  auto st = view_strides(self.sizes(), self.strides(), shape);
  EMBER_CHECK(st.has_value(), "[view] expected a shape whose dims each lie within one contiguous run of the input; got shape ",
              size, " for an input with sizes ", self.sizes(), " and strides ", self.strides(),
              " (reshape() copies when a view is impossible)");
  return make_view(self, shape, *st, self.storage_offset());
}

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  auto sz = infer_size("reshape", shape, self.numel());
  if (view_strides(self.sizes(), self.strides(), sz)) return self.view(sz);
  return self.clone(MemoryFormat::Contiguous).view(sz);
}

Tensor flatten_using_ints(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  if (self.dim() == 0) return self.reshape({1});
  start_dim = maybe_wrap_dim(start_dim, self.dim(), "flatten");
  end_dim = maybe_wrap_dim(end_dim, self.dim(), "flatten");
  EMBER_CHECK(start_dim <= end_dim, "[flatten] expected start_dim <= end_dim; got start_dim ", start_dim, " and end_dim ", end_dim);
  if (start_dim == end_dim) return self;
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(self.size(d));
  int64_t m = 1;
  for (int64_t d = start_dim; d <= end_dim; ++d) m *= self.size(d);
  shape.push_back(m);
  for (int64_t d = end_dim + 1; d < self.dim(); ++d) shape.push_back(self.size(d));
  return self.reshape(shape);
}

Tensor view_as(const Tensor& self, const Tensor& other) { return self.view(other.sizes()); }
Tensor reshape_as(const Tensor& self, const Tensor& other) { return self.reshape(other.sizes()); }

Tensor transpose_generic(const Tensor& self, int64_t dim0, int64_t dim1) {
  int64_t nd = self.dim();
  dim0 = maybe_wrap_dim(dim0, nd, "transpose");
  dim1 = maybe_wrap_dim(dim1, nd, "transpose");
  if (nd == 0) return make_view(self, {}, {}, self.storage_offset());
  std::vector<int64_t> sz = self.sizes().vec(), st = self.strides().vec();
  std::swap(sz[dim0], sz[dim1]);
  std::swap(st[dim0], st[dim1]);
  return make_view(self, sz, st, self.storage_offset());
}

Tensor t(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "[t] expected a tensor with at most 2 dims; got ", self.dim(), " dims");
  if (self.dim() < 2) return self.transpose(0, 0);
  return self.transpose(0, 1);
}

Tensor permute_generic(const Tensor& self, IntArrayRef dims) {
  int64_t nd = self.dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == nd, "[permute] expected one entry per dim of the tensor (", nd,
              "); got ", dims.size(), " entries: ", dims);
  std::vector<int64_t> sz(nd), st(nd);
  std::vector<bool> seen(nd, false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = maybe_wrap_dim(dims[i], nd, "permute");
    EMBER_CHECK(!seen[d], "[permute] repeated dim ", dims[i], " in permutation ", dims);
    seen[d] = true;
    sz[i] = self.size(d);
    st[i] = self.stride(d);
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor expand_generic(const Tensor& self, IntArrayRef size, bool implicit) {
  (void)implicit;
  int64_t nd = static_cast<int64_t>(size.size()), sd = self.dim();
  EMBER_CHECK(nd >= sd, "[expand] expected at least as many sizes as the tensor has dims (", sd, "); got ", nd, " sizes");
  std::vector<int64_t> sz(nd), st(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t j = i - (nd - sd);
    int64_t want = size[i];
    if (j < 0) {
      EMBER_CHECK(want >= 0, "[expand] expected a non-negative size for new leading dim ", i, "; got ", want);
      sz[i] = want;
      st[i] = 0;
    } else {
      int64_t have = self.size(j);
      if (want == -1) want = have;
      EMBER_CHECK(have == want || have == 1, "[expand] expected the existing size (", have, ") at dim ", i,
                  " to be 1 or to equal the target size (", want, "); got target sizes ", size, ", tensor sizes ",
                  self.sizes());
      sz[i] = want;
      st[i] = have == want ? self.stride(j) : 0;
    }
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor expand_as(const Tensor& self, const Tensor& other) { return self.expand(other.sizes()); }

Tensor squeeze_generic(const Tensor& self) {
  std::vector<int64_t> sz, st;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (self.size(d) != 1) { sz.push_back(self.size(d)); st.push_back(self.stride(d)); }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor squeeze_dim_generic(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim(), "squeeze");
  if (self.dim() == 0 || self.size(dim) != 1) return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  std::vector<int64_t> sz = self.sizes().vec(), st = self.strides().vec();
  sz.erase(sz.begin() + dim);
  st.erase(st.begin() + dim);
  return make_view(self, sz, st, self.storage_offset());
}

Tensor unsqueeze_generic(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim() + 1, "unsqueeze");
  std::vector<int64_t> sz = self.sizes().vec(), st = self.strides().vec();
  int64_t new_st = dim >= self.dim() ? 1 : sz[dim] * st[dim];
  sz.insert(sz.begin() + dim, 1);
  st.insert(st.begin() + dim, new_st);
  return make_view(self, sz, st, self.storage_offset());
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(self.dim() > 0, "[narrow] expected a tensor with at least 1 dim; got a 0-dim tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "narrow");
  int64_t size = self.size(dim);
  EMBER_CHECK_T(IndexError, start >= -size && start <= size, "[narrow] expected start in [", -size, ", ", size, "] for dim ", dim,
                " of size ", size, "; got ", start);
  if (start < 0) start += size;
  EMBER_CHECK(length >= 0 && start + length <= size, "[narrow] expected a non-negative length with start + length <= ", size,
              " (the size of dim ", dim, "); got start ", start, " and length ", length);
  return self.slice(dim, start, start + length, 1);
}

Tensor slice_generic(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  EMBER_CHECK(self.dim() > 0, "[slice] expected a tensor with at least 1 dim; got a 0-dim tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "slice");
  EMBER_CHECK(step > 0, "[slice] expected a positive step; got ", step);
  int64_t size = self.size(dim);
  int64_t s = start.value_or(0), e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  std::vector<int64_t> sz = self.sizes().vec(), st = self.strides().vec();
  sz[dim] = (e - s + step - 1) / step;
  st[dim] *= step;
  return make_view(self, sz, st, self.storage_offset() + s * self.stride(dim));
}

Tensor select_generic(const Tensor& self, int64_t dim, int64_t index) {
  EMBER_CHECK_T(IndexError, self.dim() > 0, "[select] expected a tensor with at least 1 dim; got a 0-dim tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "select");
  int64_t size = self.size(dim);
  EMBER_CHECK_T(IndexError, index >= -size && index < size, "[select] expected an index in [", -size, ", ", size - 1,
                "] for dim ", dim, " of size ", size, "; got ", index);
  if (index < 0) index += size;
  std::vector<int64_t> sz = self.sizes().vec(), st = self.strides().vec();
  int64_t off = self.storage_offset() + index * st[dim];
  sz.erase(sz.begin() + dim);
  st.erase(st.begin() + dim);
  return make_view(self, sz, st, off);
}

Tensor unfold_generic(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  int64_t nd = std::max<int64_t>(self.dim(), 1);
  dimension = maybe_wrap_dim(dimension, nd, "unfold");
  int64_t dsize = self.dim() == 0 ? 1 : self.size(dimension);
  EMBER_CHECK(size <= dsize, "[unfold] expected a window size of at most ", dsize, " (the size of dim ", dimension, "); got ", size);
  EMBER_CHECK(step > 0, "[unfold] expected a positive step; got ", step);
  std::vector<int64_t> sz = self.sizes().vec(), st = self.strides().vec();
  if (self.dim() == 0) { sz = {1}; st = {1}; }
  int64_t dstride = st[dimension];
  sz[dimension] = (dsize - size) / step + 1;
  st[dimension] = dstride * step;
  sz.push_back(size);
  st.push_back(dstride);
  return make_view(self, sz, st, self.storage_offset());
}

Tensor diagonal_generic(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t nd = self.dim();
  EMBER_CHECK(nd >= 2, "[diagonal] expected a tensor with at least 2 dims; got ", nd);
  dim1 = maybe_wrap_dim(dim1, nd, "diagonal");
  dim2 = maybe_wrap_dim(dim2, nd, "diagonal");
  EMBER_CHECK(dim1 != dim2, "[diagonal] expected two different dims; got ", dim1, " and ", dim2);
  int64_t off = self.storage_offset(), len;
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(self.size(dim1), self.size(dim2) - offset), 0);
    off += offset * self.stride(dim2);
  } else {
    len = std::max<int64_t>(std::min(self.size(dim1) + offset, self.size(dim2)), 0);
    off -= offset * self.stride(dim1);
  }
  if (len == 0) off = self.storage_offset();
  std::vector<int64_t> sz, st;
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim1 && d != dim2) { sz.push_back(self.size(d)); st.push_back(self.stride(d)); }
  sz.push_back(len);
  st.push_back(self.stride(dim1) + self.stride(dim2));
  return make_view(self, sz, st, off);
}

Tensor alias_generic(const Tensor& self) { return make_view(self, self.sizes(), self.strides(), self.storage_offset()); }

std::vector<Tensor> split_Tensor(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[split] expected a tensor with at least 1 dim; got a 0-dim tensor");
  EMBER_CHECK(split_size >= 0, "[split] expected a non-negative split_size; got ", split_size);
  dim = maybe_wrap_dim(dim, self.dim(), "split");
  int64_t size = self.size(dim);
  EMBER_CHECK(split_size > 0 || size == 0, "[split] expected a positive split_size for a non-empty dim; got split_size 0 for dim ",
              dim, " of size ", size);
  std::vector<Tensor> out;
  if (size == 0) { out.push_back(self.narrow(dim, 0, 0)); return out; }
  for (int64_t s = 0; s < size; s += split_size) out.push_back(self.narrow(dim, s, std::min(split_size, size - s)));
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[split_with_sizes] expected a tensor with at least 1 dim; got a 0-dim tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "split_with_sizes");
  int64_t total = 0;
  for (auto s : split_sizes) {
    EMBER_CHECK(s >= 0, "[split_with_sizes] expected non-negative split sizes; got ", split_sizes);
    total += s;
  }
  EMBER_CHECK(total == self.size(dim), "[split_with_sizes] expected split sizes that add up to ", self.size(dim),
              " (the size of dim ", dim, "); got ", split_sizes);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (auto s : split_sizes) { out.push_back(self.narrow(dim, start, s)); start += s; }
  return out;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[chunk] expected a tensor with at least 1 dim; got a 0-dim tensor");
  EMBER_CHECK(chunks > 0, "[chunk] expected a positive number of chunks; got ", chunks);
  dim = maybe_wrap_dim(dim, self.dim(), "chunk");
  int64_t size = self.size(dim);
  const int64_t split = size == 0 ? 0 : 1 + (size - 1) / chunks;  // ceil without overflow
  if (split == 0 && size == 0) {
    // An empty dim splits into `chunks` empty pieces: one tensor each, so bound the count.
    EMBER_CHECK(chunks <= (int64_t(1) << 24), "[chunk] expected at most ", int64_t(1) << 24,
                " chunks of an empty dim; got ", chunks);
    std::vector<int64_t> sizes(static_cast<size_t>(chunks), 0);
    return self.split_with_sizes(sizes, dim);
  }
  return self.split(split, dim);
}

std::vector<Tensor> unbind_int(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[unbind] expected a tensor with at least 1 dim to unbind along dim ", dim, "; got a 0-dim tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "unbind");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.size(dim); ++i) out.push_back(self.select(dim, i));
  return out;
}

}  // namespace at::native
