// Joining and rearranging kernels on the CPU: cat, where, flip, tril_/triu_. All of them move
// elements by size (see index_util.h), so one instantiation per element width serves every dtype.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include "index_util.h"
#include <algorithm>

namespace at::native {
using namespace index_detail;

// ---------------------------------------------------------------- cat
Tensor cat_cpu(TensorList tensors, int64_t dim) {
  CatPlan plan = plan_cat(tensors, dim, [](const Tensor& t, size_t i) {
    EMBER_CHECK(t.is_cpu(), "[cat] expected CPU tensors; got ", t.device(), " at position ", i);
  });
  const ScalarType dtype = plan.dtype;
  if (!plan.ref) return at::empty({0}, tensors[0].options().dtype(dtype));
  const Tensor* ref = plan.ref;
  dim = plan.dim;
  const std::vector<int64_t>& shape = plan.shape;
  Tensor out = at::empty(shape, ref->options().dtype(dtype));
  if (out.numel() == 0) return out;
  const int64_t inner = prod_sizes(IntArrayRef(shape).slice(dim + 1));
  const int64_t outer = prod_sizes(IntArrayRef(shape).slice(0, dim));
  const int64_t out_row = shape[dim] * inner;
  const size_t es = out.element_size();
  char* o = static_cast<char*>(out._mutable_data_ptr_internal());
  int64_t off = 0;
  for (const Tensor& t : tensors) {
    if (t.dim() == 1 && t.numel() == 0) continue;
    const int64_t n = t.size(dim);
    if (n == 0) continue;
    if (t.scalar_type() == dtype && t.is_contiguous()) {
      // Fast path: each outer row of t is one contiguous block of the output row.
      const int64_t block = n * inner;
      const char* s = static_cast<const char*>(t.const_data_ptr());
      const size_t bytes = static_cast<size_t>(block) * es;
      char* dst0 = o + static_cast<size_t>(off * inner) * es;
      at::parallel_for(0, outer, at::internal::grain_for_tasks(outer * block, outer), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r)
          std::memcpy(dst0 + static_cast<size_t>(r * out_row) * es, s + static_cast<size_t>(r) * bytes, bytes);
      });
    } else {
      out.narrow(dim, off, n).copy_(t);  // converts dtype, follows strides
    }
    off += n;
  }
  return out;
}

// ---------------------------------------------------------------- where
Tensor where_cpu(const Tensor& condition, const Tensor& self, const Tensor& other) {
  check_where_condition(condition);
  EMBER_CHECK(condition.is_cpu() && self.is_cpu() && other.is_cpu(), "[where] expected CPU tensors; got condition on ",
              condition.device(), ", self on ", self.device(), ", other on ", other.device());
  const auto plan = plan_where(condition, self, other);
  const ScalarType dtype = plan.first;
  const std::vector<int64_t>& shape = plan.second;
  Tensor out = at::empty(shape, self.options().dtype(dtype));
  if (out.numel() == 0) return out;
  Tensor c = condition.expand(shape);
  Tensor a = (self.scalar_type() == dtype ? self : self.to(dtype)).expand(shape);
  Tensor b = (other.scalar_type() == dtype ? other : other.to(dtype)).expand(shape);
  ember::TensorIter it;
  it.build_raw({&out, &c, &a, &b});
  by_elsize(out.element_size(), [&](auto tag) {
    using T = decltype(tag);
    it.for_each([](char** data, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const bool pick = *reinterpret_cast<const bool*>(data[1] + i * s[1]);
        *reinterpret_cast<T*>(data[0] + i * s[0]) = *reinterpret_cast<const T*>(data[pick ? 2 : 3] + i * s[pick ? 2 : 3]);
      }
    });
  });
  return out;
}

// ---------------------------------------------------------------- flip
Tensor flip_cpu(const Tensor& self, IntArrayRef dims) {
  const int64_t nd = self.dim();
  const std::vector<bool> flip = flip_mask(nd, dims);
  Tensor out = at::empty(self.sizes(), self.options());
  if (out.numel() == 0) return out;
  // Read self through a reversed layout: start at the last element of each flipped dim, negate its stride.
  std::vector<int64_t> sizes = self.sizes().vec(), src_st = self.strides().vec();
  std::vector<int64_t> dst_st = out.strides().vec();
  int64_t base = 0;
  for (int64_t d = 0; d < nd; ++d)
    if (flip[d]) { base += (sizes[d] - 1) * src_st[d]; src_st[d] = -src_st[d]; }
  by_elsize(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(self.const_data_ptr()) + base;
    T* dst = static_cast<T*>(out._mutable_data_ptr_internal());
    if (nd <= 1) return copy_block(dst, dst_st.data(), src, src_st.data(), sizes.data(), nd);
    // Parallel over the rows of the outermost dim.
    const int64_t rows = sizes[0];
    at::parallel_for(0, rows, at::internal::grain_for_tasks(out.numel(), rows), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        copy_block(dst + r * dst_st[0], dst_st.data() + 1, src + r * src_st[0], src_st.data() + 1, sizes.data() + 1, nd - 1);
    });
  });
  return out;
}

// ---------------------------------------------------------------- tril_ / triu_
namespace {
// Zeroes the elements of each matrix (last two dims) above (lower=true) or below the diagonal.
Tensor& tri_inplace(Tensor& self, int64_t k, bool lower, const char* op) {
  check_tri(self, op);
  const int64_t nd = self.dim(), R = self.size(-2), C = self.size(-1);
  const int64_t rs = self.stride(-2), cs = self.stride(-1);
  const int64_t batch = R * C == 0 ? 0 : self.numel() / (R * C);
  by_elsize(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    T* base = static_cast<T*>(self._mutable_data_ptr_internal());
    const int64_t* sz = self.sizes().data();
    const int64_t* st = self.strides().data();
    at::parallel_for(0, batch, at::internal::grain_for_tasks(self.numel(), batch), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        T* m = base + offset_of(b, sz, st, nd - 2);
        for (int64_t i = 0; i < R; ++i) {
          // lower keeps j <= i + k; upper keeps j >= i + k.
          int64_t j0 = lower ? std::clamp<int64_t>(i + k + 1, 0, C) : 0;
          int64_t j1 = lower ? C : std::clamp<int64_t>(i + k, 0, C);
          T* row = m + i * rs;
          for (int64_t j = j0; j < j1; ++j) row[j * cs] = T(0);  // zero bits are zero in every dtype
        }
      }
    });
  });
  return self;
}
}  // namespace

Tensor& tril_cpu_(Tensor& self, int64_t diagonal) { return tri_inplace(self, diagonal, true, "tril_"); }
Tensor& triu_cpu_(Tensor& self, int64_t diagonal) { return tri_inplace(self, diagonal, false, "triu_"); }

}  // namespace at::native
