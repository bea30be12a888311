#pragma once
// The CPU generator's basic draws, shared by the CPU random kernels and the composites that draw
// directly (multinomial, rrelu). See Note [CPU random streams] in kernels/cpu/random.cpp.
// Call with the generator's mutex held.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/Generator.h>
#include <cmath>
#include <cstdint>

namespace at::native {

/// A uniform double in [0, 1) on the 2^-53 grid (one random64()).
inline double uniform_double(CPUGeneratorImpl* g) {
  return static_cast<double>(g->random64() & ((uint64_t(1) << 53) - 1)) * 0x1.0p-53;
}

/// A uniform float in [0, 1) on the 2^-24 grid (one random()).
inline float uniform_float(CPUGeneratorImpl* g) {
  return static_cast<float>(g->random() & ((1u << 24) - 1)) * 0x1.0p-24f;
}

/// A standard normal from the per-element Box-Muller pair: r cos(theta) now, r sin(theta) kept in
/// the generator and returned by the next call (until the generator is reseeded).
inline double normal_double(CPUGeneratorImpl* g) {
  if (auto cached = g->next_double_normal_sample()) {
    g->set_next_double_normal_sample(std::nullopt);
    return *cached;
  }
  const double u1 = uniform_double(g), u2 = uniform_double(g);
  const double r = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * 3.14159265358979323846 * u1;
  g->set_next_double_normal_sample(r * std::sin(theta));
  return r * std::cos(theta);
}

}  // namespace at::native

EMBER_PUBLIC_END
