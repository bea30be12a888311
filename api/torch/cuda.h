#pragma once
// torch::cuda queries. In a build without CUDA, or with no device, is_available() is false.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

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

/// The caching allocator's counters for one device ("peak" values since the last reset).
struct MemoryStats {
  int64_t allocated_bytes = 0;       // bytes in live blocks (sizes rounded to 512 B)
  int64_t allocated_bytes_peak = 0;
  int64_t reserved_bytes = 0;        // bytes of segments obtained with cudaMalloc: live + cached
  int64_t reserved_bytes_peak = 0;
  int64_t active_blocks = 0;         // live blocks
  int64_t active_blocks_peak = 0;
  int64_t segments = 0;              // segments held from the driver
  int64_t num_allocs = 0;            // allocation requests served (nonzero sizes)
  int64_t cache_hits = 0;            // requests served from a cached block, without cudaMalloc
  int64_t num_device_alloc = 0;      // cudaMalloc calls that succeeded
  int64_t num_device_free = 0;       // cudaFree calls
  int64_t num_alloc_retries = 0;     // cudaMalloc failures followed by freeing the cache and a retry
  int64_t num_ooms = 0;              // out-of-memory errors raised
};
/// The counters of `device` (-1: current); all zero without CUDA or without a device.
MemoryStats memory_stats(int64_t device = -1);
/// Sets the peak counters of `device` (-1: current) to their current values (no-op without a device).
void reset_peak_memory_stats(int64_t device = -1);
/// Seeds the default CUDA generator of the current device (no-op without a device).
void manual_seed(uint64_t seed);
/// Seeds the default CUDA generators of all devices (no-op without a device).
void manual_seed_all(uint64_t seed);
}  // namespace ember::cuda

namespace torch::cuda {
/// Number of visible CUDA devices.
inline int64_t device_count() { return ember::cuda::device_count(); }
/// True when a CUDA device can be used.
inline bool is_available() { return ember::cuda::is_available(); }
/// Waits for all kernels and copies queued on `device_index` (-1: the current device).
inline void synchronize(int64_t device_index = -1) { ember::cuda::synchronize(device_index); }
/// Seeds the current device's default CUDA generator (torch::manual_seed seeds every device's).
inline void manual_seed(uint64_t seed) { ember::cuda::manual_seed(seed); }
/// Seeds the default CUDA generator of every device.
inline void manual_seed_all(uint64_t seed) { ember::cuda::manual_seed_all(seed); }
/// Returns the caching allocator's unused blocks to the driver.
inline void empty_cache() { ember::cuda::empty_cache(); }
/// Bytes in live CUDA blocks on `device` (-1: current).
inline size_t memory_allocated(int64_t device = -1) { return ember::cuda::memory_allocated(device); }
/// Bytes the caching allocator holds from the driver on `device` (-1: current).
inline size_t memory_reserved(int64_t device = -1) { return ember::cuda::memory_reserved(device); }
/// Sets the peak counters of `device` (-1: current) to their current values.
inline void reset_peak_memory_stats(int64_t device = -1) { ember::cuda::reset_peak_memory_stats(device); }
/// The allocator's counters by Python's torch.cuda.memory_stats key names:
/// "allocated_bytes.all.current"/".peak", "reserved_bytes.all.current"/".peak",
/// "active.all.current"/".peak", "segment.all.current", "num_alloc_retries", "num_ooms",
/// "num_device_alloc", "num_device_free", "cache_hits", "num_allocs".
inline std::map<std::string, int64_t> memory_stats(int64_t device = -1) {
  const ember::cuda::MemoryStats s = ember::cuda::memory_stats(device);
  return {{"allocated_bytes.all.current", s.allocated_bytes},
          {"allocated_bytes.all.peak", s.allocated_bytes_peak},
          {"reserved_bytes.all.current", s.reserved_bytes},
          {"reserved_bytes.all.peak", s.reserved_bytes_peak},
          {"active.all.current", s.active_blocks},
          {"active.all.peak", s.active_blocks_peak},
          {"segment.all.current", s.segments},
          {"num_allocs", s.num_allocs},
          {"cache_hits", s.cache_hits},
          {"num_device_alloc", s.num_device_alloc},
          {"num_device_free", s.num_device_free},
          {"num_alloc_retries", s.num_alloc_retries},
          {"num_ooms", s.num_ooms}};
}
}  // namespace torch::cuda

EMBER_PUBLIC_END
