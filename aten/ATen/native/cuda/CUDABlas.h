#pragma once
// cuBLAS for Ember's CUDA kernels, loaded at first use (dlopen of libcublas.so.<major>), never
// linked: a handle per (thread, device), created on first use, and the status check. Only
// included by code compiled into the CUDA build (kernels/cuda).
//
// Note [cuBLAS is loaded, not linked]
// libcublas pulls in libcublasLt (over 500 MB), whose static initialisers fault in about 150 MB
// of memory: linked, they cost every process that loads libember 45 ms and the memory, GPU or
// not (perf of tools/bench/startup.cpp: three quarters of process start-up was cublasLt's
// init). So, as cuDNN is (Note [cuDNN is loaded, not linked]), cuBLAS is opened the first time a
// product runs on the GPU, its entry points looked up once into a table, and a machine without
// it loads and runs everything but CUDA products, which raise a c10::Error saying what is
// missing. The major version is the toolkit's we were compiled against (CUBLAS_VER_MAJOR).
//
//   const auto& blas = ember::cuda::blas::api();
//   cublasHandle_t h = ember::cuda::cublas_handle();   // bound to current_stream(), with workspace
//   EMBER_CUBLAS_CHECK(blas.GemmEx(h, ...));
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/native/cuda/CUDAUtils.h>
#include <cublas_v2.h>

namespace ember::cuda::blas {

// The cuBLAS entry points Ember uses: X(name) looks up a pointer `name` to cublas<name>
// (cublas_v2.h maps some names to their _v2 symbols; the lookup uses the mapped name).
#define EMBER_CUBLAS_FUNCTIONS(X) \
  X(GetStatusName) X(Create) X(Destroy) X(SetStream) X(SetWorkspace) X(SetPointerMode) X(SetMathMode) \
  X(GemmEx) X(GemmStridedBatchedEx)

struct Api {
#define EMBER_CUBLAS_MEMBER(name) decltype(&::cublas##name) name = nullptr;
  EMBER_CUBLAS_MEMBER(GetStatusName) EMBER_CUBLAS_MEMBER(Create) EMBER_CUBLAS_MEMBER(Destroy)
  EMBER_CUBLAS_MEMBER(SetStream) EMBER_CUBLAS_MEMBER(SetWorkspace) EMBER_CUBLAS_MEMBER(SetPointerMode)
  EMBER_CUBLAS_MEMBER(SetMathMode)
#undef EMBER_CUBLAS_MEMBER
  // In C++ these two have inline overloads (a cudaDataType compute type): the exported ones are
  // spelled out.
  cublasStatus_t (*GemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                           const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                           cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*GemmStridedBatchedEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const void*, const void*, cudaDataType, int, long long, const void*,
                                         cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                         long long, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

/// The loaded entry points; the first call loads cuBLAS. Throws c10::Error "[<op>] ..." when
/// libcublas cannot be loaded or lacks a function.
const Api& api(const char* op = "cublas");

}  // namespace ember::cuda::blas

namespace ember::cuda {

/// Throws c10::Error "[cublas] <what>: <status name>" (cuBLAS is loaded when this is called).
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

EMBER_PUBLIC_END
