#pragma once
// Small helpers shared by kernels and the frontend.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>

namespace at {
/// Wraps a possibly negative dim into [0, ndim); `op` names the op in the error.
inline int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op = "dim", bool scalar_ok = true) {
  if (ndim <= 0 && scalar_ok) ndim = 1;
  EMBER_CHECK_T(IndexError, dim >= -ndim && dim < ndim, "[", op, "] expected a dimension in [", -ndim, ", ",
                ndim - 1, "]; got ", dim);
  return dim < 0 ? dim + ndim : dim;
}
/// `t`, a tensor just made and filled in place, with its version restarted at 0 (as libtorch
/// reports for factory results); see TensorImpl::reset_version_of_new_tensor.
inline Tensor new_tensor_version(Tensor t) {
  t.unsafeGetTensorImpl()->reset_version_of_new_tensor();
  return t;
}
/// Row-major strides of `sizes`.
std::vector<int64_t> contiguous_strides(IntArrayRef sizes);
/// Dense strides that keep the memory order of (sizes, strides): what MemoryFormat::Preserve
/// gives a tensor that is not already non-overlapping and dense.
std::vector<int64_t> dense_strides_like(IntArrayRef sizes, IntArrayRef strides);
/// Product of sizes.
inline int64_t prod_sizes(IntArrayRef s) { int64_t n = 1; for (auto v : s) n *= v; return n; }
/// at::result_type for two tensors / a tensor and a scalar (torch.result_type).
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);
ScalarType result_type(const Scalar& a, const Tensor& b);
ScalarType result_type(const Scalar& a, const Scalar& b);
/// torch.promote_types: the smallest dtype both convert to without losing their category.
ScalarType promote_types(ScalarType a, ScalarType b);
/// torch.can_cast: whether the casting rules of in-place ops let a value of `from` be written
/// into a tensor of `to` (not float into integral, not anything but bool into bool).
bool can_cast(ScalarType from, ScalarType to);
/// Global intra-op thread count (OpenMP).
int get_num_threads();
void set_num_threads(int n);
}  // namespace at

EMBER_PUBLIC_END
