#pragma once
// Ember's extension of torch::pickle_save / pickle_load (torch/serialize/pickle.h; not in libtorch) for
// its Python frontend, whose nn.Parameter is a tensor subclass: Python's torch.save writes a Parameter
// as torch._utils._rebuild_parameter(data, requires_grad, OrderedDict()), and torch.load gives back a
// Parameter. These overloads write and report such entries; the plain functions write none, and read
// them as tensors with requires_grad set.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/ivalue.h>

#include <vector>

namespace torch {

/// As pickle_save(ivalue), writing each tensor whose TensorImpl is in `parameters` as an nn.Parameter.
std::vector<char> pickle_save(const c10::IValue& ivalue, const std::vector<const c10::TensorImpl*>& parameters);

/// As pickle_load(data), appending to `*parameters` every tensor the file stores as an nn.Parameter (a
/// tensor of the returned value, by identity).
c10::IValue pickle_load(const std::vector<char>& data, std::vector<at::Tensor>* parameters);

}  // namespace torch

EMBER_PUBLIC_END
