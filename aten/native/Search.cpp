// Composites over the searchsorted kernel (kernels/cpu/search.cpp, kernels/cuda/search.cu):
// searchsorted of one scalar, and bucketize, which is searchsorted with the arguments swapped and
// a 1-d boundaries tensor.
#include <ATen/native/NativeFunctions.h>

namespace at::native {
namespace {

// A scalar value as a 0-dim tensor compared in the sequence's dtype, or in float64 when an
// integer sequence meets a floating value (so 2.5 is not truncated to 2).
Tensor value_tensor(const Scalar& v, const Tensor& seq) {
  const ScalarType dt = isIntegralType(seq.scalar_type(), /*includeBool=*/true) && v.isFloatingPoint()
                            ? kDouble
                            : seq.scalar_type();
  return scalar_to_tensor(v, seq.device()).to(dt);
}

}  // namespace

Tensor searchsorted_Scalar(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                           std::optional<c10::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_CHECK(sorted_sequence.dim() == 1, "[searchsorted] expected a 1-d sorted sequence with a scalar value; got ",
              sorted_sequence.dim(), " dims, shape ", sorted_sequence.sizes());
  return at::searchsorted(sorted_sequence, value_tensor(self, sorted_sequence), out_int32, right, side, sorter);
}

Tensor bucketize_Tensor(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "[bucketize] expected 1-d boundaries; got ", boundaries.dim(), " dims, shape ",
              boundaries.sizes());
  return at::searchsorted(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

Tensor bucketize_Scalar(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "[bucketize] expected 1-d boundaries; got ", boundaries.dim(), " dims, shape ",
              boundaries.sizes());
  return at::searchsorted(boundaries, value_tensor(self, boundaries), out_int32, right, std::nullopt, std::nullopt);
}

}  // namespace at::native
