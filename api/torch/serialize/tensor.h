#pragma once
// Archive operators for a single tensor (key "0"), used by torch::save(tensor, ...) and torch::load(tensor, ...).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/serialize/archive.h>

namespace torch {

/// Writes `tensor` under the key "0".
inline serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const at::Tensor& tensor) {
  archive.write("0", tensor);
  return archive;
}

/// Reads the tensor under the key "0" into `tensor`: it becomes the stored tensor, moved to `tensor`'s device
/// when `tensor` was defined (any shape and dtype are accepted, as libtorch's load replaces the tensor).
inline serialize::InputArchive& operator>>(serialize::InputArchive& archive, at::Tensor& tensor) {
  at::Tensor loaded;
  archive.read("0", loaded);
  tensor = tensor.defined() ? loaded.to(tensor.device()) : loaded;
  return archive;
}

}  // namespace torch

EMBER_PUBLIC_END
