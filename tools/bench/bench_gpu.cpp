// GPU benchmarks, same source for Ember and libtorch (run on the lent GPU machine by tools/gpu-check).
// Each iteration ends with a device synchronize so the time covers the kernel, not just the launch.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

namespace {

bool need_gpu(benchmark::State& st) {
  if (torch::cuda::is_available()) return true;
  st.SkipWithError("no CUDA device");
  return false;
}

void BM_cuda_add_1elem(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  auto a = torch::ones({1}).to(torch::kCUDA), b = torch::ones({1}).to(torch::kCUDA);
  for (auto _ : st) benchmark::DoNotOptimize(torch::add(a, b));
  torch::cuda::synchronize();
}
BENCHMARK(BM_cuda_add_1elem);

void BM_cuda_add(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  int64_t n = st.range(0);
  auto a = torch::ones({n}).to(torch::kCUDA), b = torch::ones({n}).to(torch::kCUDA);
  for (auto _ : st) {
    auto c = torch::add(a, b);
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.SetBytesProcessed(st.iterations() * n * 3 * 4);
}
BENCHMARK(BM_cuda_add)->Arg(1 << 24)->UseRealTime();

void BM_cuda_exp(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  int64_t n = st.range(0);
  auto a = torch::ones({n}).to(torch::kCUDA);
  for (auto _ : st) {
    auto c = a.exp();
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.SetBytesProcessed(st.iterations() * n * 2 * 4);
}
BENCHMARK(BM_cuda_exp)->Arg(1 << 24)->UseRealTime();

void BM_cuda_add_transposed(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  auto a = torch::ones({4096, 4096}).to(torch::kCUDA);
  auto b = torch::ones({4096, 4096}).to(torch::kCUDA).t();
  for (auto _ : st) {
    auto c = a + b;
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.SetBytesProcessed(st.iterations() * 4096LL * 4096 * 3 * 4);
}
BENCHMARK(BM_cuda_add_transposed)->UseRealTime();

void BM_cuda_h2d(benchmark::State& st) {
  if (!need_gpu(st)) return;
  auto a = torch::ones({1 << 24});
  for (auto _ : st) {
    auto c = a.to(torch::kCUDA);
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.SetBytesProcessed(st.iterations() * (1LL << 24) * 4);
}
BENCHMARK(BM_cuda_h2d)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
