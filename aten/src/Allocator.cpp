// The CPU allocator (64-byte aligned, for AVX-512 loads and cache lines) and the per-device registry.
#include <c10/core/Allocator.h>
#include <c10/core/Storage.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>
#include <iterator>

namespace c10 {
namespace {

constexpr size_t kAlignment = 64;

void cpu_free(void* p) { std::free(p); }

// Note [Small CPU blocks]
// glibc's aligned_alloc has no per-thread cache (its tcache serves plain malloc only): each call
// splits a larger chunk and frees the ends, and the frees drive malloc_consolidate. For the
// per-op path that was a third of a 1-element add (perf: _int_memalign, _int_free,
// malloc_consolidate, unlink_chunk). Small blocks therefore come from malloc, over-allocated by
// kAlignment - 16 bytes (malloc returns 16-byte aligned memory on x86-64 glibc) and aligned up:
// the DataPtr's data is the aligned address and its context the malloc'ed one, which the deleter
// frees. Both stay within glibc's tcache sizes (chunks up to 1032 bytes).
constexpr size_t kSmallBlock = 512;
constexpr size_t kMallocAlignment = alignof(std::max_align_t);

// Note [Large CPU block cache]
// A large block is mapped by glibc on allocation and unmapped on free (above its mmap threshold,
// and always above 32 MiB), so every op writing a fresh large output takes a page fault per
// 4 KiB page, each clearing its page: for a 16M-float add (a 64 MiB output) that cost as much as
// the op's own memory traffic. Blocks of kLargeBlock bytes or more therefore go, when their last
// reference goes, to a cache of free blocks that the next large allocation of about the same size
// (up to 1/8 larger) takes instead of mapping fresh pages. The cache is bounded (256 MiB, or
// EMBER_CPU_CACHE_MB; 0 turns it off): a block that would pass the bound is returned to the system
// at once; and a large allocation the cache cannot serve first returns as many cached bytes as it
// asks for, so cached memory never adds to the peak (the main job's peak RSS: 469 MiB without the
// cache, 614 MiB with a cache that only evicted at its bound). Each block carries its capacity in
// a 64-byte header before the data.
// Of the cached blocks that fit a request, the one freed last is taken. The cache was first a
// multimap searched with lower_bound, which among blocks of one capacity takes the one freed
// *first*: with several same-sized blocks cached (a training step leaves them), a loop that frees
// and reallocates its output went round all of them, and its working set outgrew the L3. The
// batch_norm evaluation benchmark (x and the output, 6.4 MB each: 12.8 MB that fit in a 32 MiB
// L3) took 0.27-0.30 ms at 1 thread on its own and 0.46-0.74 ms after the training benchmark.
// Transparent huge pages (MADV_HUGEPAGE) were tried too: faster in steady state, but where memory
// is fragmented the first faults of a process stalled in compaction (a 64 MiB output took 180-440
// ms once), so they are not used. Sanitizer builds keep plain malloc/free so that a use after free
// is still caught.
// The threshold was 4 MiB; blocks between glibc's mmap threshold (128 KiB at start) and that were
// still mapped or grown with brk on allocation and given back on free: the conv2d fwd+bwd
// benchmark at the MNIST CNN's second layer (outputs of 0.8-1.6 MiB) made one brk per iteration,
// 56k page faults in a 1 s run against libtorch's 22k, 10% of its time in the kernel. From 256 KiB
// on: 5k faults, and 5% off that case's time at 1 thread.
constexpr size_t kLargeBlock = size_t{256} << 10;  // 256 KiB
constexpr size_t kLargeGranule = size_t{64} << 10;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define EMBER_CPU_BLOCK_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define EMBER_CPU_BLOCK_CACHE 0
#endif
#endif
#ifndef EMBER_CPU_BLOCK_CACHE
#define EMBER_CPU_BLOCK_CACHE 1
#endif

struct LargeHeader {
  size_t capacity;  // usable bytes after the header
};
static_assert(sizeof(LargeHeader) <= kAlignment);

class LargeBlockCache {
 public:
  static LargeBlockCache& get() {
    // Never destroyed: tensors freed by static destructors after this one would otherwise find
    // it gone. What it holds at exit goes back with the process.
    static LargeBlockCache* c = new LargeBlockCache();
    return *c;
  }
  /// A cached block whose capacity is in [n, n + n / 8], or null — and then, before the caller
  /// maps n fresh bytes, cached blocks of at least n bytes in all are returned to the system, so
  /// that live plus cached memory grows only while the cache is empty: the process's footprint
  /// stays within its peak of live blocks.
  void* take(size_t n) {
    if (limit_ == 0) return nullptr;
    std::vector<void*> release;
    {
      std::lock_guard<std::mutex> g(mu_);
      // Of the blocks that fit, the one freed last: its lines are the likeliest still in the caches.
      auto best = free_.end();
      for (auto it = free_.lower_bound(n); it != free_.end() && it->first <= n + n / 8; ++it)
        if (best == free_.end() || it->second.stamp > best->second.stamp) best = it;
      if (best != free_.end()) {
        void* base = best->second.base;
        cached_ -= best->first;
        free_.erase(best);
        return base;
      }
      size_t freed = 0;
      while (freed < n && !free_.empty()) {
        auto victim = std::prev(free_.end());  // the largest
        freed += victim->first;
        cached_ -= victim->first;
        release.push_back(victim->second.base);
        free_.erase(victim);
      }
    }
    for (void* b : release) std::free(b);
    return nullptr;
  }
  /// Keeps a free block when it fits under the bound; false when the caller must free it.
  bool give(void* base, size_t capacity) {
    if (limit_ == 0) return false;
    std::lock_guard<std::mutex> g(mu_);
    if (cached_ + capacity > limit_) return false;
    free_.emplace(capacity, Entry{base, ++stamp_});
    cached_ += capacity;
    return true;
  }

 private:
  LargeBlockCache() {
    const char* e = std::getenv("EMBER_CPU_CACHE_MB");
    if (e && *e) {
      char* end = nullptr;
      const unsigned long long mb = std::strtoull(e, &end, 10);
      if (end && *end == '\0') limit_ = static_cast<size_t>(mb) << 20;
    }
  }
  struct Entry {
    void* base;
    uint64_t stamp;  // when it was freed (a count of gives): take() prefers the newest
  };
  std::mutex mu_;
  std::multimap<size_t, Entry> free_;  // capacity -> block
  uint64_t stamp_ = 0;
  size_t cached_ = 0;
  size_t limit_ = size_t{256} << 20;
};

void large_free(void* base) {
  const size_t capacity = static_cast<const LargeHeader*>(base)->capacity;
  if (!LargeBlockCache::get().give(base, capacity)) std::free(base);
}

struct CPUAllocator final : Allocator {
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
    if (nbytes <= kSmallBlock) {  // Note [Small CPU blocks]
      void* raw = std::malloc(nbytes + kAlignment - kMallocAlignment);
      EMBER_CHECK(raw != nullptr, "[CPUAllocator] out of memory: failed to allocate ", nbytes, " bytes");
      const auto a = (reinterpret_cast<std::uintptr_t>(raw) + kAlignment - 1) & ~std::uintptr_t{kAlignment - 1};
      return DataPtr(reinterpret_cast<void*>(a), raw, &cpu_free, Device(DeviceType::CPU));
    }
#if EMBER_CPU_BLOCK_CACHE
    if (nbytes >= kLargeBlock) {  // Note [Large CPU block cache]
      void* base = LargeBlockCache::get().take(nbytes);
      if (!base) {
        const size_t capacity = (nbytes + kLargeGranule - 1) & ~(kLargeGranule - 1);
        base = std::aligned_alloc(kAlignment, capacity + kAlignment);
        EMBER_CHECK(base != nullptr, "[CPUAllocator] out of memory: failed to allocate ", nbytes, " bytes");
        static_cast<LargeHeader*>(base)->capacity = capacity;
      }
      return DataPtr(static_cast<char*>(base) + kAlignment, base, &large_free, Device(DeviceType::CPU));
    }
#endif
    // aligned_alloc needs a size that is a multiple of the alignment.
    size_t n = (nbytes + kAlignment - 1) & ~(kAlignment - 1);
    void* p = std::aligned_alloc(kAlignment, n);
    EMBER_CHECK(p != nullptr, "[CPUAllocator] out of memory: failed to allocate ", nbytes, " bytes");
    return DataPtr(p, p, &cpu_free, Device(DeviceType::CPU));
  }
  void copy_data(void* dst, const void* src, size_t n) const override { if (n) std::memcpy(dst, src, n); }
};

CPUAllocator g_cpu_allocator;
std::atomic<Allocator*> g_allocators[kNumDeviceTypes] = {&g_cpu_allocator, nullptr, nullptr, nullptr};

}  // namespace

Allocator* GetCPUAllocator() { return g_allocators[0].load(std::memory_order_relaxed); }
Allocator* GetAllocator(DeviceType t) {
  Allocator* a = g_allocators[static_cast<int>(t)].load(std::memory_order_relaxed);
  EMBER_CHECK(a != nullptr, "[allocator] no allocator for device type ", t,
              t == DeviceType::CUDA ? " (Ember was built without CUDA or no CUDA device is present)"
              : t == DeviceType::PrivateUse1 ? " (an out-of-tree backend registers one: c10::SetAllocator(c10::kPrivateUse1, ...))"
                                             : "");
  return a;
}
void SetAllocator(DeviceType t, Allocator* alloc) { g_allocators[static_cast<int>(t)].store(alloc); }

namespace {
std::atomic<uint64_t> g_storage_uids{0};
std::atomic<void (*)(uint64_t)> g_release_derived{nullptr};
}  // namespace
uint64_t StorageImpl::assign_uid() const {
  uint64_t expected = 0;
  const uint64_t fresh = g_storage_uids.fetch_add(1, std::memory_order_relaxed) + 1;
  return uid_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel) ? fresh : expected;
}
void StorageImpl::set_release_derived_hook(void (*hook)(uint64_t)) { g_release_derived.store(hook); }
void StorageImpl::release_derived(uint64_t uid) {
  if (auto* hook = g_release_derived.load()) hook(uid);
}

void Storage::resize(size_t nbytes) {
  StorageImpl* s = impl_.get();
  if (nbytes <= s->nbytes_) return;
  EMBER_CHECK(s->resizable_, "[resize_] expected a resizable storage; got one that is not resizable (e.g. from_blob memory)");
  DataPtr fresh = s->allocator_->allocate(nbytes);
  if (s->nbytes_ > 0 && s->data_ptr_.get()) s->allocator_->copy_data(fresh.get(), s->data_ptr_.get(), s->nbytes_);
  s->data_ptr_ = std::move(fresh);
  s->nbytes_ = nbytes;
}

}  // namespace c10
