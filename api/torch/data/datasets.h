#pragma once
// torch::data::datasets: where samples come from.
//   BatchDataset<Self, Batch, Request>  get_batch(request) -> Batch; the most general form
//   Dataset<Self, Example>              get(index) -> Example; batches are vectors of examples
//   StreamDataset<Self, Batch>          get_batch(count); for sources without random access
//   MapDataset                          a dataset with a transform applied to every batch (`ds.map(t)`)
//   TensorDataset, MNIST                ready-made datasets
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/data/example.h>
#include <ATen/ATen.h>
#include <c10/util/ArrayRef.h>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace torch {
namespace data {
namespace datasets {

template <typename Source, typename Transform>
class MapDataset;

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
// The batch inside a stateful dataset's std::optional<Batch>; the batch itself otherwise.
template <typename T>
struct unwrap_optional {
  using type = T;
};
template <typename T>
struct unwrap_optional<std::optional<T>> {
  using type = T;
};
}  // namespace detail

/// Wraps `dataset` so that `transform.apply_batch` runs on every batch it returns.
template <typename D, typename T>
MapDataset<D, T> map(D dataset, T transform);

/// A dataset answering batch requests (a list of indices by default). A dataset whose Batch is a
/// std::optional is "stateful": it decides itself when an epoch ends by returning nullopt.
template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = c10::ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  constexpr static bool is_stateful = detail::is_optional<BatchType>::value;

  virtual ~BatchDataset() = default;

  /// The batch for `request`.
  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of samples, or nullopt when unknown (streams).
  virtual std::optional<size_t> size() const = 0;

  /// A copy of this dataset whose batches pass through `transform`.
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  /// Moves this dataset into a MapDataset whose batches pass through `transform`.
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// A random-access dataset: `get(i)` returns sample i; a batch is the vector of its samples.
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  /// Sample `index` (0 <= index < size()).
  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(c10::ArrayRef<size_t> indices) override {
    std::vector<ExampleType> out;
    out.reserve(indices.size());
    for (size_t i : indices) out.push_back(get(i));
    return out;
  }
};

/// A dataset asked for "the next n samples" rather than for indices (pair it with StreamSampler).
template <typename Self, typename Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, /*BatchRequest=*/size_t>;

/// `source` with `transform` applied to each batch; stateful sources stay stateful (nullopt passes through).
template <typename Source, typename Transform>
class MapDataset
    : public BatchDataset<MapDataset<Source, Transform>,
                          std::conditional_t<Source::is_stateful, std::optional<typename Transform::OutputBatchType>,
                                             typename Transform::OutputBatchType>,
                          typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = Transform;
  using BatchRequestType = typename Source::BatchRequestType;
  using OutputBatchType = std::conditional_t<Source::is_stateful, std::optional<typename Transform::OutputBatchType>,
                                             typename Transform::OutputBatchType>;

  MapDataset(Source dataset, Transform transform) : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType request) override {
    if constexpr (Source::is_stateful) {
      auto batch = dataset_.get_batch(std::move(request));
      if (!batch) return std::nullopt;
      return transform_.apply_batch(std::move(*batch));
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }
  std::optional<size_t> size() const noexcept override { return dataset_.size(); }
  /// Forwards to the source (stateful datasets rewind here).
  void reset() { dataset_.reset(); }
  /// The wrapped dataset and transform.
  const Source& dataset() noexcept { return dataset_; }
  const Transform& transform() noexcept { return transform_; }

 private:
  Source dataset_;
  Transform transform_;
};

template <typename D, typename T>
MapDataset<D, T> map(D dataset, T transform) {
  using Expected = typename detail::unwrap_optional<typename D::BatchType>::type;
  static_assert(std::is_same_v<Expected, typename T::InputBatchType>,
                "torch::data::datasets::map: the transform's input batch type differs from the dataset's batch type");
  return MapDataset<D, T>(std::move(dataset), std::move(transform));
}

/// The rows of one tensor as samples (no target): sample i is `tensor[i]`.
struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  /// Stacks `tensors` along a new first dimension.
  explicit TensorDataset(const std::vector<at::Tensor>& tensors) : TensorDataset(at::stack(tensors)) {}
  explicit TensorDataset(at::Tensor t) : tensor(std::move(t)) {}

  TensorExample get(size_t index) override { return tensor[static_cast<int64_t>(index)]; }
  std::optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }

  at::Tensor tensor;
};

/// The MNIST image set (and drop-ins with the same IDX files, e.g. Fashion-MNIST) read from `root`:
/// train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte,
/// each either plain or gzip-compressed with a `.gz` suffix. Images are float32 in [0, 1] of shape
/// (N, 1, 28, 28); targets are int64 of shape (N). A missing, truncated or malformed file raises c10::Error.
class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  /// Image `index` (1, 28, 28) with its label (0-dim int64).
  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;
  /// Whether this is the training split (60000 images in MNIST) rather than the test split.
  bool is_train() const noexcept;
  /// All images (N, 1, 28, 28) float32 and all labels (N) int64.
  const at::Tensor& images() const;
  const at::Tensor& targets() const;

 private:
  at::Tensor images_, targets_;
  bool train_ = true;
};

}  // namespace datasets
}  // namespace data
}  // namespace torch

EMBER_PUBLIC_END
