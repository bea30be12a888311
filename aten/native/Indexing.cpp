// Composite joining and indexing ops: written over other ops (cat, the in-place kernels of
// kernels/cpu/index.cpp, views), so they work on every backend that has those.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/GradMode.h>
#include <ATen/Utils.h>
#include <algorithm>

namespace at::native {
namespace {
// A contiguous copy with self's dtype and device (the out-of-place twin of an in-place kernel).
Tensor fresh_copy(const Tensor& self) {
  Tensor out = at::empty(self.sizes(), self.options());
  out.copy_(self);
  return out;
}
}  // namespace

Tensor stack(TensorList tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "[stack] expected at least one tensor; got an empty list");
  for (size_t i = 1; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(), "[stack] expected every tensor to have the same shape; got ",
                tensors[0].sizes(), " for tensor 0 and ", tensors[i].sizes(), " for tensor ", i);
  dim = maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(dim));
  return at::cat(parts, dim);
}

// ---------------------------------------------------------------- scatter / masked_fill / index_put
Tensor scatter_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = fresh_copy(self);
  return out.scatter_(dim, index, src);
}

Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = fresh_copy(self);
  return out.scatter_(dim, index, value);
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = fresh_copy(self);
  return out.scatter_add_(dim, index, src);
}

Tensor& masked_fill__Tensor(Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "[masked_fill_] expected a 0-dim value tensor; got one with ", value.dim(),
              " dimension(s)");
  // A value that requires grad goes through where(), so its gradient (the sum of the gradient
  // over the filled positions) is recorded; otherwise it is a plain Scalar fill.
  if (value.requires_grad() && GradMode::is_enabled())
    return self.copy_(at::where(mask, value.to(self.scalar_type()), self));
  // (a meta value has no data; any value of its dtype gives the same result metadata)
  return self.masked_fill_(mask, value.is_meta() ? Scalar(int64_t{0}) : value.item());
}

Tensor masked_fill_Scalar(const Tensor& self, const Tensor& mask, const Scalar& value) {
  // The result takes the broadcast shape of self and mask.
  auto shape = ember::broadcast_shapes("masked_fill", self.sizes(), mask.sizes());
  Tensor out = at::empty(shape, self.options());
  out.copy_(self);
  return out.masked_fill_(mask, value);
}

Tensor masked_fill_Tensor(const Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "[masked_fill] expected a 0-dim value tensor; got one with ", value.dim(),
              " dimension(s)");
  if (value.requires_grad() && GradMode::is_enabled()) {
    ember::broadcast_shapes("masked_fill", self.sizes(), mask.sizes());
    EMBER_CHECK(mask.scalar_type() == kBool, "[masked_fill] expected a Bool mask; got ", mask.scalar_type());
    return at::where(mask, value.to(self.scalar_type()), self);  // records value's gradient
  }
  return masked_fill_Scalar(self, mask, value.is_meta() ? Scalar(int64_t{0}) : value.item());
}

Tensor index_put(const Tensor& self, const c10::List<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) {
  Tensor out = fresh_copy(self);
  return at::index_put_(out, indices, values, accumulate);
}

// ---------------------------------------------------------------- tril / triu
Tensor tril(const Tensor& self, int64_t diagonal) {
  Tensor out = fresh_copy(self);
  return out.tril_(diagonal);
}

Tensor triu(const Tensor& self, int64_t diagonal) {
  Tensor out = fresh_copy(self);
  return out.triu_(diagonal);
}

// ---------------------------------------------------------------- roll / repeat / constant_pad_nd
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (self.numel() == 0) return self.clone();  // nothing moves; libtorch checks no dims then either
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, "[roll] expected exactly 1 shift when no dims are given; got ",
                shifts.size(), " shifts");
    const int64_t dim0 = 0;
    return at::native::roll(self.reshape({-1}), shifts, IntArrayRef(dim0)).view(self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "[roll] expected as many shifts as dims; got ", shifts.size(),
              " shifts and ", dims.size(), " dims");
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = maybe_wrap_dim(dims[i], self.dim(), "roll");
    const int64_t n = out.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    // Rolling by s: the last s elements come first.
    out = at::cat(std::vector<Tensor>{out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
  }
  return out.is_same(self) ? fresh_copy(self) : out;
}

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  const int64_t nr = static_cast<int64_t>(repeats.size()), nd = self.dim();
  EMBER_CHECK(nr >= nd, "[repeat] expected at least as many repeat sizes as the tensor has dims (", nd,
              "); got ", nr, " repeat sizes");
  for (int64_t r : repeats) EMBER_CHECK(r >= 0, "[repeat] expected non-negative repeat sizes; got ", repeats);
  // View self as [1, s0, 1, s1, ...] (leading dims padded with 1), expand the 1s to the repeats,
  // then materialise and merge each (r, s) pair.
  std::vector<int64_t> interleaved, expanded, final_shape;
  for (int64_t i = 0; i < nr; ++i) {
    const int64_t s = i < nr - nd ? 1 : self.size(i - (nr - nd));
    interleaved.insert(interleaved.end(), {1, s});
    expanded.insert(expanded.end(), {repeats[i], s});
    final_shape.push_back(repeats[i] * s);
  }
  Tensor src = self.reshape(interleaved).expand(expanded);
  Tensor out = at::empty(expanded, self.options());
  out.copy_(src);
  return out.view(final_shape);
}

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  const int64_t nd = self.dim(), np = static_cast<int64_t>(pad.size());
  EMBER_CHECK(np % 2 == 0, "[constant_pad_nd] expected an even number of padding values; got ", np);
  EMBER_CHECK(np / 2 <= nd, "[constant_pad_nd] expected at most 2 padding values per dim of the ", nd,
              "-dim input; got ", np, " padding values");
  std::vector<int64_t> shape = self.sizes().vec();
  for (int64_t i = 0; i < np / 2; ++i) {
    const int64_t d = nd - 1 - i;
    shape[d] = self.size(d) + pad[2 * i] + pad[2 * i + 1];
    EMBER_CHECK(shape[d] >= 0, "[constant_pad_nd] expected a non-negative output size for dim ", d, "; got ",
                shape[d], " (input size ", self.size(d), ", padding ", pad[2 * i], " and ", pad[2 * i + 1], ")");
  }
  // Cropping (negative padding) may not remove more than the dim holds, even where the other
  // side pads it back (libtorch refuses that too).
  for (int64_t i = 0; i < np / 2; ++i) {
    const int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    const int64_t len = self.size(d) + std::min<int64_t>(l, 0) + std::min<int64_t>(r, 0);
    EMBER_CHECK(len >= 0, "[constant_pad_nd] expected the negative padding of dim ", d, " to remove at most its ",
                self.size(d), " elements; got padding ", l, " and ", r);
  }
  Tensor out = at::empty(shape, self.options());
  // Only positive padding shows the value (so a pure crop never converts it to the dtype).
  if (std::any_of(pad.begin(), pad.end(), [](int64_t p) { return p > 0; })) out.fill_(value);
  // Copy the part of self that survives the (possibly negative) padding.
  Tensor src = self, dst = out;
  for (int64_t i = 0; i < np / 2; ++i) {
    const int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    const int64_t len = self.size(d) + std::min<int64_t>(l, 0) + std::min<int64_t>(r, 0);
    if (len == 0) return out;
    src = src.narrow(d, std::max<int64_t>(-l, 0), len);
    dst = dst.narrow(d, std::max<int64_t>(l, 0), len);
  }
  dst.copy_(src);
  return out;
}

// ---------------------------------------------------------------- where with scalars
Tensor where_ScalarOther(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return at::where(condition, self, scalar_to_tensor(other, self.device()));
}

Tensor where_ScalarSelf(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return at::where(condition, scalar_to_tensor(self, other.device()), other);
}

Tensor where_Scalar(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return at::where(condition, scalar_to_tensor(self, condition.device()), scalar_to_tensor(other, condition.device()));
}

}  // namespace at::native
