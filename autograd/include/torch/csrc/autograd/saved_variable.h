#pragma once
// SavedVariable: a tensor a backward Node keeps, with the version it had when saved, so that a
// later in-place modification is detected instead of producing wrong gradients.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/csrc/autograd/variable.h>

namespace torch::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;
  /// `is_output`: the tensor is an output of the Node that saves it (stored without its history
  /// to avoid a reference cycle; the history is restored on unpack).
  SavedVariable(const at::Tensor& t, bool is_output);
  /// The saved tensor, with history; raises if it was modified in place or already freed.
  at::Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;
  void reset_data() { data_.reset(); was_released_ = true; }
  bool defined() const { return defined_; }

 private:
  at::Tensor data_;
  bool defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool was_released_ = false;
  bool is_leaf_ = false;
  uint32_t output_nr_ = 0;
  uint32_t saved_version_ = 0;
  std::weak_ptr<Node> grad_accumulator_;
  std::shared_ptr<Node> grad_fn_;  // inputs only (outputs get it back from the saving Node)
};

}  // namespace torch::autograd

EMBER_PUBLIC_END
