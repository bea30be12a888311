#pragma once
// Argument checks and result shapes of the matrix-product kernels (mm, bmm, addmm, baddbmm, dot),
// shared by the CPU (kernels/cpu/matmul.cpp) and CUDA (kernels/cuda/matmul.cu) kernels so that
// both raise the same errors in the same order. check_<op> returns the product's shape.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/TensorIterator.h>
#include <ATen/Utils.h>
#include <sstream>
#include <string>
#include <vector>

namespace at::native::matmul_utils {

/// "[2, 3] float32": a tensor as the error messages show it.
inline std::string describe(const Tensor& t) {
  std::ostringstream os;
  os << t.sizes() << " " << c10::dtypeName(t.scalar_type());
  return os.str();
}

/// Both operands share one dtype, live on `device` (the kernel's backend) and are not bool.
inline void check_operands(const char* op, c10::DeviceType device, const char* n1, const Tensor& a, const char* n2,
                           const Tensor& b) {
  EMBER_CHECK(a.scalar_type() == b.scalar_type(), "[", op, "] expected ", n1, " and ", n2, " to have the same dtype; got ", n1, " ",
              describe(a), ", ", n2, " ", describe(b));
  const char* backend = device == c10::kCPU ? "CPU" : device == c10::kMeta ? "meta" : "CUDA";
  EMBER_CHECK(a.device().type() == device && b.device().type() == device, "[", op, "] expected ", backend, " tensors; got ", n1,
              " on ", a.device(), ", ", n2, " on ", b.device());
  EMBER_CHECK(device == c10::kCPU || a.device().index() == b.device().index(), "[", op, "] expected ", n1, " and ", n2,
              " on one CUDA device; got ", a.device(), " and ", b.device());
  EMBER_CHECK(a.scalar_type() != kBool, "[", op, "] expected a non-bool dtype (bool is not supported); got ", n1, " ", describe(a),
              ", ", n2, " ", describe(b));
}

/// mm(self [M, K], mat2 [K, N]) -> [M, N].
inline std::vector<int64_t> check_mm(const Tensor& self, const Tensor& mat2, c10::DeviceType device) {
  check_operands("mm", device, "self", self, "mat2", mat2);
  EMBER_CHECK(self.dim() == 2 && mat2.dim() == 2, "[mm] expected 2-D tensors; got self ", describe(self), ", mat2 ", describe(mat2));
  EMBER_CHECK(self.size(1) == mat2.size(0), "[mm] expected self.size(-1) (", self.size(1), ") to equal mat2.size(-2) (", mat2.size(0),
              "); got self ", describe(self), ", mat2 ", describe(mat2));
  return {self.size(0), mat2.size(1)};
}

/// bmm(self [B, M, K], mat2 [B, K, N]) -> [B, M, N].
inline std::vector<int64_t> check_bmm(const Tensor& self, const Tensor& mat2, c10::DeviceType device) {
  check_operands("bmm", device, "self", self, "mat2", mat2);
  EMBER_CHECK(self.dim() == 3 && mat2.dim() == 3, "[bmm] expected 3-D tensors; got self ", describe(self), ", mat2 ", describe(mat2));
  EMBER_CHECK(self.size(0) == mat2.size(0), "[bmm] expected self.size(0) (", self.size(0), ") to equal mat2.size(0) (", mat2.size(0),
              "); got self ", describe(self), ", mat2 ", describe(mat2));
  EMBER_CHECK(self.size(2) == mat2.size(1), "[bmm] expected self.size(-1) (", self.size(2), ") to equal mat2.size(-2) (", mat2.size(1),
              "); got self ", describe(self), ", mat2 ", describe(mat2));
  return {self.size(0), self.size(1), mat2.size(2)};
}

/// addmm(self broadcastable to [M, N], mat1 [M, K], mat2 [K, N]) -> [M, N].
inline std::vector<int64_t> check_addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, c10::DeviceType device) {
  check_operands("addmm", device, "mat1", mat1, "mat2", mat2);
  check_operands("addmm", device, "self", self, "mat1", mat1);
  EMBER_CHECK(mat1.dim() == 2 && mat2.dim() == 2, "[addmm] expected 2-D mat1 and mat2; got mat1 ", describe(mat1), ", mat2 ",
              describe(mat2));
  EMBER_CHECK(mat1.size(1) == mat2.size(0), "[addmm] expected mat1.size(-1) (", mat1.size(1), ") to equal mat2.size(-2) (", mat2.size(0),
              "); got mat1 ", describe(mat1), ", mat2 ", describe(mat2));
  std::vector<int64_t> shape{mat1.size(0), mat2.size(1)};
  EMBER_CHECK(self.dim() <= 2 && ember::broadcast_shapes("addmm", self.sizes(), shape) == shape, "[addmm] self ", describe(self),
              " cannot be broadcast to the product's shape ", IntArrayRef(shape));
  return shape;
}

/// baddbmm(self broadcastable to [B, M, N], batch1 [B, M, K], batch2 [B, K, N]) -> [B, M, N].
inline std::vector<int64_t> check_baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, c10::DeviceType device) {
  check_operands("baddbmm", device, "batch1", batch1, "batch2", batch2);
  check_operands("baddbmm", device, "self", self, "batch1", batch1);
  EMBER_CHECK(batch1.dim() == 3 && batch2.dim() == 3, "[baddbmm] expected 3-D batch1 and batch2; got batch1 ", describe(batch1),
              ", batch2 ", describe(batch2));
  EMBER_CHECK(batch1.size(0) == batch2.size(0), "[baddbmm] expected batch1.size(0) (", batch1.size(0), ") to equal batch2.size(0) (",
              batch2.size(0), "); got batch1 ", describe(batch1), ", batch2 ", describe(batch2));
  EMBER_CHECK(batch1.size(2) == batch2.size(1), "[baddbmm] expected batch1.size(-1) (", batch1.size(2), ") to equal batch2.size(-2) (",
              batch2.size(1), "); got batch1 ", describe(batch1), ", batch2 ", describe(batch2));
  std::vector<int64_t> shape{batch1.size(0), batch1.size(1), batch2.size(2)};
  EMBER_CHECK(self.dim() <= 3 && ember::broadcast_shapes("baddbmm", self.sizes(), shape) == shape, "[baddbmm] self ", describe(self),
              " cannot be broadcast to the product's shape ", IntArrayRef(shape));
  return shape;
}

/// dot(self [n], tensor [n]) -> 0-dim.
inline void check_dot(const Tensor& self, const Tensor& tensor, c10::DeviceType device) {
  check_operands("dot", device, "self", self, "tensor", tensor);
  EMBER_CHECK(self.dim() == 1 && tensor.dim() == 1, "[dot] expected 1-D tensors; got self ", describe(self), ", tensor ",
              describe(tensor));
  EMBER_CHECK(self.size(0) == tensor.size(0), "[dot] self and tensor must have the same number of elements; got self ",
              describe(self), ", tensor ", describe(tensor));
}

/// Starts `out` as self broadcast to out's shape; the gemm then scales it by beta. With beta == 0
/// out stays unwritten and the gemm does not read it, so NaN/inf in self never reach the result
/// (libtorch's rule).
inline void init_with(const Tensor& out, const Tensor& self, const Scalar& beta) {
  if (beta.toDouble() != 0.0) out.copy_(self.expand(out.sizes()));
}

/// The product of an empty sum (k == 0): out = beta * out, or zeros when beta is 0 (out may be
/// unwritten then). Integer results scale by beta as an integer, as the kernels' loops do, so
/// the product keeps its dtype (and wraps).
inline void scale_empty_sum(const Tensor& out, double beta) {
  if (beta == 0.0) {
    out.zero_();
  } else if (beta != 1.0) {
    if (isIntegralType(out.scalar_type(), /*includeBool=*/false)) out.mul_(Scalar(Scalar(beta).to<int64_t>()));
    else out.mul_(beta);
  }
}

}  // namespace at::native::matmul_utils

EMBER_PUBLIC_END
