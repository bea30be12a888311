#pragma once
// torch::cuda queries. In a build without CUDA, or with no device, is_available() is false.
#include <cstddef>
#include <cstdint>

namespace ember::cuda {
/// Number of visible CUDA devices (0 without CUDA, or when the driver reports an error).
int64_t device_count();
/// True when a CUDA device can be used.
bool is_available();
/// Waits for all work queued on `device` (-1: the current device). Throws in a build without CUDA.
void synchronize(int64_t device = -1);
/// Returns the caching allocator's unused blocks to the driver (no-op without CUDA).
void empty_cache();
/// Bytes in live CUDA tensors' blocks on `device` (-1: current), rounded as the allocator rounds.
size_t memory_allocated(int64_t device = -1);
/// Bytes the caching allocator holds from the driver on `device` (-1: current): live + cached.
size_t memory_reserved(int64_t device = -1);
}  // namespace ember::cuda

namespace torch::cuda {
/// Number of visible CUDA devices.
inline int64_t device_count() { return ember::cuda::device_count(); }
/// True when a CUDA device can be used.
inline bool is_available() { return ember::cuda::is_available(); }
/// Waits for all kernels and copies queued on `device_index` (-1: the current device).
inline void synchronize(int64_t device_index = -1) { ember::cuda::synchronize(device_index); }
}  // namespace torch::cuda
