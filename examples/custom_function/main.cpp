// Custom autograd Functions: a linear layer and a multiply-by-constant written as
// torch::autograd::Function subclasses with their own backward, checked against finite
// differences and against the same computation built from ordinary ops, then used to train a
// small linear regression. Written against libtorch's C++ API only: the same file builds against
// libtorch.
//
//   custom_function [--epochs N] [--seed N] [--help]
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// y = x W^T + b, saving its inputs for the backward pass.
struct LinearFunction : public torch::autograd::Function<LinearFunction> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    ctx->save_for_backward({x, weight, bias});
    return x.mm(weight.t()) + bias;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const auto& weight = saved[1];
    const auto& g = grads[0];
    // dL/dx = g W, dL/dW = g^T x, dL/db = sum of g over the batch.
    return {g.mm(weight), g.t().mm(x), g.sum(0)};
  }
};

// y = x * c for a constant c kept in saved_data (no gradient for c).
struct MulConstant : public torch::autograd::Function<MulConstant> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, double c) {
    ctx->saved_data["c"] = c;
    return x * c;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->saved_data["c"].toDouble(), torch::Tensor()};
  }
};

namespace {

// Largest |analytic - central difference| over every element of `wrt`, for the scalar
// loss(x, w, b) = sum(MulConstant(LinearFunction(x, w, b), c)^2), in float64.
double finite_difference_error(torch::Tensor x, torch::Tensor w, torch::Tensor b, double c, int wrt) {
  std::vector<torch::Tensor> args = {x, w, b};
  for (auto& t : args) t = t.detach().clone().set_requires_grad(true);
  auto loss_of = [&](const std::vector<torch::Tensor>& a) {
    return MulConstant::apply(LinearFunction::apply(a[0], a[1], a[2]), c).pow(2).sum();
  };
  loss_of(args).backward();
  auto analytic = args[wrt].grad().reshape({-1});
  double worst = 0;
  const double h = 1e-6;
  for (int64_t i = 0; i < analytic.numel(); ++i) {
    torch::NoGradGuard no_grad;
    auto flat = args[wrt].view({-1});
    const double old = flat[i].item<double>();
    flat[i].fill_(old + h);
    const double up = loss_of(args).item<double>();
    flat[i].fill_(old - h);
    const double down = loss_of(args).item<double>();
    flat[i].fill_(old);
    worst = std::max(worst, std::abs((up - down) / (2 * h) - analytic[i].item<double>()));
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 20;
  uint64_t seed = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: custom_function [--epochs N (20)] [--seed N (0)]\n");
      return 0;
    } else if (!std::strcmp(argv[i], "--epochs") && i + 1 < argc) {
      epochs = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "unknown or incomplete flag %s (see --help)\n", argv[i]);
      return 2;
    }
  }
  torch::manual_seed(seed);

  // 1. The hand-written backward agrees with finite differences (float64).
  auto opts = torch::TensorOptions().dtype(torch::kDouble);
  auto x = torch::randn({5, 3}, opts), w = torch::randn({4, 3}, opts), b = torch::randn({4}, opts);
  const char* names[] = {"input", "weight", "bias"};
  for (int k = 0; k < 3; ++k) {
    const double err = finite_difference_error(x, w, b, 1.5, k);
    std::printf("finite differences, d/d%s: max error %.2e\n", names[k], err);
    if (!(err < 1e-5)) {
      std::printf("gradient check FAILED\n");
      return 1;
    }
  }

  // 2. ... and the gradients built-in ops give.
  {
    auto x1 = x.clone().set_requires_grad(true), w1 = w.clone().set_requires_grad(true);
    auto x2 = x.clone().set_requires_grad(true), w2 = w.clone().set_requires_grad(true);
    MulConstant::apply(LinearFunction::apply(x1, w1, b), -2.0).sum().backward();
    (torch::nn::functional::linear(x2, w2, b) * -2.0).sum().backward();
    if (!torch::allclose(x1.grad(), x2.grad()) || !torch::allclose(w1.grad(), w2.grad())) {
      std::printf("custom and built-in gradients differ\n");
      return 1;
    }
    std::printf("custom and built-in gradients agree\n");
  }

  // 3. Train y = x A^T + a with the custom functions as the model.
  auto a_true = torch::randn({2, 3});
  auto bias_true = torch::randn({2});
  auto weight = torch::zeros({2, 3}).set_requires_grad(true);
  auto bias = torch::zeros({2}).set_requires_grad(true);
  torch::optim::SGD opt({weight, bias}, torch::optim::SGDOptions(0.1).momentum(0.9));
  double loss_value = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    double total = 0;
    for (int step = 0; step < 20; ++step) {
      auto xb = torch::randn({16, 3});
      auto yb = xb.mm(a_true.t()) + bias_true;
      opt.zero_grad();
      // MulConstant(…, 1.0) is the identity, here to exercise saved_data in a training graph.
      auto pred = MulConstant::apply(LinearFunction::apply(xb, weight, bias), 1.0);
      auto loss = (pred - yb).pow(2).mean();
      loss.backward();
      opt.step();
      total += loss.item<double>();
    }
    loss_value = total / 20;
    std::printf("epoch %d  mean loss %.6f\n", epoch, loss_value);
  }
  const double err = (weight - a_true).abs().max().item<double>();
  std::printf("max |learned - true| weight: %.2e\n", err);
  return 0;
}
