// AutogradMeta management and history recording.
#include <torch/csrc/autograd/variable.h>

namespace torch::autograd {

namespace impl {
AutogradMeta* materialize_autograd_meta(const at::Tensor& t) {
  EMBER_CHECK(t.defined(), "[autograd] expected a defined tensor");
  c10::TensorImpl* impl = t.unsafeGetTensorImpl();
  if (!impl->autograd_meta()) impl->set_autograd_meta(std::make_unique<AutogradMeta>());
  return static_cast<AutogradMeta*>(impl->autograd_meta());
}

std::shared_ptr<Node> grad_accumulator(const at::Tensor& t) {
  AutogradMeta* meta = get_autograd_meta(t);
  if (!meta || !meta->requires_grad_ || meta->grad_fn_) return nullptr;
  std::lock_guard<std::mutex> lock(meta->mutex_);
  if (auto acc = meta->grad_accumulator_.lock()) return acc;
  // The accumulator holds the leaf strongly; the leaf holds it weakly (no cycle).
  auto acc = std::make_shared<AccumulateGrad>(at::Tensor(t.getIntrusivePtr()));
  meta->grad_accumulator_ = acc;
  return acc;
}
const std::shared_ptr<Node>& grad_fn(const at::Tensor& t) {
  static const std::shared_ptr<Node> none;
  AutogradMeta* m = get_autograd_meta(t);
  if (!m) return none;
  if (m->is_view_ && !m->view_made_without_grad_ && m->base_.defined()) {
    std::lock_guard<std::mutex> lock(m->mutex_);
    const uint32_t v = t._version();
    const bool stale = m->grad_fn_ ? m->view_version_ != v : m->base_.requires_grad();
    if (stale && m->base_.requires_grad()) {
      m->grad_fn_ = make_view_of_base_node(t, m->base_);
      m->output_nr_ = 0;
      m->view_version_ = v;
    }
  }
  return m->grad_fn_;
}

void set_grad_fn_only(const at::Tensor& t, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  AutogradMeta* meta = materialize_autograd_meta(t);
  meta->grad_fn_ = node;
  meta->output_nr_ = output_nr;
}
}  // namespace impl

Edge gradient_edge(const at::Tensor& t) {
  AutogradMeta* meta = impl::get_autograd_meta(t);
  if (!meta) return Edge();
  if (meta->is_view_) impl::grad_fn(t);  // refresh a stale view history
  if (meta->grad_fn_) return Edge(meta->grad_fn_, meta->output_nr_);
  if (meta->requires_grad_) return Edge(impl::grad_accumulator(t), 0);
  return Edge();
}

bool compute_requires_grad(std::initializer_list<const at::Tensor*> ts) {
  if (!at::GradMode::is_enabled()) return false;
  for (const at::Tensor* t : ts)
    if (t && t->defined() && t->requires_grad()) return true;
  return false;
}

bool compute_requires_grad(at::TensorList ts) {
  if (!at::GradMode::is_enabled()) return false;
  for (const at::Tensor& t : ts)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

bool compute_requires_grad(const c10::List<std::optional<at::Tensor>>& ts) {
  if (!at::GradMode::is_enabled()) return false;
  for (const auto& t : ts)
    if (t && t->defined() && t->requires_grad()) return true;
  return false;
}

void set_history(const at::Tensor& t, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  if (!t.defined() || !t.is_floating_point()) return;  // integer/bool outputs never require grad
  AutogradMeta* meta = impl::materialize_autograd_meta(t);
  meta->grad_fn_ = node;
  meta->output_nr_ = output_nr;
  if (meta->is_view_) meta->view_version_ = t._version();
  node->set_input_metadata(output_nr, InputMetadata{t.sizes().vec(), t.scalar_type(), t.device()});
}

void rebase_history(const at::Tensor& t, const std::shared_ptr<Node>& node) { set_history(t, node, 0); }

void check_inplace(const at::Tensor& t, const char* op) {
  AutogradMeta* meta = impl::get_autograd_meta(t);
  if (!meta || !at::GradMode::is_enabled()) return;
  EMBER_CHECK(!(meta->requires_grad_ && !meta->grad_fn_), "[", op,
              "] expected a tensor that is not a leaf requiring grad; got such a leaf as the target of an in-place "
              "op (its .grad() would be wrong; write to it under torch::NoGradGuard, or clone it first)");
}

void check_inplace_on_view_mode(const at::Tensor& t, const char* op) {
  AutogradMeta* meta = impl::get_autograd_meta(t);
  if (!meta || !meta->is_view_) return;
  EMBER_CHECK(!meta->view_made_without_grad_, "[", op,
              "] expected a view made with grad mode on, since this in-place op records history; got a view made "
              "under no_grad (make both the view and the in-place op inside the no_grad block, or both outside)");
}

BelowAutogradGuard::BelowAutogradGuard() : prev_(ember::dispatch::tls_below_autograd) {
  ember::dispatch::tls_below_autograd = true;
}
BelowAutogradGuard::~BelowAutogradGuard() { ember::dispatch::tls_below_autograd = prev_; }

}  // namespace torch::autograd
