#pragma once
// The PrivateUse1 device: the slot an out-of-tree backend plugs into (docs/embedding.md "Adding a
// backend"). The backend, a shared library built against the installed headers, at load time:
//   - names the device:           c10::register_privateuse1_backend("toy");   // Device("toy:0")
//   - gives it memory:            c10::SetAllocator(c10::kPrivateUse1, &my_allocator);
//   - registers copy_ for it:     host <-> device and device <-> device (what the fallback uses);
//   - registers whatever kernels it has (EMBER_LIBRARY_IMPL(PrivateUse1, m), <ATen/core/Library.h>).
// Every other op runs through the generated CPU fallback: its PrivateUse1 tensor arguments are
// copied to the CPU with the backend's copy_, the CPU kernel runs, and results are copied back to
// the device (in-place and out= arguments are written back). See Note [PrivateUse1 fallback].
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Library.h>
#include <string>
#include <utility>
#include <vector>

namespace ember::privateuse1 {

/// What a call that reaches the CPU fallback does.
enum class FallbackMode {
  Run,    // run it on the CPU, count it (the default)
  Warn,   // run it, and write one line to stderr the first time each op falls back
  Error,  // raise "[op] ... has no kernel for <backend> and the CPU fallback is off"
};
/// Sets the mode for the whole process (EMBER_PRIVATEUSE1_FALLBACK=run|warn|error at start-up).
void set_fallback_mode(FallbackMode mode);
FallbackMode fallback_mode();

/// How many calls of `op` ran through the CPU fallback ("sum.dim_IntList", "_softmax"; the
/// ops.yaml name with its overload), since start or the last reset_fallback_counts().
int64_t fallback_count(const std::string& op);
/// Every op that fell back, with its count, in op order.
std::vector<std::pair<std::string, int64_t>> fallback_counts();
void reset_fallback_counts();

/// The generated CPU fallback of an op (null for copy_, the empty factories, resize_ and
/// _to_copy, which the fallback itself is made of). A backend kernel that handles only some
/// cases can call it for the rest.
void* fallback_kernel(OpId id);
template <typename Op>
typename Op::schema* cpu_fallback() {
  return reinterpret_cast<typename Op::schema*>(fallback_kernel(Op::id));
}
/// True while Op's PrivateUse1 kernel is the generated fallback (no backend kernel registered).
template <typename Op>
bool falls_back() {
  void* f = fallback_kernel(Op::id);
  return f != nullptr && dispatch::get_kernel(Op::id, c10::DispatchKey::PrivateUse1) == f;
}

}  // namespace ember::privateuse1

EMBER_PUBLIC_END
