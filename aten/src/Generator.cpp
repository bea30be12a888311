// The Mersenne Twister, the CPU generator, the default generators and manual_seed.
#include <ATen/Generator.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/util/Exception.h>
#include <atomic>
#include <cstring>

namespace at {

void MT19937::seed_with(uint64_t seed) {
  state_[0] = static_cast<uint32_t>(seed);
  for (int i = 1; i < kStateSize; ++i)
    state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  next_ = kStateSize;
}

void MT19937::regenerate() {
  constexpr int kShift = 397;
  for (int i = 0; i < kStateSize; ++i) {
    const uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % kStateSize] & 0x7fffffffu);
    state_[i] = state_[(i + kShift) % kStateSize] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
  }
  next_ = 0;
}

void MT19937::set_state(const uint32_t* words, int next_index) {
  std::memcpy(state_, words, sizeof(state_));
  next_ = next_index;
}

void CPUGeneratorImpl::set_current_seed(uint64_t seed) {
  GeneratorImpl::set_current_seed(seed);
  engine_.seed_with(seed);
  next_double_normal_.reset();
  next_float_normal_.reset();
}

c10::intrusive_ptr<CPUGeneratorImpl> CPUGeneratorImpl::clone() const {
  auto copy = c10::make_intrusive<CPUGeneratorImpl>(current_seed());
  copy->engine_ = engine_;
  copy->next_double_normal_ = next_double_normal_;
  copy->next_float_normal_ = next_float_normal_;
  return copy;
}

Generator Generator::clone() const {
  auto* cpu = get<CPUGeneratorImpl>();
  EMBER_CHECK(cpu != nullptr, "[Generator::clone] expected a CPU generator; got a device generator");
  std::lock_guard<std::mutex> lock(impl_->mutex_);
  return Generator(cpu->clone());
}

Generator make_generator(uint64_t seed) { return make_generator<CPUGeneratorImpl>(seed); }

Generator detail::createCPUGenerator(uint64_t seed) { return make_generator<CPUGeneratorImpl>(seed); }

const Generator& detail::getDefaultCPUGenerator() {
  static Generator g = make_generator<CPUGeneratorImpl>(default_rng_seed_val);
  return g;
}

CPUGeneratorImpl* detail::cpu_generator(const std::optional<Generator>& gen, const char* op) {
  if (!gen.has_value() || !gen->defined()) return getDefaultCPUGenerator().get<CPUGeneratorImpl>();
  auto* cpu = gen->get<CPUGeneratorImpl>();
  EMBER_CHECK(cpu != nullptr, "[", op, "] expected a CPU generator for a CPU tensor; got a device generator");
  return cpu;
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
