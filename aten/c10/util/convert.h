#pragma once
// Float -> integer conversion without undefined behaviour. C++ leaves a NaN or out-of-range
// float-to-int cast undefined; x86 (where libtorch's results come from) gives the "integer
// indefinite" value INT_MIN of the instruction's width. This reproduces that, defined: 64-bit
// targets and uint8 (which libtorch converts through int64, wrapping) go through int64; narrower
// signed targets through int32, then wrap to their width.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <cstdint>
#include <type_traits>

namespace c10 {

template <typename To>
inline To float_to_int(double d) {
  static_assert(std::is_integral_v<To> && !std::is_same_v<To, bool>);
  if constexpr (sizeof(To) == 8 || std::is_unsigned_v<To>) {
    const int64_t i = (d >= -0x1p63 && d < 0x1p63) ? static_cast<int64_t>(d) : INT64_MIN;
    return static_cast<To>(static_cast<uint64_t>(i));
  } else {
    const int32_t i = (d >= -0x1p31 && d < 0x1p31) ? static_cast<int32_t>(d) : INT32_MIN;
    return static_cast<To>(i);
  }
}

}  // namespace c10

EMBER_PUBLIC_END
