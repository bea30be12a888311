#pragma once
// c10::Scalar: a number of any dtype category (bool, integer, floating), passed by value to ops.
#include <c10/core/ScalarType.h>
#include <type_traits>

namespace c10 {

class Scalar {
 public:
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : tag_(Tag::Bool) { v_.i = v; }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : tag_(Tag::Int) { v_.i = static_cast<int64_t>(v); }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : tag_(Tag::Double) { v_.d = static_cast<double>(v); }
  Scalar(c10::Half v) : Scalar(static_cast<double>(static_cast<float>(v))) {}
  Scalar(c10::BFloat16 v) : Scalar(static_cast<double>(static_cast<float>(v))) {}

  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  /// True for integers; for bools too when includeBool.
  bool isIntegral(bool includeBool) const { return tag_ == Tag::Int || (includeBool && tag_ == Tag::Bool); }
  bool isBoolean() const { return tag_ == Tag::Bool; }
  bool isComplex() const { return false; }

  double toDouble() const { return tag_ == Tag::Double ? v_.d : static_cast<double>(v_.i); }
  float toFloat() const { return static_cast<float>(toDouble()); }
  int64_t toLong() const { return tag_ == Tag::Double ? static_cast<int64_t>(v_.d) : v_.i; }
  int toInt() const { return static_cast<int>(toLong()); }
  bool toBool() const { return tag_ == Tag::Double ? v_.d != 0 : v_.i != 0; }

  /// Converts to any element type (rounding/truncating as a C++ cast does).
  template <typename T> T to() const {
    if constexpr (std::is_same_v<T, bool>) return toBool();
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(toLong());
    else return static_cast<T>(static_cast<typename OpMathType<T>::type>(toDouble()));
  }

  /// The dtype a wrapped number of this category gets: Double, Long or Bool.
  ScalarType type() const {
    return tag_ == Tag::Double ? ScalarType::Double : tag_ == Tag::Int ? ScalarType::Long : ScalarType::Bool;
  }
  Scalar operator-() const {
    if (tag_ == Tag::Double) return Scalar(-v_.d);
    if (tag_ == Tag::Int) return Scalar(-v_.i);
    throw Error("[Scalar] negation is not supported for bool scalars");
  }
  bool equal(double d) const { return toDouble() == d; }

 private:
  enum class Tag : uint8_t { Double, Int, Bool };
  Tag tag_;
  union { double d; int64_t i; } v_;
};

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace c10

namespace at { using c10::Scalar; }
