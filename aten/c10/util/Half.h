#pragma once
// IEEE binary16 (c10::Half) and bfloat16 (c10::BFloat16) storage types. Arithmetic converts to
// float (the "opmath" type); kernels compute in float and round once on store.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace c10 {

namespace detail {
EMBER_HOST_DEVICE inline uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u; std::memcpy(&u, &f, 4); return u;
#endif
}
EMBER_HOST_DEVICE inline float f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f; std::memcpy(&f, &u, 4); return f;
#endif
}

// Round-to-nearest-even float -> binary16, handling subnormals, inf and NaN.
EMBER_HOST_DEVICE inline uint16_t fp16_from_fp32(float f) {
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return static_cast<uint16_t>(sign | (absx > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (absx < 0x38800000u) {  // subnormal or zero in half
    // Add 0.5 (as a float) to shift the mantissa into place; the FPU rounds to nearest even.
    float v = f32_from_bits(absx) + 0.5f;
    return static_cast<uint16_t>(sign | (f32_bits(v) - 0x3f000000u));
  }
  uint32_t mant_odd = (absx >> 13) & 1u;
  absx += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
  return static_cast<uint16_t>(sign | (absx >> 13));
}

EMBER_HOST_DEVICE inline float fp32_from_fp16(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return f32_from_bits(sign);
    float v = static_cast<float>(mant) * 5.9604644775390625e-08f;  // 2^-24
    return sign ? -v : v;
  }
  if (exp == 31) return f32_from_bits(sign | 0x7f800000u | (mant << 13));
  return f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

EMBER_HOST_DEVICE inline uint16_t bf16_from_fp32(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN
  uint32_t rounding_bias = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding_bias) >> 16);
}
EMBER_HOST_DEVICE inline float fp32_from_bf16(uint16_t b) { return f32_from_bits(static_cast<uint32_t>(b) << 16); }
}  // namespace detail

/// 16-bit IEEE float. Converts implicitly to and from float.
struct alignas(2) Half {
  uint16_t x;
  struct from_bits_t {};
  Half() = default;
  EMBER_HOST_DEVICE constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HOST_DEVICE Half(float v) : x(detail::fp16_from_fp32(v)) {}
  EMBER_HOST_DEVICE operator float() const { return detail::fp32_from_fp16(x); }
  static constexpr from_bits_t from_bits() { return {}; }
};

/// bfloat16: float32's exponent with a 7-bit mantissa. Converts implicitly to and from float.
struct alignas(2) BFloat16 {
  uint16_t x;
  struct from_bits_t {};
  BFloat16() = default;
  EMBER_HOST_DEVICE constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HOST_DEVICE BFloat16(float v) : x(detail::bf16_from_fp32(v)) {}
  EMBER_HOST_DEVICE operator float() const { return detail::fp32_from_bf16(x); }
  static constexpr from_bits_t from_bits() { return {}; }
};

inline std::ostream& operator<<(std::ostream& os, Half h) { return os << static_cast<float>(h); }
inline std::ostream& operator<<(std::ostream& os, BFloat16 h) { return os << static_cast<float>(h); }

}  // namespace c10

namespace std {
template <> class numeric_limits<c10::Half> {
 public:
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, has_infinity = true, has_quiet_NaN = true;
  static constexpr int digits = 11;
  static constexpr c10::Half lowest() { return {0xfbff, c10::Half::from_bits()}; }
  static constexpr c10::Half max() { return {0x7bff, c10::Half::from_bits()}; }
  static constexpr c10::Half min() { return {0x0400, c10::Half::from_bits()}; }
  static constexpr c10::Half epsilon() { return {0x1400, c10::Half::from_bits()}; }
  static constexpr c10::Half infinity() { return {0x7c00, c10::Half::from_bits()}; }
  static constexpr c10::Half quiet_NaN() { return {0x7e00, c10::Half::from_bits()}; }
};
template <> class numeric_limits<c10::BFloat16> {
 public:
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, has_infinity = true, has_quiet_NaN = true;
  static constexpr int digits = 8;
  static constexpr c10::BFloat16 lowest() { return {0xff7f, c10::BFloat16::from_bits()}; }
  static constexpr c10::BFloat16 max() { return {0x7f7f, c10::BFloat16::from_bits()}; }
  static constexpr c10::BFloat16 min() { return {0x0080, c10::BFloat16::from_bits()}; }
  static constexpr c10::BFloat16 epsilon() { return {0x3c00, c10::BFloat16::from_bits()}; }
  static constexpr c10::BFloat16 infinity() { return {0x7f80, c10::BFloat16::from_bits()}; }
  static constexpr c10::BFloat16 quiet_NaN() { return {0x7fc0, c10::BFloat16::from_bits()}; }
};
}  // namespace std

EMBER_PUBLIC_END
