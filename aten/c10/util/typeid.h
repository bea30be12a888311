#pragma once
// caffe2::TypeMeta: the dtype handle Tensor::dtype() and TensorOptions::dtype() return in
// libtorch's API. In Ember every tensor dtype is a ScalarType, so a TypeMeta is a ScalarType with
// libtorch's interface around it: name() is the element's C++ type name as libtorch prints it
// ("float", "long int", "c10::Half"), itemsize() its size in bytes, toScalarType() the enum.
// Like libtorch's it does not convert to ScalarType by itself (write t.scalar_type() or
// m.toScalarType()); it compares equal to the ScalarType it stands for, and TensorOptions takes it.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/ScalarType.h>
#include <cstddef>
#include <ostream>
#include <string_view>

namespace caffe2 {

class TypeMeta {
 public:
  /// An uninitialised handle (no dtype), as libtorch's default TypeMeta.
  constexpr TypeMeta() noexcept = default;

  static constexpr TypeMeta fromScalarType(c10::ScalarType t) noexcept { return TypeMeta(t); }
  /// The handle of C++ element type T (one of Ember's dtypes).
  template <typename T>
  static constexpr TypeMeta Make() noexcept { return TypeMeta(c10::CppTypeToScalarType<T>::value); }

  /// The ScalarType this handle stands for; an uninitialised handle has none.
  c10::ScalarType toScalarType() const {
    if (t_ == c10::ScalarType::Undefined)
      throw c10::Error("[TypeMeta] expected a handle of a tensor dtype; got an uninitialised TypeMeta");
    return t_;
  }
  constexpr bool isScalarType() const noexcept { return t_ != c10::ScalarType::Undefined; }
  constexpr bool isScalarType(c10::ScalarType t) const noexcept { return t_ == t; }
  template <typename T>
  constexpr bool Match() const noexcept { return t_ == c10::CppTypeToScalarType<T>::value; }

  /// Bytes per element (0 for an uninitialised handle).
  size_t itemsize() const noexcept { return t_ == c10::ScalarType::Undefined ? 0 : c10::elementSize(t_); }
  /// The element type's name as libtorch prints it.
  std::string_view name() const noexcept {
    switch (t_) {
      case c10::ScalarType::Byte: return "unsigned char";
      case c10::ScalarType::Char: return "signed char";
      case c10::ScalarType::Short: return "short int";
      case c10::ScalarType::Int: return "int";
      case c10::ScalarType::Long: return "long int";
      case c10::ScalarType::Half: return "c10::Half";
      case c10::ScalarType::Float: return "float";
      case c10::ScalarType::Double: return "double";
      case c10::ScalarType::Bool: return "bool";
      case c10::ScalarType::BFloat16: return "c10::BFloat16";
      default: return "nullptr (uninitialized)";
    }
  }

  friend constexpr bool operator==(TypeMeta a, TypeMeta b) noexcept { return a.t_ == b.t_; }
  friend constexpr bool operator!=(TypeMeta a, TypeMeta b) noexcept { return a.t_ != b.t_; }
  friend constexpr bool operator==(TypeMeta a, c10::ScalarType b) noexcept { return a.t_ == b; }
  friend constexpr bool operator==(c10::ScalarType a, TypeMeta b) noexcept { return a == b.t_; }
  friend constexpr bool operator!=(TypeMeta a, c10::ScalarType b) noexcept { return a.t_ != b; }
  friend constexpr bool operator!=(c10::ScalarType a, TypeMeta b) noexcept { return a != b.t_; }
  friend std::ostream& operator<<(std::ostream& os, TypeMeta m) { return os << m.name(); }

 private:
  constexpr explicit TypeMeta(c10::ScalarType t) noexcept : t_(t) {}
  c10::ScalarType t_ = c10::ScalarType::Undefined;
};

}  // namespace caffe2

namespace c10 {
using caffe2::TypeMeta;
inline caffe2::TypeMeta scalarTypeToTypeMeta(ScalarType t) { return caffe2::TypeMeta::fromScalarType(t); }
inline ScalarType typeMetaToScalarType(caffe2::TypeMeta m) { return m.toScalarType(); }
inline std::optional<ScalarType> optTypeMetaToScalarType(std::optional<caffe2::TypeMeta> m) {
  if (!m) return std::nullopt;
  return m->toScalarType();
}
}  // namespace c10

EMBER_PUBLIC_END
