#pragma once
// Gradient side of the sample inputs, written against the libtorch API only: the generated
// gradient tests and the golden-data program (tools/golden, compiled against libtorch) build the
// same leaves and cotangents, so libtorch's recorded gradients are Ember's reference.
#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <algorithm>
#include <tuple>
#include <vector>

namespace ember_test {

/// A gradcheck leaf with t's values and, where its elements can be perturbed one at a time, its
/// strides (transposed, strided, channels-last); inputs whose elements share memory (expanded)
/// become contiguous.
inline at::Tensor grad_leaf(const at::Tensor& t) {
  at::Tensor d = t.detach();
  bool overlapping = false;
  for (int64_t i = 0; i < d.dim(); ++i) overlapping = overlapping || (d.stride(i) == 0 && d.size(i) > 1);
  if (overlapping) return d.contiguous().clone();
  at::Tensor leaf = at::empty_strided(d.sizes(), d.strides(), d.options());
  leaf.copy_(d);
  return leaf;
}

inline std::vector<at::Tensor> outputs_of(const at::Tensor& t) { return {t}; }
inline std::vector<at::Tensor> outputs_of(const std::vector<at::Tensor>& v) { return v; }
template <typename... T>
std::vector<at::Tensor> outputs_of(const std::tuple<T...>& t) {
  std::vector<at::Tensor> v;
  std::apply([&](const auto&... x) { (v.push_back(x), ...); }, t);
  return v;
}

/// A fixed cotangent for an output: element k (row-major) weighs 0.5 + ((37 k) mod 17) / 16, so
/// gradients that land on the wrong element (or sum where they should not) show.
inline at::Tensor cotangent(const at::Tensor& out) {
  const int64_t n = out.numel();
  at::Tensor w = at::empty({n}, at::TensorOptions().dtype(at::kDouble));
  double* p = w.data_ptr<double>();
  for (int64_t k = 0; k < n; ++k) p[k] = 0.5 + static_cast<double>((37 * k) % 17) / 16.0;
  return w.reshape(out.sizes()).to(out.scalar_type());
}

/// Gradients of the outputs that require grad, weighted by their cotangents, with respect to each
/// input (an input they do not depend on gets zeros).
inline std::vector<at::Tensor> weighted_grads(const std::vector<at::Tensor>& outs, const std::vector<at::Tensor>& inputs) {
  std::vector<at::Tensor> diff, seeds;
  for (const auto& o : outs)
    if (o.defined() && o.requires_grad()) {
      diff.push_back(o);
      seeds.push_back(cotangent(o));
    }
  std::vector<at::Tensor> g;
  if (!diff.empty()) g = torch::autograd::grad(diff, inputs, seeds, /*retain_graph=*/false, /*create_graph=*/false,
                                               /*allow_unused=*/true);
  else g.resize(inputs.size());
  for (size_t i = 0; i < g.size(); ++i)
    if (!g[i].defined()) g[i] = at::zeros(inputs[i].sizes(), inputs[i].options());
  return g;
}

}  // namespace ember_test
