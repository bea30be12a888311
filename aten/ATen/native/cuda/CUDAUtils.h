#pragma once
// The CUDA runtime as Ember's CUDA kernels see it: error checking, the current device and stream,
// launch geometry. Only included by code compiled into the CUDA build (kernels/cuda, generated
// pw_<family>.cu); the user-facing queries are in torch/cuda.h.
//
//   EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, ember::cuda::current_stream()));
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/Exception.h>
#include <cuda_runtime.h>
#include <torch/cuda.h>
#include <cstdint>

namespace ember::cuda {

/// Throws c10::Error "[cuda] <what>: <error string>" (after clearing the sticky error state of
/// non-fatal errors, so that the next call does not report it again).
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* what);

/// The device new CUDA allocations and launches go to (cudaGetDevice).
int current_device();
/// Makes `device` current for this thread (cudaSetDevice).
void set_device(int device);
/// The stream Ember's kernels and copies of this thread go to on the current device: the handle of
/// c10::cuda::getCurrentCUDAStream(), the legacy default stream (0) until a stream is set. New
/// allocations belong to it (see Note [Allocator and streams] in CUDACachingAllocator.cpp).
cudaStream_t current_stream();
/// Replaces this thread's current stream for the current device; returns the previous one
/// (prefer c10::cuda::CUDAStreamGuard, which restores it).
cudaStream_t set_current_stream(cudaStream_t stream);
/// Number of streaming multiprocessors of the current device (cached).
int sm_count();

/// Makes a device current for a scope and restores the previous one (no-op for index < 0).
class DeviceGuard {
 public:
  explicit DeviceGuard(int index) {
    if (index < 0) return;
    prev_ = current_device();
    if (prev_ != index) set_device(index);
    else prev_ = -1;
  }
  ~DeviceGuard() { if (prev_ >= 0) cudaSetDevice(prev_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
 private:
  int prev_ = -1;
};

}  // namespace ember::cuda

/// Checks a cudaError_t; on failure throws c10::Error "[cuda] <call>: <cudaGetErrorString>".
#define EMBER_CUDA_CHECK(expr)                                                   \
  do {                                                                           \
    const cudaError_t ember_cuda_err_ = (expr);                                  \
    if (EMBER_UNLIKELY(ember_cuda_err_ != cudaSuccess))                          \
      ::ember::cuda::throw_cuda_error(ember_cuda_err_, #expr);                   \
  } while (0)

/// Checks the launch of the kernel just issued; `op` names it in the error.
#define EMBER_CUDA_KERNEL_LAUNCH_CHECK(op)                                       \
  do {                                                                           \
    const cudaError_t ember_cuda_err_ = cudaGetLastError();                      \
    if (EMBER_UNLIKELY(ember_cuda_err_ != cudaSuccess))                          \
      ::ember::cuda::throw_cuda_error(ember_cuda_err_, op);                      \
  } while (0)

EMBER_PUBLIC_END
