// Layer benchmarks of issue #8's targets table (conv2d, max_pool2d, batch_norm, LSTM; forward and
// backward), written once against the libtorch API and compiled twice by tools/bench/run: against Ember
// and against libtorch. Inputs, weights and output gradients are bench::det (identical on both sides);
// each case reports checksums of its output and gradients, see Note [Benchmark counters] in
// bench_common.h. Gradients are cleared before each iteration, as a training loop's zero_grad does.
#include "bench_common.h"

namespace {

using bench::det;
using bench::Meta;
using bench::report;

void clear_grads(std::initializer_list<torch::Tensor> ts) {
  for (auto t : ts) t.mutable_grad() = torch::Tensor();
}

// ---------------------------------------------------------------- conv2d

// conv2d without bias of an (n, cin, hw, hw) input with a (cout, cin, 3, 3) kernel, padding 1 (the
// output keeps hw x hw), then backward to the input and the weight.
struct ConvShape {
  int64_t n, cin, cout, hw;
};

// conv2d forward + backward (input and weight gradients), NCHW or on a channels-last input and
// output gradient (then output and gradients are channels-last on both sides).
void conv2d_fwd_bwd(benchmark::State& st, ConvShape s, const char* key, bool channels_last) {
  const auto fmt = channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  auto x = det({s.n, s.cin, s.hw, s.hw}, 1).contiguous(fmt).requires_grad_(true);
  auto w = det({s.cout, s.cin, 3, 3}, 2, 1.0 / std::sqrt(9.0 * s.cin)).requires_grad_(true);
  auto g = det({s.n, s.cout, s.hw, s.hw}, 3).contiguous(fmt);
  auto step = [&] {
    clear_grads({x, w});
    auto y = torch::conv2d(x, w, {}, {1, 1}, {1, 1});
    y.backward(g);
    return y;
  };
  for (auto _ : st) benchmark::DoNotOptimize(step());
  // Forward, input gradient and weight gradient each cost one product of this size.
  const double flops = 3.0 * 2.0 * s.n * s.cout * s.hw * s.hw * s.cin * 9;
  report(st, key, Meta{1.0, 1e-4, 0, flops}, [&] {
    auto y = step();
    return std::vector<torch::Tensor>{y.contiguous(), x.grad().contiguous(), w.grad().contiguous()};
  });
}
void BM_conv2d_fwd_bwd(benchmark::State& st, ConvShape s, const char* key) { conv2d_fwd_bwd(st, s, key, false); }
void BM_conv2d_channels_last_fwd_bwd(benchmark::State& st, ConvShape s, const char* key) { conv2d_fwd_bwd(st, s, key, true); }
// The main job's CNN (examples/mnist, batch 64): conv 1 -> 16 at 28x28, conv 16 -> 32 at 14x14.
BENCHMARK_CAPTURE(BM_conv2d_fwd_bwd, mnist1, ConvShape{64, 1, 16, 28}, "conv_mnist1");
BENCHMARK_CAPTURE(BM_conv2d_fwd_bwd, mnist2, ConvShape{64, 16, 32, 14}, "conv_mnist2");
// A ResNet basic block's 3x3 convolution in stage 1: 64 -> 64 channels at 56x56, batch 8.
BENCHMARK_CAPTURE(BM_conv2d_fwd_bwd, resnet, ConvShape{8, 64, 64, 56}, "conv_resnet");
BENCHMARK_CAPTURE(BM_conv2d_channels_last_fwd_bwd, resnet_cl, ConvShape{8, 64, 64, 56}, "conv_resnet_cl");

// ---------------------------------------------------------------- max_pool2d

// 2x2 pooling at the main job's first block (64 x 16 x 28 x 28), forward and backward; NCHW, or on
// a channels-last input and output gradient (output and gradient channels-last on both sides).
void max_pool2d_fwd_bwd(benchmark::State& st, const char* key, bool channels_last) {
  const auto fmt = channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  auto x = det({64, 16, 28, 28}, 1).contiguous(fmt).requires_grad_(true);
  auto g = det({64, 16, 14, 14}, 2).contiguous(fmt);
  auto step = [&] {
    clear_grads({x});
    auto y = torch::max_pool2d(x, {2, 2});
    y.backward(g);
    return y;
  };
  for (auto _ : st) benchmark::DoNotOptimize(step());
  report(st, key, Meta{1.0, 1e-6, 0, 0}, [&] {
    auto y = step();
    return std::vector<torch::Tensor>{y.contiguous(), x.grad().contiguous()};
  });
}
void BM_max_pool2d_fwd_bwd(benchmark::State& st) { max_pool2d_fwd_bwd(st, "max_pool2d", false); }
void BM_max_pool2d_channels_last_fwd_bwd(benchmark::State& st) { max_pool2d_fwd_bwd(st, "max_pool2d_cl", true); }
BENCHMARK(BM_max_pool2d_fwd_bwd);
BENCHMARK(BM_max_pool2d_channels_last_fwd_bwd);

// ---------------------------------------------------------------- batch_norm

// BatchNorm2d(64) in training mode at the ResNet block's shape (8, 64, 56, 56), forward and backward to
// the input, the weight and the bias; NCHW, or channels-last input and output gradient.
void batch_norm2d_fwd_bwd(benchmark::State& st, const char* key, bool channels_last) {
  const auto fmt = channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  torch::nn::BatchNorm2d bn(64);
  auto x = det({8, 64, 56, 56}, 1).contiguous(fmt).requires_grad_(true);
  auto g = det({8, 64, 56, 56}, 2).contiguous(fmt);
  auto step = [&] {
    clear_grads({x, bn->weight, bn->bias});
    auto y = bn->forward(x);
    y.backward(g);
    return y;
  };
  for (auto _ : st) benchmark::DoNotOptimize(step());
  report(st, key, Meta{1.0, 1e-4, 0, 0}, [&] {
    auto y = step();
    return std::vector<torch::Tensor>{y.contiguous(), x.grad().contiguous(), bn->weight.grad(), bn->bias.grad()};
  });
}
void BM_batch_norm2d_fwd_bwd(benchmark::State& st) { batch_norm2d_fwd_bwd(st, "batch_norm", false); }
void BM_batch_norm2d_channels_last_fwd_bwd(benchmark::State& st) { batch_norm2d_fwd_bwd(st, "batch_norm_cl", true); }
BENCHMARK(BM_batch_norm2d_fwd_bwd);
BENCHMARK(BM_batch_norm2d_channels_last_fwd_bwd);

// The same layer in evaluation mode (running statistics, as at inference) without autograd: one read
// of the input and one write of the output, so its fraction of the triad bandwidth is reported.
void batch_norm2d_eval(benchmark::State& st, const char* key, bool channels_last) {
  const auto fmt = channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  torch::nn::BatchNorm2d bn(64);
  {
    torch::NoGradGuard no_grad;
    bn->running_mean.copy_(det({64}, 4));
    bn->running_var.copy_(det({64}, 5).abs() + 0.5);
    bn->weight.copy_(det({64}, 6));
    bn->bias.copy_(det({64}, 7));
  }
  bn->eval();
  auto x = det({8, 64, 56, 56}, 1).contiguous(fmt);
  torch::NoGradGuard no_grad;
  for (auto _ : st) benchmark::DoNotOptimize(bn->forward(x));
  report(st, key, Meta{1.0, 1e-5, 2.0 * 4.0 * x.numel(), 0}, [&] {
    return std::vector<torch::Tensor>{bn->forward(x).contiguous()};
  });
}
void BM_batch_norm2d_eval(benchmark::State& st) { batch_norm2d_eval(st, "batch_norm_eval", false); }
void BM_batch_norm2d_channels_last_eval(benchmark::State& st) { batch_norm2d_eval(st, "batch_norm_eval_cl", true); }
BENCHMARK(BM_batch_norm2d_eval);
BENCHMARK(BM_batch_norm2d_channels_last_eval);

// ---------------------------------------------------------------- LSTM

// One LSTM layer, input and hidden 256, 32 steps of a batch of 32: forward, then backward to the input
// and the weights. The weights are bench::det too (their default initialisation draws random numbers,
// which differ between the libraries), set by parameter name.
void BM_LSTM_h256_fwd_bwd(benchmark::State& st) {
  const int64_t seq = 32, batch = 32, hidden = 256;
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(hidden, hidden));
  {
    torch::NoGradGuard no_grad;
    for (auto& p : lstm->named_parameters()) {
      int64_t seed = 10;
      for (char c : p.key()) seed = seed * 31 % 100003 + c;
      p.value().copy_(det(p.value().sizes().vec(), seed, 0.0625));
    }
  }
  auto x = det({seq, batch, hidden}, 1).requires_grad_(true);
  auto g = det({seq, batch, hidden}, 2);
  auto params = lstm->parameters();
  auto step = [&] {
    x.mutable_grad() = torch::Tensor();
    for (auto& p : params) p.mutable_grad() = torch::Tensor();
    auto out = std::get<0>(lstm->forward(x));
    out.backward(g);
    return out;
  };
  for (auto _ : st) benchmark::DoNotOptimize(step());
  // Per step: [batch, 2 * hidden] by [2 * hidden, 4 * hidden] forward; twice that backward.
  const double flops = 3.0 * seq * 2.0 * batch * (2 * hidden) * (4 * hidden);
  report(st, "lstm", Meta{1.0, 1e-4, 0, flops}, [&] {
    auto out = step();
    std::vector<torch::Tensor> r{out, x.grad()};
    for (auto& p : lstm->named_parameters()) r.push_back(p.value().grad());
    return r;
  });
}
BENCHMARK(BM_LSTM_h256_fwd_bwd);

}  // namespace

BENCHMARK_MAIN();
