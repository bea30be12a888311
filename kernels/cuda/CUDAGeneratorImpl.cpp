// The CUDA generators: the Philox stream state (seed, offset) per generator, one default
// generator per device, and the manual_seed entry points.
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <mutex>
#include <vector>

namespace at {

CUDAGeneratorImpl::CUDAGeneratorImpl(uint64_t seed, int device) : GeneratorImpl(seed), device_(device) {}

CUDAGeneratorImpl::~CUDAGeneratorImpl() = default;

void CUDAGeneratorImpl::set_current_seed(uint64_t seed) {
  GeneratorImpl::set_current_seed(seed);
  offset_ = 0;
}

ember::philox::State CUDAGeneratorImpl::reserve(uint64_t words) {
  ember::philox::State s{current_seed(), offset_};
  // Whole blocks of four words; the counter's high half is the offset, so any increment keeps
  // the streams of two ops apart -- advancing by the words used keeps it comparable to libtorch's.
  offset_ += (words + 3) / 4 * 4;
  return s;
}

namespace {

struct DefaultGenerators {
  std::mutex mutex;
  uint64_t initial_seed = default_rng_seed_val;  // the seed generators made from now on start with
  std::vector<Generator> per_device;
};

DefaultGenerators& defaults() {
  static DefaultGenerators* d = new DefaultGenerators();  // never destroyed: used at exit by late ops
  return *d;
}

int resolve_device(int device) {
  EMBER_CHECK(ember::cuda::is_available(), "[cuda] no CUDA device is available for a CUDA generator");
  const int d = device < 0 ? ember::cuda::current_device() : device;
  EMBER_CHECK(d < ember::cuda::device_count(), "[cuda] device index ", d, " out of range (",
              ember::cuda::device_count(), " visible devices)");
  return d;
}

void seed_generator(const Generator& g, uint64_t seed) {
  std::lock_guard<std::mutex> lock(g.mutex());
  g.get()->set_current_seed(seed);
}

// at::manual_seed's hook: every default CUDA generator, and the ones not made yet.
void seed_all_defaults(uint64_t seed) {
  DefaultGenerators& d = defaults();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.initial_seed = seed;
  for (const Generator& g : d.per_device)
    if (g.defined()) seed_generator(g, seed);
}

const bool hook_registered = [] {
  at::detail::set_cuda_manual_seed_hook(&seed_all_defaults);
  return true;
}();

}  // namespace

namespace cuda::detail {

const Generator& getDefaultCUDAGenerator(int device) {
  const int idx = resolve_device(device);
  DefaultGenerators& d = defaults();
  std::lock_guard<std::mutex> lock(d.mutex);
  // Sized once for every device: callers keep the returned reference after the lock is released,
  // so the vector must never reallocate.
  if (d.per_device.empty()) d.per_device.resize(static_cast<size_t>(ember::cuda::device_count()));
  Generator& g = d.per_device[static_cast<size_t>(idx)];
  if (!g.defined()) g = Generator(c10::make_intrusive<CUDAGeneratorImpl>(d.initial_seed, idx));
  return g;
}

Generator createCUDAGenerator(int device, uint64_t seed) {
  return Generator(c10::make_intrusive<CUDAGeneratorImpl>(seed, resolve_device(device)));
}

}  // namespace cuda::detail
}  // namespace at

namespace ember::cuda {

void manual_seed(uint64_t seed) {
  if (!is_available()) return;  // libtorch: a no-op without CUDA
  at::seed_generator(at::cuda::detail::getDefaultCUDAGenerator(-1), seed);
}

void manual_seed_all(uint64_t seed) {
  if (!is_available()) return;
  for (int64_t d = 0; d < device_count(); ++d)
    at::seed_generator(at::cuda::detail::getDefaultCUDAGenerator(static_cast<int>(d)), seed);
}

}  // namespace ember::cuda
