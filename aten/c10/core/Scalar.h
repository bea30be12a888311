#pragma once
// c10::Scalar: a number of any dtype category (bool, integer, floating), passed by value to ops.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/ScalarType.h>
#include <c10/util/convert.h>
#include <cmath>
#include <limits>
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
  /// The value as int64 (a double truncates toward zero); raises when it cannot hold it (NaN,
  /// infinities, magnitudes of 2^63 and more), as libtorch does.
  int64_t toLong() const { return tag_ == Tag::Double ? to<int64_t>() : v_.i; }
  int toInt() const { return to<int>(); }
  bool toBool() const { return tag_ == Tag::Double ? v_.d != 0 : v_.i != 0; }

  /// Converts to any element type, rounding/truncating as a C++ cast does. A value the type
  /// cannot hold raises (as libtorch does): a finite value past a floating type's range, a
  /// non-finite or out-of-range value for an integer type. Unsigned types accept negative integer
  /// values down to -max (they wrap, like libtorch's uint8), but no negative floating value.
  template <typename T> T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return toBool();
    } else if constexpr (std::is_integral_v<T>) {
      constexpr double lo = std::is_signed_v<T> ? static_cast<double>(std::numeric_limits<T>::lowest())
                                                : -static_cast<double>(std::numeric_limits<T>::max());
      constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
      if (tag_ == Tag::Double) {
        // hi + 1 is exact where hi itself may round up (int64 max), so compare with < hi + 1. A
        // floating value must be non-negative for an unsigned type (only integers wrap).
        const double dlo = std::is_signed_v<T> ? lo : 0.0;
        if (!(v_.d >= dlo && v_.d < hi + 1.0)) throw_unrepresentable(c10::CppTypeToScalarType<T>::value);
        return static_cast<T>(static_cast<int64_t>(v_.d));  // via int64: a negative double to unsigned is UB
      }
      if (static_cast<double>(v_.i) < lo || static_cast<double>(v_.i) > hi)
        throw_unrepresentable(c10::CppTypeToScalarType<T>::value);
      return static_cast<T>(v_.i);
    } else {
      using M = typename OpMathType<T>::type;
      const double d = toDouble();
      // The smallest magnitude that rounds to infinity in T: its largest finite value plus half
      // an ulp (a tie rounds to the even neighbour, which is infinity).
      double limit = 0;
      if constexpr (std::is_same_v<T, c10::Half>) limit = 65504.0 + 16.0;
      else if constexpr (std::is_same_v<T, c10::BFloat16>) limit = 0x1.fep127 + 0x1p119;
      else if constexpr (std::is_same_v<T, float>) limit = 0x1.fffffep127 + 0x1p103;
      if (limit != 0 && std::isfinite(d) && std::abs(d) >= limit) throw_unrepresentable(c10::CppTypeToScalarType<T>::value);
      return static_cast<T>(static_cast<M>(d));
    }
  }

  /// The conversion a wrapped number (a Python-style number operand, `wrapped:` in ops.yaml)
  /// undergoes: like libtorch's 0-dim wrapped tensor cast to the computation type, it is not range
  /// checked — a floating value past the type's range becomes ±inf, an integer wraps.
  template <typename T> T to_wrapped() const {
    if constexpr (std::is_same_v<T, bool>) {
      return toBool();
    } else if constexpr (std::is_integral_v<T>) {
      if (tag_ == Tag::Double) return c10::float_to_int<T>(v_.d);
      return static_cast<T>(static_cast<uint64_t>(tag_ == Tag::Int ? v_.i : static_cast<int64_t>(v_.i != 0)));
    } else {
      using M = typename OpMathType<T>::type;
      return static_cast<T>(static_cast<M>(tag_ == Tag::Double ? v_.d : tag_ == Tag::Int ? static_cast<double>(v_.i)
                                                                                        : static_cast<double>(v_.i != 0)));
    }
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
  [[noreturn]] void throw_unrepresentable(ScalarType to) const;

 private:
  enum class Tag : uint8_t { Double, Int, Bool };
  Tag tag_;
  union { double d; int64_t i; } v_;
};

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace c10

namespace at { using c10::Scalar; }

EMBER_PUBLIC_END
