#pragma once
// TensorOptions: the dtype / device / layout / requires_grad bundle that factory functions take.
//   torch::zeros({2, 3}, torch::dtype(torch::kFloat).device(torch::kCPU))
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/typeid.h>
#include <optional>

namespace c10 {

/// The dtype factories use when none is given (torch.get_default_dtype()).
ScalarType get_default_dtype();
void set_default_dtype(ScalarType t);

struct TensorOptions {
  TensorOptions() = default;
  TensorOptions(ScalarType t) { dtype_ = t; }
  TensorOptions(caffe2::TypeMeta m) { dtype_ = m.toScalarType(); }
  TensorOptions(Device d) { device_ = d; }
  TensorOptions(DeviceType d) { device_ = Device(d); }
  TensorOptions(Layout l) { layout_ = l; }

  TensorOptions dtype(std::optional<ScalarType> t) const { auto r = *this; r.dtype_ = t; return r; }
  TensorOptions dtype(caffe2::TypeMeta m) const { return dtype(m.toScalarType()); }
  template <typename T> TensorOptions dtype() const { return dtype(CppTypeToScalarType<T>::value); }
  TensorOptions device(std::optional<Device> d) const { auto r = *this; r.device_ = d; return r; }
  TensorOptions device(DeviceType t, DeviceIndex i = -1) const { return device(Device(t, i)); }
  TensorOptions device_index(DeviceIndex i) const { return device(Device(DeviceType::CUDA, i)); }
  TensorOptions layout(std::optional<Layout> l) const { auto r = *this; r.layout_ = l; return r; }
  TensorOptions requires_grad(std::optional<bool> b) const { auto r = *this; r.requires_grad_ = b; return r; }
  TensorOptions pinned_memory(std::optional<bool> b) const { auto r = *this; r.pinned_ = b; return r; }
  TensorOptions memory_format(std::optional<MemoryFormat> m) const { auto r = *this; r.memory_format_ = m; return r; }

  /// As libtorch: a TypeMeta (use scalar_type() or dtype().toScalarType() for the enum).
  caffe2::TypeMeta dtype() const { return caffe2::TypeMeta::fromScalarType(scalar_type()); }
  ScalarType scalar_type() const { return dtype_.value_or(get_default_dtype()); }
  Device device() const { return device_.value_or(Device(DeviceType::CPU)); }
  Layout layout() const { return layout_.value_or(Layout::Strided); }
  bool requires_grad() const { return requires_grad_.value_or(false); }
  bool pinned_memory() const { return pinned_.value_or(false); }
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  bool has_requires_grad() const { return requires_grad_.has_value(); }
  std::optional<caffe2::TypeMeta> dtype_opt() const {
    if (!dtype_) return std::nullopt;
    return caffe2::TypeMeta::fromScalarType(*dtype_);
  }
  std::optional<ScalarType> scalar_type_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<Layout> layout_opt() const { return layout_; }
  std::optional<bool> requires_grad_opt() const { return requires_grad_; }
  std::optional<bool> pinned_memory_opt() const { return pinned_; }
  std::optional<MemoryFormat> memory_format_opt() const { return memory_format_; }
  /// These options with every field `o` sets replaced by `o`'s (libtorch's rule).
  TensorOptions merge_in(const TensorOptions& o) const {
    auto r = *this;
    if (o.dtype_) r.dtype_ = o.dtype_;
    if (o.device_) r.device_ = o.device_;
    if (o.layout_) r.layout_ = o.layout_;
    if (o.requires_grad_) r.requires_grad_ = o.requires_grad_;
    if (o.pinned_) r.pinned_ = o.pinned_;
    if (o.memory_format_) r.memory_format_ = o.memory_format_;
    return r;
  }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<Layout> layout_;
  std::optional<bool> requires_grad_;
  std::optional<bool> pinned_;
  std::optional<MemoryFormat> memory_format_;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
inline TensorOptions dtype(caffe2::TypeMeta m) { return TensorOptions().dtype(m); }
template <typename T> inline TensorOptions dtype() { return TensorOptions().dtype<T>(); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
inline TensorOptions requires_grad(bool b = true) { return TensorOptions().requires_grad(b); }
inline TensorOptions device_index(DeviceIndex i) { return TensorOptions().device_index(i); }

std::ostream& operator<<(std::ostream& os, const TensorOptions& o);

}  // namespace c10

namespace at {
using c10::TensorOptions; using c10::dtype; using c10::device; using c10::layout; using c10::requires_grad;
using c10::get_default_dtype; using c10::set_default_dtype;
}  // namespace at

EMBER_PUBLIC_END
