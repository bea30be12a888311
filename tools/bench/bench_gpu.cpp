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

// ---- matrix products (cuBLAS). TFLOPs is 2*m*n*k per iteration over wall time; float32 runs
// with TF32 off (libtorch's default) unless the name says tf32.
void BM_cuda_mm(benchmark::State& st, torch::ScalarType dt, bool tf32) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  const int64_t n = 4096;
  const bool prev_tf32 = at::globalContext().allowTF32CuBLAS();
  at::globalContext().setAllowTF32CuBLAS(tf32);
  auto a = torch::rand({n, n}).to(dt).to(torch::kCUDA), b = torch::rand({n, n}).to(dt).to(torch::kCUDA);
  benchmark::DoNotOptimize(torch::mm(a, b));  // warm-up: cuBLAS handle, workspace, heuristics
  torch::cuda::synchronize();
  for (auto _ : st) {
    auto c = torch::mm(a, b);
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.counters["TFLOPs"] = benchmark::Counter(2.0 * n * n * n / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  at::globalContext().setAllowTF32CuBLAS(prev_tf32);
}
BENCHMARK_CAPTURE(BM_cuda_mm, fp32_4096, torch::kFloat, false)->UseRealTime();
BENCHMARK_CAPTURE(BM_cuda_mm, fp32_tf32_4096, torch::kFloat, true)->UseRealTime();
BENCHMARK_CAPTURE(BM_cuda_mm, bf16_4096, torch::kBFloat16, false)->UseRealTime();

void BM_cuda_bmm(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  const int64_t batch = 64, n = 512;
  const bool prev_tf32 = at::globalContext().allowTF32CuBLAS();
  at::globalContext().setAllowTF32CuBLAS(false);
  auto a = torch::rand({batch, n, n}).to(torch::kCUDA), b = torch::rand({batch, n, n}).to(torch::kCUDA);
  benchmark::DoNotOptimize(torch::bmm(a, b));
  torch::cuda::synchronize();
  for (auto _ : st) {
    auto c = torch::bmm(a, b);
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.counters["TFLOPs"] = benchmark::Counter(2.0 * batch * n * n * n / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  at::globalContext().setAllowTF32CuBLAS(prev_tf32);
}
BENCHMARK(BM_cuda_bmm)->Name("BM_cuda_bmm/fp32_64x512x512x512")->UseRealTime();

// ---- memory-bound baselines and reductions. Bytes are those read plus written once.
void BM_cuda_copy_d2d(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  const int64_t n = 1 << 24;
  auto a = torch::ones({n}).to(torch::kCUDA), b = torch::empty({n}).to(torch::kCUDA);
  for (auto _ : st) {
    b.copy_(a);
    torch::cuda::synchronize();
  }
  st.SetBytesProcessed(st.iterations() * n * 2 * 4);
}
BENCHMARK(BM_cuda_copy_d2d)->UseRealTime();

void BM_cuda_sum_all(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  const int64_t n = 1 << 24;
  auto a = torch::ones({n}).to(torch::kCUDA);
  for (auto _ : st) {
    auto c = a.sum();
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.SetBytesProcessed(st.iterations() * n * 4);
}
BENCHMARK(BM_cuda_sum_all)->UseRealTime();

// Sum of a [4096, 4096] float32 over dim 0 (strided reduction) or dim 1 (contiguous rows).
void BM_cuda_sum_dim(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  auto a = torch::ones({4096, 4096}).to(torch::kCUDA);
  const int64_t dim = st.range(0);
  for (auto _ : st) {
    auto c = a.sum(dim);
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.SetBytesProcessed(st.iterations() * 4096LL * 4096 * 4);
}
BENCHMARK(BM_cuda_sum_dim)->Arg(0)->Arg(1)->UseRealTime();

void BM_cuda_argmax_rows(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  auto a = torch::randn({4096, 4096}).to(torch::kCUDA);
  for (auto _ : st) {
    auto c = a.argmax(1);
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.SetBytesProcessed(st.iterations() * 4096LL * 4096 * 4);
}
BENCHMARK(BM_cuda_argmax_rows)->UseRealTime();

void BM_cuda_softmax_rows(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  auto a = torch::randn({4096, 4096}).to(torch::kCUDA);
  for (auto _ : st) {
    auto c = torch::softmax(a, 1);
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
  st.SetBytesProcessed(st.iterations() * 4096LL * 4096 * 2 * 4);
}
BENCHMARK(BM_cuda_softmax_rows)->UseRealTime();

// ---- convolution (cuDNN) and max pooling: a ResNet-style 3x3 layer, 32 x 64 x 56 x 56, float32
// with TF32 off on both sides (libtorch's cuDNN default is on: set explicitly for a like-for-like
// comparison) and bfloat16. TFLOPs counts 2 * N * O * OH * OW * C * KH * KW per pass.
void BM_cuda_conv3x3(benchmark::State& st, torch::ScalarType dt, bool backward) {
  if (!need_gpu(st)) return;
  const bool prev_tf32 = at::globalContext().allowTF32CuDNN();
  at::globalContext().setAllowTF32CuDNN(false);
  const int64_t N = 32, C = 64, H = 56;
  auto opts = torch::TensorOptions().dtype(dt).device(torch::kCUDA);
  auto x = torch::randn({N, C, H, H}, opts).requires_grad_(backward);
  auto w = torch::randn({C, C, 3, 3}, opts).requires_grad_(backward);
  auto gy = torch::randn({N, C, H, H}, opts);
  auto step = [&] {
    auto y = torch::conv2d(x, w, {}, 1, 1);
    if (backward) y.backward(gy);
    return y;
  };
  benchmark::DoNotOptimize(step());  // warm-up: handle, algorithm choice, workspace
  torch::cuda::synchronize();
  for (auto _ : st) {
    auto y = step();
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(y);
  }
  const double flops = 2.0 * N * C * H * H * C * 9 * (backward ? 3 : 1);
  st.counters["TFLOPs"] = benchmark::Counter(flops / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  at::globalContext().setAllowTF32CuDNN(prev_tf32);
}
BENCHMARK_CAPTURE(BM_cuda_conv3x3, fp32_fwd, torch::kFloat, false)->UseRealTime();
BENCHMARK_CAPTURE(BM_cuda_conv3x3, fp32_fwd_bwd, torch::kFloat, true)->UseRealTime();
BENCHMARK_CAPTURE(BM_cuda_conv3x3, bf16_fwd_bwd, torch::kBFloat16, true)->UseRealTime();

void BM_cuda_max_pool(benchmark::State& st) {
  if (!need_gpu(st)) return;
  torch::NoGradGuard no_grad;
  auto x = torch::randn({32, 64, 112, 112}).to(torch::kCUDA);
  for (auto _ : st) {
    auto y = torch::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1});
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(y);
  }
  st.SetBytesProcessed(st.iterations() * (32LL * 64 * 112 * 112 * 4 + 32LL * 64 * 56 * 56 * 12));
}
BENCHMARK(BM_cuda_max_pool)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
