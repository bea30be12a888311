#pragma once
// Node: one step of the backward graph (libtorch's torch::autograd::Node). A Node maps the
// gradients of a forward op's outputs to the gradients of its inputs; `next_edges()` point at the
// Nodes that produced those inputs (or at AccumulateGrad for leaves).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/core/GradMode.h>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace torch::autograd {

using Variable = at::Tensor;
using variable_list = std::vector<at::Tensor>;
using tensor_list = std::vector<at::Tensor>;
struct Node;

/// An input slot of a Node: gradient flows along it into `function`'s input `input_nr`.
struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> f, uint32_t nr) : function(std::move(f)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};
using edge_list = std::vector<Edge>;

/// Shape/dtype/device of a forward output (= a backward input), used to validate and reduce grads.
struct InputMetadata {
  std::vector<int64_t> shape;
  at::ScalarType dtype = at::kFloat;
  at::Device device = at::kCPU;
};

/// Thread-safe global counter ordering Nodes by creation (the engine runs later Nodes first).
uint64_t next_sequence_nr();
/// The readable C++ name of a type from typeid(T).name(), e.g. "MyFunction" (Node::name uses it).
std::string demangle_type_name(const char* mangled);

struct Node : std::enable_shared_from_this<Node> {
  explicit Node(edge_list next = {}) : sequence_nr_(next_sequence_nr()), next_edges_(std::move(next)) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// Computes the gradients of the inputs from the gradients of the outputs.
  virtual variable_list apply(variable_list&& grads) = 0;
  variable_list operator()(variable_list&& grads) { return apply(std::move(grads)); }
  /// libtorch-style name, e.g. "MulBackward0".
  virtual std::string name() const;
  /// Frees saved tensors once the graph has been run without retain_graph.
  virtual void release_variables() {}

  const edge_list& next_edges() const { return next_edges_; }
  edge_list& next_edges() { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_.at(i); }
  uint32_t num_outputs() const { return static_cast<uint32_t>(next_edges_.size()); }
  void set_next_edges(edge_list e) { next_edges_ = std::move(e); }
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  /// True if the i-th input gradient is needed (its edge leads somewhere).
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  uint32_t num_inputs() const { return static_cast<uint32_t>(input_metadata_.size()); }
  uint32_t add_input_metadata(const at::Tensor& t);
  void add_input_metadata_undefined() { input_metadata_.push_back({}); }
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_.at(i); }
  /// Records the shape/dtype/device of forward output `i` (while the graph is being built).
  void set_input_metadata(size_t i, InputMetadata m) {
    if (input_metadata_.size() <= i) input_metadata_.resize(i + 1);
    input_metadata_[i] = std::move(m);
  }
  uint64_t sequence_nr() const { return sequence_nr_; }

  /// Hooks run on the gradients flowing into this Node (tensor hooks of its outputs).
  using PreHook = std::function<at::Tensor(const at::Tensor&)>;
  void add_pre_hook(uint32_t output_nr, PreHook h) { pre_hooks_.emplace_back(output_nr, std::move(h)); }
  const std::vector<std::pair<uint32_t, PreHook>>& pre_hooks() const { return pre_hooks_; }
  /// retain_grad() hooks: run after all pre-hooks, so .grad() shows the gradient the hooks produced.
  void add_retains_grad_hook(uint32_t output_nr, PreHook h) { retains_grad_hooks_.emplace_back(output_nr, std::move(h)); }
  const std::vector<std::pair<uint32_t, PreHook>>& retains_grad_hooks() const { return retains_grad_hooks_; }

  /// Name of the forward op that created this Node and its trace, recorded in anomaly mode.
  std::string anomaly_trace_;
  std::mutex mutex_;

 protected:
  uint64_t sequence_nr_;
  edge_list next_edges_;
  std::vector<InputMetadata> input_metadata_;
  std::vector<std::pair<uint32_t, PreHook>> pre_hooks_;
  std::vector<std::pair<uint32_t, PreHook>> retains_grad_hooks_;
};

/// A Node for an op that is not differentiable (or has no formula yet): raises when reached.
struct NotImplemented : Node {
  explicit NotImplemented(std::string op, edge_list next = {}) : Node(std::move(next)), op_(std::move(op)) {}
  variable_list apply(variable_list&&) override;
  std::string name() const override { return "torch::autograd::NotImplemented"; }
  std::string op_;
};

/// Accumulates the incoming gradient into a leaf's .grad(). The leaf's tensor hooks are run by
/// the engine before apply (so that autograd::grad sees them too).
struct AccumulateGrad : Node {
  explicit AccumulateGrad(at::Tensor variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  at::Tensor variable;
};

/// Sums `grad` over the dims in which it was broadcast so that it has `shape` (engine helper).
at::Tensor sum_to(const at::Tensor& grad, at::IntArrayRef shape);

}  // namespace torch::autograd

EMBER_PUBLIC_END
