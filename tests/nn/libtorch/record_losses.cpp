// Records the reference values of tests/nn/test_losses.cpp, test_activations.cpp and
// test_pool1d.cpp from libtorch (not part of any build). Inputs are the literal values the tests
// use, in float64; each line is one result (values, or a gradient under the cotangent `w` below)
// as a C++ initializer the tests paste. Build and run (from the repository root):
//   LT=.peer/libtorch; g++ -std=c++20 -O0 -D_GLIBCXX_USE_CXX11_ABI=1 -w -I$LT/include \
//     -I$LT/include/torch/csrc/api/include tests/nn/libtorch/record_losses.cpp -L$LT/lib -ltorch_cpu -lc10 \
//     -Wl,-rpath,$LT/lib -Wl,--allow-shlib-undefined -o /tmp/record_losses && /tmp/record_losses
#include <torch/torch.h>
#include <cmath>
#include <cstdio>
#include <string>

namespace F = torch::nn::functional;
using torch::Tensor;

Tensor T(std::vector<double> v, std::vector<int64_t> shape = {}) {
  Tensor t = torch::tensor(v, torch::kDouble);
  return shape.empty() ? t : t.reshape(shape);
}
// value j of a tensor filled with seed k: 0.5 sin(0.9 j + 1.7 k) (the tests repeat this formula)
Tensor fill(std::vector<int64_t> shape, int k) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return (torch::arange(n, torch::kDouble) * 0.9 + 1.7 * k).sin().mul(0.5).reshape(shape);
}
// the cotangent of non-scalar results: cos(0.7 j + 0.3)
Tensor w_like(const Tensor& t) {
  return (torch::arange(t.numel(), torch::kDouble) * 0.7 + 0.3).cos().reshape(t.sizes());
}
void rec(const std::string& name, const Tensor& t) {
  Tensor c = t.detach().to(torch::kDouble).contiguous().reshape(-1);
  std::printf("    {\"%s\", {", name.c_str());
  for (int64_t i = 0; i < c.numel(); ++i) {
    double v = c[i].item<double>();
    if (std::isnan(v)) std::printf("%sNAN", i ? ", " : "");
    else if (std::isinf(v)) std::printf("%s%sINFINITY", i ? ", " : "", v < 0 ? "-" : "");
    else std::printf("%s%.17g", i ? ", " : "", v);
  }
  std::printf("}},\n");
}
// Records out and the gradient of sum(out * w) (or out itself when 0-dim) for each leaf.
void rec_grad(const std::string& name, const Tensor& out, std::vector<std::pair<std::string, Tensor>> leaves) {
  rec(name, out);
  Tensor s = out.dim() == 0 ? out : (out * w_like(out)).sum();
  std::vector<Tensor> xs;
  for (auto& l : leaves) xs.push_back(l.second);
  auto g = torch::autograd::grad({s}, xs, {}, true, false, true);
  for (size_t i = 0; i < leaves.size(); ++i) rec(name + ".d" + leaves[i].first, g[i]);
}
Tensor leaf(Tensor t) { return t.clone().requires_grad_(true); }

int main() {
  // ---------------------------------------------------------------- losses
  const std::vector<double> x6{-2.5, -0.75, 0.0, 0.3, 1.2, 3.0}, y6{0.5, -0.75, 0.25, 1.5, 1.0, -1.0};
  const std::vector<double> s6{1, -1, 1, -1, 1, -1}, h6{1, -1, 0, -1, 1, 2};
  {
    auto x = leaf(T(x6)), y = leaf(T(y6));
    rec_grad("smooth_l1.none", at::smooth_l1_loss(x, y, 0, 1.0), {{"x", x}, {"y", y}});
    rec_grad("smooth_l1.mean.b05", at::smooth_l1_loss(x, y, 1, 0.5), {{"x", x}});
    rec_grad("smooth_l1.sum.b0", at::smooth_l1_loss(x, y, 2, 0.0), {{"x", x}});
    rec_grad("huber.none", at::huber_loss(x, y, 0, 1.0), {{"x", x}});
    rec_grad("huber.sum.d05", at::huber_loss(x, y, 2, 0.5), {{"x", x}});
  }
  {
    auto p = leaf(T({0.0, 0.1, 0.35, 0.5, 0.9, 1.0})), t = T({1.0, 0.0, 0.5, 1.0, 0.2, 0.0});
    rec("bce.none.edges", at::binary_cross_entropy(p, t, {}, 0));
    auto pi = leaf(T({0.05, 0.1, 0.35, 0.5, 0.9, 0.97}, {2, 3})), ti = leaf(T({1.0, 0.0, 0.5, 1.0, 0.2, 0.0}, {2, 3}));
    auto w = T({0.5, 1.0, 2.0});
    rec_grad("bce.mean.weighted", at::binary_cross_entropy(pi, ti, w, 1), {{"x", pi}, {"y", ti}});
    rec_grad("bce.sum", at::binary_cross_entropy(pi, ti, {}, 2), {{"x", pi}});
  }
  {
    auto l = leaf(T({-120.0, -3.0, 0.0, 2.0, 15.0, 60.0}, {2, 3})), t = leaf(T({1.0, 0.0, 0.5, 1.0, 0.2, 0.0}, {2, 3}));
    rec_grad("bcel.none", at::binary_cross_entropy_with_logits(l, t, {}, {}, 0), {{"x", l}, {"y", t}});
    auto pw = T({3.0, 0.5, 1.5}), w = T({2.0, 0.25}, {2, 1});
    rec_grad("bcel.mean.pw.w", at::binary_cross_entropy_with_logits(l, t, w, pw, 1), {{"x", l}, {"y", t}});
  }
  {
    auto lp = leaf(T({-1.5, -0.2, -3.0, -0.7, -2.2, -0.05}, {2, 3})), q = T({0.0, 0.1, 0.2, 0.3, 0.15, 0.25}, {2, 3});
    rec_grad("kl.none", at::kl_div(lp, q, 0, false), {{"x", lp}});
    rec("kl.batchmean", F::kl_div(lp, q, F::KLDivFuncOptions().reduction(torch::kBatchMean)));
    rec("kl.mean", F::kl_div(lp, q));
    auto lq = leaf(T({-1.0, -2.0, -0.5, -0.1, -4.0, -1.2}, {2, 3}));
    rec_grad("kl.sum.logt", at::kl_div(lp, lq, 2, true), {{"x", lp}, {"y", lq}});
  }
  {
    auto a = leaf(T(x6)), b = leaf(T(y6)), s = T(s6);
    rec_grad("mrank.none", at::margin_ranking_loss(a, b, s, 0.5, 0), {{"a", a}, {"b", b}});
    rec_grad("mrank.mean", at::margin_ranking_loss(a, b, s, 0.0, 1), {{"a", a}});
  }
  {
    auto a = leaf(fill({3, 4}, 1)), b = leaf(fill({3, 4}, 2)), t = T({1, -1, -1});
    rec_grad("cosemb.none", at::cosine_embedding_loss(a, b, t, 0.2, 0), {{"a", a}, {"b", b}});
    rec_grad("cosemb.mean", at::cosine_embedding_loss(a, b, t, -0.5, 1), {{"a", a}});
    auto a1 = leaf(fill({4}, 3)), b1 = leaf(fill({4}, 4));
    rec_grad("cosemb.1d", at::cosine_embedding_loss(a1, b1, T({-1.0}).reshape({}), -0.9, 2), {{"a", a1}});
  }
  {
    auto x = leaf(T(x6));
    rec_grad("hinge.none", at::hinge_embedding_loss(x, T(h6), 1.0, 0), {{"x", x}});
    rec_grad("hinge.mean", at::hinge_embedding_loss(x, T(s6), 2.0, 1), {{"x", x}});
    rec_grad("softmargin.none", at::soft_margin_loss(x, T(s6), 0), {{"x", x}});
    rec_grad("softmargin.mean", at::soft_margin_loss(x, T(y6), 1), {{"x", x}});
  }
  {
    auto a = leaf(fill({3, 4}, 1)), p = leaf(fill({3, 4}, 2)), n = leaf(fill({3, 4}, 3));
    rec_grad("triplet.none", at::triplet_margin_loss(a, p, n, 1.0, 2, 1e-6, false, 0), {{"a", a}, {"p", p}, {"n", n}});
    rec_grad("triplet.mean.swap.p1", at::triplet_margin_loss(a, p, n, 0.5, 1, 1e-6, true, 1), {{"a", a}, {"p", p}, {"n", n}});
    rec_grad("triplet.sum.p3", at::triplet_margin_loss(a, p, n, 0.3, 3, 1e-6, false, 2), {{"a", a}});
  }
  {
    auto x = leaf(T(x6)), r = leaf(T({0.1, 0.5, 1.0, 2.0, 3.5, 0.01})), t = T({0.0, 1.0, 2.0, 4.0, 0.5, 7.0});
    rec_grad("poisson.log", at::poisson_nll_loss(x, t, true, false, 1e-8, 0), {{"x", x}});
    rec_grad("poisson.full", at::poisson_nll_loss(r, t, false, true, 1e-8, 0), {{"x", r}});
    rec_grad("poisson.log.full.mean", at::poisson_nll_loss(x, t, true, true, 1e-8, 1), {{"x", x}});
  }
  {
    auto x = leaf(fill({3, 4}, 5)), q = T({0.1, 0.2, 0.3, 0.4, 0.0, 0.0, 1.0, 0.0, 0.25, 0.25, 0.25, 0.25}, {3, 4});
    auto w = T({0.5, 1.0, 2.0, 1.5});
    rec_grad("ce.prob.ls.w", F::cross_entropy(x, q, F::CrossEntropyFuncOptions().weight(w).label_smoothing(0.2)), {{"x", x}});
    auto lp = leaf(fill({4, 3}, 6)), tgt = torch::tensor({0, 2, -100, 1}, torch::kLong);
    rec_grad("nll.w.ignore", F::nll_loss(lp, tgt, F::NLLLossFuncOptions().weight(T({0.2, 1.0, 3.0}))), {{"x", lp}});
    rec("nll.all.ignored", F::nll_loss(lp, torch::full({4}, -100, torch::kLong)));
    rec("nll.all.ignored.sum", F::nll_loss(lp, torch::full({4}, -100, torch::kLong), F::NLLLossFuncOptions().reduction(torch::kSum)));
    auto xk = leaf(fill({2, 3, 2, 2}, 7)), tk = torch::tensor({0, 1, 2, 2, 1, -100, 0, 1}, torch::kLong).reshape({2, 2, 2});
    rec_grad("nll.kdim.w", F::nll_loss(xk, tk, F::NLLLossFuncOptions().weight(T({1.0, 2.0, 0.5}))), {{"x", xk}});
    auto tk2 = torch::tensor({0, 1, 2, 2, 1, 0, 0, 1}, torch::kLong).reshape({2, 2, 2});
    rec_grad("ce.kdim.ls", F::cross_entropy(xk, tk2, F::CrossEntropyFuncOptions().label_smoothing(0.1).ignore_index(2)), {{"x", xk}});
  }
  rec("empty.mean", torch::stack({at::smooth_l1_loss(torch::zeros({0}), torch::zeros({0})), at::kl_div(torch::zeros({0}), torch::zeros({0})),
                                  at::soft_margin_loss(torch::zeros({0}), torch::zeros({0}))}));

  // ---------------------------------------------------------------- activations
  const auto a12 = T({-5, -3, -2.5, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 3, 4.5});
  auto act = [&](const std::string& name, auto fn) {
    auto x = leaf(a12);
    rec_grad(name, fn(x), {{"x", x}});
  };
  act("relu6", [](const Tensor& x) { return F::relu6(x * 2); });
  act("selu", [](const Tensor& x) { return F::selu(x); });
  act("celu", [](const Tensor& x) { return F::celu(x, F::CELUFuncOptions().alpha(1.5)); });
  act("elu", [](const Tensor& x) { return F::elu(x, F::ELUFuncOptions().alpha(0.5)); });
  act("mish", [](const Tensor& x) { return F::mish(x); });
  act("softplus", [](const Tensor& x) { return F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(5)); });
  act("softsign", [](const Tensor& x) { return F::softsign(x); });
  act("hardtanh", [](const Tensor& x) { return F::hardtanh(x, F::HardtanhFuncOptions().min_val(-2).max_val(1.5)); });
  act("hardswish", [](const Tensor& x) { return torch::hardswish(x); });
  act("hardsigmoid", [](const Tensor& x) { return torch::hardsigmoid(x); });
  act("hardshrink", [](const Tensor& x) { return F::hardshrink(x, F::HardshrinkFuncOptions(0.5)); });
  act("softshrink", [](const Tensor& x) { return F::softshrink(x, F::SoftshrinkFuncOptions(0.5)); });
  act("tanhshrink", [](const Tensor& x) { return F::tanhshrink(x); });
  act("threshold", [](const Tensor& x) { return F::threshold(x, F::ThresholdFuncOptions(0.25, -3)); });
  act("logsigmoid", [](const Tensor& x) { return F::logsigmoid(x); });
  act("rrelu.eval", [](const Tensor& x) { return F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.3)); });
  act("softmin", [](const Tensor& x) { return F::softmin(x.reshape({3, 4}), F::SoftminFuncOptions(1)); });
  act("glu", [](const Tensor& x) { return F::glu(x.reshape({2, 6}), F::GLUFuncOptions(1)); });
  act("glu.dim0", [](const Tensor& x) { return F::glu(x.reshape({4, 3}), F::GLUFuncOptions(0)); });
  act("softmax2d", [](const Tensor& x) { return torch::nn::Softmax2d()(x.reshape({3, 2, 2})); });
  {
    auto big = leaf(T({-100, -30, 30, 100}));
    rec_grad("big.logsigmoid", F::logsigmoid(big), {{"x", big}});
    rec_grad("big.mish", F::mish(big), {{"x", big}});
    rec_grad("big.softplus", F::softplus(big), {{"x", big}});
  }
  {
    auto x = leaf(fill({2, 3, 2}, 8) * 4), w = leaf(T({0.25, -0.5, 2.0}));
    rec_grad("prelu.channels", F::prelu(x, w), {{"x", x}, {"w", w}});
    auto w1 = leaf(T({0.1}));
    rec_grad("prelu.one", F::prelu(x, w1), {{"x", x}, {"w", w1}});
  }

  // ---------------------------------------------------------------- pooling
  {
    auto x = leaf(fill({1, 2, 9}, 9));
    auto [v, i] = F::max_pool1d_with_indices(x, F::MaxPool1dFuncOptions(3).stride(2).padding(1).ceil_mode(true));
    rec_grad("maxpool1d", v, {{"x", x}});
    rec("maxpool1d.idx", i);
    rec_grad("maxpool1d.dil", F::max_pool1d(x, F::MaxPool1dFuncOptions(2).stride(1).dilation(3)), {{"x", x}});
    rec_grad("avgpool1d", F::avg_pool1d(x, F::AvgPool1dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false)), {{"x", x}});
    rec_grad("adaptiveavg1d", F::adaptive_avg_pool1d(x, F::AdaptiveAvgPool1dFuncOptions(4)), {{"x", x}});
    auto [av, ai] = F::adaptive_max_pool1d_with_indices(x, F::AdaptiveMaxPool1dFuncOptions(4));
    rec_grad("adaptivemax1d", av, {{"x", x}});
    rec("adaptivemax1d.idx", ai);
    auto x2 = leaf(fill({1, 2, 5, 7}, 10));
    auto [mv, mi] = F::adaptive_max_pool2d_with_indices(x2, F::AdaptiveMaxPool2dFuncOptions({3, 4}));
    rec_grad("adaptivemax2d", mv, {{"x", x2}});
    rec("adaptivemax2d.idx", mi);
    auto [uv, ui] = F::adaptive_max_pool2d_with_indices(x2, F::AdaptiveMaxPool2dFuncOptions({7, 9}));
    rec_grad("adaptivemax2d.up", uv, {{"x", x2}});
    rec("adaptivemax2d.up.idx", ui);
  }
}
