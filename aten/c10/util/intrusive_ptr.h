#pragma once
// Intrusive reference counting: the count lives in the object, so a TensorImpl is one allocation
// and the last reference frees it at once (paper §5.5: "memory freed the moment the last
// reference goes").
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <atomic>
#include <cstdint>
#include <utility>

namespace c10 {

template <typename T> class intrusive_ptr;
template <typename T, typename... Args> intrusive_ptr<T> make_intrusive(Args&&... args);

/// Base class of every intrusively counted object.
class intrusive_ptr_target {
 public:
  intrusive_ptr_target() = default;
  intrusive_ptr_target(const intrusive_ptr_target&) : refcount_(0) {}
  intrusive_ptr_target& operator=(const intrusive_ptr_target&) { return *this; }
  virtual ~intrusive_ptr_target() = default;
  uint32_t use_count() const { return refcount_.load(std::memory_order_acquire); }

 private:
  template <typename T> friend class intrusive_ptr;
  template <typename T, typename... A> friend intrusive_ptr<T> make_intrusive(A&&...);
  mutable std::atomic<uint32_t> refcount_{0};
};

/// Owning pointer to an intrusive_ptr_target.
template <typename T>
class intrusive_ptr {
 public:
  intrusive_ptr() noexcept : p_(nullptr) {}
  intrusive_ptr(std::nullptr_t) noexcept : p_(nullptr) {}
  /// Takes ownership of a freshly created object (refcount 0 -> 1).
  explicit intrusive_ptr(T* p) noexcept : p_(p) { if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed); }
  intrusive_ptr(const intrusive_ptr& o) noexcept : p_(o.p_) { retain(); }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U>
  intrusive_ptr(intrusive_ptr<U>&& o) noexcept : p_(o.release()) {}
  template <typename U>
  intrusive_ptr(const intrusive_ptr<U>& o) noexcept : p_(o.get()) { retain(); }
  ~intrusive_ptr() { reset(); }
  intrusive_ptr& operator=(const intrusive_ptr& o) noexcept { intrusive_ptr(o).swap(*this); return *this; }
  intrusive_ptr& operator=(intrusive_ptr&& o) noexcept { intrusive_ptr(std::move(o)).swap(*this); return *this; }

  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }
  void reset() noexcept {
    if (p_) {
      // Sole owner: nobody else can take a reference (there are no weak pointers), so skip the
      // atomic read-modify-write -- the common case for temporaries on the per-op hot path.
      if (p_->refcount_.load(std::memory_order_acquire) == 1 ||
          p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1)
        delete p_;
    }
    p_ = nullptr;
  }
  /// Gives up ownership without decrementing.
  T* release() noexcept { T* p = p_; p_ = nullptr; return p; }
  uint32_t use_count() const noexcept { return p_ ? p_->use_count() : 0; }
  bool operator==(const intrusive_ptr& o) const { return p_ == o.p_; }
  bool operator!=(const intrusive_ptr& o) const { return p_ != o.p_; }

  /// Adopts a pointer that release() gave up (refcount unchanged).
  static intrusive_ptr reclaim(T* p) { intrusive_ptr r; r.p_ = p; return r; }

 private:
  void retain() noexcept { if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed); }
  T* p_;
};

template <typename T, typename... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  T* p = new T(std::forward<Args>(args)...);
  p->refcount_.store(1, std::memory_order_relaxed);  // not yet shared: no read-modify-write needed
  return intrusive_ptr<T>::reclaim(p);
}

}  // namespace c10

EMBER_PUBLIC_END
