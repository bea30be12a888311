// SavedVariable: saved tensors with version checks. See Note [Version counter lives in storage].
#include <torch/csrc/autograd/saved_variable.h>

namespace torch::autograd {

SavedVariable::SavedVariable(const at::Tensor& t, bool is_output) {
  if (!t.defined()) return;
  defined_ = true;
  is_output_ = is_output;
  saved_version_ = t._version();
  requires_grad_ = t.requires_grad();
  AutogradMeta* meta = impl::get_autograd_meta(t);
  output_nr_ = meta ? meta->output_nr_ : 0;
  if (is_output) {
    // Keep the data without its history: the history is this very Node (a cycle otherwise).
    data_ = t.detach();
  } else {
    data_ = t;
    is_leaf_ = !impl::grad_fn(t);
  }
}

at::Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!defined_) return at::Tensor();
  EMBER_CHECK(!was_released_, "[autograd] expected saved tensors that are still held; got a graph whose saved tensors "
              "were freed by an earlier backward() or grad() (pass retain_graph=true to the first call to run the "
              "graph again)");
  if (data_._version() != saved_version_) {
    std::string who = saved_for ? saved_for->name() : "a backward function";
    throw c10::Error(c10::str("[autograd] expected ", who, "'s saved ", is_output_ ? "output " : "input ", output_nr_,
                              " (", data_.toString(), " ", data_.sizes(), ") at version ", saved_version_,
                              ", the version it had when saved; got version ", data_._version(),
                              ": an in-place op modified it after it was saved (clone it before the in-place op, "
                              "or use an out-of-place op)"));
  }
  if (!is_output_ || !requires_grad_ || !saved_for) return data_;
  at::Tensor r = data_.detach();
  // Only r's own metadata changes: the node's input metadata was recorded in forward and may be
  // read concurrently by another backward pass sharing this node.
  impl::set_grad_fn_only(r, saved_for, output_nr_);
  return r;
}

}  // namespace torch::autograd
