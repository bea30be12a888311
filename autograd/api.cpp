// torch::autograd::grad / backward, anomaly mode, and the autograd methods of at::Tensor.
#include <torch/autograd.h>

namespace torch::autograd {
namespace {
std::atomic<bool> g_anomaly{false};

variable_list seed_grads(const variable_list& outputs, const variable_list& grad_outputs, const char* op) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), "[", op, "] got ", grad_outputs.size(),
              " gradients for ", outputs.size(), " outputs");
  variable_list g(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const at::Tensor& out = outputs[i];
    EMBER_CHECK(out.defined(), "[", op, "] output ", i, " is undefined");
    EMBER_CHECK(out.requires_grad(), "[", op, "] expected output ", i, " to require grad (a leaf with requires_grad, or a "
                "result with a grad_fn); got a tensor with neither");
    if (i < grad_outputs.size() && grad_outputs[i].defined()) {
      EMBER_CHECK(grad_outputs[i].sizes() == out.sizes(), "[", op, "] expected gradient ", i, " to have the shape of output ",
                  i, " (", out.sizes(), "); got ", grad_outputs[i].sizes());
      g[i] = grad_outputs[i];
    } else {
      EMBER_CHECK(out.numel() == 1, "[", op, "] expected an explicit gradient for output ", i,
                  ", since one is only filled in for single-element outputs; got shape ", out.sizes());
      g[i] = at::ones_like(out);
    }
  }
  return g;
}
}  // namespace

bool AnomalyMode::is_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool e) { g_anomaly.store(e); }

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  variable_list g = seed_grads(outputs, grad_outputs, "grad");
  edge_list roots, targets;
  for (const auto& o : outputs) roots.push_back(gradient_edge(o));
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].requires_grad(), "[grad] expected every input to require grad; input ", i, " does not");
    targets.push_back(gradient_edge(inputs[i]));
  }
  return run_backward(roots, g, retain_graph.value_or(create_graph), create_graph, targets, allow_unused);
}

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  variable_list g = seed_grads(tensors, grad_tensors, "backward");
  edge_list roots;
  for (const auto& t : tensors) roots.push_back(gradient_edge(t));
  if (inputs.empty()) {
    run_backward(roots, g, retain_graph.value_or(create_graph), create_graph, {}, false);
    return;
  }
  // Only the given inputs accumulate: compute their gradients, then accumulate them.
  edge_list targets;
  for (const auto& in : inputs) targets.push_back(gradient_edge(in));
  variable_list r = run_backward(roots, g, retain_graph.value_or(create_graph), create_graph, targets, true);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!r[i].defined()) continue;
    AutogradMeta* meta = impl::materialize_autograd_meta(inputs[i]);
    std::lock_guard<std::mutex> lock(meta->mutex_);
    // A copy: r[i] may share storage with a caller's tensor (a seed gradient passed through), and
    // later backward calls accumulate into .grad in place.
    meta->grad_ = meta->grad_.defined() ? meta->grad_ + r[i] : (create_graph ? r[i] : r[i].detach().clone());
  }
}

}  // namespace torch::autograd

namespace at {
using namespace torch::autograd;

bool Tensor::is_leaf() const { return !impl::grad_fn(*this); }

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      std::optional<TensorList> inputs) const {
  variable_list in;
  if (inputs) in.assign(inputs->begin(), inputs->end());
  torch::autograd::backward({*this}, gradient.defined() ? variable_list{gradient} : variable_list{}, retain_graph,
                            create_graph, in);
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  AutogradMeta* m = impl::get_autograd_meta(*this);
  if (m && m->retained_grad_) return *m->retained_grad_;
  return m ? m->grad_ : undefined;
}

Tensor& Tensor::mutable_grad() const { return impl::materialize_autograd_meta(*this)->grad_; }

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  AutogradMeta* m = impl::get_autograd_meta(*this);
  if (m && impl::grad_fn(*this)) {
    EMBER_CHECK(requires_grad, "[requires_grad_] expected a leaf tensor to switch requires_grad off; got a tensor "
                "with history (use .detach() for a copy without it)");
    return *this;
  }
  EMBER_CHECK(!requires_grad || is_floating_point(), "[requires_grad_] expected a floating-point tensor to track "
              "gradients; got ", c10::dtypeName(scalar_type()));
  if (!m && !requires_grad) return *this;
  impl::materialize_autograd_meta(*this)->requires_grad_ = requires_grad;
  return *this;
}

Tensor& Tensor::set_requires_grad(bool requires_grad) {
  requires_grad_(requires_grad);
  return *this;
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "[retain_grad] expected a tensor that requires grad; got one that does not");
  impl::grad_fn(*this);
  AutogradMeta* m = impl::materialize_autograd_meta(*this);
  if (!m->grad_fn_ || m->retains_grad_) return;
  m->retains_grad_ = true;
  // The hook writes into a box shared with the meta, so it stays valid if the tensor dies first.
  m->retained_grad_ = std::make_shared<Tensor>();
  m->grad_fn_->add_retains_grad_hook(m->output_nr_, [box = m->retained_grad_](const Tensor& g) {
    *box = box->defined() ? *box + g : g.detach().clone();
    return Tensor();
  });
}

bool Tensor::retains_grad() const {
  AutogradMeta* m = impl::get_autograd_meta(*this);
  return m && m->retains_grad_;
}

const std::shared_ptr<Node>& Tensor::grad_fn() const { return impl::grad_fn(*this); }

uint32_t Tensor::output_nr() const {
  AutogradMeta* m = impl::get_autograd_meta(*this);
  return m ? m->output_nr_ : 0;
}

unsigned Tensor::_register_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad(), "[register_hook] expected a tensor that requires grad; got one that does not");
  impl::grad_fn(*this);
  AutogradMeta* m = impl::materialize_autograd_meta(*this);
  if (m->grad_fn_) {
    m->grad_fn_->add_pre_hook(m->output_nr_, std::move(hook));
    return static_cast<unsigned>(m->grad_fn_->pre_hooks().size() - 1);
  }
  m->hooks_.push_back(std::move(hook));
  return static_cast<unsigned>(m->hooks_.size() - 1);
}

Tensor Tensor::detach() const {
  return make_view(*this, sizes(), strides(), storage_offset());
}

Tensor& Tensor::detach_() {
  if (AutogradMeta* m = impl::get_autograd_meta(*this)) {
    m->grad_fn_.reset();
    m->requires_grad_ = false;
    m->output_nr_ = 0;
  }
  return *this;
}

bool Tensor::is_view() const {
  AutogradMeta* m = impl::get_autograd_meta(*this);
  return m && m->is_view_;
}

const Tensor& Tensor::_base() const {
  static const Tensor undefined;
  AutogradMeta* m = impl::get_autograd_meta(*this);
  return m ? m->base_ : undefined;
}

}  // namespace at
