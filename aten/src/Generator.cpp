// Default generators and manual_seed.
#include <ATen/Generator.h>
#include <cmath>

namespace at {

double GeneratorImpl::normal() {
  if (normal_cached_) { normal_cached_ = false; return normal_cache_; }
  double u1 = uniform(), u2 = uniform();
  if (u1 < 1e-300) u1 = 1e-300;
  double r = std::sqrt(-2.0 * std::log(u1));
  normal_cache_ = r * std::sin(2.0 * M_PI * u2);
  normal_cached_ = true;
  return r * std::cos(2.0 * M_PI * u2);
}

Generator make_generator(uint64_t seed) { return Generator(c10::make_intrusive<GeneratorImpl>(seed)); }

const Generator& detail::getDefaultCPUGenerator() {
  static Generator g = make_generator(67280421310721ULL);
  return g;
}

void manual_seed(uint64_t seed) {
  const Generator& g = detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(g.mutex());
  g.get()->set_current_seed(seed);
}

}  // namespace at
