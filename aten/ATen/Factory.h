#pragma once
// Tensors from existing memory and from C++ values: at::from_blob and at::tensor / torch::tensor.
//   float buf[6]; auto t = at::from_blob(buf, {2, 3});          // no copy; `buf` must outlive t
//   auto u = torch::tensor({{1, 2}, {3, 4}});                    // int64 [2, 2]
//   auto v = torch::tensor({1.5, 2.5}, torch::kDouble);
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace at {

/// Wraps `data` (laid out with `strides`, in elements) as a tensor without copying; the storage
/// cannot be resized and `deleter(data)` runs when the last tensor sharing it goes away.
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const std::function<void(void*)>& deleter,
                 const TensorOptions& options = {});
/// Wraps contiguous `data` without copying; `deleter(data)` runs when the storage is freed.
Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter, const TensorOptions& options = {});
/// Wraps strided `data` without copying; the caller keeps ownership (nothing is freed).
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
/// Wraps contiguous `data` without copying; the caller keeps ownership (nothing is freed).
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});

/// The values of at::tensor: a scalar, a (nested) braced list of them, or a std::vector / ArrayRef.
/// Braced lists and scalars of int type give int64, of float/double the default dtype, of bool
/// bool (as libtorch); vectors and ArrayRefs keep their element type.
class TensorDataContainer {
 public:
  /// `{}`: an empty 1-D tensor.
  TensorDataContainer();
  TensorDataContainer(bool v) : type_(kBool), values_{Scalar(v)} {}
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorDataContainer(T v)
      : type_(std::is_integral_v<T> ? kLong : get_default_dtype()), values_{Scalar(v)} {}
  TensorDataContainer(c10::Half v) : type_(kHalf), values_{Scalar(v)} {}
  TensorDataContainer(c10::BFloat16 v) : type_(kBFloat16), values_{Scalar(v)} {}
  TensorDataContainer(std::initializer_list<TensorDataContainer> init);
  template <typename T, typename = decltype(c10::CppTypeToScalarType<T>::value)>
  TensorDataContainer(ArrayRef<T> v) { from_array(v.data(), v.size()); }
  template <typename T, typename = decltype(c10::CppTypeToScalarType<T>::value)>
  TensorDataContainer(const std::vector<T>& v) {
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(v.begin(), v.end());
      from_array(reinterpret_cast<const bool*>(bytes.data()), bytes.size());
    } else {
      from_array(v.data(), v.size());
    }
  }

  IntArrayRef sizes() const { return tensor_.defined() ? tensor_.sizes() : IntArrayRef(sizes_); }
  ScalarType scalar_type() const { return tensor_.defined() ? tensor_.scalar_type() : type_; }
  /// A new tensor holding the values (dtype/device from `options` when given).
  Tensor to_tensor(const TensorOptions& options) const;

 private:
  template <typename T>
  void from_array(const T* p, size_t n) {
    tensor_ = make_empty({static_cast<int64_t>(n)}, c10::CppTypeToScalarType<T>::value, kCPU);
    if (n) std::memcpy(tensor_._mutable_data_ptr_internal(), p, n * sizeof(T));
  }
  void append_values(std::vector<Scalar>& out) const;

  std::vector<int64_t> sizes_;  // empty for a scalar
  ScalarType type_ = ScalarType::Undefined;
  std::vector<Scalar> values_;  // row-major, for scalars and braced lists
  Tensor tensor_;               // for vectors and ArrayRefs (already a tensor)
};

/// A new tensor with a copy of `data`: `at::tensor({{1., 2.}, {3., 4.}}, at::kDouble)`.
Tensor tensor(const TensorDataContainer& data, const TensorOptions& options = {});

}  // namespace at

EMBER_PUBLIC_END
