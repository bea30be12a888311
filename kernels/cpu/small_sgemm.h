#pragma once
// The batched float32 product for small matrices (Note [Small batched sgemm] in
// kernels/cpu/isa/small_sgemm.cpp): its argument block and dispatch stub, shared by the baseline
// caller (kernels/cpu/matmul.cpp) and the per-level kernel file.
#include <ATen/native/DispatchStub.h>
#include <cstdint>

namespace at::native {

/// c[b] = alpha * a[b] @ b[b] + beta * c[b] for b < batch, in element strides. a is row-major
/// (asc == 1) or column-major (asr == 1), likewise b; c is row-major (csc == 1). A batch stride of
/// 0 repeats one matrix. beta == 0 never reads c.
struct SmallSgemm {
  const float* a;
  const float* b;
  float* c;
  int64_t batch, M, N, K;
  int64_t asb, asr, asc;
  int64_t bsb, bsr, bsc;
  int64_t csb, csr;
  float alpha, beta;
};

/// The largest K the kernel takes (its packed panel of b lives on the stack).
constexpr int64_t kSmallSgemmMaxK = 256;

/// Returns false when this CPU level has no such kernel (the caller takes oneDNN).
using small_sgemm_fn = bool (*)(const SmallSgemm&);
EMBER_DECLARE_DISPATCH(small_sgemm_fn, small_sgemm_stub);

}  // namespace at::native
