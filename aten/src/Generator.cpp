// Default generators and manual_seed.
#include <ATen/Generator.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <atomic>
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

namespace {
// Set by the CUDA backend when it loads (kernels/cuda/CUDAGeneratorImpl.cpp); the core does not
// depend on CUDA.
std::atomic<void (*)(uint64_t)> cuda_manual_seed_hook{nullptr};
}  // namespace

void detail::set_cuda_manual_seed_hook(void (*hook)(uint64_t)) { cuda_manual_seed_hook.store(hook); }

void manual_seed(uint64_t seed) {
  {
    const Generator& g = detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(g.mutex());
    g.get()->set_current_seed(seed);
  }
  // Like libtorch, torch::manual_seed also seeds every CUDA device's default generator.
  if (auto hook = cuda_manual_seed_hook.load()) hook(seed);
}

}  // namespace at
