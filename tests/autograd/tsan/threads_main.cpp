// Built with -fsanitize=thread by tests/autograd/tsan/run.sh: backward on independent graphs from
// several threads, concurrent accumulation into one shared leaf, and concurrent backward passes
// through one retained subgraph (saved inputs and outputs unpacked by several threads, hooks
// registered on it). Exits non-zero on a wrong result; ThreadSanitizer reports (and fails on) any
// data race.
#include <torch/torch.h>
#include <atomic>
#include <cmath>
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

  // One graph, retained, run by every thread at once: the nodes' saved tensors (exp saves its
  // output, mul its inputs) are unpacked concurrently; a hook on the shared subgraph runs on each.
  auto leaf = torch::tensor({0.5, -1.0, 2.0}, torch::requires_grad());
  auto mid = (leaf * leaf).exp();
  std::atomic<int> hook_calls{0};
  mid.register_hook([&](const torch::Tensor& g) { hook_calls++; return g; });
  auto out = (mid * 3.0).sum();
  std::vector<double> sub_results(kThreads);
  std::vector<std::thread> ss;
  for (int t = 0; t < kThreads; ++t) {
    ss.emplace_back([&, t] {
      for (int i = 0; i < kIters; ++i) {
        auto g = torch::autograd::grad({out}, {leaf}, {}, /*retain_graph=*/true);
        sub_results[t] = g[0].select(0, 0).item<double>();
      }
    });
  }
  for (auto& th : ss) th.join();
  int bad = 0;
  const double g0 = 3.0 * std::exp(0.25) * 2.0 * 0.5;  // d/dx 3 exp(x^2) at 0.5
  for (int t = 0; t < kThreads; ++t) bad += std::abs(sub_results[t] - g0) > 1e-5 * g0;  // float32
  bad += hook_calls.load() != kThreads * kIters;
  for (int t = 0; t < kThreads; ++t) bad += own_results[t] != 4.0 * (1.0 + t) + 1.0;
  const double expect = 2.0 * 2.0 * kThreads * kIters;  // element 1: 2 * s1 per backward
  bad += shared.grad().select(0, 1).item<double>() != expect;
  std::printf("%d passed, %d failed\n", 2 * kThreads + 2 - bad, bad);
  return bad ? 1 : 0;
}
