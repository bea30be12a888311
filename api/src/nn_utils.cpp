// torch::nn::utils: gradient clipping and parameter <-> vector conversion
// (api/torch/nn/utils/clip_grad.h, convert_parameters.h).
#include <torch/nn/utils/clip_grad.h>
#include <torch/nn/utils/convert_parameters.h>
#include <ATen/core/GradMode.h>
#include <cmath>
#include <limits>

namespace torch::nn::utils {
namespace {

std::vector<at::Tensor> grads_of(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> grads;
  for (const auto& p : parameters)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  return grads;
}

void check_same_device(const char* op, const std::vector<at::Tensor>& parameters) {
  for (size_t i = 1; i < parameters.size(); ++i)
    EMBER_CHECK(parameters[i].device() == parameters[0].device(), "[", op,
                "] expected all parameters on one device; parameter 0 is on ", parameters[0].device(), ", parameter ",
                i, " on ", parameters[i].device());
}

}  // namespace

double clip_grad_norm_(const std::vector<at::Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> grads = grads_of(parameters);
  if (grads.empty()) return 0.0;
  at::Tensor total;
  if (std::isinf(norm_type) && norm_type > 0) {
    std::vector<at::Tensor> maxima;
    for (const auto& g : grads)
      maxima.push_back(g.numel() == 0 ? at::zeros({}, g.options()) : g.abs().max());
    total = at::stack(maxima).max();
  } else if (norm_type == 0) {
    // libtorch's C++ frontend counts the gradients here (not their non-zero elements).
    total = at::full({}, static_cast<double>(grads.size()), grads[0].options());
  } else {
    std::vector<at::Tensor> norms;
    for (const auto& g : grads) norms.push_back(g.norm(norm_type));
    total = at::stack(norms).norm(norm_type);
  }
  const double total_norm = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total_norm), "[clip_grad_norm_] the total ", norm_type,
              "-norm of the gradients is ", total_norm,
              ", which cannot be clipped; pass error_if_nonfinite=false to scale by it anyway");
  at::Tensor coef = at::full_like(total, max_norm).div(total + 1e-6).clamp_max(1.0);
  for (auto& g : grads) g.mul_(coef.to(g.scalar_type()));
  return total_norm;
}

double clip_grad_norm_(std::initializer_list<at::Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<at::Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(at::Tensor parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<at::Tensor>{std::move(parameter)}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<at::Tensor>& parameters, double clip_value) {
  at::NoGradGuard no_grad;
  for (auto& g : grads_of(parameters)) g.clamp_(-clip_value, clip_value);
}

void clip_grad_value_(std::initializer_list<at::Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<at::Tensor>(parameters), clip_value);
}

void clip_grad_value_(at::Tensor parameter, double clip_value) {
  clip_grad_value_(std::vector<at::Tensor>{std::move(parameter)}, clip_value);
}

at::Tensor parameters_to_vector(const std::vector<at::Tensor>& parameters) {
  EMBER_CHECK(!parameters.empty(), "[parameters_to_vector] expected at least one parameter");
  check_same_device("parameters_to_vector", parameters);
  std::vector<at::Tensor> flat;
  for (const auto& p : parameters) flat.push_back(p.reshape({-1}));
  return at::cat(flat);
}

void vector_to_parameters(const at::Tensor& vec, const std::vector<at::Tensor>& parameters) {
  EMBER_CHECK(vec.defined() && vec.dim() == 1, "[vector_to_parameters] expected a 1-d vector; got ",
              vec.defined() ? vec.dim() : -1, " dims");
  check_same_device("vector_to_parameters", parameters);
  int64_t total = 0;
  for (const auto& p : parameters) {
    EMBER_CHECK(p.scalar_type() == vec.scalar_type() && p.device() == vec.device(), "[vector_to_parameters] expected ",
                "parameters of the vector's dtype and device (", vec.scalar_type(), ", ", vec.device(), "); got ",
                p.scalar_type(), ", ", p.device());
    total += p.numel();
  }
  EMBER_CHECK(vec.numel() == total, "[vector_to_parameters] expected a vector of ", total,
              " elements (the parameters' total); got ", vec.numel());
  int64_t offset = 0;
  for (const auto& p : parameters) {
    const at::Tensor src = vec.detach().slice(0, offset, offset + p.numel()).view(p.sizes());
    // Install the slice's storage view in the parameter's own TensorImpl (libtorch's set_data).
    auto* impl = p.unsafeGetTensorImpl();
    auto* s = src.unsafeGetTensorImpl();
    impl->set_storage(s->storage());
    impl->set_sizes_and_strides(s->sizes(), s->strides());
    impl->set_storage_offset(s->storage_offset());
    impl->refresh();
    offset += p.numel();
  }
}

}  // namespace torch::nn::utils
