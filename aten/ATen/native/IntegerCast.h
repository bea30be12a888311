#pragma once
// A double converted to an integer dtype the way libtorch's plain C++ casts come out on x86, with
// defined behaviour on every target and on CUDA devices.
//
// Note [Double to integer as on x86]
// Some libtorch kernels store a double into an integer tensor with a plain cast even when the
// value may not fit: a geometric_ draw (p = 0.01 gives values past 127 often; u = 0 gives +inf),
// logspace's powers (10^3 into int8). C++ leaves such a cast undefined; x86 performs it as a
// truncating conversion to 32 bits (64 for int64) that yields the lowest value of that width when
// the value is out of range or NaN, after which narrower dtypes keep the low bits. integer_cast
// spells those steps out, so Ember's integer tensors hold libtorch's x86 values wherever the
// library runs.
#include <c10/util/Half.h>
#include <cstdint>
#include <limits>

namespace at::native {

template <typename T>
EMBER_HOST_DEVICE inline T integer_cast(double v) {
  if constexpr (sizeof(T) == 8) {
    const bool fits = v >= -0x1p63 && v < 0x1p63;
    return static_cast<T>(fits ? static_cast<int64_t>(v) : std::numeric_limits<int64_t>::min());
  } else {
    const bool fits = v > -0x1p31 - 1.0 && v < 0x1p31;
    const int32_t w = fits ? static_cast<int32_t>(v) : std::numeric_limits<int32_t>::min();
    return static_cast<T>(static_cast<uint32_t>(w));  // the low bits (conversion is modular in C++20)
  }
}

}  // namespace at::native
