#pragma once
// The allocator interface (c10's Allocator.h in miniature): allocate(n) -> DataPtr, a move-only
// owning pointer that carries its deleter and device.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/Device.h>
#include <cstddef>
#include <utility>

namespace c10 {

using DeleterFnPtr = void (*)(void*);

/// Owns one allocation: `ptr` is the data, `ctx` what the deleter receives.
class DataPtr {
 public:
  DataPtr() : ptr_(nullptr), ctx_(nullptr), deleter_(nullptr), device_(DeviceType::CPU) {}
  DataPtr(void* ptr, Device device) : ptr_(ptr), ctx_(nullptr), deleter_(nullptr), device_(device) {}
  DataPtr(void* ptr, void* ctx, DeleterFnPtr deleter, Device device)
      : ptr_(ptr), ctx_(ctx), deleter_(deleter), device_(device) {}
  DataPtr(DataPtr&& o) noexcept : ptr_(o.ptr_), ctx_(o.ctx_), deleter_(o.deleter_), device_(o.device_) {
    o.ptr_ = o.ctx_ = nullptr; o.deleter_ = nullptr;
  }
  DataPtr& operator=(DataPtr&& o) noexcept {
    if (this != &o) { clear(); ptr_ = o.ptr_; ctx_ = o.ctx_; deleter_ = o.deleter_; device_ = o.device_;
      o.ptr_ = o.ctx_ = nullptr; o.deleter_ = nullptr; }
    return *this;
  }
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  ~DataPtr() { clear(); }

  void* get() const { return ptr_; }
  void* get_context() const { return ctx_; }
  DeleterFnPtr get_deleter() const { return deleter_; }
  Device device() const { return device_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  void clear() { if (deleter_) deleter_(ctx_); ptr_ = ctx_ = nullptr; deleter_ = nullptr; }

 private:
  void* ptr_;
  void* ctx_;
  DeleterFnPtr deleter_;
  Device device_;
};

/// A source of device memory. Implementations: the CPU allocator (64-byte aligned) and the CUDA
/// caching allocator.
struct Allocator {
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
  /// Copies `n` bytes between two allocations of this allocator's device.
  virtual void copy_data(void* dst, const void* src, size_t n) const = 0;
};

/// The allocator registered for a device type (the CPU one always exists; CUDA's when built with CUDA).
Allocator* GetAllocator(DeviceType t);
/// Replaces the allocator of a device type (for embedding applications and tests).
void SetAllocator(DeviceType t, Allocator* alloc);
Allocator* GetCPUAllocator();

}  // namespace c10

EMBER_PUBLIC_END
