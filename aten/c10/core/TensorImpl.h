#pragma once
// TensorImpl: the strided view of a Storage (sizes, strides, offset, dtype, device) plus the
// autograd slot. Intrusively counted; see Note [Version counter lives in storage].
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/ScalarType.h>
#include <c10/core/Storage.h>
#include <c10/util/ArrayRef.h>
#include <cstring>
#include <memory>

namespace c10 {

/// Sizes and strides with inline room for 5 dims (no heap allocation for typical tensors).
class SizesAndStrides {
 public:
  static constexpr size_t kInline = 5;
  SizesAndStrides() : dim_(1) { inline_[0] = 0; inline_[kInline] = 1; }
  SizesAndStrides(const SizesAndStrides& o) : dim_(0) { copy_from(o); }
  SizesAndStrides& operator=(const SizesAndStrides& o) { if (this != &o) copy_from(o); return *this; }
  ~SizesAndStrides() { if (!is_inline()) delete[] heap_; }

  size_t dim() const { return dim_; }
  int64_t* sizes() { return is_inline() ? inline_ : heap_; }
  int64_t* strides() { return is_inline() ? inline_ + kInline : heap_ + dim_; }
  const int64_t* sizes() const { return is_inline() ? inline_ : heap_; }
  const int64_t* strides() const { return is_inline() ? inline_ + kInline : heap_ + dim_; }
  /// Changes the rank; contents are unspecified afterwards.
  void resize(size_t d) {
    if (d == dim_) return;
    if (!is_inline()) delete[] heap_;
    dim_ = d;
    if (!is_inline()) heap_ = new int64_t[2 * d];
  }

 private:
  bool is_inline() const { return dim_ <= kInline; }
  void copy_from(const SizesAndStrides& o) {
    resize(o.dim_);
    std::memcpy(sizes(), o.sizes(), dim_ * sizeof(int64_t));
    std::memcpy(strides(), o.strides(), dim_ * sizeof(int64_t));
  }
  size_t dim_;
  union { int64_t inline_[2 * kInline]; int64_t* heap_; };
};

/// What autograd attaches to a tensor (defined by autograd/; an empty interface here).
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
};

enum class Layout : int8_t { Strided = 0 };
constexpr Layout kStrided = Layout::Strided;

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

/// A version counter that is not the storage's (see TensorImpl::set_own_version_counter).
struct VersionCounter : intrusive_ptr_target {
  std::atomic<uint32_t> value{0};
};

class TensorImpl : public intrusive_ptr_target {
 public:
  TensorImpl(Storage storage, ScalarType dtype);
  ~TensorImpl() override;

  int64_t dim() const { return static_cast<int64_t>(ss_.dim()); }
  IntArrayRef sizes() const { return IntArrayRef(ss_.sizes(), ss_.dim()); }
  IntArrayRef strides() const { return IntArrayRef(ss_.strides(), ss_.dim()); }
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  size_t itemsize() const { return elementSize(dtype_); }
  Device device() const { return device_; }
  bool is_contiguous() const { return is_contiguous_; }
  bool is_non_overlapping_and_dense() const;
  const Storage& storage() const { return storage_; }
  /// Start of this tensor's elements (storage base + offset); null where the storage has no data
  /// (meta tensors: no arithmetic on a null pointer).
  void* data() const {
    char* base = static_cast<char*>(storage_.data());
    return base ? base + storage_offset_ * static_cast<int64_t>(itemsize()) : nullptr;
  }

  /// Sets a contiguous layout of the given sizes (does not touch storage).
  void set_sizes_contiguous(IntArrayRef sizes);
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides);
  void set_storage_offset(int64_t off) { storage_offset_ = off; }
  void set_storage(Storage s) { storage_ = std::move(s); device_ = storage_.device(); }
  void set_dtype(ScalarType t) { dtype_ = t; }

  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool v) { is_wrapped_number_ = v; }

  // Autograd slot (filled by autograd/).
  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m);
  bool requires_grad() const { return autograd_meta_ && autograd_meta_->requires_grad(); }

  /// The version counter: the storage's, shared by every view of it, unless this tensor has its own
  /// (Tensor::data() gives one, so optimizer updates through it do not invalidate saved tensors).
  uint32_t version() const {
    return (own_version_ ? own_version_->value : storage_.unsafeGetStorageImpl()->version_).load(std::memory_order_relaxed);
  }
  void bump_version() {
    (own_version_ ? own_version_->value : storage_.unsafeGetStorageImpl()->version_).fetch_add(1, std::memory_order_relaxed);
    if (StorageImpl* s = storage_.unsafeGetStorageImpl()) s->note_write();  // Note [Storage write generation]
  }
  /// Restarts the storage's counter at 0: only for a tensor that was just made and filled through
  /// in-place ops, before anyone else saw its storage (factories, clone: libtorch reports 0).
  void reset_version_of_new_tensor() {
    if (!own_version_) storage_.unsafeGetStorageImpl()->version_.store(0, std::memory_order_relaxed);
  }
  /// Gives this tensor a fresh counter of its own, starting at 0.
  void set_own_version_counter() { own_version_ = make_intrusive<VersionCounter>(); }
  /// Shares `other`'s counter (views of a tensor with its own counter share that one).
  void share_version_counter(const TensorImpl& other) { own_version_ = other.own_version_; }

  /// Recomputes numel and contiguity after sizes/strides changed.
  void refresh();

 private:
  Storage storage_;
  SizesAndStrides ss_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 0;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  intrusive_ptr<VersionCounter> own_version_;  // null: the storage's counter
  ScalarType dtype_;
  Device device_;
  bool is_contiguous_ = true;
  bool is_wrapped_number_ = false;
};

// Keep the hot structure small: a cache line and a half at most.
static_assert(sizeof(TensorImpl) <= 160, "TensorImpl grew; check field layout");

}  // namespace c10

namespace at {
using c10::Layout; using c10::kStrided; using c10::MemoryFormat; using c10::TensorImpl; using c10::Storage;
}

EMBER_PUBLIC_END
