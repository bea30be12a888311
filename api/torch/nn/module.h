#pragma once
// torch::nn::Module: the base of every layer. A module owns named parameters, buffers and
// submodules (each kept in registration order), and walks them recursively for parameters(),
// train()/eval(), to() and zero_grad(). Modules live in std::shared_ptr (see ModuleHolder in
// pimpl.h), so submodules are shared, as in libtorch.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <torch/ordered_dict.h>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace torch::nn {

namespace detail {
/// Whether T is a module holder (Linear for LinearImpl): holders name their module class ContainedType.
template <typename T, typename = void>
struct is_module_holder : std::false_type {};
template <typename T>
struct is_module_holder<T, std::void_t<typename T::ContainedType>> : std::true_type {};
}  // namespace detail

class Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;

  /// `name` is what name() and printing show; without it, the (demangled) class name is used.
  explicit Module(std::string name);
  Module();
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  virtual ~Module() = default;

  /// The module's name: the one given to the constructor, else its demangled class name
  /// ("torch::nn::LinearImpl", as libtorch).
  const std::string& name() const noexcept;

  /// Parameters of this module and (if `recurse`) of every submodule, depth first, in registration order.
  std::vector<at::Tensor> parameters(bool recurse = true) const;
  /// The same, keyed by dotted paths ("layer1.weight").
  OrderedDict<std::string, at::Tensor> named_parameters(bool recurse = true) const;
  /// Buffers (state that is not trained, such as running statistics), as parameters().
  std::vector<at::Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, at::Tensor> named_buffers(bool recurse = true) const;

  /// Every module of the tree, depth first, this one first if `include_self` (needs a shared_ptr owner).
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  /// The same keyed by dotted path; this module (if included) is keyed by `name_prefix`.
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& name_prefix = std::string(),
                                                                   bool include_self = true) const;
  /// The direct submodules.
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;

  /// Sets training mode on this module and every submodule.
  virtual void train(bool on = true);
  /// train(false).
  void eval();
  virtual bool is_training() const noexcept;

  /// Moves/casts every parameter and buffer in place: parameters stay the same leaf tensors (same
  /// requires_grad), now holding the converted data.
  virtual void to(c10::Device device, c10::ScalarType dtype, bool non_blocking = false);
  virtual void to(c10::ScalarType dtype, bool non_blocking = false);
  virtual void to(c10::Device device, bool non_blocking = false);

  /// Clears the gradients of all parameters: undefined if `set_to_none`, else zero-filled.
  virtual void zero_grad(bool set_to_none = true);

  /// Calls `fn` on this module and every submodule (depth first, this one first).
  void apply(const ModuleApplyFunction& fn);
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = std::string());

  /// A deep copy (parameters and buffers copied, optionally onto `device`). Modules get it by
  /// deriving from Cloneable<Self> (cloneable.h); a plain Module raises.
  virtual std::shared_ptr<Module> clone(const std::optional<c10::Device>& device = std::nullopt) const;

  /// Writes this module's parameters and buffers under their names, and each submodule as a nested archive
  /// under its name (see docs/serialization.md).
  virtual void save(serialize::OutputArchive& archive) const;
  /// Loads what save() wrote. Every parameter, buffer and submodule must be in `archive` with the module's
  /// shape; all of that is checked before any value is copied, so a mismatch raises c10::Error and leaves the
  /// module untouched. Values are copied in place (the module's dtype and device are kept) without autograd
  /// history; records the module does not have are ignored.
  virtual void load(serialize::InputArchive& archive);

  /// Writes a one-line description of this module (not its children); layers override it.
  virtual void pretty_print(std::ostream& stream) const;

  /// Whether this module is an instance of `ModuleType` (or derived from it).
  template <typename ModuleType>
  bool is() const noexcept { return dynamic_cast<const ModuleType*>(this) != nullptr; }

  /// This module as `ModuleType` (a module class, or a holder such as Linear meaning LinearImpl),
  /// or null if it is not one.
  template <typename ModuleType>
  auto* as() noexcept {
    if constexpr (detail::is_module_holder<ModuleType>::value)
      return dynamic_cast<typename ModuleType::ContainedType*>(this);
    else
      return dynamic_cast<ModuleType*>(this);
  }
  template <typename ModuleType>
  const auto* as() const noexcept {
    if constexpr (detail::is_module_holder<ModuleType>::value)
      return dynamic_cast<const typename ModuleType::ContainedType*>(this);
    else
      return dynamic_cast<const ModuleType*>(this);
  }

  /// Adds a parameter; returns the stored tensor (use it to keep a member handle).
  at::Tensor& register_parameter(std::string name, at::Tensor tensor, bool requires_grad = true);
  /// Adds a buffer.
  at::Tensor& register_buffer(std::string name, at::Tensor tensor);
  /// Adds a submodule; returns it.
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module) {
    check_new_name("register_module", name, children_.contains(name));
    EMBER_CHECK(module != nullptr, "[register_module] submodule '", name, "' is null; expected a constructed module");
    children_.insert(std::move(name), std::static_pointer_cast<Module>(module));
    return module;
  }
  /// Adds a submodule held by a ModuleHolder (a TORCH_MODULE type); returns its shared_ptr.
  template <typename Holder, typename = decltype(std::declval<Holder>().ptr())>
  auto register_module(std::string name, const Holder& holder) {
    return register_module(std::move(name), holder.ptr());
  }
  /// Replaces an existing submodule (keeps its position).
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module) {
    auto* slot = children_.find(name);
    EMBER_CHECK(slot != nullptr, "[replace_module] there is no submodule named '", name, "'");
    *slot = module;
    return module;
  }
  /// Removes a submodule.
  void unregister_module(const std::string& name);

 protected:
  /// Makes this module a clone of `other` (Cloneable implements it; used for submodules).
  virtual void clone_(Module& other, const std::optional<c10::Device>& device);
  /// Installs `source`'s data in `target`'s TensorImpl, keeping its identity and autograd state
  /// (libtorch's set_data). See Note [Module::to keeps the parameter].
  static void set_data_(const at::Tensor& target, const at::Tensor& source);

  /// Parameters, buffers and submodules registered directly on this module.
  OrderedDict<std::string, at::Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, at::Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

 private:
  template <typename Derived>
  friend class Cloneable;
  friend std::ostream& operator<<(std::ostream& stream, const Module& module);
  void check_new_name(const char* what, const std::string& name, bool exists) const;
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;
  void collect_named_modules(const std::string& prefix, OrderedDict<std::string, std::shared_ptr<Module>>& out) const;
  static const OrderedDict<std::string, at::Tensor>& own_parameters(const Module& m);
  static const OrderedDict<std::string, at::Tensor>& own_buffers(const Module& m);
  /// Converts this module's own parameters and buffers in place (not its children's).
  void convert_tensors(const std::function<at::Tensor(const at::Tensor&)>& conv);

  mutable std::string name_;
  bool is_training_ = true;
};

/// Prints the module and its submodules, one per line, indented.
std::ostream& operator<<(std::ostream& stream, const Module& module);

/// Writes `module` into `archive` (module->save(archive)).
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const std::shared_ptr<Module>& module);
/// Loads `module` from `archive` (module->load(archive)).
serialize::InputArchive& operator>>(serialize::InputArchive& archive, const std::shared_ptr<Module>& module);

}  // namespace torch::nn

EMBER_PUBLIC_END
