// The CUDA caching allocator: cudaMalloc is slow and synchronises the device, so freed blocks are
// kept per device in free lists keyed by rounded size and handed out again.
//
// Note [Allocator and streams]
// A block freed while a kernel that uses it is still queued can be reused at once only because
// all of Ember's work goes to one stream per device (the legacy default stream unless a user sets
// another): the next user of the block is ordered after the last one. Multi-stream use needs
// per-stream pools or events (record_stream); until then, free lists are per device only.
//
// Rounding: requests up to 1 MiB are "small" and round up to 512 B; larger ones round up to 2 MiB
// pages. Blocks are never split or merged; a cached large block is reused for a request it
// exceeds by at most a quarter. On cudaErrorMemoryAllocation the device's cache is released and
// the cudaMalloc retried once.
#include <ATen/native/cuda/CUDAUtils.h>
#include <c10/core/Allocator.h>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ember::cuda {
namespace {

constexpr size_t kSmallRound = 512;
constexpr size_t kSmallMax = size_t{1} << 20;
constexpr size_t kLargeRound = size_t{2} << 20;

size_t round_size(size_t n) {
  if (n <= kSmallMax) return (n + kSmallRound - 1) / kSmallRound * kSmallRound;
  return (n + kLargeRound - 1) / kLargeRound * kLargeRound;
}

struct Block {
  void* ptr;
  size_t size;  // rounded
  int device;
};

struct DeviceCache {
  std::multimap<size_t, void*> free_small, free_large;  // rounded size -> block
  size_t allocated = 0;  // bytes in live blocks
  size_t reserved = 0;   // bytes from cudaMalloc: live + cached
};

class CachingAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    const int dev = current_device();
    const c10::Device device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(dev));
    if (nbytes == 0) return c10::DataPtr(nullptr, nullptr, nullptr, device);
    const size_t size = round_size(nbytes);
    std::lock_guard<std::mutex> lock(mu_);
    DeviceCache& c = cache(dev);
    void* p = take_cached(c, size);
    size_t got = size;
    if (p) {
      got = last_taken_size_;
    } else {
      p = malloc_with_retry(c, dev, size, nbytes);
      c.reserved += size;
    }
    c.allocated += got;
    auto* b = new Block{p, got, dev};
    return c10::DataPtr(p, b, &CachingAllocator::deleter, device);
  }

  void copy_data(void* dst, const void* src, size_t n) const override {
    if (n == 0) return;
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, current_stream()));
  }

  void release(Block* b) {
    std::lock_guard<std::mutex> lock(mu_);
    DeviceCache& c = cache(b->device);
    c.allocated -= b->size;
    (b->size <= kSmallMax ? c.free_small : c.free_large).emplace(b->size, b->ptr);
    delete b;
  }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t d = 0; d < caches_.size(); ++d) free_cached(caches_[d], static_cast<int>(d));
  }

  size_t allocated(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    return cache(dev).allocated;
  }
  size_t reserved(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    return cache(dev).reserved;
  }

 private:
  static void deleter(void* ctx);

  DeviceCache& cache(int dev) {
    if (static_cast<size_t>(dev) >= caches_.size()) caches_.resize(dev + 1);
    return caches_[dev];
  }

  void* take_cached(DeviceCache& c, size_t size) {
    auto& pool = size <= kSmallMax ? c.free_small : c.free_large;
    auto it = pool.lower_bound(size);
    if (it == pool.end()) return nullptr;
    if (size <= kSmallMax ? it->first != size : it->first > size + size / 4) return nullptr;
    void* p = it->second;
    last_taken_size_ = it->first;
    pool.erase(it);
    return p;
  }

  void* malloc_with_retry(DeviceCache& c, int dev, size_t size, size_t requested) {
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, size);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      free_cached(c, dev);
      err = cudaMalloc(&p, size);
    }
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      size_t free_b = 0, total_b = 0;
      (void)cudaMemGetInfo(&free_b, &total_b);
      (void)cudaGetLastError();
      throw c10::Error(c10::str("[cuda] out of memory: tried to allocate ", mib(requested), " on device ", dev, " (",
                                mib(total_b), " total, ", mib(free_b), " free; Ember has ", mib(c.allocated),
                                " allocated, ", mib(c.reserved), " reserved)"));
    }
    EMBER_CUDA_CHECK(err);
    return p;
  }

  static std::string mib(size_t n) { return c10::str(static_cast<double>(n) / (1 << 20), " MiB"); }

  // Called with mu_ held. cudaFree synchronises the device, so no queued kernel still uses them.
  void free_cached(DeviceCache& c, int dev) {
    DeviceGuard guard(dev);
    for (auto* pool : {&c.free_small, &c.free_large}) {
      for (auto& [size, p] : *pool) {
        cudaFree(p);
        c.reserved -= size;
      }
      pool->clear();
    }
    (void)cudaGetLastError();
  }

  std::mutex mu_;
  std::vector<DeviceCache> caches_;
  size_t last_taken_size_ = 0;  // size of the block take_cached returned (mu_ held)
};

// Never destroyed: tensors freed during static destruction still return their blocks here, and
// cudaFree after the runtime shut down would fail anyway.
CachingAllocator& get() {
  static CachingAllocator* a = new CachingAllocator();
  return *a;
}

void CachingAllocator::deleter(void* ctx) { get().release(static_cast<Block*>(ctx)); }

int resolve(int64_t device) { return device < 0 ? current_device() : static_cast<int>(device); }

// Registered at load time, only when a device exists: without one, GetAllocator(kCUDA) keeps
// throwing its "no CUDA device" error and loading succeeds.
struct Register {
  Register() {
    if (device_count() > 0) c10::SetAllocator(c10::DeviceType::CUDA, &get());
  }
};
Register g_register;

}  // namespace

void empty_cache() {
  if (device_count() > 0) get().empty_cache();
}
size_t memory_allocated(int64_t device) { return device_count() > 0 ? get().allocated(resolve(device)) : 0; }
size_t memory_reserved(int64_t device) { return device_count() > 0 ? get().reserved(resolve(device)) : 0; }

}  // namespace ember::cuda
