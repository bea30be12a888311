#pragma once
// ModuleHolder<Impl>: a shared_ptr<Impl> with module sugar. TORCH_MODULE(Linear) turns the class
// LinearImpl into the holder `Linear`, so `Linear fc(3, 4); fc->weight; fc(x);` work as in libtorch:
// copying a holder shares the module, and `Linear fc(nullptr)` is an empty holder to fill later.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/Exception.h>
#include <cstddef>
#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

namespace torch::nn {

/// Base tag for holders (lets templates tell a holder from a module).
struct ModuleHolderIndicator {};

template <typename Contained>
class ModuleHolder : ModuleHolderIndicator {
 public:
  using ContainedType = Contained;

  /// Default-constructs the module (only if Contained is default-constructible).
  ModuleHolder() : impl_(default_construct()) {}
  /// An empty holder.
  ModuleHolder(std::nullptr_t) {}
  /// Constructs the module from the arguments.
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<!(std::is_same_v<std::decay_t<Head>, std::nullptr_t> ||
                                          std::is_same_v<std::decay_t<Head>, std::shared_ptr<Contained>> ||
                                          std::is_base_of_v<ModuleHolder, std::decay_t<Head>>) ||
                                        sizeof...(Tail) != 0>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  /// Holds an existing module.
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    check_nonempty();
    return impl_;
  }
  Contained* get() {
    check_nonempty();
    return impl_.get();
  }
  const Contained* get() const {
    check_nonempty();
    return impl_.get();
  }

  /// Calls the module's forward().
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  /// Indexes the module (Sequential, ModuleList).
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;

 private:
  static std::shared_ptr<Contained> default_construct() {
    if constexpr (std::is_default_constructible_v<Contained>) {
      return std::make_shared<Contained>();
    } else {
      static_assert(std::is_default_constructible_v<Contained>,
                    "this module has no default constructor: pass its options, or nullptr for an empty holder");
      return nullptr;
    }
  }
  void check_nonempty() const {
    EMBER_CHECK(impl_ != nullptr, "[ModuleHolder] the holder of ", typeid(Contained).name(),
                " is empty (made from nullptr); assign a module before using it");
  }
};

/// Prints the held module.
template <typename Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& holder) {
  return stream << *holder;
}

}  // namespace torch::nn

/// Defines `Name` as the holder of `Name##Impl`.
#define TORCH_MODULE_IMPL(Name, ImplType)                           \
  class Name : public torch::nn::ModuleHolder<ImplType> {           \
   public:                                                          \
    using torch::nn::ModuleHolder<ImplType>::ModuleHolder;          \
    using Impl = ImplType;                                          \
  }

#define TORCH_MODULE(Name) TORCH_MODULE_IMPL(Name, Name##Impl)

EMBER_PUBLIC_END
