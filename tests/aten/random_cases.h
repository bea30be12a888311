#pragma once
// The random calls whose results tests/aten/test_random.cpp compares with libtorch's. The same
// header compiles against libtorch (tests/aten/libtorch/record_random.cpp writes the reference
// values to tests/aten/reference_random.inc) and against Ember, so both run identical code.
// Each case seeds the default generator itself; a case whose name starts with "approx." is
// compared with a tolerance (a QR factorisation in between), every other one exactly.
#include <torch/torch.h>
#include <ATen/CPUGeneratorImpl.h>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace random_cases {

using Case = std::pair<std::string, std::function<torch::Tensor()>>;

inline torch::Tensor words(std::vector<uint64_t> w) {
  std::vector<double> v(w.begin(), w.end());
  return torch::tensor(v, torch::kDouble);
}

/// A fixed input with both signs and exact values in every dtype: ((7 j + k) mod 11 - 5) / 8.
inline torch::Tensor wave(std::vector<int64_t> shape, int k, torch::Dtype dt = torch::kFloat) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return ((torch::arange(n, torch::kDouble) * 7 + k).remainder(11) - 5).div(8).reshape(shape).to(dt);
}

inline torch::Tensor params(const torch::nn::Module& m) {
  std::vector<torch::Tensor> flat;
  for (const auto& p : m.parameters()) flat.push_back(p.detach().reshape({-1}).to(torch::kDouble));
  return torch::cat(flat);
}

inline std::vector<Case> all() {
  using torch::Tensor;
  std::vector<Case> c;
  auto seeded = [&c](const std::string& name, uint64_t seed, std::function<Tensor()> f) {
    c.push_back({name, [seed, f] { torch::manual_seed(seed); return f(); }});
  };
  // The engine.
  c.push_back({"engine.random", [] {
    auto g = at::make_generator<at::CPUGeneratorImpl>(1);
    std::vector<uint64_t> w;
    for (int i = 0; i < 6; ++i) w.push_back(g.get<at::CPUGeneratorImpl>()->random());
    for (int i = 0; i < 2; ++i) {
      const uint64_t x = g.get<at::CPUGeneratorImpl>()->random64();
      w.push_back(x >> 32);
      w.push_back(x & 0xffffffffu);
    }
    return words(w);
  }});
  c.push_back({"engine.large_seed", [] {
    auto g = at::make_generator<at::CPUGeneratorImpl>(0x123456789abcdefULL);
    std::vector<uint64_t> w;
    for (int i = 0; i < 700; ++i) {  // past one regeneration of the 624-word state
      const uint32_t x = g.get<at::CPUGeneratorImpl>()->random();
      if (i % 100 == 0 || i > 620) w.push_back(x);
    }
    w.push_back(g.current_seed() >> 32);
    w.push_back(g.current_seed() & 0xffffffffu);
    return words(w);
  }});
  c.push_back({"engine.default_seed", [] { return words({at::make_generator<at::CPUGeneratorImpl>().current_seed()}); }});
  c.push_back({"engine.set_current_seed", [] {
    auto g = at::make_generator<at::CPUGeneratorImpl>(5);
    g.set_current_seed(9);
    return torch::cat({torch::rand({3}, g), torch::randn({3}, g)}).to(torch::kDouble);
  }});
  // Uniform.
  for (int64_t n : {1, 15, 16, 17, 33}) seeded("rand.float." + std::to_string(n), 0, [n] { return torch::rand({n}); });
  seeded("rand.double", 1, [] { return torch::rand({5}, torch::kDouble); });
  seeded("rand.half", 7, [] { return torch::rand({20}, torch::kHalf); });
  seeded("rand.bfloat16", 7, [] { return torch::rand({20}, torch::kBFloat16); });
  for (auto dt : {torch::kFloat, torch::kDouble, torch::kHalf, torch::kBFloat16})
    seeded(std::string("uniform.range.") + c10::toString(dt), 2, [dt] { return torch::empty({40}, dt).uniform_(-2.3, 3.7); });
  seeded("uniform.half.wide", 2, [] { return torch::empty({200}, torch::kHalf).uniform_(0, 1000); });
  seeded("uniform.empty_span", 2, [] { return torch::empty({3}).uniform_(1.5, 1.5); });
  seeded("uniform.transposed", 3, [] {
    Tensor base = torch::empty({3, 4});
    base.t().uniform_();
    return base;
  });
  seeded("uniform.step_sliced", 3, [] {
    Tensor base = torch::zeros({10});
    base.slice(0, 0, 10, 3).uniform_();
    return base;
  });
  seeded("uniform.permuted3d", 3, [] {
    Tensor base = torch::empty({2, 3, 4});
    base.permute({2, 0, 1}).uniform_(-1, 1);
    return base;
  });
  seeded("rand.generator", 3, [] {
    auto g = at::make_generator<at::CPUGeneratorImpl>(42);
    return torch::cat({torch::rand({4}, g), torch::rand({2}), torch::rand({4}, g)});
  });
  // Normal.
  for (int64_t n : {1, 4, 15, 16, 17, 33, 100}) seeded("randn.float." + std::to_string(n), 1, [n] { return torch::randn({n}); });
  for (int64_t n : {15, 16, 17, 33})
    seeded("randn.double." + std::to_string(n), 1, [n] { return torch::randn({n}, torch::kDouble); });
  for (int64_t n : {15, 16, 17, 33}) seeded("randn.half." + std::to_string(n), 1, [n] { return torch::randn({n}, torch::kHalf); });
  seeded("randn.bfloat16.17", 1, [] { return torch::randn({17}, torch::kBFloat16); });
  seeded("randn.float.large", 5, [] { return torch::randn({4096}); });
  seeded("normal.float.33", 4, [] { return torch::empty({33}).normal_(0.5, 2.0); });
  seeded("normal.double.33", 4, [] { return torch::empty({33}, torch::kDouble).normal_(0.5, 2.0); });
  seeded("normal.float.7", 4, [] { return torch::empty({7}).normal_(0.5, 2.0); });
  seeded("normal.double.strided", 4, [] {
    Tensor base = torch::zeros({40}, torch::kDouble);
    base.slice(0, 0, 40, 2).normal_(0.37, 2.3);
    return base;
  });
  seeded("normal.transposed", 4, [] {
    Tensor base = torch::zeros({4, 5});
    base.t().normal_();
    return base;
  });
  seeded("randn.cache_across_calls", 6, [] {
    return torch::cat({torch::randn({3}), torch::randn({3}), torch::randn({20}), torch::randn({1}), torch::randn({2})});
  });
  c.push_back({"randn.reseed_clears_cache", [] {
    torch::manual_seed(6);
    torch::randn({3});
    torch::manual_seed(6);
    return torch::randn({3});
  }});
  // Integers.
  seeded("randint.small", 5, [] { return torch::randint(0, 10, {20}); });
  seeded("randint.int32", 5, [] { return torch::randint(-5, 5, {7}, torch::kInt); });
  seeded("randint.2to28", 5, [] { return torch::randint(0, int64_t(1) << 28, {5}); });
  seeded("randint.below2to28", 5, [] { return torch::randint(0, (int64_t(1) << 28) - 1, {5}); });
  seeded("randint.2to40", 5, [] { return torch::randint(-(int64_t(1) << 40), int64_t(1) << 40, {5}); });
  for (auto dt : {torch::kFloat, torch::kDouble, torch::kHalf, torch::kBFloat16, torch::kUInt8, torch::kInt8})
    seeded(std::string("randint.dtype.") + c10::toString(dt), 5, [dt] { return torch::randint(3, 10, {6}, dt); });
  for (auto dt : {torch::kUInt8, torch::kInt8, torch::kInt, torch::kLong, torch::kBool, torch::kFloat, torch::kHalf, torch::kDouble})
    seeded(std::string("random.from0.") + c10::toString(dt), 8, [dt] {
      return torch::empty({6}, dt).random_(0, std::optional<int64_t>()).to(torch::kDouble);
    });
  seeded("random.half.large_to", 8, [] { return torch::empty({6}, torch::kHalf).random_(2000, 65504); });
  seeded("random.full_range", 8, [] {
    Tensor r = torch::empty({4}, torch::kLong).random_(std::numeric_limits<int64_t>::min(), std::optional<int64_t>());
    return torch::cat({r.div(int64_t(1) << 32, "floor"), r.remainder(int64_t(1) << 32)});
  });
  seeded("randint.transposed", 8, [] {
    Tensor base = torch::empty({3, 5}, torch::kLong);
    base.t().random_(0, 100);
    return base;
  });
  // Bernoulli and exponential.
  seeded("bernoulli_.float", 11, [] { return torch::empty({37}).bernoulli_(0.3); });
  seeded("bernoulli_.double", 11, [] { return torch::empty({20}, torch::kDouble).bernoulli_(0.7); });
  for (auto dt : {torch::kInt, torch::kBool, torch::kHalf})
    seeded(std::string("bernoulli_.") + c10::toString(dt), 11, [dt] { return torch::empty({10}, dt).bernoulli_(0.5); });
  seeded("bernoulli_.transposed", 11, [] {
    Tensor base = torch::zeros({3, 4});
    base.t().bernoulli_(0.4);
    return base;
  });
  for (auto dt : {torch::kFloat, torch::kDouble, torch::kHalf})
    seeded(std::string("bernoulli.probs.") + c10::toString(dt), 12, [dt] {
      return torch::bernoulli(wave({4, 5}, 1, dt).abs() * 1.5);
    });
  seeded("bernoulli.probs.transposed", 12, [] { return torch::bernoulli(wave({5, 4}, 2).abs().t() * 1.5); });
  // bernoulli_(tensor p): p broadcast to self, draws in self's memory order.
  for (auto pdt : {torch::kFloat, torch::kDouble, torch::kHalf})
    seeded(std::string("bernoulli_.Tensor.") + c10::toString(pdt), 12, [pdt] {
      return torch::empty({4, 5}).bernoulli_(wave({5}, 1, pdt).abs() * 1.5);
    });
  seeded("bernoulli_.Tensor.transposed", 12, [] {
    Tensor base = torch::zeros({5, 4}, torch::kDouble);
    base.t().bernoulli_(wave({4, 5}, 3, torch::kDouble).abs() * 1.5);
    return base;
  });
  seeded("bernoulli_.Tensor.int_self", 12, [] {
    return torch::empty({3, 6}, torch::kInt).bernoulli_(wave({3, 1}, 2).abs() * 1.5).to(torch::kDouble);
  });
  for (auto dt : {torch::kFloat, torch::kDouble, torch::kHalf})
    seeded(std::string("exponential_.") + c10::toString(dt), 13, [dt] { return torch::empty({10}, dt).exponential_(2.5); });
  // log_normal_, cauchy_, geometric_.
  for (auto dt : {torch::kFloat, torch::kDouble, torch::kHalf, torch::kBFloat16})
    seeded(std::string("log_normal_.") + c10::toString(dt), 14, [dt] { return torch::empty({21}, dt).log_normal_(0.25, 0.75); });
  seeded("log_normal_.defaults", 14, [] { return torch::empty({5}, torch::kDouble).log_normal_(); });
  seeded("log_normal_.after_cached_normal", 14, [] {
    Tensor first = torch::randn({1}, torch::kDouble);  // leaves the second of its pair cached
    return torch::cat({first, torch::empty({4}, torch::kDouble).log_normal_(0, 1)});
  });
  seeded("log_normal_.transposed", 14, [] {
    Tensor base = torch::zeros({3, 4});
    base.t().log_normal_(0.5, 0.5);
    return base;
  });
  for (auto dt : {torch::kFloat, torch::kDouble, torch::kHalf, torch::kBFloat16})
    seeded(std::string("cauchy_.") + c10::toString(dt), 15, [dt] { return torch::empty({21}, dt).cauchy_(1.5, 0.25); });
  seeded("cauchy_.defaults", 15, [] { return torch::empty({6}, torch::kDouble).cauchy_(); });
  seeded("cauchy_.inexact_scale", 15, [] { return torch::empty({40}, torch::kDouble).cauchy_(0.7, 0.3); });
  seeded("log_normal_.inexact_scale", 15, [] { return torch::empty({40}, torch::kDouble).log_normal_(0.7, 0.3); });
  for (auto dt : {torch::kFloat, torch::kDouble, torch::kHalf, torch::kLong, torch::kInt, torch::kShort, torch::kInt8, torch::kUInt8})
    seeded(std::string("geometric_.") + c10::toString(dt), 16, [dt] { return torch::empty({15}, dt).geometric_(0.3).to(torch::kDouble); });
  // p = 0.002: draws past 127 and 255, which int8 and uint8 hold as libtorch's cast leaves them.
  for (auto dt : {torch::kInt8, torch::kUInt8, torch::kShort, torch::kFloat})
    seeded(std::string("geometric_.small_p.") + c10::toString(dt), 16, [dt] {
      return torch::empty({30}, dt).geometric_(0.002).to(torch::kDouble);
    });
  seeded("geometric_.transposed", 16, [] {
    Tensor base = torch::zeros({4, 3}, torch::kLong);
    base.t().geometric_(0.5);
    return base.to(torch::kDouble);
  });
  // normal with tensor parameters: one normal_ fill, then shifted and scaled. (In libtorch the tensor
  // forms are at::normal only: torch::normal is the factory.)
  seeded("normal.Tensor_float", 17, [] { return at::normal(wave({4, 5}, 1), 0.5); });
  seeded("normal.Tensor_float.short", 17, [] { return at::normal(wave({7}, 2, torch::kDouble)); });
  seeded("normal.float_Tensor", 17, [] { return at::normal(2.0, wave({4, 5}, 3).abs()); });
  seeded("normal.Tensor_Tensor", 17, [] { return at::normal(wave({3, 1}, 1), wave({1, 6}, 4).abs()); });
  seeded("normal.Tensor_Tensor.transposed", 17, [] { return at::normal(wave({4, 5}, 2).t(), wave({5, 4}, 5).abs()); });
  seeded("normal.float_float", 17, [] { return torch::normal(1.0, 3.0, {3, 7}); });
  seeded("normal.float_float.double", 17, [] { return torch::normal(-1.0, 0.5, {5}, std::nullopt, torch::kDouble); });
  seeded("normal.out", 17, [] {
    Tensor out = torch::empty({9}, torch::kDouble);  // libtorch refuses an out of another shape here
    at::normal_outf(wave({9}, 1, torch::kDouble), 2.0, std::nullopt, out);  // normal_out(out, mean, 2.0) is ambiguous in libtorch
    return out;
  });
  seeded("normal.generator", 17, [] {
    auto g = at::make_generator<at::CPUGeneratorImpl>(99);
    return torch::cat({at::normal(wave({5}, 1), 1.0, g), torch::normal(0.0, 1.0, {3}, g)});
  });
  // The *_like forms and randperm with a generator.
  seeded("randint_like.high", 18, [] { return torch::randint_like(wave({3, 4}, 1), 10); });
  seeded("randint_like.low_high.int", 18, [] {
    return torch::randint_like(torch::zeros({7}, torch::kInt), -4, 4).to(torch::kDouble);
  });
  seeded("randint_like.dtype", 18, [] { return torch::randint_like(wave({5}, 1), 0, 100, torch::kLong).to(torch::kDouble); });
  seeded("randint_like.transposed", 18, [] { return torch::randint_like(wave({3, 5}, 1).t(), 50).contiguous(); });
  seeded("like.generator", 18, [] {
    auto g = at::make_generator<at::CPUGeneratorImpl>(7);
    Tensor x = wave({2, 3}, 1);
    return torch::cat({torch::rand_like(x, g).reshape(-1), torch::randn_like(x, g).reshape(-1),
                       torch::randint_like(x, 5, g).reshape(-1), torch::randint_like(x, -5, 5, g).reshape(-1),
                       torch::rand({2})});
  });
  seeded("randperm.generator", 18, [] {
    auto g = at::make_generator<at::CPUGeneratorImpl>(21);
    return torch::cat({torch::randperm(12, g), torch::randperm(5), torch::randperm(12, g, torch::kLong)}).to(torch::kDouble);
  });
  // Permutations and sampling.
  for (int64_t n : {1, 2, 5, 17, 100}) seeded("randperm." + std::to_string(n), 3, [n] { return torch::randperm(n); });
  seeded("randperm.int", 3, [] { return torch::randperm(9, torch::kInt); });
  seeded("randperm.float", 3, [] { return torch::randperm(9, torch::kFloat); });
  const std::vector<double> probs{0.1, 0.0, 0.4, 0.2, 0.3, 0.05, 0.15};
  seeded("multinomial.replacement", 4, [probs] { return torch::multinomial(torch::tensor(probs, torch::kFloat), 12, true); });
  seeded("multinomial.replacement.double", 4, [probs] {
    return torch::multinomial(torch::tensor(probs, torch::kDouble), 12, true);
  });
  seeded("multinomial.replacement.2d", 4, [] { return torch::multinomial(wave({3, 6}, 3).abs() + 0.01, 8, true); });
  seeded("multinomial.one_sample", 4, [] { return torch::multinomial(wave({3, 6}, 3).abs(), 1, true); });
  seeded("multinomial.no_replacement", 4, [probs] { return torch::multinomial(torch::tensor(probs, torch::kFloat), 4); });
  seeded("multinomial.no_replacement.2d", 4, [] { return torch::multinomial(wave({3, 6}, 3).abs(), 5, false); });
  seeded("multinomial.unnormalised", 4, [] { return torch::multinomial(torch::tensor({3.0, 1.0, 6.0}), 10, true); });
  // Dropout and rrelu.
  seeded("dropout", 6, [] { return torch::dropout(torch::ones({5, 7}), 0.3, true); });
  seeded("dropout.double", 6, [] { return torch::dropout(torch::ones({9}, torch::kDouble), 0.5, true); });
  seeded("dropout.transposed", 6, [] { return torch::dropout(wave({4, 6}, 1).t(), 0.4, true).contiguous(); });
  seeded("dropout.feature", 6, [] { return torch::feature_dropout(torch::ones({3, 4, 2, 2}), 0.5, true); });
  seeded("dropout.alpha", 6, [] { return torch::alpha_dropout(wave({12}, 2), 0.2, true); });
  seeded("dropout.feature_alpha", 6, [] { return torch::feature_alpha_dropout(wave({2, 3, 4}, 2), 0.5, true); });
  seeded("dropout.module", 6, [] {
    torch::nn::Dropout d(0.25);
    return d->forward(wave({16}, 4));
  });
  for (auto dt : {torch::kFloat, torch::kDouble})
    seeded(std::string("rrelu.") + c10::toString(dt), 7, [dt] { return torch::rrelu(wave({17}, 3, dt), 0.1, 0.3, true); });
  // nn::init and the layers that use it.
  seeded("nn.Linear", 0, [] { return params(*torch::nn::Linear(4, 3)); });
  seeded("nn.Linear.big", 1, [] { return params(*torch::nn::Linear(20, 9)); });
  seeded("nn.Conv2d", 0, [] { return params(*torch::nn::Conv2d(torch::nn::Conv2dOptions(2, 3, 3))); });
  seeded("nn.Embedding", 0, [] { return params(*torch::nn::Embedding(5, 3)); });
  seeded("nn.LSTM", 0, [] { return params(*torch::nn::LSTM(3, 4)); });
  seeded("init.xavier_normal_", 0, [] { return torch::nn::init::xavier_normal_(torch::empty({5, 6})); });
  seeded("init.xavier_uniform_", 0, [] { return torch::nn::init::xavier_uniform_(torch::empty({5, 6}), 2.0); });
  seeded("init.kaiming_normal_", 0, [] {
    return torch::nn::init::kaiming_normal_(torch::empty({4, 3}), 0, torch::kFanOut, torch::kReLU);
  });
  seeded("init.kaiming_uniform_", 0, [] { return torch::nn::init::kaiming_uniform_(torch::empty({6, 2, 2})); });
  seeded("init.normal_", 0, [] { return torch::nn::init::normal_(torch::empty({3, 3}), 1.0, 0.5); });
  seeded("init.sparse_", 0, [] { return torch::nn::init::sparse_(torch::empty({6, 4}), 0.5); });
  seeded("init.sparse_.none_zero", 0, [] {
    Tensor t = torch::nn::init::sparse_(torch::empty({3, 2}), 0.0);
    return torch::cat({t.reshape({-1}), torch::rand({2})});
  });
  seeded("approx.init.orthogonal_", 0, [] { return torch::nn::init::orthogonal_(torch::empty({4, 6})); });
  seeded("approx.init.orthogonal_.tall", 0, [] { return torch::nn::init::orthogonal_(torch::empty({6, 3}), 2.0); });
  return c;
}

}  // namespace random_cases
