#pragma once
// StorageImpl: one allocation shared by a tensor and all of its views. It also holds the
// version counter, so views share it for free (see Note [Version counter lives in storage]).
#include <c10/core/Allocator.h>
#include <c10/util/intrusive_ptr.h>

namespace c10 {

// Note [Version counter lives in storage]
// Autograd needs one version counter shared by a tensor and every view of it (an in-place op on
// any of them invalidates saved copies of the others). All views share one StorageImpl, so the
// counter is kept there: no extra allocation per tensor, and sharing is automatic. detach() shares
// storage and, like libtorch, the counter.

struct StorageImpl : intrusive_ptr_target {
  StorageImpl(size_t nbytes, DataPtr data, Allocator* alloc, bool resizable)
      : data_ptr_(std::move(data)), nbytes_(nbytes), allocator_(alloc), resizable_(resizable) {}
  DataPtr data_ptr_;
  size_t nbytes_;
  Allocator* allocator_;
  bool resizable_;
  std::atomic<uint32_t> version_{0};
};

/// A handle to a StorageImpl.
class Storage {
 public:
  Storage() = default;
  explicit Storage(intrusive_ptr<StorageImpl> impl) : impl_(std::move(impl)) {}
  /// Allocates `nbytes` with `alloc`.
  static Storage allocate(size_t nbytes, Allocator* alloc) {
    return Storage(make_intrusive<StorageImpl>(nbytes, alloc->allocate(nbytes), alloc, true));
  }
  void* data() const { return impl_->data_ptr_.get(); }
  void* mutable_data() const { return impl_->data_ptr_.get(); }
  size_t nbytes() const { return impl_ ? impl_->nbytes_ : 0; }
  Device device() const { return impl_->data_ptr_.device(); }
  bool defined() const { return static_cast<bool>(impl_); }
  StorageImpl* unsafeGetStorageImpl() const { return impl_.get(); }
  bool is_alias_of(const Storage& o) const { return impl_ == o.impl_; }
  uint32_t use_count() const { return impl_.use_count(); }
  /// Grows the allocation to at least `nbytes`, keeping the old contents.
  void resize(size_t nbytes);

 private:
  intrusive_ptr<StorageImpl> impl_;
};

}  // namespace c10
