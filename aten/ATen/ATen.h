#pragma once
// Everything of the tensor library: Tensor, the generated at:: operators, indexing, iteration.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>
#include <ATen/core/Reduction.h>
#include <ATen/TensorIndexing.h>
#include <ATen/TensorAccessor.h>
#include <ATen/Generator.h>
#include <ATen/Utils.h>
#include <ATen/Parallel.h>
#include <ATen/Factory.h>

namespace at {
using std::nullopt;  // libtorch's at:: names for the standard optional
using std::optional;

// Free-function spellings of Tensor queries that libtorch declares in at::.
inline int64_t numel(const Tensor& t) { return t.numel(); }
inline int64_t size(const Tensor& t, int64_t dim) { return t.size(dim); }
inline int64_t stride(const Tensor& t, int64_t dim) { return t.stride(dim); }
inline bool is_floating_point(const Tensor& t) { return t.is_floating_point(); }
inline bool is_complex(const Tensor& t) { return t.is_complex(); }
inline bool is_signed(const Tensor& t) { return t.is_signed(); }
/// libtorch's internal view op, used by some programs: the same elements in a new shape
/// (Ember records it as an ordinary view).
inline Tensor _unsafe_view(const Tensor& self, IntArrayRef size) { return self.view(size); }
}  // namespace at

EMBER_PUBLIC_END
