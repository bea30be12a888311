// BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm and their functional forms:
// forward against float64 loops written here, running-stat updates step by step, eval vs train,
// gradients against autograd through a composition of primitives, printing and facts recorded
// from libtorch 2.x, errors, save/load and clone. The ops' own generated tests (tests/ops_norm.cpp,
// tests/grad_norm.cpp in the build dir) cover golden values and gradcheck.
#include <torch/torch.h>
#include "nn/reference_util.h"
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <vector>

namespace nn = torch::nn;
namespace F = torch::nn::functional;

namespace {
using ember_ref::printed;

// Mean and biased variance of each row of a (rows, n) float64 matrix, by plain loops.
struct RowStats {
  std::vector<double> mean, var;
};
RowStats row_stats(const std::vector<std::vector<double>>& rows) {
  RowStats s;
  for (const auto& r : rows) {
    double m = 0;
    for (double v : r) m += v;
    m /= static_cast<double>(r.size());
    double q = 0;
    for (double v : r) q += (v - m) * (v - m);
    s.mean.push_back(m);
    s.var.push_back(q / static_cast<double>(r.size()));
  }
  return s;
}

// The values of x (N, C, S...) grouped by channel: rows[c] lists every x[n][c][...].
std::vector<std::vector<double>> by_channel(const torch::Tensor& x) {
  auto xd = x.to(torch::kDouble).contiguous();
  const int64_t n = xd.size(0), c = xd.size(1), s = xd.numel() / std::max<int64_t>(n * c, 1);
  const double* p = xd.data_ptr<double>();
  std::vector<std::vector<double>> rows(static_cast<size_t>(c));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t k = 0; k < s; ++k) rows[static_cast<size_t>(j)].push_back(p[(i * c + j) * s + k]);
  return rows;
}

// Batch norm of x (N, C, S...) with per-channel mean/var, weight and bias, by loops; float64 result.
torch::Tensor ref_normalise_channels(const torch::Tensor& x, const std::vector<double>& mean,
                                     const std::vector<double>& var, const std::vector<double>& w,
                                     const std::vector<double>& b, double eps) {
  auto xd = x.to(torch::kDouble).contiguous();
  auto out = torch::empty_like(xd);
  const int64_t n = xd.size(0), c = xd.size(1), s = xd.numel() / std::max<int64_t>(n * c, 1);
  const double* p = xd.data_ptr<double>();
  double* o = out.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t k = 0; k < s; ++k) {
        const auto jj = static_cast<size_t>(j);
        const int64_t at = (i * c + j) * s + k;
        o[at] = (p[at] - mean[jj]) / std::sqrt(var[jj] + eps) * w[jj] + b[jj];
      }
  return out;
}

std::vector<double> to_vec(const torch::Tensor& t) {
  auto d = t.to(torch::kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

bool close_to(const torch::Tensor& a, const torch::Tensor& b, double tol = 1e-5) {
  return torch::allclose(a.to(torch::kDouble), b.to(torch::kDouble), tol, tol);
}

}  // namespace

TEST_CASE("BatchNorm2d in training normalises with batch statistics and updates running stats", "[nn][norm]") {
  torch::manual_seed(1);
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(3).momentum(0.25));
  {
    torch::NoGradGuard g;
    bn->weight.copy_(torch::tensor({1.5, -0.5, 2.0}));
    bn->bias.copy_(torch::tensor({0.1, 0.2, -0.3}));
  }
  std::vector<double> rm{0, 0, 0}, rv{1, 1, 1};
  for (int step = 0; step < 3; ++step) {
    auto x = torch::randn({4, 3, 5, 2}) * (step + 1) + step;
    auto y = bn->forward(x);
    const auto st = row_stats(by_channel(x));
    CHECK(close_to(y, ref_normalise_channels(x, st.mean, st.var, {1.5, -0.5, 2.0}, {0.1, 0.2, -0.3}, 1e-5), 1e-4));
    const double n = 4 * 5 * 2;
    for (size_t c = 0; c < 3; ++c) {
      rm[c] = 0.75 * rm[c] + 0.25 * st.mean[c];
      rv[c] = 0.75 * rv[c] + 0.25 * st.var[c] * n / (n - 1);
    }
    CHECK(close_to(bn->running_mean, torch::tensor(rm), 1e-5));
    CHECK(close_to(bn->running_var, torch::tensor(rv), 1e-5));
    CHECK(bn->num_batches_tracked.item<int64_t>() == step + 1);
    CHECK(bn->num_batches_tracked.scalar_type() == torch::kLong);
  }
}

TEST_CASE("BatchNorm's running variance keeps its digits when the variance is far below eps", "[nn][norm]") {
  // Channel 0 varies by about 1e-4 around 1 (variance ~1e-8, a thousandth of eps), channel 1 is
  // constant (variance exactly 0). The reference is the float64 unbiased variance of the same
  // float32 values.
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(2).momentum(1.0));  // running_var = the batch's variance
  auto x = torch::empty({8, 2});
  for (int64_t i = 0; i < 8; ++i) {
    x[i][0] = 1.0 + 1e-4 * static_cast<double>(i % 3);
    x[i][1] = 0.5;
  }
  bn->forward(x);
  const auto st = row_stats(by_channel(x));
  const double want = st.var[0] * 8.0 / 7.0;
  REQUIRE(want > 1e-9);
  CHECK(std::abs(bn->running_var[0].item<double>() - want) <= 1e-5 * want);
  CHECK(bn->running_var[1].item<double>() == 0.0);
}

TEST_CASE("BatchNorm in eval uses the running stats and leaves them alone", "[nn][norm]") {
  nn::BatchNorm1d bn(2);
  {
    torch::NoGradGuard g;
    bn->running_mean.copy_(torch::tensor({0.5, -1.0}));
    bn->running_var.copy_(torch::tensor({4.0, 0.25}));
    bn->weight.copy_(torch::tensor({2.0, 3.0}));
    bn->bias.copy_(torch::tensor({1.0, 0.0}));
  }
  bn->eval();
  auto x = torch::tensor({{1.0, 2.0}, {3.0, -4.0}, {0.0, 0.5}}).to(torch::kFloat);
  auto y = bn->forward(x);
  auto expect = ref_normalise_channels(x, {0.5, -1.0}, {4.0, 0.25}, {2.0, 3.0}, {1.0, 0.0}, 1e-5);
  CHECK(close_to(y, expect));
  CHECK(close_to(bn->running_mean, torch::tensor({0.5, -1.0})));
  CHECK(close_to(bn->running_var, torch::tensor({4.0, 0.25})));
  CHECK(bn->num_batches_tracked.item<int64_t>() == 0);
  // One sample per channel is fine in eval.
  CHECK(close_to(bn->forward(x.slice(0, 0, 1)), expect.slice(0, 0, 1)));
  // (N, C, L) input: statistics per channel over N and L.
  bn->train();
  auto x3 = torch::randn({3, 2, 4});
  const auto st = row_stats(by_channel(x3));
  CHECK(close_to(bn->forward(x3), ref_normalise_channels(x3, st.mean, st.var, {2.0, 3.0}, {1.0, 0.0}, 1e-5), 1e-4));
}

TEST_CASE("BatchNorm with momentum nullopt keeps a cumulative average (values from libtorch)", "[nn][norm]") {
  nn::BatchNorm1d bn(nn::BatchNormOptions(2).momentum(std::nullopt));
  auto x = torch::arange(8.).reshape({4, 2});
  bn->forward(x);
  bn->forward(x * 2);
  // Recorded from libtorch: running_mean [4.5, 6], running_var [16.6667, 16.6667], 2 batches.
  CHECK(close_to(bn->running_mean, torch::tensor({4.5, 6.0})));
  CHECK(close_to(bn->running_var, torch::tensor({50.0 / 3, 50.0 / 3})));
  CHECK(bn->num_batches_tracked.item<int64_t>() == 2);
  bn->reset_running_stats();
  CHECK(close_to(bn->running_mean, torch::zeros({2})));
  CHECK(close_to(bn->running_var, torch::ones({2})));
  CHECK(bn->num_batches_tracked.item<int64_t>() == 0);
}

TEST_CASE("BatchNorm without affine or running stats", "[nn][norm]") {
  nn::BatchNorm2d bn(nn::BatchNormOptions(4).affine(false).track_running_stats(false));
  CHECK(bn->parameters().empty());
  CHECK(bn->buffers().empty());
  CHECK_FALSE(bn->running_mean.defined());
  CHECK_FALSE(bn->num_batches_tracked.defined());
  auto x = torch::randn({2, 4, 3, 3});
  const auto st = row_stats(by_channel(x));
  auto expect = ref_normalise_channels(x, st.mean, st.var, {1, 1, 1, 1}, {0, 0, 0, 0}, 1e-5);
  CHECK(close_to(bn->forward(x), expect, 1e-4));
  bn->eval();  // without running stats eval still uses the batch statistics
  CHECK(close_to(bn->forward(x), expect, 1e-4));
}

TEST_CASE("BatchNorm parameters, buffers and defaults follow libtorch", "[nn][norm]") {
  nn::BatchNorm1d bn(3);
  CHECK(bn->named_parameters().keys() == std::vector<std::string>{"weight", "bias"});
  CHECK(bn->named_buffers().keys() == std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"});
  CHECK(torch::equal(bn->weight, torch::ones({3})));
  CHECK(torch::equal(bn->bias, torch::zeros({3})));
  CHECK(bn->num_batches_tracked.dim() == 0);
  CHECK(bn->options.eps() == 1e-5);
  CHECK(bn->options.momentum().value() == 0.1);
  nn::InstanceNorm2d in(4);
  CHECK_FALSE(in->options.affine());
  CHECK_FALSE(in->options.track_running_stats());
  CHECK(in->parameters().empty());
  nn::InstanceNorm2d in2(nn::InstanceNormOptions(4).affine(true).track_running_stats(true));
  CHECK(in2->named_buffers().keys() == std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"});
  nn::LayerNorm ln(nn::LayerNormOptions({4, 5}));
  CHECK(ln->weight.sizes().vec() == std::vector<int64_t>{4, 5});
  nn::GroupNorm gn(2, 4);
  CHECK(torch::equal(gn->weight, torch::ones({4})));
}

TEST_CASE("Normalisation layers print as libtorch does", "[nn][norm]") {
  // Each line recorded from libtorch's operator<<.
  CHECK(printed(*nn::BatchNorm1d(3)) == "torch::nn::BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)");
  CHECK(printed(*nn::BatchNorm2d(nn::BatchNormOptions(4).eps(1e-3).momentum(std::nullopt).affine(false).track_running_stats(false))) ==
        "torch::nn::BatchNorm2d(4, eps=0.001, momentum=None, affine=false, track_running_stats=false)");
  CHECK(printed(*nn::BatchNorm3d(nn::BatchNormOptions(5).momentum(0.2))) ==
        "torch::nn::BatchNorm3d(5, eps=1e-05, momentum=0.2, affine=true, track_running_stats=true)");
  CHECK(printed(*nn::InstanceNorm1d(3)) == "torch::nn::InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=false, track_running_stats=false)");
  CHECK(printed(*nn::InstanceNorm2d(nn::InstanceNormOptions(4).affine(true).track_running_stats(true))) ==
        "torch::nn::InstanceNorm2d(4, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)");
  CHECK(printed(*nn::InstanceNorm3d(nn::InstanceNormOptions(5).eps(1e-3).momentum(0.2))) ==
        "torch::nn::InstanceNorm3d(5, eps=0.001, momentum=0.2, affine=false, track_running_stats=false)");
  CHECK(printed(*nn::LayerNorm(nn::LayerNormOptions({4, 5}))) == "torch::nn::LayerNorm([4, 5], eps=1e-05, elementwise_affine=true)");
  CHECK(printed(*nn::LayerNorm(nn::LayerNormOptions({3}).eps(1e-3).elementwise_affine(false))) ==
        "torch::nn::LayerNorm([3], eps=0.001, elementwise_affine=false)");
  CHECK(printed(*nn::GroupNorm(2, 4)) == "torch::nn::GroupNorm(2, 4, eps=1e-05, affine=true)");
  CHECK(printed(*nn::GroupNorm(nn::GroupNormOptions(3, 6).eps(1e-3).affine(false))) ==
        "torch::nn::GroupNorm(3, 6, eps=0.001, affine=false)");
}

TEST_CASE("Normalisation layers reject bad input", "[nn][norm]") {
  nn::BatchNorm1d bn1(3);
  CHECK_THROWS_WITH(bn1->forward(torch::randn({1, 3})),
                    Catch::Contains("[batch_norm] expected more than 1 value per channel when training") &&
                        Catch::Contains("[1, 3]"));
  CHECK_THROWS_WITH(bn1->forward(torch::randn({2, 3, 4, 5})), Catch::Contains("[BatchNorm1d] expected a 2-D or 3-D input"));
  nn::BatchNorm2d bn2(3);
  CHECK_THROWS_WITH(bn2->forward(torch::randn({2, 3})), Catch::Contains("[BatchNorm2d] expected a 4-D input; got a 2-D"));
  CHECK_THROWS_AS(nn::BatchNorm3d(3)->forward(torch::randn({2, 3, 4, 4})), c10::Error);
  CHECK_THROWS_WITH(bn2->forward(torch::randn({2, 4, 3, 3})), Catch::Contains("running_mean") && Catch::Contains("[3]"));
  CHECK_THROWS_WITH(F::batch_norm(torch::randn({1, 3}), torch::zeros({3}), torch::ones({3}),
                                  F::BatchNormFuncOptions().training(true)),
                    Catch::Contains("more than 1 value per channel"));
  // at::batch_norm itself accepts one value per channel (as libtorch's does).
  CHECK_NOTHROW(at::batch_norm(torch::randn({1, 3}), {}, {}, {}, {}, true, 0.1, 1e-5, false));
  CHECK_THROWS_WITH(at::batch_norm(torch::randn({4, 3}), {}, {}, {}, {}, false, 0.1, 1e-5, false),
                    Catch::Contains("[native_batch_norm] expected running_mean and running_var in evaluation mode"));
  CHECK_THROWS_WITH(at::batch_norm(torch::randn({4, 3}), torch::ones({4}), {}, {}, {}, true, 0.1, 1e-5, false),
                    Catch::Contains("weight of shape [3]"));
  nn::InstanceNorm2d in(3);
  CHECK_THROWS_WITH(in->forward(torch::randn({2, 3})), Catch::Contains("[InstanceNorm2d] expected a 3-D or 4-D input"));
  CHECK_NOTHROW(nn::GroupNorm(2, 3));  // libtorch checks divisibility only in forward
  CHECK_THROWS_WITH(nn::GroupNorm(2, 4)->forward(torch::randn({2, 6, 3})), Catch::Contains("weight of shape [6]"));
  CHECK_THROWS_WITH(nn::GroupNorm(4, 6)->forward(torch::randn({2, 6, 3})), Catch::Contains("[group_norm] expected num_groups"));
  CHECK_THROWS_WITH(nn::LayerNorm(nn::LayerNormOptions({4}))->forward(torch::randn({2, 3})),
                    Catch::Contains("[layer_norm] expected an input whose trailing dims are normalized_shape [4]"));
}

TEST_CASE("BatchNorm2d on channels_last input gives the contiguous result and gradients", "[nn][norm]") {
  torch::manual_seed(3);
  nn::BatchNorm2d a(3), b(3);
  auto x = torch::randn({2, 3, 4, 5});
  auto xa = x.clone().requires_grad_(true);
  // Channels-last strides: (N, H, W, C) in memory.
  auto xb = x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}).detach().requires_grad_(true);
  REQUIRE(xb.stride(1) == 1);
  auto ya = a->forward(xa), yb = b->forward(xb);
  CHECK(close_to(ya, yb));
  auto w = torch::randn({2, 3, 4, 5});
  (ya * w).sum().backward();
  (yb * w).sum().backward();
  CHECK(close_to(xa.grad(), xb.grad()));
  CHECK(close_to(a->weight.grad(), b->weight.grad(), 1e-4));
  CHECK(close_to(a->running_var, b->running_var));
}

TEST_CASE("batch_norm gradients match autograd through a composition of primitives", "[nn][norm]") {
  torch::manual_seed(4);
  auto x = torch::randn({3, 2, 4}, torch::kDouble).requires_grad_(true);
  auto w = torch::randn({2}, torch::kDouble).requires_grad_(true);
  auto b = torch::randn({2}, torch::kDouble).requires_grad_(true);
  auto y = at::batch_norm(x, w, b, {}, {}, true, 0.1, 1e-5, false);
  // The same function, written out: mean and biased variance over dims 0 and 2.
  auto x2 = x.detach().clone().requires_grad_(true);
  auto w2 = w.detach().clone().requires_grad_(true);
  auto b2 = b.detach().clone().requires_grad_(true);
  const std::vector<int64_t> dims{0, 2};
  auto mean = x2.mean(dims, true);
  auto var = (x2 - mean).pow(2).mean(dims, true);
  auto y2 = (x2 - mean) / (var + 1e-5).sqrt() * w2.reshape({1, 2, 1}) + b2.reshape({1, 2, 1});
  CHECK(close_to(y, y2, 1e-10));
  auto g = torch::randn({3, 2, 4}, torch::kDouble);
  auto gr = torch::autograd::grad({y}, {x, w, b}, {g}, true, true);
  auto gr2 = torch::autograd::grad({y2}, {x2, w2, b2}, {g}, true, true);
  for (size_t i = 0; i < 3; ++i) CHECK(close_to(gr[i], gr2[i], 1e-9));
  // Second derivative through the formula's backward.
  auto gg = torch::autograd::grad({(gr[0] * gr[0]).sum()}, {x, w}, {}, false, true);
  auto gg2 = torch::autograd::grad({(gr2[0] * gr2[0]).sum()}, {x2, w2}, {}, false, true);
  CHECK(close_to(gg[0], gg2[0], 1e-8));
  CHECK(close_to(gg[1], gg2[1], 1e-8));
}

TEST_CASE("InstanceNorm normalises each (sample, channel); running stats from libtorch", "[nn][norm]") {
  nn::InstanceNorm1d in(nn::InstanceNormOptions(2).track_running_stats(true));
  auto x = torch::arange(24.).reshape({2, 2, 6}).pow(1.5);
  auto y = in->forward(x);
  // Reference: treat each (n, c) as a channel of a (1, N*C, L) batch norm.
  auto flat = x.reshape({1, 4, 6});
  const auto st = row_stats(by_channel(flat));
  CHECK(close_to(y, ref_normalise_channels(flat, st.mean, st.var, {1, 1, 1, 1}, {0, 0, 0, 0}, 1e-5).reshape({2, 2, 6}), 1e-4));
  // Recorded from libtorch: running_mean [3.0101, 5.9109], running_var [7.5257, 12.2997];
  // num_batches_tracked stays 0.
  CHECK(close_to(in->running_mean, torch::tensor({3.0101, 5.9109}), 1e-4));
  CHECK(close_to(in->running_var, torch::tensor({7.5257, 12.2997}), 1e-4));
  CHECK(in->num_batches_tracked.item<int64_t>() == 0);
  in->eval();
  CHECK(std::abs(in->forward(x)[0][0][0].item<double>() - (-1.0972718000411987)) < 1e-5);
  // Unbatched (C, L) input.
  nn::InstanceNorm1d plain(2);
  CHECK(close_to(plain->forward(x[1]), y[1], 1e-5));
  // Affine InstanceNorm2d against the functional form.
  nn::InstanceNorm2d in2(nn::InstanceNormOptions(3).affine(true));
  {
    torch::NoGradGuard g;
    in2->weight.copy_(torch::tensor({1.0, 2.0, 3.0}));
    in2->bias.copy_(torch::tensor({0.0, -1.0, 1.0}));
  }
  auto x4 = torch::randn({2, 3, 3, 4});
  CHECK(close_to(in2->forward(x4), F::instance_norm(x4, F::InstanceNormFuncOptions().weight(in2->weight).bias(in2->bias))));
}

TEST_CASE("LayerNorm and GroupNorm against float64 loops", "[nn][norm]") {
  torch::manual_seed(5);
  nn::LayerNorm ln(nn::LayerNormOptions({3, 4}).eps(1e-3));
  {
    torch::NoGradGuard g;
    ln->weight.copy_(torch::randn({3, 4}));
    ln->bias.copy_(torch::randn({3, 4}));
  }
  auto x = torch::randn({2, 5, 3, 4});
  auto y = ln->forward(x);
  auto xr = x.reshape({10, 12});
  std::vector<std::vector<double>> rows;
  for (int64_t r = 0; r < 10; ++r) rows.push_back(to_vec(xr[r]));
  const auto st = row_stats(rows);
  const auto w = to_vec(ln->weight), b = to_vec(ln->bias);
  std::vector<double> expect;
  for (size_t r = 0; r < 10; ++r)
    for (size_t k = 0; k < 12; ++k) expect.push_back((rows[r][k] - st.mean[r]) / std::sqrt(st.var[r] + 1e-3) * w[k] + b[k]);
  CHECK(close_to(y, torch::tensor(expect).reshape({2, 5, 3, 4}), 1e-4));
  CHECK(close_to(F::layer_norm(x, F::LayerNormFuncOptions({3, 4}).weight(ln->weight).bias(ln->bias).eps(1e-3)), y));

  nn::GroupNorm gn(2, 6);
  {
    torch::NoGradGuard g;
    gn->weight.copy_(torch::tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}));
    gn->bias.copy_(torch::tensor({0.5, 0.0, -0.5, 1.0, 0.0, 2.0}));
  }
  auto xg = torch::randn({3, 6, 2, 2});
  auto yg = gn->forward(xg);
  // Each (sample, group) holds 3 channels * 4 values.
  auto groups = xg.reshape({6, 12});
  std::vector<std::vector<double>> grows;
  for (int64_t r = 0; r < 6; ++r) grows.push_back(to_vec(groups[r]));
  const auto gs = row_stats(grows);
  const auto gw = to_vec(gn->weight), gb = to_vec(gn->bias);
  std::vector<double> gexpect;
  for (size_t r = 0; r < 6; ++r)
    for (size_t k = 0; k < 12; ++k) {
      const size_t channel = (r % 2) * 3 + k / 4;
      gexpect.push_back((grows[r][k] - gs.mean[r]) / std::sqrt(gs.var[r] + 1e-5) * gw[channel] + gb[channel]);
    }
  CHECK(close_to(yg, torch::tensor(gexpect).reshape({3, 6, 2, 2}), 1e-4));
  CHECK(close_to(F::group_norm(xg, F::GroupNormFuncOptions(2).weight(gn->weight).bias(gn->bias)), yg));
}

TEST_CASE("BatchNorm buffers survive save/load and clone", "[nn][norm]") {
  torch::manual_seed(6);
  nn::BatchNorm2d bn(3);
  bn->forward(torch::randn({4, 3, 2, 2}) * 3 + 1);
  bn->forward(torch::randn({4, 3, 2, 2}));
  std::stringstream stream;
  torch::save(bn, stream);
  nn::BatchNorm2d loaded(3);
  torch::load(loaded, stream);
  CHECK(torch::equal(loaded->running_mean, bn->running_mean));
  CHECK(torch::equal(loaded->running_var, bn->running_var));
  CHECK(loaded->num_batches_tracked.item<int64_t>() == 2);
  CHECK(loaded->num_batches_tracked.scalar_type() == torch::kLong);
  auto copy = std::dynamic_pointer_cast<nn::BatchNorm2dImpl>(bn->clone());
  REQUIRE(copy != nullptr);
  CHECK(torch::equal(copy->running_var, bn->running_var));
  CHECK(copy->num_batches_tracked.item<int64_t>() == 2);
  copy->forward(torch::randn({2, 3, 2, 2}));
  CHECK(bn->num_batches_tracked.item<int64_t>() == 2);  // the clone has its own buffers
  bn->eval();
  loaded->eval();
  auto x = torch::randn({2, 3, 2, 2});
  CHECK(torch::equal(bn->forward(x), loaded->forward(x)));
}

TEST_CASE("BatchNorm2d inside a Sequential trains with an optimizer", "[nn][norm]") {
  torch::manual_seed(7);
  nn::Sequential net(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).bias(false)), nn::BatchNorm2d(4), nn::ReLU(),
                     nn::Flatten(), nn::Linear(4 * 4 * 4, 2));
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1));
  auto x = torch::randn({8, 1, 6, 6});
  auto t = torch::randint(0, 2, {8}, torch::kLong);
  double first = 0, last = 0;
  for (int i = 0; i < 20; ++i) {
    opt.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(x), t);
    loss.backward();
    opt.step();
    if (i == 0) first = loss.item<double>();
    last = loss.item<double>();
  }
  CHECK(last < first);
}

TEST_CASE("BatchNorm1d converted to float64 runs on float64 input", "[nn][norm]") {
  nn::BatchNorm1d bn(3);
  bn->to(torch::kDouble);
  CHECK(bn->weight.scalar_type() == torch::kDouble);
  CHECK(bn->running_var.scalar_type() == torch::kDouble);
  auto x = torch::randn({5, 3}, torch::kDouble);
  auto y = bn->forward(x);
  CHECK(y.scalar_type() == torch::kDouble);
  const auto st = row_stats(by_channel(x));
  CHECK(close_to(y, ref_normalise_channels(x, st.mean, st.var, {1, 1, 1}, {0, 0, 0}, 1e-5), 1e-9));
  CHECK(bn->num_batches_tracked.item<int64_t>() == 1);
}
