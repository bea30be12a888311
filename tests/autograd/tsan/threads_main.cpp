// Built with -fsanitize=thread by tests/autograd/tsan/run.sh: backward on independent graphs from
// several threads, and concurrent accumulation into one shared leaf. Exits non-zero on a wrong
// result; ThreadSanitizer reports (and fails on) any data race.
#include <torch/torch.h>
#include <cstdio>
#include <thread>
#include <vector>

int main() {
  constexpr int kThreads = 4, kIters = 50;
  auto shared = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  std::vector<double> own_results(kThreads);
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      auto x = torch::tensor({1.0 + t, 2.0, 3.0}, torch::requires_grad());
      for (int i = 0; i < kIters; ++i) {
        auto y = (x * x * 2.0 + x).sum();  // d/dx0 = 4 x0 + 1
        auto g = torch::autograd::grad({y}, {x});
        own_results[t] = g[0].select(0, 0).item<double>();
        (shared * shared).sum().backward();  // d/ds = 2 s, accumulated by every thread
      }
    });
  }
  for (auto& th : ts) th.join();
  int bad = 0;
  for (int t = 0; t < kThreads; ++t) bad += own_results[t] != 4.0 * (1.0 + t) + 1.0;
  const double expect = 2.0 * 2.0 * kThreads * kIters;  // element 1: 2 * s1 per backward
  bad += shared.grad().select(0, 1).item<double>() != expect;
  std::printf("%d passed, %d failed\n", kThreads + 1 - bad, bad);
  return bad ? 1 : 0;
}
