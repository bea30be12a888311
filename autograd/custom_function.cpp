// Custom autograd Functions: AutogradContext and the graph wiring of CppNode<T>.
//
// Note [Custom Function outputs]
// forward runs with grad mode off, so its outputs carry no history; wrap_outputs gives each one
// its place in the graph, in this order of cases:
//   - undefined: nothing (backward gets an undefined gradient for it);
//   - not differentiable (no node, mark_non_differentiable, or a non-floating dtype): no history;
//     an input returned as is becomes a detached alias so the input itself keeps its own history;
//   - marked dirty (an input modified in place): the input itself now comes from this node, after
//     the same leaf check as built-in in-place ops;
//   - an input returned unchanged: a fresh alias gets the history, so the caller's input is not
//     re-parented (a cycle otherwise: the node's edge points at that input's old history);
//   - otherwise: the output gets the history directly.
// Saved tensors are wrapped only afterwards, so a saved output is recognised as one (its grad_fn
// is this node) and is stored without its history (SavedVariable is_output: no reference cycle).
#include <torch/autograd.h>
#include <torch/csrc/autograd/derivative_helpers.h>

namespace torch::autograd {
namespace {
// True if a gradient of shape `g` sums down to `want` (the broadcasting rule, reversed).
bool reducible_to(at::IntArrayRef g, const std::vector<int64_t>& want) {
  if (g.size() < want.size()) return false;
  const size_t lead = g.size() - want.size();
  for (size_t d = 0; d < want.size(); ++d)
    if (want[d] != 1 && want[d] != g[lead + d]) return false;
  return true;
}
}  // namespace

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

void AutogradContext::mark_dirty(const variable_list& inputs) {
  dirty_inputs_.clear();
  for (const auto& t : inputs)
    if (t.defined()) dirty_inputs_.insert(t.unsafeGetTensorImpl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  non_differentiable_.clear();
  for (const auto& t : outputs)
    if (t.defined()) non_differentiable_.insert(t.unsafeGetTensorImpl());
}

variable_list AutogradContext::get_saved_variables() const {
  std::shared_ptr<Node> fn = grad_fn_.lock();
  EMBER_CHECK(!has_freed_buffers_, "[", fn ? fn->name() : std::string("autograd"),
              "] expected saved tensors that are still held; got ones that were freed by an earlier "
              "backward() or grad() (pass retain_graph=true to the first call to run the graph again or to read the "
              "saved tensors afterwards)");
  variable_list out;
  out.reserve(saved_variables_.size());
  for (const auto& sv : saved_variables_) out.push_back(sv.unpack(fn));
  return out;
}

bool AutogradContext::needs_input_grad(size_t output_edge_index) const {
  std::shared_ptr<Node> fn = grad_fn_.lock();
  return fn && fn->should_compute_output(output_edge_index);
}

void CppNodeBase::prepare(const variable_list& inputs) {
  ctx_.grad_fn_ = shared_from_this();
  executable_ = compute_requires_grad(at::TensorList(inputs));
  if (!executable_) return;
  edge_list edges;
  edges.reserve(inputs.size());
  input_shapes_.reserve(inputs.size());
  for (const auto& t : inputs) {
    edges.push_back(gradient_edge(t));
    input_shapes_.push_back(t.defined() ? t.sizes().vec() : std::vector<int64_t>{});
  }
  set_next_edges(std::move(edges));
  if (AnomalyMode::is_enabled()) anomaly_trace_ = name();
}

// See Note [Custom Function outputs].
void CppNodeBase::wrap_outputs(const variable_list& inputs, variable_list& outputs) {
  const std::string fname = name();
  std::unordered_set<at::TensorImpl*> input_impls;
  for (const auto& t : inputs)
    if (t.defined()) input_impls.insert(t.unsafeGetTensorImpl());
  std::unordered_set<at::TensorImpl*> output_impls;
  for (const auto& t : outputs)
    if (t.defined()) output_impls.insert(t.unsafeGetTensorImpl());
  for (at::TensorImpl* d : ctx_.dirty_inputs_) {
    EMBER_CHECK(output_impls.count(d), "[", fname, "] expected every tensor passed to mark_dirty() in forward "
                "to be returned as an output; got one that was not");
    d->bump_version();  // forward may have written through data_ptr without bumping
  }

  std::shared_ptr<Node> self = executable_ ? shared_from_this() : nullptr;
  output_defined_.assign(outputs.size(), false);
  if (executable_) input_metadata_.assign(outputs.size(), InputMetadata{});
  for (size_t i = 0; i < outputs.size(); ++i) {
    at::Tensor& var = outputs[i];
    if (!var.defined()) continue;
    output_defined_[i] = true;
    at::TensorImpl* impl = var.unsafeGetTensorImpl();
    const bool is_input = input_impls.count(impl) > 0;
    const bool is_dirty = ctx_.dirty_inputs_.count(impl) > 0;
    const bool differentiable = executable_ && !ctx_.non_differentiable_.count(impl) && var.is_floating_point();
    if (executable_) input_metadata_[i] = InputMetadata{var.sizes().vec(), var.scalar_type(), var.device()};
    const auto out_nr = static_cast<uint32_t>(i);
    if (!differentiable) {
      if (is_input && !(is_dirty && !var.requires_grad())) var = var.detach();
      else if (var.requires_grad() && !var.is_view()) var.detach_();
    } else if (is_dirty) {
      check_inplace(var, fname.c_str());
      check_inplace_view(var, fname.c_str());
      // TODO(#3): route through CopySlices once it handles Nodes with several inputs and outputs.
      AutogradMeta* meta = impl::get_autograd_meta(var);
      EMBER_CHECK(!(meta && meta->is_view_ && meta->base_.defined()), "[", fname, "] mark_dirty on a view of a tensor "
                  "that requires grad is not supported yet; apply the Function to a clone of the view");
      set_history(var, self, out_nr);
    } else if (is_input) {
      var = var.detach();
      set_history(var, self, out_nr);
    } else {
      set_history(var, self, out_nr);
    }
  }

  if (executable_) {
    ctx_.saved_variables_.reserve(ctx_.to_save_.size());
    for (const auto& t : ctx_.to_save_) ctx_.saved_variables_.emplace_back(t, t.defined() && t.grad_fn().get() == this);
  }
  // Nothing below needs these any more; the raw pointers would dangle once the tensors die.
  ctx_.to_save_.clear();
  ctx_.dirty_inputs_.clear();
  ctx_.non_differentiable_.clear();
}

variable_list CppNodeBase::call_backward(variable_list&& grads,
                                         const std::function<variable_list(variable_list)>& backward) {
  if (ctx_.materialize_grads_) {
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined() && i < output_defined_.size() && output_defined_[i])
        grads[i] = formulas::zeros_for(input_metadata(i));
  }
  variable_list out;
  {
    // Two backward passes through a shared graph may reach this node concurrently.
    std::lock_guard<std::mutex> lock(mutex_);
    out = backward(std::move(grads));
  }
  const size_t expected = is_variable_input_.size();
  if (out.size() > expected) {
    bool extra_undefined = true;
    for (size_t i = expected; i < out.size(); ++i) extra_undefined = extra_undefined && !out[i].defined();
    if (extra_undefined) out.resize(expected);
  }
  EMBER_CHECK(out.size() == expected, "[", name(), "] expected backward to return one gradient per forward input (",
              expected, "); got ", out.size());
  variable_list result;
  result.reserve(num_outputs());
  for (size_t i = 0; i < expected; ++i) {
    if (!is_variable_input_[i]) {
      EMBER_CHECK(!out[i].defined(), "[", name(), "] expected an undefined gradient at position ", i + 1,
                  " of backward's result, since that forward input is not a tensor; got a defined tensor");
      continue;
    }
    const at::Tensor& g = out[i];
    if (g.defined() && result.size() < input_shapes_.size()) {
      const auto& want = input_shapes_[result.size()];
      EMBER_CHECK(reducible_to(g.sizes(), want), "[", name(), "] expected backward's gradient for input ",
                  result.size(), " to have a shape that reduces to ", at::IntArrayRef(want), "; got ", g.sizes());
    }
    result.push_back(std::move(out[i]));
  }
  return result;
}

void CppNodeBase::release_variables() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& sv : ctx_.saved_variables_) sv.reset_data();
  ctx_.has_freed_buffers_ = true;
}

}  // namespace torch::autograd
