#pragma once
// The CUDA runtime for ATen users in one include (libtorch's ATen/cuda/CUDAContext.h): devices,
// streams, guards, events, the caching allocators, and the tensor-level helpers of issue #9 that
// libtorch has as Tensor methods (record_stream, pin_memory, is_pinned).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/PinnedMemoryAllocator.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

namespace at::cuda {
using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromExternal;
using c10::cuda::getStreamFromPool;
using c10::cuda::setCurrentCUDAStream;
/// Number of visible devices (0 without CUDA).
inline int64_t device_count() noexcept { return c10::cuda::device_count(); }
/// True when a CUDA device can be used.
inline bool is_available() noexcept { return device_count() > 0; }
inline c10::DeviceIndex current_device() { return c10::cuda::current_device(); }
}  // namespace at::cuda

namespace ember::cuda {
/// Tensor::record_stream(stream) of libtorch: the storage of `t` (a CUDA tensor) is not reused
/// after it is freed until the work queued on `stream` by then has finished.
void record_stream(const at::Tensor& t, c10::cuda::CUDAStream stream);
}  // namespace ember::cuda

EMBER_PUBLIC_END
