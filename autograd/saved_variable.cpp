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
    is_leaf_ = !meta || !meta->grad_fn_;
  }
}

at::Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!defined_) return at::Tensor();
  EMBER_CHECK(!was_released_, "[autograd] Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second "
              "time or if you need to access saved tensors after calling backward.");
  if (data_._version() != saved_version_) {
    std::string who = saved_for ? saved_for->name() : "a backward function";
    throw c10::Error(c10::str("[autograd] one of the variables needed for gradient computation has been modified by an "
                              "inplace operation: [", data_.toString(), " ", data_.sizes(), "], which is ",
                              is_output_ ? "output " : "input ", output_nr_, " of ", who, ", is at version ",
                              data_._version(), "; expected version ", saved_version_, " instead."));
  }
  if (!is_output_ || !requires_grad_ || !saved_for) return data_;
  at::Tensor r = data_.detach();
  set_history(r, saved_for, output_nr_);
  return r;
}

}  // namespace torch::autograd
