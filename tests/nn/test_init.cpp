// torch::nn::init: gains recorded from libtorch 2.15, fan rules, and sample statistics against the
// distributions' closed-form moments.
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cmath>

namespace init = torch::nn::init;

TEST_CASE("nn::init::calculate_gain matches libtorch", "[nn][init]") {
  CHECK(init::calculate_gain(torch::kTanh) == Approx(1.6666666666666667).epsilon(1e-15));
  CHECK(init::calculate_gain(torch::kReLU) == Approx(1.4142135623730951).epsilon(1e-15));
  CHECK(init::calculate_gain(torch::kLeakyReLU) == Approx(1.4141428569978354).epsilon(1e-15));
  CHECK(init::calculate_gain(torch::kLeakyReLU, 0.2) == Approx(1.3867504905630728).epsilon(1e-15));
  CHECK(init::calculate_gain(torch::kSigmoid) == 1.0);
  CHECK(init::calculate_gain(torch::kLinear) == 1.0);
  CHECK(init::calculate_gain(torch::kConv2D) == 1.0);
}

TEST_CASE("nn::init fan in/out count the receptive field", "[nn][init]") {
  auto [fi, fo] = init::_calculate_fan_in_and_fan_out(torch::empty({8, 4, 3, 3}));
  CHECK(fi == 36);
  CHECK(fo == 72);
  auto [fi2, fo2] = init::_calculate_fan_in_and_fan_out(torch::empty({5, 7}));
  CHECK(fi2 == 7);
  CHECK(fo2 == 5);
  CHECK_THROWS_AS(init::_calculate_fan_in_and_fan_out(torch::empty({5})), c10::Error);
  CHECK_THROWS_AS(init::kaiming_uniform_(torch::empty({5})), c10::Error);
}

TEST_CASE("nn::init kaiming and xavier have the documented spread", "[nn][init]") {
  torch::manual_seed(2);
  auto big = torch::empty({1000, 1000});
  init::kaiming_normal_(big, 0, torch::kFanIn, torch::kReLU);
  CHECK(big.std().item<double>() == Approx(std::sqrt(2.0 / 1000)).epsilon(0.05));
  CHECK(std::abs(big.mean().item<double>()) < 1e-3);

  auto wide = torch::empty({500, 1000});
  init::kaiming_normal_(wide, 0, torch::kFanOut, torch::kReLU);
  CHECK(wide.std().item<double>() == Approx(std::sqrt(2.0 / 500)).epsilon(0.05));

  // Default: leaky_relu with a = 0 (gain sqrt(2)), fan_in; uniform bound sqrt(3) * std.
  auto u = torch::empty({400, 250});
  init::kaiming_uniform_(u);
  const double bound = std::sqrt(3.0) * std::sqrt(2.0) / std::sqrt(250.0);
  CHECK(u.abs().max().item<double>() <= bound * (1 + 1e-6));
  CHECK(u.abs().max().item<double>() > 0.99 * bound);
  CHECK(u.std().item<double>() == Approx(bound / std::sqrt(3.0)).epsilon(0.02));

  auto xu = torch::empty({200, 300});
  init::xavier_uniform_(xu, 2.0);
  const double xb = 2.0 * std::sqrt(6.0 / 500);
  CHECK(xu.abs().max().item<double>() <= xb * (1 + 1e-6));
  CHECK(xu.abs().max().item<double>() > 0.99 * xb);
  auto xn = torch::empty({200, 300});
  init::xavier_normal_(xn);
  CHECK(xn.std().item<double>() == Approx(std::sqrt(2.0 / 500)).epsilon(0.03));
  // tanh gain on a conv-shaped weight: fan_in = 16 * 9.
  auto conv = torch::empty({64, 16, 3, 3});
  init::kaiming_normal_(conv, 0, torch::kFanIn, torch::kTanh);
  CHECK(conv.std().item<double>() == Approx((5.0 / 3.0) / std::sqrt(144.0)).epsilon(0.05));
}

TEST_CASE("nn::init fill functions, on leaves that require grad", "[nn][init]") {
  torch::manual_seed(4);
  auto p = torch::empty({3, 4}).requires_grad_();
  init::constant_(p, 2.5);
  CHECK(p.eq(2.5).all().item<bool>());
  CHECK(p.is_leaf());
  CHECK(p.requires_grad());
  init::zeros_(p);
  CHECK(p.abs().sum().item<double>() == 0.0);
  init::ones_(p);
  CHECK(p.sum().item<double>() == 12.0);
  init::eye_(p);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(p[i][j].item<double>() == (i == j ? 1.0 : 0.0));
  CHECK_THROWS_AS(init::eye_(torch::empty({2, 2, 2})), c10::Error);
  auto u = torch::empty({100000});
  init::uniform_(u, -2, 3);
  CHECK(u.min().item<double>() >= -2);
  CHECK(u.max().item<double>() <= 3);
  CHECK(u.mean().item<double>() == Approx(0.5).margin(0.02));
  init::normal_(u, 1.5, 0.5);
  CHECK(u.mean().item<double>() == Approx(1.5).margin(0.01));
  CHECK(u.std().item<double>() == Approx(0.5).epsilon(0.02));
  CHECK(p.grad_fn() == nullptr);
}
