#pragma once
// torch::save / torch::load: checkpoints of tensors, modules and optimizers in Ember's own archive format
// (docs/serialization.md), with libtorch's C++ API.
//
//   torch::save(model, "model.ember");          // a module holder or std::shared_ptr<Module>
//   torch::save(optimizer, "optim.ember");
//   torch::load(model, "model.ember");          // checks names and shapes first, then copies
//   torch::save(std::vector<torch::Tensor>{a, b}, stream);
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <torch/optim/optimizer.h>
#include <torch/serialize/archive.h>
#include <torch/serialize/pickle.h>
#include <torch/serialize/tensor.h>

#include <string>
#include <utility>
#include <vector>

namespace torch::nn {

/// Writes the module held by `module` into `archive` (see Module::save).
template <typename ModuleType>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const ModuleHolder<ModuleType>& module) {
  return archive << module.ptr();
}

/// Loads the module held by `module` from `archive` (see Module::load).
template <typename ModuleType>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, ModuleHolder<ModuleType>& module) {
  return archive >> module.ptr();
}

}  // namespace torch::nn

namespace torch {

/// Saves `value` (a tensor, a module holder or shared_ptr, an optimizer) to a file name or std::ostream.
template <typename Value, typename... SaveToArgs>
void save(const Value& value, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  archive << value;
  archive.save_to(std::forward<SaveToArgs>(args)...);
}

/// Saves a list of tensors, under the keys "0", "1", ...
template <typename... SaveToArgs>
void save(const std::vector<at::Tensor>& tensor_vec, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  for (size_t i = 0; i < tensor_vec.size(); ++i) archive.write(std::to_string(i), tensor_vec[i]);
  archive.save_to(std::forward<SaveToArgs>(args)...);
}

/// Loads `value` from a file name or std::istream (optionally followed by a device for the loaded tensors).
template <typename Value, typename... LoadFromArgs>
void load(Value& value, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  archive >> value;
}

/// Loads a list of tensors saved by save(std::vector<Tensor>); `tensor_vec` is replaced.
template <typename... LoadFromArgs>
void load(std::vector<at::Tensor>& tensor_vec, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  std::vector<at::Tensor> out;
  for (size_t i = 0;; ++i) {
    at::Tensor t;
    if (!archive.try_read(std::to_string(i), t)) break;
    out.push_back(std::move(t));
  }
  tensor_vec = std::move(out);
}

}  // namespace torch

EMBER_PUBLIC_END
