#pragma once
// AutogradMeta: what autograd attaches to a tensor (requires_grad, .grad, grad_fn, hooks), and the
// helpers generated autograd wrappers use to record history.
#include <torch/csrc/autograd/function.h>

namespace torch::autograd {

struct AutogradMeta : c10::AutogradMetaInterface {
  bool requires_grad() const override { return requires_grad_ || grad_fn_ != nullptr; }
  bool requires_grad_ = false;
  bool retains_grad_ = false;
  bool is_view_ = false;
  uint32_t output_nr_ = 0;
  at::Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;
  at::Tensor base_;  // for views: the tensor they view
  std::shared_ptr<at::Tensor> retained_grad_;  // non-leaf .grad() after retain_grad()
  std::vector<std::function<at::Tensor(const at::Tensor&)>> hooks_;  // hooks on a leaf's gradient
  std::mutex mutex_;
};

namespace impl {
/// The tensor's AutogradMeta, or null.
inline AutogradMeta* get_autograd_meta(const at::Tensor& t) {
  return t.defined() ? static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta()) : nullptr;
}
/// The tensor's AutogradMeta, created if missing.
AutogradMeta* materialize_autograd_meta(const at::Tensor& t);
/// The AccumulateGrad node of a leaf that requires grad (created on first use).
std::shared_ptr<Node> grad_accumulator(const at::Tensor& t);
}  // namespace impl

/// The edge a tensor's gradient flows into: its grad_fn, or its leaf accumulator; invalid if the
/// tensor does not require grad.
Edge gradient_edge(const at::Tensor& t);
/// True if grad mode is on and any of the tensors requires grad.
bool compute_requires_grad(std::initializer_list<const at::Tensor*> ts);
bool compute_requires_grad(at::TensorList ts);
/// Makes `node` the grad_fn of `t` (output number `output_nr`) and records t's metadata on node.
void set_history(const at::Tensor& t, const std::shared_ptr<Node>& node, uint32_t output_nr = 0);
/// Like set_history for a tensor modified in place: it now comes from `node`.
void rebase_history(const at::Tensor& t, const std::shared_ptr<Node>& node);
/// Raises libtorch's error for in-place ops on leaves that require grad.
void check_inplace(const at::Tensor& t, const char* op);

/// Scoped: calls below the Autograd key (inside an autograd wrapper) do not record history.
class BelowAutogradGuard {
 public:
  BelowAutogradGuard();
  ~BelowAutogradGuard();
 private:
  bool prev_;
};

}  // namespace torch::autograd
