#pragma once
// cuBLAS for Ember's CUDA kernels: a handle per (thread, device), created on first use, and the
// status check. Only included by code compiled into the CUDA build (kernels/cuda).
//
//   cublasHandle_t h = ember::cuda::cublas_handle();   // bound to current_stream(), with workspace
//   EMBER_CUBLAS_CHECK(cublasGemmEx(h, ...));
#include <ATen/native/cuda/CUDAUtils.h>
#include <cublas_v2.h>

namespace ember::cuda {

/// Throws c10::Error "[cublas] <what>: <status name>".
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* what);

/// This thread's cuBLAS handle for the current device, set to current_stream() and to that
/// stream's workspace from the caching allocator (kept with the handle, freed at thread exit).
/// Pointer mode is host; a caller that changes it, or the math mode, sets what it needs each call.
cublasHandle_t cublas_handle();

}  // namespace ember::cuda

/// Checks a cublasStatus_t; on failure throws c10::Error "[cublas] <call>: <cublasGetStatusName>".
#define EMBER_CUBLAS_CHECK(expr)                                                 \
  do {                                                                           \
    const cublasStatus_t ember_cublas_status_ = (expr);                          \
    if (EMBER_UNLIKELY(ember_cublas_status_ != CUBLAS_STATUS_SUCCESS))           \
      ::ember::cuda::throw_cublas_error(ember_cublas_status_, #expr);            \
  } while (0)
