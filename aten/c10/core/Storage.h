#pragma once
// StorageImpl: one allocation shared by a tensor and all of its views. It also holds the
// version counter, so views share it for free (see Note [Version counter lives in storage]).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/Allocator.h>
#include <c10/util/intrusive_ptr.h>

namespace c10 {

// Note [Version counter lives in storage]
// Autograd needs one version counter shared by a tensor and every view of it (an in-place op on
// any of them invalidates saved copies of the others). All views share one StorageImpl, so the
// counter is kept there: no extra allocation per tensor, and sharing is automatic. detach() shares
// storage and, like libtorch, the counter.

// Note [Storage write generation]: a cache of data derived from a tensor's contents (the CPU
// linear's prepacked weights, Note [Prepacked linear weights]) must know when the contents may have
// changed, and the version counter cannot say: Tensor::data() gives a tensor of the same storage
// with a counter of its own, and raw pointers bump nothing. So each storage also has `writes_`,
// which every version bump of any tensor on it advances (in-place and out= ops, through whatever
// alias) and so does every mutable pointer handed out: a pointer someone could write through
// counts as a write. const_data_ptr does not. A pointer can also be kept and written through later,
// after the cache has looked, so a mutable pointer handed out through the public accessors
// (Tensor::data_ptr, mutable_data_ptr, accessor, Storage::mutable_data) also marks the storage
// `escaped_` for good, and the caches never derive data from an escaped storage. The library's own
// code uses a pointer only within the op or call that took it, so it takes its pointers through
// const_data_ptr or Tensor::_mutable_data_ptr_internal (a write, not an escape).
// `uid_` names the storage for the process's lifetime (addresses are reused, uids are not); it is
// drawn from a process-wide counter the first time uid() is asked for (an atomic increment per
// storage cost ~4% of a 1-element op), and a storage with derived data (`has_derived_`) tells the
// caches when it goes.
struct StorageImpl : intrusive_ptr_target {
  StorageImpl(size_t nbytes, DataPtr data, Allocator* alloc, bool resizable)
      : data_ptr_(std::move(data)), nbytes_(nbytes), allocator_(alloc), resizable_(resizable) {}
  ~StorageImpl() override {
    if (has_derived_.load(std::memory_order_acquire)) release_derived(uid());
  }
  void note_write() { writes_.fetch_add(1, std::memory_order_relaxed); }
  /// A mutable pointer went to code that may keep it (Note [Storage write generation]).
  void note_escape() {
    if (!escaped_.load(std::memory_order_relaxed)) escaped_.store(true, std::memory_order_relaxed);
    note_write();
  }
  bool escaped() const { return escaped_.load(std::memory_order_relaxed); }
  uint64_t writes() const { return writes_.load(std::memory_order_relaxed); }
  uint64_t uid() const {
    const uint64_t u = uid_.load(std::memory_order_acquire);
    return u != 0 ? u : assign_uid();
  }
  /// Called by a cache that keeps data derived from this storage: release_derived(uid) runs when it is freed.
  void mark_derived() { has_derived_.store(true, std::memory_order_release); }
  /// The caches' hook for freed storages (one per process; nullptr: none).
  static void set_release_derived_hook(void (*hook)(uint64_t uid));

  DataPtr data_ptr_;
  size_t nbytes_;
  Allocator* allocator_;
  bool resizable_;  // false for memory the library does not own (from_blob, DLPack, mappings)
  std::atomic<uint32_t> version_{0};

 private:
  uint64_t assign_uid() const;  // draws a uid unless another thread just did; returns the one kept
  static void release_derived(uint64_t uid);
  std::atomic<uint64_t> writes_{0};
  std::atomic<bool> escaped_{false};
  mutable std::atomic<uint64_t> uid_{0};  // 0: not drawn yet
  std::atomic<bool> has_derived_{false};
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
  void* mutable_data() const { impl_->note_escape(); return impl_->data_ptr_.get(); }
  /// For the library's own code that writes within an op: a write, not an escape.
  void* _mutable_data_internal() const { impl_->note_write(); return impl_->data_ptr_.get(); }
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

EMBER_PUBLIC_END
