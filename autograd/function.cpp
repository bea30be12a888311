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

namespace {
// Note [Gradient layout contract]
// A leaf's .grad takes the leaf's strides when the leaf is non-overlapping and dense (a
// channels-last weight or input gets a channels-last gradient, a transposed leaf a transposed
// one; strides of size-1 dims do not matter), and is contiguous otherwise: libtorch's rule for
// AccumulateGrad. An incoming gradient already in that layout may be kept as it is; any other is
// copied into it. (Until 2026-12-04 a contiguous gradient was kept whatever the leaf's layout, so a
// channels-last input's gradient through batch_norm came back NCHW.)
bool obeys_layout_contract(const at::Tensor& g, const at::Tensor& v) {
  if (!v.is_non_overlapping_and_dense()) return g.is_contiguous();
  if (g.sizes() != v.sizes()) return false;
  for (int64_t d = 0; d < g.dim(); ++d)
    if (g.size(d) != 1 && g.stride(d) != v.stride(d)) return false;
  return true;
}
at::Tensor copy_in_contract_layout(const at::Tensor& g, const at::Tensor& v) {
  if (!v.is_non_overlapping_and_dense() || g.sizes() != v.sizes()) return g.clone(at::MemoryFormat::Contiguous);
  at::Tensor r = at::empty_strided(v.sizes(), v.strides(), g.options());
  r.copy_(g);  // differentiable under create_graph (copy_'s derivative)
  return r;
}
}  // namespace

variable_list AccumulateGrad::apply(variable_list&& grads) {
  at::Tensor g = std::move(grads.at(0));
  if (!g.defined()) return {};
  AutogradMeta* meta = impl::get_autograd_meta(variable);
  std::lock_guard<std::mutex> lock(meta->mutex_);
  at::Tensor& acc = meta->grad_;
  if (!acc.defined()) {
    // Keep the incoming tensor when it is in the leaf's layout (Note [Gradient layout contract])
    // and, with grad mode off, nobody else holds it or its storage (a view made with grad mode off
    // is not marked as one); else copy, so that later in-place accumulation never writes into
    // another tensor, e.g. the gradient a caller passed in.
    const bool layout_ok = obeys_layout_contract(g, variable);
    if (at::GradMode::is_enabled()) acc = layout_ok ? g : copy_in_contract_layout(g, variable);
    else if (g.use_count() == 1 && g.storage().use_count() == 1 && layout_ok && !g.is_view()) acc = std::move(g);
    else acc = copy_in_contract_layout(g, variable);
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
