#pragma once
// Host-side checks and result shapes of sort/topk, shared by the CPU and CUDA kernels.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/Utils.h>
#include <vector>

namespace at::native::sort_utils {

/// Checks topk's arguments and returns the wrapped dim and the result sizes (dim `d` cut to k).
inline std::pair<int64_t, std::vector<int64_t>> topk_shape(const Tensor& self, int64_t k, int64_t dim) {
  EMBER_CHECK(self.scalar_type() != kBool, "[topk] expected a numeric tensor; got Bool");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "topk");
  const int64_t L = self.dim() == 0 ? 1 : self.size(d);
  EMBER_CHECK(k >= 0 && k <= L, "[topk] expected k in [0, ", L, "] (the size of dim ", d, "); got k = ", k);
  std::vector<int64_t> osizes = self.sizes().vec();
  if (!osizes.empty()) osizes[d] = k;
  return {d, osizes};
}

}  // namespace at::native::sort_utils

EMBER_PUBLIC_END
