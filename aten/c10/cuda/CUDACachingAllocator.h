#pragma once
// The CUDA caching allocator's libtorch-named entry points (c10/cuda/CUDACachingAllocator.h).
// The allocator itself and its design notes are in kernels/cuda/CUDACachingAllocator.cpp; the
// statistics are read through ember::cuda::memory_stats / torch::cuda::memory_stats (torch/cuda.h).
//
//   at::Tensor x = at::empty({n}, at::device(at::kCUDA));        // allocated on the current stream
//   { c10::cuda::CUDAStreamGuard g(side); use(x); }              // x also used on `side`
//   c10::cuda::CUDACachingAllocator::recordStream(x.storage().unsafeGetStorageImpl()->data_ptr_, side);
//   // (or ember::cuda::record_stream(x, side) from ATen/cuda/CUDAContext.h)
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/Allocator.h>
#include <c10/cuda/CUDAStream.h>
#include <cstddef>

namespace c10::cuda::CUDACachingAllocator {

/// The caching allocator (raises "[cuda] ..." when there is no device or no CUDA build).
c10::Allocator* get();
/// Returns every cached, wholly free segment of every device to the driver (no-op without a device).
void emptyCache();
/// Marks the block behind `ptr` as used on `stream`: when it is freed, it is reused only after the
/// work queued on `stream` by then has finished. Pointers of other allocators are ignored.
void recordStream(const DataPtr& ptr, CUDAStream stream);
/// Sets the peak counters of `device` to their current values.
void resetPeakStats(DeviceIndex device);

}  // namespace c10::cuda::CUDACachingAllocator

EMBER_PUBLIC_END
