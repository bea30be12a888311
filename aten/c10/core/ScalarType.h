#pragma once
// Element types, their C++ types, and PyTorch's type-promotion lattice.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/Exception.h>
#include <c10/util/Half.h>
#include <cstdint>
#include <ostream>

namespace c10 {

// Numbering follows libtorch's ScalarType so serialized dtypes interchange.
enum class ScalarType : int8_t {
  Byte = 0, Char = 1, Short = 2, Int = 3, Long = 4, Half = 5, Float = 6, Double = 7,
  Bool = 11, BFloat16 = 15, Undefined = 127,
};

// X(cpp type, ScalarType name) for every dtype Ember supports.
#define EMBER_FORALL_SCALAR_TYPES(X) \
  X(uint8_t, Byte) X(int8_t, Char) X(int16_t, Short) X(int32_t, Int) X(int64_t, Long) \
  X(c10::Half, Half) X(float, Float) X(double, Double) X(bool, Bool) X(c10::BFloat16, BFloat16)

constexpr ScalarType kByte = ScalarType::Byte, kChar = ScalarType::Char, kShort = ScalarType::Short,
                     kInt = ScalarType::Int, kLong = ScalarType::Long, kHalf = ScalarType::Half,
                     kFloat = ScalarType::Float, kDouble = ScalarType::Double, kBool = ScalarType::Bool,
                     kBFloat16 = ScalarType::BFloat16;

/// Size in bytes of one element.
inline size_t elementSize(ScalarType t) {
  switch (t) {
#define X(cpp, name) case ScalarType::name: return sizeof(cpp);
    EMBER_FORALL_SCALAR_TYPES(X)
#undef X
    default: throw Error(str("[elementSize] undefined dtype (", static_cast<int>(t), ")"));
  }
}

/// Short libtorch-style name: "Float", "Long", ...
const char* toString(ScalarType t);
/// Name as printed in tensor reprs: "float32", "int64", ...
const char* dtypeName(ScalarType t);

inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }

inline bool isIntegralType(ScalarType t, bool includeBool) {
  switch (t) {
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Short: case ScalarType::Int: case ScalarType::Long: return true;
    case ScalarType::Bool: return includeBool;
    default: return false;
  }
}
inline bool isFloatingType(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::BFloat16;
}
inline bool isReducedFloatingType(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }
inline bool isSignedType(ScalarType t) { return t != ScalarType::Byte && t != ScalarType::Bool; }
inline bool isComplexType(ScalarType) { return false; }

/// The smallest type both `a` and `b` convert to without losing category (PyTorch's table).
constexpr ScalarType promoteTypes(ScalarType a, ScalarType b) {
  using S = ScalarType;
  if (a == b) return a;
  if (a == S::Undefined) return b;
  if (b == S::Undefined) return a;
  if (a == S::Bool) return b;
  if (b == S::Bool) return a;
  auto is_f = [](S t) { return t == S::Half || t == S::Float || t == S::Double || t == S::BFloat16; };
  auto fl_rank = [](S t) { return t == S::Double ? 3 : t == S::Float ? 2 : 1; };
  auto int_size = [](S t) { return t == S::Long ? 8 : t == S::Int ? 4 : t == S::Short ? 2 : 1; };
  if (is_f(a) && is_f(b)) {
    if (fl_rank(a) == 1 && fl_rank(b) == 1) return S::Float;  // Half + BFloat16
    return fl_rank(a) >= fl_rank(b) ? a : b;
  }
  if (is_f(a)) return a;
  if (is_f(b)) return b;
  if (a == S::Byte || b == S::Byte) {  // uint8 with a signed type
    S other = a == S::Byte ? b : a;
    return int_size(other) == 1 ? S::Short : other;
  }
  return int_size(a) >= int_size(b) ? a : b;
}

/// Maps a C++ element type to its ScalarType.
template <typename T> struct CppTypeToScalarType;
#define X(cpp, name) \
  template <> struct CppTypeToScalarType<cpp> { static constexpr ScalarType value = ScalarType::name; };
EMBER_FORALL_SCALAR_TYPES(X)
#undef X

/// The type kernels compute in: float for Half/BFloat16, the type itself otherwise.
template <typename T> struct OpMathType { using type = T; };
template <> struct OpMathType<c10::Half> { using type = float; };
template <> struct OpMathType<c10::BFloat16> { using type = float; };
template <typename T> using opmath_t = typename OpMathType<T>::type;

}  // namespace c10

namespace at {
using c10::ScalarType;
using c10::kByte; using c10::kChar; using c10::kShort; using c10::kInt; using c10::kLong;
using c10::kHalf; using c10::kFloat; using c10::kDouble; using c10::kBool; using c10::kBFloat16;
using c10::Half; using c10::BFloat16;
using c10::isFloatingType; using c10::isIntegralType; using c10::promoteTypes; using c10::elementSize;
}  // namespace at

// ---- dtype dispatch (libtorch's AT_DISPATCH_* spellings) ----
// AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "op", [&] { use<scalar_t>(); });
#define EMBER_DISPATCH_CASE(cpp, name, ...) \
  case ::c10::ScalarType::name: { using scalar_t = cpp; return __VA_ARGS__(); }
#define EMBER_DISPATCH_FAIL(TYPE, NAME, WHAT) \
  default: throw ::c10::Error(::c10::str("[", NAME, "] expected one of the supported dtypes (" WHAT "); got ", ::c10::dtypeName(TYPE)));

#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  [&] { switch (TYPE) { \
    EMBER_DISPATCH_CASE(float, Float, __VA_ARGS__) EMBER_DISPATCH_CASE(double, Double, __VA_ARGS__) \
    EMBER_DISPATCH_FAIL(TYPE, NAME, "float32, float64") } }()
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...) \
  [&] { switch (TYPE) { \
    EMBER_DISPATCH_CASE(float, Float, __VA_ARGS__) EMBER_DISPATCH_CASE(double, Double, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(c10::Half, Half, __VA_ARGS__) EMBER_DISPATCH_CASE(c10::BFloat16, BFloat16, __VA_ARGS__) \
    EMBER_DISPATCH_FAIL(TYPE, NAME, "floating dtypes") } }()
#define EMBER_DISPATCH_ALL_FLOATING(TYPE, NAME, ...) AT_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  [&] { switch (TYPE) { \
    EMBER_DISPATCH_CASE(uint8_t, Byte, __VA_ARGS__) EMBER_DISPATCH_CASE(int8_t, Char, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(int16_t, Short, __VA_ARGS__) EMBER_DISPATCH_CASE(int32_t, Int, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(int64_t, Long, __VA_ARGS__) \
    EMBER_DISPATCH_FAIL(TYPE, NAME, "integer dtypes") } }()
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  [&] { switch (TYPE) { \
    EMBER_DISPATCH_CASE(uint8_t, Byte, __VA_ARGS__) EMBER_DISPATCH_CASE(int8_t, Char, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(int16_t, Short, __VA_ARGS__) EMBER_DISPATCH_CASE(int32_t, Int, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(int64_t, Long, __VA_ARGS__) EMBER_DISPATCH_CASE(float, Float, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(double, Double, __VA_ARGS__) \
    EMBER_DISPATCH_FAIL(TYPE, NAME, "integer and float32/float64 dtypes") } }()
#define AT_DISPATCH_ALL_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...) \
  [&] { switch (TYPE) { \
    EMBER_DISPATCH_CASE(uint8_t, Byte, __VA_ARGS__) EMBER_DISPATCH_CASE(int8_t, Char, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(int16_t, Short, __VA_ARGS__) EMBER_DISPATCH_CASE(int32_t, Int, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(int64_t, Long, __VA_ARGS__) EMBER_DISPATCH_CASE(float, Float, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(double, Double, __VA_ARGS__) EMBER_DISPATCH_CASE(c10::Half, Half, __VA_ARGS__) \
    EMBER_DISPATCH_CASE(c10::BFloat16, BFloat16, __VA_ARGS__) EMBER_DISPATCH_CASE(bool, Bool, __VA_ARGS__) \
    EMBER_DISPATCH_FAIL(TYPE, NAME, "all dtypes") } }()
/// Every dtype Ember has.
#define EMBER_DISPATCH_ALL(TYPE, NAME, ...) AT_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, TYPE, NAME, __VA_ARGS__)

EMBER_PUBLIC_END
