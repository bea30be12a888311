#pragma once
// Custom autograd Functions (libtorch's torch::autograd::Function<T>): a user type T with
//
//   struct MulConst : torch::autograd::Function<MulConst> {
//     static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list g) {
//       return {g[0] * ctx->saved_data["c"].toDouble(), torch::Tensor()};  // one gradient per forward input
//     }
//   };
//   auto y = MulConst::apply(x, 2.0);
//
// forward runs with grad mode off; apply() records one CppNode<T> whose backward calls T::backward.
// See Note [Custom Function outputs] in custom_function.cpp for how outputs are wired into the graph.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/ivalue.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/csrc/autograd/variable.h>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace torch::autograd {

struct CppNodeBase;

/// What forward and backward of a custom Function share: saved tensors, saved values and flags.
struct AutogradContext {
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  /// Arbitrary non-tensor (or tensor) values forward wants to hand to backward.
  std::unordered_map<std::string, c10::IValue> saved_data;

  /// Saves tensors (inputs or outputs of forward) for backward, with in-place modification checks.
  void save_for_backward(variable_list to_save);
  /// Declares that forward modified these inputs in place (they must also be returned as outputs).
  void mark_dirty(const variable_list& inputs);
  /// Declares outputs that have no gradient (integer outputs are never differentiable).
  void mark_non_differentiable(const variable_list& outputs);
  /// false: backward sees undefined tensors for outputs that received no gradient (default true: zeros).
  void set_materialize_grads(bool value) { materialize_grads_ = value; }

  /// The tensors given to save_for_backward, with their history; raises if one was modified in
  /// place since forward, or if the graph was already freed.
  variable_list get_saved_variables() const;
  /// True if the gradient of the i-th tensor input of forward is needed.
  bool needs_input_grad(size_t output_edge_index) const;
  const std::unordered_set<at::TensorImpl*>& get_dirty() const { return dirty_inputs_; }
  const std::unordered_set<at::TensorImpl*>& get_non_differentiable() const { return non_differentiable_; }

 private:
  friend struct CppNodeBase;
  std::unordered_set<at::TensorImpl*> dirty_inputs_;
  std::unordered_set<at::TensorImpl*> non_differentiable_;
  variable_list to_save_;
  std::vector<SavedVariable> saved_variables_;
  bool materialize_grads_ = true;
  bool has_freed_buffers_ = false;
  std::weak_ptr<Node> grad_fn_;
};

/// The non-template part of CppNode<T>: graph wiring in apply() and result checks in backward.
struct CppNodeBase : Node {
  AutogradContext ctx_;
  /// One entry per forward input (tensor lists expanded): true for tensors.
  std::vector<bool> is_variable_input_;

  /// Sets the next edges from the tensor inputs when grad mode is on and one requires grad.
  void prepare(const variable_list& inputs);
  /// Records history on forward's outputs and saves ctx's tensors. See Note [Custom Function outputs].
  void wrap_outputs(const variable_list& inputs, variable_list& outputs);
  void release_variables() override;

 protected:
  /// Materialises missing gradients, runs `backward` under the node's lock, checks the count and
  /// returns the gradients of the tensor inputs.
  variable_list call_backward(variable_list&& grads, const std::function<variable_list(variable_list)>& backward);

 private:
  bool executable_ = false;
  std::vector<bool> output_defined_;
  std::vector<std::vector<int64_t>> input_shapes_;  // of the tensor inputs, to validate gradients
};

/// The backward Node recorded for a custom Function T; name() is T's name.
template <class T>
struct CppNode : CppNodeBase {
  variable_list apply(variable_list&& grads) override {
    return call_backward(std::move(grads), [this](variable_list g) { return T::backward(&ctx_, std::move(g)); });
  }
  std::string name() const override { return demangle_type_name(typeid(T).name()); }
};

namespace detail {
// Flattens forward's arguments into tensor inputs (is_var true) and others (no edge).
inline void collect_input(variable_list& vars, std::vector<bool>& is_var, const at::Tensor& t) {
  vars.push_back(t);
  is_var.push_back(true);
}
inline void collect_input(variable_list& vars, std::vector<bool>& is_var, const std::optional<at::Tensor>& t) {
  vars.push_back(t.value_or(at::Tensor()));
  is_var.push_back(true);
}
inline void collect_input(variable_list& vars, std::vector<bool>& is_var, const std::vector<at::Tensor>& ts) {
  for (const auto& t : ts) collect_input(vars, is_var, t);
}
inline void collect_input(variable_list& vars, std::vector<bool>& is_var, at::TensorList ts) {
  for (const auto& t : ts) collect_input(vars, is_var, t);
}
template <typename X>
void collect_input(variable_list&, std::vector<bool>& is_var, const X&) {
  is_var.push_back(false);
}
}  // namespace detail

/// Base of user-defined Functions: `struct F : Function<F> { static forward(...); static backward(...); }`.
template <class T>
struct Function {
  /// Runs T::forward (grad mode off) and records a CppNode<T> if any tensor input requires grad.
  /// Returns what forward returns (a Tensor or a variable_list).
  template <typename... Args>
  static auto apply(Args&&... args) {
    using forward_t = decltype(T::forward(static_cast<AutogradContext*>(nullptr), std::forward<Args>(args)...));
    static_assert(std::is_same_v<forward_t, at::Tensor> || std::is_same_v<forward_t, variable_list>,
                  "custom Function forward must return at::Tensor or variable_list");
    auto node = std::make_shared<CppNode<T>>();
    variable_list inputs;
    (detail::collect_input(inputs, node->is_variable_input_, args), ...);
    node->prepare(inputs);
    forward_t result;
    {
      at::AutoGradMode no_grad(false);
      result = T::forward(&node->ctx_, std::forward<Args>(args)...);
    }
    if constexpr (std::is_same_v<forward_t, at::Tensor>) {
      variable_list outs{std::move(result)};
      node->wrap_outputs(inputs, outs);
      return outs[0];
    } else {
      node->wrap_outputs(inputs, result);
      return result;
    }
  }
};

}  // namespace torch::autograd

EMBER_PUBLIC_END
