// The CPU allocator (64-byte aligned, for AVX-512 loads and cache lines) and the per-device registry.
#include <c10/core/Allocator.h>
#include <c10/core/Storage.h>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace c10 {
namespace {

constexpr size_t kAlignment = 64;

void cpu_free(void* p) { std::free(p); }

struct CPUAllocator final : Allocator {
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
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
