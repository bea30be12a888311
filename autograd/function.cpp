// Node basics, AccumulateGrad, and the reduction of broadcast gradients.
#include <torch/csrc/autograd/variable.h>
#include <cxxabi.h>

namespace torch::autograd {

uint64_t next_sequence_nr() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

std::string demangle_type_name(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string n = (status == 0 && d) ? d : mangled;
  std::free(d);
  return n;
}

std::string Node::name() const { return demangle_type_name(typeid(*this).name()); }

uint32_t Node::add_input_metadata(const at::Tensor& t) {
  input_metadata_.push_back(InputMetadata{t.sizes().vec(), t.scalar_type(), t.device()});
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

variable_list NotImplemented::apply(variable_list&&) {
  throw c10::Error(c10::str("[", op_, "] derivative not implemented"));
}

AccumulateGrad::AccumulateGrad(at::Tensor v) : Node({}), variable(std::move(v)) {
  add_input_metadata(variable);
  sequence_nr_ = UINT64_MAX;  // leaves run last among ready nodes
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  at::Tensor g = std::move(grads.at(0));
  if (!g.defined()) return {};
  AutogradMeta* meta = impl::get_autograd_meta(variable);
  std::lock_guard<std::mutex> lock(meta->mutex_);
  at::Tensor& acc = meta->grad_;
  if (!acc.defined()) {
    // Keep the incoming tensor when nobody else holds it or its storage (a view made with grad
    // mode off is not marked as one) and grad mode is off; else copy, so that later in-place
    // accumulation never writes into another tensor, e.g. the gradient a caller passed in.
    // A channels-last gradient of a channels-last variable is kept too (libtorch's layout rule).
    const bool layout_ok = g.is_contiguous() || (g.is_contiguous(at::MemoryFormat::ChannelsLast) && g.strides() == variable.strides());
    if (!at::GradMode::is_enabled() && g.use_count() == 1 && g.storage().use_count() == 1 && layout_ok && !g.is_view())
      acc = std::move(g);
    else acc = at::GradMode::is_enabled() ? g : g.clone();
  } else if (at::GradMode::is_enabled()) {
    acc = acc + g;  // create_graph: keep the accumulation differentiable
  } else {
    acc.add_(g);
  }
  return {};
}

at::Tensor sum_to(const at::Tensor& grad, at::IntArrayRef shape) {
  if (grad.sizes() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  EMBER_CHECK(lead >= 0, "[autograd] gradient of shape ", grad.sizes(), " cannot be reduced to shape ", shape);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (int64_t d = lead; d < grad.dim(); ++d) {
    int64_t want = shape[d - lead];
    if (want == 1 && grad.size(d) != 1) dims.push_back(d);
    else EMBER_CHECK(want == grad.size(d), "[autograd] gradient of shape ", grad.sizes(), " cannot be reduced to shape ", shape);
  }
  at::Tensor r = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  if (lead > 0 || r.sizes() != shape) r = r.reshape(shape);
  return r;
}

}  // namespace torch::autograd
