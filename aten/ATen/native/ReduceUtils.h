#pragma once
// The host side of a reduction, shared by the CPU (kernels/cpu/reduce.cpp) and CUDA
// (kernels/cuda/reduce.cu) kernels: which dims are reduced, the coalesced layout of kept and
// reduced dims, and the result dtype of the sum-like ops. See Note [Reduction layout] in
// kernels/cpu/reduce.cpp.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/Utils.h>
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace at::native::reduce {

struct Geom {
  std::vector<int64_t> out_sizes;   // result sizes (keepdim=false)
  std::vector<int64_t> keep_sizes;  // result sizes (keepdim=true)
  std::vector<int64_t> ks, kst;     // kept dims, coalesced: sizes and element strides
  std::vector<int64_t> rs, rst;     // reduced dims, coalesced
  int64_t M = 1, N = 1;             // number of outputs, elements per output
};

/// Reduced-dim mask for an optional dim list (none or empty: every dim). A dim may appear once.
inline std::vector<bool> dim_mask(const char* op, int64_t ndim, OptionalIntArrayRef dim) {
  std::vector<bool> mask(static_cast<size_t>(ndim), true);
  if (!dim.has_value() || dim->empty()) return mask;
  mask.assign(static_cast<size_t>(ndim), false);
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);  // a 0-dim tensor has dim 0 (-1)
  for (int64_t d : *dim) {
    int64_t w = maybe_wrap_dim(d, ndim, op);
    EMBER_CHECK(!seen[w], "[", op, "] expected each dim at most once; got dim ", w, " more than once in ", *dim);
    seen[w] = true;
    if (ndim > 0) mask[w] = true;
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
  std::vector<std::pair<int64_t, int64_t>> kept, red;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (mask[d]) {
      g.keep_sizes.push_back(1);
      red.push_back({t.size(d), t.stride(d)});
      g.N *= t.size(d);
    } else {
      g.out_sizes.push_back(t.size(d));
      g.keep_sizes.push_back(t.size(d));
      kept.push_back({t.size(d), t.stride(d)});
      g.M *= t.size(d);
    }
  }
  auto coalesce = [](const std::vector<std::pair<int64_t, int64_t>>& v, std::vector<int64_t>& sz, std::vector<int64_t>& st) {
    for (auto [s, str] : v) {
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
  coalesce(kept, g.ks, g.kst);
  if (!keep_order)
    std::stable_sort(red.begin(), red.end(), [](auto& a, auto& b) { return a.second > b.second; });
  coalesce(red, g.rs, g.rst);
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
