#pragma once
// torch::data::make_data_loader: batches from a dataset, in the order a sampler picks, optionally
// prepared by worker threads while the caller trains on earlier ones.
//
//   auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
//       std::move(dataset), torch::data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) { ... }      // one pass over the data; iterate again for another epoch
//
// See Note [DataLoader threads] below for how the workers and the consumer meet.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/Parallel.h>
#include <ATen/Utils.h>
#include <torch/arg.h>
#include <torch/data/datasets.h>
#include <torch/data/samplers.h>
#include <c10/util/Exception.h>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace torch {
namespace data {

/// What a DataLoader does: `DataLoaderOptions().batch_size(64).workers(2).drop_last(true)`.
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}

  /// Samples per batch.
  TORCH_ARG(size_t, batch_size) = 1;
  /// Worker threads preparing batches; 0 prepares each batch in the consumer's thread when asked for.
  TORCH_ARG(size_t, workers) = 0;
  /// Batches requested but not yet consumed at most (default: 2 * workers).
  TORCH_ARG(std::optional<size_t>, max_jobs);
  /// Longest wait for a worker's batch; a longer one raises c10::Error (default: wait forever).
  TORCH_ARG(std::optional<std::chrono::milliseconds>, timeout);
  /// Deliver batches in the sampler's order even when workers finish out of order.
  TORCH_ARG(bool, enforce_ordering) = true;
  /// Skip the last batch of an epoch when it is smaller than batch_size.
  TORCH_ARG(bool, drop_last) = false;
};

/// DataLoaderOptions with the defaults filled in.
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(DataLoaderOptions o)
      : batch_size(o.batch_size()),
        workers(o.workers()),
        max_jobs(o.max_jobs().value_or(2 * o.workers())),
        timeout(o.timeout()),
        enforce_ordering(o.enforce_ordering()),
        drop_last(o.drop_last()) {}
  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
};

/// What the consumer receives when a worker thread's get_batch threw; `original_exception` is that exception.
struct WorkerException : public std::exception {
  explicit WorkerException(std::exception_ptr original) : original_exception(std::move(original)) {
    message = "[DataLoader] a worker thread failed while preparing a batch";
    try {
      std::rethrow_exception(original_exception);
    } catch (const std::exception& e) {
      message += ": ";
      message += e.what();
    } catch (...) {
      message += " (with an exception that is not a std::exception)";
    }
  }
  const char* what() const noexcept override { return message.c_str(); }

  std::exception_ptr original_exception;
  std::string message;
};

/// An input iterator over one epoch of a DataLoader. The first batch is fetched when the iterator is
/// first dereferenced or compared; copies share their position. end() is a sentinel.
template <typename Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Batch;
  using pointer = Batch*;
  using reference = Batch&;
  using iterator_category = std::input_iterator_tag;
  using Producer = std::function<std::optional<Batch>()>;

  /// The end sentinel.
  Iterator() = default;
  /// An iterator whose batches come from `produce` until it returns nullopt.
  explicit Iterator(Producer produce) : state_(std::make_shared<State>()) { state_->produce = std::move(produce); }

  Iterator& operator++() {
    EMBER_CHECK(state_, "[DataLoader] cannot increment the end iterator");
    started();
    EMBER_CHECK(state_->batch.has_value(), "[DataLoader] cannot increment an iterator that is already at the end");
    state_->batch = state_->produce();
    return *this;
  }
  Batch& operator*() {
    EMBER_CHECK(state_, "[DataLoader] cannot dereference the end iterator");
    started();
    EMBER_CHECK(state_->batch.has_value(), "[DataLoader] cannot dereference an iterator that is at the end");
    return *state_->batch;
  }
  Batch* operator->() { return &**this; }
  bool operator==(const Iterator& other) const { return at_end_or_same(other); }
  bool operator!=(const Iterator& other) const { return !at_end_or_same(other); }

 private:
  struct State {
    Producer produce;
    std::optional<Batch> batch;
    bool started = false;
  };
  void started() const {
    if (!state_->started) {
      state_->started = true;
      state_->batch = state_->produce();
    }
  }
  bool exhausted() const {
    if (!state_) return true;
    started();
    return !state_->batch.has_value();
  }
  bool at_end_or_same(const Iterator& other) const {
    if (state_ && other.state_) return state_ == other.state_;
    return exhausted() && other.exhausted();
  }
  std::shared_ptr<State> state_;
};

// Note [DataLoader threads]
// With workers > 0 the consumer (the thread iterating) keeps up to max_jobs batch requests
// outstanding. Each request gets a sequence number and goes to a job queue; every worker owns a copy
// of the dataset, takes a request, calls get_batch and files the result (batch or exception) under
// its sequence number. The consumer takes result `next_` when enforce_ordering is set (waiting for it
// even if later ones are done), otherwise whichever is done first, and issues one new request for each
// batch it takes. Starting a new epoch first discards queued requests and waits for running ones, so a
// stale batch never leaks into the next epoch.

/// A loader for datasets that answer index requests (every dataset except stateful ones).
template <typename Dataset, typename Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(options), sampler_(std::move(sampler)) {
    EMBER_CHECK(options_.batch_size > 0, "[DataLoader] batch_size must be positive; got 0");
    EMBER_CHECK(options_.workers == 0 || options_.max_jobs > 0, "[DataLoader] max_jobs must be positive with ",
                options_.workers, " workers; got 0");
    if (options_.workers == 0) {
      dataset_ = std::make_unique<Dataset>(std::move(dataset));
      return;
    }
    workers_.reserve(options_.workers);
    for (size_t w = 0; w < options_.workers; ++w) {
      workers_.emplace_back([this, copy = dataset]() mutable { work(copy); });
    }
  }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;
  ~StatelessDataLoader() { join(); }

  /// Starts an epoch: resets the sampler and (with workers) requests the first max_jobs batches.
  Iterator<BatchType> begin() {
    drain();
    sampler_.reset();
    sampler_done_ = false;
    prefetch(options_.max_jobs);
    return Iterator<BatchType>([this] { return next(); });
  }
  /// The end sentinel.
  Iterator<BatchType> end() { return Iterator<BatchType>(); }

  /// Stops the worker threads (after they finish the batch in hand); the destructor calls it.
  void join() {
    if (joined_) return;
    drain();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    job_ready_.notify_all();
    for (auto& t : workers_) t.join();
    joined_ = true;
  }

  const FullDataLoaderOptions& options() const noexcept { return options_; }

 private:
  struct Job {
    size_t seq;
    BatchRequestType request;
  };
  struct Result {
    std::optional<BatchType> batch;
    std::exception_ptr error;
  };

  // The next request from the sampler, or nullopt at the end of the epoch (or of the drop_last batches).
  std::optional<BatchRequestType> request() {
    if (sampler_done_) return std::nullopt;
    auto r = sampler_.next(options_.batch_size);
    if (!r || (options_.drop_last && r->size() < options_.batch_size)) {
      sampler_done_ = true;
      return std::nullopt;
    }
    return r;
  }

  void prefetch(size_t n) {
    if (options_.workers == 0) return;
    for (size_t i = 0; i < n; ++i) {
      auto r = request();
      if (!r) return;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        jobs_.push_back(Job{issued_++, std::move(*r)});
      }
      job_ready_.notify_one();
    }
  }

  std::optional<BatchType> next() {
    if (options_.workers == 0) {
      auto r = request();
      if (!r) return std::nullopt;
      return dataset_->get_batch(std::move(*r));
    }
    if (next_ == issued_) return std::nullopt;  // every request of this epoch consumed
    Result result;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      auto ready = [this] { return options_.enforce_ordering ? done_.count(next_) > 0 : !done_.empty(); };
      if (options_.timeout) {
        EMBER_CHECK(done_ready_.wait_for(lock, *options_.timeout, ready), "[DataLoader] no batch arrived within ",
                    options_.timeout->count(), " ms (the timeout option); ", options_.workers, " workers, ",
                    issued_ - next_, " batches outstanding");
      } else {
        done_ready_.wait(lock, ready);
      }
      auto it = options_.enforce_ordering ? done_.find(next_) : done_.begin();
      result = std::move(it->second);
      done_.erase(it);
      ++next_;
    }
    prefetch(1);
    if (result.error) throw WorkerException(result.error);
    return std::move(result.batch);
  }

  void work(Dataset& dataset) {
    // The workers are the loader's parallelism: each runs its ops on its own thread only. An
    // OpenMP team per worker would oversubscribe the cores that the training thread's ops use,
    // and spinning team threads then slow training several times over. This thread only:
    // at::set_num_threads would also become the count of every thread started later.
    at::internal::set_thread_num_threads(1);
    for (;;) {
      std::optional<Job> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        job_ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (stopping_) return;
        job.emplace(std::move(jobs_.front()));
        jobs_.pop_front();
        ++running_;
      }
      Result result;
      try {
        result.batch = dataset.get_batch(std::move(job->request));
      } catch (...) {
        result.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.emplace(job->seq, std::move(result));
        --running_;
      }
      done_ready_.notify_all();
    }
  }

  // Forgets the current epoch: queued requests are dropped, running ones awaited, results discarded.
  void drain() {
    if (options_.workers > 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      jobs_.clear();
      done_ready_.wait(lock, [this] { return running_ == 0; });
      done_.clear();
    }
    issued_ = next_ = 0;
  }

  const FullDataLoaderOptions options_;
  Sampler sampler_;
  bool sampler_done_ = false;
  std::unique_ptr<Dataset> dataset_;  // the consumer's dataset when workers == 0
  std::vector<std::thread> workers_;
  bool joined_ = false;

  std::mutex mutex_;  // guards everything below, shared with the workers
  std::condition_variable job_ready_, done_ready_;
  std::deque<Job> jobs_;
  std::map<size_t, Result> done_;
  size_t running_ = 0;
  bool stopping_ = false;
  size_t issued_ = 0, next_ = 0;  // sequence numbers: requested so far this epoch, next to hand out (consumer only)
};

/// A loader over `dataset` drawing requests from `sampler`.
template <typename Dataset, typename Sampler>
std::enable_if_t<!Dataset::is_stateful, std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>> make_data_loader(
    Dataset dataset, Sampler sampler, DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler), options);
}

/// A loader over `dataset` with a `SamplerType(dataset.size())` (random order unless told otherwise).
template <typename SamplerType = samplers::RandomSampler, typename Dataset>
std::enable_if_t<!Dataset::is_stateful && std::is_constructible_v<SamplerType, size_t>,
                 std::unique_ptr<StatelessDataLoader<Dataset, SamplerType>>>
make_data_loader(Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(), "[make_data_loader] the dataset has no size(), so a sampler cannot be built for it; "
                                "pass a sampler explicitly");
  return make_data_loader(std::move(dataset), SamplerType(*size), options);
}

}  // namespace data
}  // namespace torch

EMBER_PUBLIC_END
