// Tensor hooks, retain_grad, backward(inputs=), grad(allow_unused), grad mode, anomaly mode, and
// concurrent backward calls (Note [Thread-safe backward]).
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <atomic>
#include <thread>

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

namespace {

bool close_to(const torch::Tensor& a, const torch::Tensor& b, double tol = 1e-6) {
  return a.defined() && b.defined() && a.sizes() == b.sizes() && (a - b).abs().max().item<double>() <= tol;
}

// Backward returns NaN: anomaly mode must name this function.
struct NanGrad : torch::autograd::Function<NanGrad> {
  static torch::Tensor forward(AutogradContext*, torch::Tensor x) { return x * 2.0; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * std::nan("")}; }
};

// tanh(x) * w with a custom backward (used from several threads).
struct TanhMul : torch::autograd::Function<TanhMul> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, torch::Tensor w) {
    auto t = x.tanh();
    ctx->save_for_backward({t, w});
    return t * w;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    auto s = ctx->get_saved_variables();
    const auto& t = s[0];
    const auto& w = s[1];
    return {g[0] * w * (1.0 - t * t), g[0] * t};
  }
};

}  // namespace

TEST_CASE("hooks: a leaf hook sees and can replace the gradient", "[autograd]") {
  auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  torch::Tensor seen;
  x.register_hook([&](torch::Tensor g) { seen = g.clone(); });    // observes
  x.register_hook([](torch::Tensor g) { return g * 2.0; });        // replaces
  (x * 3.0).sum().backward();
  CHECK(close_to(seen, torch::full({2}, 3.0)));
  CHECK(close_to(x.grad(), torch::full({2}, 6.0)));
}

TEST_CASE("hooks: a hook on an intermediate changes what flows on", "[autograd]") {
  auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto a = x * 2.0;
  torch::Tensor seen;
  a.register_hook([&](torch::Tensor g) {
    seen = g.clone();
    return g * 10.0;
  });
  (a * 3.0).sum().backward();
  CHECK(close_to(seen, torch::full({2}, 3.0)));
  CHECK(close_to(x.grad(), torch::full({2}, 60.0)));  // 3 * 10 * 2
}

TEST_CASE("hooks: tensor hooks also apply to autograd::grad", "[autograd]") {
  auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  x.register_hook([](torch::Tensor g) { return g * 2.0; });
  auto a = x * 3.0;
  a.register_hook([](torch::Tensor g) { return g + 1.0; });
  auto y = (a * a).sum();
  auto gs = torch::autograd::grad({y}, {x, a}, {}, /*retain_graph=*/true);
  // dy/da = 2a = 6x, +1 from a's hook; dy/dx = (6x + 1) * 3, *2 from x's hook.
  CHECK(close_to(gs[1], x.detach() * 6.0 + 1.0));
  CHECK(close_to(gs[0], (x.detach() * 6.0 + 1.0) * 6.0));
  CHECK(!x.grad().defined());
}

TEST_CASE("retain_grad keeps an intermediate's gradient, after its hooks", "[autograd]") {
  auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto a = x * 2.0;
  a.retain_grad();
  CHECK(a.retains_grad());
  a.register_hook([](torch::Tensor g) { return g * 10.0; });  // registered after retain_grad, still applies first
  auto y = (a * a).sum();
  y.backward({}, /*retain_graph=*/true);
  REQUIRE(a.grad().defined());
  CHECK(close_to(a.grad(), a.detach() * 20.0));
  CHECK(close_to(x.grad(), a.detach() * 40.0));
  y.backward();  // accumulates, like a leaf's .grad
  CHECK(close_to(a.grad(), a.detach() * 40.0));
  auto b = x * 1.0;
  CHECK(!b.retains_grad());
}

TEST_CASE("backward(inputs=...) accumulates only into the given inputs", "[autograd]") {
  auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto w = torch::tensor({3.0, 4.0}, torch::requires_grad());
  auto y = (x * w).sum();
  y.backward({}, /*retain_graph=*/true, false, torch::TensorList({x}));
  CHECK(close_to(x.grad(), w.detach()));
  CHECK(!w.grad().defined());
  torch::autograd::backward({y}, {}, std::nullopt, false, {w});
  CHECK(close_to(w.grad(), x.detach()));
  CHECK(close_to(x.grad(), w.detach()));  // unchanged

  // The accumulated gradient never aliases a caller's tensor: later accumulation must not write into it.
  auto seed = torch::ones({2});
  auto z = x + w;  // its backward passes the seed through unchanged
  auto x2 = torch::zeros({2}, torch::requires_grad());
  auto z2 = x2 + w;
  z2.backward(seed, std::nullopt, false, torch::TensorList({x2}));
  (x2 * 5.0).sum().backward();
  CHECK(close_to(x2.grad(), torch::full({2}, 6.0)));
  CHECK(close_to(seed, torch::ones({2})));
  (void)z;
}

TEST_CASE("a leaf's .grad never aliases the gradient the caller passed in", "[autograd]") {
  auto x = torch::zeros({2, 3}, torch::requires_grad());
  auto seed = torch::ones({6});
  x.view({6}).backward(seed);  // view's backward reshapes the seed: same storage, new tensor
  (x * 2.0).sum().backward();
  CHECK(close_to(x.grad(), torch::full({2, 3}, 3.0)));
  CHECK(close_to(seed, torch::ones({6})));
}

TEST_CASE("autograd::grad with and without allow_unused", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad());
  auto z = torch::ones({2}, torch::requires_grad());
  auto y = (x * 2.0).sum();
  CHECK_THROWS_WITH(torch::autograd::grad({y}, {x, z}, {}, /*retain_graph=*/true),
                    Catch::StartsWith("[autograd] expected every input to be reachable from the outputs"));
  auto gs = torch::autograd::grad({y}, {x, z}, {}, std::nullopt, false, /*allow_unused=*/true);
  REQUIRE(gs.size() == 2);
  CHECK(close_to(gs[0], torch::full({2}, 2.0)));
  CHECK(!gs[1].defined());
  CHECK(!x.grad().defined());
}

TEST_CASE("grad mode guards nest and are per thread", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad());
  CHECK(torch::GradMode::is_enabled());
  {
    torch::NoGradGuard no_grad;
    CHECK(!torch::GradMode::is_enabled());
    CHECK(!(x * 2.0).requires_grad());
    {
      torch::AutoGradMode enable(true);
      CHECK((x * 2.0).requires_grad());
    }
    CHECK(!(x * 2.0).requires_grad());
    bool other_thread = false;
    std::thread t([&] { other_thread = torch::GradMode::is_enabled(); });
    t.join();
    CHECK(other_thread);  // thread-local
  }
  CHECK(torch::GradMode::is_enabled());
  CHECK((x * 2.0).requires_grad());
}

TEST_CASE("anomaly mode names the function whose backward returned NaN", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad());
  NanGrad::apply(x).sum().backward();  // off: no check
  CHECK(std::isnan(x.grad()[0].item<double>()));
  CHECK(!torch::autograd::AnomalyMode::is_enabled());
  {
    torch::autograd::DetectAnomalyGuard guard;
    CHECK(torch::autograd::AnomalyMode::is_enabled());
    auto y = NanGrad::apply(x).sum();
    CHECK_THROWS_WITH(y.backward(), Catch::StartsWith("[autograd] expected NaN-free gradients from '") &&
                                        Catch::Contains("NanGrad") && Catch::Contains("got NaN in output 0"));
    // Built-in ops are named with their forward op.
    auto z = (x * std::nan("")).log().sum();
    CHECK_THROWS_WITH(z.backward(), Catch::Contains("LogBackward0") && Catch::Contains("log"));
  }
  CHECK(!torch::autograd::AnomalyMode::is_enabled());
}

TEST_CASE("independent graphs backpropagate concurrently from 4 threads", "[autograd]") {
  constexpr int kThreads = 4, kIters = 200;
  std::vector<torch::Tensor> xs, ws, expect_x, expect_w;
  auto run = [](const torch::Tensor& x0, const torch::Tensor& w0) {
    auto x = x0.clone().requires_grad_();
    auto w = w0.clone().requires_grad_();
    auto h = TanhMul::apply(x.mm(w), w.transpose(0, 1).mm(w).sigmoid().sum(0));  // [4,4] * [4]
    auto loss = (h.relu() + h.exp() * 0.1).sum() / 3.0;
    loss.backward();
    return std::make_pair(x.grad(), w.grad());
  };
  for (int t = 0; t < kThreads; ++t) {
    xs.push_back(torch::randn({4, 3}));
    ws.push_back(torch::randn({3, 4}));
    auto [gx, gw] = run(xs[t], ws[t]);
    expect_x.push_back(gx);
    expect_w.push_back(gw);
  }
  std::atomic<int> mismatches{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < kIters; ++i) {
          auto [gx, gw] = run(xs[t], ws[t]);
          if (!close_to(gx, expect_x[t], 1e-6) || !close_to(gw, expect_w[t], 1e-6)) mismatches++;
        }
      } catch (const std::exception&) {
        errors++;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(errors == 0);
  CHECK(mismatches == 0);
}

TEST_CASE("two threads accumulate exactly into a shared leaf", "[autograd]") {
  constexpr int kIters = 200;
  auto w = torch::zeros({3, 5}, torch::requires_grad());
  auto c1 = torch::full({3, 5}, 1.0), c2 = torch::full({3, 5}, 2.0);
  std::atomic<int> errors{0};
  auto worker = [&](torch::Tensor c) {
    try {
      for (int i = 0; i < kIters; ++i) ((w + 1.0) * c).sum().backward();
    } catch (const std::exception&) {
      errors++;
    }
  };
  std::thread t1(worker, c1), t2(worker, c2);
  t1.join();
  t2.join();
  CHECK(errors == 0);
  REQUIRE(w.grad().defined());
  // Integers below 2^24 are exact in float: any lost or doubled update shows.
  CHECK(w.grad().eq(torch::full({3, 5}, 3.0 * kIters)).all().item<bool>());
}
