#include "op_test_util.h"
#include <ATen/TensorIterator.h>

namespace ember_test {

at::Tensor make_input(std::vector<int64_t> shape, at::ScalarType dtype, const std::string& layout, double lo, double hi,
                      Rng& rng, int64_t index_bound) {
  std::vector<int64_t> base = shape;
  if (layout == "transposed") std::reverse(base.begin(), base.end());
  if (layout == "strided") for (auto& s : base) s *= 2;
  if (layout == "expanded" && !base.empty()) base[0] = 1;
  int64_t n = 1;
  for (auto s : base) n *= s;
  std::vector<double> v(n);
  std::uniform_real_distribution<double> u(lo, hi);
  for (auto& x : v) {
    if (index_bound >= 0) x = static_cast<double>(rng() % static_cast<uint64_t>(std::max<int64_t>(index_bound, 1)));
    else if (dtype == at::kBool) x = static_cast<double>(rng() & 1);
    else if (c10::isIntegralType(dtype, false)) x = std::floor(u(rng));
    else x = u(rng);
  }
  at::Tensor t = at::empty(base, at::kDouble);
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  t = t.to(dtype);
  if (layout == "transposed") {
    std::vector<int64_t> perm(base.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(perm.size() - 1 - i);
    t = t.permute(perm);
  } else if (layout == "strided") {
    for (int64_t d = 0; d < t.dim(); ++d) t = t.slice(d, 0, std::nullopt, 2);
  } else if (layout == "expanded") {
    t = t.expand(shape);
  }
  REQUIRE(t.sizes().vec() == shape);
  return t;
}

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
