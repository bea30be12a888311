// The CPU allocator (64-byte aligned, for AVX-512 loads and cache lines) and the per-device registry.
#include <c10/core/Allocator.h>
#include <c10/core/Storage.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#if defined(__linux__)
#include <sys/mman.h>
#endif

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

// Note [Huge pages for large CPU blocks]
// A large fresh output (64 MiB for a 16M-float add) is mapped by glibc on allocation and unmapped
// on free, so every op writing one takes a page fault per 4 KiB page: 16k faults, each clearing
// its page, which cost as much as the op's own memory traffic (a standalone loop of allocate,
// a + 1 into it, free: 33-40 ms a round with 4 KiB pages, 22-24 ms with 2 MiB ones). Blocks of
// kHugeBlock bytes or more are therefore 2 MiB aligned, rounded up to whole 2 MiB pages (at most
// a third more than asked), and advised MADV_HUGEPAGE, which Linux honours when transparent huge
// pages are "always" or "madvise" (the common default). EMBER_CPU_HUGE_PAGES=0 turns it off.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeBlock = size_t{4} << 20;

bool huge_pages_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("EMBER_CPU_HUGE_PAGES");
    return !(e && e[0] == '0' && e[1] == '\0');
  }();
  return on;
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
#if defined(__linux__)
    if (nbytes >= kHugeBlock && huge_pages_enabled()) {  // Note [Huge pages for large CPU blocks]
      const size_t n = (nbytes + kHugePage - 1) & ~(kHugePage - 1);
      void* p = std::aligned_alloc(kHugePage, n);
      EMBER_CHECK(p != nullptr, "[CPUAllocator] out of memory: failed to allocate ", nbytes, " bytes");
      (void)madvise(p, n, MADV_HUGEPAGE);  // advice only: where THP is off this changes nothing
      return DataPtr(p, p, &cpu_free, Device(DeviceType::CPU));
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
std::atomic<Allocator*> g_allocators[2] = {&g_cpu_allocator, nullptr};

}  // namespace

Allocator* GetCPUAllocator() { return g_allocators[0].load(std::memory_order_relaxed); }
Allocator* GetAllocator(DeviceType t) {
  Allocator* a = g_allocators[static_cast<int>(t)].load(std::memory_order_relaxed);
  EMBER_CHECK(a != nullptr, "[allocator] no allocator for device type ", t,
              t == DeviceType::CUDA ? " (Ember was built without CUDA or no CUDA device is present)" : "");
  return a;
}
void SetAllocator(DeviceType t, Allocator* alloc) { g_allocators[static_cast<int>(t)].store(alloc); }

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
