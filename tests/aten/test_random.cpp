// Random ops: reproducibility under manual_seed / explicit generators, and loose statistics.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include "random_cases.h"
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
