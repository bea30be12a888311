#pragma once
// torch::autograd: grad(), backward(), anomaly mode, custom Functions, gradcheck.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/gradcheck.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/csrc/autograd/variable.h>
#include <optional>

namespace torch::autograd {

/// Gradients of `outputs` w.r.t. `inputs` (returned, not accumulated into .grad()).
variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false, bool allow_unused = false);

/// Accumulates gradients of `tensors` into the leaves' .grad() (or only into `inputs` if given).
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false, const variable_list& inputs = {});

/// Anomaly mode: the engine checks every backward output for NaN and names the forward op.
struct AnomalyMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};
/// Enables anomaly mode for a scope.
class DetectAnomalyGuard {
 public:
  DetectAnomalyGuard() : prev_(AnomalyMode::is_enabled()) { AnomalyMode::set_enabled(true); }
  ~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_); }
 private:
  bool prev_;
};

}  // namespace torch::autograd

EMBER_PUBLIC_END
