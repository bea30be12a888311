#pragma once
// Random number generators. A Generator is a shared handle to a GeneratorImpl: the CPU one
// (CPUGeneratorImpl, a 32-bit Mersenne Twister) or a device one (CUDAGeneratorImpl, Philox).
// The CPU stream is libtorch's: the same seed and the same calls give the same numbers; see
// Note [CPU random streams] in kernels/cpu/random.cpp.
//
//   at::Generator g = at::make_generator<at::CPUGeneratorImpl>(42);
//   auto x = torch::rand({3}, g);                        // draws from g, not the default stream
//   uint32_t w = g.get<at::CPUGeneratorImpl>()->random();
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/intrusive_ptr.h>
#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace at {

/// The seed a generator made without one starts from (libtorch's value).
constexpr uint64_t default_rng_seed_val = 67280421310721ULL;

class Tensor;

/// The base of every generator: its seed and the mutex ops hold while they draw.
struct GeneratorImpl : c10::intrusive_ptr_target {
  explicit GeneratorImpl(uint64_t seed) : seed_(seed) {}
  /// Restarts the stream from `seed`. Call with mutex_ held when others may draw.
  virtual void set_current_seed(uint64_t seed) { seed_ = seed; }
  /// The whole stream position as bytes (see Note [Generator state bytes] in src/Generator.cpp),
  /// and its restoration; both with mutex_ held. The base class has no state to save (raises).
  virtual std::vector<uint8_t> state_bytes() const;
  virtual void restore_state_bytes(const uint8_t* bytes, size_t n);
  /// The seed the stream last started from.
  uint64_t current_seed() const { return seed_; }
  std::mutex mutex_;

 private:
  uint64_t seed_;
};

/// MT19937, the 32-bit Mersenne Twister of Matsumoto and Nishimura (the sequence std::mt19937
/// gives), with its 624-word state visible so a generator can be saved and restored.
class MT19937 {
 public:
  static constexpr int kStateSize = 624;
  explicit MT19937(uint64_t seed = 5489) { seed_with(seed); }
  /// Initialises the state from the low 32 bits of `seed` (the reference initialisation).
  void seed_with(uint64_t seed);
  /// The next 32-bit output.
  uint32_t operator()() {
    if (next_ >= kStateSize) regenerate();
    uint32_t y = state_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  const uint32_t* state() const { return state_; }
  int next_index() const { return next_; }
  /// Replaces the state (624 words) and the position of the next word.
  void set_state(const uint32_t* words, int next_index);

 private:
  void regenerate();
  uint32_t state_[kStateSize];
  int next_ = kStateSize;
};

/// The CPU generator. Ops draw 32-bit words (random()) or 64-bit words (random64(): two words,
/// the first in the high half), with mutex_ held.
struct CPUGeneratorImpl : GeneratorImpl {
  explicit CPUGeneratorImpl(uint64_t seed = default_rng_seed_val) : GeneratorImpl(seed), engine_(seed) {}
  void set_current_seed(uint64_t seed) override;
  std::vector<uint8_t> state_bytes() const override;
  void restore_state_bytes(const uint8_t* bytes, size_t n) override;
  uint32_t random() { return engine_(); }
  uint64_t random64() {
    const uint64_t hi = engine_();
    return (hi << 32) | engine_();
  }
  /// The second normal of the last per-element Box-Muller pair, if not used yet (see
  /// Note [CPU random streams]).
  std::optional<double> next_double_normal_sample() const { return next_double_normal_; }
  void set_next_double_normal_sample(std::optional<double> v) { next_double_normal_ = v; }
  std::optional<float> next_float_normal_sample() const { return next_float_normal_; }
  void set_next_float_normal_sample(std::optional<float> v) { next_float_normal_ = v; }
  MT19937& engine() { return engine_; }
  /// A copy of the stream (same position), independent from then on.
  c10::intrusive_ptr<CPUGeneratorImpl> clone() const;

 private:
  MT19937 engine_;
  std::optional<double> next_double_normal_;
  std::optional<float> next_float_normal_;
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
  /// The implementation as `T` (nullptr when it is another kind of generator).
  template <typename T>
  T* get() const { return dynamic_cast<T*>(impl_.get()); }
  /// A new generator with a copy of this one's state (CPU generators).
  Generator clone() const;
  /// The stream's state as a 1-D uint8 CPU tensor: set_state() on any generator of the same kind
  /// continues the stream from this point (the same numbers follow). Ember's own byte layout
  /// (Note [Generator state bytes]); libtorch's tensors of state are not accepted.
  Tensor get_state() const;
  /// Restores a state from get_state(); raises "[Generator::set_state] ..." for a tensor that is
  /// not a whole uint8 state of this kind of generator.
  void set_state(const Tensor& new_state);

 private:
  c10::intrusive_ptr<GeneratorImpl> impl_;
};

/// A new CPU generator with the given seed.
Generator make_generator(uint64_t seed = default_rng_seed_val);

/// A new generator of implementation `Impl` from its constructor's arguments, as in libtorch:
/// `at::make_generator<at::CPUGeneratorImpl>(seed)`.
template <typename Impl, typename... Args>
Generator make_generator(Args&&... args) {
  return Generator(c10::make_intrusive<Impl>(std::forward<Args>(args)...));
}

namespace detail {
/// The generator CPU random ops use when none is passed. Ember seeds it with
/// default_rng_seed_val; libtorch seeds its own from the OS at start-up (until manual_seed).
const Generator& getDefaultCPUGenerator();
/// A new CPU generator (libtorch's name).
Generator createCPUGenerator(uint64_t seed = default_rng_seed_val);
/// The CPU generator behind `gen`, or the default one when `gen` is empty; throws
/// "[op] expected a CPU generator ..." when `gen` belongs to another device.
CPUGeneratorImpl* cpu_generator(const std::optional<Generator>& gen, const char* op);
}  // namespace detail

/// Reseeds the default generators (torch::manual_seed).
void manual_seed(uint64_t seed);

}  // namespace at

EMBER_PUBLIC_END
