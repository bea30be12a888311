#pragma once
// More containers: Functional (a function as a module), ModuleDict, ParameterList, ParameterDict.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <functional>
#include <ostream>
#include <utility>
#include <tuple>
#include <type_traits>
#include <vector>

namespace torch::nn {

/// Wraps a Tensor -> Tensor function as a module, e.g. to put torch::relu in a Sequential:
/// `Functional(torch::relu)`, or with extra arguments bound after the input:
/// `Functional(torch::leaky_relu, 0.2)`.
class FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<at::Tensor(at::Tensor)>;
  explicit FunctionalImpl(Function function) : function_(std::move(function)) {}
  template <typename SomeFunction, typename... Args, typename = std::enable_if_t<(sizeof...(Args) > 0)>>
  explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      : function_([f = std::move(original_function), bound = std::make_tuple(std::forward<Args>(args)...)](
                      at::Tensor input) {
          return std::apply([&](const auto&... b) { return at::Tensor(f(input, b...)); }, bound);
        }) {}
  void reset() override {}
  at::Tensor forward(at::Tensor input) { return function_(std::move(input)); }
  at::Tensor operator()(at::Tensor input) { return forward(std::move(input)); }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Functional()"; }

 private:
  Function function_;
};
TORCH_MODULE(Functional);

/// Submodules under string keys, in insertion order.
class ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, std::shared_ptr<Module>>::Iterator;
  using ConstIterator = OrderedDict<std::string, std::shared_ptr<Module>>::ConstIterator;

  ModuleDictImpl() = default;
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
    update(modules);
  }
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) { update(modules); }

  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<c10::Device>& device = std::nullopt) const override {
    auto copy = std::make_shared<ModuleDictImpl>();
    for (const auto& item : children_) copy->insert(item.key(), item.value()->clone(device));
    return copy;
  }

  std::vector<std::string> keys() const { return children_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return children_.values(); }
  const std::vector<OrderedDict<std::string, std::shared_ptr<Module>>::Item>& items() const { return children_.items(); }
  Iterator begin() { return children_.begin(); }
  Iterator end() { return children_.end(); }
  ConstIterator begin() const { return children_.begin(); }
  ConstIterator end() const { return children_.end(); }
  size_t size() const noexcept { return children_.size(); }
  bool empty() const noexcept { return children_.is_empty(); }
  bool contains(const std::string& key) const noexcept { return children_.contains(key); }
  void clear() { children_.clear(); }

  /// The module under `key` (which must exist).
  std::shared_ptr<Module> operator[](const std::string& key) const {
    auto* m = children_.find(key);
    EMBER_CHECK(m != nullptr, "[ModuleDict] there is no module under key '", key, "'");
    return *m;
  }
  template <typename T>
  T& at(const std::string& key) {
    auto* p = dynamic_cast<T*>((*this)[key].get());
    EMBER_CHECK(p != nullptr, "[ModuleDict] the module under '", key, "' is a ", (*this)[key]->name(),
                ", not the requested type");
    return *p;
  }
  /// Adds `module` under `key`, or replaces the module already there (keeping its position).
  void insert(const std::string& key, std::shared_ptr<Module> module) {
    if (contains(key)) replace_module(key, std::move(module));
    else register_module(key, std::move(module));
  }
  template <typename M>
  void insert(const std::string& key, const ModuleHolder<M>& holder) { insert(key, std::shared_ptr<Module>(holder.ptr())); }
  /// Removes and returns the module under `key`.
  std::shared_ptr<Module> pop(const std::string& key) {
    auto m = (*this)[key];
    unregister_module(key);
    return m;
  }
  /// Inserts every (key, module) of `container` (pairs, an OrderedDict, or another ModuleDict).
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) insert(key_of(item), value_of(item));
  }

  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::ModuleDict"; }

 private:
  // OrderedDict items have key()/value(), std::pair and map entries first/second.
  template <typename Item, typename = void>
  struct has_key_value : std::false_type {};
  template <typename Item>
  struct has_key_value<Item, std::void_t<decltype(std::declval<const Item&>().key()),
                                         decltype(std::declval<const Item&>().value())>> : std::true_type {};
  template <typename Item>
  static std::string key_of(const Item& item) {
    if constexpr (has_key_value<Item>::value) return item.key();
    else return item.first;
  }
  template <typename Item>
  static std::shared_ptr<Module> value_of(const Item& item) {
    if constexpr (has_key_value<Item>::value) return item.value();
    else return item.second;
  }
};
TORCH_MODULE(ModuleDict);

/// Parameters in a list, named "0", "1", ...; each keeps its own requires_grad.
class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  using Iterator = OrderedDict<std::string, at::Tensor>::Iterator;
  using ConstIterator = OrderedDict<std::string, at::Tensor>::ConstIterator;

  ParameterListImpl() = default;
  template <typename... Tensors,
            typename = std::enable_if_t<(sizeof...(Tensors) > 0) &&
                                        (!std::is_base_of_v<Module, std::decay_t<Tensors>> && ...)>>
  explicit ParameterListImpl(Tensors&&... params) {
    (append(std::forward<Tensors>(params)), ...);
  }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<c10::Device>& device = std::nullopt) const override {
    auto copy = std::make_shared<ParameterListImpl>();
    for (const auto& p : parameters_) {
      at::Tensor data = device ? p.value().detach().to(*device) : p.value().detach().clone();
      copy->append(data.requires_grad_(p.value().requires_grad()));
    }
    return copy;
  }

  /// Appends a parameter (its requires_grad is kept).
  void append(const at::Tensor& param) {
    register_parameter(std::to_string(parameters_.size()), param, param.requires_grad());
  }
  void append(const OrderedDict<std::string, at::Tensor>::Item& item) { append(item.value()); }
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& p : container) append(p);
  }

  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
  size_t size() const noexcept { return parameters_.size(); }
  bool is_empty() const noexcept { return parameters_.is_empty(); }
  at::Tensor& at(size_t idx) {
    EMBER_CHECK(idx < size(), "[ParameterList] index ", idx, " is out of range for ", size(), " parameters");
    return parameters_[idx].value();
  }
  const at::Tensor& at(size_t idx) const {
    EMBER_CHECK(idx < size(), "[ParameterList] index ", idx, " is out of range for ", size(), " parameters");
    return parameters_[idx].value();
  }
  at::Tensor& operator[](size_t idx) { return at(idx); }
  const at::Tensor& operator[](size_t idx) const { return at(idx); }

  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::ParameterList(\n";
    for (const auto& p : parameters_)
      stream << "(" << p.key() << "): Parameter containing: [" << p.value().scalar_type() << " of size "
             << p.value().sizes() << "]\n";
    stream << ")";
  }
};
TORCH_MODULE(ParameterList);

/// Parameters under string keys, in insertion order; each keeps its own requires_grad.
class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, at::Tensor>::Iterator;
  using ConstIterator = OrderedDict<std::string, at::Tensor>::ConstIterator;

  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const OrderedDict<std::string, at::Tensor>& params) { update(params); }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<c10::Device>& device = std::nullopt) const override {
    auto copy = std::make_shared<ParameterDictImpl>();
    for (const auto& p : parameters_) {
      at::Tensor data = device ? p.value().detach().to(*device) : p.value().detach().clone();
      copy->insert(p.key(), data.requires_grad_(p.value().requires_grad()));
    }
    return copy;
  }

  /// Adds `param` under `key`, or replaces the parameter already there.
  at::Tensor& insert(const std::string& key, const at::Tensor& param) {
    if (auto* slot = parameters_.find(key)) {
      *slot = param;
      return *slot;
    }
    return register_parameter(key, param, param.requires_grad());
  }
  /// Removes and returns the parameter under `key`.
  at::Tensor pop(const std::string& key) {
    at::Tensor t = get(key);
    parameters_.erase(key);
    return t;
  }
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) insert(item.key(), item.value());
  }
  std::vector<std::string> keys() const { return parameters_.keys(); }
  std::vector<at::Tensor> values() const { return parameters_.values(); }
  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
  size_t size() const noexcept { return parameters_.size(); }
  bool empty() const noexcept { return parameters_.is_empty(); }
  bool contains(const std::string& key) const noexcept { return parameters_.contains(key); }
  void clear() { parameters_.clear(); }
  at::Tensor& get(const std::string& key) {
    auto* t = parameters_.find(key);
    EMBER_CHECK(t != nullptr, "[ParameterDict] there is no parameter under key '", key, "'");
    return *t;
  }
  const at::Tensor& get(const std::string& key) const {
    auto* t = parameters_.find(key);
    EMBER_CHECK(t != nullptr, "[ParameterDict] there is no parameter under key '", key, "'");
    return *t;
  }
  at::Tensor& operator[](const std::string& key) { return get(key); }
  const at::Tensor& operator[](const std::string& key) const { return get(key); }

  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::ParameterDict(\n";
    for (const auto& p : parameters_)
      stream << "(" << p.key() << "): Parameter containing: [" << p.value().scalar_type() << " of size "
             << p.value().sizes() << "]\n";
    stream << ")";
  }
};
TORCH_MODULE(ParameterDict);

}  // namespace torch::nn

EMBER_PUBLIC_END
