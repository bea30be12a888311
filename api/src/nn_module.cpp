// torch::nn::Module: registration, recursive traversal, mode, device/dtype moves and printing.
#include <torch/nn/module.h>
#include <torch/serialize/archive.h>
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

// ---------------------------------------------------------------- serialization (docs/serialization.md)

namespace {
// Checks one parameter or buffer of the module against the archive (undefined ones are not saved).
void check_entry(const std::string& name, const at::Tensor& dest, bool is_buffer,
                 serialize::InputArchive& archive) {
  if (!dest.defined()) return;
  const char* kind = is_buffer ? "buffer" : "parameter";
  const std::string full = join(archive.path(), name);
  at::Tensor src;
  EMBER_CHECK(archive.try_read(name, src, is_buffer), "[Module::load] the archive has no ", kind, " '", full, "'");
  EMBER_CHECK(src.defined(), "[Module::load] ", kind, " '", full, "' is undefined in the archive");
  EMBER_CHECK(src.sizes() == dest.sizes(), "[Module::load] ", kind, " '", full, "' has shape ", src.sizes(),
              " in the archive, but the module expects shape ", dest.sizes());
}

// Note [Module::load checks before it copies]
// A load that fails half-way would leave a model mixing two checkpoints. So Module::load first walks the
// whole module tree against the archive (names, parameter/buffer kind, shapes) and only then copies. The copy
// phase still calls each child's (virtual) load, which repeats the check of its own subtree: cheap, since the
// archive is already decoded in memory.
void check_loadable(const Module& module, serialize::InputArchive& archive) {
  for (const auto& p : module.named_parameters(/*recurse=*/false)) check_entry(p.key(), p.value(), false, archive);
  for (const auto& b : module.named_buffers(/*recurse=*/false)) check_entry(b.key(), b.value(), true, archive);
  for (const auto& c : module.named_children()) {
    serialize::InputArchive sub;
    EMBER_CHECK(archive.try_read(c.key(), sub), "[Module::load] the archive has no submodule '",
                join(archive.path(), c.key()), "'");
    check_loadable(*c.value(), sub);
  }
}
}  // namespace

void Module::save(serialize::OutputArchive& archive) const {
  for (const auto& p : parameters_)
    if (p.value().defined()) archive.write(p.key(), p.value());
  for (const auto& b : buffers_)
    if (b.value().defined()) archive.write(b.key(), b.value(), /*is_buffer=*/true);
  for (const auto& c : children_) {
    serialize::OutputArchive sub;
    c.value()->save(sub);
    archive.write(c.key(), sub);
  }
}

void Module::load(serialize::InputArchive& archive) {
  check_loadable(*this, archive);  // See Note [Module::load checks before it copies]
  at::NoGradGuard no_grad;
  for (auto& p : parameters_) {
    if (!p.value().defined()) continue;
    at::Tensor src;
    archive.read(p.key(), src);
    p.value().copy_(src);
  }
  for (auto& b : buffers_) {
    if (!b.value().defined()) continue;
    at::Tensor src;
    archive.read(b.key(), src, /*is_buffer=*/true);
    b.value().copy_(src);
  }
  for (auto& c : children_) {
    serialize::InputArchive sub;
    archive.read(c.key(), sub);
    c.value()->load(sub);
  }
}

serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const std::shared_ptr<Module>& module) {
  EMBER_CHECK(module != nullptr, "[save] expected a module, got a null pointer");
  module->save(archive);
  return archive;
}

serialize::InputArchive& operator>>(serialize::InputArchive& archive, const std::shared_ptr<Module>& module) {
  EMBER_CHECK(module != nullptr, "[load] expected a module, got a null pointer");
  module->load(archive);
  return archive;
}

}  // namespace torch::nn
