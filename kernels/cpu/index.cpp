// Indexing kernels on the CPU: index_select, gather, scatter_ / scatter_add_, masked_fill_,
// masked_select, nonzero, one_hot, and advanced indexing (index / index_put_).
//
// Every kernel validates its indices in a serial pass before any parallel loop, so nothing
// throws inside an OpenMP region and nothing reads or writes out of bounds.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include "index_util.h"
#include <algorithm>
#include <numeric>

namespace at::native {
using namespace index_detail;

// ---------------------------------------------------------------- index_select
Tensor index_select_cpu(const Tensor& self, int64_t dim, const Tensor& index) {
  dim = check_index_select(self, dim, index);
  Tensor idx = long_index(index, "index_select");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  check_range(idx, size, dim, "index_select");
  std::vector<int64_t> shape = self.sizes().vec();
  const int64_t n = idx.numel();
  if (self.dim() > 0) shape[dim] = n;
  Tensor out = at::empty(shape, self.options());
  if (out.numel() == 0) return out;
  Tensor src = self.contiguous();
  const int64_t inner = self.dim() == 0 ? 1 : prod_sizes(self.sizes().slice(dim + 1));
  const int64_t outer = self.dim() == 0 ? 1 : prod_sizes(self.sizes().slice(0, dim));
  const size_t es = self.element_size(), row = static_cast<size_t>(inner) * es;
  const int64_t* ip = idx.const_data_ptr<int64_t>();
  const char* s = static_cast<const char*>(src.const_data_ptr());
  char* o = static_cast<char*>(out._mutable_data_ptr_internal());
  // Rows of `inner` contiguous elements move with one memcpy each.
  at::parallel_for(0, outer * n, at::internal::grain_for_tasks(out.numel(), outer * n), [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t r = q / n, i = q % n;
      std::memcpy(o + static_cast<size_t>(q) * row, s + static_cast<size_t>(r * size + ip[i]) * row, row);
    }
  });
  return out;
}

// ---------------------------------------------------------------- gather / scatter
namespace {
// Shared walk of gather and scatter: visits every index element, grouped by its position in
// the dims other than `dim` (one group = one line along `dim`), so groups may run in parallel:
// two elements of one group are the only ones that can write the same scatter target.
// `f(line_index_ptr, istride, n, self_off, other_off)` handles one line.
template <typename F>
void for_each_line(const Tensor& index, const Tensor& self, const Tensor* other, int64_t dim, const F& f) {
  const int64_t nd = index.dim();
  if (index.numel() == 0) return;
  std::vector<int64_t> osz, ist, sst, tst;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == dim) continue;
    osz.push_back(index.size(d));
    ist.push_back(index.stride(d));
    sst.push_back(self.stride(d));
    tst.push_back(other ? other->stride(d) : 0);
  }
  const int64_t lines = prod_sizes(osz), m = static_cast<int64_t>(osz.size());
  const int64_t n = nd == 0 ? 1 : index.size(dim);
  at::parallel_for(0, lines, at::internal::grain_for_tasks(index.numel(), lines), [&](int64_t l0, int64_t l1) {
    for (int64_t l = l0; l < l1; ++l)
      f(offset_of(l, osz.data(), ist.data(), m), n, offset_of(l, osz.data(), sst.data(), m),
        offset_of(l, osz.data(), tst.data(), m));
  });
}

enum class ScatterKind { Assign, Add };

Tensor& scatter_impl(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                     const Scalar* value, ScatterKind kind) {
  dim = check_scatter(op, self, dim, index, src);
  Tensor idx = long_index(index, op);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  check_range(idx, size, dim, op);
  if (idx.numel() == 0) return self;
  Tensor source;
  if (src) source = src->is_alias_of(self) ? src->clone() : *src;
  const int64_t* ip = idx.const_data_ptr<int64_t>();
  const int64_t istep = idx.dim() == 0 ? 0 : idx.stride(dim);
  const int64_t sstep = self.dim() == 0 ? 0 : self.stride(dim);
  const int64_t tstep = (src && source.dim() > 0) ? source.stride(dim) : 0;
  EMBER_DISPATCH_ALL(self.scalar_type(), op, [&] {
    scalar_t* sp = self._mutable_data_ptr_internal<scalar_t>();
    const scalar_t* tp = src ? source.const_data_ptr<scalar_t>() : nullptr;
    const scalar_t v = value ? value->to<scalar_t>() : scalar_t(0);
    for_each_line(idx, self, src ? &source : nullptr, dim,
                  [&](int64_t ioff, int64_t n, int64_t soff, int64_t toff) {
      for (int64_t i = 0; i < n; ++i) {
        scalar_t& dst = sp[soff + ip[ioff + i * istep] * sstep];
        const scalar_t x = tp ? tp[toff + i * tstep] : v;
        if (kind == ScatterKind::Assign) dst = x;
        else if constexpr (std::is_same_v<scalar_t, bool>) dst = dst || x;
        else dst = static_cast<scalar_t>(static_cast<c10::opmath_t<scalar_t>>(dst) + static_cast<c10::opmath_t<scalar_t>>(x));
      }
    });
  });
  return self;
}
}  // namespace

Tensor gather_cpu(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  (void)sparse_grad;
  dim = maybe_wrap_dim(dim, self.dim(), "gather");
  check_gather_scatter("gather", self, dim, index, nullptr);
  Tensor idx = long_index(index, "gather");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  check_range(idx, size, dim, "gather");
  Tensor out = at::empty(index.sizes(), self.options());
  if (out.numel() == 0) return out;
  const int64_t* ip = idx.const_data_ptr<int64_t>();
  const int64_t istep = idx.dim() == 0 ? 0 : idx.stride(dim);
  const int64_t sstep = self.dim() == 0 ? 0 : self.stride(dim);
  const int64_t ostep = out.dim() == 0 ? 0 : out.stride(dim);
  by_elsize(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* sp = static_cast<const T*>(self.const_data_ptr());
    T* op = static_cast<T*>(out._mutable_data_ptr_internal());
    // `out` rides along as the "other" tensor: same shape and strides as idx (both contiguous).
    for_each_line(idx, self, &out, dim, [&](int64_t ioff, int64_t n, int64_t soff, int64_t ooff) {
      for (int64_t i = 0; i < n; ++i) op[ooff + i * ostep] = sp[soff + ip[ioff + i * istep] * sstep];
    });
  });
  return out;
}

Tensor& scatter_src_cpu_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_", self, dim, index, &src, nullptr, ScatterKind::Assign);
}
Tensor& scatter_value_cpu_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_impl("scatter_", self, dim, index, nullptr, &value, ScatterKind::Assign);
}
Tensor& scatter_add_cpu_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_add_", self, dim, index, &src, nullptr, ScatterKind::Add);
}

// ---------------------------------------------------------------- masked_fill_ / masked_select
Tensor& masked_fill_cpu_(Tensor& self, const Tensor& mask, const Scalar& value) {
  check_masked_fill(self, mask, value);
  if (self.numel() == 0) return self;
  Tensor m = mask.expand(self.sizes());
  ember::TensorIter it;
  it.build_raw({&self, &m});
  EMBER_DISPATCH_ALL(self.scalar_type(), "masked_fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    it.for_each([v](char** data, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        if (*reinterpret_cast<const bool*>(data[1] + i * s[1])) *reinterpret_cast<scalar_t*>(data[0] + i * s[0]) = v;
    });
  });
  return self;
}

Tensor masked_select_cpu(const Tensor& self, const Tensor& mask) {
  auto shape = check_masked_select(self, mask);
  Tensor m = mask.expand(shape).contiguous();
  Tensor s = self.expand(shape).contiguous();
  const bool* mp = m.const_data_ptr<bool>();
  const int64_t n = m.numel();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mp[i];
  Tensor out = at::empty({count}, self.options());
  by_elsize(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* sp = static_cast<const T*>(s.const_data_ptr());
    T* op = static_cast<T*>(out._mutable_data_ptr_internal());
    for (int64_t i = 0, k = 0; i < n; ++i)
      if (mp[i]) op[k++] = sp[i];
  });
  return out;
}

// ---------------------------------------------------------------- nonzero / one_hot
Tensor nonzero_cpu(const Tensor& self) {
  Tensor s = self.contiguous();
  const int64_t n = s.numel(), nd = s.dim();
  std::vector<uint8_t> nz(static_cast<size_t>(n));
  EMBER_DISPATCH_ALL(s.scalar_type(), "nonzero", [&] {
    const scalar_t* p = s.const_data_ptr<scalar_t>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<scalar_t, c10::Half> || std::is_same_v<scalar_t, c10::BFloat16>)
        nz[i] = static_cast<float>(p[i]) != 0.0f;
      else
        nz[i] = p[i] != scalar_t(0);
    }
  });
  const int64_t count = std::accumulate(nz.begin(), nz.end(), int64_t{0});
  Tensor out = at::empty({count, nd}, self.options().dtype(kLong));
  int64_t* op = out._mutable_data_ptr_internal<int64_t>();
  std::vector<int64_t> ctr(static_cast<size_t>(nd), 0);
  const int64_t* sz = s.sizes().data();
  for (int64_t i = 0; i < n; ++i) {
    if (nz[i]) { std::copy(ctr.begin(), ctr.end(), op); op += nd; }
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++ctr[d] < sz[d]) break;
      ctr[d] = 0;
    }
  }
  return out;
}

Tensor one_hot_cpu(const Tensor& self, int64_t num_classes) {
  check_one_hot_dtype(self);
  Tensor s = self.contiguous();
  const int64_t* p = s.const_data_ptr<int64_t>();
  const int64_t n = s.numel();
  int64_t lo = 0, hi = -1;
  if (n > 0) {
    auto [mn, mx] = std::minmax_element(p, p + n);
    lo = *mn;
    hi = *mx;
  }
  num_classes = check_one_hot(self, n, lo, hi, num_classes);
  std::vector<int64_t> shape = self.sizes().vec();
  shape.push_back(num_classes);
  Tensor out = at::empty(shape, self.options());
  int64_t* o = out._mutable_data_ptr_internal<int64_t>();
  std::fill(o, o + out.numel(), int64_t{0});
  for (int64_t i = 0; i < n; ++i) o[i * num_classes + p[i]] = 1;
  return out;
}

// ---------------------------------------------------------------- advanced indexing
// Note [Advanced indexing layout]
// Boolean masks become int64 index tensors (their nonzero() columns); the index tensors are
// broadcast to one shape B. self is permuted so that the indexed dims come first ("src"), and
// every position b of B gives one element offset into src; the rest of src (the dims that were
// not indexed) is one block copied per b. The result is B + rest, except when the indexed dims
// are adjacent and do not start at dim 0: then B takes their place, rest[:p] + B + rest[p:].
namespace {
struct AdvancedIndex : AdvancedPlan {
  std::vector<int64_t> offsets;        // element offset into src for each position of B
};

AdvancedIndex make_advanced_index(const char* op, const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  AdvancedIndex ai;
  static_cast<AdvancedPlan&>(ai) = make_advanced_plan(op, self, indices);
  // Offsets, validated serially (negative indices count from the end).
  const int64_t nb = prod_sizes(ai.bshape);
  ai.offsets.assign(static_cast<size_t>(nb), 0);
  for (size_t j = 0; j < ai.indexed.size(); ++j) {
    const int64_t d = ai.indexed[j], size = self.size(d), stride = self.stride(d);
    Tensor e = ai.idx[j].expand(ai.bshape).contiguous();
    check_advanced_range(op, e, d, size);
    const int64_t* p = e.const_data_ptr<int64_t>();
    for (int64_t b = 0; b < nb; ++b) ai.offsets[b] += (p[b] < 0 ? p[b] + size : p[b]) * stride;
  }
  return ai;
}

// Moves one rest-block per position of B between src (self's storage) and `work` (the result
// or the values, viewed in [B, rest] order). to_src: write into self (index_put_).
void move_blocks(const AdvancedIndex& ai, const Tensor& work, bool to_src, bool accumulate) {
  const int64_t nbd = static_cast<int64_t>(ai.bshape.size());
  const int64_t nr = static_cast<int64_t>(ai.rest_sizes.size());
  const int64_t nb = static_cast<int64_t>(ai.offsets.size());
  std::vector<int64_t> wst(work.strides().begin(), work.strides().end());
  const int64_t* wrest = wst.data() + nbd;
  const int64_t rest_numel = prod_sizes(ai.rest_sizes);
  if (nb == 0 || rest_numel == 0) return;
  if (accumulate) {
    EMBER_DISPATCH_ALL(ai.src.scalar_type(), "index_put_", [&] {
      scalar_t* s = static_cast<scalar_t*>(ai.src._mutable_data_ptr_internal());
      const scalar_t* w = static_cast<const scalar_t*>(work.const_data_ptr());
      auto add = [](scalar_t& d, scalar_t x) {
        if constexpr (std::is_same_v<scalar_t, bool>) d = d || x;
        else d = static_cast<scalar_t>(static_cast<c10::opmath_t<scalar_t>>(d) + static_cast<c10::opmath_t<scalar_t>>(x));
      };
      // Rest blocks that are dense rows in both tensors add with one linear loop.
      auto dense = [&](const int64_t* st) {
        int64_t expect = 1;
        for (int64_t d = nr - 1; d >= 0; --d) {
          if (ai.rest_sizes[d] != 1 && st[d] != expect) return false;
          expect *= ai.rest_sizes[d];
        }
        return true;
      };
      const bool linear = dense(ai.rest_strides.data()) && dense(wrest);
      // Serial: duplicate indices must all add up.
      for (int64_t b = 0; b < nb; ++b) {
        scalar_t* dst = s + ai.offsets[b];
        const scalar_t* from = w + offset_of(b, ai.bshape.data(), wst.data(), nbd);
        if (linear) {
          for (int64_t r = 0; r < rest_numel; ++r) add(dst[r], from[r]);
          continue;
        }
        for (int64_t r = 0; r < rest_numel; ++r) {
          scalar_t& d = dst[offset_of(r, ai.rest_sizes.data(), ai.rest_strides.data(), nr)];
          add(d, from[offset_of(r, ai.rest_sizes.data(), wrest, nr)]);
        }
      }
    });
    return;
  }
  by_elsize(ai.src.element_size(), [&](auto tag) {
    using T = decltype(tag);
    T* s = static_cast<T*>(ai.src._mutable_data_ptr_internal());
    T* w = static_cast<T*>(work._mutable_data_ptr_internal());
    auto one = [&](int64_t b) {
      T* sp = s + ai.offsets[b];
      T* wp = w + offset_of(b, ai.bshape.data(), wst.data(), nbd);
      if (to_src) copy_block(sp, ai.rest_strides.data(), static_cast<const T*>(wp), wrest, ai.rest_sizes.data(), nr);
      else copy_block(wp, wrest, static_cast<const T*>(sp), ai.rest_strides.data(), ai.rest_sizes.data(), nr);
    };
    if (to_src) {
      for (int64_t b = 0; b < nb; ++b) one(b);  // serial: with duplicates the last write wins
    } else {
      at::parallel_for(0, nb, at::internal::grain_for_tasks(nb * rest_numel, nb), [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) one(b);
      });
    }
  });
}
}  // namespace

Tensor index_cpu(const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  AdvancedIndex ai = make_advanced_index("index", self, indices);
  Tensor out = at::empty(ai.result_shape, self.options());
  move_blocks(ai, out.permute(ai.work_perm), /*to_src=*/false, false);
  return out;
}

Tensor& index_put_cpu_(Tensor& self, const c10::List<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) {
  AdvancedIndex ai = make_advanced_index("index_put_", self, indices);
  check_index_put_values(ai, self, values);
  Tensor v = values;
  if (v.is_alias_of(self)) v = v.clone();
  v = v.expand(ai.result_shape).permute(ai.work_perm);
  move_blocks(ai, v, /*to_src=*/true, accumulate);
  return self;
}

}  // namespace at::native
