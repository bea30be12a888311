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
#include <algorithm>
#include <cerrno>
#include <utility>
#if defined(__unix__)
#include <sys/mman.h>
#include <unistd.h>
#endif
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
// Blocks of kLargeBlock bytes or more are mapped by Ember itself (mmap), kept when their last
// reference goes in a cache of free blocks, and handed to the next large request that fits
// (capacity in [n, n + n/8]); a block is unmapped only when the cache lets it go. Why each part:
// - Caching: a fresh mapping takes a page fault per 4 KiB page, each clearing its page: for a
//   16M-float add (a 64 MiB output) that cost as much as the op's own memory traffic, and for the
//   conv2d fwd+bwd benchmark at the MNIST CNN's second layer (outputs of 0.8-1.6 MiB, when the
//   threshold was 4 MiB) it was 56k faults in a 1 s run against libtorch's 22k, 10% of the time.
// - Mapping directly rather than through malloc: what glibc does with a freed block depends on its
//   dynamic mmap threshold (freeing a mapped chunk raises it, so later blocks come from the heap
//   and stay resident in it). The main job's peak RSS moved by 10-15% with unrelated changes
//   (packing one 0.8 MB weight raised it from 503-551 to 578-602 MiB); with mmap it is what the
//   cache decides.
// - Which block: the smallest capacity that fits, and of equal ones the one freed last (its lines
//   are the likeliest still in the caches). The cache was once searched so that among blocks of
//   one capacity the one freed *first* came back: a loop freeing and reallocating its output went
//   round all of them and its working set outgrew the L3 (the batch_norm evaluation benchmark:
//   0.27-0.30 ms alone, 0.46-0.74 ms after the training benchmark).
// - When a request misses, the cache gives back its oldest blocks until the footprint (live plus
//   cached large blocks, plus the new block) is within the peak of live large bytes seen so far
//   plus a slack of max(32 MiB, peak / 8). The slack is what a training step needs: its frees
//   and allocations do not pair up size for size, so serving a step from the cache takes a little
//   more than its live peak. The rule this replaced gave back n cached bytes on every miss (the
//   footprint never passed the live peak): in the main job each miss then evicted blocks that the
//   same step asked for later, and 18.9k of its 35.8k large allocations in an epoch missed (28 GB
//   of fresh pages had they been mapped; malloc's heap hid that). Replayed from a trace of the
//   epoch, the slack brings the misses to 106 (1.5 GB, mostly the test pass's 47 MiB blocks) for a
//   footprint peak of 453 MiB against 403 of live blocks; without any eviction on miss, 62 misses
//   and 545 MiB (blocks of the finished training phase stay).
// - The cache holds at most 256 MiB (EMBER_CPU_CACHE_MB; 0 turns it off and large blocks then come
//   from malloc); a block that would pass the bound is unmapped at once.
// Each block carries its capacity and mapping in a 64-byte header just before its data.
// Sanitizer builds keep plain malloc/free so that a use after free is caught.
//
// Note [Huge pages for large CPU blocks]
// With THP_MEM_ALLOC_ENABLE=1 in the environment (libtorch's switch for the same thing), a freshly
// mapped block of 2 MiB or more starts its data on a 2 MiB boundary and is advised MADV_HUGEPAGE,
// so that the kernel backs it with transparent huge pages where the system allows them (the
// "madvise" or "always" setting). It is off by default, as in libtorch: where memory is
// fragmented, the first faults of a huge page can stall in compaction (a 64 MiB output once took
// 180-440 ms here). In steady state it pays: 16M floats at one thread on the Zen 4 host
// (2026-12-05), add 6.8 -> 4.6 ms, mul 6.9 -> 4.7, exp 4.3 -> 3.5, sigmoid 4.8 -> 4.4, gelu
// 5.7 -> 5.3 (fewer TLB misses, and the hardware prefetchers run past 4 KiB boundaries), and the
// first touch of a 64 MiB output took 547 faults instead of 16388; the main job's epoch and peak
// RSS did not move.
constexpr size_t kLargeBlock = size_t{256} << 10;  // 256 KiB
constexpr size_t kLargeGranule = size_t{64} << 10;
constexpr size_t kMinSlack = size_t{32} << 20;
constexpr size_t kHugePage = size_t{2} << 20;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define EMBER_CPU_BLOCK_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define EMBER_CPU_BLOCK_CACHE 0
#endif
#endif
#if !defined(EMBER_CPU_BLOCK_CACHE) && !defined(__unix__)
#define EMBER_CPU_BLOCK_CACHE 0
#endif
#ifndef EMBER_CPU_BLOCK_CACHE
#define EMBER_CPU_BLOCK_CACHE 1
#endif

#if EMBER_CPU_BLOCK_CACHE
struct LargeHeader {
  size_t capacity;  // usable bytes after the header
  void* map;        // the mapping that holds header and data (munmap's range)
  size_t map_len;
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
  bool enabled() const { return limit_ != 0; }

  /// A block of at least n usable bytes, 64-byte aligned: from the cache or freshly mapped.
  /// Returns the mapping's base (the header); the data starts kAlignment bytes in.
  void* allocate(size_t n) {
    EMBER_CHECK(n <= (size_t{1} << 60), "[CPUAllocator] out of memory: cannot allocate ", n, " bytes");
    const size_t capacity = round_up(n + kAlignment, kLargeGranule) - kAlignment;
    std::vector<std::pair<void*, size_t>> release;
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = free_.lower_bound(capacity);
      if (it != free_.end() && it->first <= capacity + capacity / 8) {
        auto newest = std::prev(free_.upper_bound(it->first));  // equal keys keep insertion order
        void* base = newest->second.base;
        live_ += newest->first;
        cached_ -= newest->first;
        by_age_.erase(newest->second.stamp);
        free_.erase(newest);
        return base;
      }
      live_ += capacity;
      peak_live_ = std::max(peak_live_, live_);
      const size_t bound = peak_live_ + std::max(kMinSlack, peak_live_ / 8);
      while (!by_age_.empty() && live_ + cached_ > bound) {  // oldest first
        auto victim = by_age_.begin()->second;
        release.emplace_back(victim->second.base, victim->first);
        cached_ -= victim->first;
        by_age_.erase(by_age_.begin());
        free_.erase(victim);
      }
    }
    for (auto& [base, cap] : release) unmap(base);
    // Note [Huge pages for large CPU blocks]: then 2 MiB more, to place the data on a boundary.
    const bool huge = capacity >= kHugePage && huge_pages_requested();
    size_t len = capacity + kAlignment + (huge ? kHugePage : 0);
    char* map = static_cast<char*>(::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (map == MAP_FAILED) {
      std::lock_guard<std::mutex> g(mu_);
      live_ -= capacity;
      EMBER_CHECK(false, "[CPUAllocator] out of memory: failed to map ", n, " bytes (", std::strerror(errno), ")");
    }
    char* base = map;
    if (huge) {  // keep the header's page and the data's pages, give back the rest
      char* data = reinterpret_cast<char*>(round_up(reinterpret_cast<std::uintptr_t>(map) + kAlignment, kHugePage));
      base = data - kAlignment;
      const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
      char* first = reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(base) & ~std::uintptr_t{page - 1});
      char* end = reinterpret_cast<char*>(round_up(reinterpret_cast<std::uintptr_t>(data + capacity), page));
      if (first > map) ::munmap(map, static_cast<size_t>(first - map));
      if (map + len > end) ::munmap(end, static_cast<size_t>(map + len - end));
      map = first;
      len = static_cast<size_t>(end - first);
      ::madvise(data, capacity, MADV_HUGEPAGE);  // advice only: where it is refused, 4 KiB pages serve
    }
    auto* h = reinterpret_cast<LargeHeader*>(base);
    h->capacity = capacity;
    h->map = map;
    h->map_len = len;
    return base;
  }

  void release(void* base) {
    const size_t capacity = static_cast<const LargeHeader*>(base)->capacity;
    {
      std::lock_guard<std::mutex> g(mu_);
      live_ -= capacity;
      if (cached_ + capacity <= limit_) {
        auto it = free_.emplace(capacity, Entry{base, ++stamp_});
        by_age_.emplace(stamp_, it);
        cached_ += capacity;
        return;
      }
    }
    unmap(base);
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
  static size_t round_up(size_t n, size_t g) { return (n + g - 1) & ~(g - 1); }
  static void unmap(void* base) {
    const auto* h = static_cast<const LargeHeader*>(base);
    ::munmap(h->map, h->map_len);
  }
  // Read at each fresh mapping (not once), so that a process can turn it on after start.
  static bool huge_pages_requested() {
#if defined(MADV_HUGEPAGE)
    const char* e = std::getenv("THP_MEM_ALLOC_ENABLE");
    return e && std::strcmp(e, "1") == 0;
#else
    return false;
#endif
  }

  struct Entry {
    void* base;
    uint64_t stamp;  // when it was freed (a count of frees)
  };
  using FreeMap = std::multimap<size_t, Entry>;  // capacity -> block
  std::mutex mu_;
  FreeMap free_;
  std::map<uint64_t, FreeMap::iterator> by_age_;  // stamp -> entry: eviction order
  uint64_t stamp_ = 0;
  size_t cached_ = 0;     // bytes of free blocks held
  size_t live_ = 0;       // bytes of large blocks handed out and not yet freed
  size_t peak_live_ = 0;  // the most live_ has been
  size_t limit_ = size_t{256} << 20;
};

void large_free(void* base) { LargeBlockCache::get().release(base); }
#endif

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
    if (nbytes >= kLargeBlock && LargeBlockCache::get().enabled()) {  // Note [Large CPU block cache]
      void* base = LargeBlockCache::get().allocate(nbytes);
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
