// The samplers of torch::data (see api/torch/data/samplers.h).
#include <torch/data/samplers.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace torch {
namespace data {
namespace samplers {

SequentialSampler::SequentialSampler(size_t size) : size_(size) {}

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  if (index_ >= size_) return std::nullopt;
  size_t n = std::min(batch_size, size_ - index_);
  std::vector<size_t> out(n);
  std::iota(out.begin(), out.end(), index_);
  index_ += n;
  return out;
}

size_t SequentialSampler::index() const noexcept { return index_; }

RandomSampler::RandomSampler(int64_t size, Dtype index_dtype) {
  EMBER_CHECK(size >= 0, "[RandomSampler] size must be non-negative; got ", size);
  indices_ = at::randperm(size, index_dtype);
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  int64_t n = new_size ? static_cast<int64_t>(*new_size) : indices_.numel();
  indices_ = at::randperm(n, indices_.scalar_type());
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  int64_t left = indices_.numel() - index_;
  if (left <= 0) return std::nullopt;
  int64_t n = std::min<int64_t>(static_cast<int64_t>(batch_size), left);
  at::Tensor part = indices_.slice(0, index_, index_ + n).to(at::kLong).contiguous();
  const int64_t* p = part.const_data_ptr<int64_t>();
  std::vector<size_t> out(p, p + n);
  index_ += n;
  return out;
}

size_t RandomSampler::index() const noexcept { return static_cast<size_t>(index_); }

// Note [Distributed index list]
// Every replica builds the same list: 0..size-1, padded (allow_duplicates) by wrapping to the first
// samples until it divides evenly, or cut to a multiple of num_replicas (no duplicates). Each replica
// then reads the slice [rank*k, (rank+1)*k) of it, k = local_sample_count().

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  reset(size_);
}

void DistributedRandomSampler::fill_indices() {
  size_t k = local_sample_count();
  size_t total = num_replicas_ == 1 ? size_ : k * num_replicas_;
  indices_.resize(total);
  // Wrapping by modulo equals libtorch's `i - size` whenever the padding is shorter than size (always but
  // for tiny datasets over many replicas, where `i - size` would run past the end).
  for (size_t i = 0; i < total; ++i) indices_[i] = i < size_ ? i : i % size_;
  begin_ = rank_ * k;
  end_ = begin_ + k;
  pos_ = begin_;
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  fill_indices();
  // The same engine and seed on every replica, so the permutation agrees (libtorch seeds with the epoch too).
  std::mt19937 engine(static_cast<std::mt19937::result_type>(epoch_));
  std::shuffle(indices_.begin(), indices_.end(), engine);
  pos_ = begin_;
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  if (pos_ >= end_) return std::nullopt;
  size_t stop = std::min(end_, pos_ + batch_size);
  std::vector<size_t> out(indices_.begin() + static_cast<std::ptrdiff_t>(pos_),
                          indices_.begin() + static_cast<std::ptrdiff_t>(stop));
  pos_ = stop;
  return out;
}

size_t DistributedRandomSampler::index() const noexcept { return pos_; }

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas, size_t rank,
                                                           bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  place();
}

void DistributedSequentialSampler::place() {
  size_t k = local_sample_count();
  begin_ = rank_ * k;
  end_ = begin_ + k;
  pos_ = begin_;
}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size && *new_size != size_) {
    size_ = *new_size;
    place();
  } else {
    pos_ = begin_;
  }
}

std::optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  if (pos_ >= end_) return std::nullopt;
  size_t stop = std::min(end_, pos_ + batch_size);
  std::vector<size_t> out(stop - pos_);
  // Positions past the end wrap to the first samples (see Note [Distributed index list]).
  for (size_t i = 0; i < out.size(); ++i) out[i] = size_ ? (pos_ + i) % size_ : 0;
  pos_ = stop;
  return out;
}

size_t DistributedSequentialSampler::index() const noexcept { return pos_; }

void StreamSampler::reset(std::optional<size_t> new_size) {
  if (new_size) epoch_size_ = *new_size;
  served_ = 0;
}

std::optional<BatchSize> StreamSampler::next(size_t batch_size) {
  if (served_ >= epoch_size_) return std::nullopt;
  size_t n = std::min(batch_size, epoch_size_ - served_);
  served_ += n;
  return BatchSize(n);
}

}  // namespace samplers
}  // namespace data
}  // namespace torch
