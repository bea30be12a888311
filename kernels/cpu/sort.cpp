// sort and topk on the CPU. Each line along `dim` is gathered into a (value, index) buffer,
// ordered there, and written out; lines run in parallel. NaN orders as the largest value (like
// PyTorch), and equal values keep their original order (sort is stable; topk breaks ties by index).
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/SortUtils.h>
#include <ATen/Parallel.h>
#include <ATen/Utils.h>
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace at::native {
namespace {

constexpr int64_t kGrain = at::kGrainSize;

template <typename T> inline bool nan_of(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}
// a < b with NaN above everything.
template <typename T> inline bool less_nan(T a, T b) { return !nan_of(a) && (nan_of(b) || a < b); }

// The lines along `dim` of `self`: line q has input offset in_off(q) (elements) and stride `st`.
struct Lines {
  int64_t count = 1, L = 1, st = 1;
  std::vector<int64_t> sizes, strides;  // the other dims
  int64_t in_off(int64_t q) const {
    int64_t off = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
      off += (q % sizes[d]) * strides[d];
      q /= sizes[d];
    }
    return off;
  }
};

Lines make_lines(const Tensor& t, int64_t d) {
  Lines l;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (i == d) {
      l.L = t.size(i);
      l.st = t.stride(i);
    } else {
      l.sizes.push_back(t.size(i));
      l.strides.push_back(t.stride(i));
      l.count *= t.size(i);
    }
  }
  return l;
}

// Runs body(in_line, out_values_line, out_indices_line, buf) for every line; the outputs are
// contiguous tensors whose `dim` has length `K` (out line q starts at (q / inner) * K * inner + q % inner).
template <typename T, typename F>
void for_lines(const Tensor& self, int64_t d, Tensor& values, Tensor& indices, int64_t K, const F& body) {
  const Lines l = make_lines(self, d);
  int64_t inner = 1;
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.size(i);
  const T* in = static_cast<const T*>(self.const_data_ptr());
  T* vo = values._mutable_data_ptr_internal<T>();
  int64_t* io = indices._mutable_data_ptr_internal<int64_t>();
  at::parallel_for(0, l.count, at::internal::grain_for_tasks(self.numel(), l.count), [&](int64_t q0, int64_t q1) {
    std::vector<std::pair<c10::opmath_t<T>, int64_t>> buf(static_cast<size_t>(l.L));
    for (int64_t q = q0; q < q1; ++q) {
      const T* x = in + l.in_off(q);
      for (int64_t k = 0; k < l.L; ++k) buf[k] = {static_cast<c10::opmath_t<T>>(x[k * l.st]), k};
      body(buf);
      const int64_t ooff = (q / inner) * K * inner + q % inner;
      for (int64_t k = 0; k < K; ++k) {
        vo[ooff + k * inner] = static_cast<T>(buf[k].first);
        io[ooff + k * inner] = buf[k].second;
      }
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor> sort_cpu(const Tensor& self, int64_t dim, bool descending) {
  EMBER_CHECK(self.is_cpu(), "[sort] expected a CPU tensor; got one on ", self.device());
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "sort");
  Tensor values = at::empty(self.sizes(), at::TensorOptions().dtype(self.scalar_type()));
  Tensor indices = at::empty(self.sizes(), at::TensorOptions().dtype(kLong));
  if (self.numel() == 0) return {values, indices};
  if (self.dim() == 0) {
    values.copy_(self);
    indices.fill_(0);
    return {values, indices};
  }
  EMBER_DISPATCH_ALL(self.scalar_type(), "sort", [&] {
    using T = scalar_t;
    for_lines<T>(self, d, values, indices, self.size(d), [descending](auto& buf) {
      // Ties broken by index: the same order a stable sort gives, with the faster std::sort.
      if (descending)
        std::sort(buf.begin(), buf.end(), [](const auto& a, const auto& b) {
          return less_nan(b.first, a.first) || (!less_nan(a.first, b.first) && a.second < b.second);
        });
      else
        std::sort(buf.begin(), buf.end(), [](const auto& a, const auto& b) {
          return less_nan(a.first, b.first) || (!less_nan(b.first, a.first) && a.second < b.second);
        });
    });
  });
  return {values, indices};
}

std::tuple<Tensor, Tensor> topk_cpu(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // the selected elements always come out sorted, which sorted=false also allows
  EMBER_CHECK(self.is_cpu(), "[topk] expected a CPU tensor; got one on ", self.device());
  const auto shape = sort_utils::topk_shape(self, k, dim);
  const int64_t d = shape.first;
  const std::vector<int64_t>& osizes = shape.second;
  Tensor values = at::empty(osizes, at::TensorOptions().dtype(self.scalar_type()));
  Tensor indices = at::empty(osizes, at::TensorOptions().dtype(kLong));
  if (values.numel() == 0) return {values, indices};
  if (self.dim() == 0) {
    values.copy_(self);
    indices.fill_(0);
    return {values, indices};
  }
  EMBER_DISPATCH_ALL(self.scalar_type(), "topk", [&] {
    using T = scalar_t;
    for_lines<T>(self, d, values, indices, k, [k, largest](auto& buf) {
      auto mid = buf.begin() + k;
      if (largest)
        std::partial_sort(buf.begin(), mid, buf.end(), [](const auto& a, const auto& b) {
          return less_nan(b.first, a.first) || (!less_nan(a.first, b.first) && a.second < b.second);
        });
      else
        std::partial_sort(buf.begin(), mid, buf.end(), [](const auto& a, const auto& b) {
          return less_nan(a.first, b.first) || (!less_nan(b.first, a.first) && a.second < b.second);
        });
    });
  });
  return {values, indices};
}

}  // namespace at::native
