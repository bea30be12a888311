#pragma once
// PyTorch-compatible checkpoints (docs/embedding.md): the zip + pickle format of Python's torch.save and
// libtorch's torch::pickle_save, over c10::IValue, with libtorch's signatures.
//
//   std::vector<char> bytes = torch::pickle_save(torch::module_state_dict(*model));  // torch.load()-able
//   c10::IValue v = torch::pickle_load(bytes);             // e.g. a state_dict saved by Python's torch.save
//   torch::load_state_dict(*model, v);                     // names and shapes checked, then copied
//
// Loading runs no code: only an allow-list of globals is understood; any other, or a malformed archive,
// raises c10::Error starting "[pickle_load] ".
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/ivalue.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <vector>

namespace torch {

/// Writes `ivalue` (None, bool, int, double, string, Tensor, lists, dicts, tuples) as the zip archive that
/// Python's torch.load (also with weights_only=True) and libtorch's torch::pickle_load read. Tensors that
/// share a storage are written once and load as views of one storage again. Device tensors are written
/// from CPU copies (each with its own storage).
std::vector<char> pickle_save(const c10::IValue& ivalue);

/// Reads what torch::pickle_save or Python's torch.save writes. Tensors are loaded on the CPU; int and
/// tensor lists tagged by libtorch come back as IntList / TensorList, other lists as generic lists, dicts
/// (also OrderedDict) as generic dicts.
c10::IValue pickle_load(const std::vector<char>& data);

/// A module's parameters and buffers by their state_dict names ("fc.weight", "bn.running_mean"), as a
/// string-keyed generic dict of tensors (shared with the module, not copied).
c10::IValue module_state_dict(const torch::nn::Module& module);

/// Copies a string-keyed dict of tensors (module_state_dict, a loaded state_dict) into a module's parameters
/// and buffers of the same names, converting dtype and device. Names, shapes and value types are all checked
/// before anything is copied; with `strict`, both sides must hold the same names. Errors start with
/// "[load_state_dict] " and name the offending keys.
void load_state_dict(torch::nn::Module& module, const c10::IValue& state_dict, bool strict = true);

template <typename ModuleType>
c10::IValue module_state_dict(const torch::nn::ModuleHolder<ModuleType>& module) {
  return module_state_dict(*module.ptr());
}
template <typename ModuleType>
void load_state_dict(torch::nn::ModuleHolder<ModuleType>& module, const c10::IValue& state_dict, bool strict = true) {
  load_state_dict(*module.ptr(), state_dict, strict);
}

}  // namespace torch

EMBER_PUBLIC_END
