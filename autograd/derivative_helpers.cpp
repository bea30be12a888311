// Helpers for derivatives.yaml formulas. Every helper is written with at:: ops, so a backward
// that uses it can itself be differentiated (double backward).
#include <torch/csrc/autograd/derivative_helpers.h>

namespace torch::autograd {

void mark_view(const at::Tensor& view, const at::Tensor& base) {
  if (!view.defined()) return;
  AutogradMeta* m = impl::materialize_autograd_meta(view);
  m->is_view_ = true;
  AutogradMeta* bm = impl::get_autograd_meta(base);
  m->base_ = (bm && bm->is_view_) ? bm->base_ : base;
}
void mark_view(const std::vector<at::Tensor>& views, const at::Tensor& base) {
  for (const auto& v : views) mark_view(v, base);
}

void check_inplace_view(const at::Tensor& t, const char* op) {
  AutogradMeta* m = impl::get_autograd_meta(t);
  EMBER_CHECK(!(m && m->is_view_), "[", op, "] in-place modification of a view that takes part in autograd is not "
              "supported yet (needs CopySlices, issue #3); apply the op out of place or to a clone");
}

}  // namespace torch::autograd

namespace torch::autograd::formulas {

at::Tensor unsqueeze_reduced(const at::Tensor& grad, int64_t ndim, at::OptionalIntArrayRef dims, bool keepdim) {
  if (keepdim || ndim == 0) return grad;
  std::vector<bool> reduced(ndim, false);
  if (!dims || dims->empty()) {
    reduced.assign(ndim, true);
  } else {
    for (int64_t d : *dims) reduced[at::maybe_wrap_dim(d, ndim, "sum")] = true;
  }
  at::Tensor g = grad;
  for (int64_t d = 0; d < ndim; ++d)
    if (reduced[d]) g = g.unsqueeze(d);
  return g;
}

at::Tensor sum_backward(const at::Tensor& grad, at::IntArrayRef sizes, at::OptionalIntArrayRef dims, bool keepdim) {
  return unsqueeze_reduced(grad, static_cast<int64_t>(sizes.size()), dims, keepdim).expand(sizes);
}

}  // namespace torch::autograd::formulas
