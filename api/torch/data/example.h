#pragma once
// torch::data::Example: one (data, target) pair, the unit a Dataset returns and a collation stacks.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <utility>

namespace torch {
namespace data {

/// One sample: `data` and `target` (both tensors by default).
template <typename Data = at::Tensor, typename Target = at::Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

namespace example {
/// Marks an Example that carries data only.
using NoTarget = void;
}  // namespace example

/// A target-less sample: converts to and from its data.
template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}
  operator Data&() { return data; }
  operator const Data&() const { return data; }

  Data data;
};

/// A sample that is one tensor and nothing else (what TensorDataset yields).
using TensorExample = Example<at::Tensor, example::NoTarget>;

}  // namespace data
}  // namespace torch

EMBER_PUBLIC_END
