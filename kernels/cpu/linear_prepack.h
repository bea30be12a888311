#pragma once
// The CPU linear's prepacked weights (Note [Prepacked linear weights] in linear_prepack.cpp).
// Internal (not installed); the three functions are exported for tests/aten/test_linear_prepack.cpp.
#include <ATen/core/Tensor.h>
#include <c10/macros/Export.h>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace at::native {

/// input @ weight^T (+ bias) through a packed copy of the weight, when the call qualifies and the
/// weight has been seen unchanged before; nullopt: compute it the plain way.
TORCH_API std::optional<Tensor> linear_prepacked(const Tensor& input, const Tensor& weight, const Tensor* bias);

struct LinearPrepackStats {
  uint64_t hits = 0;         // calls that used a packed copy
  uint64_t packs = 0;        // copies made
  size_t packed_bytes = 0;   // held now
  size_t entries = 0;        // weights tracked now
};
/// The cache's counters (for tests and diagnostics).
TORCH_API LinearPrepackStats linear_prepack_stats();
/// Bounds the packed copies to `mb` megabytes (0: packing off; the default is 256, or
/// EMBER_LINEAR_PREPACK_MB where set; Note [Prepacked linear weights]). Returns the old bound.
TORCH_API size_t set_linear_prepack_limit_mb(size_t mb);
/// For tests: also keep a copy when oneDNN asks for a plain row-major weight, which is declined
/// otherwise (Note [Prepacked linear weights]: it is slower than the plain path), so that the
/// cache's bookkeeping is exercised on CPUs where oneDNN has no blocked layout. Returns the old value.
TORCH_API bool set_linear_prepack_keep_plain(bool keep);

}  // namespace at::native
