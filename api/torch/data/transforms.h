#pragma once
// torch::data::transforms: functions applied to batches by `dataset.map(transform)`.
//   BatchTransform<In, Out>   apply_batch(In) -> Out, the whole batch at once
//   Transform<In, Out>        apply(In) -> Out, sample by sample
//   Lambda / BatchLambda      either of the above from a std::function
//   TensorTransform, TensorLambda, Normalize   change an Example's data tensor, keep its target
//   Stack                     collates a vector of Examples into one Example of stacked tensors
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/data/example.h>
#include <ATen/ATen.h>
#include <c10/util/ArrayRef.h>
#include <functional>
#include <utility>
#include <vector>

namespace torch {
namespace data {
namespace transforms {

/// Turns a whole batch of type InputBatch into an OutputBatch.
template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  /// The transformed batch.
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

/// Turns each sample of a batch (a vector) on its own.
template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;
  /// The transformed sample.
  virtual Output apply(Input input) = 0;

  std::vector<Output> apply_batch(std::vector<Input> batch) override {
    std::vector<Output> out;
    out.reserve(batch.size());
    for (auto& sample : batch) out.push_back(apply(std::move(sample)));
    return out;
  }
};

/// A BatchTransform given by a function of the whole batch.
template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input batch) override { return function_(std::move(batch)); }

 private:
  FunctionType function_;
};

/// A Transform given by a function of one sample.
template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// A collation: a vector of samples into one batch value.
template <typename T, typename BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;
/// A collation from a function.
template <typename T, typename BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

/// Changes the data tensor of each Example<Tensor, Target> and keeps the target.
template <typename Target = at::Tensor>
class TensorTransform : public Transform<Example<at::Tensor, Target>, Example<at::Tensor, Target>> {
 public:
  using E = Example<at::Tensor, Target>;
  /// The new data tensor.
  virtual at::Tensor operator()(at::Tensor input) = 0;
  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

/// A TensorTransform given by a function of the data tensor.
template <typename Target = at::Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<at::Tensor(at::Tensor)>;
  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  at::Tensor operator()(at::Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// (data - mean) / stddev per channel: `mean` and `stddev` hold one value per channel (dimension 0
/// of a (C, H, W) sample) or a single value for all; kept as float32 tensors of shape (C, 1, 1).
template <typename Target = at::Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(c10::ArrayRef<double> mean_, c10::ArrayRef<double> stddev_)
      : mean(as_channels(mean_)), stddev(as_channels(stddev_)) {}
  at::Tensor operator()(at::Tensor input) override { return input.sub(mean).div(stddev); }

  at::Tensor mean, stddev;

 private:
  static at::Tensor as_channels(c10::ArrayRef<double> v) {
    return at::tensor(v, at::kFloat).unsqueeze(1).unsqueeze(2);
  }
};

/// Collates Examples by stacking their tensors along a new first dimension.
template <typename T = Example<>>
struct Stack;

/// Data and targets stacked separately: N samples of shape S give one Example of shape (N, S...).
template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<at::Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& e : examples) {
      data.push_back(std::move(e.data));
      targets.push_back(std::move(e.target));
    }
    return {at::stack(data), at::stack(targets)};
  }
};

/// Target-less samples stacked into one tensor.
template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<at::Tensor> data;
    data.reserve(examples.size());
    for (auto& e : examples) data.push_back(std::move(e.data));
    return at::stack(data);
  }
};

}  // namespace transforms
}  // namespace data
}  // namespace torch

EMBER_PUBLIC_END
