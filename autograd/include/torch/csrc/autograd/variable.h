#pragma once
// AutogradMeta: what autograd attaches to a tensor (requires_grad, .grad, grad_fn, hooks), and the
// helpers generated autograd wrappers use to record history.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/csrc/autograd/function.h>

namespace torch::autograd {

// Note [Views in autograd]
// Every view of a floating-point tensor made outside inference mode is recorded as a view of its
// root base (the tensor at the end of its view chain), whether or not anything requires grad
// yet: a later in-place write of a grad-requiring value into the view, or into another view of
// the same base, changes the base's history (CopySlices), and every view then needs a grad_fn
// that goes through the base's new history. A view's grad_fn is valid for the version of the
// storage it was recorded at (view_version_); when the version moved on (an in-place write through
// any alias) or the base came to require grad, the next read of the grad_fn regenerates it as
// "this view of the base" (see impl::grad_fn). Views made under no_grad never get history, and an
// in-place op that records history on one raises (the intent is ambiguous).
struct AutogradMeta : c10::AutogradMetaInterface {
  bool requires_grad() const override {
    return requires_grad_ || grad_fn_ != nullptr || (is_view_ && !view_made_without_grad_ && base_.requires_grad());
  }
  bool requires_grad_ = false;
  bool retains_grad_ = false;
  bool is_view_ = false;
  bool view_made_without_grad_ = false;  // the view was made with grad mode off
  uint32_t view_version_ = 0;             // storage version the view's grad_fn_ was recorded at
  uint32_t output_nr_ = 0;
  at::Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;
  at::Tensor base_;  // for views: the tensor they view
  std::shared_ptr<at::Tensor> retained_grad_;  // non-leaf .grad() after retain_grad()
  std::vector<std::function<at::Tensor(const at::Tensor&)>> hooks_;  // hooks on a leaf's gradient
  std::mutex mutex_;
};

/// A Node for "`view` is this strided window of `base`" (AsStridedBackward0): scatters the view's
/// gradient into a zero gradient of the base's shape; its edge is the base's gradient edge.
std::shared_ptr<Node> make_view_of_base_node(const at::Tensor& view, const at::Tensor& base);

namespace impl {
/// The tensor's AutogradMeta, or null.
inline AutogradMeta* get_autograd_meta(const at::Tensor& t) {
  return t.defined() ? static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta()) : nullptr;
}
/// The tensor's AutogradMeta, created if missing.
AutogradMeta* materialize_autograd_meta(const at::Tensor& t);
/// The AccumulateGrad node of a leaf that requires grad (created on first use).
std::shared_ptr<Node> grad_accumulator(const at::Tensor& t);
/// The tensor's grad_fn, regenerated first for a view whose recorded one is stale (Note [Views
/// in autograd]); null for leaves and tensors without history.
const std::shared_ptr<Node>& grad_fn(const at::Tensor& t);
/// Makes `node` the grad_fn of `t` without touching the node (used when a saved output is
/// unpacked during backward: the node's metadata was recorded in forward and is shared).
void set_grad_fn_only(const at::Tensor& t, const std::shared_ptr<Node>& node, uint32_t output_nr);
}  // namespace impl

/// The edge a tensor's gradient flows into: its grad_fn, or its leaf accumulator; invalid if the
/// tensor does not require grad.
Edge gradient_edge(const at::Tensor& t);
/// True if grad mode is on and any of the tensors requires grad.
bool compute_requires_grad(std::initializer_list<const at::Tensor*> ts);
bool compute_requires_grad(at::TensorList ts);
bool compute_requires_grad(const c10::List<std::optional<at::Tensor>>& ts);  // Tensor?[] (index, index_put)
/// Makes `node` the grad_fn of `t` (output number `output_nr`) and records t's metadata on node.
void set_history(const at::Tensor& t, const std::shared_ptr<Node>& node, uint32_t output_nr = 0);
/// Like set_history for a tensor modified in place: it now comes from `node`.
void rebase_history(const at::Tensor& t, const std::shared_ptr<Node>& node);
/// Raises for in-place ops on leaves that require grad (libtorch raises too).
void check_inplace(const at::Tensor& t, const char* op);
/// Raises when an in-place op that records history writes into a view made under no_grad.
void check_inplace_on_view_mode(const at::Tensor& t, const char* op);

/// Scoped: calls below the Autograd key (inside an autograd wrapper) do not record history.
class BelowAutogradGuard {
 public:
  BelowAutogradGuard();
  ~BelowAutogradGuard();
 private:
  bool prev_;
};

}  // namespace torch::autograd

EMBER_PUBLIC_END
