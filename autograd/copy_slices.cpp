// In-place ops on views (libtorch's CopySlices idea, written for Ember).
//
// Note [In-place on a view]
// When an in-place op writes into a view V of a base B that takes part in autograd, B's values
// change too, so B's history must change: B gets a CopySlices node whose backward takes the
// gradient for all of B, runs the in-place op's backward on the slice that V covers, writes the
// result back into that slice, and passes the rest through to B's previous history. V itself then
// becomes a plain view of the new B (ViewOfBase node: the gradient of V scattered into B's shape).
#include <torch/csrc/autograd/derivative_helpers.h>

namespace torch::autograd {
namespace {

struct Geometry {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;  // relative to the base's storage offset
};

struct CopySlices : Node {
  CopySlices(Geometry base, Geometry view, std::shared_ptr<Node> fn)
      : base_(std::move(base)), view_(std::move(view)), fn_(std::move(fn)) {}
  std::string name() const override { return "CopySlices"; }
  variable_list apply(variable_list&& grads) override {
    variable_list out(num_outputs());
    if (!grads[0].defined()) return out;
    at::Tensor result = at::empty_strided(base_.sizes, base_.strides, grads[0].options());
    result.copy_(grads[0]);
    at::Tensor slice = result.as_strided(view_.sizes, view_.strides, result.storage_offset() + view_.offset);
    variable_list res = fn_->apply({slice.clone()});
    if (!res.empty() && res[0].defined()) slice.copy_(res[0]);
    else slice.zero_();
    out[0] = result;
    for (size_t i = 1; i < res.size() && i < out.size(); ++i) out[i] = res[i];
    return out;
  }
  void release_variables() override { fn_->release_variables(); }
  Geometry base_, view_;
  std::shared_ptr<Node> fn_;
};

struct ViewOfBase : Node {
  ViewOfBase(Geometry base, Geometry view) : base_(std::move(base)), view_(std::move(view)) {}
  std::string name() const override { return "AsStridedBackward0"; }
  variable_list apply(variable_list&& grads) override {
    if (!grads[0].defined()) return {at::Tensor()};
    at::Tensor result = at::empty_strided(base_.sizes, base_.strides, grads[0].options());
    result.zero_();
    result.as_strided(view_.sizes, view_.strides, result.storage_offset() + view_.offset).copy_(grads[0]);
    return {result};
  }
  Geometry base_, view_;
};

}  // namespace

std::shared_ptr<Node> make_view_of_base_node(const at::Tensor& view, const at::Tensor& base) {
  Geometry bg{base.sizes().vec(), base.strides().vec(), 0};
  Geometry vg{view.sizes().vec(), view.strides().vec(), view.storage_offset() - base.storage_offset()};
  auto v = std::make_shared<ViewOfBase>(bg, vg);
  v->add_next_edge(gradient_edge(base));
  v->set_input_metadata(0, InputMetadata{view.sizes().vec(), view.scalar_type(), view.device()});
  return v;
}

void rebase_view_history(const at::Tensor& view, const std::shared_ptr<Node>& fn) {
  AutogradMeta* vm = impl::get_autograd_meta(view);
  const at::Tensor base = vm->base_;
  check_inplace_view(view, "autograd");
  Geometry bg{base.sizes().vec(), base.strides().vec(), 0};
  Geometry vg{view.sizes().vec(), view.strides().vec(), view.storage_offset() - base.storage_offset()};
  auto cs = std::make_shared<CopySlices>(bg, vg, fn);
  // Edges: the base's previous history, then the in-place op's other inputs.
  cs->add_next_edge(gradient_edge(base));
  for (size_t i = 1; i < fn->next_edges().size(); ++i) cs->add_next_edge(fn->next_edges()[i]);
  set_history(base, cs, 0);
  auto v = std::make_shared<ViewOfBase>(bg, vg);
  v->add_next_edge(Edge(cs, 0));
  set_history(view, v, 0);
}

}  // namespace torch::autograd
