#pragma once
// Grad mode: a thread-local switch read by the dispatcher (see Note [Autograd key]).
//   { torch::NoGradGuard no_grad; auto y = model(x); }   // records no graph
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Dispatcher.h>

namespace at {
struct GradMode {
  static bool is_enabled() { return ember::dispatch::tls_grad_enabled; }
  static void set_enabled(bool on) { ember::dispatch::tls_grad_enabled = on; }
};

/// Sets grad mode for a scope and restores the previous mode on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;
 private:
  bool prev_;
};

/// Disables gradient recording for a scope.
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};
}  // namespace at

namespace c10 {
/// Inference mode: no graph recording, no version-counter bumps (cheaper in-place ops). Tensors
/// created inside are ordinary tensors here (libtorch additionally marks them as inference tensors).
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true)
      : prev_grad_(ember::dispatch::tls_grad_enabled), prev_inf_(ember::dispatch::tls_inference_mode) {
    if (enabled) {
      ember::dispatch::tls_grad_enabled = false;
      ember::dispatch::tls_inference_mode = true;
    }
  }
  ~InferenceMode() {
    ember::dispatch::tls_grad_enabled = prev_grad_;
    ember::dispatch::tls_inference_mode = prev_inf_;
  }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled() { return ember::dispatch::tls_inference_mode; }
 private:
  bool prev_grad_, prev_inf_;
};
}  // namespace c10

namespace torch {
using c10::InferenceMode;
using at::AutoGradMode;
using at::NoGradGuard;
}  // namespace torch

EMBER_PUBLIC_END
