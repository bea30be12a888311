// Records the libtorch values that tests/aten/test_special_clamp.cpp compares with (not part of any
// build). Build and run from the repository root:
//   LT=.peer/libtorch; g++ -std=c++20 -O0 -D_GLIBCXX_USE_CXX11_ABI=1 -w -I$LT/include \
//     -I$LT/include/torch/csrc/api/include tests/aten/libtorch/record_special.cpp -L$LT/lib \
//     -ltorch_cpu -lc10 -Wl,-rpath,$LT/lib -Wl,--allow-shlib-undefined -o /tmp/record_sp && /tmp/record_sp
// Each line is a C++ initializer: {"name", {inputs...}, {libtorch outputs...}}.
#include <torch/torch.h>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {
void num(double v) {
  if (std::isnan(v)) std::printf("kNaN");
  else if (std::isinf(v)) std::printf(v > 0 ? "kInf" : "-kInf");
  else std::printf("%.17g", v);
}
void row(const std::string& name, const std::vector<double>& in, const torch::Tensor& out) {
  torch::Tensor c = out.detach().to(torch::kDouble).contiguous().reshape(-1);
  std::printf("    {\"%s\", {", name.c_str());
  for (size_t i = 0; i < in.size(); ++i) { if (i) std::printf(", "); num(in[i]); }
  std::printf("}, {");
  for (int64_t i = 0; i < c.numel(); ++i) { if (i) std::printf(", "); num(c[i].item<double>()); }
  std::printf("}},\n");
}
}  // namespace

int main() {
  const double nan = NAN, inf = INFINITY;
  // The special values of the generated tests (float64), without -huge where Ember differs on purpose.
  const std::vector<double> sv = {nan, inf, -0.0, 0.0, 1e-310, 1e-300, 1e300, -1e-310, -1e-300, -inf, -2.5, 0.5};
  auto t = [](const std::vector<double>& v) { return torch::tensor(v, torch::kDouble); };
  row("trigamma", sv, torch::polygamma(1, t(sv)));
  const std::vector<double> sv_fin = {nan, -0.0, 0.0, 1e-310, 1e-300, 1e300, -1e-310, -1e-300, -2.5, 0.5, 40.0};
  row("polygamma2", sv_fin, torch::polygamma(2, t(sv_fin)));
  row("polygamma5", sv_fin, torch::polygamma(5, t(sv_fin)));
  row("i1", sv_fin, torch::special::i1(t(sv_fin)));
  const std::vector<double> big = {-800.0, -30.5, -1e-5, 1e-5, 29.9, 30.1, 700.0, 1e4};
  row("i1_big", big, torch::special::i1(t(big)));
  row("i0e_big", big, torch::special::i0e(t(big)));
  row("i1e_big", big, torch::special::i1e(t(big)));
  const std::vector<double> ex = {nan, inf, -inf, -30.0, -26.0, -5.0, -0.0, 0.3, 2.0, 24.9, 25.1, 1e5, 1e300};
  row("erfcx", ex, torch::special::erfcx(t(ex)));
  row("ndtr", ex, torch::special::ndtr(t(ex)));
  row("log_ndtr", ex, torch::special::log_ndtr(t(ex)));
  const std::vector<double> ps = {nan, -0.5, 0.0, 1e-300, 1e-20, 0.01, 0.3, 0.5, 0.97, 1.0 - 1e-12, 1.0, 1.5};
  row("ndtri", ps, torch::special::ndtri(t(ps)));
  const std::vector<double> en = {nan, inf, -inf, -1.0, -0.0, 0.0, 1e-300, 0.5, 1.0, 1e300};
  row("entr", en, torch::special::entr(t(en)));
  const std::vector<double> zs = {2.0, 2.0, 3.0, 4.5, 1.0, 0.5, 3.0, 3.0, 7.0, nan, 2.0};
  const std::vector<double> zq = {1.0, 0.5, -1.5, 2.0, 2.0, 2.0, -2.0, 1e-300, 1e10, 1.0, nan};
  row("zeta_s", zs, t(zs));
  row("zeta", zq, torch::special::zeta(t(zs), t(zq)));
  const std::vector<double> xx = {0.0, 0.0, 2.0, nan, -0.5};
  const std::vector<double> xy = {-1.0, nan, -1.0, 1.0, 3.0};
  row("xlog1py_x", xx, t(xx));
  row("xlog1py", xy, torch::special::xlog1py(t(xx), t(xy)));
  const std::vector<double> mg = {1.6, 2.0, 7.5, 30.0};
  row("multigammaln3", mg, torch::special::multigammaln(t(mg), 3));
  row("multigammaln1", mg, torch::special::multigammaln(t(mg), 1));
  return 0;
}
