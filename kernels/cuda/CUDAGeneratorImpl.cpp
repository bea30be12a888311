// The CUDA generators: the Philox stream state (seed, offset) per generator, one default
// generator per device, and the manual_seed entry points.
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <cstring>
#include <mutex>
#include <vector>

namespace at {

CUDAGeneratorImpl::CUDAGeneratorImpl(uint64_t seed, int device) : GeneratorImpl(seed), device_(device) {}

CUDAGeneratorImpl::~CUDAGeneratorImpl() = default;

void CUDAGeneratorImpl::set_current_seed(uint64_t seed) {
  GeneratorImpl::set_current_seed(seed);
  offset_ = 0;
}

// See Note [Generator state bytes] (aten/src/Generator.cpp): "EMRG", kind 2, seed, offset.
std::vector<uint8_t> CUDAGeneratorImpl::state_bytes() const {
  std::vector<uint8_t> out(24);
  const uint32_t kind = 2;
  const uint64_t seed = current_seed();
  std::memcpy(out.data(), "EMRG", 4);
  std::memcpy(out.data() + 4, &kind, 4);
  std::memcpy(out.data() + 8, &seed, 8);
  std::memcpy(out.data() + 16, &offset_, 8);
  return out;
}

void CUDAGeneratorImpl::restore_state_bytes(const uint8_t* bytes, size_t n) {
  uint32_t kind = 0;
  if (n == 24) std::memcpy(&kind, bytes + 4, 4);
  EMBER_CHECK(n == 24 && std::memcmp(bytes, "EMRG", 4) == 0 && kind == 2,
              "[Generator::set_state] expected a CUDA generator state of 24 bytes from Generator::get_state(); got ", n,
              " bytes", n == 24 ? " of another kind of generator" : "");
  uint64_t seed = 0, offset = 0;
  std::memcpy(&seed, bytes + 8, 8);
  std::memcpy(&offset, bytes + 16, 8);
  GeneratorImpl::set_current_seed(seed);
  offset_ = offset;
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
