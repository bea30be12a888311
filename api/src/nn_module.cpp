// torch::nn::Module: registration, recursive traversal, mode, device/dtype moves and printing.
#include <torch/nn/module.h>
#include <torch/csrc/autograd/variable.h>
#include <ATen/core/GradMode.h>
#include <cxxabi.h>
#include <cstdlib>
#include <ostream>
#include <typeinfo>

namespace torch::nn {

namespace {
std::string demangled_class_name(const std::type_info& type) {
  int status = 0;
  char* raw = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string out = (status == 0 && raw) ? raw : type.name();
  std::free(raw);
  return out;
}

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// Note [Module::to keeps the parameter]
// Optimizers and users hold the parameter tensors themselves, so Module::to cannot hand back new
// tensors: it converts the data and installs the result in the existing TensorImpl (libtorch's
// set_data). Autograd state (requires_grad, hooks) stays; the leaf's gradient accumulator is
// dropped, since it recorded the old dtype/device, and a defined .grad() is converted alongside.
void install_data(const at::Tensor& target, const at::Tensor& source) {
  EMBER_INTERNAL_ASSERT(target.defined() && source.defined(), "set_data with an undefined tensor");
  auto* impl = target.unsafeGetTensorImpl();
  auto* src = source.unsafeGetTensorImpl();
  impl->set_storage(src->storage());
  impl->set_dtype(src->dtype());
  impl->set_sizes_and_strides(src->sizes(), src->strides());
  impl->set_storage_offset(src->storage_offset());
  impl->refresh();
}
}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const noexcept {
  // Computed lazily: in the constructor the dynamic type is still Module.
  if (name_.empty()) name_ = demangled_class_name(typeid(*this));
  return name_;
}

void Module::check_new_name(const char* what, const std::string& name, bool exists) const {
  EMBER_CHECK(!name.empty(), "[", what, "] expected a non-empty name");
  EMBER_CHECK(name.find('.') == std::string::npos, "[", what, "] expected a name without dots; got '", name, "'");
  EMBER_CHECK(!exists, "[", what, "] '", name, "' is already registered on ", this->name());
}

at::Tensor& Module::register_parameter(std::string name, at::Tensor tensor, bool requires_grad) {
  check_new_name("register_parameter", name, parameters_.contains(name));
  if (tensor.defined()) tensor.set_requires_grad(requires_grad);
  return parameters_.insert(std::move(name), std::move(tensor));
}

at::Tensor& Module::register_buffer(std::string name, at::Tensor tensor) {
  check_new_name("register_buffer", name, buffers_.contains(name));
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::unregister_module(const std::string& name) {
  EMBER_CHECK(children_.contains(name), "[unregister_module] there is no submodule named '", name, "'");
  children_.erase(name);
}

namespace {
// Walks a module tree without needing a shared_ptr to the root (a module on the stack works too).
void collect_tensors(const Module& m, const std::string& prefix, bool recurse,
                     const OrderedDict<std::string, at::Tensor>& (*pick)(const Module&),
                     OrderedDict<std::string, at::Tensor>& out) {
  for (const auto& t : pick(m))
    if (t.value().defined()) out.insert(join(prefix, t.key()), t.value());
  if (!recurse) return;
  for (const auto& c : m.named_children()) collect_tensors(*c.value(), join(prefix, c.key()), true, pick, out);
}
}  // namespace

const OrderedDict<std::string, at::Tensor>& Module::own_parameters(const Module& m) { return m.parameters_; }
const OrderedDict<std::string, at::Tensor>& Module::own_buffers(const Module& m) { return m.buffers_; }

OrderedDict<std::string, at::Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, at::Tensor> out("Parameter");
  collect_tensors(*this, "", recurse, &Module::own_parameters, out);
  return out;
}

std::vector<at::Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }

OrderedDict<std::string, at::Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, at::Tensor> out("Buffer");
  collect_tensors(*this, "", recurse, &Module::own_buffers, out);
  return out;
}

std::vector<at::Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

void Module::collect_named_modules(const std::string& prefix,
                                   OrderedDict<std::string, std::shared_ptr<Module>>& out) const {
  for (const auto& c : children_) {
    const std::string path = join(prefix, c.key());
    out.insert(path, c.value());
    c.value()->collect_named_modules(path, out);
  }
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& name_prefix,
                                                                        bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> out;
  if (include_self) {
    std::shared_ptr<const Module> self;
    try {
      self = shared_from_this();
    } catch (const std::bad_weak_ptr&) {
      EMBER_CHECK(false, "[named_modules] ", name(), " is not owned by a std::shared_ptr; create it with "
                  "std::make_shared (or a TORCH_MODULE holder), or pass include_self=false");
    }
    out.insert(name_prefix, std::const_pointer_cast<Module>(self));
  }
  collect_named_modules(name_prefix, out);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules(std::string(), include_self).values();
}

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const { return children_; }

void Module::train(bool on) {
  for (auto& c : children_) c.value()->train(on);
  is_training_ = on;
}

void Module::eval() { train(false); }

bool Module::is_training() const noexcept { return is_training_; }

void Module::convert_tensors(const std::function<at::Tensor(const at::Tensor&)>& conv) {
  at::NoGradGuard no_grad;
  for (auto* dict : {&parameters_, &buffers_}) {
    for (auto& item : *dict) {
      at::Tensor& t = item.value();
      if (!t.defined()) continue;
      at::Tensor moved = conv(t.detach());
      if (moved.unsafeGetTensorImpl() != t.unsafeGetTensorImpl() &&
          !(moved.storage().is_alias_of(t.storage()) && moved.scalar_type() == t.scalar_type()))
        install_data(t, moved);
      if (auto* meta = torch::autograd::impl::get_autograd_meta(t)) {  // See Note [Module::to keeps the parameter]
        meta->grad_accumulator_.reset();
        if (meta->grad_.defined()) meta->grad_ = conv(meta->grad_);
      }
    }
  }
}

// Children are moved through their (virtual) to(), so a module that overrides it is respected.
void Module::to(c10::Device device, c10::ScalarType dtype, bool non_blocking) {
  for (auto& c : children_) c.value()->to(device, dtype, non_blocking);
  convert_tensors([&](const at::Tensor& t) { return t.to(device, dtype, non_blocking); });
}

void Module::to(c10::ScalarType dtype, bool non_blocking) {
  for (auto& c : children_) c.value()->to(dtype, non_blocking);
  convert_tensors([&](const at::Tensor& t) { return t.to(dtype, non_blocking); });
}

void Module::to(c10::Device device, bool non_blocking) {
  for (auto& c : children_) c.value()->to(device, non_blocking);
  convert_tensors([&](const at::Tensor& t) { return t.to(device, t.scalar_type(), non_blocking); });
}

void Module::zero_grad(bool set_to_none) {
  for (auto& p : parameters()) {
    at::Tensor& g = p.mutable_grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      g = at::Tensor();
    } else {
      at::NoGradGuard no_grad;
      g = g.detach();
      g.zero_();
    }
  }
}

void Module::apply(const ModuleApplyFunction& fn) {
  fn(*this);
  for (auto& c : children_) c.value()->apply(fn);
}

void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (auto& c : children_) c.value()->apply(fn, join(name_prefix, c.key()));
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

std::shared_ptr<Module> Module::clone(const std::optional<c10::Device>&) const {
  EMBER_CHECK(false, "[clone] ", name(), " cannot be cloned: derive it from torch::nn::Cloneable<", name(),
              "> instead of torch::nn::Module (and build its parameters in reset())");
  return nullptr;
}

void Module::clone_(Module&, const std::optional<c10::Device>&) {
  EMBER_CHECK(false, "[clone] ", name(), " cannot be cloned: derive it from torch::nn::Cloneable<", name(),
              "> instead of torch::nn::Module");
}

void Module::set_data_(const at::Tensor& target, const at::Tensor& source) { install_data(target, source); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string inner = indentation + "  ";
  for (const auto& c : children_) {
    stream << inner << "(" << c.key() << "): ";
    c.value()->pretty_print_recursive(stream, inner);
    stream << "\n";
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

}  // namespace torch::nn
