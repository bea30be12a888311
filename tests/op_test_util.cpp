#include "op_test_util.h"
#include <ATen/Context.h>
#include <ATen/TensorIterator.h>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace ember_test {

// The generated tests compare float32 CUDA convolutions with the CPU's at float32 tolerance, so the
// test binary holds cuDNN to float32 math (libtorch's default, and the library's, lets float32
// convolutions use TF32). Tests that exercise TF32 turn it on for their scope.
namespace {
const bool kConvolutionsInFloat32 = (at::globalContext().setAllowTF32CuDNN(false), true);
}  // namespace

double tol(at::ScalarType dt) {
  switch (dt) {
    case at::kFloat: return 1e-4;
    case at::kDouble: return 1e-10;
    case at::kHalf: return 4e-3;
    case at::kBFloat16: return 3e-2;
    default: return 0.0;
  }
}

std::vector<double> to_double_vec(const at::Tensor& t) {
  at::Tensor c = t.to(at::kCPU).to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void assert_close(const at::Tensor& a, const at::Tensor& b, double tolerance) {
  REQUIRE(a.defined() == b.defined());
  if (!a.defined()) return;
  INFO("shapes " << a.sizes() << " vs " << b.sizes());
  REQUIRE(a.sizes() == b.sizes());
  auto va = to_double_vec(a), vb = to_double_vec(b);
  double worst = 0;
  int64_t wi = -1;
  for (size_t i = 0; i < va.size(); ++i) {
    if (std::isnan(va[i]) && std::isnan(vb[i])) continue;
    if (va[i] == vb[i]) continue;
    double err = std::fabs(va[i] - vb[i]) / (1.0 + std::fabs(vb[i]));
    if (std::isnan(err)) err = INFINITY;
    if (err > worst) { worst = err; wi = static_cast<int64_t>(i); }
  }
  INFO("worst element " << wi << ": " << (wi >= 0 ? va[wi] : 0) << " vs " << (wi >= 0 ? vb[wi] : 0) << " (relative error "
                        << worst << ", tolerance " << tolerance << ")");
  CHECK(worst <= tolerance);
}

bool inplace_ok(const at::Tensor& self, const at::Tensor& result) {
  return self.sizes() == result.sizes() && ember::can_cast(result.scalar_type(), self.scalar_type());
}

}  // namespace ember_test

bool ember_test::is_listed_cuda_gap(const std::string& message) {
  const std::string key = "(op ";
  const size_t at = message.rfind(key);
  if (at == std::string::npos || message.find("no kernel for CUDA") == std::string::npos) return false;
  const std::string name = message.substr(at + key.size(), message.size() - at - key.size() - 1);
  for (size_t i = 0; i < kNumOpsWithoutCuda; ++i)
    if (name == kOpsWithoutCuda[i]) return true;
  return false;
}

// ---------------------------------------------------------------- golden data
namespace {
struct GoldenOutput {
  std::string dtype;
  std::vector<int64_t> sizes;
  std::vector<double> values;
};
struct GoldenRecord {
  bool raises = false;
  std::string message;
  std::vector<GoldenOutput> outputs;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t a = 0;
  for (size_t b; (b = s.find(sep, a)) != std::string::npos; a = b + 1) out.push_back(s.substr(a, b - a));
  out.push_back(s.substr(a));
  return out;
}

// The golden records: EMBER_GOLDEN_FILE (the source tree's, compiled in), or $EMBER_GOLDEN when set
// (a test binary carried to another machine, where the source tree sits elsewhere).
const char* golden_file() {
  const char* env = std::getenv("EMBER_GOLDEN");
  return env && *env ? env : EMBER_GOLDEN_FILE;
}

const std::unordered_map<std::string, GoldenRecord>& golden() {
  static const std::unordered_map<std::string, GoldenRecord> table = [] {
    std::unordered_map<std::string, GoldenRecord> t;
    std::ifstream in(golden_file());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      auto f = split(line, '\t');
      if (f.size() < 4) continue;
      GoldenRecord& r = t[f[0]];
      if (f[2] == "raises") {
        r.raises = true;
        r.message = f[3];
        continue;
      }
      if (f.size() < 6) continue;
      GoldenOutput o;
      o.dtype = f[3];
      const std::string dims = f[4].substr(1, f[4].size() - 2);
      if (!dims.empty()) for (auto& d : split(dims, ',')) o.sizes.push_back(std::stoll(d));
      std::istringstream vs(f[5]);
      std::string v;
      while (vs >> v) o.values.push_back(std::strtod(v.c_str(), nullptr));
      r.outputs.push_back(std::move(o));
    }
    return t;
  }();
  return table;
}

const char* dtype_tag(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kLong: return "int64";
    case at::kInt: return "int32";
    case at::kShort: return "int16";
    case at::kChar: return "int8";
    case at::kByte: return "uint8";
    case at::kBool: return "bool";
    default: return "other";
  }
}
}  // namespace

bool ember_test::golden_raises(const std::string& name) {
  auto it = golden().find(name);
  return it != golden().end() && it->second.raises;
}

std::vector<std::string> ember_test::golden_names() {
  std::vector<std::string> v;
  for (const auto& kv : golden()) v.push_back(kv.first);
  return v;
}

void ember_test::check_golden(const std::string& name, const std::vector<at::Tensor>& outputs, double tol) {
  auto it = golden().find(name);
  if (it == golden().end())
    FAIL("no golden record named '" << name << "' in " << golden_file() << ": run tools/golden/run after changing samples");
  const GoldenRecord& g = it->second;
  INFO("golden record of " << name << " (libtorch)");
  REQUIRE_FALSE(g.raises);
  REQUIRE(outputs.size() == g.outputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    const GoldenOutput& o = g.outputs[k];
    const at::Tensor& t = outputs[k];
    INFO("output " << k);
    CHECK(std::string(dtype_tag(t.scalar_type())) == o.dtype);
    REQUIRE(t.sizes().vec() == o.sizes);
    const std::vector<double> got = to_double_vec(t);
    REQUIRE(got.size() == o.values.size());
    const double tl = tol >= 0 ? tol : ember_test::tol(t.scalar_type());
    double worst = 0;
    int64_t worst_at = -1;
    for (size_t i = 0; i < got.size(); ++i) {
      const double a = got[i], b = o.values[i];
      double err;
      if (std::isnan(b) || std::isnan(a)) err = (std::isnan(a) && std::isnan(b)) ? 0 : INFINITY;
      else if (std::isinf(b) || std::isinf(a)) err = a == b ? 0 : INFINITY;
      else err = std::abs(a - b) / (1 + std::abs(b));
      if (err > worst) { worst = err; worst_at = static_cast<int64_t>(i); }
    }
    INFO("worst element " << worst_at << ": " << (worst_at >= 0 ? got[worst_at] : 0.0) << " vs libtorch "
                          << (worst_at >= 0 ? o.values[worst_at] : 0.0));
    CHECK(worst <= tl);
  }
}
