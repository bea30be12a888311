#pragma once
// Cloneable<Derived>: gives a module a deep clone(). The module builds its parameters, buffers and
// submodules in reset(); clone() copy-constructs the module, calls reset() on the copy to make
// fresh tensors and submodules, then copies the values over (and clones submodules recursively).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/module.h>
#include <ATen/core/GradMode.h>
#include <memory>
#include <optional>

namespace torch::nn {

template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  /// Registers (again) every parameter, buffer and submodule of the module.
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(const std::optional<c10::Device>& device = std::nullopt) const override {
    at::NoGradGuard no_grad;
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->parameters_.clear();
    copy->buffers_.clear();
    copy->children_.clear();
    copy->reset();
    copy_tensors("parameter", parameters_, copy->parameters_, device);
    copy_tensors("buffer", buffers_, copy->buffers_, device);
    EMBER_CHECK(copy->children_.size() == children_.size(), "[clone] ", name(), "::reset() registered ",
                copy->children_.size(), " submodules, but the module has ", children_.size());
    for (const auto& child : children_) {
      auto* slot = copy->children_.find(child.key());
      EMBER_CHECK(slot != nullptr, "[clone] ", name(), "::reset() did not register submodule '", child.key(), "'");
      (*slot)->clone_(*child.value(), device);
    }
    return copy;
  }

 private:
  static void copy_tensors(const char* what, const OrderedDict<std::string, at::Tensor>& from,
                           OrderedDict<std::string, at::Tensor>& to, const std::optional<c10::Device>& device) {
    EMBER_CHECK(to.size() == from.size(), "[clone] reset() registered ", to.size(), " ", what, "s, but the module has ",
                from.size());
    for (const auto& item : from) {
      auto* slot = to.find(item.key());
      EMBER_CHECK(slot != nullptr, "[clone] reset() did not register ", what, " '", item.key(), "'");
      const at::Tensor& t = item.value();
      if (!t.defined()) {
        *slot = at::Tensor();
        continue;
      }
      at::Tensor data = (device && t.device() != *device) ? t.detach().to(*device) : t.detach().clone();
      if (slot->defined()) {
        set_data_(*slot, data);  // keeps the tensor the module's members hold
      } else {
        *slot = data;
      }
      if (slot->defined() && t.requires_grad() != slot->requires_grad()) slot->requires_grad_(t.requires_grad());
    }
  }

  // Replaces this (freshly reset) submodule with a clone of `other`, in place, so holders that
  // point at it stay valid.
  void clone_(Module& other, const std::optional<c10::Device>& device) final {
    auto cloned = std::dynamic_pointer_cast<Derived>(other.clone(device));
    EMBER_CHECK(cloned != nullptr, "[clone] submodule ", other.name(), " cloned to a different type than ", name());
    static_cast<Derived&>(*this) = std::move(static_cast<Derived&>(*cloned));
  }
};

}  // namespace torch::nn

EMBER_PUBLIC_END
