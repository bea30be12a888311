// The losses of issue #6 (aten/native/LossExtra.cpp, api/torch/nn/loss.h): values and gradients
// against libtorch 2.15's (recorded by tests/nn/libtorch/record_losses.cpp), cross_entropy /
// nll_loss edge cases, the errors, the modules and their printing, gaussian_nll_loss against a
// float64 formula written here (libtorch's C++ API has no gaussian_nll_loss).
#include "reference_util.h"
#include <torch/nn/loss.h>

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using namespace ember_ref;

namespace {
// libtorch 2.15's output (tests/nn/libtorch/record_losses.cpp).
const Table kRef = {
#include "reference_losses.inc"
};

const std::vector<double> x6{-2.5, -0.75, 0.0, 0.3, 1.2, 3.0}, y6{0.5, -0.75, 0.25, 1.5, 1.0, -1.0};
const std::vector<double> s6{1, -1, 1, -1, 1, -1}, h6{1, -1, 0, -1, 1, 2};
}  // namespace

TEST_CASE("smooth_l1_loss and huber_loss match libtorch, beta 0 included", "[nn][loss]") {
  auto x = leaf(T(x6)), y = leaf(T(y6));
  check_grad(kRef, "smooth_l1.none", at::smooth_l1_loss(x, y, 0, 1.0), {{"x", x}, {"y", y}});
  check_grad(kRef, "smooth_l1.mean.b05", F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().beta(0.5)), {{"x", x}});
  check_grad(kRef, "smooth_l1.sum.b0", F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions(torch::kSum), 0.0), {{"x", x}});
  check_grad(kRef, "huber.none", F::huber_loss(x, y, F::HuberLossFuncOptions(torch::kNone)), {{"x", x}});
  check_grad(kRef, "huber.sum.d05", F::huber_loss(x, y, F::HuberLossFuncOptions(torch::kSum).delta(0.5)), {{"x", x}});
  // beta 0 is the L1 loss, huber with delta 1 is smooth_l1 with beta 1.
  CHECK(at::allclose(at::smooth_l1_loss(x, y, 0, 0.0), at::l1_loss(x, y, 0)));
  CHECK(at::allclose(at::huber_loss(x, y, 0, 1.0), at::smooth_l1_loss(x, y, 0, 1.0)));
  CHECK_THAT(error_of([&] { at::smooth_l1_loss(x, y, 1, -1.0); }), Catch::StartsWith("[smooth_l1_loss] expected beta >= 0"));
  CHECK_THAT(error_of([&] { at::huber_loss(x, y, 1, 0.0); }), Catch::StartsWith("[huber_loss] expected delta > 0"));
  CHECK_THAT(error_of([&] { F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().beta(0.5), 0.5); }),
             Catch::StartsWith("[smooth_l1_loss] expected beta in the options or as an argument"));
  CHECK_THAT(error_of([&] { at::smooth_l1_loss(x, y, 3, 1.0); }), Catch::StartsWith("[smooth_l1_loss] expected reduction"));
}

TEST_CASE("binary_cross_entropy matches libtorch: logs held at -100, weights, input range checked", "[nn][loss]") {
  check(kRef, "bce.none.edges",
        F::binary_cross_entropy(T({0.0, 0.1, 0.35, 0.5, 0.9, 1.0}), T({1.0, 0.0, 0.5, 1.0, 0.2, 0.0}),
                                F::BinaryCrossEntropyFuncOptions().reduction(torch::kNone)));
  auto p = leaf(T({0.05, 0.1, 0.35, 0.5, 0.9, 0.97}, {2, 3})), t = leaf(T({1.0, 0.0, 0.5, 1.0, 0.2, 0.0}, {2, 3}));
  check_grad(kRef, "bce.mean.weighted", F::binary_cross_entropy(p, t, F::BinaryCrossEntropyFuncOptions().weight(T({0.5, 1.0, 2.0}))),
             {{"x", p}, {"y", t}});
  check_grad(kRef, "bce.sum", at::binary_cross_entropy(p, t, std::nullopt, 2), {{"x", p}});
  const auto range = [&](double v) {
    return error_of([&] { at::binary_cross_entropy(T({0.5, v}), T({1.0, 0.0})); });
  };
  CHECK_THAT(range(1.5), Catch::StartsWith("[binary_cross_entropy] expected input probabilities in [0, 1]"));
  CHECK_THAT(range(-0.1), Catch::StartsWith("[binary_cross_entropy] expected input probabilities in [0, 1]"));
  CHECK_THAT(range(NAN), Catch::StartsWith("[binary_cross_entropy] expected input probabilities in [0, 1]"));
  CHECK_THAT(error_of([&] { at::binary_cross_entropy(T({0.5, 0.5}), T({1.0})); }),
             Catch::StartsWith("[binary_cross_entropy] expected input and target of one shape"));
}

TEST_CASE("binary_cross_entropy_with_logits matches libtorch at extreme logits, with weight and pos_weight", "[nn][loss]") {
  auto l = leaf(T({-120.0, -3.0, 0.0, 2.0, 15.0, 60.0}, {2, 3})), t = leaf(T({1.0, 0.0, 0.5, 1.0, 0.2, 0.0}, {2, 3}));
  check_grad(kRef, "bcel.none", at::binary_cross_entropy_with_logits(l, t, std::nullopt, std::nullopt, 0), {{"x", l}, {"y", t}});
  check_grad(kRef, "bcel.mean.pw.w",
             F::binary_cross_entropy_with_logits(
                 l, t, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(T({3.0, 0.5, 1.5})).weight(T({2.0, 0.25}, {2, 1}))),
             {{"x", l}, {"y", t}});
  // float32 logits far out stay finite (no exp overflow).
  auto big = F::binary_cross_entropy_with_logits(torch::tensor({-1000.f, 1000.f}), torch::tensor({1.f, 0.f}),
                                                 F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone));
  CHECK(big[0].item<float>() == 1000.f);
  CHECK(big[1].item<float>() == 1000.f);
  CHECK_THAT(error_of([&] { at::binary_cross_entropy_with_logits(T({0.5, 0.5}), T({1.0})); }),
             Catch::StartsWith("[binary_cross_entropy_with_logits] expected input and target of one shape"));
}

TEST_CASE("kl_div matches libtorch: zero targets, log_target, batchmean", "[nn][loss]") {
  auto lp = leaf(T({-1.5, -0.2, -3.0, -0.7, -2.2, -0.05}, {2, 3}));
  const auto q = T({0.0, 0.1, 0.2, 0.3, 0.15, 0.25}, {2, 3});
  check_grad(kRef, "kl.none", F::kl_div(lp, q, F::KLDivFuncOptions().reduction(torch::kNone)), {{"x", lp}});
  check(kRef, "kl.batchmean", F::kl_div(lp, q, F::KLDivFuncOptions().reduction(torch::kBatchMean)));
  check(kRef, "kl.mean", F::kl_div(lp, q));
  auto lq = leaf(T({-1.0, -2.0, -0.5, -0.1, -4.0, -1.2}, {2, 3}));
  check_grad(kRef, "kl.sum.logt", F::kl_div(lp, lq, F::KLDivFuncOptions().reduction(torch::kSum).log_target(true)),
             {{"x", lp}, {"y", lq}});
  // A zero target contributes 0; its own gradient (log 0 + 1 - x) is NaN, as libtorch's.
  auto q0 = leaf(q);
  auto g = torch::autograd::grad({at::kl_div(lp, q0, 2, false)}, {q0})[0];
  CHECK(std::isnan(g[0][0].item<double>()));
  CHECK(!g.narrow(1, 1, 2).isnan().any().item<bool>());
}

TEST_CASE("margin, hinge and soft-margin losses match libtorch", "[nn][loss]") {
  auto a = leaf(T(x6)), b = leaf(T(y6));
  check_grad(kRef, "mrank.none",
             F::margin_ranking_loss(a, b, T(s6), F::MarginRankingLossFuncOptions().margin(0.5).reduction(torch::kNone)),
             {{"a", a}, {"b", b}});
  check_grad(kRef, "mrank.mean", F::margin_ranking_loss(a, b, T(s6)), {{"a", a}});
  CHECK_THAT(error_of([&] { at::margin_ranking_loss(a, b, T(s6, {2, 3})); }),
             Catch::StartsWith("[margin_ranking_loss] expected input1, input2 and target of one rank"));
  check_grad(kRef, "hinge.none", F::hinge_embedding_loss(a, T(h6), F::HingeEmbeddingLossFuncOptions(torch::kNone)), {{"x", a}});
  check_grad(kRef, "hinge.mean", F::hinge_embedding_loss(a, T(s6), F::HingeEmbeddingLossFuncOptions().margin(2.0)), {{"x", a}});
  check_grad(kRef, "softmargin.none", F::soft_margin_loss(a, T(s6), F::SoftMarginLossFuncOptions(torch::kNone)), {{"x", a}});
  check_grad(kRef, "softmargin.mean", F::soft_margin_loss(a, T(y6)), {{"x", a}});
}

TEST_CASE("cosine_embedding_loss matches libtorch for labels 1 and -1, 1-D pairs, and checks ranks", "[nn][loss]") {
  auto a = leaf(fill({3, 4}, 1)), b = leaf(fill({3, 4}, 2));
  const auto t = T({1, -1, -1});
  check_grad(kRef, "cosemb.none",
             F::cosine_embedding_loss(a, b, t, F::CosineEmbeddingLossFuncOptions().margin(0.2).reduction(torch::kNone)),
             {{"a", a}, {"b", b}});
  check_grad(kRef, "cosemb.mean", F::cosine_embedding_loss(a, b, t, F::CosineEmbeddingLossFuncOptions().margin(-0.5)), {{"a", a}});
  auto a1 = leaf(fill({4}, 3)), b1 = leaf(fill({4}, 4));
  check_grad(kRef, "cosemb.1d", at::cosine_embedding_loss(a1, b1, T({-1.0}).reshape({}), -0.9, 2), {{"a", a1}});
  // All-zero vectors do not divide by zero.
  CHECK(std::isfinite(at::cosine_embedding_loss(torch::zeros({2, 3}), torch::zeros({2, 3}), T({1, -1})).item<double>()));
  CHECK_THAT(error_of([&] { at::cosine_embedding_loss(a, b, T({1, -1, 1, 1, 1, 1}, {3, 2})); }),
             Catch::StartsWith("[cosine_embedding_loss] expected a 0-D or 1-D target"));
  CHECK_THAT(error_of([&] { at::cosine_embedding_loss(a1, b1, t); }),
             Catch::StartsWith("[cosine_embedding_loss] expected 2-D inputs for a 1-D target"));
}

TEST_CASE("triplet_margin_loss matches libtorch (p 2, p 1 with swap, p 3)", "[nn][loss]") {
  auto a = leaf(fill({3, 4}, 1)), p = leaf(fill({3, 4}, 2)), n = leaf(fill({3, 4}, 3));
  check_grad(kRef, "triplet.none", F::triplet_margin_loss(a, p, n, F::TripletMarginLossFuncOptions(torch::kNone)),
             {{"a", a}, {"p", p}, {"n", n}});
  check_grad(kRef, "triplet.mean.swap.p1",
             F::triplet_margin_loss(a, p, n, F::TripletMarginLossFuncOptions().margin(0.5).p(1).swap(true)),
             {{"a", a}, {"p", p}, {"n", n}});
  check_grad(kRef, "triplet.sum.p3", at::triplet_margin_loss(a, p, n, 0.3, 3, 1e-6, false, 2), {{"a", a}});
  CHECK_THAT(error_of([&] { at::triplet_margin_loss(a, p, fill({4}, 3)); }),
             Catch::StartsWith("[triplet_margin_loss] expected anchor, positive and negative of one rank"));
}

TEST_CASE("poisson_nll_loss matches libtorch, with and without the Stirling term", "[nn][loss]") {
  auto x = leaf(T(x6)), r = leaf(T({0.1, 0.5, 1.0, 2.0, 3.5, 0.01}));
  const auto t = T({0.0, 1.0, 2.0, 4.0, 0.5, 7.0});
  check_grad(kRef, "poisson.log", F::poisson_nll_loss(x, t, F::PoissonNLLLossFuncOptions(torch::kNone)), {{"x", x}});
  check_grad(kRef, "poisson.full",
             F::poisson_nll_loss(r, t, F::PoissonNLLLossFuncOptions(torch::kNone).log_input(false).full(true)), {{"x", r}});
  check_grad(kRef, "poisson.log.full.mean", F::poisson_nll_loss(x, t, F::PoissonNLLLossFuncOptions().full(true)), {{"x", x}});
}

TEST_CASE("gaussian_nll_loss against a float64 formula: var shapes, eps clamp, full", "[nn][loss]") {
  const auto in = fill({2, 3}, 1), tg = fill({2, 3}, 2);
  auto var = leaf(T({0.5, 2.0, 1e-9, 0.1, 1.0, 3.0}, {2, 3}));
  // 0.5 * (log(max(v, eps)) + (x - y)^2 / max(v, eps)) per element, written out element by element.
  auto formula = [&](const torch::Tensor& v, double eps, bool full) {
    double total = 0;
    auto xa = in.contiguous(), ya = tg.contiguous(), va = v.detach().contiguous();
    for (int64_t i = 0; i < 6; ++i) {
      const double vi = std::max(va.view(-1)[i].item<double>(), eps);
      const double d = xa.view(-1)[i].item<double>() - ya.view(-1)[i].item<double>();
      total += 0.5 * (std::log(vi) + d * d / vi) + (full ? 0.5 * std::log(2 * M_PI) : 0.0);
    }
    return total;
  };
  CHECK(F::gaussian_nll_loss(in, tg, var, F::GaussianNLLLossFuncOptions(torch::kSum)).item<double>() ==
        Approx(formula(var, 1e-6, false)).epsilon(1e-12));
  CHECK(F::gaussian_nll_loss(in, tg, var, F::GaussianNLLLossFuncOptions().full(true).eps(0.2)).item<double>() ==
        Approx(formula(var, 0.2, true) / 6).epsilon(1e-12));
  // One variance per row, as (2,) or (2, 1): broadcast over the last dim.
  auto row = T({0.5, 2.0});
  auto expect = F::gaussian_nll_loss(in, tg, row.unsqueeze(1).expand({2, 3}).contiguous());
  CHECK(at::allclose(F::gaussian_nll_loss(in, tg, row), expect));
  CHECK(at::allclose(F::gaussian_nll_loss(in, tg, row.unsqueeze(1)), expect));
  // The clamp passes the gradient: d/dv of 0.5 (log v + d^2 / v) at the clamped value.
  auto g = torch::autograd::grad({F::gaussian_nll_loss(in, tg, var, F::GaussianNLLLossFuncOptions(torch::kSum))}, {var})[0];
  const double d2 = std::pow((in - tg).view(-1)[2].item<double>(), 2);
  CHECK(g.view(-1)[2].item<double>() == Approx(0.5 * (1 / 1e-6 - d2 / 1e-12)).epsilon(1e-9));
  CHECK_THAT(error_of([&] { F::gaussian_nll_loss(in, tg, T({1.0, 1.0, 1.0})); }),
             Catch::StartsWith("[gaussian_nll_loss] expected var of the input's shape"));
  CHECK_THAT(error_of([&] { F::gaussian_nll_loss(in, tg, -var.detach()); }),
             Catch::StartsWith("[gaussian_nll_loss] expected var >= 0 everywhere"));
  nn::GaussianNLLLoss m;
  CHECK(at::allclose(m(in, tg, var), F::gaussian_nll_loss(in, tg, var)));
}

TEST_CASE("cross_entropy with probabilities and label smoothing, nll_loss with weights and ignore_index, K-dim", "[nn][loss]") {
  auto x = leaf(fill({3, 4}, 5));
  const auto q = T({0.1, 0.2, 0.3, 0.4, 0.0, 0.0, 1.0, 0.0, 0.25, 0.25, 0.25, 0.25}, {3, 4});
  check_grad(kRef, "ce.prob.ls.w",
             F::cross_entropy(x, q, F::CrossEntropyFuncOptions().weight(T({0.5, 1.0, 2.0, 1.5})).label_smoothing(0.2)), {{"x", x}});
  auto lp = leaf(fill({4, 3}, 6));
  const auto tgt = torch::tensor({0, 2, -100, 1}, torch::kLong);
  check_grad(kRef, "nll.w.ignore", F::nll_loss(lp, tgt, F::NLLLossFuncOptions().weight(T({0.2, 1.0, 3.0}))), {{"x", lp}});
  // Every target ignored: the mean divides 0 by 0 (NaN), the sum is 0.
  check(kRef, "nll.all.ignored", F::nll_loss(lp, torch::full({4}, -100, torch::kLong)));
  check(kRef, "nll.all.ignored.sum",
        F::nll_loss(lp, torch::full({4}, -100, torch::kLong), F::NLLLossFuncOptions().reduction(torch::kSum)));
  auto xk = leaf(fill({2, 3, 2, 2}, 7));
  const auto tk = torch::tensor({0, 1, 2, 2, 1, -100, 0, 1}, torch::kLong).reshape({2, 2, 2});
  check_grad(kRef, "nll.kdim.w", F::nll_loss(xk, tk, F::NLLLossFuncOptions().weight(T({1.0, 2.0, 0.5}))), {{"x", xk}});
  const auto tk2 = torch::tensor({0, 1, 2, 2, 1, 0, 0, 1}, torch::kLong).reshape({2, 2, 2});
  check_grad(kRef, "ce.kdim.ls", F::cross_entropy(xk, tk2, F::CrossEntropyFuncOptions().label_smoothing(0.1).ignore_index(2)),
             {{"x", xk}});
}

TEST_CASE("the mean over zero elements is NaN, as libtorch", "[nn][loss]") {
  const auto e = torch::zeros({0}, torch::kDouble);
  check(kRef, "empty.mean", torch::stack({at::smooth_l1_loss(e, e), at::kl_div(e, e), at::soft_margin_loss(e, e)}));
  CHECK(at::binary_cross_entropy(e, e).isnan().item<bool>());
  CHECK(at::binary_cross_entropy_with_logits(e, e, std::nullopt, std::nullopt, 2).item<double>() == 0.0);
}

TEST_CASE("loss modules: forward equals the functional, weights are buffers, printing as libtorch", "[nn][loss]") {
  const auto x = fill({2, 3}, 1), y = fill({2, 3}, 2), p = x.sigmoid(), t = y.sigmoid();
  CHECK(at::equal(nn::SmoothL1Loss(nn::SmoothL1LossOptions().beta(0.5))(x, y), F::smooth_l1_loss(x, y, {}, 0.5)));
  CHECK(at::equal(nn::HuberLoss(nn::HuberLossOptions(torch::kSum))(x, y), at::huber_loss(x, y, 2, 1.0)));
  CHECK(at::equal(nn::KLDivLoss(nn::KLDivLossOptions(torch::kBatchMean))(x, t), at::kl_div(x, t, 2) / 2));
  CHECK(at::equal(nn::SoftMarginLoss()(x, y), at::soft_margin_loss(x, y)));
  CHECK(at::equal(nn::HingeEmbeddingLoss()(x, y), at::hinge_embedding_loss(x, y)));
  CHECK(at::equal(nn::PoissonNLLLoss()(x, t), at::poisson_nll_loss(x, t, true, false, 1e-8, 1)));
  CHECK(at::equal(nn::MarginRankingLoss()(x, y, t), at::margin_ranking_loss(x, y, t)));
  CHECK(at::equal(nn::CosineEmbeddingLoss()(x, y, T({1, -1})), at::cosine_embedding_loss(x, y, T({1, -1}))));
  CHECK(at::equal(nn::TripletMarginLoss()(x, y, t), at::triplet_margin_loss(x, y, t)));
  const auto w = T({1.0, 2.0, 3.0});
  nn::BCELoss bce(nn::BCELossOptions().weight(w));
  CHECK(bce->named_buffers().size() == 1);
  CHECK(at::equal(bce(p, t), at::binary_cross_entropy(p, t, w)));
  nn::BCEWithLogitsLoss bcel(nn::BCEWithLogitsLossOptions().pos_weight(w));
  CHECK(bcel->named_buffers().contains("pos_weight"));
  CHECK(at::equal(bcel(x, t), at::binary_cross_entropy_with_logits(x, t, std::nullopt, w)));
  // libtorch 2.15's printing.
  CHECK(printed(*nn::SmoothL1Loss()) == "torch::nn::SmoothL1Loss");
  CHECK(printed(*nn::HuberLoss()) == "torch::nn::HuberLoss");
  CHECK(printed(*bce) == "torch::nn::BCELoss()");
  CHECK(printed(*bcel) == "torch::nn::BCEWithLogitsLoss()");
  CHECK(printed(*nn::KLDivLoss()) == "torch::nn::KLDivLoss()");
  CHECK(printed(*nn::MarginRankingLoss()) == "torch::nn::MarginRankingLoss()");
  CHECK(printed(*nn::CosineEmbeddingLoss()) == "torch::nn::CosineEmbeddingLoss(margin=0)");
  CHECK(printed(*nn::HingeEmbeddingLoss()) == "torch::nn::HingeEmbeddingLoss(margin=1)");
  CHECK(printed(*nn::SoftMarginLoss()) == "torch::nn::SoftMarginLoss()");
  CHECK(printed(*nn::TripletMarginLoss()) == "torch::nn::TripletMarginLoss(margin=1, p=2, eps=1e-06, swap=false)");
  CHECK(printed(*nn::PoissonNLLLoss()) == "torch::nn::PoissonNLLLoss()");
}
