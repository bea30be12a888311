#pragma once
// The host side of a reduction, shared by the CPU (kernels/cpu/reduce.cpp) and CUDA
// (kernels/cuda/reduce.cu) kernels: which dims are reduced, the coalesced layout of kept and
// reduced dims, and the result dtype of the sum-like ops. See Note [Reduction layout] in
// kernels/cpu/reduce.cpp.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/Utils.h>
#include <c10/util/SmallBuffer.h>
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace at::native::reduce {

/// A list of per-dim values: inline up to 12 (every usual rank), on the heap beyond. A reduction's
/// set-up on a small input is a few hundred ns, and six std::vectors were a third of it.
class DimVec {
 public:
  void push_back(int64_t v) {
    if (n_ < kInline) {
      buf_[n_] = v;
    } else {
      if (n_ == kInline) heap_.assign(buf_, buf_ + kInline);  // past kInline, heap_ holds them all
      heap_.push_back(v);
    }
    ++n_;
  }
  int64_t* data() { return n_ > kInline ? heap_.data() : buf_; }
  const int64_t* data() const { return n_ > kInline ? heap_.data() : buf_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t& operator[](size_t i) { return data()[i]; }
  const int64_t& operator[](size_t i) const { return data()[i]; }
  int64_t& back() { return data()[n_ - 1]; }
  const int64_t& back() const { return data()[n_ - 1]; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + n_; }
  operator IntArrayRef() const { return IntArrayRef(data(), n_); }

 private:
  static constexpr size_t kInline = 12;
  int64_t buf_[kInline];
  std::vector<int64_t> heap_;
  size_t n_ = 0;
};

struct Geom {
  DimVec out_sizes;   // result sizes (keepdim=false)
  DimVec keep_sizes;  // result sizes (keepdim=true)
  DimVec ks, kst;     // kept dims, coalesced: sizes and element strides
  DimVec rs, rst;     // reduced dims, coalesced
  int64_t M = 1, N = 1;  // number of outputs, elements per output
};

/// Reduced-dim mask for an optional dim list (none or empty: every dim). A dim may appear once.
inline std::vector<bool> dim_mask(const char* op, int64_t ndim, OptionalIntArrayRef dim) {
  std::vector<bool> mask(static_cast<size_t>(ndim), true);
  if (!dim.has_value() || dim->empty()) return mask;
  mask.assign(static_cast<size_t>(ndim), false);
  bool seen_scalar = false;  // a 0-dim tensor has dim 0 (-1), which the empty mask cannot hold
  for (int64_t d : *dim) {
    int64_t w = maybe_wrap_dim(d, ndim, op);
    const bool seen = ndim > 0 ? static_cast<bool>(mask[w]) : seen_scalar;
    EMBER_CHECK(!seen, "[", op, "] expected each dim at most once; got dim ", w, " more than once in ", *dim);
    if (ndim > 0) mask[w] = true;
    else seen_scalar = true;
  }
  return mask;
}

inline std::vector<bool> one_dim_mask(const char* op, int64_t ndim, int64_t dim) {
  int64_t w = maybe_wrap_dim(dim, ndim, op);
  std::vector<bool> mask(static_cast<size_t>(ndim), false);
  if (ndim > 0) mask[w] = true;
  return mask;
}

/// `keep_order`: keep the reduced dims in logical (row-major) order, so a linear reduced index is
/// the position in the flattened reduced dims (needed by the index-returning ops); otherwise they
/// are sorted by decreasing stride (the innermost reduced dim has the smallest stride).
inline Geom make_geom(const Tensor& t, const std::vector<bool>& mask, bool keep_order) {
  Geom g;
  using SizeStride = std::pair<int64_t, int64_t>;
  const size_t nd = static_cast<size_t>(t.dim());
  c10::SmallBuffer<SizeStride, 12> kept(nd), red(nd);
  size_t nk = 0, nr = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (mask[d]) {
      g.keep_sizes.push_back(1);
      red[nr++] = {t.size(d), t.stride(d)};
      g.N *= t.size(d);
    } else {
      g.out_sizes.push_back(t.size(d));
      g.keep_sizes.push_back(t.size(d));
      kept[nk++] = {t.size(d), t.stride(d)};
      g.M *= t.size(d);
    }
  }
  auto coalesce = [](const SizeStride* v, size_t n, DimVec& sz, DimVec& st) {
    for (size_t i = 0; i < n; ++i) {
      auto [s, str] = v[i];
      if (s == 1) continue;
      if (!sz.empty() && st.back() == s * str) {
        sz.back() *= s;
        st.back() = str;
      } else {
        sz.push_back(s);
        st.push_back(str);
      }
    }
  };
  coalesce(kept.data(), nk, g.ks, g.kst);
  if (!keep_order) {
    // Decreasing stride, equal strides in dim order (an insertion sort: stable, and ranks are short).
    for (size_t i = 1; i < nr; ++i) {
      SizeStride x = red[i];
      size_t j = i;
      for (; j > 0 && red[j - 1].second < x.second; --j) red[j] = red[j - 1];
      red[j] = x;
    }
  }
  coalesce(red.data(), nr, g.rs, g.rst);
  return g;
}

/// Result dtype of sum/prod/cumsum/cumprod: `dtype` if given, int64 for integral and bool inputs.
inline ScalarType sum_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return isIntegralType(self.scalar_type(), true) ? kLong : self.scalar_type();
}

/// A new contiguous result of the reduction's (keepdim=false) shape on `device`.
inline Tensor new_out(const Geom& g, ScalarType dt, Device device) {
  return at::empty(g.out_sizes, at::TensorOptions().dtype(dt).device(device));
}
/// `out` (new_out's fresh contiguous result) with the keepdim sizes when `keepdim`: set in place,
/// since size-1 dims move no element, so the result is no view of a temporary (as in libtorch) and
/// costs no view op (x.sum(0, keepdim=True) on one element: 0.56 -> 0.39 us).
inline Tensor shape_out(const Tensor& out, const Geom& g, bool keepdim) {
  if (keepdim) out.unsafeGetTensorImpl()->set_sizes_contiguous(g.keep_sizes);
  return out;
}

/// A contiguous tensor seen as [outer, L, inner] lines along dim `d` (scans, softmax).
struct Lines {
  int64_t outer, L, inner;
};
inline Lines lines_along(const Tensor& x, int64_t d) {
  Lines l{1, x.dim() == 0 ? 1 : x.size(d), 1};
  for (int64_t i = 0; i < d; ++i) l.outer *= x.size(i);
  for (int64_t i = d + 1; i < x.dim(); ++i) l.inner *= x.size(i);
  return l;
}

}  // namespace at::native::reduce

EMBER_PUBLIC_END
