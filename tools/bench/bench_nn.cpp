// Layer and training-step benchmarks for the CNN path (conv2d, max_pool2d, whole MNIST training steps) and an LSTM layer,
// written once against the libtorch API and compiled twice by tools/bench/run: against Ember and against
// libtorch. Inputs come from torch::randn after a fixed seed; values do not matter for the timing.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

namespace {

namespace F = torch::nn::functional;

// ---------------------------------------------------------------- conv2d

// conv2d of an (n, cin, hw, hw) input with a (cout, cin, 3, 3) kernel, padding 1 (the output keeps hw x hw).
struct ConvShape {
  int64_t n, cin, cout, hw;
};

void conv_fwd(benchmark::State& st, ConvShape s) {
  torch::manual_seed(0);
  torch::NoGradGuard no_grad;
  auto x = torch::randn({s.n, s.cin, s.hw, s.hw});
  auto w = torch::randn({s.cout, s.cin, 3, 3}) * 0.1;
  auto b = torch::randn({s.cout});
  for (auto _ : st) benchmark::DoNotOptimize(torch::conv2d(x, w, b, {1, 1}, {1, 1}));
}

// Forward and backward: gradients for the input, the weight and the bias (as inside a network).
void conv_fwd_bwd(benchmark::State& st, ConvShape s) {
  torch::manual_seed(0);
  auto x = torch::randn({s.n, s.cin, s.hw, s.hw}).requires_grad_(true);
  auto w = (torch::randn({s.cout, s.cin, 3, 3}) * 0.1).requires_grad_(true);
  auto b = torch::randn({s.cout}).requires_grad_(true);
  auto g = torch::randn({s.n, s.cout, s.hw, s.hw});
  for (auto _ : st) {
    auto y = torch::conv2d(x, w, b, {1, 1}, {1, 1});
    y.backward(g);
  }
  benchmark::DoNotOptimize(w.grad());
}

const ConvShape kMnistConv1{64, 1, 32, 28};   // the MNIST CNN's first layer, batch 64
const ConvShape kMnistConv2{64, 32, 64, 14};  // its second layer
const ConvShape kResnetConv{4, 64, 64, 56};   // a ResNet basic block's 3x3 conv (stage 1), batch 4

void BM_conv2d_mnist1_fwd(benchmark::State& st) { conv_fwd(st, kMnistConv1); }
void BM_conv2d_mnist1_fwd_bwd(benchmark::State& st) { conv_fwd_bwd(st, kMnistConv1); }
void BM_conv2d_mnist2_fwd(benchmark::State& st) { conv_fwd(st, kMnistConv2); }
void BM_conv2d_mnist2_fwd_bwd(benchmark::State& st) { conv_fwd_bwd(st, kMnistConv2); }
void BM_conv2d_resnet_fwd(benchmark::State& st) { conv_fwd(st, kResnetConv); }
void BM_conv2d_resnet_fwd_bwd(benchmark::State& st) { conv_fwd_bwd(st, kResnetConv); }
BENCHMARK(BM_conv2d_mnist1_fwd);
BENCHMARK(BM_conv2d_mnist1_fwd_bwd);
BENCHMARK(BM_conv2d_mnist2_fwd);
BENCHMARK(BM_conv2d_mnist2_fwd_bwd);
BENCHMARK(BM_conv2d_resnet_fwd);
BENCHMARK(BM_conv2d_resnet_fwd_bwd);

// ---------------------------------------------------------------- conv_transpose2d

// A DCGAN generator's upsampling layer: batch 64, 128 -> 64 channels, 7x7 -> 14x14, kernel 4,
// stride 2, padding 1, no bias (a batch norm follows); forward and backward.
void BM_conv_transpose2d_dcgan_fwd_bwd(benchmark::State& st) {
  torch::manual_seed(0);
  auto x = torch::randn({64, 128, 7, 7}).requires_grad_(true);
  auto w = (torch::randn({128, 64, 4, 4}) * 0.05).requires_grad_(true);
  auto g = torch::randn({64, 64, 14, 14});
  for (auto _ : st) {
    auto y = torch::conv_transpose2d(x, w, {}, {2, 2}, {1, 1});
    y.backward(g);
  }
  benchmark::DoNotOptimize(w.grad());
}
BENCHMARK(BM_conv_transpose2d_dcgan_fwd_bwd);

// ---------------------------------------------------------------- max_pool2d

void BM_max_pool2d_fwd(benchmark::State& st) {
  torch::manual_seed(0);
  torch::NoGradGuard no_grad;
  auto x = torch::randn({64, 32, 28, 28});
  for (auto _ : st) benchmark::DoNotOptimize(torch::max_pool2d(x, {2, 2}));
  st.SetBytesProcessed(st.iterations() * x.numel() * 4 * 5 / 4);  // read x, write a quarter
}
BENCHMARK(BM_max_pool2d_fwd);

void BM_max_pool2d_fwd_bwd(benchmark::State& st) {
  torch::manual_seed(0);
  auto x = torch::randn({64, 32, 28, 28}).requires_grad_(true);
  auto g = torch::randn({64, 32, 14, 14});
  for (auto _ : st) {
    auto y = torch::max_pool2d(x, {2, 2});
    y.backward(g);
  }
  benchmark::DoNotOptimize(x.grad());
}
BENCHMARK(BM_max_pool2d_fwd_bwd);

// ---------------------------------------------------------------- whole training steps

// Fixed stand-in for an MNIST batch: 64 images of 1x28x28 and their labels.
struct Batch {
  torch::Tensor images, labels;
};

Batch mnist_batch() {
  torch::manual_seed(0);
  return {torch::randn({64, 1, 28, 28}), torch::randint(0, 10, {64})};
}

// The MNIST CNN of examples/: two 3x3 convolutions (32 and 64 channels) with ReLU and 2x2 pooling, then
// Linear(3136, 128) - ReLU - Linear(128, 10); cross_entropy; plain SGD.
void BM_cnn_mnist_train_step(benchmark::State& st) {
  torch::manual_seed(0);
  torch::nn::Sequential net(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3).padding(1)), torch::nn::ReLU(),
      torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3).padding(1)), torch::nn::ReLU(),
      torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)), torch::nn::Flatten(), torch::nn::Linear(3136, 128),
      torch::nn::ReLU(), torch::nn::Linear(128, 10));
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01));
  Batch batch = mnist_batch();
  for (auto _ : st) {
    opt.zero_grad();
    auto loss = F::cross_entropy(net->forward(batch.images), batch.labels);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss);
  }
}
BENCHMARK(BM_cnn_mnist_train_step);

// The network of the classic libtorch MNIST example: conv 1->10 k5, max-pool 2, ReLU, conv 10->20 k5,
// channel dropout, max-pool 2, ReLU, Linear(320, 50), ReLU, dropout, Linear(50, 10), log_softmax;
// nll_loss; SGD with lr 0.01 and momentum 0.5.
struct ClassicNet : torch::nn::Module {
  ClassicNet()
      : conv1(torch::nn::Conv2dOptions(1, 10, 5)),
        conv2(torch::nn::Conv2dOptions(10, 20, 5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, 0.5, is_training());
    x = fc2->forward(x);
    return torch::log_softmax(x, 1);
  }

  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

void BM_classic_mnist_train_step(benchmark::State& st) {
  torch::manual_seed(0);
  ClassicNet net;
  net.train();
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));
  Batch batch = mnist_batch();
  for (auto _ : st) {
    opt.zero_grad();
    auto loss = F::nll_loss(net.forward(batch.images), batch.labels);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss);
  }
}
BENCHMARK(BM_classic_mnist_train_step);

// ---------------------------------------------------------------- not yet measured

// ---------------------------------------------------------------- batch_norm (when the library has it)

// Ember's normalisation layers live in torch/nn/normalization.h; libtorch's in torch/nn/modules/batchnorm.h.
#if __has_include(<torch/nn/normalization.h>) || __has_include(<torch/nn/modules/batchnorm.h>)
// BatchNorm2d(64) in training mode at the ResNet conv's shape (4, 64, 56, 56).
void BM_batch_norm2d_resnet_fwd(benchmark::State& st) {
  torch::manual_seed(0);
  torch::NoGradGuard no_grad;
  torch::nn::BatchNorm2d bn(64);
  auto x = torch::randn({4, 64, 56, 56});
  for (auto _ : st) benchmark::DoNotOptimize(bn->forward(x));
}
BENCHMARK(BM_batch_norm2d_resnet_fwd);

void BM_batch_norm2d_resnet_fwd_bwd(benchmark::State& st) {
  torch::manual_seed(0);
  torch::nn::BatchNorm2d bn(64);
  auto x = torch::randn({4, 64, 56, 56}).requires_grad_(true);
  auto g = torch::randn({4, 64, 56, 56});
  for (auto _ : st) {
    auto y = bn->forward(x);
    y.backward(g);
  }
  benchmark::DoNotOptimize(x.grad());
}
BENCHMARK(BM_batch_norm2d_resnet_fwd_bwd);
#endif

// ---------------------------------------------------------------- LSTM

// One LSTM layer (input 200, hidden 200) over 35 steps of a batch of 20, the shape of the small
// word-level language model: forward, then backward to the input, the initial states and the weights.
void BM_LSTM_layer_fwd_bwd(benchmark::State& st) {
  torch::manual_seed(0);
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(200, 200));
  auto x = torch::randn({35, 20, 200}).requires_grad_(true);
  auto h0 = torch::zeros({1, 20, 200}).requires_grad_(true);
  auto c0 = torch::zeros({1, 20, 200}).requires_grad_(true);
  auto g = torch::randn({35, 20, 200});
  for (auto _ : st) {
    auto out = std::get<0>(lstm->forward(x, std::make_tuple(h0, c0)));
    out.backward(g);
  }
  benchmark::DoNotOptimize(x.grad());
}
BENCHMARK(BM_LSTM_layer_fwd_bwd);

// The same layer, forward only (inference).
void BM_LSTM_layer_fwd(benchmark::State& st) {
  torch::manual_seed(0);
  torch::NoGradGuard no_grad;
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(200, 200));
  auto x = torch::randn({35, 20, 200});
  for (auto _ : st) benchmark::DoNotOptimize(std::get<0>(lstm->forward(x)));
}
BENCHMARK(BM_LSTM_layer_fwd);

}  // namespace

BENCHMARK_MAIN();
