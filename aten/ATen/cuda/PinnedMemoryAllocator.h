#pragma once
// Page-locked (pinned) host memory: transfers from and to it can run asynchronously
// (copy_(src, /*non_blocking=*/true)), and they are faster than from pageable memory.
//
//   at::Tensor h = ember::cuda::pin_memory(cpu_tensor);       // libtorch: cpu_tensor.pin_memory()
//   at::Tensor d = h.to(at::kCUDA, /*non_blocking=*/true);     // returns before the copy ends
//
// The caching host allocator keeps freed pinned blocks (cudaHostAlloc is slow) and hands a block
// out again only after the asynchronous copies that used it have finished: copies record an event
// on their stream (CachingHostAllocator_recordEvent), and the block waits for those events.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>
#include <c10/core/Allocator.h>
#include <c10/cuda/CUDAStream.h>

namespace at::cuda {
/// The caching pinned-host allocator (its DataPtrs are CPU pointers). Raises without a device.
c10::Allocator* getCachingHostAllocator();
/// The same allocator under libtorch's other name.
inline c10::Allocator* getPinnedMemoryAllocator() { return getCachingHostAllocator(); }
/// Records that the pinned block behind `ptr`/`ctx` (a DataPtr's get() and get_context()) is used by
/// work just queued on `stream`; returns false (and does nothing) for memory of another allocator.
bool CachingHostAllocator_recordEvent(void* ptr, void* ctx, c10::cuda::CUDAStream stream);
/// Frees every cached pinned block whose uses have finished (no-op without a device).
void CachingHostAllocator_emptyCache();
}  // namespace at::cuda

namespace ember::cuda {
/// A pinned copy of `t` (a CPU tensor), contiguous, or `t` itself when it is already pinned
/// (libtorch's Tensor::pin_memory). Raises "[pin_memory] ..." for a CUDA tensor or without a device.
at::Tensor pin_memory(const at::Tensor& t);
/// True when `t`'s data is in page-locked host memory (libtorch's Tensor::is_pinned); false
/// without a device and for CUDA tensors.
bool is_pinned(const at::Tensor& t);
/// True when `ptr` points into page-locked host memory (cudaPointerGetAttributes); false without a device.
bool is_pinned_ptr(const void* ptr);
/// An uninitialised contiguous CPU tensor in pinned memory from the caching host allocator.
at::Tensor empty_pinned(at::IntArrayRef sizes, at::ScalarType dtype = at::kFloat);
}  // namespace ember::cuda

EMBER_PUBLIC_END
