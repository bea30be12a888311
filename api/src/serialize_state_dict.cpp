// torch::module_state_dict / torch::load_state_dict: a module's tensors as a dict of IValues.
#include <torch/serialize/pickle.h>

#include <ATen/core/GradMode.h>
#include <c10/util/Exception.h>

#include <set>
#include <sstream>

namespace torch {
namespace {

std::string name_list(const std::vector<std::string>& names) {
  std::ostringstream s;
  for (size_t i = 0; i < names.size() && i < 10; ++i) s << (i ? ", " : "") << "'" << names[i] << "'";
  if (names.size() > 10) s << " and " << names.size() - 10 << " more";
  return s.str();
}

}  // namespace

c10::IValue module_state_dict(const torch::nn::Module& module) {
  c10::impl::GenericDict d;
  for (const auto& it : module.named_parameters()) d.insert(it.key(), it.value());
  for (const auto& it : module.named_buffers()) d.insert(it.key(), it.value());
  return d;
}

void load_state_dict(torch::nn::Module& module, const c10::IValue& state_dict, bool strict) {
  EMBER_CHECK(state_dict.isGenericDict(), "[load_state_dict] expected a dict of tensors; got ", state_dict.tagKind());
  const auto dict = state_dict.toGenericDict();
  std::vector<std::pair<std::string, at::Tensor>> targets;
  for (const auto& it : module.named_parameters()) targets.emplace_back(it.key(), it.value());
  for (const auto& it : module.named_buffers()) targets.emplace_back(it.key(), it.value());
  std::set<std::string> known;
  std::vector<std::string> missing, unexpected;
  for (const auto& [name, t] : targets) {
    known.insert(name);
    if (!dict.contains(name)) missing.push_back(name);
  }
  for (const auto& e : dict) {
    EMBER_CHECK(e.key().isString(), "[load_state_dict] expected string keys; got a key of type ", e.key().tagKind());
    const std::string& name = e.key().toStringRef();
    if (!known.count(name)) {
      unexpected.push_back(name);
      continue;
    }
    EMBER_CHECK(e.value().isTensor(), "[load_state_dict] expected a tensor for '", name, "'; got ", e.value().tagKind());
  }
  if (strict) {
    EMBER_CHECK(missing.empty() && unexpected.empty(), "[load_state_dict] expected the module's names exactly; ",
                missing.empty() ? std::string() : "missing from the state_dict: " + name_list(missing),
                !missing.empty() && !unexpected.empty() ? "; " : "",
                unexpected.empty() ? std::string() : "not in the module: " + name_list(unexpected));
  }
  for (const auto& [name, t] : targets) {
    auto it = dict.find(name);
    if (it == dict.end()) continue;
    const at::Tensor& src = it->value().toTensor();
    EMBER_CHECK(src.sizes() == t.sizes(), "[load_state_dict] expected '", name, "' of shape ", t.sizes(),
                " (the module's); the state_dict has shape ", src.sizes());
    EMBER_CHECK(src.scalar_type() == t.scalar_type() || (at::isFloatingType(src.scalar_type()) == at::isFloatingType(t.scalar_type())),
                "[load_state_dict] expected '", name, "' of a ", at::isFloatingType(t.scalar_type()) ? "floating-point" : "integer",
                " dtype like the module's ", c10::dtypeName(t.scalar_type()), "; the state_dict has ",
                c10::dtypeName(src.scalar_type()));
  }
  at::NoGradGuard no_grad;
  for (auto& [name, t] : targets) {
    auto it = dict.find(name);
    if (it != dict.end()) t.copy_(it->value().toTensor());
  }
}

}  // namespace torch
