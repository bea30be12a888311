// The backward engine. See engine.h.
//
// Note [Thread-safe backward]
// All state of one backward call (dependency counts, input buffers, the ready queue) lives on the
// calling thread's stack; the graph itself is only read, except AccumulateGrad, which locks the
// leaf's AutogradMeta. So backward calls on independent graphs run concurrently without a global
// lock (libtorch serialises per device: pytorch#18333).
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/autograd.h>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace torch::autograd {
namespace {

struct GraphRoot : Node {
  GraphRoot(const edge_list& roots, variable_list grads) : Node(roots), grads_(std::move(grads)) {}
  variable_list apply(variable_list&&) override { return grads_; }
  std::string name() const override { return "GraphRoot"; }
  variable_list grads_;
};

// Tensor hooks on the gradients arriving at `n`: hooks of its outputs (a leaf's hooks for
// AccumulateGrad), then retain_grad() hooks. A hook returning a defined tensor replaces the gradient.
void call_tensor_pre_hooks(Node* n, variable_list& inputs) {
  auto run = [&inputs](uint32_t nr, const Node::PreHook& hook) {
    if (nr >= inputs.size() || !inputs[nr].defined()) return;
    at::Tensor r = hook(inputs[nr]);
    if (r.defined()) inputs[nr] = std::move(r);
  };
  for (const auto& [nr, hook] : n->pre_hooks()) run(nr, hook);
  if (auto* acc = dynamic_cast<AccumulateGrad*>(n)) {
    if (AutogradMeta* meta = impl::get_autograd_meta(acc->variable))
      for (const auto& hook : meta->hooks_) run(0, hook);
  }
  for (const auto& [nr, hook] : n->retains_grad_hooks()) run(nr, hook);
}

bool has_nan(const at::Tensor& t) {
  if (!t.defined() || !t.is_floating_point() || t.is_meta()) return false;  // (a meta tensor has no values to check)
  return t.isnan().any().item<bool>();
}

}  // namespace

variable_list run_backward(const edge_list& roots, const variable_list& grad_outputs, bool keep_graph, bool create_graph,
                           const edge_list& outputs, bool allow_unused) {
  EMBER_INTERNAL_ASSERT(roots.size() == grad_outputs.size(), "roots and grads differ in length");
  at::AutoGradMode grad_mode(create_graph);
  auto root = std::make_shared<GraphRoot>(roots, grad_outputs);

  // 1. Discover the graph and count each Node's incoming edges.
  std::unordered_map<Node*, int> deps;
  std::vector<Node*> order;  // DFS pre-order, for the "needed" pass
  {
    std::unordered_set<Node*> seen{root.get()};
    std::vector<Node*> stack{root.get()};
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (const Edge& e : n->next_edges()) {
        if (!e.is_valid()) continue;
        deps[e.function.get()]++;
        if (seen.insert(e.function.get()).second) stack.push_back(e.function.get());
      }
    }
  }

  // 2. For autograd::grad: only Nodes with a path to a requested edge run, and the gradients
  //    arriving at those edges are captured instead of passed on.
  const bool capture = !outputs.empty();
  std::unordered_set<Node*> needed;
  if (capture) {
    std::unordered_set<Node*> targets;
    for (const Edge& e : outputs)
      if (e.is_valid()) targets.insert(e.function.get());
    // Reverse pre-order visits children before parents in a DAG only approximately; iterate to a fixpoint.
    bool changed = true;
    for (Node* t : targets) needed.insert(t);
    while (changed) {
      changed = false;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        Node* n = *it;
        if (needed.count(n)) continue;
        for (const Edge& e : n->next_edges())
          if (e.is_valid() && needed.count(e.function.get())) { needed.insert(n); changed = true; break; }
      }
    }
  }
  variable_list captured(outputs.size());

  // 3. Run Nodes whose inputs are complete, latest-created first.
  auto cmp = [](Node* a, Node* b) { return a->sequence_nr() < b->sequence_nr(); };
  std::priority_queue<Node*, std::vector<Node*>, decltype(cmp)> ready(cmp);
  std::unordered_map<Node*, variable_list> buffers;
  ready.push(root.get());
  // Keep every Node alive while it is queued (edges hold them, but GraphRoot is local).
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    variable_list inputs = std::move(buffers[n]);
    buffers.erase(n);
    if (inputs.size() < n->num_inputs()) inputs.resize(n->num_inputs());
    if (capture && !needed.count(n) && n != root.get()) continue;
    // Hooks run before capturing: autograd::grad returns the gradient the hooks produced.
    call_tensor_pre_hooks(n, inputs);
    if (capture) {
      for (size_t i = 0; i < outputs.size(); ++i)
        if (outputs[i].function.get() == n && outputs[i].input_nr < inputs.size()) captured[i] = inputs[outputs[i].input_nr];
      if (dynamic_cast<AccumulateGrad*>(n)) continue;  // grad() does not touch .grad
    }
    variable_list outs = n->apply(std::move(inputs));
    if (AnomalyMode::is_enabled()) {
      for (size_t i = 0; i < outs.size(); ++i)
        EMBER_CHECK(!has_nan(outs[i]), "[autograd] expected NaN-free gradients from '", n->name(), "'; got NaN in output ", i,
                    n->anomaly_trace_.empty() ? "" : " (forward op: " + n->anomaly_trace_ + ")");
    }
    if (!keep_graph) n->release_variables();
    const edge_list& next = n->next_edges();
    EMBER_CHECK(outs.size() == next.size() || dynamic_cast<AccumulateGrad*>(n), "[autograd] expected ", n->name(),
                " to return one gradient per next edge (", next.size(), "); got ", outs.size());
    for (size_t i = 0; i < next.size() && i < outs.size(); ++i) {
      const Edge& e = next[i];
      if (!e.is_valid()) continue;
      at::Tensor g = std::move(outs[i]);
      Node* m = e.function.get();
      if (g.defined() && e.input_nr < m->num_inputs()) {
        const InputMetadata& meta = m->input_metadata(e.input_nr);
        if (!meta.shape.empty() || g.dim() != 0) {
          if (g.sizes() != at::IntArrayRef(meta.shape)) g = sum_to(g, meta.shape);
        }
        if (g.scalar_type() != meta.dtype && c10::isFloatingType(meta.dtype)) g = g.to(meta.dtype);
      }
      variable_list& buf = buffers[m];
      if (buf.size() < std::max<size_t>(m->num_inputs(), e.input_nr + 1)) buf.resize(std::max<size_t>(m->num_inputs(), e.input_nr + 1));
      if (g.defined()) buf[e.input_nr] = buf[e.input_nr].defined() ? buf[e.input_nr] + g : g;
      if (--deps[m] == 0) ready.push(m);
    }
  }
  if (capture && !allow_unused) {
    for (const auto& g : captured)
      EMBER_CHECK(g.defined(), "[autograd] expected every input to be reachable from the outputs; got "
                  "one the graph never uses (pass allow_unused=true to get an undefined gradient for it)");
  }
  return captured;
}

}  // namespace torch::autograd
