#pragma once
// Ember's own blocked float32 product for one large matrix (Note [Blocked sgemm] in
// kernels/cpu/isa/sgemm.cpp): its argument block and dispatch stub, shared by the baseline caller
// (kernels/cpu/matmul.cpp) and the per-level kernel file.
#include <ATen/native/DispatchStub.h>
#include <cstdint>

namespace at::native {

/// c = alpha * a @ b + beta * c, one product, in element strides. a is row-major (asc == 1) or
/// column-major (asr == 1), likewise b; c is row-major (its column stride is 1). beta == 0 never
/// reads c (NaN and inf there are overwritten, as BLAS does).
struct BlockedSgemm {
  const float* a;
  const float* b;
  float* c;
  int64_t M, N, K;
  int64_t asr, asc;
  int64_t bsr, bsc;
  int64_t csr;
  float alpha, beta;
};

/// Returns false when this CPU level has no such kernel (the caller takes oneDNN).
using blocked_sgemm_fn = bool (*)(const BlockedSgemm&);
EMBER_DECLARE_DISPATCH(blocked_sgemm_fn, blocked_sgemm_stub);

}  // namespace at::native
