#pragma once
// The dispatcher: one table of kernel pointers, [op][dispatch key]. A call computes the key from
// its tensor arguments (device type; Autograd when a tensor requires grad and grad mode is on)
// and makes one indirect call -- no locks, hash lookups, boxing or allocation.
//
// Kernels are installed at load time by the generated register_*_kernels() functions, and can be
// replaced at run time:
//   auto prev = ember::register_kernel<at::ops::add_Tensor>(c10::DispatchKey::CPU, &my_add);
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/OpIds.h>
#include <ATen/core/Tensor.h>
#include <atomic>

namespace c10 {
/// Rows of the dispatch table: one per c10::DeviceType (same value), then Autograd, which sits
/// above the backends (see Note [Autograd key]).
enum class DispatchKey : uint8_t { CPU = 0, CUDA = 1, Meta = 2, PrivateUse1 = 3, Autograd = 4 };
constexpr int kNumDispatchKeys = 5;
static_assert(static_cast<int>(DispatchKey::PrivateUse1) == static_cast<int>(DeviceType::PrivateUse1) &&
              static_cast<int>(DispatchKey::Meta) == static_cast<int>(DeviceType::Meta) &&
              static_cast<int>(DispatchKey::Autograd) == kNumDeviceTypes, "backend rows are indexed by DeviceType");
const char* toString(DispatchKey k);
}  // namespace c10

namespace ember {

/// True in a library built with CUDA kernels.
bool built_with_cuda();

namespace dispatch {

// Note [Autograd key]
// A call goes to the Autograd row when one of its tensors requires grad and grad mode is on;
// autograd wrappers record the graph and then call the backend row directly. An op with no
// Autograd entry (composites, non-differentiable ops) goes straight to its backend row.

extern std::atomic<void*> table[kNumOps][c10::kNumDispatchKeys];

/// Grad mode (thread-local); defined here so that the hot path can read it inline.
extern thread_local bool tls_grad_enabled;
/// Set while an autograd wrapper calls the backend kernel: nested calls record no history.
extern thread_local bool tls_below_autograd;
/// c10::InferenceMode: skips version-counter bumps.
extern thread_local bool tls_inference_mode;

struct KeySet {
  uint8_t backend = 0;  // DispatchKey of the highest backend seen (PrivateUse1 > Meta > CUDA > CPU)
  bool autograd = false;
};

inline void add_key(KeySet& ks, const at::Tensor& t) {
  c10::TensorImpl* impl = t.unsafeGetTensorImpl();
  if (!impl) return;
  uint8_t b = static_cast<uint8_t>(impl->device().type());
  if (b > ks.backend) ks.backend = b;
  if (EMBER_UNLIKELY(impl->autograd_meta() != nullptr) && impl->requires_grad()) ks.autograd = true;
}
inline void add_key(KeySet& ks, const std::optional<at::Tensor>& t) { if (t) add_key(ks, *t); }
inline void add_key(KeySet& ks, at::TensorList ts) { for (const auto& t : ts) add_key(ks, t); }
inline void add_key(KeySet& ks, const c10::List<std::optional<at::Tensor>>& ts) { for (const auto& t : ts) add_key(ks, t); }

template <typename... Ts>
inline KeySet key_set(const Ts&... ts) {
  KeySet ks;
  (add_key(ks, ts), ...);
  ks.autograd = ks.autograd && tls_grad_enabled && !tls_below_autograd;
  return ks;
}
inline KeySet key_set_for(at::Device d) { KeySet ks; ks.backend = static_cast<uint8_t>(d.type()); return ks; }
inline KeySet key_set_for(const std::optional<at::Device>& d) { return d ? key_set_for(*d) : KeySet{}; }

[[noreturn]] void missing_kernel(OpId id, uint8_t key);

[[noreturn]] void device_mismatch(const char* op, at::Device a, at::Device b);
/// Generated check for kernels taking several tensors: all defined ones on one device.
template <typename... Ts>
inline void check_same_device(const char* op, const Ts&... ts) {
  const at::Tensor* first = nullptr;
  auto one = [&](const auto& t) {
    using T = std::decay_t<decltype(t)>;
    const at::Tensor* p = nullptr;
    if constexpr (std::is_same_v<T, at::Tensor>) p = t.defined() ? &t : nullptr;
    else p = (t && t->defined()) ? &*t : nullptr;
    if (!p) return;
    if (!first) { first = p; return; }
    if (EMBER_UNLIKELY(p->device() != first->device()))
      device_mismatch(op, first->device(), p->device());
  };
  (one(ts), ...);
}

/// The kernel a call with key set `ks` goes to.
inline void* lookup(OpId id, KeySet ks) {
  auto& row = table[static_cast<uint32_t>(id)];
  if (EMBER_UNLIKELY(ks.autograd)) {
    if (void* f = row[static_cast<int>(c10::DispatchKey::Autograd)].load(std::memory_order_relaxed)) return f;
  }
  void* f = row[ks.backend].load(std::memory_order_relaxed);
  if (EMBER_UNLIKELY(!f)) missing_kernel(id, ks.backend);
  return f;
}

/// Called by generated code after an op wrote into `t` (kernels do not bump themselves). Inference
/// mode bumps too: a tensor saved for backward outside it must still see the write.
inline void bump_version(const at::Tensor& t) {
  if (c10::TensorImpl* impl = t.unsafeGetTensorImpl()) impl->bump_version();
}

/// Set by autograd at load: records that `view` is a view of `base` (see autograd's Note [Views
/// in autograd]). The core calls it without depending on autograd.
using ViewHook = void (*)(const at::Tensor& view, const at::Tensor& base);
extern ViewHook view_hook;
/// Generated view functions call this when the call did not go through the Autograd row.
inline void note_view(const at::Tensor& view, const at::Tensor& base) {
  if (tls_below_autograd || tls_inference_mode || view_hook == nullptr) return;
  if (!c10::isFloatingType(base.scalar_type())) return;
  view_hook(view, base);
}

/// Installs a kernel; returns the previous one.
void* set_kernel(OpId id, c10::DispatchKey key, void* fn);
/// The kernel installed for (op, key), or null.
inline void* get_kernel(OpId id, c10::DispatchKey key) {
  return table[static_cast<uint32_t>(id)][static_cast<int>(key)].load(std::memory_order_relaxed);
}

}  // namespace dispatch

/// Replaces the kernel of `Op` (an at::ops:: descriptor) for `key` at run time; returns the old one.
template <typename Op>
typename Op::schema* register_kernel(c10::DispatchKey key, typename Op::schema* fn) {
  return reinterpret_cast<typename Op::schema*>(dispatch::set_kernel(Op::id, key, reinterpret_cast<void*>(fn)));
}

}  // namespace ember

EMBER_PUBLIC_END
