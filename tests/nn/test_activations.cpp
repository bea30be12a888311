// The activations and dropout variants of issue #6 (ops.yaml's activation section,
// aten/native/ActivationExtra.cpp, DropoutAlpha.cpp, api/torch/nn/activation.h and dropout.h):
// values and gradients against libtorch 2.15's (tests/nn/libtorch/record_losses.cpp) across every
// kink, PReLU's weight gradient, RReLU in training and eval, the alpha-dropout statistics and the
// two values it produces, channel dropout, errors, modules and printing.
#include "reference_util.h"
#include <torch/nn/activation.h>
#include <torch/nn/dropout.h>

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using namespace ember_ref;

namespace {
// libtorch 2.15's output (tests/nn/libtorch/record_losses.cpp).
const Table kRef = {
#include "reference_losses.inc"
};

const torch::Tensor a12() { return T({-5, -3, -2.5, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 3, 4.5}); }

template <typename Fn>
void check_act(const std::string& name, Fn fn) {
  auto x = leaf(a12());
  check_grad(kRef, name, fn(x), {{"x", x}});
}
}  // namespace

TEST_CASE("activations match libtorch's values and gradients, kinks included", "[nn][activation]") {
  check_act("relu6", [](const torch::Tensor& x) { return F::relu6(x * 2); });
  check_act("selu", [](const torch::Tensor& x) { return F::selu(x); });
  check_act("celu", [](const torch::Tensor& x) { return F::celu(x, F::CELUFuncOptions().alpha(1.5)); });
  check_act("elu", [](const torch::Tensor& x) { return F::elu(x, F::ELUFuncOptions().alpha(0.5)); });
  check_act("mish", [](const torch::Tensor& x) { return F::mish(x); });
  check_act("softplus", [](const torch::Tensor& x) { return F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(5)); });
  check_act("softsign", [](const torch::Tensor& x) { return F::softsign(x); });
  check_act("hardtanh", [](const torch::Tensor& x) { return F::hardtanh(x, F::HardtanhFuncOptions().min_val(-2).max_val(1.5)); });
  check_act("hardswish", [](const torch::Tensor& x) { return F::hardswish(x); });
  check_act("hardsigmoid", [](const torch::Tensor& x) { return F::hardsigmoid(x); });
  check_act("hardshrink", [](const torch::Tensor& x) { return F::hardshrink(x, F::HardshrinkFuncOptions(0.5)); });
  check_act("softshrink", [](const torch::Tensor& x) { return F::softshrink(x, F::SoftshrinkFuncOptions(0.5)); });
  check_act("tanhshrink", [](const torch::Tensor& x) { return F::tanhshrink(x); });
  check_act("threshold", [](const torch::Tensor& x) { return F::threshold(x, F::ThresholdFuncOptions(0.25, -3)); });
  check_act("logsigmoid", [](const torch::Tensor& x) { return F::logsigmoid(x); });
  check_act("rrelu.eval", [](const torch::Tensor& x) { return F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.3)); });
  check_act("softmin", [](const torch::Tensor& x) { return F::softmin(x.reshape({3, 4}), F::SoftminFuncOptions(1)); });
  check_act("glu", [](const torch::Tensor& x) { return F::glu(x.reshape({2, 6}), F::GLUFuncOptions(1)); });
  check_act("glu.dim0", [](const torch::Tensor& x) { return F::glu(x.reshape({4, 3}), F::GLUFuncOptions(0)); });
  check_act("softmax2d", [](const torch::Tensor& x) { return nn::Softmax2d()(x.reshape({3, 2, 2})); });
  auto big = leaf(T({-100, -30, 30, 100}));
  check_grad(kRef, "big.logsigmoid", F::logsigmoid(big), {{"x", big}});
  check_grad(kRef, "big.mish", F::mish(big), {{"x", big}});
  check_grad(kRef, "big.softplus", F::softplus(big), {{"x", big}});
}

TEST_CASE("in-place activation forms write into their input", "[nn][activation]") {
  auto x = a12();
  const auto want = F::selu(x);
  auto y = x.clone();
  F::selu(y, F::SELUFuncOptions(true));
  CHECK(at::allclose(y, want));
  auto r = x.clone();
  F::relu6(r, F::ReLU6FuncOptions(true));
  CHECK(at::equal(r, at::relu6(x)));
  auto c = x.clone();
  F::celu(c, F::CELUFuncOptions().alpha(2).inplace(true));
  CHECK(at::allclose(c, at::celu(x, 2)));
  auto t = x.clone();
  F::threshold(t, F::ThresholdFuncOptions(0.0, 7).inplace(true));
  CHECK(at::equal(t, at::threshold(x, 0.0, 7)));
  auto h = x.clone();
  F::hardtanh(h, F::HardtanhFuncOptions().inplace(true));
  CHECK(at::equal(h, at::hardtanh(x)));
}

TEST_CASE("PReLU: one or per-channel slopes, weight gradient as libtorch's, module init and printing", "[nn][activation]") {
  auto x = leaf(fill({2, 3, 2}, 8) * 4), w = leaf(T({0.25, -0.5, 2.0})), w1 = leaf(T({0.1}));
  check_grad(kRef, "prelu.channels", F::prelu(x, w), {{"x", x}, {"w", w}});
  check_grad(kRef, "prelu.one", F::prelu(x, w1), {{"x", x}, {"w", w1}});
  CHECK_THAT(error_of([&] { at::prelu(x, T({0.1, 0.2})); }), Catch::StartsWith("[prelu] expected 1 weight or one per channel (3"));
  CHECK_THAT(error_of([&] { at::prelu(T({1.0, -1.0}), T({0.1, 0.2})); }), Catch::StartsWith("[prelu] expected 1 weight or one per channel (1"));
  CHECK_THAT(error_of([&] { at::prelu(x, T({0.1, 0.2, 0.3}, {3, 1})); }), Catch::StartsWith("[prelu] expected a 0-D or 1-D weight"));
  nn::PReLU m(nn::PReLUOptions().num_parameters(3).init(0.1));
  REQUIRE(m->parameters().size() == 1);
  CHECK(at::equal(m->weight, torch::full({3}, 0.1)));
  CHECK(m->weight.requires_grad());
  CHECK(printed(*m) == "torch::nn::PReLU(num_parameters=3)");
  CHECK(printed(*nn::PReLU()) == "torch::nn::PReLU(num_parameters=1)");
  CHECK(nn::PReLU()->weight.item<float>() == 0.25f);
  auto y = m(torch::full({2, 3, 4}, -2.0f));
  y.sum().backward();
  CHECK(at::allclose(m->weight.grad(), torch::full({3}, -16.0f)));
}

TEST_CASE("RReLU draws slopes in [lower, upper] for negatives when training, uses their mean in eval", "[nn][activation]") {
  torch::manual_seed(3);
  auto x = leaf(torch::cat({-torch::rand({5000}, torch::kDouble) - 0.1, torch::rand({100}, torch::kDouble)}));
  auto y = at::rrelu(x, 0.1, 0.3, true);
  auto slope = (y / x).detach();
  auto neg = slope.narrow(0, 0, 5000);
  CHECK(neg.min().item<double>() >= 0.1);
  CHECK(neg.max().item<double>() <= 0.3);
  CHECK(neg.mean().item<double>() == Approx(0.2).margin(0.005));
  CHECK(neg.std().item<double>() > 0.05);  // per element, not one shared slope
  CHECK(at::equal(y.narrow(0, 5000, 100), x.narrow(0, 5000, 100)));
  // The gradient is each element's slope.
  auto g = torch::autograd::grad({y.sum()}, {x})[0];
  CHECK(at::allclose(g, slope));
  nn::RReLU m(nn::RReLUOptions().lower(0.1).upper(0.3));
  m->eval();
  CHECK(at::allclose(m(x.detach()), at::leaky_relu(x.detach(), 0.2)));
  CHECK_THAT(error_of([&] { at::rrelu(x, 0.5, 0.1, true); }), Catch::StartsWith("[rrelu] expected lower <= upper"));
}

TEST_CASE("activation errors start with the op", "[nn][activation]") {
  CHECK_THAT(error_of([] { at::celu(T({1.0}), 0); }), Catch::StartsWith("[celu] expected a nonzero alpha"));
  CHECK_THAT(error_of([] { F::celu(T({1.0}), F::CELUFuncOptions().alpha(0).inplace(true)); }), Catch::StartsWith("[celu]"));
  CHECK_THAT(error_of([] { at::glu(T({1.0, 2.0, 3.0})); }), Catch::StartsWith("[glu] expected an even size in dim -1"));
  CHECK_THAT(error_of([] { at::glu(T({1.0}).reshape({})); }), Catch::StartsWith("[glu] expected an input of at least 1 dim"));
  CHECK_THAT(error_of([] { at::glu(T({1.0, 2.0}), 1); }), Catch::StartsWith("[glu] dim 1 is out of range"));
  CHECK_THAT(error_of([] { at::softshrink(T({1.0}), -0.5); }), Catch::Contains("expected lambd >= 0"));
  CHECK_THAT(error_of([] { nn::Hardtanh(nn::HardtanhOptions().min_val(1).max_val(0)); }),
             Catch::StartsWith("[Hardtanh] expected max_val > min_val"));
  CHECK_THAT(error_of([] { nn::Softmax2d()(T({1.0, 2.0})); }), Catch::StartsWith("[Softmax2d] expected a 3-D"));
}

TEST_CASE("activation modules print as libtorch 2.15 and forward the functionals", "[nn][activation]") {
  CHECK(printed(*nn::ReLU6()) == "torch::nn::ReLU6()");
  CHECK(printed(*nn::ReLU6(nn::ReLU6Options(true))) == "torch::nn::ReLU6(inplace=true)");
  CHECK(printed(*nn::ELU()) == "torch::nn::ELU(alpha=1)");
  CHECK(printed(*nn::ELU(nn::ELUOptions().alpha(0.5).inplace(true))) == "torch::nn::ELU(alpha=0.5, inplace=true)");
  CHECK(printed(*nn::SELU()) == "torch::nn::SELU()");
  CHECK(printed(*nn::SELU(nn::SELUOptions(true))) == "torch::nn::SELU(inplace=true)");
  CHECK(printed(*nn::CELU(nn::CELUOptions().alpha(2).inplace(true))) == "torch::nn::CELU(alpha=2, inplace=true)");
  CHECK(printed(*nn::GLU()) == "torch::nn::GLU(dim=-1)");
  CHECK(printed(*nn::Mish()) == "torch::nn::Mish()");
  CHECK(printed(*nn::Softplus(nn::SoftplusOptions().beta(2).threshold(10))) == "torch::nn::Softplus(beta=2, threshold=10)");
  CHECK(printed(*nn::Softsign()) == "torch::nn::Softsign()");
  CHECK(printed(*nn::Softmin(1)) == "torch::nn::Softmin(dim=1)");
  CHECK(printed(*nn::Hardtanh()) == "torch::nn::Hardtanh(min_val=-1, max_val=1)");
  CHECK(printed(*nn::Hardtanh(nn::HardtanhOptions().min_val(-2).max_val(3).inplace(true))) ==
        "torch::nn::Hardtanh(min_val=-2, max_val=3, inplace=true)");
  CHECK(printed(*nn::Hardshrink()) == "torch::nn::Hardshrink(0.5)");
  CHECK(printed(*nn::Softshrink(nn::SoftshrinkOptions(0.25))) == "torch::nn::Softshrink(0.25)");
  CHECK(printed(*nn::Tanhshrink()) == "torch::nn::Tanhshrink()");
  CHECK(printed(*nn::Threshold(0.1, 20)) == "torch::nn::Threshold(threshold=0.1, value=20)");
  CHECK(printed(*nn::Threshold(nn::ThresholdOptions(0.1, 20).inplace(true))) ==
        "torch::nn::Threshold(threshold=0.1, value=20, inplace=true)");
  CHECK(printed(*nn::LogSigmoid()) == "torch::nn::LogSigmoid()");
  CHECK(printed(*nn::RReLU()) == "torch::nn::RReLU(lower=0.125, upper=0.333333)");
  CHECK(printed(*nn::RReLU(nn::RReLUOptions().lower(0.1).upper(0.2).inplace(true))) ==
        "torch::nn::RReLU(lower=0.1, upper=0.2, inplace=true)");
  CHECK(printed(*nn::Softmax2d()) == "torch::nn::Softmax2d()");
  CHECK(printed(*nn::Hardswish()) == "torch::nn::Hardswish()");  // (not in libtorch's C++ API)
  const auto x = a12();
  CHECK(at::equal(nn::Mish()(x), at::mish(x)));
  CHECK(at::equal(nn::Hardsigmoid()(x), at::hardsigmoid(x)));
  CHECK(at::equal(nn::GLU(0)(x), at::glu(x, 0)));
  CHECK(at::equal(nn::Softplus()(x), at::softplus(x)));
  nn::Sequential seq(nn::ReLU6(), nn::SELU(), nn::Softmin(0));
  CHECK(at::allclose(seq->forward(x), F::softmin(at::selu(at::relu6(x)), 0)));
}

TEST_CASE("alpha_dropout keeps mean 0 and variance 1 with exactly two affine maps; feature form per channel", "[nn][dropout]") {
  torch::manual_seed(7);
  const double p = 0.2, alpha = 1.7580993408473766;
  const double a = 1 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  auto x = torch::randn({200000}, torch::kDouble);
  auto y = at::alpha_dropout(x, p, true);
  CHECK(y.mean().item<double>() == Approx(0).margin(0.01));
  CHECK(y.var().item<double>() == Approx(1).margin(0.02));
  // Kept: a * x + alpha * a * p; dropped: the constant alpha * a * (p - 1).
  auto kept = at::isclose(y, x * a + alpha * a * p, 1e-12, 1e-12);
  auto dropped = at::isclose(y, torch::full_like(y, alpha * a * (p - 1)), 1e-12, 1e-12);
  CHECK(at::logical_or(kept, dropped).all().item<bool>());
  CHECK(dropped.to(torch::kDouble).mean().item<double>() == Approx(p).margin(0.005));
  // Identity out of training or with p 0; all zeros with p 1.
  CHECK(at::equal(at::alpha_dropout(x, p, false), x));
  CHECK(at::equal(at::alpha_dropout(x, 0.0, true), x));
  CHECK(at::alpha_dropout(x, 1.0, true).abs().max().item<double>() == 0);
  // The gradient is the kept mask times a.
  auto xl = leaf(x.narrow(0, 0, 1000));
  auto yl = at::alpha_dropout(xl, p, true);
  auto g = torch::autograd::grad({yl.sum()}, {xl})[0];
  CHECK(at::logical_or(g == 0, at::isclose(g, torch::full_like(g, a))).all().item<bool>());
  // Feature form: one decision per (sample, channel).
  auto f = at::feature_alpha_dropout(torch::ones({8, 16, 5}, torch::kDouble), 0.5, true);
  CHECK(at::equal(f, f.select(2, 0).unsqueeze(2).expand_as(f)));
  CHECK(f.min().item<double>() < f.max().item<double>());  // both outcomes occur
  CHECK_THAT(error_of([] { at::alpha_dropout(torch::ones({3}), 1.5, true); }), Catch::StartsWith("[alpha_dropout] expected a probability p in [0, 1]"));
  CHECK_THAT(error_of([] { at::feature_alpha_dropout(torch::ones({3}), 0.5, true); }),
             Catch::StartsWith("[feature_alpha_dropout] expected an input of at least 2 dims"));
  CHECK_THAT(error_of([] { at::alpha_dropout(torch::ones({3}, torch::kLong), 0.5, true); }),
             Catch::StartsWith("[alpha_dropout] expected a floating point input"));
}

TEST_CASE("Dropout1d/3d drop whole channels, batched or not; alpha dropout modules follow train/eval", "[nn][dropout]") {
  torch::manual_seed(11);
  nn::Dropout1d d1(0.5);
  auto y1 = d1(torch::ones({4, 32, 6}));
  CHECK(at::equal(y1, y1.select(2, 0).unsqueeze(2).expand_as(y1)));
  CHECK(at::logical_or(y1 == 0, y1 == 2).all().item<bool>());
  auto u1 = d1(torch::ones({32, 6}));  // unbatched (C, L)
  CHECK(u1.sizes() == torch::IntArrayRef({32, 6}));
  CHECK(at::equal(u1, u1.select(1, 0).unsqueeze(1).expand_as(u1)));
  nn::Dropout3d d3(nn::Dropout3dOptions(0.25));
  auto y3 = d3(torch::ones({2, 16, 2, 3, 2}));
  auto flat = y3.reshape({2, 16, 12});
  CHECK(at::equal(flat, flat.select(2, 0).unsqueeze(2).expand_as(flat)));
  CHECK(d3(torch::ones({16, 2, 3, 2})).sizes() == torch::IntArrayRef({16, 2, 3, 2}));
  CHECK_THAT(error_of([&] { d1(torch::ones({2, 3, 4, 5})); }), Catch::StartsWith("[dropout1d] expected a 2-D (C, L) or 3-D (N, C, L) input"));
  CHECK_THAT(error_of([&] { d3(torch::ones({2, 3, 4})); }), Catch::StartsWith("[dropout3d] expected a 4-D"));
  CHECK_THAT(error_of([] { nn::AlphaDropout(1.5); }), Catch::StartsWith("[AlphaDropout] expected a probability p in [0, 1]"));
  nn::AlphaDropout ad(0.3);
  nn::FeatureAlphaDropout fad(0.3);
  auto x = torch::randn({4, 8, 3});
  CHECK(!at::equal(ad(x), x));
  ad->eval();
  fad->eval();
  d1->eval();
  CHECK(at::equal(ad(x), x));
  CHECK(at::equal(fad(x), x));
  CHECK(at::equal(d1(x), x));
  CHECK(printed(*nn::AlphaDropout()) == "torch::nn::AlphaDropout(p=0.5, inplace=false)");
  CHECK(printed(*nn::FeatureAlphaDropout(0.3)) == "torch::nn::FeatureAlphaDropout(p=0.3, inplace=false)");
  CHECK(printed(*nn::Dropout3d(0.25)) == "torch::nn::Dropout3d(p=0.25, inplace=false)");
  CHECK(printed(*nn::Dropout1d()) == "torch::nn::Dropout1d(p=0.5, inplace=false)");
}
