#pragma once
// Random number generators: a seeded, reproducible stream per Generator (Philox-free, mt19937_64
// based on the CPU). `torch::manual_seed(0)` reseeds the default CPU generator.
#include <c10/util/intrusive_ptr.h>
#include <cstdint>
#include <mutex>
#include <random>

namespace at {

struct GeneratorImpl : c10::intrusive_ptr_target {
  explicit GeneratorImpl(uint64_t seed) { set_current_seed(seed); }
  void set_current_seed(uint64_t s) { seed_ = s; engine_.seed(s); normal_cached_ = false; }
  uint64_t current_seed() const { return seed_; }
  uint64_t random64() { return engine_(); }
  /// Uniform double in [0, 1).
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Standard normal (Box-Muller, caching the second value).
  double normal();
  std::mutex mutex_;

 private:
  uint64_t seed_ = 0;
  std::mt19937_64 engine_;
  bool normal_cached_ = false;
  double normal_cache_ = 0;
};

/// A handle to a random stream; copies share the stream.
class Generator {
 public:
  Generator() = default;
  explicit Generator(c10::intrusive_ptr<GeneratorImpl> impl) : impl_(std::move(impl)) {}
  bool defined() const { return static_cast<bool>(impl_); }
  void set_current_seed(uint64_t s) { impl_->set_current_seed(s); }
  uint64_t current_seed() const { return impl_->current_seed(); }
  std::mutex& mutex() const { return impl_->mutex_; }
  GeneratorImpl* get() const { return impl_.get(); }
 private:
  c10::intrusive_ptr<GeneratorImpl> impl_;
};

/// A new CPU generator with the given seed.
Generator make_generator(uint64_t seed = 67280421310721ULL);

namespace detail {
/// The generator random ops use when none is passed.
const Generator& getDefaultCPUGenerator();
}  // namespace detail

/// Reseeds the default generators (torch::manual_seed).
void manual_seed(uint64_t seed);

}  // namespace at
