#pragma once
// The CUDA generator: a Philox4x32-10 stream per Generator, held as (seed, 64-bit offset). Each
// random op reserves the counters it uses by advancing the offset under the generator's mutex,
// then computes its draws on the device from (seed, offset) alone (see ATen/cuda/Philox.h).
// One default generator per device; `torch::manual_seed` and `torch::cuda::manual_seed[_all]`
// reseed them. Plain C++: tests and users include this header without the CUDA toolkit.
//
//   at::Generator g = at::cuda::detail::createCUDAGenerator();   // current device
//   g.set_current_seed(7);
//   auto x = torch::rand({1000}, g, torch::device(torch::kCUDA));
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/Generator.h>
#include <ATen/cuda/Philox.h>
#include <cstdint>

namespace at {

/// A Generator whose stream is Philox on a CUDA device. Reseeding (through Generator or
/// set_current_seed) restarts the stream at offset 0.
struct CUDAGeneratorImpl : GeneratorImpl {
  CUDAGeneratorImpl(uint64_t seed, int device);
  ~CUDAGeneratorImpl() override;
  /// Restarts the stream: the new seed, offset 0 (call with mutex_ held).
  void set_current_seed(uint64_t seed) override;
  /// The seed and the offset (Note [Generator state bytes]).
  std::vector<uint8_t> state_bytes() const override;
  void restore_state_bytes(const uint8_t* bytes, size_t n) override;
  /// The device whose kernels use this generator.
  int device() const { return device_; }
  /// Reserves `words` 32-bit draws (rounded up to whole Philox blocks): returns the (seed, offset)
  /// the op computes its draws from, and moves the offset past them. Call with mutex_ held.
  ember::philox::State reserve(uint64_t words);
  /// The offset the next op starts from (call with mutex_ held).
  uint64_t offset() const { return offset_; }

 private:
  int device_;
  uint64_t offset_ = 0;
};

namespace cuda::detail {
/// The default CUDA generator of `device` (-1: the current device). Throws without a device.
const Generator& getDefaultCUDAGenerator(int device = -1);
/// A new CUDA generator for `device` (-1: the current device), seeded with `seed`.
Generator createCUDAGenerator(int device = -1, uint64_t seed = default_rng_seed_val);
}  // namespace cuda::detail

namespace detail {
/// Registers the function at::manual_seed calls to reseed the CUDA generators (the CUDA backend
/// does this when it loads; builds without CUDA have none).
void set_cuda_manual_seed_hook(void (*hook)(uint64_t seed));
}  // namespace detail

}  // namespace at

EMBER_PUBLIC_END
