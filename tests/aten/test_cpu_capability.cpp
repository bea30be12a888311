// CPU capability levels (Note [CPU capability levels] in ATen/native/DispatchStub.h): the stub
// mechanics, and the kernels of every level this CPU has against each other and against float64
// references (the whole suite also runs once per level: ctest cpu_level.*).
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include <ATen/native/DispatchStub.h>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cpu_capability_test {
using at::native::CPUCapability;

int impl_default(int x) { return x + 1; }
int impl_avx2(int x) { return x + 2; }

// The levels this CPU can run, lowest first.
std::vector<CPUCapability> runnable_levels() {
  std::vector<CPUCapability> out;
  for (int k = 0; k <= static_cast<int>(at::native::get_cpu_capability_supported()); ++k)
    if (at::native::cpu_capability_compiled(static_cast<CPUCapability>(k))) out.push_back(static_cast<CPUCapability>(k));
  return out;
}

// Restores the process's level when a test that switches levels ends (also on failure).
struct LevelGuard {
  CPUCapability saved = at::native::get_cpu_capability();
  ~LevelGuard() { at::native::set_cpu_capability_for_testing(saved); }
};

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Equal as bit patterns, except that any NaN equals any NaN.
bool same_bits(const torch::Tensor& a, const torch::Tensor& b) {
  auto x = a.contiguous(), y = b.contiguous();
  if (x.sizes() != y.sizes()) return false;
  const float *p = x.data_ptr<float>(), *q = y.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (std::isnan(p[i]) && std::isnan(q[i])) continue;
    if (bits(p[i]) != bits(q[i])) return false;
  }
  return true;
}

// Inputs that find bugs: specials, denormals, extremes, and a spread of ordinary values.
torch::Tensor hard_floats() {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1e-45f, -1e-45f, 1e-38f, 3.4e38f, -3.4e38f,
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(), 88.7f, -87.3f, 100.0f, -100.0f, 9.0f, -9.2f,
                          0.55f, -0.549f, 1e-4f, 20.0f};
  for (int i = 0; i < 1000; ++i) v.push_back(std::sin(i * 0.37f) * (1 + i % 50));
  return torch::from_blob(v.data(), {static_cast<int64_t>(v.size())}, torch::kFloat).clone();
}
}  // namespace cpu_capability_test

using namespace cpu_capability_test;

TEST_CASE("DispatchStub picks the best registered level at or below the requested one", "[cpu_capability]") {
  // A stub of this test's own (not listed, so set_cpu_capability_for_testing leaves it alone).
  static at::native::DispatchStub<int (*)(int)> stub;
  CHECK(stub.at_level(CPUCapability::AVX512) == nullptr);
  stub.impl[0] = &impl_default;
  stub.impl[1] = &impl_avx2;
  CHECK(stub.at_level(CPUCapability::DEFAULT) == &impl_default);
  CHECK(stub.at_level(CPUCapability::AVX2) == &impl_avx2);
  CHECK(stub.at_level(CPUCapability::AVX512) == &impl_avx2);  // none at AVX512: the AVX2 one
  const int expect = at::native::get_cpu_capability() == CPUCapability::DEFAULT ? 11 : 12;
  CHECK(stub(10) == expect);
}

TEST_CASE("the chosen level never exceeds what the CPU supports and follows EMBER_CPU_CAPABILITY", "[cpu_capability]") {
  const auto level = at::native::get_cpu_capability();
  const auto supported = at::native::get_cpu_capability_supported();
  CHECK(static_cast<int>(level) <= static_cast<int>(supported));
  CHECK(at::native::cpu_capability_compiled(CPUCapability::DEFAULT));
  CHECK(std::string(at::native::cpu_capability_name(CPUCapability::AVX2)) == "AVX2");
  if (const char* env = std::getenv("EMBER_CPU_CAPABILITY")) {
    std::string want(env);
    for (auto& ch : want) ch = static_cast<char>(std::toupper(ch));
    int w = want == "DEFAULT" ? 0 : want == "AVX2" ? 1 : want == "AVX512" ? 2 : static_cast<int>(supported);
    CHECK(static_cast<int>(level) == std::min(w, static_cast<int>(supported)));
  } else {
    // Without the variable the best level compiled in runs.
    int best = 0;
    for (int k = 0; k <= static_cast<int>(supported); ++k)
      if (at::native::cpu_capability_compiled(static_cast<CPUCapability>(k))) best = k;
    CHECK(static_cast<int>(level) >= best);
  }
}

TEST_CASE("set_cpu_capability_for_testing switches every kernel and clamps to the CPU", "[cpu_capability]") {
  LevelGuard guard;
  at::native::set_cpu_capability_for_testing(CPUCapability::DEFAULT);
  CHECK(at::native::get_cpu_capability() == CPUCapability::DEFAULT);
  auto x = torch::linspace(-3, 3, 1000);
  auto at_default = torch::exp(x);
  at::native::set_cpu_capability_for_testing(CPUCapability::AVX512);
  CHECK(at::native::get_cpu_capability() == at::native::get_cpu_capability_supported());
  // Different levels may differ in the last bit; never by more than the documented bound.
  CHECK(torch::allclose(torch::exp(x), at_default, 4e-7, 0));
}

TEST_CASE("every level computes pointwise functions within their bounds of a float64 reference", "[cpu_capability]") {
  LevelGuard guard;
  const auto x = hard_floats();
  const auto xd = x.to(torch::kDouble);
  struct Case {
    const char* name;
    torch::Tensor (*f)(const torch::Tensor&);
    double ulps;
  };
  const Case cases[] = {
      {"exp", [](const torch::Tensor& t) { return torch::exp(t); }, 1.0},
      {"tanh", [](const torch::Tensor& t) { return torch::tanh(t); }, 1.0},
      {"sigmoid", [](const torch::Tensor& t) { return torch::sigmoid(t); }, 3.0},
      {"log1p", [](const torch::Tensor& t) { return torch::log1p(t); }, 1.0},
      {"sqrt", [](const torch::Tensor& t) { return torch::sqrt(t); }, 0.5},
  };
  for (auto level : runnable_levels()) {
    at::native::set_cpu_capability_for_testing(level);
    for (const auto& c : cases) {
      INFO("level " << at::native::cpu_capability_name(level) << ", " << c.name);
      const auto got = c.f(x);
      const auto ref = c.f(xd);  // double kernels: far more accurate than a float ulp
      const float* g = got.data_ptr<float>();
      const double* r = ref.data_ptr<double>();
      double worst = 0;
      int64_t worst_i = 0;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const float rf = static_cast<float>(r[i]);
        if (std::isnan(r[i]) || std::isinf(rf)) {
          // Special results must match exactly (NaN for NaN, the same infinity).
          const bool ok = std::isnan(r[i]) ? std::isnan(g[i]) : g[i] == rf;
          if (!ok) INFO("input " << x[i].item<float>() << " got " << g[i] << " want " << rf);
          CHECK((std::isnan(r[i]) ? std::isnan(g[i]) : g[i] == rf));
          continue;
        }
        // Below the normal range the float formulas may lose the subnormal digits (sigmoid(-100)
        // is 1 / (1 + inf) = 0, as in libtorch): there the bound is an absolute FLT_MIN.
        const double ulp = std::fabs(r[i]) < FLT_MIN ? FLT_MIN : std::nextafter(std::fabs(rf), INFINITY) - std::fabs(rf);
        const double err = std::fabs(static_cast<double>(g[i]) - r[i]) / ulp;
        if (err > worst) worst = err, worst_i = i;
      }
      INFO("worst input " << x[worst_i].item<float>() << ": " << worst << " ulp");
      CHECK(worst <= c.ulps + 0.5);  // + 0.5: the reference itself rounded to float
    }
  }
}

TEST_CASE("a strided, transposed or expanded input gives the contiguous result at every level", "[cpu_capability]") {
  LevelGuard guard;
  for (auto level : runnable_levels()) {
    at::native::set_cpu_capability_for_testing(level);
    INFO("level " << at::native::cpu_capability_name(level));
    auto base = hard_floats().narrow(0, 0, 1000).reshape({40, 25});
    auto t = base.t();  // transposed view
    CHECK(same_bits(torch::exp(t), torch::exp(t.contiguous())));
    CHECK(same_bits(torch::tanh(t), torch::tanh(t.contiguous())));
    auto s = base.reshape({-1}).slice(0, 1, 1000, 3);  // strided view
    CHECK(same_bits(torch::sigmoid(s), torch::sigmoid(s.contiguous())));
    auto row = base[3];
    auto e = row.unsqueeze(0).expand({7, 25});  // expanded (stride 0)
    CHECK(same_bits(torch::exp(e), torch::exp(e.contiguous())));
    for (int64_t n = 1; n <= 33; ++n) {  // every tail length of every vector width
      auto v = base.reshape({-1}).narrow(0, 5, n);
      CHECK(same_bits(torch::exp(v), torch::exp(base.reshape({-1})).narrow(0, 5, n)));
    }
  }
}

TEST_CASE("the fused LSTM step gives the same bits at every level", "[cpu_capability]") {
  // Note [LSTM gate activations in float]: the own activations are the same operations at every
  // level (SIMD lanes or one float at a time). Hidden size 21: full vectors and a partial one.
  LevelGuard guard;
  torch::manual_seed(3);
  auto lstm = torch::nn::LSTM(torch::nn::LSTMOptions(6, 21));
  auto x = torch::randn({5, 3, 6}) * 4;  // large pre-activations reach the saturated branches
  std::vector<torch::Tensor> outs;
  std::vector<CPUCapability> levels = runnable_levels();
  for (auto level : levels) {
    at::native::set_cpu_capability_for_testing(level);
    outs.push_back(std::get<0>(lstm->forward(x)));
  }
  for (size_t k = 1; k < outs.size(); ++k) {
    INFO("level " << at::native::cpu_capability_name(levels[k]) << " against DEFAULT");
    CHECK(same_bits(outs[k], outs[0]));
  }
}

TEST_CASE("copies and dtype conversions agree between levels", "[cpu_capability]") {
  LevelGuard guard;
  const auto x = hard_floats().narrow(0, 0, 1024).reshape({32, 32});
  std::vector<torch::Tensor> ref;
  for (auto level : runnable_levels()) {
    at::native::set_cpu_capability_for_testing(level);
    std::vector<torch::Tensor> got = {x.t().contiguous(), x.to(torch::kHalf).to(torch::kFloat),
                                      x.to(torch::kBFloat16).to(torch::kFloat), x.t().to(torch::kDouble).to(torch::kFloat)};
    if (ref.empty()) {
      ref = got;
      // The transpose against an element-by-element reference.
      auto xc = x.contiguous();
      bool ok = true;
      for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 32; ++j)
          ok = ok && bits(got[0][i][j].item<float>()) == bits(xc[j][i].item<float>());
      CHECK(ok);
      continue;
    }
    for (size_t k = 0; k < got.size(); ++k) {
      INFO("level " << at::native::cpu_capability_name(level) << ", conversion " << k);
      CHECK(same_bits(got[k], ref[k]));
    }
  }
}
