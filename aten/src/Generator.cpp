// The Mersenne Twister, the CPU generator, the default generators and manual_seed.
#include <ATen/Generator.h>
#include <ATen/ATen.h>
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

// Note [Generator state bytes]
// get_state() writes a generator's whole position as bytes in host order, so that set_state() on
// a generator of the same kind continues the same stream:
//   CPU:  "EMRG", u32 kind 1, u64 seed, u32 next word index, 624 u32 Mersenne Twister words,
//         u8 + f64 the cached double normal, u8 + f32 the cached float normal  (2,530 bytes)
//   CUDA: "EMRG", u32 kind 2, u64 seed, u64 Philox offset                      (24 bytes)
// The layout is Ember's (libtorch's 5,056-byte CPU state carries a legacy struct); a version bump
// would change the magic.
namespace {
constexpr char kStateMagic[4] = {'E', 'M', 'R', 'G'};
constexpr uint32_t kCpuStateKind = 1;
constexpr size_t kCpuStateBytes = 4 + 4 + 8 + 4 + 4 * MT19937::kStateSize + 1 + 8 + 1 + 4;

struct ByteWriter {
  std::vector<uint8_t> out;
  template <typename T>
  void put(const T& v) {
    const size_t at = out.size();
    out.resize(at + sizeof(T));
    std::memcpy(out.data() + at, &v, sizeof(T));
  }
};
struct ByteReader {
  const uint8_t* p;
  template <typename T>
  T take() {
    T v;
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
};
}  // namespace

std::vector<uint8_t> GeneratorImpl::state_bytes() const {
  EMBER_CHECK(false, "[Generator::get_state] expected a CPU or CUDA generator; got one with no state to save");
  return {};
}

void GeneratorImpl::restore_state_bytes(const uint8_t*, size_t) {
  EMBER_CHECK(false, "[Generator::set_state] expected a CPU or CUDA generator; got one with no state to restore");
}

std::vector<uint8_t> CPUGeneratorImpl::state_bytes() const {
  ByteWriter w;
  for (char c : kStateMagic) w.put(c);
  w.put(kCpuStateKind);
  w.put(current_seed());
  w.put(static_cast<uint32_t>(engine_.next_index()));
  for (int i = 0; i < MT19937::kStateSize; ++i) w.put(engine_.state()[i]);
  w.put(static_cast<uint8_t>(next_double_normal_.has_value()));
  w.put(next_double_normal_.value_or(0.0));
  w.put(static_cast<uint8_t>(next_float_normal_.has_value()));
  w.put(next_float_normal_.value_or(0.0f));
  return std::move(w.out);
}

void CPUGeneratorImpl::restore_state_bytes(const uint8_t* bytes, size_t n) {
  EMBER_CHECK(n == kCpuStateBytes && std::memcmp(bytes, kStateMagic, 4) == 0,
              "[Generator::set_state] expected a CPU generator state of ", kCpuStateBytes,
              " bytes from Generator::get_state(); got ", n, " bytes", n >= 4 && std::memcmp(bytes, kStateMagic, 4) != 0 ? " without Ember's state header" : "");
  ByteReader r{bytes + 4};
  const uint32_t kind = r.take<uint32_t>();
  EMBER_CHECK(kind == kCpuStateKind, "[Generator::set_state] expected the state of a CPU generator; got that of another kind (", kind, ")");
  const uint64_t seed = r.take<uint64_t>();
  const uint32_t next = r.take<uint32_t>();
  EMBER_CHECK(next <= static_cast<uint32_t>(MT19937::kStateSize), "[Generator::set_state] expected a word index of at most ",
              MT19937::kStateSize, "; got ", next);
  uint32_t words[MT19937::kStateSize];
  for (auto& word : words) word = r.take<uint32_t>();
  const bool has_double = r.take<uint8_t>() != 0;
  const double dn = r.take<double>();
  const bool has_float = r.take<uint8_t>() != 0;
  const float fn = r.take<float>();
  GeneratorImpl::set_current_seed(seed);
  engine_.set_state(words, static_cast<int>(next));
  next_double_normal_ = has_double ? std::optional<double>(dn) : std::nullopt;
  next_float_normal_ = has_float ? std::optional<float>(fn) : std::nullopt;
}

Tensor Generator::get_state() const {
  EMBER_CHECK(defined(), "[Generator::get_state] expected a defined generator; got an empty one");
  std::vector<uint8_t> bytes;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex_);
    bytes = impl_->state_bytes();
  }
  Tensor t = at::empty({static_cast<int64_t>(bytes.size())}, TensorOptions().dtype(kByte));
  if (!bytes.empty()) std::memcpy(t._mutable_data_ptr_internal(), bytes.data(), bytes.size());
  return t;
}

void Generator::set_state(const Tensor& new_state) {
  EMBER_CHECK(defined(), "[Generator::set_state] expected a defined generator; got an empty one");
  EMBER_CHECK(new_state.defined() && new_state.scalar_type() == kByte && new_state.dim() == 1 && new_state.is_cpu(),
              "[Generator::set_state] expected a 1-D uint8 CPU tensor from Generator::get_state(); got ",
              new_state.defined() ? c10::str(new_state.dim(), "-D ", c10::dtypeName(new_state.scalar_type()), " on ", new_state.device())
                                  : std::string("an undefined tensor"));
  const Tensor bytes = new_state.contiguous();
  std::lock_guard<std::mutex> lock(impl_->mutex_);
  impl_->restore_state_bytes(static_cast<const uint8_t*>(bytes.const_data_ptr()), static_cast<size_t>(bytes.numel()));
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
