// torch::data: datasets, transforms, samplers and the DataLoader. Expected values are computed here
// by hand or were recorded from libtorch 2.15 (marked "libtorch:").
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

namespace data = torch::data;
namespace samplers = torch::data::samplers;

namespace {

template <typename S>
std::vector<std::vector<size_t>> drain_sampler(S& s, size_t batch) {
  std::vector<std::vector<size_t>> out;
  while (auto b = s.next(batch)) out.push_back(*b);
  return out;
}

std::vector<int64_t> values(const torch::Tensor& t) {
  auto c = t.to(torch::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Sample i is (data = [i, i+0.5], target = 2*i); optionally slow or throwing at one index.
struct Counting : data::datasets::Dataset<Counting> {
  explicit Counting(size_t n, int64_t throw_at = -1, int delay_ms = 0) : n_(n), throw_at_(throw_at), delay_ms_(delay_ms) {}
  data::Example<> get(size_t i) override {
    if (static_cast<int64_t>(i) == throw_at_) throw std::runtime_error("sample " + std::to_string(i) + " is bad");
    if (delay_ms_) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    double v = static_cast<double>(i);
    return {torch::tensor({v, v + 0.5}, torch::kDouble), torch::tensor(static_cast<int64_t>(2 * i))};
  }
  std::optional<size_t> size() const override { return n_; }
  size_t n_;
  int64_t throw_at_;
  int delay_ms_;
};

}  // namespace

TEST_CASE("data::Example and TensorExample", "[data]") {
  data::Example<> e(torch::ones({2}), torch::zeros({}));
  CHECK(e.data.numel() == 2);
  data::TensorExample t = torch::arange(3);
  torch::Tensor& d = t;
  CHECK(values(d) == std::vector<int64_t>{0, 1, 2});
  static_assert(std::is_same_v<data::Example<>::TargetType, torch::Tensor>);
}

TEST_CASE("datasets::TensorDataset gets rows and batches of rows", "[data]") {
  data::datasets::TensorDataset ds(torch::arange(12).reshape({6, 2}));
  CHECK(ds.size().value() == 6);
  CHECK(values(ds.get(4).data) == std::vector<int64_t>{8, 9});
  std::vector<size_t> idx{5, 0, 3};
  auto batch = ds.get_batch(idx);
  REQUIRE(batch.size() == 3);
  CHECK(values(batch[0].data) == std::vector<int64_t>{10, 11});
  CHECK(values(batch[2].data) == std::vector<int64_t>{6, 7});
  data::datasets::TensorDataset stacked(std::vector<torch::Tensor>{torch::ones({2}), torch::zeros({2})});
  CHECK(stacked.tensor.sizes() == torch::IntArrayRef({2, 2}));
}

TEST_CASE("transforms: Normalize, Lambda, TensorLambda, BatchLambda, Stack and map chains", "[data]") {
  // libtorch: Normalize<>(0.5, 2.0) on ones(1,2,2) gives 0.25 everywhere, mean of shape [1, 1, 1];
  // Normalize<>({0.1,0.2,0.3}, {1,2,4}) on ones(3,1,2) gives channels 0.9, 0.4, 0.175.
  data::transforms::Normalize<> n(0.5, 2.0);
  CHECK(n.mean.sizes() == torch::IntArrayRef({1, 1, 1}));
  CHECK(torch::allclose(n(torch::ones({1, 2, 2})), torch::full({1, 2, 2}, 0.25)));
  data::transforms::Normalize<> n3({0.1, 0.2, 0.3}, {1., 2., 4.});
  auto y = n3(torch::ones({3, 1, 2}));
  CHECK(y.scalar_type() == torch::kFloat);
  CHECK(y[0][0][1].item<double>() == Approx(0.9));
  CHECK(y[1][0][0].item<double>() == Approx(0.4));
  CHECK(y[2][0][1].item<double>() == Approx(0.175));

  // map chain: per-sample Lambda, then TensorLambda, then Stack, then BatchLambda on the stacked Example.
  auto ds = Counting(5)
                .map(data::transforms::Lambda<data::Example<>>([](data::Example<> e) {
                  e.target = e.target + 1;
                  return e;
                }))
                .map(data::transforms::TensorLambda<>([](torch::Tensor t) { return t * 10; }))
                .map(data::transforms::Stack<>())
                .map(data::transforms::BatchLambda<data::Example<>, torch::Tensor>(
                    [](data::Example<> e) { return e.data.sum(1) + e.target; }));
  CHECK(ds.size().value() == 5);
  std::vector<size_t> idx{3, 1};
  torch::Tensor r = ds.get_batch(idx);
  // sample i: data*10 = [10i, 10i+5] summed = 20i+5, target 2i+1 -> 22i+6
  CHECK(torch::allclose(r, torch::tensor({72., 28.}, torch::kDouble)));

  auto stacked = data::datasets::TensorDataset(torch::arange(6)).map(data::transforms::Stack<data::TensorExample>());
  std::vector<size_t> idx2{4, 2};
  CHECK(values(stacked.get_batch(idx2).data) == std::vector<int64_t>{4, 2});
  // An lvalue dataset is copied by map, not consumed.
  Counting src(3);
  auto mapped = src.map(data::transforms::Stack<>());
  CHECK(src.size().value() == 3);
  CHECK(mapped.dataset().size().value() == 3);
}

TEST_CASE("SequentialSampler and RandomSampler", "[data][samplers]") {
  samplers::SequentialSampler s(7);
  CHECK(drain_sampler(s, 3) == std::vector<std::vector<size_t>>{{0, 1, 2}, {3, 4, 5}, {6}});
  CHECK(s.index() == 7);
  s.reset(4);
  CHECK(drain_sampler(s, 3) == std::vector<std::vector<size_t>>{{0, 1, 2}, {3}});

  torch::manual_seed(0);
  auto expected_first = values(torch::randperm(10));
  torch::manual_seed(0);
  samplers::RandomSampler r(10);
  std::vector<int64_t> got;
  for (auto& b : drain_sampler(r, 4)) got.insert(got.end(), b.begin(), b.end());
  CHECK(got == expected_first);  // the constructor's permutation is torch::randperm(10) from the global generator
  r.reset();
  std::vector<int64_t> second;
  for (auto& b : drain_sampler(r, 100)) second.insert(second.end(), b.begin(), b.end());
  std::set<int64_t> seen(second.begin(), second.end());
  CHECK(seen.size() == 10);
  CHECK(*seen.begin() == 0);
  CHECK(*seen.rbegin() == 9);
  r.reset(3);
  CHECK(drain_sampler(r, 5).at(0).size() == 3);
  samplers::RandomSampler empty(0);
  CHECK_FALSE(empty.next(3).has_value());
}

TEST_CASE("RandomSampler draws libtorch's permutation for a seed", "[data][samplers]") {
  // libtorch: manual_seed(0); RandomSampler(10) yields 4 1 7 5 3 9 0 8 6 2, then after reset() 3 9 4 2 7 8 6 0 5 1.
  // Ember's randperm is not promised to match libtorch's stream, so this only holds where it does.
  torch::manual_seed(0);
  samplers::RandomSampler r(10);
  std::vector<size_t> got;
  for (auto& b : drain_sampler(r, 4)) got.insert(got.end(), b.begin(), b.end());
  if (got != std::vector<size_t>{4, 1, 7, 5, 3, 9, 0, 8, 6, 2}) {
    WARN("Ember's randperm stream differs from libtorch's; RandomSampler order is Ember's own");
  }
}

TEST_CASE("Distributed samplers partition like libtorch", "[data][samplers]") {
  using V = std::vector<std::vector<size_t>>;
  // libtorch: DistributedSequentialSampler(10, 3, rank, allow_duplicates), batch 2.
  std::vector<V> seq_dup{{{0, 1}, {2, 3}}, {{4, 5}, {6, 7}}, {{8, 9}, {0, 1}}};
  std::vector<V> seq_nodup{{{0, 1}, {2}}, {{3, 4}, {5}}, {{6, 7}, {8}}};
  for (size_t r = 0; r < 3; ++r) {
    samplers::DistributedSequentialSampler a(10, 3, r, true), b(10, 3, r, false);
    CHECK(drain_sampler(a, 2) == seq_dup[r]);
    CHECK(drain_sampler(b, 2) == seq_nodup[r]);
    a.reset();
    CHECK(drain_sampler(a, 4).size() == 1);
  }
  // libtorch: DistributedSequentialSampler(7, 2, 1) batch 3: [4 5 6][0]; after reset(9): [5 6 7][8 0].
  samplers::DistributedSequentialSampler s72(7, 2, 1);
  CHECK(drain_sampler(s72, 3) == V{{4, 5, 6}, {0}});
  s72.reset(9);
  CHECK(drain_sampler(s72, 3) == V{{5, 6, 7}, {8, 0}});

  // libtorch: DistributedRandomSampler(10, 3, rank, dup), batch 2, epoch 0, then set_epoch(1) + reset().
  std::vector<V> rnd_dup{{{0, 2}, {1, 5}}, {{9, 1}, {4, 7}}, {{6, 0}, {3, 8}}};
  std::vector<std::vector<size_t>> rnd_dup_e1{{9, 0, 2, 5}, {1, 4, 6, 3}, {1, 8, 0, 7}};
  std::vector<V> rnd_nodup{{{2, 4}, {6}}, {{0, 5}, {1}}, {{8, 3}, {7}}};
  std::vector<std::vector<size_t>> rnd_nodup_e1{{1, 0, 6}, {3, 8, 4}, {2, 7, 5}};
  for (size_t r = 0; r < 3; ++r) {
    samplers::DistributedRandomSampler a(10, 3, r, true), b(10, 3, r, false);
    CHECK(drain_sampler(a, 2) == rnd_dup[r]);
    CHECK(drain_sampler(b, 2) == rnd_nodup[r]);
    a.set_epoch(1);
    a.reset();
    b.set_epoch(1);
    b.reset();
    CHECK(drain_sampler(a, 100).at(0) == rnd_dup_e1[r]);
    CHECK(drain_sampler(b, 100).at(0) == rnd_nodup_e1[r]);
  }
  // libtorch: DistributedRandomSampler(7, 1, 0) yields 2 4 6 0 5 1 3.
  samplers::DistributedRandomSampler one(7);
  CHECK(drain_sampler(one, 100) == V{{2, 4, 6, 0, 5, 1, 3}});

  // Sizes: every replica reads ceil(n/r) with duplicates, floor(n/r) without; together they cover all samples.
  for (size_t n : {1, 9, 10, 11, 100}) {
    for (size_t reps : {1, 2, 3, 4, 7}) {
      std::set<size_t> covered;
      for (size_t r = 0; r < reps; ++r) {
        samplers::DistributedRandomSampler d(n, reps, r, true);
        samplers::DistributedSequentialSampler q(n, reps, r, false);
        size_t nd = 0, nq = 0;
        for (auto& b : drain_sampler(d, 3)) {
          nd += b.size();
          covered.insert(b.begin(), b.end());
        }
        for (auto& b : drain_sampler(q, 3)) nq += b.size();
        CHECK(nd == (n + reps - 1) / reps);
        CHECK(nq == n / reps);
      }
      CHECK(covered.size() == n);
    }
  }
  CHECK_THROWS_WITH(samplers::DistributedSequentialSampler(10, 2, 2),
                    Catch::StartsWith("[DistributedSampler] rank (2) must be less than num_replicas (2)"));
}

TEST_CASE("DataLoader batches in sampler order, drop_last, options", "[data][loader]") {
  // libtorch: TensorDataset(arange(10)) + Stack, SequentialSampler, batch 3, drop_last: {0,1,2} {3,4,5} {6,7,8}.
  for (bool drop : {false, true}) {
    auto ds = data::datasets::TensorDataset(torch::arange(10)).map(data::transforms::Stack<data::TensorExample>());
    auto loader = data::make_data_loader<samplers::SequentialSampler>(
        std::move(ds), data::DataLoaderOptions(3).drop_last(drop));
    std::vector<std::vector<int64_t>> got;
    for (auto& b : *loader) got.push_back(values(b.data));
    std::vector<std::vector<int64_t>> want{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}};
    if (!drop) want.push_back({9});
    CHECK(got == want);
  }
  // drop_last counts: n samples, batch b -> floor(n/b) with drop_last, ceil(n/b) without.
  for (size_t n : {0, 1, 7, 8, 64, 65}) {
    for (size_t b : {1, 4, 8}) {
      for (size_t w : {0, 2}) {
        for (bool drop : {false, true}) {
          auto loader = data::make_data_loader(Counting(n).map(data::transforms::Stack<>()),
                                               data::DataLoaderOptions(b).drop_last(drop).workers(w));
          size_t batches = 0, samples = 0;
          for (auto& batch : *loader) {
            ++batches;
            samples += static_cast<size_t>(batch.data.size(0));
          }
          CHECK(batches == (drop ? n / b : (n + b - 1) / b));
          CHECK(samples == (drop ? n / b * b : n));
        }
      }
    }
  }
  auto loader = data::make_data_loader(Counting(4), data::DataLoaderOptions().workers(3));
  CHECK(loader->options().max_jobs == 6);  // libtorch: 2 * workers by default
  CHECK(loader->options().batch_size == 1);
  CHECK(loader->options().enforce_ordering);
  CHECK_FALSE(loader->options().timeout.has_value());
  CHECK_THROWS_WITH(data::make_data_loader(Counting(4), data::DataLoaderOptions(0)),
                    Catch::StartsWith("[DataLoader] batch_size must be positive"));
}

TEST_CASE("DataLoader batch contents and repeated epochs, with and without workers", "[data][loader]") {
  for (size_t w : {0, 1, 3}) {
    auto loader = data::make_data_loader<samplers::SequentialSampler>(
        Counting(10).map(data::transforms::Stack<>()), data::DataLoaderOptions(4).workers(w));
    for (int epoch = 0; epoch < 3; ++epoch) {
      size_t start = 0;
      for (auto& batch : *loader) {
        int64_t n = batch.data.size(0);
        for (int64_t j = 0; j < n; ++j) {
          double i = static_cast<double>(start + static_cast<size_t>(j));
          CHECK(batch.data[j][0].item<double>() == i);
          CHECK(batch.data[j][1].item<double>() == i + 0.5);
          CHECK(batch.target[j].item<int64_t>() == 2 * static_cast<int64_t>(start) + 2 * j);
        }
        start += static_cast<size_t>(n);
      }
      CHECK(start == 10);
    }
  }
  // An explicit sampler, and a random one that still visits every sample once per epoch.
  auto dist = data::make_data_loader(data::datasets::TensorDataset(torch::arange(10)),
                                     samplers::DistributedSequentialSampler(10, 2, 1), data::DataLoaderOptions(2));
  std::vector<int64_t> got;
  for (auto& batch : *dist) {
    for (auto& e : batch) got.push_back(e.data.item<int64_t>());
  }
  CHECK(got == std::vector<int64_t>{5, 6, 7, 8, 9});
  auto rnd = data::make_data_loader(data::datasets::TensorDataset(torch::arange(50)),
                                    data::DataLoaderOptions(8).workers(2));
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::multiset<int64_t> seen;
    for (auto& batch : *rnd) {
      for (auto& e : batch) seen.insert(e.data.item<int64_t>());
    }
    CHECK(seen.size() == 50);
    CHECK(std::set<int64_t>(seen.begin(), seen.end()).size() == 50);
  }
}

namespace {
// Batch k of a 10-sample dataset sleeps longer the earlier it is, so workers finish in reverse.
// 20 ms steps: the unordered check below needs sample 3 to overtake sample 0 even on a loaded
// machine (with 5 ms steps, 15 ms of margin, it failed once under a concurrent CI build).
struct Reversing : data::datasets::Dataset<Reversing, data::TensorExample> {
  data::TensorExample get(size_t i) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * (10 - static_cast<int>(i))));
    return torch::tensor(static_cast<int64_t>(i));
  }
  std::optional<size_t> size() const override { return 10; }
};
}  // namespace

TEST_CASE("DataLoader workers keep sampler order with enforce_ordering", "[data][loader]") {
  auto loader = data::make_data_loader<samplers::SequentialSampler>(
      Reversing().map(data::transforms::Stack<data::TensorExample>()),
      data::DataLoaderOptions(1).workers(4).max_jobs(8));
  std::vector<int64_t> got;
  for (auto& b : *loader) got.push_back(b.data.item<int64_t>());
  CHECK(got == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});

  auto loose = data::make_data_loader<samplers::SequentialSampler>(
      Reversing().map(data::transforms::Stack<data::TensorExample>()),
      data::DataLoaderOptions(1).workers(4).max_jobs(8).enforce_ordering(false));
  std::vector<int64_t> any;
  for (auto& b : *loose) any.push_back(b.data.item<int64_t>());
  REQUIRE(any.size() == 10);
  CHECK(std::set<int64_t>(any.begin(), any.end()).size() == 10);
  // Sample 0 sleeps 200 ms, sample 3 only 140 ms: without ordering 3 arrives before 0.
  auto pos = [&](int64_t v) { return std::find(any.begin(), any.end(), v) - any.begin(); };
  CHECK(pos(3) < pos(0));
}

TEST_CASE("DataLoader workers prepare batches in parallel with the consumer", "[data][loader]") {
  std::atomic<int> made{0};
  struct Tracking : data::datasets::Dataset<Tracking, data::TensorExample> {
    explicit Tracking(std::atomic<int>* m) : made(m) {}
    data::TensorExample get(size_t i) override {
      made->fetch_add(1);
      return torch::tensor(static_cast<int64_t>(i));
    }
    std::optional<size_t> size() const override { return 20; }
    std::atomic<int>* made;
  };
  auto loader = data::make_data_loader<samplers::SequentialSampler>(Tracking(&made),
                                                                     data::DataLoaderOptions(2).workers(2).max_jobs(3));
  auto it = loader->begin();
  // Before the first batch is taken, the workers already produce max_jobs batches (3 x 2 samples) on their own.
  for (int i = 0; i < 200 && made.load() < 6; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(made.load() == 6);
  CHECK((*it).size() == 2);
  // One more request for each batch taken, so never more than max_jobs batches ahead.
  for (int i = 0; i < 200 && made.load() < 8; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(made.load() == 8);
  ++it;
  for (int i = 0; i < 200 && made.load() < 10; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(made.load() == 10);
}

TEST_CASE("DataLoader workers run their ops on one thread; the consumer keeps its count", "[data][loader]") {
  // Each sample records the intra-op thread count of the thread that made it.
  struct Threads : data::datasets::Dataset<Threads, data::TensorExample> {
    data::TensorExample get(size_t) override { return torch::tensor(static_cast<int64_t>(at::get_num_threads())); }
    std::optional<size_t> size() const override { return 8; }
  };
  const int before = at::get_num_threads();
  at::set_num_threads(2);  // so that "one thread" differs from the consumer's count on any machine
  auto loader = data::make_data_loader<samplers::SequentialSampler>(
      Threads().map(data::transforms::Stack<data::TensorExample>()), data::DataLoaderOptions(2).workers(2));
  std::vector<int64_t> counts;
  for (auto& b : *loader)
    for (int64_t i = 0; i < b.data.numel(); ++i) counts.push_back(b.data[i].item<int64_t>());
  CHECK(counts == std::vector<int64_t>(8, 1));
  CHECK(at::get_num_threads() == 2);
  at::set_num_threads(before);
}

TEST_CASE("DataLoader surfaces worker exceptions and errors in the consumer", "[data][loader]") {
  for (size_t w : {0, 2}) {
    auto loader = data::make_data_loader<samplers::SequentialSampler>(
        Counting(8, /*throw_at=*/5).map(data::transforms::Stack<>()), data::DataLoaderOptions(2).workers(w));
    size_t good = 0;
    std::string what;
    try {
      for (auto& b : *loader) {
        (void)b;
        ++good;
      }
    } catch (const data::WorkerException& e) {
      CHECK(w > 0);
      what = e.what();
      CHECK_THROWS_AS(std::rethrow_exception(e.original_exception), std::runtime_error);
    } catch (const std::runtime_error& e) {
      CHECK(w == 0);
      what = e.what();
    }
    CHECK(good == 2);  // batches {0,1} and {2,3}; {4,5} fails
    CHECK(what.find("sample 5 is bad") != std::string::npos);
    // The loader can start a new epoch after the failure.
    size_t again = 0;
    CHECK_THROWS([&] {
      for (auto& b : *loader) {
        (void)b;
        ++again;
      }
    }());
    CHECK(again == 2);
  }
  auto loader = data::make_data_loader(Counting(3), data::DataLoaderOptions(2));
  auto end = loader->end();
  CHECK_THROWS_WITH(*end, Catch::StartsWith("[DataLoader] cannot dereference the end iterator"));
  auto it = loader->begin();
  ++it;
  ++it;
  CHECK(it == end);
  CHECK_THROWS_WITH(++it, Catch::StartsWith("[DataLoader] cannot increment an iterator that is already at the end"));
}

TEST_CASE("DataLoader timeout raises c10::Error", "[data][loader]") {
  auto loader = data::make_data_loader<samplers::SequentialSampler>(
      Counting(4, -1, /*delay_ms=*/300).map(data::transforms::Stack<>()),
      data::DataLoaderOptions(2).workers(1).timeout(std::chrono::milliseconds(20)));
  CHECK_THROWS_AS(loader->begin() == loader->end(), c10::Error);
  CHECK_THROWS_WITH(
      [&] {
        for (auto& b : *loader) (void)b;
      }(),
      Catch::StartsWith("[DataLoader] no batch arrived within 20 ms"));
  auto patient = data::make_data_loader<samplers::SequentialSampler>(
      Counting(4, -1, 5).map(data::transforms::Stack<>()),
      data::DataLoaderOptions(2).workers(2).timeout(std::chrono::milliseconds(2000)));
  size_t n = 0;
  for (auto& b : *patient) n += static_cast<size_t>(b.data.size(0));
  CHECK(n == 4);
}

namespace {
// A stream of 0, 1, 2, ... handed out n at a time.
struct Counter : data::datasets::StreamDataset<Counter, std::vector<int64_t>> {
  std::vector<int64_t> get_batch(size_t n) override {
    std::vector<int64_t> out;
    for (size_t i = 0; i < n; ++i) out.push_back(next++);
    return out;
  }
  std::optional<size_t> size() const override { return std::nullopt; }
  int64_t next = 0;
};
}  // namespace

TEST_CASE("StreamDataset with StreamSampler", "[data][loader]") {
  auto loader = data::make_data_loader(Counter(), samplers::StreamSampler(7), data::DataLoaderOptions(3));
  std::vector<size_t> sizes;
  int64_t last = -1;
  for (auto& b : *loader) {
    sizes.push_back(b.size());
    last = b.back();
  }
  CHECK(sizes == std::vector<size_t>{3, 3, 1});
  CHECK(last == 6);
}
