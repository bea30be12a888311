// Per-op overhead and throughput benchmarks, written once against the libtorch API and compiled
// twice: against Ember and against libtorch (tools/bench/run builds both and prints ratios).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

namespace {

void BM_add_1elem(benchmark::State& st) {
  torch::NoGradGuard no_grad;
  auto a = torch::ones({1}), b = torch::ones({1});
  for (auto _ : st) benchmark::DoNotOptimize(torch::add(a, b));
}
BENCHMARK(BM_add_1elem);

void BM_add_inplace_1elem(benchmark::State& st) {
  torch::NoGradGuard no_grad;
  auto a = torch::ones({1}), b = torch::ones({1});
  for (auto _ : st) benchmark::DoNotOptimize(a.add_(b));
}
BENCHMARK(BM_add_inplace_1elem);

void BM_mul_scalar_1elem(benchmark::State& st) {
  torch::NoGradGuard no_grad;
  auto a = torch::ones({1});
  for (auto _ : st) benchmark::DoNotOptimize(a * 2.0);
}
BENCHMARK(BM_mul_scalar_1elem);

void BM_view_1elem(benchmark::State& st) {
  auto a = torch::ones({4, 4});
  for (auto _ : st) benchmark::DoNotOptimize(a.view({16}));
}
BENCHMARK(BM_view_1elem);

void BM_empty_small(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(torch::empty({8}));
}
BENCHMARK(BM_empty_small);

void BM_add(benchmark::State& st) {
  torch::NoGradGuard no_grad;
  auto n = st.range(0);
  auto a = torch::ones({n}), b = torch::ones({n});
  for (auto _ : st) benchmark::DoNotOptimize(torch::add(a, b));
  st.SetBytesProcessed(st.iterations() * n * 3 * 4);
}
BENCHMARK(BM_add)->Arg(1024)->Arg(1 << 20);

void BM_add_broadcast(benchmark::State& st) {
  torch::NoGradGuard no_grad;
  auto a = torch::ones({1024, 1024}), b = torch::ones({1024});
  for (auto _ : st) benchmark::DoNotOptimize(a + b);
  st.SetBytesProcessed(st.iterations() * (1 << 20) * 2 * 4);
}
BENCHMARK(BM_add_broadcast);

void BM_exp(benchmark::State& st) {
  torch::NoGradGuard no_grad;
  auto n = st.range(0);
  auto a = torch::ones({n}) * 0.5;
  for (auto _ : st) benchmark::DoNotOptimize(a.exp());
  st.SetBytesProcessed(st.iterations() * n * 2 * 4);
}
BENCHMARK(BM_exp)->Arg(1 << 20);

void BM_transpose_copy(benchmark::State& st) {
  torch::NoGradGuard no_grad;
  auto a = torch::ones({1024, 1024});
  for (auto _ : st) benchmark::DoNotOptimize(a.t().contiguous());
  st.SetBytesProcessed(st.iterations() * (1 << 20) * 2 * 4);
}
BENCHMARK(BM_transpose_copy);

void BM_autograd_mul_1elem_fwd(benchmark::State& st) {
  auto x = torch::ones({1}, torch::requires_grad());
  for (auto _ : st) benchmark::DoNotOptimize(x * x);  // records a node
}
BENCHMARK(BM_autograd_mul_1elem_fwd);

void BM_autograd_mul_1elem_fwd_bwd(benchmark::State& st) {
  auto x = torch::ones({1}, torch::requires_grad());
  for (auto _ : st) {
    auto y = x * x;
    y.backward();
  }
  benchmark::DoNotOptimize(x.grad());
}
BENCHMARK(BM_autograd_mul_1elem_fwd_bwd);

}  // namespace

BENCHMARK_MAIN();
