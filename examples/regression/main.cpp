// Polynomial regression: a Linear(4, 1) layer learns y = w1 x + w2 x^2 + w3 x^3 + w4 x^4 + b from
// random samples of a randomly drawn target polynomial, with plain SGD. Written against libtorch's
// C++ API only: the same file builds against libtorch.
//
//   regression [--epochs N] [--batches-per-epoch N] [--lr X] [--seed N] [--help]
//
// One "epoch" is a fixed number of random batches; training stops early once the batch loss is
// below 1e-5. Exit status 0 when it converged (or ran all epochs of a short smoke run).
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int64_t kDegree = 4;
// Training stops once a batch's smooth-L1 loss is below this (|error| about 0.004).
constexpr double kTolerance = 1e-5;

// [x, x^2, x^3, x^4] for a column of samples x (shape [batch, 1]).
torch::Tensor powers(const torch::Tensor& x) {
  std::vector<torch::Tensor> cols;
  for (int64_t k = 1; k <= kDegree; ++k) cols.push_back(x.pow(k));
  return torch::cat(cols, 1);
}

std::string describe(const torch::Tensor& w, const torch::Tensor& b) {
  auto wa = w.reshape({-1}).to(torch::kDouble).contiguous();
  std::string s = "y = ";
  char buf[64];
  for (int64_t k = 0; k < kDegree; ++k) {
    std::snprintf(buf, sizeof buf, "%+.3f x^%lld ", wa[k].item<double>(), static_cast<long long>(k + 1));
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "%+.3f", b.reshape({-1})[0].item<double>());
  return s + buf;
}

struct Args {
  int epochs = 300;
  int batches = 100;
  double lr = 0.1;
  uint64_t seed = 1;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    auto want = [&](const char* name) {
      if (std::strcmp(argv[i], name) != 0) return false;
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", name); std::exit(2); }
      return true;
    };
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: regression [--epochs N (300)] [--batches-per-epoch N (100)] [--lr X (0.1)] [--seed N (1)]\n");
      std::exit(0);
    } else if (want("--epochs")) a.epochs = std::atoi(argv[++i]);
    else if (want("--batches-per-epoch")) a.batches = std::atoi(argv[++i]);
    else if (want("--lr")) a.lr = std::atof(argv[++i]);
    else if (want("--seed")) a.seed = std::strtoull(argv[++i], nullptr, 10);
    else { std::fprintf(stderr, "unknown flag %s (see --help)\n", argv[i]); std::exit(2); }
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  torch::manual_seed(args.seed);
  // The target: coefficients drawn from N(0, 4); samples x uniform in [-1, 1].
  const auto w_target = torch::randn({kDegree, 1}) * 2;
  const auto b_target = torch::randn({1}) * 2;
  auto sample = [&](int64_t batch) {
    auto x = torch::rand({batch, 1}) * 2 - 1;
    auto features = powers(x);
    return std::make_pair(features, features.mm(w_target) + b_target);
  };

  torch::nn::Linear fc(kDegree, 1);
  torch::optim::SGD opt(fc->parameters(), torch::optim::SGDOptions(args.lr));
  double loss_value = 0;
  int64_t steps = 0;
  bool converged = false;
  for (int epoch = 1; epoch <= args.epochs && !converged; ++epoch) {
    double total = 0;
    int done = 0;
    for (; done < args.batches; ++done) {
      auto [x, y] = sample(32);
      opt.zero_grad();
      auto loss = torch::smooth_l1_loss(fc(x), y);
      loss.backward();
      opt.step();
      loss_value = loss.item<double>();
      total += loss_value;
      ++steps;
      if (loss_value < kTolerance) { converged = true; ++done; break; }
    }
    std::printf("epoch %d  mean loss %.6f  last loss %.6f\n", epoch, total / done, loss_value);
  }
  std::printf("%s after %lld batches (loss %.6f)\n", converged ? "converged" : "stopped",
              static_cast<long long>(steps), loss_value);
  std::printf("learned: %s\n", describe(fc->weight, fc->bias).c_str());
  std::printf("target:  %s\n", describe(w_target, b_target).c_str());
  // A full run that never reached the tolerance is a failure; a short smoke run may stop early.
  return converged || args.epochs < 300 ? 0 : 1;
}
