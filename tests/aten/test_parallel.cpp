// at::parallel_for / at::parallel_reduce and the thread-count calls (ATen/Parallel.h): coverage of
// every index, the number of threads a region may use, nested regions, exceptions, the per-thread
// counts (checked against libtorch 2.x with a small program), and the data loader's workers.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include <ATen/Parallel.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace parallel_test {

// Restores the process-wide and this thread's intra-op count at scope exit.
struct ThreadCountGuard {
  int saved = at::get_num_threads();
  ~ThreadCountGuard() { at::set_num_threads(saved); }
};

struct Call {
  int64_t begin, end;
  std::thread::id thread;
};

// Runs parallel_for and records every call of the body.
std::vector<Call> record(int64_t begin, int64_t end, int64_t grain) {
  std::mutex m;
  std::vector<Call> calls;
  at::parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(m);
    calls.push_back({b, e, std::this_thread::get_id()});
  });
  return calls;
}

int64_t divup(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace parallel_test

TEST_CASE("parallel_for covers every index exactly once", "[parallel]") {
  parallel_test::ThreadCountGuard guard;
  const std::vector<std::array<int64_t, 3>> cases = {
      {0, 0, 1},  {5, 5, 0},   {7, 3, 1},     {0, 1, 0},     {0, 1, 1},         {0, 10, 1},     {0, 10, 3},
      {3, 10, 2}, {0, 10, 0},  {0, 10, 100},  {100, 205, 7}, {-50, 50, 9},      {0, 65537, 32768},
      {0, 1000, 1}, {17, 100017, at::internal::GRAIN_SIZE}, {0, 5, 4}, {0, 9, 2}};
  for (int threads : {1, 2, 3, 4, 7}) {
    at::set_num_threads(threads);
    for (const auto& [begin, end, grain] : cases) {
      CAPTURE(threads, begin, end, grain);
      const std::vector<parallel_test::Call> calls = parallel_test::record(begin, end, grain);
      const int64_t n = std::max<int64_t>(end - begin, 0);
      std::vector<int> hits(static_cast<size_t>(n), 0);
      for (const parallel_test::Call& c : calls) {
        REQUIRE(begin <= c.begin);
        REQUIRE(c.begin < c.end);  // no empty chunk reaches the body
        REQUIRE(c.end <= end);
        for (int64_t i = c.begin; i < c.end; ++i) ++hits[static_cast<size_t>(i - begin)];
      }
      CHECK(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
      if (n == 0) CHECK(calls.empty());
      // One chunk per worker: at most min(threads, ceil(n / grain)) of them.
      const int64_t bound = n <= grain ? 1 : std::min<int64_t>(threads, grain == 0 ? threads : parallel_test::divup(n, grain));
      CHECK(static_cast<int64_t>(calls.size()) <= std::max<int64_t>(bound, n == 0 ? 0 : 1));
    }
  }
}

TEST_CASE("parallel_for uses at most min(get_num_threads(), ceil(n / grain)) threads", "[parallel]") {
  parallel_test::ThreadCountGuard guard;
  at::set_num_threads(4);
  for (const auto& [n_, grain_] : std::vector<std::pair<int64_t, int64_t>>{
           {1 << 20, 1 << 18}, {3 * 1000, 1000}, {2001, 1000}, {1000, 1000}, {1 << 20, 1}, {40, 0}}) {
    const int64_t n = n_, grain = grain_;  // captured by the lambda below
    CAPTURE(n, grain);
    std::mutex m;
    std::set<std::thread::id> ids;
    std::set<int> nums;
    std::atomic<int> bad_num{0};
    at::parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
      // Enough work per chunk that a region's threads overlap.
      volatile double s = 0;
      for (int64_t i = b; i < e; ++i) s = s + std::sqrt(static_cast<double>(i));
      const int t = at::get_thread_num();
      if (t < 0 || t >= at::get_num_threads()) ++bad_num;
      if (!at::in_parallel_region() && e - b < n) ++bad_num;
      std::lock_guard<std::mutex> lock(m);
      ids.insert(std::this_thread::get_id());
      nums.insert(t);
    });
    const int64_t bound = n <= grain ? 1 : std::min<int64_t>(4, grain == 0 ? 4 : parallel_test::divup(n, grain));
    CHECK(static_cast<int64_t>(ids.size()) <= bound);
    CHECK(nums.size() == ids.size());
    CHECK(bad_num.load() == 0);
  }
  CHECK_FALSE(at::in_parallel_region());
  CHECK(at::get_thread_num() == 0);
}

TEST_CASE("parallel_for below one grain runs on the caller, outside any region", "[parallel]") {
  parallel_test::ThreadCountGuard guard;
  at::set_num_threads(4);
  int calls = 0;
  bool in_region = true;
  int num = -1;
  std::thread::id id;
  at::parallel_for(0, 100, 100, [&](int64_t b, int64_t e) {
    ++calls;
    CHECK(b == 0);
    CHECK(e == 100);
    in_region = at::in_parallel_region();
    num = at::get_thread_num();
    id = std::this_thread::get_id();
  });
  CHECK(calls == 1);
  CHECK_FALSE(in_region);  // as libtorch's serial path
  CHECK(num == 0);
  CHECK(id == std::this_thread::get_id());
}

TEST_CASE("a parallel_for inside a parallel region runs inline on its caller", "[parallel]") {
  parallel_test::ThreadCountGuard guard;
  at::set_num_threads(3);
  std::atomic<int> outer_calls{0}, inner_calls{0}, not_in_region{0}, other_thread{0}, not_whole{0};
  at::parallel_for(0, 3, 1, [&](int64_t, int64_t) {
    ++outer_calls;
    if (!at::in_parallel_region()) ++not_in_region;
    const std::thread::id outer = std::this_thread::get_id();
    at::parallel_for(0, 1 << 20, 1, [&](int64_t b, int64_t e) {
      ++inner_calls;
      if (!at::in_parallel_region()) ++not_in_region;
      if (std::this_thread::get_id() != outer) ++other_thread;
      if (b != 0 || e != (1 << 20)) ++not_whole;
    });
    // parallel_reduce nests the same way.
    const int64_t s = at::parallel_reduce(
        0, 1000, 1, int64_t(0),
        [&](int64_t b, int64_t e, int64_t acc) {
          if (std::this_thread::get_id() != outer) ++other_thread;
          for (int64_t i = b; i < e; ++i) acc += i;
          return acc;
        },
        [](int64_t a, int64_t b) { return a + b; });
    if (s != 999 * 1000 / 2) ++not_whole;
  });
  CHECK(outer_calls.load() == 3);
  CHECK(inner_calls.load() == 3);  // one call each: the nested region saw one thread
  CHECK(not_in_region.load() == 0);
  CHECK(other_thread.load() == 0);
  CHECK(not_whole.load() == 0);
  CHECK_FALSE(at::in_parallel_region());
}

TEST_CASE("an exception in a chunk reaches the caller with its type and message", "[parallel]") {
  parallel_test::ThreadCountGuard guard;
  for (int threads : {1, 2, 4}) {
    at::set_num_threads(threads);
    CAPTURE(threads);
    try {
      at::parallel_for(0, 1000, 10, [](int64_t b, int64_t) {
        EMBER_CHECK(b == 0, "[test_parallel] expected the first chunk; got one at ", b);
      });
      // One thread runs a single chunk starting at 0: nothing to throw.
      CHECK(threads == 1);
    } catch (const c10::Error& e) {
      CHECK(threads > 1);
      CHECK(std::string(e.what()).rfind("[test_parallel] expected the first chunk; got one at ", 0) == 0);
    }
    // Any exception type survives, from every chunk throwing at once.
    CHECK_THROWS_AS(at::parallel_for(0, 1000, 1, [](int64_t, int64_t) { throw std::out_of_range("chunk"); }),
                    std::out_of_range);
    CHECK_THROWS_WITH(at::parallel_reduce(0, 1000, 1, 0.0,
                                          [](int64_t, int64_t, double) -> double { throw std::runtime_error("partial"); },
                                          [](double a, double b) { return a + b; }),
                      "partial");
    // The region is over and usable again.
    CHECK_FALSE(at::in_parallel_region());
    std::atomic<int64_t> n{0};
    at::parallel_for(0, 1000, 10, [&](int64_t b, int64_t e) { n += e - b; });
    CHECK(n.load() == 1000);
  }
}

TEST_CASE("parallel_reduce matches a float64 serial sum and combines in chunk order", "[parallel]") {
  parallel_test::ThreadCountGuard guard;
  const int64_t n = 1 << 20;
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>(std::sin(0.001 * static_cast<double>(i)) + 0.25);
  double reference = 0;
  for (float v : x) reference += static_cast<double>(v);
  for (int threads : {1, 2, 3, 8}) {
    at::set_num_threads(threads);
    CAPTURE(threads);
    for (int64_t grain : {int64_t(0), int64_t(1000), at::internal::GRAIN_SIZE, n}) {
      CAPTURE(grain);
      const double s = at::parallel_reduce(
          0, n, grain, 0.0,
          [&](int64_t b, int64_t e, double acc) {
            for (int64_t i = b; i < e; ++i) acc += static_cast<double>(x[static_cast<size_t>(i)]);
            return acc;
          },
          [](double a, double b) { return a + b; });
      CHECK(std::abs(s - reference) <= 1e-9 * std::abs(reference));
    }
    // A non-commutative combine: the chunks come back in order.
    const std::string order = at::parallel_reduce(
        0, 26, 1, std::string(),
        [](int64_t b, int64_t e, std::string acc) {
          for (int64_t i = b; i < e; ++i) acc += static_cast<char>('a' + i);
          return acc;
        },
        [](const std::string& a, const std::string& b) { return a + b; });
    CHECK(order == "abcdefghijklmnopqrstuvwxyz");
    // bool partials (std::vector<bool> would share bytes between chunks).
    const bool all = at::parallel_reduce(
        0, 100000, 1, true,
        [&](int64_t b, int64_t e, bool acc) {
          for (int64_t i = b; i < e; ++i) acc = acc && x[static_cast<size_t>(i)] > -1.0f;
          return acc;
        },
        [](bool a, bool b) { return a && b; });
    CHECK(all);
  }
  CHECK(at::parallel_reduce(5, 5, 1, 42, [](int64_t, int64_t, int) { return 0; }, [](int a, int b) { return a + b; }) == 42);
}

TEST_CASE("thread counts: positive, per thread, and a process default for new threads", "[parallel]") {
  parallel_test::ThreadCountGuard guard;
  for (int bad : {0, -3}) {
    CAPTURE(bad);
    try {
      at::set_num_threads(bad);
      FAIL("expected c10::Error");
    } catch (const c10::Error& e) {
      CHECK(std::string(e.what()).rfind("[set_num_threads] expected a positive number of threads; got " + std::to_string(bad), 0) == 0);
    }
  }
  CHECK_THROWS_AS(at::parallel_for(0, 10, -1, [](int64_t, int64_t) {}), c10::Error);
  CHECK(at::internal::GRAIN_SIZE == 32768);

  // libtorch 2.x: set_num_threads sets this thread's count and the count new threads start with;
  // a thread's own call leaves the threads already running (here the main one) as they are.
  at::set_num_threads(3);
  int seen = 0;
  std::thread([&] { seen = at::get_num_threads(); }).join();
  CHECK(seen == 3);
  std::thread([&] {
    at::set_num_threads(1);
    seen = at::get_num_threads();
  }).join();
  CHECK(seen == 1);
  CHECK(at::get_num_threads() == 3);
  std::thread([&] { seen = at::get_num_threads(); }).join();
  CHECK(seen == 1);  // libtorch's rule: the last set_num_threads anywhere is the new threads' default
  at::set_num_threads(3);
  // internal::set_thread_num_threads (the data loader's workers) touches its own thread only.
  std::thread([&] {
    at::internal::set_thread_num_threads(1);
    seen = at::get_num_threads();
  }).join();
  CHECK(seen == 1);
  std::thread([&] { seen = at::get_num_threads(); }).join();
  CHECK(seen == 3);
  CHECK(at::get_num_threads() == 3);
  at::init_num_threads();  // idempotent
  CHECK(at::get_num_threads() == 3);
}

TEST_CASE("inter-op thread count: positive, and set once", "[parallel]") {
  CHECK(at::get_num_interop_threads() >= 1);
  try {
    at::set_num_interop_threads(0);
    FAIL("expected c10::Error");
  } catch (const c10::Error& e) {
    CHECK(std::string(e.what()).rfind("[set_num_interop_threads] expected a positive number of threads; got 0", 0) == 0);
  }
  try {
    at::set_num_interop_threads(2);  // the first call in this process succeeds
    CHECK(at::get_num_interop_threads() == 2);
  } catch (const c10::Error&) {
  }
  try {
    at::set_num_interop_threads(3);
    FAIL("expected c10::Error");
  } catch (const c10::Error& e) {
    CHECK(std::string(e.what()).rfind("[set_num_interop_threads]", 0) == 0);
  }
}

TEST_CASE("the data loader's workers do not change other threads' counts", "[parallel]") {
  parallel_test::ThreadCountGuard guard;
  namespace data = torch::data;
  struct Threads : data::datasets::Dataset<Threads, data::TensorExample> {
    data::TensorExample get(size_t) override { return torch::tensor(static_cast<int64_t>(at::get_num_threads())); }
    std::optional<size_t> size() const override { return 8; }
  };
  at::set_num_threads(3);
  {
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        Threads().map(data::transforms::Stack<data::TensorExample>()), data::DataLoaderOptions(2).workers(2));
    for (auto& b : *loader) CHECK(b.data.eq(1).all().item<bool>());
  }
  CHECK(at::get_num_threads() == 3);
  int seen = 0;
  std::thread([&] { seen = at::get_num_threads(); }).join();
  CHECK(seen == 3);  // not the workers' 1
}

TEST_CASE("regions started concurrently from several threads share the threads", "[parallel]") {
  parallel_test::ThreadCountGuard guard;
  // At least the process default (OMP_NUM_THREADS, else the cores), which also bounds the sharing.
  const char* env = std::getenv("OMP_NUM_THREADS");
  const int nt = std::max({4, static_cast<int>(std::thread::hardware_concurrency()), env ? std::atoi(env) : 0});
  at::set_num_threads(nt);
  constexpr int kCallers = 3;
  std::atomic<int> running{0}, peak{0};
  std::atomic<int64_t> covered{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&] {
      at::parallel_for(0, 2 * nt, 1, [&](int64_t b, int64_t e) {
        const int now = ++running;
        int p = peak.load();
        while (now > p && !peak.compare_exchange_weak(p, now)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        covered += e - b;
        --running;
      });
    });
  for (auto& t : callers) t.join();
  CHECK(covered.load() == kCallers * 2 * nt);
  // Each caller alone would take nt threads (kCallers * nt together); shared, at most nt plus the
  // callers that found them all busy and ran their chunks themselves.
  CHECK(peak.load() <= nt + kCallers - 1);
}
