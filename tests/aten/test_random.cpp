// Random ops: reproducibility under manual_seed / explicit generators, and loose statistics.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include "random_cases.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {
std::vector<double> values(const at::Tensor& t) {
  at::Tensor d = t.to(at::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}
double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
double var_of(const std::vector<double>& v) {
  double m = mean_of(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}
}  // namespace

TEST_CASE("manual_seed makes rand/randn/randint reproducible", "[random]") {
  torch::manual_seed(123);
  auto a = torch::rand({4, 5});
  auto b = torch::randn({7});
  auto c = torch::randint(0, 10, {6});
  torch::manual_seed(123);
  CHECK(values(torch::rand({4, 5})) == values(a));
  CHECK(values(torch::randn({7})) == values(b));
  CHECK(values(torch::randint(0, 10, {6})) == values(c));
  torch::manual_seed(124);
  CHECK(values(torch::rand({4, 5})) != values(a));
}

TEST_CASE("explicit generators are independent streams", "[random]") {
  auto g1 = at::make_generator(42);
  auto g2 = at::make_generator(42);
  auto x = torch::rand({100}, g1);
  torch::manual_seed(7);
  torch::rand({50});  // draws from the default generator do not disturb g2
  auto y = torch::rand({100}, g2);
  CHECK(values(x) == values(y));
  auto z = torch::randn({3, 3}, g1, torch::kDouble);
  CHECK(z.scalar_type() == at::kDouble);
}

TEST_CASE("rand/uniform_ statistics and range", "[random]") {
  torch::manual_seed(0);
  auto r = torch::rand({20000});
  CHECK(r.scalar_type() == at::kFloat);
  auto v = values(r);
  for (double x : v) REQUIRE((x >= 0.0 && x < 1.0));
  CHECK(mean_of(v) == Approx(0.5).margin(0.02));
  CHECK(var_of(v) == Approx(1.0 / 12).margin(0.01));

  auto u = torch::empty({20000}, torch::kDouble).uniform_(-3, 5);
  auto w = values(u);
  for (double x : w) REQUIRE((x >= -3.0 && x < 5.0));
  CHECK(mean_of(w) == Approx(1.0).margin(0.1));

  for (auto dt : {at::kHalf, at::kBFloat16}) {
    auto h = values(torch::rand({5000}, dt));
    for (double x : h) REQUIRE((x >= 0.0 && x < 1.0));
    CHECK(mean_of(h) == Approx(0.5).margin(0.03));
  }
  CHECK_THROWS_WITH(torch::empty({3}).uniform_(2, 1), Catch::Contains("[uniform_]"));
  CHECK_THROWS_WITH(torch::empty({3}, torch::kInt64).uniform_(), Catch::Contains("[uniform_]"));
  CHECK_THROWS_AS(torch::rand({3}, torch::kInt32), c10::Error);
}

TEST_CASE("randn/normal_ statistics", "[random]") {
  torch::manual_seed(1);
  auto v = values(torch::randn({20000}));
  CHECK(mean_of(v) == Approx(0.0).margin(0.03));
  CHECK(var_of(v) == Approx(1.0).margin(0.05));
  auto n = values(torch::empty({20000}, torch::kDouble).normal_(3, 0.5));
  CHECK(mean_of(n) == Approx(3.0).margin(0.02));
  CHECK(std::sqrt(var_of(n)) == Approx(0.5).margin(0.02));
  CHECK_THROWS_WITH(torch::empty({3}).normal_(0, -1), Catch::Contains("[normal_]"));
  auto like = torch::randn_like(torch::zeros({2, 3}, torch::kDouble));
  CHECK(like.scalar_type() == at::kDouble);
  CHECK(like.sizes().vec() == std::vector<int64_t>{2, 3});
  auto rl = values(torch::rand_like(torch::zeros({1000})));
  for (double x : rl) REQUIRE((x >= 0.0 && x < 1.0));
}

TEST_CASE("randint range, dtype and statistics", "[random]") {
  torch::manual_seed(2);
  auto r = torch::randint(10, {10000});
  CHECK(r.scalar_type() == at::kLong);
  auto v = values(r);
  std::vector<int> counts(10, 0);
  for (double x : v) {
    REQUIRE((x >= 0 && x < 10 && x == std::floor(x)));
    ++counts[static_cast<int>(x)];
  }
  for (int c : counts) CHECK(std::abs(c - 1000) < 200);
  auto s = values(torch::randint(-3, 4, {5000}, torch::kInt16));
  for (double x : s) REQUIRE((x >= -3 && x < 4));
  CHECK(mean_of(s) == Approx(0.0).margin(0.15));
  auto f = torch::randint(0, 5, {100}, torch::kFloat);
  CHECK(f.scalar_type() == at::kFloat);
  for (double x : values(f)) REQUIRE((x >= 0 && x < 5 && x == std::floor(x)));
  CHECK_THROWS_WITH(torch::randint(5, 5, {3}), Catch::Contains("[randint]"));
  auto g = at::make_generator(9);
  auto a = torch::randint(100, {20}, g);
  auto g2 = at::make_generator(9);
  CHECK(values(torch::randint(100, {20}, g2)) == values(a));
}

TEST_CASE("bernoulli_ and bernoulli", "[random]") {
  torch::manual_seed(3);
  auto b = torch::empty({20000}).bernoulli_(0.3);
  auto v = values(b);
  for (double x : v) REQUIRE((x == 0.0 || x == 1.0));
  CHECK(mean_of(v) == Approx(0.3).margin(0.02));
  CHECK(mean_of(values(torch::empty({100}, torch::kBool).bernoulli_(1.0))) == 1.0);
  CHECK(mean_of(values(torch::empty({100}).bernoulli_(0.0))) == 0.0);

  auto p = torch::full({20000}, 0.8);
  auto d = torch::bernoulli(p);
  CHECK(d.scalar_type() == at::kFloat);
  CHECK(mean_of(values(d)) == Approx(0.8).margin(0.02));
  CHECK_THROWS_WITH(torch::empty({3}).bernoulli_(1.5), Catch::Contains("[bernoulli_]"));
  CHECK_THROWS_WITH(torch::bernoulli(torch::full({3}, 2.0)), Catch::Contains("[bernoulli]"));
}

TEST_CASE("random fills follow memory order and write only the view", "[random]") {
  // As libtorch: a transposed tensor is filled in its storage order, so it holds the same storage
  // as a contiguous fill of the same seed.
  torch::manual_seed(5);
  auto a = torch::empty({4, 3}).uniform_();
  torch::manual_seed(5);
  auto t = torch::empty({4, 3}).t();  // non-contiguous [3, 4]
  t.uniform_();
  CHECK(values(t.t()) == values(a));
  // Strided fills write only the view.
  auto base = torch::zeros({4, 6});
  auto view = base.slice(1, 0, 6, 2);
  view.normal_();
  auto bv = values(base);
  for (int i = 0; i < 4; ++i)
    for (int j = 1; j < 6; j += 2) CHECK(bv[i * 6 + j] == 0.0);
}

TEST_CASE("the CPU random streams give libtorch's numbers", "[random]") {
  // Every case of random_cases.h against the values libtorch 2.15 gave for the same calls.
  const std::map<std::string, std::vector<double>> reference{
#include "reference_random.inc"
  };
  const auto cases = random_cases::all();
  CHECK(cases.size() == reference.size());
  for (const auto& entry : cases) {
    const std::string& name = entry.first;
    INFO(name);
    auto it = reference.find(name);
    REQUIRE(it != reference.end());
    const std::vector<double> got = values(entry.second().detach().reshape({-1}));
    const std::vector<double>& want = it->second;
    REQUIRE(got.size() == want.size());
    const bool approx = name.rfind("approx.", 0) == 0;
    size_t mismatches = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const bool same = approx ? std::abs(got[i] - want[i]) <= 1e-5 * (1 + std::abs(want[i])) : got[i] == want[i];
      if (!same && ++mismatches <= 3) UNSCOPED_INFO("element " << i << ": Ember " << got[i] << ", libtorch " << want[i]);
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("MT19937 is the reference Mersenne Twister", "[random]") {
  // std::mt19937 is specified by the standard (10000th output 4123659995 for the default seed).
  at::MT19937 ours(5489);
  std::mt19937 ref(5489);
  for (int i = 0; i < 2000; ++i) REQUIRE(ours() == ref());
  at::MT19937 deflt;
  for (int i = 0; i < 9999; ++i) deflt();
  CHECK(deflt() == 4123659995u);
}

TEST_CASE("CPU generators: API, clone and device checks", "[random]") {
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(3);
  CHECK(g.current_seed() == 3);
  CHECK(at::make_generator<at::CPUGeneratorImpl>().current_seed() == at::default_rng_seed_val);
  CHECK(at::detail::createCPUGenerator(4).current_seed() == 4);
  torch::rand({5}, g);
  torch::randn({3}, g);  // leaves a cached normal behind
  at::Generator copy = g.clone();
  CHECK(values(torch::randn({3}, copy)) == values(torch::randn({3}, g)));
  CHECK(values(torch::rand({4}, copy)) == values(torch::rand({4}, g)));
  g.set_current_seed(11);
  CHECK(g.current_seed() == 11);
  CHECK(copy.current_seed() == 3);
  CHECK(g.get<at::CPUGeneratorImpl>() != nullptr);
  torch::manual_seed(21);
  CHECK(at::detail::getDefaultCPUGenerator().current_seed() == 21);
  CHECK_THROWS_WITH(torch::empty({3}).exponential_(0), Catch::StartsWith("[exponential_] expected lambd > 0"));
  CHECK_THROWS_WITH(torch::empty({3}, torch::kInt).exponential_(), Catch::StartsWith("[exponential_] expected a floating-point"));
  CHECK_THROWS_WITH(torch::empty({3}, torch::kHalf).random_(3000, std::optional<int64_t>()),
                    Catch::StartsWith("[random_] expected from <= the largest float16 value 2048; got from 3000"));
  CHECK_THROWS_WITH(torch::empty({3}, torch::kShort).random_(std::numeric_limits<int64_t>::min(), std::optional<int64_t>()),
                    Catch::StartsWith("[random_] expected int64, float64, float32 or bfloat16"));
  CHECK_NOTHROW(torch::empty({3}).uniform_(0, 1, at::Generator()));  // an empty handle means the default

}

TEST_CASE("Generator get_state / set_state continue the stream exactly", "[random]") {
  // Draws that use every part of the state: raw words, the per-element Box-Muller pair cache
  // (scalar normal_ on a 1-element tensor leaves one normal cached) and the 16-chunk path.
  auto draw = [](at::Generator& g) {
    std::vector<at::Tensor> out;
    out.push_back(torch::rand({5}, g));
    out.push_back(torch::empty({1}, torch::kDouble).normal_(0, 1, g));
    out.push_back(torch::empty({1}).normal_(0, 1, g));
    out.push_back(torch::randn({40}, g));
    out.push_back(torch::randint(0, 1000, {7}, g));
    out.push_back(torch::empty({3}, torch::kDouble).normal_(2, 3, g));
    return out;
  };
  at::Generator g = at::make_generator(1234);
  torch::randn({3}, g);
  torch::empty({1}, torch::kDouble).normal_(0, 1, g);  // leaves a cached double normal
  const at::Tensor state = g.get_state();
  CHECK(state.scalar_type() == torch::kByte);
  CHECK(state.dim() == 1);
  CHECK(state.numel() == 2530);
  const auto first = draw(g);
  // The same generator, rewound.
  g.set_state(state);
  const auto again = draw(g);
  // Another generator with another seed, set to the saved state.
  at::Generator h = at::make_generator(99);
  torch::rand({11}, h);
  h.set_state(state);
  CHECK(h.current_seed() == 1234);
  const auto other = draw(h);
  REQUIRE(first.size() == again.size());
  for (size_t i = 0; i < first.size(); ++i) {
    INFO("draw " << i);
    CHECK(torch::equal(first[i], again[i]));
    CHECK(torch::equal(first[i], other[i]));
  }
  // The state is a copy: drawing afterwards does not change it, and it round-trips byte for byte.
  CHECK(torch::equal(h.get_state(), g.get_state()));
  CHECK_FALSE(torch::equal(g.get_state(), state));
  g.set_state(state);
  CHECK(torch::equal(g.get_state(), state));

  // The default generator too (torch::manual_seed's stream).
  const at::Generator& def = at::detail::getDefaultCPUGenerator();
  const at::Tensor saved = def.get_state();
  const at::Tensor a = torch::randn({4});
  const_cast<at::Generator&>(def).set_state(saved);
  CHECK(torch::equal(torch::randn({4}), a));

  // Bad states are refused with the generator untouched.
  const at::Tensor before = g.get_state();
  CHECK_THROWS_WITH(g.set_state(state.narrow(0, 0, 100)),
                    Catch::StartsWith("[Generator::set_state] expected a CPU generator state of 2530 bytes from Generator::get_state(); got 100 bytes"));
  CHECK_THROWS_WITH(g.set_state(state.to(torch::kInt)), Catch::StartsWith("[Generator::set_state] expected a 1-D uint8 CPU tensor"));
  CHECK_THROWS_WITH(g.set_state(state.view({10, 253})), Catch::StartsWith("[Generator::set_state] expected a 1-D uint8 CPU tensor"));
  at::Tensor bad = state.clone();
  bad[0] = 0;
  CHECK_THROWS_WITH(g.set_state(bad), Catch::Contains("without Ember's state header"));
  bad = state.clone();
  bad[4] = 2;  // the kind of a CUDA generator
  CHECK_THROWS_WITH(g.set_state(bad), Catch::StartsWith("[Generator::set_state] expected the state of a CPU generator"));
  bad = state.clone();
  bad[16] = static_cast<uint8_t>(0xff);  // next word index 0x...ff > 624
  bad[17] = static_cast<uint8_t>(0xff);
  CHECK_THROWS_WITH(g.set_state(bad), Catch::StartsWith("[Generator::set_state] expected a word index of at most 624"));
  CHECK(torch::equal(g.get_state(), before));
  CHECK_THROWS_WITH(at::Generator().get_state(), Catch::StartsWith("[Generator::get_state] expected a defined generator"));
}

TEST_CASE("log_normal_, cauchy_, geometric_: statistics, dtypes and refusals", "[random]") {
  torch::manual_seed(31);
  // Loose statistics over 20000 draws (the exact streams are checked against libtorch above).
  auto ln = values(torch::empty({20000}, torch::kDouble).log_normal_(0.5, 0.25));
  std::vector<double> logs;
  for (double x : ln) {
    REQUIRE(x > 0);
    logs.push_back(std::log(x));
  }
  CHECK(std::abs(mean_of(logs) - 0.5) < 0.01);
  CHECK(std::abs(std::sqrt(var_of(logs)) - 0.25) < 0.01);
  auto ca = values(torch::empty({20001}, torch::kDouble).cauchy_(2.0, 0.5));
  std::sort(ca.begin(), ca.end());
  CHECK(std::abs(ca[10000] - 2.0) < 0.03);           // the median
  CHECK(std::abs((ca[15000] - ca[5000]) - 1.0) < 0.05);  // the interquartile range is 2 sigma
  auto ge = values(torch::empty({20000}, torch::kInt).geometric_(0.25));
  for (double x : ge) REQUIRE((x >= 1 && x == std::floor(x)));
  CHECK(std::abs(mean_of(ge) - 4.0) < 0.1);  // 1 / p
  // The draws do not depend on the old values, and they overwrite them: no gradient flows back.
  at::Tensor leaf = torch::ones({3}, torch::requires_grad());
  at::Tensor y = leaf * 1;
  y.log_normal_();
  y.sum().backward();
  CHECK(values(leaf.grad()) == std::vector<double>{0, 0, 0});

  CHECK_THROWS_WITH(torch::empty({3}).log_normal_(0, 0), Catch::StartsWith("[log_normal_] expected std > 0; got std 0"));
  CHECK_THROWS_WITH(torch::empty({3}, torch::kLong).log_normal_(), Catch::StartsWith("[log_normal_] expected a floating-point"));
  CHECK_THROWS_WITH(torch::empty({3}).cauchy_(0, -1), Catch::StartsWith("[cauchy_] expected sigma > 0; got sigma -1"));
  CHECK_THROWS_WITH(torch::empty({3}, torch::kInt).cauchy_(), Catch::StartsWith("[cauchy_] expected a floating-point"));
  CHECK_THROWS_WITH(torch::empty({3}).geometric_(0), Catch::StartsWith("[geometric_] expected 0 < p < 1; got p 0"));
  CHECK_THROWS_WITH(torch::empty({3}).geometric_(1), Catch::StartsWith("[geometric_] expected 0 < p < 1; got p 1"));
  CHECK_THROWS_WITH(torch::empty({3}).geometric_(std::nan("")), Catch::StartsWith("[geometric_] expected 0 < p < 1"));
  CHECK_THROWS_WITH(torch::empty({3}, torch::kBool).geometric_(0.5), Catch::StartsWith("[geometric_] expected a numeric tensor"));
  CHECK_THROWS_WITH(torch::empty({3}).log_normal_(0, std::nan("")), Catch::StartsWith("[log_normal_] expected std > 0"));
  // Empty tensors draw nothing and leave the stream where it was.
  torch::manual_seed(3);
  torch::empty({0}).cauchy_();
  torch::empty({2, 0}, torch::kLong).geometric_(0.5);
  const double next = torch::rand({1}, torch::kDouble).item<double>();
  torch::manual_seed(3);
  CHECK(torch::rand({1}, torch::kDouble).item<double>() == next);
  // Meta tensors: the checks without the draws.
  CHECK(torch::empty({2, 3}, torch::kMeta).log_normal_().sizes() == at::IntArrayRef({2, 3}));
  CHECK_THROWS_WITH(torch::empty({2}, torch::kMeta).geometric_(2), Catch::StartsWith("[geometric_] expected 0 < p < 1"));
}

TEST_CASE("normal with tensor parameters: shapes, zero gradients, node names and refusals", "[random]") {
  at::Tensor mean = torch::zeros({3}, torch::requires_grad());
  at::Tensor std = torch::ones({2, 1}, torch::requires_grad());
  at::Tensor a = at::normal(mean, 1.0), b = at::normal(1.0, std), c = at::normal(mean, std);
  CHECK(a.sizes() == at::IntArrayRef({3}));
  CHECK(b.sizes() == at::IntArrayRef({2, 1}));
  CHECK(c.sizes() == at::IntArrayRef({2, 3}));  // mean and std broadcast
  // libtorch's node names; the draws do not depend on mean and std, so their gradients are zero.
  CHECK(a.grad_fn()->name() == "NormalBackward1");
  CHECK(b.grad_fn()->name() == "NormalBackward2");
  CHECK(c.grad_fn()->name() == "NormalBackward3");
  (a.sum() + b.sum() + c.sum()).backward();
  CHECK(values(mean.grad()) == std::vector<double>{0, 0, 0});
  CHECK(values(std.grad()) == std::vector<double>{0, 0});
  CHECK(std.grad().sizes() == at::IntArrayRef({2, 1}));
  // std = 0 gives the mean exactly; mean and std are taken per element.
  at::Tensor m = torch::tensor({-1.5, 0.0, 2.25, 1e300}, torch::kDouble);
  CHECK(values(at::normal(m, 0.0)) == values(m));
  CHECK(values(at::normal(m, torch::zeros({4}, torch::kDouble))) == values(m));
  at::Tensor wide = at::normal(torch::tensor({0.0, 100.0}).expand({5000, 2}), torch::tensor({1.0, 0.01}));
  CHECK(std::abs(wide.select(1, 0).mean().item<double>()) < 0.05);
  CHECK(std::abs(wide.select(1, 1).mean().item<double>() - 100.0) < 0.001);
  CHECK(std::abs(wide.select(1, 1).std().item<double>() - 0.01) < 0.001);
  at::Tensor f = torch::normal(2.0, 0.0, {2, 2}, std::nullopt, torch::kHalf);
  CHECK(f.scalar_type() == at::kHalf);
  CHECK(values(f) == std::vector<double>(4, 2.0));

  CHECK_THROWS_WITH(at::normal(torch::zeros({3}), -1.0), Catch::StartsWith("[normal] expected std >= 0; got -1"));
  CHECK_THROWS_WITH(at::normal(torch::zeros({3}), torch::tensor({1.0f, -1.0f, 2.0f})),
                    Catch::StartsWith("[normal] expected every element of std to be >= 0; got -1"));
  CHECK_THROWS_WITH(at::normal(0.0, torch::tensor({1.0f, NAN})), Catch::StartsWith("[normal] expected every element of std to be >= 0; got nan"));
  CHECK_THROWS_WITH(at::normal(torch::zeros({3}, torch::kLong), 1.0), Catch::StartsWith("[normal] expected a floating-point mean; got int64"));
  CHECK_THROWS_WITH(at::normal(0.0, torch::ones({3}, torch::kInt)), Catch::StartsWith("[normal] expected a floating-point std; got int32"));
  CHECK_THROWS_WITH(at::normal(torch::zeros({3}), torch::ones({2})), Catch::Contains("[normal]"));
  CHECK(at::normal(torch::zeros({0}), torch::ones({0})).numel() == 0);
}

TEST_CASE("randint_like, rand_like and randperm with generators", "[random]") {
  at::Tensor x = torch::zeros({4, 5}, torch::kInt);
  at::Tensor r = torch::randint_like(x, -3, 3);
  CHECK(r.scalar_type() == at::kInt);
  CHECK(r.sizes() == x.sizes());
  for (double v : values(r)) CHECK((v >= -3 && v < 3));
  CHECK(torch::randint_like(torch::zeros({3}), 4, torch::kLong).scalar_type() == at::kLong);
  CHECK_THROWS_WITH(torch::randint_like(x, 5, 5), Catch::StartsWith("[randint_like] expected low < high; got low 5, high 5"));
  CHECK_THROWS_WITH(torch::randint_like(x, 0), Catch::StartsWith("[randint_like] expected low < high; got low 0, high 0"));
  // An explicit generator draws from its own stream and leaves the default one alone.
  at::Generator g1 = at::make_generator<at::CPUGeneratorImpl>(5), g2 = at::make_generator<at::CPUGeneratorImpl>(5);
  torch::manual_seed(1);
  const double untouched = torch::rand({1}, torch::kDouble).item<double>();
  torch::manual_seed(1);
  at::Tensor p1 = torch::randperm(30, g1);
  CHECK(torch::rand({1}, torch::kDouble).item<double>() == untouched);
  at::Tensor p2 = torch::randperm(30, g2);
  CHECK(values(p1) == values(p2));
  torch::manual_seed(5);  // the default generator at the same seed: the same permutation
  CHECK(values(torch::randperm(30)) == values(p1));
  CHECK(values(std::get<0>(p1.sort())) == values(torch::arange(30, torch::kLong)));
  CHECK(torch::randperm(4, g1, torch::kInt).scalar_type() == at::kInt);
  CHECK(torch::randperm(4, torch::TensorOptions().device(torch::kMeta)).scalar_type() == at::kLong);
  CHECK(values(torch::rand_like(x.to(torch::kFloat), g1)) != values(torch::rand_like(x.to(torch::kFloat), g1)));
}

TEST_CASE("bernoulli_ with a tensor of probabilities", "[random]") {
  torch::manual_seed(2);
  at::Tensor probs = torch::tensor({0.0, 0.25, 1.0}, torch::kDouble);
  auto v = values(torch::empty({20000, 3}).bernoulli_(probs));
  double ones[3] = {0, 0, 0};
  for (size_t i = 0; i < v.size(); ++i) ones[i % 3] += v[i];
  CHECK(ones[0] == 0);
  CHECK(ones[2] == 20000);
  CHECK(std::abs(ones[1] / 20000 - 0.25) < 0.02);
  // p may alias self: the probabilities are read before any draw is written.
  at::Tensor x = torch::full({6}, 1.0);
  x.bernoulli_(x);
  CHECK(values(x) == std::vector<double>(6, 1.0));
  at::Tensor keep = torch::full({3}, 7.0);
  CHECK_THROWS_WITH(keep.bernoulli_(torch::tensor({0.5, NAN, 0.5})),
                    Catch::StartsWith("[bernoulli_] expected all probabilities in [0, 1]; got nan at flat index 1"));
  CHECK(values(keep) == std::vector<double>(3, 7.0));  // a refusal writes nothing
  CHECK_THROWS_WITH(keep.bernoulli_(torch::tensor({-0.5, 0.5, 0.5})), Catch::StartsWith("[bernoulli_] expected all probabilities in [0, 1]; got -0.5"));
  CHECK_THROWS_WITH(keep.bernoulli_(torch::tensor({1, 0, 1})), Catch::StartsWith("[bernoulli_] expected a floating-point tensor of probabilities p; got int64"));
  CHECK_THROWS_WITH(keep.bernoulli_(torch::ones({2}) * 0.5), Catch::StartsWith("[bernoulli_] expected sizes that broadcast"));
  CHECK_THROWS_WITH(keep.bernoulli_(torch::ones({2, 3}) * 0.5), Catch::StartsWith("[bernoulli_] expected p to broadcast to self's shape [3]; got p of shape [2, 3]"));
  // Not differentiable through the draws: the gradients to self and p are zero.
  at::Tensor p = torch::full({3}, 0.5, torch::requires_grad());
  at::Tensor s = torch::ones({3}, torch::requires_grad()) * 1;
  s.bernoulli_(p);
  s.sum().backward();
  CHECK(values(p.grad()) == std::vector<double>{0, 0, 0});
}
