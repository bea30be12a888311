#pragma once
// AnyModule: a type-erased module whose forward takes and returns one Tensor — what Sequential
// chains. (libtorch's AnyModule accepts any forward signature; Ember's covers the Tensor -> Tensor
// modules that Sequential can chain.) NamedAnyModule pairs one with a name.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <type_traits>
#include <functional>
#include <memory>
#include <string>

namespace torch::nn {

class AnyModule {
 public:
  AnyModule() = default;
  /// Wraps a module held by shared_ptr.
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  AnyModule(std::shared_ptr<M> module)
      : module_(module), forward_(make_forward(module)), clone_(make_clone<M>()) {}
  /// Wraps a module held by a TORCH_MODULE holder.
  template <typename M>
  AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}
  /// Takes a module by value (moved into a new shared_ptr).
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>, typename = void>
  AnyModule(M&& module) : AnyModule(std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}

  bool is_empty() const noexcept { return module_ == nullptr; }
  /// Runs the module's forward.
  at::Tensor forward(const at::Tensor& input) const {
    EMBER_CHECK(module_ != nullptr, "[AnyModule] forward() called on an empty AnyModule");
    return forward_(input);
  }
  const std::shared_ptr<Module>& ptr() const { return module_; }
  /// An AnyModule holding a deep clone of the module (see Module::clone).
  AnyModule clone(const std::optional<c10::Device>& device = std::nullopt) const {
    EMBER_CHECK(module_ != nullptr, "[AnyModule] clone() called on an empty AnyModule");
    return clone_(*module_, device);
  }
  /// The module as `T` (which must be its type or a base of it).
  template <typename T>
  T& get() const {
    auto* p = dynamic_cast<T*>(module_.get());
    EMBER_CHECK(p != nullptr, "[AnyModule] the module is a ", module_ ? module_->name() : std::string("null"),
                ", not the requested type");
    return *p;
  }

 private:
  // Whether M has forward(Tensor) giving something convertible to a Tensor (written without C++20's
  // requires-expressions: the installed headers compile as C++17, as libtorch's do).
  template <typename M, typename = void>
  struct has_tensor_forward : std::false_type {};
  template <typename M>
  struct has_tensor_forward<M, std::enable_if_t<std::is_convertible_v<
      decltype(std::declval<M&>().forward(std::declval<const at::Tensor&>())), at::Tensor>>> : std::true_type {};

  template <typename M>
  static std::function<at::Tensor(const at::Tensor&)> make_forward(std::shared_ptr<M> m) {
    if constexpr (has_tensor_forward<M>::value) {
      return [m](const at::Tensor& x) { return m->forward(x); };
    } else {
      return [m](const at::Tensor&) -> at::Tensor {
        EMBER_CHECK(false, "[AnyModule] ", m->name(), " has no forward(Tensor) -> Tensor, so it cannot be chained");
        return {};
      };
    }
  }
  template <typename M>
  static std::function<AnyModule(const Module&, const std::optional<c10::Device>&)> make_clone() {
    return [](const Module& m, const std::optional<c10::Device>& device) {
      auto cloned = std::dynamic_pointer_cast<M>(m.clone(device));
      EMBER_CHECK(cloned != nullptr, "[AnyModule] clone of ", m.name(), " has a different type");
      return AnyModule(std::move(cloned));
    };
  }
  std::shared_ptr<Module> module_;
  std::function<at::Tensor(const at::Tensor&)> forward_;
  std::function<AnyModule(const Module&, const std::optional<c10::Device>&)> clone_;
};

/// A name and a module, for constructing a named Sequential: `Sequential({{"fc", Linear(3, 4)}, ...})`.
class NamedAnyModule {
 public:
  template <typename M>
  NamedAnyModule(std::string name, M&& module) : name_(std::move(name)), module_(std::forward<M>(module)) {}
  NamedAnyModule(std::string name, AnyModule module) : name_(std::move(name)), module_(std::move(module)) {}
  const std::string& name() const noexcept { return name_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace torch::nn

EMBER_PUBLIC_END
