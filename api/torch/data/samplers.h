#pragma once
// torch::data::samplers: which samples go into the next batch.
//   SequentialSampler             0, 1, 2, ... in order
//   RandomSampler                 a fresh torch::randperm (global generator) at every reset
//   DistributedSequentialSampler  this replica's contiguous share of 0..size-1
//   DistributedRandomSampler      this replica's share of a permutation seeded by the epoch
//   StreamSampler                 "n more samples" requests for a StreamDataset
// A DataLoader calls reset() at the start of every epoch and next(batch_size) until it returns nullopt.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace torch {
using Dtype = c10::ScalarType;

namespace data {
namespace samplers {

/// The interface a DataLoader drives.
template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;
  virtual ~Sampler() = default;
  /// Starts a new epoch, over `new_size` samples when given.
  virtual void reset(std::optional<size_t> new_size) = 0;
  /// The next request of at most `batch_size` samples, or nullopt when the epoch is over.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

/// Indices 0, 1, ..., size-1 in order.
class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// How many indices this epoch has handed out.
  size_t index() const noexcept;

 private:
  size_t size_;
  size_t index_ = 0;
};

/// A random permutation of 0..size-1 drawn from the global generator (torch::randperm) on construction
/// and again at every reset, so seeding with torch::manual_seed makes the order reproducible.
class RandomSampler : public Sampler<> {
 public:
  explicit RandomSampler(int64_t size, Dtype index_dtype = at::kLong);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// How many indices this epoch has handed out.
  size_t index() const noexcept;

 private:
  at::Tensor indices_;
  int64_t index_ = 0;
};

/// Shared state of the distributed samplers: `num_replicas` processes each read `size / num_replicas`
/// samples (rounded up with allow_duplicates, where the last replicas wrap around to the first
/// samples; rounded down without, where the last few samples are never read).
template <typename BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
    EMBER_CHECK(num_replicas > 0, "[DistributedSampler] num_replicas must be positive; got 0");
    EMBER_CHECK(rank < num_replicas, "[DistributedSampler] rank (", rank, ") must be less than num_replicas (",
                num_replicas, ")");
  }
  /// Selects the epoch whose shuffle the next reset() uses (DistributedRandomSampler).
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }

 protected:
  /// Samples each replica reads per epoch.
  size_t local_sample_count() const {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }

  size_t size_;
  size_t num_replicas_;
  size_t rank_;
  size_t epoch_ = 0;
  bool allow_duplicates_;
};

/// This replica's share of a permutation of the (padded) index list, shuffled by std::mt19937(epoch),
/// so every replica computes the same permutation and takes a disjoint slice of it.
class DistributedRandomSampler : public DistributedSampler<> {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Position within the full permutation (begins at rank * local count).
  size_t index() const noexcept;

 private:
  void fill_indices();
  size_t begin_ = 0, end_ = 0, pos_ = 0;
  std::vector<size_t> indices_;
};

/// This replica's contiguous share rank*k .. (rank+1)*k-1 (k the local count), wrapped modulo size.
class DistributedSequentialSampler : public DistributedSampler<> {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Position within the global index range.
  size_t index() const noexcept;

 private:
  void place();
  size_t begin_ = 0, end_ = 0, pos_ = 0;
};

/// A request for "the next `size` samples" (what a StreamDataset's get_batch receives).
struct BatchSize {
  explicit BatchSize(size_t size) : size_(size) {}
  size_t size() const noexcept { return size_; }
  operator size_t() const noexcept { return size_; }
  size_t size_;
};

/// Requests batches until `epoch_size` samples have been asked for.
class StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<BatchSize> next(size_t batch_size) override;

 private:
  size_t served_ = 0;
  size_t epoch_size_;
};

}  // namespace samplers
}  // namespace data
}  // namespace torch

EMBER_PUBLIC_END
