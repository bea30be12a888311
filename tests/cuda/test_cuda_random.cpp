// CUDA random ops and generators: Philox against its published known answers, reproducibility
// per seed (independent of the tensor's size, layout and the launch), explicit generators, and
// statistics of 1e6 draws against the distributions' theory (5 sigma bounds).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/Philox.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>
#include "cuda/cuda_test_util.h"

namespace {

at::TensorOptions gpu(at::ScalarType dt) { return at::TensorOptions().dtype(dt).device(kGpu); }

std::vector<double> doubles(const at::Tensor& t) {
  at::Tensor d = t.to(at::kCPU).to(at::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

std::vector<int64_t> longs(const at::Tensor& t) {
  at::Tensor d = t.to(at::kCPU).to(at::kLong).contiguous();
  const int64_t* p = d.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + d.numel());
}

struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size());
  return m;
}

// Checks sample mean and variance of n draws against a distribution's mean, variance and fourth
// central moment, within 5 standard errors.
void check_moments(const std::vector<double>& v, double mean, double var, double mu4) {
  const double n = static_cast<double>(v.size());
  const Moments m = moments(v);
  CHECK(std::abs(m.mean - mean) <= 5 * std::sqrt(var / n));
  CHECK(std::abs(m.var - var) <= 5 * std::sqrt((mu4 - var * var) / n));
}

// Pearson chi-square of counts against equal expected counts.
double chi_square(const std::vector<int64_t>& counts, double expected) {
  double c = 0;
  for (int64_t k : counts) c += (static_cast<double>(k) - expected) * (static_cast<double>(k) - expected) / expected;
  return c;
}
// 5 sigma above the chi-square mean with `dof` degrees of freedom (mean dof, variance 2 dof).
double chi_square_bound(double dof) { return dof + 5 * std::sqrt(2 * dof); }

}  // namespace

TEST_CASE("Philox4x32-10 gives Random123's known answers", "[cuda][random]") {
  using ember::philox::Block;
  using ember::philox::philox4x32_10;
  auto same = [](Block a, std::vector<uint32_t> b) {
    return a.x[0] == b[0] && a.x[1] == b[1] && a.x[2] == b[2] && a.x[3] == b[3];
  };
  CHECK(same(philox4x32_10({{0, 0, 0, 0}}, 0, 0), {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  CHECK(same(philox4x32_10({{~0u, ~0u, ~0u, ~0u}}, ~0u, ~0u), {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  CHECK(same(philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u),
             {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST_CASE("CUDA random ops are reproducible per seed", "[cuda][random]") {
  if (no_device()) return;
  for (at::ScalarType dt : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16}) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      torch::manual_seed(123);
      auto u = at::empty({1001}, gpu(dt)).uniform_(-1, 2);
      auto z = at::empty({1001}, gpu(dt)).normal_(0.5, 3);
      auto b = at::empty({1001}, gpu(dt)).bernoulli_(0.4);
      auto r = at::empty({1001}, gpu(dt)).random_(0, 100);
      torch::manual_seed(123);
      CHECK(doubles(at::empty({1001}, gpu(dt)).uniform_(-1, 2)) == doubles(u));
      CHECK(doubles(at::empty({1001}, gpu(dt)).normal_(0.5, 3)) == doubles(z));
      CHECK(doubles(at::empty({1001}, gpu(dt)).bernoulli_(0.4)) == doubles(b));
      CHECK(doubles(at::empty({1001}, gpu(dt)).random_(0, 100)) == doubles(r));
      torch::manual_seed(124);
      CHECK(doubles(at::empty({1001}, gpu(dt)).uniform_(-1, 2)) != doubles(u));
      // Consecutive calls draw new numbers (the offset moves on).
      auto u2 = at::empty({1001}, gpu(dt)).uniform_(-1, 2);
      auto u3 = at::empty({1001}, gpu(dt)).uniform_(-1, 2);
      CHECK(doubles(u2) != doubles(u3));
    }
  }
  // torch::cuda::manual_seed and manual_seed_all seed the device's generator the same way.
  torch::cuda::manual_seed(77);
  auto a = doubles(at::rand({500}, gpu(at::kFloat)));
  torch::cuda::manual_seed_all(77);
  CHECK(doubles(at::rand({500}, gpu(at::kFloat))) == a);
  torch::manual_seed(77);
  CHECK(doubles(at::rand({500}, gpu(at::kFloat))) == a);
  // Seeding the CPU generator's way does not disturb a CUDA stream's reproducibility.
  torch::cuda::manual_seed(77);
  (void)at::rand({10});  // a CPU draw in between
  CHECK(doubles(at::rand({500}, gpu(at::kFloat))) == a);
}

TEST_CASE("CUDA random fills depend on the seed and element index only", "[cuda][random]") {
  if (no_device()) return;
  // A prefix of a large fill (many blocks, grid-stride loops) equals a small fill: the launch
  // configuration does not matter.
  for (at::ScalarType dt : {at::kFloat, at::kDouble}) {
    torch::manual_seed(9);
    auto big = at::empty({5000000}, gpu(dt)).normal_();
    torch::manual_seed(9);
    auto small = at::empty({37}, gpu(dt)).normal_();
    CHECK(doubles(big.slice(0, 0, 37)) == doubles(small));
    torch::manual_seed(9);
    auto ubig = at::empty({3000001}, gpu(dt)).uniform_();
    torch::manual_seed(9);
    auto usmall = at::empty({1000}, gpu(dt)).uniform_();
    CHECK(doubles(ubig.slice(0, 0, 1000)) == doubles(usmall));
  }
  // A non-contiguous tensor is filled in the row-major order of its elements.
  torch::manual_seed(11);
  at::Tensor t = at::empty({40, 50}, gpu(at::kFloat)).t();
  t.uniform_();
  torch::manual_seed(11);
  at::Tensor c = at::empty({50, 40}, gpu(at::kFloat)).uniform_();
  CHECK(doubles(t) == doubles(c));
  // Empty tensors are fine.
  CHECK(at::empty({0, 3}, gpu(at::kFloat)).uniform_().numel() == 0);
}

TEST_CASE("explicit CUDA generators", "[cuda][random]") {
  if (no_device()) return;
  at::Generator g1 = at::cuda::detail::createCUDAGenerator(0, 42);
  at::Generator g2 = at::cuda::detail::createCUDAGenerator(0, 42);
  auto x = at::rand({300}, g1, gpu(at::kFloat));
  torch::manual_seed(5);
  (void)at::rand({50}, gpu(at::kFloat));  // the default generator does not disturb g2
  auto y = at::rand({300}, g2, gpu(at::kFloat));
  CHECK(doubles(x) == doubles(y));
  // Reseeding through the Generator handle restarts the stream.
  auto x2 = at::rand({300}, g1, gpu(at::kFloat));
  CHECK(doubles(x2) != doubles(x));
  g1.set_current_seed(42);
  CHECK(doubles(at::rand({300}, g1, gpu(at::kFloat))) == doubles(x));
  CHECK(g1.current_seed() == 42);
  // The default generator too.
  at::Generator d = at::cuda::detail::getDefaultCUDAGenerator(0);
  d.set_current_seed(3);
  auto p = at::randn({100}, gpu(at::kDouble));
  d.set_current_seed(3);
  CHECK(doubles(at::randn({100}, gpu(at::kDouble))) == doubles(p));
  // A CPU generator cannot drive a CUDA op.
  at::Generator cpu = at::make_generator(1);
  CHECK_THROWS_WITH(at::empty({4}, gpu(at::kFloat)).uniform_(0, 1, cpu), Catch::StartsWith("[uniform_] expected a CUDA generator"));
  CHECK_THROWS_WITH(at::empty({4}, gpu(at::kFloat)).normal_(0, 1, cpu), Catch::StartsWith("[normal_] expected a CUDA generator"));
}

TEST_CASE("CUDA generator get_state / set_state", "[cuda][random]") {
  if (no_device()) return;
  at::Generator g = at::cuda::detail::createCUDAGenerator(0, 7);
  (void)at::rand({1000}, g, gpu(at::kFloat));
  const at::Tensor state = g.get_state();
  CHECK(state.numel() == 24);
  const auto a = doubles(at::randn({300}, g, gpu(at::kDouble)));
  g.set_state(state);
  CHECK(doubles(at::randn({300}, g, gpu(at::kDouble))) == a);
  at::Generator h = at::cuda::detail::createCUDAGenerator(0, 1);
  h.set_state(state);
  CHECK(doubles(at::randn({300}, h, gpu(at::kDouble))) == a);
  // CPU and CUDA states do not mix.
  CHECK_THROWS_WITH(g.set_state(at::make_generator(1).get_state()),
                    Catch::StartsWith("[Generator::set_state] expected a CUDA generator state of 24 bytes"));
  CHECK_THROWS_WITH(at::make_generator(1).set_state(state),
                    Catch::StartsWith("[Generator::set_state] expected a CPU generator state of 2530 bytes"));
}

TEST_CASE("CUDA random ops raise the CPU's errors", "[cuda][random]") {
  if (no_device()) return;
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kInt)).uniform_(), Catch::StartsWith("[uniform_]"));
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kFloat)).uniform_(2, 1), Catch::StartsWith("[uniform_] expected from <= to"));
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kFloat)).normal_(0, -1), Catch::StartsWith("[normal_] expected std >= 0"));
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kLong)).random_(5, 5), Catch::StartsWith("[random_] expected from < to"));
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kFloat)).bernoulli_(1.5), Catch::StartsWith("[bernoulli_] expected 0 <= p <= 1"));
  at::Tensor probs = at::empty({5}, at::kFloat).fill_(0.5);
  probs.data_ptr<float>()[3] = 1.5f;
  CHECK_THROWS_WITH(probs.to(kGpu).bernoulli(),
                    Catch::StartsWith("[bernoulli] expected all probabilities in [0, 1]; got 1.5 at flat index 3"));
  probs.data_ptr<float>()[3] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(probs.to(kGpu).bernoulli(), Catch::StartsWith("[bernoulli] expected all probabilities in [0, 1]"));
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kLong)).bernoulli(), Catch::StartsWith("[bernoulli]"));
}

TEST_CASE("CUDA uniform_: moments, buckets and the open upper end", "[cuda][random]") {
  if (no_device()) return;
  const int64_t n = 1000000;
  torch::manual_seed(2024);
  // float64 and float32 on [-2, 3): mean 0.5, variance 25/12, fourth central moment 5^4/80.
  for (at::ScalarType dt : {at::kFloat, at::kDouble}) {
    auto v = doubles(at::empty({n}, gpu(dt)).uniform_(-2, 3));
    for (double x : v) REQUIRE((x >= -2 && x < 3));
    check_moments(v, 0.5, 25.0 / 12, 625.0 / 80);
    // 100 equal buckets.
    std::vector<int64_t> counts(100, 0);
    for (double x : v) counts[std::min<int64_t>(99, static_cast<int64_t>((x + 2) / 5 * 100))]++;
    CHECK(chi_square(counts, n / 100.0) < chi_square_bound(99));
  }
  // float16 on [0, 1): the draws lie on the 2^-11 grid, a discrete uniform of 2048 values.
  {
    auto v = doubles(at::empty({n}, gpu(at::kHalf)).uniform_(0, 1));
    for (double x : v) REQUIRE((x >= 0 && x < 1));
    const double m = 2048.0, h = 1.0 / m;
    const double var = (m * m - 1) / 12 * h * h;
    check_moments(v, (m - 1) / 2 * h, var, var * var * 1.8);  // mu4 ~ 9/5 var^2 for a uniform
    std::vector<int64_t> counts(64, 0);
    for (double x : v) counts[static_cast<int64_t>(x * 64)]++;
    CHECK(chi_square(counts, n / 64.0) < chi_square_bound(63));
  }
  // Rounding up to `to` is mapped back into [from, to): float16 has spacing 0.5 just below
  // 1024, bfloat16 spacing 1 just below 256.
  {
    auto v = doubles(at::empty({n}, gpu(at::kHalf)).uniform_(1023, 1024));
    std::map<double, int64_t> seen;
    for (double x : v) seen[x]++;
    CHECK(seen.count(1024.0) == 0);
    CHECK(seen.count(1023.0) == 1);
    CHECK(seen.count(1023.5) == 1);
    for (auto& [x, c] : seen) CHECK((x >= 1023 && x < 1024));
    auto b = doubles(at::empty({n}, gpu(at::kBFloat16)).uniform_(255, 256));
    for (double x : b) REQUIRE(x == 255.0);
  }
  // from == to gives from.
  auto same = doubles(at::empty({100}, gpu(at::kFloat)).uniform_(1.5, 1.5));
  for (double x : same) CHECK(x == 1.5);
}

TEST_CASE("CUDA normal_: moments and tails", "[cuda][random]") {
  if (no_device()) return;
  const int64_t n = 1000000;
  torch::manual_seed(31);
  for (at::ScalarType dt : {at::kFloat, at::kDouble}) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      auto v = doubles(at::empty({n}, gpu(dt)).normal_(3, 2));
      // N(3, 4): fourth central moment 3 sigma^4.
      check_moments(v, 3.0, 4.0, 3 * 16.0);
      // P(|x - mean| < sigma) = 0.682689...; P(x > mean + 2 sigma) = 0.0227501...
      int64_t inside = 0, above = 0;
      for (double x : v) {
        inside += std::abs(x - 3) < 2;
        above += x > 7;
      }
      const double p1 = 0.6826894921370859, p2 = 0.022750131948179195;
      CHECK(std::abs(inside / double(n) - p1) <= 5 * std::sqrt(p1 * (1 - p1) / n));
      CHECK(std::abs(above / double(n) - p2) <= 5 * std::sqrt(p2 * (1 - p2) / n));
    }
  }
  for (at::ScalarType dt : {at::kHalf, at::kBFloat16}) {
    auto v = doubles(at::empty({n}, gpu(dt)).normal_());
    for (double x : v) REQUIRE(std::isfinite(x));
    CHECK(std::abs(moments(v).mean) < 0.01);
    CHECK(std::abs(moments(v).var - 1) < 0.02);
  }
  // std = 0 gives the mean.
  for (double x : doubles(at::empty({10}, gpu(at::kFloat)).normal_(2, 0))) CHECK(x == 2.0);
}

TEST_CASE("CUDA exponential_: moments, tail and errors", "[cuda][random]") {
  if (no_device()) return;
  const int64_t n = 1000000;
  torch::manual_seed(5);
  for (at::ScalarType dt : {at::kFloat, at::kDouble}) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      // Exp(lambd = 2): mean 1/2, variance 1/4, fourth central moment 9 / lambd^4; P(x > 1) = e^-2.
      auto v = doubles(at::empty({n}, gpu(dt)).exponential_(2));
      for (double x : v) REQUIRE((x >= 0 && std::isfinite(x)));
      check_moments(v, 0.5, 0.25, 9.0 / 16);
      int64_t above = 0;
      for (double x : v) above += x > 1;
      const double p = std::exp(-2.0);
      CHECK(std::abs(above / double(n) - p) <= 5 * std::sqrt(p * (1 - p) / n));
    }
  }
  for (at::ScalarType dt : {at::kHalf, at::kBFloat16}) {
    auto v = doubles(at::empty({n}, gpu(dt)).exponential_());
    for (double x : v) REQUIRE((x >= 0 && std::isfinite(x)));
    CHECK(std::abs(moments(v).mean - 1) < 0.02);
  }
  torch::manual_seed(9);
  auto a = doubles(at::empty({777}, gpu(at::kFloat)).exponential_(0.5));
  torch::manual_seed(9);
  CHECK(doubles(at::empty({777}, gpu(at::kFloat)).exponential_(0.5)) == a);
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kFloat)).exponential_(0), Catch::StartsWith("[exponential_] expected lambd > 0"));
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kLong)).exponential_(), Catch::StartsWith("[exponential_]"));
}

TEST_CASE("CUDA log_normal_, cauchy_, geometric_: distributions, seeds and errors", "[cuda][random]") {
  if (no_device()) return;
  const int64_t n = 1000000;
  torch::manual_seed(6);
  // log_normal_(0.5, 0.25): the logs are N(0.5, 0.25^2) (fourth central moment 3 sigma^4).
  for (at::ScalarType dt : {at::kFloat, at::kDouble}) {
    std::vector<double> logs;
    for (double x : doubles(at::empty({n}, gpu(dt)).log_normal_(0.5, 0.25))) {
      REQUIRE(x > 0);
      logs.push_back(std::log(x));
    }
    check_moments(logs, 0.5, 0.0625, 3 * 0.0625 * 0.0625);
  }
  // cauchy_(2, 0.5): P(x < median + sigma) = 3/4, P(x < median) = 1/2.
  for (at::ScalarType dt : {at::kFloat, at::kDouble}) {
    auto v = doubles(at::empty({n}, gpu(dt)).cauchy_(2, 0.5));
    int64_t below_median = 0, below_q3 = 0;
    for (double x : v) {
      below_median += x < 2.0;
      below_q3 += x < 2.5;
    }
    CHECK(std::abs(below_median / double(n) - 0.5) <= 5 * std::sqrt(0.25 / n));
    CHECK(std::abs(below_q3 / double(n) - 0.75) <= 5 * std::sqrt(0.75 * 0.25 / n));
  }
  // geometric_(p = 0.25): mean 1/p = 4, variance (1-p)/p^2 = 12; integers >= 1 in every dtype.
  for (at::ScalarType dt : {at::kLong, at::kInt, at::kFloat, at::kDouble}) {
    auto v = doubles(at::empty({n}, gpu(dt)).geometric_(0.25));
    for (double x : v) REQUIRE((x >= 1 && x == std::floor(x)));
    CHECK(std::abs(moments(v).mean - 4.0) <= 5 * std::sqrt(12.0 / n));
  }
  // Reproducible per seed, and an explicit generator leaves the default one alone.
  torch::manual_seed(9);
  auto a = doubles(at::empty({333}, gpu(at::kFloat)).cauchy_());
  torch::manual_seed(9);
  CHECK(doubles(at::empty({333}, gpu(at::kFloat)).cauchy_()) == a);
  torch::manual_seed(9);
  const auto untouched = doubles(at::empty({5}, gpu(at::kFloat)).cauchy_());
  torch::manual_seed(9);
  at::Tensor p1 = at::randperm(50, at::cuda::detail::createCUDAGenerator(0, 5), gpu(at::kLong));
  CHECK(doubles(at::empty({5}, gpu(at::kFloat)).cauchy_()) == untouched);  // the default stream did not move
  CHECK(p1.is_cuda());
  CHECK(longs(std::get<0>(p1.sort())) == longs(at::arange(50, gpu(at::kLong))));
  CHECK(longs(at::randperm(50, at::cuda::detail::createCUDAGenerator(0, 5), gpu(at::kLong))) == longs(p1));
  torch::manual_seed(5);
  CHECK(longs(at::randperm(50, gpu(at::kLong))) == longs(p1));  // the default generator at that seed
  // bernoulli_(tensor p) on the device: p broadcast, frequencies per column, refusals.
  {
    at::Tensor probs = at::tensor({0.0, 0.25, 1.0}, gpu(at::kDouble));
    auto v = doubles(at::empty({200000, 3}, gpu(at::kFloat)).bernoulli_(probs));
    double ones[3] = {0, 0, 0};
    for (size_t i = 0; i < v.size(); ++i) ones[i % 3] += v[i];
    CHECK(ones[0] == 0);
    CHECK(ones[2] == 200000);
    CHECK(std::abs(ones[1] / 200000 - 0.25) <= 5 * std::sqrt(0.25 * 0.75 / 200000));
    CHECK_THROWS_WITH(at::empty({3}, gpu(at::kFloat)).bernoulli_(at::tensor({0.5, 1.5, 0.0}, gpu(at::kFloat))),
                      Catch::StartsWith("[bernoulli_] expected all probabilities in [0, 1]; got 1.5 at flat index 1"));
  }
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kFloat)).log_normal_(0, 0), Catch::StartsWith("[log_normal_] expected std > 0"));
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kFloat)).cauchy_(0, 0), Catch::StartsWith("[cauchy_] expected sigma > 0"));
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kFloat)).geometric_(1), Catch::StartsWith("[geometric_] expected 0 < p < 1"));
  CHECK_THROWS_WITH(at::empty({3}, gpu(at::kBool)).geometric_(0.5), Catch::StartsWith("[geometric_] expected a numeric tensor"));
  // normal with tensor parameters on the device: std 0 gives the mean.
  at::Tensor m = at::arange(6, gpu(at::kFloat));
  CHECK(doubles(at::normal(m, 0.0)) == doubles(m));
  CHECK(at::normal(m, at::ones({2, 1}, gpu(at::kFloat))).sizes() == at::IntArrayRef({2, 6}));
}

TEST_CASE("CUDA bernoulli: frequencies", "[cuda][random]") {
  if (no_device()) return;
  const int64_t n = 1000000;
  torch::manual_seed(8);
  for (at::ScalarType dt : {at::kFloat, at::kDouble, at::kHalf, at::kBool, at::kInt, at::kByte}) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      auto v = doubles(at::empty({n}, gpu(dt)).bernoulli_(0.3));
      int64_t ones = 0;
      for (double x : v) {
        REQUIRE((x == 0 || x == 1));
        ones += x == 1;
      }
      CHECK(std::abs(ones / double(n) - 0.3) <= 5 * std::sqrt(0.3 * 0.7 / n));
    }
  }
  // p = 0 and p = 1 are exact.
  for (double x : doubles(at::empty({1000}, gpu(at::kFloat)).bernoulli_(0.0))) CHECK(x == 0);
  for (double x : doubles(at::empty({1000}, gpu(at::kFloat)).bernoulli_(1.0))) CHECK(x == 1);
  // Per-element probabilities: the first half 0.1, the second 0.85, on a transposed layout.
  at::Tensor p = at::empty({2, n / 2}, at::kFloat);
  float* pp = p.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) pp[i] = i < n / 2 ? 0.1f : 0.85f;
  at::Tensor probs = p.to(kGpu).t().contiguous().t();  // same values, column-major storage
  at::Tensor draws = probs.bernoulli();
  CHECK(draws.sizes() == probs.sizes());
  CHECK(draws.scalar_type() == at::kFloat);
  auto v = doubles(draws);
  int64_t lo = 0, hi = 0;
  for (int64_t i = 0; i < n; ++i) (i < n / 2 ? lo : hi) += v[i] == 1;
  const double h = n / 2.0;
  CHECK(std::abs(lo / h - 0.1) <= 5 * std::sqrt(0.1 * 0.9 / h));
  CHECK(std::abs(hi / h - 0.85) <= 5 * std::sqrt(0.85 * 0.15 / h));
  // Float16 probabilities.
  auto v16 = doubles(at::empty({n}, gpu(at::kHalf)).fill_(0.25).bernoulli());
  int64_t ones = 0;
  for (double x : v16) ones += x == 1;
  CHECK(std::abs(ones / double(n) - 0.25) <= 5 * std::sqrt(0.25 * 0.75 / n));
}

TEST_CASE("CUDA random_: ranges, coverage and uniformity", "[cuda][random]") {
  if (no_device()) return;
  const int64_t n = 1000000;
  torch::manual_seed(17);
  // int8 over its whole range without `to`: [-128, 127) as on the CPU, every value hit, uniform.
  {
    auto v = longs(at::empty({n}, gpu(at::kChar)).random_(-128, std::optional<int64_t>()));
    std::vector<int64_t> counts(255, 0);
    for (int64_t x : v) {
      REQUIRE((x >= -128 && x < 127));
      counts[x + 128]++;
    }
    for (int64_t c : counts) CHECK(c > 0);
    CHECK(chi_square(counts, n / 255.0) < chi_square_bound(254));
  }
  // int64, a small range with an explicit end.
  {
    auto v = longs(at::empty({n}, gpu(at::kLong)).random_(-5, 5));
    std::vector<int64_t> counts(10, 0);
    for (int64_t x : v) {
      REQUIRE((x >= -5 && x < 5));
      counts[x + 5]++;
    }
    CHECK(chi_square(counts, n / 10.0) < chi_square_bound(9));
  }
  // int64 over (almost) its whole range: both ends reached in quarters, uniform quarters.
  {
    auto v = longs(at::empty({n}, gpu(at::kLong)).random_(std::numeric_limits<int64_t>::min(), std::optional<int64_t>()));
    std::vector<int64_t> quarters(4, 0);
    for (int64_t x : v) {
      REQUIRE(x < std::numeric_limits<int64_t>::max());
      quarters[static_cast<int>((static_cast<uint64_t>(x) ^ 0x8000000000000000ull) >> 62)]++;
    }
    CHECK(chi_square(quarters, n / 4.0) < chi_square_bound(3));
  }
  // A large range (64-bit draws) with an explicit end, uniform in 16 buckets.
  {
    const int64_t lo = -3000000000LL, hi = 5000000000LL;
    auto v = longs(at::empty({n}, gpu(at::kLong)).random_(lo, hi));
    std::vector<int64_t> counts(16, 0);
    for (int64_t x : v) {
      REQUIRE((x >= lo && x < hi));
      counts[static_cast<size_t>((x - lo) / ((hi - lo) / 16))]++;
    }
    CHECK(chi_square(counts, n / 16.0) < chi_square_bound(15));
  }
  // Floating dtypes without `to`: integers in [0, 2^digits].
  {
    auto v = doubles(at::empty({n}, gpu(at::kHalf)).random_(0, std::optional<int64_t>()));
    double mx = 0;
    for (double x : v) {
      REQUIRE((x >= 0 && x <= 2048 && x == std::floor(x)));
      mx = std::max(mx, x);
    }
    CHECK(mx >= 2040);
    auto f = doubles(at::empty({1000}, gpu(at::kFloat)).random_(0, std::optional<int64_t>()));
    for (double x : f) REQUIRE((x >= 0 && x <= 16777216 && x == std::floor(x)));
  }
  // bool: both values.
  {
    auto v = doubles(at::empty({10000}, gpu(at::kBool)).random_(0, std::optional<int64_t>()));
    int64_t ones = 0;
    for (double x : v) ones += x == 1;
    CHECK((ones > 4500 && ones < 5500));
  }
  // uint8 with an explicit range.
  for (int64_t x : longs(at::empty({10000}, gpu(at::kByte)).random_(250, 256))) REQUIRE((x >= 250 && x < 256));
}

TEST_CASE("CUDA randperm: permutations, reproducible, uniform", "[cuda][random]") {
  if (no_device()) return;
  torch::manual_seed(3);
  at::Tensor a = at::randperm(1000, gpu(at::kLong));
  CHECK(a.is_cuda());
  CHECK(a.scalar_type() == at::kLong);
  std::vector<int64_t> v = longs(a), s = v;
  std::sort(s.begin(), s.end());
  for (int64_t i = 0; i < 1000; ++i) REQUIRE(s[i] == i);
  int fixed = 0;
  for (int64_t i = 0; i < 1000; ++i) fixed += v[i] == i;
  CHECK(fixed < 20);
  torch::manual_seed(3);
  CHECK(longs(at::randperm(1000, gpu(at::kLong))) == v);
  torch::manual_seed(4);
  CHECK(longs(at::randperm(1000, gpu(at::kLong))) != v);
  CHECK(at::randperm(0, gpu(at::kLong)).numel() == 0);
  CHECK(at::randperm(0, gpu(at::kLong)).is_cuda());
  at::Tensor i32 = at::randperm(100, gpu(at::kInt));
  CHECK(i32.scalar_type() == at::kInt);
  CHECK(i32.is_cuda());
  at::Tensor f = at::randperm(100, gpu(at::kFloat));
  CHECK(f.scalar_type() == at::kFloat);
  auto fv = doubles(f);
  std::sort(fv.begin(), fv.end());
  for (int64_t i = 0; i < 100; ++i) REQUIRE(fv[i] == i);
  CHECK_THROWS_WITH(at::randperm(-1, gpu(at::kLong)), Catch::StartsWith("[randperm] expected n >= 0; got -1"));
  CHECK_THROWS_WITH(at::randperm(5, gpu(at::kBool)), Catch::StartsWith("[randperm]"));
  // A large one (multi-pass radix sort) is still a permutation.
  {
    const int64_t n = 3000000;
    std::vector<int64_t> big = longs(at::randperm(n, gpu(at::kLong)));
    std::vector<char> hit(n, 0);
    for (int64_t x : big) {
      REQUIRE((x >= 0 && x < n));
      REQUIRE(hit[x] == 0);
      hit[x] = 1;
    }
  }
  // The 24 permutations of 4 elements are equally likely.
  std::map<std::vector<int64_t>, int64_t> seen;
  const int64_t trials = 4800;
  for (int64_t t = 0; t < trials; ++t) seen[longs(at::randperm(4, gpu(at::kLong)))]++;
  CHECK(seen.size() == 24);
  std::vector<int64_t> counts;
  for (auto& [p, c] : seen) counts.push_back(c);
  while (counts.size() < 24) counts.push_back(0);
  CHECK(chi_square(counts, trials / 24.0) < chi_square_bound(23));
}
