// dropout / feature_dropout (and in place): the keep rate and the 1 / (1 - p) scaling measured on
// large inputs, whole channels for feature dropout, the gradient through the same mask, eval mode
// and p = 0 returning the input, p = 1 zeroing it, and the errors.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include <cmath>

TEST_CASE("dropout keeps 1 - p of the elements, scaled by 1 / (1 - p)", "[dropout]") {
  torch::manual_seed(7);
  const int64_t n = 200000;
  auto x = torch::ones({n}, torch::kDouble);
  for (double p : {0.1, 0.5, 0.8}) {
    auto y = at::dropout(x, p, true);
    auto kept = y.ne(0);
    const double rate = kept.to(torch::kDouble).mean().item<double>();
    // Binomial: standard deviation sqrt(p (1 - p) / n) < 0.0012; 5 sigma.
    CHECK(std::abs(rate - (1 - p)) < 0.006);
    // Every kept value is exactly 1 / (1 - p).
    CHECK(torch::equal(y.masked_select(kept), torch::full({kept.sum().item<int64_t>()}, 1 / (1 - p), torch::kDouble)));
  }
  // Not training, or p = 0: the input itself.
  auto same = at::dropout(x, 0.5, false);
  CHECK(same.data_ptr() == x.data_ptr());
  CHECK(at::dropout(x, 0.0, true).data_ptr() == x.data_ptr());
  // p = 1: all zero.
  CHECK(torch::equal(at::dropout(x, 1.0, true), torch::zeros_like(x)));
  // In place on a float32 tensor.
  auto z = torch::full({1000}, 2.0f);
  auto& r = at::dropout_(z, 0.5, true);
  CHECK(r.data_ptr() == z.data_ptr());
  auto nz = z.masked_select(z.ne(0));
  CHECK(torch::equal(nz, torch::full({nz.numel()}, 4.0f)));
}

TEST_CASE("dropout's gradient goes through the same mask", "[dropout][autograd]") {
  torch::manual_seed(8);
  auto x = torch::randn({64, 32}, torch::kDouble).requires_grad_();
  auto y = at::dropout(x, 0.3, true);
  y.sum().backward();
  // d(sum y)/dx = mask / (1 - p): nonzero exactly where y kept x, with value 1 / 0.7.
  auto kept = y.detach().ne(0);
  CHECK(torch::equal(x.grad().ne(0), kept));
  CHECK(torch::allclose(x.grad().masked_select(kept), torch::full({kept.sum().item<int64_t>()}, 1 / 0.7, torch::kDouble)));
}

TEST_CASE("feature_dropout drops whole channels", "[dropout]") {
  torch::manual_seed(9);
  auto x = torch::ones({16, 64, 5, 5});
  auto y = at::feature_dropout(x, 0.5, true);
  // Within a (sample, channel) plane all values agree: all 0 or all 2.
  auto mn = y.amin({2, 3}), mx = y.amax({2, 3});
  CHECK(torch::equal(mn, mx));
  CHECK(torch::equal(mn.eq(0).logical_or(mn.eq(2)), torch::ones({16, 64}, torch::kBool)));
  const double rate = mn.ne(0).to(torch::kDouble).mean().item<double>();
  CHECK(std::abs(rate - 0.5) < 5 * std::sqrt(0.25 / 1024));
  // The module and functional forms: (C, H, W) input treated as one sample; eval mode is identity.
  torch::nn::Dropout2d drop(torch::nn::Dropout2dOptions(0.5));
  auto u = drop(torch::ones({8, 3, 3}));
  CHECK(u.sizes() == std::vector<int64_t>{8, 3, 3});
  CHECK(torch::equal(u.amin({1, 2}), u.amax({1, 2})));
  drop->eval();
  auto v = torch::ones({2, 8, 3, 3});
  CHECK(torch::equal(drop(v), v));
}

TEST_CASE("dropout errors name the op", "[dropout][errors]") {
  auto x = torch::ones({4, 4});
  CHECK_THROWS_WITH(at::dropout(x, 1.5, true), Catch::StartsWith("[dropout] expected a probability p in [0, 1]; got 1.5"));
  CHECK_THROWS_WITH(at::dropout(torch::ones({3}, torch::kLong), 0.5, true),
                    Catch::StartsWith("[dropout] expected a floating point input"));
  CHECK_THROWS_WITH(at::feature_dropout(torch::ones({3}), 0.5, true),
                    Catch::StartsWith("[feature_dropout] expected an input of at least 2 dims"));
  CHECK_THROWS_WITH(torch::nn::Dropout2d(torch::nn::Dropout2dOptions(-0.1)), Catch::StartsWith("[Dropout2d] expected a probability"));
}
