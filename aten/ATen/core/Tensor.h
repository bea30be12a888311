#pragma once
// at::Tensor: a reference-counted handle to a TensorImpl. Copying a Tensor shares the data;
// the storage is freed when the last handle (tensor or view) goes away.
//
// The operator methods (t.add(u), t.sum(), ...) are generated from ops.yaml into
// <ATen/core/TensorMethodDecls.inc> (declarations inside the class) and <ATen/core/TensorMethods.inc>.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/Scalar.h>
#include <c10/core/TensorImpl.h>
#include <c10/core/TensorOptions.h>
#include <functional>
#include <memory>
#include <ATen/Generator.h>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace c10::cuda {
class CUDAStream;
}  // namespace c10::cuda

namespace c10 {
/// libtorch's c10::List for the op signatures that take `Tensor?[]`; the initializer-list
/// constructor is explicit so that `t.index({...})` picks the indexing API.
template <typename T>
class List : public std::vector<T> {
 public:
  using std::vector<T>::vector;
  List() = default;
  explicit List(std::initializer_list<T> il) : std::vector<T>(il) {}
};
using string_view = std::string_view;
}  // namespace c10

namespace torch::autograd { struct Node; }

namespace at {
class Tensor;
using TensorList = ArrayRef<Tensor>;
using ITensorListRef = ArrayRef<Tensor>;
namespace indexing { struct TensorIndex; }
template <typename T, size_t N> class TensorAccessor;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(c10::intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(const Tensor& o) & { impl_ = o.impl_; return *this; }
  Tensor& operator=(Tensor&& o) & noexcept { impl_ = std::move(o.impl_); return *this; }
  /// `t.index(...) = other` / `t[0] = other`: copies into the view (libtorch semantics).
  Tensor& operator=(const Tensor& src) &&;
  Tensor& operator=(Tensor&& src) &&;
  /// `t[0] = 1.5`: fills the view.
  Tensor& operator=(const Scalar& v) &&;

  bool defined() const { return static_cast<bool>(impl_); }
  void reset() { impl_.reset(); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const c10::intrusive_ptr<TensorImpl>& getIntrusivePtr() const { return impl_; }
  size_t use_count() const { return impl_.use_count(); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  int64_t dim() const { return impl()->dim(); }
  int64_t ndimension() const { return dim(); }
  IntArrayRef sizes() const { return impl()->sizes(); }
  IntArrayRef strides() const { return impl()->strides(); }
  /// Size of dim `d` (negative counts from the end).
  int64_t size(int64_t d) const { return impl()->size(d); }
  int64_t stride(int64_t d) const { return impl()->stride(d); }
  int64_t numel() const { return impl()->numel(); }
  int64_t storage_offset() const { return impl()->storage_offset(); }
  ScalarType scalar_type() const { return impl()->dtype(); }
  /// As libtorch: a TypeMeta, which prints as the element type ("float") and compares with kFloat.
  caffe2::TypeMeta dtype() const { return caffe2::TypeMeta::fromScalarType(impl()->dtype()); }
  Device device() const { return impl()->device(); }
  int64_t get_device() const { return device().is_cuda() ? device().index() : -1; }
  Layout layout() const { return Layout::Strided; }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_meta() const { return device().is_meta(); }
  bool is_privateuseone() const { return device().is_privateuseone(); }
  /// This tensor on the CPU (itself when it is there already), as libtorch's Tensor::cpu().
  Tensor cpu() const;
  /// This tensor on the current CUDA device (itself when it is there already).
  Tensor cuda() const;
  /// A copy of this CPU tensor in page-locked host memory (the caching pinned allocator), so that
  /// non_blocking copies to a CUDA device are asynchronous. Raises without CUDA or a device.
  Tensor pin_memory(std::optional<c10::Device> device = std::nullopt) const;
  /// True when this tensor's data is in page-locked host memory.
  bool is_pinned(std::optional<c10::Device> device = std::nullopt) const;
  /// Marks this CUDA tensor's memory as used by `stream`: the caching allocator does not hand it
  /// out again until the work queued on `stream` so far has finished.
  void record_stream(const c10::cuda::CUDAStream& stream) const;
  bool is_sparse() const { return false; }
  bool is_mkldnn() const { return false; }
  bool is_floating_point() const { return c10::isFloatingType(scalar_type()); }
  bool is_complex() const { return false; }
  /// libtorch's older spelling of to(dtype).
  Tensor toType(ScalarType t) const;
  bool is_signed() const { return c10::isSignedType(scalar_type()); }
  /// True when the elements are laid out densely in row-major order.
  bool is_contiguous(MemoryFormat fmt = MemoryFormat::Contiguous) const;
  bool is_non_overlapping_and_dense() const { return impl()->is_non_overlapping_and_dense(); }
  size_t element_size() const { return impl()->itemsize(); }
  size_t itemsize() const { return impl()->itemsize(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(); }
  const Storage& storage() const { return impl()->storage(); }
  bool is_alias_of(const Tensor& o) const { return storage().is_alias_of(o.storage()); }
  TensorOptions options() const { return TensorOptions().dtype(scalar_type()).device(device()); }
  uint32_t _version() const { return impl()->version(); }

  /// Raw pointer to the first element; `data_ptr<float>()` checks the dtype.
  /// (A mutable pointer counts as a write to the storage and marks it escaped: Note [Storage write
  /// generation].)
  void* data_ptr() const { note_escape(); return impl()->data(); }
  const void* const_data_ptr() const { return impl()->data(); }
  void* mutable_data_ptr() const { note_escape(); return impl()->data(); }
  template <typename T> T* data_ptr() const { note_escape(); return const_cast<T*>(const_data_ptr<T>()); }
  template <typename T> const T* const_data_ptr() const;
  template <typename T> T* mutable_data_ptr() const { return data_ptr<T>(); }
  /// Ember-internal: the mutable pointer for a kernel that writes within the op it runs and keeps
  /// nothing; it counts as a write but not as an escape (Note [Storage write generation]).
  void* _mutable_data_ptr_internal() const { note_write(); return impl()->data(); }
  template <typename T> T* _mutable_data_ptr_internal() const {
    note_write();
    return const_cast<T*>(const_data_ptr<T>());
  }
  /// The value of a one-element tensor.
  Scalar item() const;
  template <typename T> T item() const { return item().to<T>(); }
  /// A view that indexes a CPU tensor without bounds checks: `auto a = t.accessor<float, 2>(); a[i][j]`.
  template <typename T, size_t N> TensorAccessor<T, N> accessor() const&;

  // ---- autograd (implemented in autograd/; see torch/csrc/autograd/variable.h) ----
  bool requires_grad() const { return impl()->requires_grad(); }
  /// True for tensors not produced by a recorded op (user-created, or requires_grad == false).
  bool is_leaf() const;
  bool is_inference() const { return false; }
  /// Computes the gradient of this tensor w.r.t. graph leaves (libtorch semantics).
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                std::optional<TensorList> inputs = std::nullopt) const;
  /// The accumulated gradient (undefined until a backward reaches this leaf).
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  /// Sets requires_grad on a leaf; returns *this.
  const Tensor& requires_grad_(bool requires_grad = true) const;
  Tensor& set_requires_grad(bool requires_grad);
  /// Makes a non-leaf keep its .grad() after backward.
  void retain_grad() const;
  bool retains_grad() const;
  /// The Node that produced this tensor (null for leaves).
  const std::shared_ptr<torch::autograd::Node>& grad_fn() const;
  uint32_t output_nr() const;
  /// Registers a hook called with this tensor's gradient; a hook returning a tensor replaces it.
  template <typename F> unsigned register_hook(F&& hook) const {
    if constexpr (std::is_void_v<std::invoke_result_t<F, Tensor>>)
      return _register_hook([h = std::forward<F>(hook)](const Tensor& g) { h(g); return Tensor(); });
    else
      return _register_hook([h = std::forward<F>(hook)](const Tensor& g) { return Tensor(h(g)); });
  }
  unsigned _register_hook(std::function<Tensor(const Tensor&)> hook) const;
  /// A view of the same data that does not require grad (shares the version counter).
  Tensor detach() const;
  Tensor& detach_();
  /// Same data, detached from the graph (libtorch's .data()).
  /// The same data without history and with a version counter of its own: in-place updates
  /// through it (optimizer steps) do not invalidate tensors saved for backward (libtorch's .data()).
  Tensor data() const {
    Tensor d = detach();
    d.unsafeGetTensorImpl()->set_own_version_counter();
    return d;
  }
  bool is_view() const;
  const Tensor& _base() const;

  /// libtorch's indexing API: `t.index({Slice(0, 2), 0, None, "..."})`.
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs);
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& rhs);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& v);
  Tensor operator[](int64_t i) const;
  Tensor operator[](const Tensor& i) const;
  Tensor operator[](const Scalar& i) const { return (*this)[i.toLong()]; }

  Tensor operator-() const;
  Tensor operator~() const;
  Tensor& operator+=(const Tensor& o);
  Tensor& operator+=(const Scalar& o);
  Tensor& operator-=(const Tensor& o);
  Tensor& operator-=(const Scalar& o);
  Tensor& operator*=(const Tensor& o);
  Tensor& operator*=(const Scalar& o);
  Tensor& operator/=(const Tensor& o);
  Tensor& operator/=(const Scalar& o);

  /// libtorch's C++-only overloads: a plain int is a dim to reduce over (unbiased, keepdim false).
  /// Without them `x.std(1)` would take the int as `bool unbiased` and reduce over everything.
  Tensor std(int dim) const;
  Tensor var(int dim) const;

  /// The repr libtorch prints: values, then `[ CPUFloatType{2,3} ]`.
  std::string toString() const;
  void print() const;

  // ---- generated operator methods ----
#include <ATen/core/TensorMethodDecls.inc>

 private:
  TensorImpl* impl() const {
    EMBER_CHECK(impl_, "[Tensor] called a method on an undefined tensor");
    return impl_.get();
  }
  void note_write() const {
    if (c10::StorageImpl* s = impl()->storage().unsafeGetStorageImpl()) s->note_write();
  }
  void note_escape() const {
    if (c10::StorageImpl* s = impl()->storage().unsafeGetStorageImpl()) s->note_escape();
  }
  c10::intrusive_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

template <typename T>
const T* Tensor::const_data_ptr() const {
  EMBER_CHECK(c10::CppTypeToScalarType<std::remove_const_t<T>>::value == scalar_type(),
              "[data_ptr] expected a tensor of dtype ", c10::dtypeName(c10::CppTypeToScalarType<std::remove_const_t<T>>::value),
              "; got ", c10::dtypeName(scalar_type()));
  return static_cast<const T*>(impl()->data());
}

/// Creates a tensor with fresh storage of the given sizes (contiguous), dtype and device.
Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device);
/// Creates a tensor with fresh storage laid out with the given strides (no bounds checks).
Tensor make_empty_strided_raw(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device);
/// Creates a tensor sharing `base`'s storage with new sizes/strides/offset (a view).
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
/// Wraps a Scalar in a 0-dim CPU tensor marked as a wrapped number (for type promotion).
Tensor scalar_to_tensor(const Scalar& s, Device device = kCPU);
/// Bumps the shared version counter after an in-place write.
inline void bump_version(const Tensor& t) { t.unsafeGetTensorImpl()->bump_version(); }

}  // namespace at

#include <ATen/Functions.h>
#include <ATen/core/TensorMethods.inc>
#include <ATen/TensorOperators.h>

namespace at {
inline Tensor Tensor::operator-() const { return neg(); }
inline Tensor Tensor::operator~() const { return bitwise_not(); }
inline Tensor& Tensor::operator+=(const Tensor& o) { return add_(o); }
inline Tensor& Tensor::operator+=(const Scalar& o) { return add_(o); }
inline Tensor& Tensor::operator-=(const Tensor& o) { return sub_(o); }
inline Tensor& Tensor::operator-=(const Scalar& o) { return sub_(o); }
inline Tensor& Tensor::operator*=(const Tensor& o) { return mul_(o); }
inline Tensor& Tensor::operator*=(const Scalar& o) { return mul_(o); }
inline Tensor& Tensor::operator/=(const Tensor& o) { return div_(o); }
inline Tensor& Tensor::operator/=(const Scalar& o) { return div_(o); }
inline Tensor& Tensor::operator=(const Tensor& src) && { copy_(src); return *this; }
inline Tensor& Tensor::operator=(Tensor&& src) && { copy_(src); return *this; }
inline Tensor& Tensor::operator=(const Scalar& v) && { fill_(v); return *this; }
inline Tensor Tensor::toType(ScalarType t) const { return to(t); }
inline Tensor Tensor::std(int dim) const { return std(IntArrayRef{static_cast<int64_t>(dim)}); }
inline Tensor Tensor::var(int dim) const { return var(IntArrayRef{static_cast<int64_t>(dim)}); }
inline Tensor std(const Tensor& self, int dim) { return self.std(dim); }
inline Tensor var(const Tensor& self, int dim) { return self.var(dim); }
}  // namespace at

EMBER_PUBLIC_END
