// The PrivateUse1 row of the dispatch table: the runtime of the generated CPU fallback.
//
// Note [PrivateUse1 fallback]
// An out-of-tree backend registers kernels for the ops it has; every other op must still run on
// its tensors. The generator (codegen/gen.py, render_privateuse1; RegisterPrivateUse1.cpp.j2)
// fills each op's PrivateUse1 slot at load time, unless something is there already:
//   - composite ops get their composite (they run over the backend's kernels, as on CUDA), and ops
//     whose CPU and CUDA kernel is one device-generic function (views, empty, _to_copy, clone...)
//     get that function: views stay views of the device memory;
//   - copy_ gets a kernel that raises until the backend registers its own: the fallback is made of
//     copy_ (host <-> device), _to_copy, the empty factories and resize_, which never fall back;
//   - every other op gets a generated fallback: each PrivateUse1 tensor argument is copied to the
//     CPU (at::_to_copy, i.e. the backend's empty_strided + copy_), the CPU kernel runs, tensor
//     results are copied to the device of the first device tensor (or the device the options
//     name: factories), and in-place / out= arguments get their CPU copy written back (resized
//     first when an out= kernel resized it), so a write into a device view lands in its base;
//   - a view op (a result that aliases an input) never falls back: its copy could not share the
//     device memory, so it raises and asks for a kernel (libtorch's cpu_fallback refuses views too).
// Calls below the fallback record no autograd history: the Autograd row above it has recorded the
// op already, and backward formulas run as ordinary ops on device tensors (falling back again when
// they must). Random ops draw from the CPU generator. Only 0-dim CPU tensors may be mixed with
// device tensors (and CPU index tensors in `Tensor?[]` lists), as in libtorch.
#include <ATen/native/PrivateUse1Fallback.h>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace ember::privateuse1 {
namespace {
std::atomic<void*> g_fallbacks[kNumOps];
std::atomic<int64_t> g_counts[kNumOps];
std::atomic<bool> g_warned[kNumOps];
std::atomic<int> g_mode{-1};

FallbackMode mode_from_env() {
  const char* e = std::getenv("EMBER_PRIVATEUSE1_FALLBACK");
  if (e && std::strcmp(e, "warn") == 0) return FallbackMode::Warn;
  if (e && std::strcmp(e, "error") == 0) return FallbackMode::Error;
  return FallbackMode::Run;
}

const char* base_name(OpId id) { return kOpBaseNames[static_cast<uint32_t>(id)]; }
const char* full_name(OpId id) { return kOpNames[static_cast<uint32_t>(id)]; }
}  // namespace

void set_fallback_mode(FallbackMode mode) { g_mode.store(static_cast<int>(mode), std::memory_order_relaxed); }
FallbackMode fallback_mode() {
  int m = g_mode.load(std::memory_order_relaxed);
  if (EMBER_UNLIKELY(m < 0)) {
    int expected = -1;
    g_mode.compare_exchange_strong(expected, static_cast<int>(mode_from_env()));
    m = g_mode.load(std::memory_order_relaxed);
  }
  return static_cast<FallbackMode>(m);
}

int64_t fallback_count(const std::string& op) {
  for (uint32_t i = 0; i < kNumOps; ++i)
    if (op == kOpNames[i]) return g_counts[i].load(std::memory_order_relaxed);
  EMBER_CHECK(false, "[fallback_count] expected an op name of ops.yaml with its overload (e.g. 'sum.dim_IntList'); got '", op, "'");
  return 0;
}

std::vector<std::pair<std::string, int64_t>> fallback_counts() {
  std::vector<std::pair<std::string, int64_t>> out;
  for (uint32_t i = 0; i < kNumOps; ++i)
    if (int64_t n = g_counts[i].load(std::memory_order_relaxed)) out.emplace_back(kOpNames[i], n);
  return out;
}

void reset_fallback_counts() {
  for (uint32_t i = 0; i < kNumOps; ++i) g_counts[i].store(0, std::memory_order_relaxed);
}

void* fallback_kernel(OpId id) {
  EMBER_CHECK(static_cast<uint32_t>(id) < kNumOps, "[fallback_kernel] unknown op id ", static_cast<uint32_t>(id));
  return g_fallbacks[static_cast<uint32_t>(id)].load(std::memory_order_relaxed);
}

namespace detail {

void install(OpId id, void* fn, bool is_fallback) {
  const uint32_t i = static_cast<uint32_t>(id);
  if (is_fallback) g_fallbacks[i].store(fn, std::memory_order_relaxed);
  void* expected = nullptr;
  dispatch::table[i][static_cast<int>(c10::DispatchKey::PrivateUse1)].compare_exchange_strong(expected, fn);
}

at::Tensor& missing_copy(at::Tensor&, const at::Tensor&, bool) {
  throw c10::NotImplementedError(c10::str(
      "[copy_] expected the '", c10::get_privateuse1_backend(), "' backend to register copy_ for "
      "c10::DispatchKey::PrivateUse1 (host to device, device to host, device to device); it registered none"));
}

FallbackCall::FallbackCall(OpId id) : id_(id), saved_below_autograd_(dispatch::tls_below_autograd) {
  const uint32_t i = static_cast<uint32_t>(id);
  const FallbackMode mode = fallback_mode();
  if (mode == FallbackMode::Error)
    throw c10::NotImplementedError(c10::str("[", base_name(id), "] the '", c10::get_privateuse1_backend(),
                                            "' backend has no kernel for ", full_name(id),
                                            " and the CPU fallback is off (ember::privateuse1::set_fallback_mode)"));
  // The fallback moves data with the backend's copy_ and allocates with its allocator: say so
  // here, under this op's name, rather than deep inside the first copy.
  void* copy = dispatch::get_kernel(OpId::copy_, c10::DispatchKey::PrivateUse1);
  if (copy == nullptr || copy == reinterpret_cast<void*>(&missing_copy))
    throw c10::NotImplementedError(c10::str(
        "[", base_name(id), "] the '", c10::get_privateuse1_backend(), "' backend has no kernel for ", full_name(id),
        ", and the CPU fallback needs its copy_ kernel; expected copy_ registered for c10::DispatchKey::PrivateUse1, got none"));
  try {
    (void)c10::GetAllocator(c10::kPrivateUse1);
  } catch (const c10::Error&) {
    throw c10::Error(c10::str("[", base_name(id), "] expected an allocator for the '", c10::get_privateuse1_backend(),
                              "' device (c10::SetAllocator(c10::kPrivateUse1, ...)); none is registered"));
  }
  g_counts[i].fetch_add(1, std::memory_order_relaxed);
  if (mode == FallbackMode::Warn && !g_warned[i].exchange(true))
    std::cerr << "[" << base_name(id) << "] runs on the CPU: the '" << c10::get_privateuse1_backend()
              << "' backend has no kernel for " << full_name(id) << " (said once per op)\n";
  dispatch::tls_below_autograd = true;  // last: the destructor does not run if the above throws
}

FallbackCall::~FallbackCall() { dispatch::tls_below_autograd = saved_below_autograd_; }

void FallbackCall::see(const at::Tensor& t, bool cpu_ok) {
  if (!t.defined()) return;
  const c10::Device d = t.device();
  if (d.is_privateuseone()) {
    if (cpu_tensor_) dispatch::device_mismatch(base_name(id_), d, cpu_tensor_->device());
    if (!tensor_device_) tensor_device_ = d;
    else if (d != *tensor_device_) dispatch::device_mismatch(base_name(id_), *tensor_device_, d);
    return;
  }
  if (d.is_cpu()) {
    if (cpu_ok || t.dim() == 0) return;
    if (tensor_device_) dispatch::device_mismatch(base_name(id_), *tensor_device_, d);
    cpu_tensor_ = &t;
    return;
  }
  dispatch::device_mismatch(base_name(id_), tensor_device_ ? *tensor_device_ : c10::Device(c10::kPrivateUse1), d);
}

at::Tensor FallbackCall::cpu(const at::Tensor& t) {
  see(t, false);
  if (!t.defined() || !t.device().is_privateuseone()) return t;
  return at::_to_copy(t, at::TensorOptions().device(c10::kCPU));
}

std::optional<at::Tensor> FallbackCall::cpu(const std::optional<at::Tensor>& t) {
  if (!t) return std::nullopt;
  return cpu(*t);
}

std::vector<at::Tensor> FallbackCall::cpu(at::TensorList ts) {
  std::vector<at::Tensor> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(cpu(t));
  return out;
}

c10::List<std::optional<at::Tensor>> FallbackCall::cpu(const c10::List<std::optional<at::Tensor>>& ts) {
  c10::List<std::optional<at::Tensor>> out;
  out.reserve(ts.size());
  for (const auto& t : ts) {
    if (t) see(*t, true);
    if (t && t->defined() && t->device().is_privateuseone()) out.emplace_back(at::_to_copy(*t, at::TensorOptions().device(c10::kCPU)));
    else out.push_back(t);
  }
  return out;
}

at::TensorOptions FallbackCall::cpu(at::TensorOptions o) {
  if (!o.has_device()) return o;
  options_device_ = o.device();
  return o.device(c10::kCPU);
}

void* FallbackCall::cpu_kernel() const {
  void* f = dispatch::get_kernel(id_, c10::DispatchKey::CPU);
  EMBER_INTERNAL_ASSERT(f != nullptr, "no CPU kernel for ", full_name(id_), " to fall back to");
  return f;
}

at::Tensor FallbackCall::back(const at::Tensor& r) {
  if (!r.defined()) return r;
  const std::optional<c10::Device> target = options_device_ ? options_device_ : tensor_device_;
  if (!target || !target->is_privateuseone()) return r;
  return at::_to_copy(r, at::TensorOptions().device(*target));
}

std::vector<at::Tensor> FallbackCall::back(std::vector<at::Tensor> rs) {
  for (auto& r : rs) r = back(r);
  return rs;
}

void FallbackCall::write_back(at::Tensor& orig, const at::Tensor& copy) {
  if (!orig.defined() || orig.is_same(copy)) return;
  if (orig.sizes() != copy.sizes()) orig.resize_(copy.sizes());
  orig.copy_(copy);
}

void FallbackCall::view_error() const {
  throw c10::NotImplementedError(c10::str(
      "[", base_name(id_), "] expected the '", c10::get_privateuse1_backend(), "' backend to register a kernel for the view op ",
      full_name(id_), "; it has none, and a view cannot run through the CPU fallback (a copy would not share the device memory)"));
}

}  // namespace detail
}  // namespace ember::privateuse1
