#pragma once
// The 16-element Box-Muller step of normal_ on contiguous CPU tensors (Note [CPU random streams]):
// data[0..16) holds uniforms in [0, 1); pair j uses u1 = 1 - data[j] and u2 = data[j + 8] and
// writes the cosine normal to data[j] and the sine normal to data[j + 8].
//
// The float version reproduces, bit for bit, the float arithmetic libtorch's x86 builds (AVX2 and
// AVX-512 kernels) use for this step: Cephes-style single-precision log and sincos (range
// reduction by pi/4 in three parts, then the Cephes minimax polynomials), with fused multiply-adds
// exactly where that build fuses them. Every fma below is deliberate and every other product feeds
// no addition, so -ffp-contract cannot change the result.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace at::native::box_muller {

inline float bits_to_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
inline uint32_t float_to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

/// Natural log of x in (0, 1] (Cephes logf: mantissa in [sqrt(1/2), sqrt(2)), a degree-9
/// polynomial in m - 1, the exponent added back in two parts of ln 2).
inline float cephes_log(float x) {
  const float smallest_normal = bits_to_float(0x00800000u);
  if (x < smallest_normal) x = smallest_normal;
  const int32_t exponent = static_cast<int32_t>(float_to_bits(x) >> 23) - 0x7f;
  float m = bits_to_float((float_to_bits(x) & ~0x7f800000u) | float_to_bits(0.5f));  // in [0.5, 1)
  float e = static_cast<float>(exponent) + 1.0f;
  const bool small = m < 0.707106781186547524f;
  const float extra = small ? m : 0.0f;
  m = m - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  m = m + extra;
  const float z = m * m;
  static constexpr float kP[9] = {7.0376836292e-2f,  -1.1514610310e-1f, 1.1676998740e-1f,
                                  -1.2420140846e-1f, 1.4249322787e-1f,  -1.6668057665e-1f,
                                  2.0000714765e-1f,  -2.4999993993e-1f, 3.3333331174e-1f};
  float y = kP[0];
  for (int k = 1; k < 9; ++k) y = std::fma(y, m, kP[k]);
  y = y * m;
  const float low = e * -2.12194440e-4f;
  y = std::fma(y, z, low);
  y = std::fma(-z, 0.5f, y);
  const float sum = m + y;
  return std::fma(e, 0.693359375f, sum);
}

/// sin and cos of x >= 0 (Cephes sinf/cosf: octant j from x * 4/pi, x reduced by j * pi/4 in
/// three parts, one polynomial per function on [-pi/4, pi/4]).
inline void cephes_sincos(float x, float* s, float* c) {
  const bool negative = std::signbit(x);
  x = std::fabs(x);
  int32_t j = static_cast<int32_t>(x * 1.27323954473516f);
  j = (j + 1) & ~1;
  const float y = static_cast<float>(j);
  x = std::fma(y, -0.78515625f, x);
  x = std::fma(y, -2.4187564849853515625e-4f, x);
  x = std::fma(y, -3.77489497744594108e-8f, x);
  const bool sin_negative = negative != ((j & 4) != 0);
  const bool cos_negative = ((~(j - 2)) & 4) != 0;
  const bool swap = (j & 2) != 0;  // octants where sin uses the cosine polynomial
  const float z = x * x;
  float pc = 2.443315711809948e-5f;
  pc = std::fma(pc, z, -1.388731625493765e-3f);
  pc = std::fma(pc, z, 4.166664568298827e-2f);
  pc = pc * z;
  const float half_z = z * 0.5f;
  pc = std::fma(pc, z, -half_z);
  pc = pc + 1.0f;
  float ps = -1.9515295891e-4f;
  ps = std::fma(ps, z, 8.3321608736e-3f);
  ps = std::fma(ps, z, -1.6666654611e-1f);
  ps = ps * z;
  ps = std::fma(ps, x, x);
  const float sv = swap ? pc : ps, cv = swap ? ps : pc;
  *s = sin_negative ? -sv : sv;
  *c = cos_negative ? -cv : cv;
}

/// The float step (see the header comment); mean and std are already floats.
inline void fill16(float* data, float mean, float std) {
  const float two_pi = static_cast<float>(2.0f * 3.14159265358979323846);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_log(u1));
    float s, c;
    cephes_sincos(two_pi * u2, &s, &c);
    const float n1 = radius * c, n2 = radius * s;
    data[j] = std::fma(n1, std, mean);
    data[j + 8] = std::fma(n2, std, mean);
  }
}

/// The double step: libm log, cos and sin in double.
inline void fill16(double* data, double mean, double std) {
  for (int j = 0; j < 8; ++j) {
    const double u1 = 1.0 - data[j];
    const double u2 = data[j + 8];
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * 3.14159265358979323846 * u2;
    const double n1 = radius * std::cos(theta), n2 = radius * std::sin(theta);
    data[j] = std::fma(n1, std, mean);
    data[j + 8] = std::fma(n2, std, mean);
  }
}

}  // namespace at::native::box_muller
