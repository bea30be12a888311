// Issue #6: what the generated op tests of cosine_similarity, pairwise_distance, dist, the scatter
// variants and the later frontend ops (FrontendMore*.cpp) cannot reach: the nn modules and
// functional options, the in-place forms, gradients at ties and zeros, and the error messages.
// Expected values were recorded from libtorch 2.15 (tests/aten/libtorch/record_frontend_more.cpp).
#include <torch/torch.h>
#include "op_test_util.h"
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <sstream>
#include <vector>

namespace {
namespace F = torch::nn::functional;

std::vector<double> fm_values(const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kDouble).contiguous().reshape({-1});
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void fm_check_values(const torch::Tensor& t, const std::vector<double>& expected, double rel = 1e-6) {
  const std::vector<double> got = fm_values(t);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs libtorch " << expected[i]);
    if (std::isnan(expected[i])) CHECK(std::isnan(got[i]));
    else CHECK(got[i] == Approx(expected[i]).epsilon(rel).margin(1e-12));
  }
}

bool fm_starts(const std::string& message, const std::string& prefix) { return message.rfind(prefix, 0) == 0; }

template <class M>
std::string fm_printed(const M& module) {
  std::ostringstream s;
  s << *module;
  return s.str();
}
}  // namespace

TEST_CASE("CosineSimilarity and PairwiseDistance modules and functional options", "[frontend_more]") {
  CHECK(fm_printed(torch::nn::CosineSimilarity()) == "torch::nn::CosineSimilarity(dim=1, eps=1e-08)");
  CHECK(fm_printed(torch::nn::PairwiseDistance()) == "torch::nn::PairwiseDistance(p=2, eps=1e-06, keepdim=false)");
  CHECK(fm_printed(torch::nn::CosineSimilarity(torch::nn::CosineSimilarityOptions().dim(0).eps(0.5))) ==
        "torch::nn::CosineSimilarity(dim=0, eps=0.5)");
  CHECK(fm_printed(torch::nn::PairwiseDistance(torch::nn::PairwiseDistanceOptions().p(1.5).eps(1e-3).keepdim(true))) ==
        "torch::nn::PairwiseDistance(p=1.5, eps=0.001, keepdim=true)");

  torch::Tensor a = torch::tensor({{1., 2., 3.}, {0., 0., 0.}});
  torch::Tensor b = torch::tensor({{1., 0., 0.}, {1., 1., 1.}});
  torch::nn::CosineSimilarity cos;
  fm_check_values(cos(a, b), {0.2672612419124244, 0.0});
  fm_check_values(cos->forward(a, b), {0.2672612419124244, 0.0});
  fm_check_values(F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(0)),
                  {0.7071067811865475, 0.0, 0.0});
  // 0-dim and empty inputs (libtorch: 1, and a [2] of zeros for an empty dim).
  fm_check_values(torch::cosine_similarity(torch::tensor(1.), torch::tensor(2.), 0), {1.0});
  fm_check_values(torch::cosine_similarity(torch::ones({2, 0}), torch::ones({2, 0})), {0.0, 0.0});

  torch::nn::PairwiseDistance pd(torch::nn::PairwiseDistanceOptions().keepdim(true));
  const torch::Tensor d = pd(torch::ones({2, 3}), torch::zeros({2, 3}));
  CHECK(d.sizes() == torch::IntArrayRef({2, 1}));
  fm_check_values(d, {1.7320524454116821, 1.7320524454116821});
  fm_check_values(F::pairwise_distance(torch::ones({2, 3}), torch::zeros({3}), F::PairwiseDistanceFuncOptions().p(INFINITY)),
                  {1.0000009536743164, 1.0000009536743164});
  fm_check_values(F::pairwise_distance(torch::ones({2, 3}), torch::zeros({2, 3}), F::PairwiseDistanceFuncOptions().p(-1)),
                  {0.33333364129066467, 0.33333364129066467});
  // Integer inputs: the difference plus eps is a float.
  fm_check_values(torch::pairwise_distance(torch::ones({2, 3}, torch::kLong), torch::zeros({2, 3}, torch::kLong)),
                  {1.7320524454116821, 1.7320524454116821});
  fm_check_values(torch::dist(torch::ones({2, 3}), torch::zeros({3}), INFINITY), {1.0});
  fm_check_values(torch::dist(torch::ones({2, 3}), torch::zeros({3}), -INFINITY), {1.0});
  fm_check_values(torch::ones({2, 3}).dist(torch::zeros({3}), -1), {0.1666666716337204});
  CHECK(torch::dist(torch::ones({2, 3}), torch::zeros({3}, torch::kDouble)).scalar_type() == torch::kDouble);
}

TEST_CASE("cosine_similarity and dist gradients at and near zero norms", "[frontend_more]") {
  // libtorch: the clamped norm is a constant, so a zero x gets y_hat / eps.
  torch::Tensor x = torch::zeros({2, 3}, torch::requires_grad());
  torch::cosine_similarity(x, torch::ones({2, 3})).sum().backward();
  fm_check_values(x.grad(), std::vector<double>(6, 57735026.918962575), 1e-5);
  torch::Tensor s = torch::tensor({{1e-9, 0., 0.}}, torch::requires_grad());
  torch::cosine_similarity(s, torch::ones({1, 3})).sum().backward();
  fm_check_values(s.grad(), {51961524.227066323, 57735026.918962575, 57735026.918962575}, 1e-5);
  torch::Tensor y = torch::ones({2, 3}, torch::requires_grad());
  torch::dist(y, torch::ones({2, 3})).backward();
  fm_check_values(y.grad(), std::vector<double>(6, 0.0));
}

TEST_CASE("scatter_reduce: ties, zeros, integer means, in place", "[frontend_more]") {
  // amax shares the gradient evenly among the elements equal to the result, self included.
  torch::Tensor self = torch::tensor({3., 0., 0.}, torch::requires_grad());
  torch::Tensor src = torch::tensor({3., 3., 1.}, torch::requires_grad());
  torch::Tensor index = torch::tensor({0, 0, 1});
  torch::Tensor out = self.scatter_reduce(0, index, src, "amax");
  fm_check_values(out, {3., 1., 0.});
  out.sum().backward();
  fm_check_values(self.grad(), {1. / 3, 0., 1.});
  fm_check_values(src.grad(), {1. / 3, 1. / 3, 1.});
  // prod with a zero: the zero's gradient is the product of the others.
  torch::Tensor p_self = torch::tensor({2., 0., 5.}, torch::requires_grad());
  torch::Tensor p_src = torch::tensor({0., 3., 1.}, torch::requires_grad());
  p_self.scatter_reduce(0, index, p_src, "prod").sum().backward();
  fm_check_values(p_self.grad(), {0., 1., 1.});
  fm_check_values(p_src.grad(), {6., 0., 0.});
  // NaN wins amax and amin; "max"/"min" are libtorch's spellings of amax/amin too.
  torch::Tensor v = torch::tensor({1., 2., 3., 4.});
  torch::Tensor nan_src = torch::tensor({5., std::nan(""), -1.});
  torch::Tensor idx = torch::tensor({0, 0, 2});
  fm_check_values(v.scatter_reduce(0, idx, nan_src, "amax"), {NAN, 2., 3., 4.});
  fm_check_values(v.scatter_reduce(0, idx, nan_src, "amin", false), {NAN, 2., -1., 4.});
  fm_check_values(v.scatter_reduce(0, idx, torch::tensor({5., -7., -1.}), "max"), {5., 2., 3., 4.});
  fm_check_values(v.scatter_reduce(0, idx, torch::tensor({5., -7., -1.}), "min"), {-7., 2., -1., 4.});
  // Integer means round toward -inf.
  fm_check_values(torch::tensor({1, 2, 3, 4}).scatter_reduce(0, idx, torch::tensor({-5, -1, -2}), "mean"), {-2., 2., 0., 4.});
  fm_check_values(torch::tensor({1, 2, 3, 4}).scatter_reduce(0, idx, torch::tensor({5, 6, -1}), "mean", false), {5., 2., -1., 4.});

  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      torch::Tensor t = torch::linspace(-2, 2, 12).reshape({4, 3});
      torch::Tensor i = torch::tensor({{3, 0, 0}, {3, 1, 0}});
      torch::Tensor sr = torch::linspace(1, -1, 6).reshape({2, 3});
      const torch::Tensor expected = torch::scatter_reduce(t, 0, i, sr, reduce, include_self);
      torch::Tensor& r = t.scatter_reduce_(0, i, sr, reduce, include_self);
      CHECK(&r == &t);
      CHECK(torch::equal(t, expected));
    }
  }
}

TEST_CASE("masked_scatter_ equals masked_scatter where the mask broadcasts to self", "[frontend_more]") {
  torch::Tensor self = torch::ones({2, 3});
  torch::Tensor mask = torch::tensor({true, false, true});
  torch::Tensor source = torch::arange(10.).reshape({2, 5});
  const torch::Tensor expected = self.masked_scatter(mask, source);
  fm_check_values(expected, {0., 1., 1., 2., 1., 3.});
  torch::Tensor& r = self.masked_scatter_(mask, source);
  CHECK(&r == &self);
  CHECK(torch::equal(self, expected));
  // Out of place, self broadcasts with the mask; in place it cannot.
  const torch::Tensor grown = torch::ones({3}).masked_scatter(torch::tensor({{true}, {false}}), source);
  CHECK(grown.sizes() == torch::IntArrayRef({2, 3}));
  fm_check_values(grown, {0., 1., 2., 1., 1., 1.});
  torch::Tensor small = torch::ones({3});
  CHECK(fm_starts(ember_test::error_of([&] { small.masked_scatter_(torch::tensor({{true}, {false}}), source); }),
                  "[masked_scatter_] expected"));
  // In-place history: the gradient reaches source through the written positions only.
  torch::Tensor src = torch::arange(5.).requires_grad_(true);
  torch::Tensor base = torch::zeros({4});
  base.masked_scatter_(torch::tensor({true, false, true, true}), src);
  (base * torch::tensor({1., 2., 3., 4.})).sum().backward();
  fm_check_values(src.grad(), {1., 3., 4., 0., 0.});
}

TEST_CASE("frontend_more errors start with the op's name", "[frontend_more]") {
  const torch::Tensor x = torch::ones({3, 4});
  auto starts = [](const std::function<void()>& f, const std::string& prefix) {
    const std::string e = ember_test::error_of(f);
    INFO(e);
    CHECK(fm_starts(e, prefix));
  };
  starts([&] { torch::cosine_similarity(torch::ones({3}, torch::kLong), torch::ones({3}, torch::kLong), 0); },
         "[cosine_similarity] expected");
  starts([&] { torch::cosine_similarity(torch::ones({2, 3}), torch::ones({4, 3})); }, "[cosine_similarity]");
  starts([&] { torch::pairwise_distance(torch::ones({2, 3}), torch::ones({4, 3})); }, "[pairwise_distance]");
  starts([&] { torch::dist(torch::ones({3}, torch::kLong), torch::ones({3}, torch::kLong)); }, "[dist] expected");
  starts([&] { torch::dist(torch::ones({3}), torch::ones({4})); }, "[dist]");
  const torch::Tensor idx = torch::tensor({{0, 1, 2, 0}});
  starts([&] { x.scatter_reduce(0, idx, x, "add"); }, "[scatter_reduce] expected reduce");
  starts([&] { x.scatter_reduce(0, idx, x.to(torch::kDouble), "sum"); }, "[scatter_reduce] expected self and src");
  starts([&] { x.scatter_reduce(0, torch::tensor({{0, 3}}), x, "sum"); }, "[scatter_reduce] expected index values");
  starts([&] { x.scatter_reduce(1, torch::zeros({4, 2}, torch::kLong), x, "sum"); }, "[scatter_reduce] expected index no larger");
  starts([&] { x.scatter_reduce(0, torch::zeros({2}, torch::kLong), x, "sum"); }, "[scatter_reduce] expected index and src");
  starts([&] { x.masked_scatter(torch::ones({3, 4}, torch::kLong), x); }, "[masked_scatter] expected a bool mask");
  starts([&] { x.masked_scatter(torch::ones({4}, torch::kBool), torch::ones({5})); }, "[masked_scatter] expected source");
  starts([&] { x.masked_scatter(torch::ones({4}, torch::kBool), torch::ones({12}, torch::kLong)); }, "[masked_scatter] expected self and source");
  starts([&] { torch::slice_scatter(x, torch::ones({2, 4})); }, "[slice_scatter] expected src");
  starts([&] { torch::slice_scatter(x, torch::ones({3, 4}), 0, 0, 3, 0); }, "[slice_scatter] expected a positive step");
  starts([&] { torch::select_scatter(x, torch::ones({4}), 0, 3); }, "[select_scatter] expected an index");
  starts([&] { torch::select_scatter(x, torch::ones({3}), 0, 1); }, "[select_scatter] expected src");
  starts([&] { torch::diagonal_scatter(x, torch::ones({2})); }, "[diagonal_scatter] expected src");
}

TEST_CASE("promote_types, can_cast and result_type follow libtorch's tables", "[frontend_more]") {
  const torch::ScalarType types[10] = {torch::kBool, torch::kByte,  torch::kChar,     torch::kShort, torch::kInt,
                                       torch::kLong, torch::kHalf, torch::kBFloat16, torch::kFloat, torch::kDouble};
  const torch::ScalarType promoted[10][10] = {
      {torch::kBool, torch::kByte, torch::kChar, torch::kShort, torch::kInt, torch::kLong, torch::kHalf, torch::kBFloat16, torch::kFloat, torch::kDouble},
      {torch::kByte, torch::kByte, torch::kShort, torch::kShort, torch::kInt, torch::kLong, torch::kHalf, torch::kBFloat16, torch::kFloat, torch::kDouble},
      {torch::kChar, torch::kShort, torch::kChar, torch::kShort, torch::kInt, torch::kLong, torch::kHalf, torch::kBFloat16, torch::kFloat, torch::kDouble},
      {torch::kShort, torch::kShort, torch::kShort, torch::kShort, torch::kInt, torch::kLong, torch::kHalf, torch::kBFloat16, torch::kFloat, torch::kDouble},
      {torch::kInt, torch::kInt, torch::kInt, torch::kInt, torch::kInt, torch::kLong, torch::kHalf, torch::kBFloat16, torch::kFloat, torch::kDouble},
      {torch::kLong, torch::kLong, torch::kLong, torch::kLong, torch::kLong, torch::kLong, torch::kHalf, torch::kBFloat16, torch::kFloat, torch::kDouble},
      {torch::kHalf, torch::kHalf, torch::kHalf, torch::kHalf, torch::kHalf, torch::kHalf, torch::kHalf, torch::kFloat, torch::kFloat, torch::kDouble},
      {torch::kBFloat16, torch::kBFloat16, torch::kBFloat16, torch::kBFloat16, torch::kBFloat16, torch::kBFloat16, torch::kFloat, torch::kBFloat16, torch::kFloat, torch::kDouble},
      {torch::kFloat, torch::kFloat, torch::kFloat, torch::kFloat, torch::kFloat, torch::kFloat, torch::kFloat, torch::kFloat, torch::kFloat, torch::kDouble},
      {torch::kDouble, torch::kDouble, torch::kDouble, torch::kDouble, torch::kDouble, torch::kDouble, torch::kDouble, torch::kDouble, torch::kDouble, torch::kDouble},
  };
  const bool castable[10][10] = {
      {true, true, true, true, true, true, true, true, true, true},
      {false, true, true, true, true, true, true, true, true, true},
      {false, true, true, true, true, true, true, true, true, true},
      {false, true, true, true, true, true, true, true, true, true},
      {false, true, true, true, true, true, true, true, true, true},
      {false, true, true, true, true, true, true, true, true, true},
      {false, false, false, false, false, false, true, true, true, true},
      {false, false, false, false, false, false, true, true, true, true},
      {false, false, false, false, false, false, true, true, true, true},
      {false, false, false, false, false, false, true, true, true, true},
  };
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) {
      INFO(types[i] << " and " << types[j]);
      CHECK(torch::promote_types(types[i], types[j]) == promoted[i][j]);
      CHECK(torch::can_cast(types[i], types[j]) == castable[i][j]);
    }
  }
  CHECK(torch::result_type(torch::ones({2}, torch::kInt), 2.5) == torch::kFloat);
  CHECK(torch::result_type(2, torch::ones({2}, torch::kInt)) == torch::kInt);
  CHECK(torch::result_type(torch::tensor(2., torch::kDouble), torch::ones({2}, torch::kFloat)) == torch::kFloat);
  CHECK(torch::result_type(2, 3.5) == torch::kFloat);
  CHECK(torch::result_type(true, 2) == torch::kLong);
  CHECK(torch::result_type(true, false) == torch::kBool);
  CHECK(torch::result_type(torch::ones({2}, torch::kByte), -1) == torch::kByte);
  CHECK(torch::result_type(torch::ones({}, torch::kLong), torch::ones({2}, torch::kByte)) == torch::kByte);
  CHECK(torch::result_type(torch::ones({2}, torch::kBool), 1.5) == torch::kFloat);
}

TEST_CASE("quantile gradients at ties and NaN, renorm's full derivative, renorm_", "[frontend_more]") {
  // The gradient goes to the elements read. Ember reads equal elements in index order (a stable
  // sort); libtorch's order of equal elements is unspecified: it gives {0, 0.8, 1.7, 0.5} here but
  // {0, 0, 1, 0} for "nearest" at q = 0.5, where Ember's stable order gives {0, 1, 0, 0}.
  torch::Tensor t = torch::tensor({1., 3., 3., 2.}, torch::requires_grad());
  t.quantile(torch::tensor({0.5, 0.9, 1.0})).sum().backward();
  fm_check_values(t.grad(), {0., 0.8, 1.7, 0.5}, 1e-6);
  torch::Tensor n = torch::tensor({1., 3., 3., 2.}, torch::requires_grad());
  n.quantile(0.5, 0, false, "nearest").sum().backward();
  fm_check_values(n.grad(), {0., 1., 0., 0.});
  // The linear weight carries the gradient to q (libtorch: {3, 0}).
  torch::Tensor row = torch::tensor({{1., 5., 2., 2.}});
  torch::Tensor qs = torch::tensor({0.3, 0.6}, torch::requires_grad());
  row.quantile(qs, 1).sum().backward();
  fm_check_values(qs.grad(), {3., 0.}, 1e-5);
  // quantile reads the NaN of a row that has one; nanquantile skips it.
  torch::Tensor x = torch::tensor({{1., 5., 2., 2.}, {3., std::nan(""), 0., 1.}}, torch::requires_grad());
  fm_check_values(x.quantile(0.5, 1), {2., NAN});
  fm_check_values(x.nanquantile(0.5, 1, true), {2., 1.});
  x.nanquantile(0.5, 1).sum().backward();
  fm_check_values(x.grad(), {0., 0., 0.5, 0.5, 0., 0., 0., 1.});
  x.grad().zero_();
  x.quantile(0.5, 1).sum().backward();
  fm_check_values(x.grad(), {0., 0., 0.5, 0.5, 0., 1., 0., 0.});
  fm_check_values(torch::tensor({std::nan(""), std::nan("")}).nanquantile(0.5), {NAN});
  // Interpolations (libtorch rounds ranks half to even for "nearest").
  const torch::Tensor six = torch::tensor({0., 1., 2., 3., 4., 5.});
  const torch::Tensor q = torch::tensor({0.1, 0.3, 0.5, 0.7, 0.9});
  fm_check_values(six.quantile(q, 0, false, "linear"), {0.5, 1.5, 2.5, 3.5, 4.5});
  fm_check_values(six.quantile(q, 0, false, "lower"), {0., 1., 2., 3., 4.});
  fm_check_values(six.quantile(q, 0, false, "higher"), {1., 2., 3., 4., 5.});
  fm_check_values(six.quantile(q, 0, false, "midpoint"), {0.5, 1.5, 2.5, 3.5, 4.5});
  fm_check_values(six.quantile(q, 0, false, "nearest"), {1., 2., 2., 3., 4.});
  CHECK(six.quantile(torch::tensor({0.25}), std::nullopt, true).sizes() == torch::IntArrayRef({1, 1}));

  // renorm differentiates through the norm (the slices here are just over the limit).
  torch::Tensor r = torch::ones({2, 3}, torch::dtype(torch::kDouble).requires_grad(true));
  r.renorm(2, 0, 1).sum().backward();
  fm_check_values(r.grad(), std::vector<double>(6, 3.3333329329665746e-08), 1e-6);
  torch::Tensor w = torch::linspace(-3, 3, 12).reshape({3, 4});
  const torch::Tensor expected = torch::renorm(w, 2, 1, 1.5);
  torch::Tensor& same = w.renorm_(2, 1, 1.5);
  CHECK(&same == &w);
  CHECK(torch::equal(w, expected));
}

TEST_CASE("counting and index factories", "[frontend_more]") {
  CHECK(torch::combinations(torch::tensor({1., 2., 3.}), 4).sizes() == torch::IntArrayRef({0, 4}));
  CHECK(torch::combinations(torch::empty({0})).sizes() == torch::IntArrayRef({0, 2}));
  CHECK(torch::scalar_tensor(1).scalar_type() == torch::kFloat);
  CHECK(torch::scalar_tensor(true).scalar_type() == torch::kFloat);
  CHECK(torch::scalar_tensor(3, torch::kLong).item<int64_t>() == 3);
  fm_check_values(torch::tril_indices(3, 4, 0, torch::kInt), {0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2});
  CHECK(torch::tril_indices(3, 4, 0, torch::kInt).scalar_type() == torch::kInt);
  fm_check_values(torch::triu_indices(3, 4, 1), {0, 0, 0, 1, 1, 2, 1, 2, 3, 2, 3, 3});
  fm_check_values(torch::tensor({1., 2., 1., 2.5, 7.}).histc(4), {3., 1., 0., 1.});
  fm_check_values(torch::tensor({1., std::nan(""), -1., 3.}).histc(4, 0, 3), {0., 1., 0., 1.});
  fm_check_values(torch::tensor({2., 2.}).histc(4), {0., 0., 2., 0.});
  CHECK(torch::tensor({1, 3, 1}).bincount(torch::tensor({0.5f, 1.f, 2.f})).scalar_type() == torch::kFloat);
  CHECK(torch::tensor({1, 3, 1}).bincount(torch::tensor({1, 2, 2})).scalar_type() == torch::kDouble);
  fm_check_values(torch::tensor({1, 3, 1}, torch::kByte).bincount({}, 6), {0., 2., 0., 1., 0., 0.});
  fm_check_values(torch::isin(torch::tensor({1., 2., std::nan("")}), torch::tensor({2., std::nan("")})), {0., 1., 0.});
  fm_check_values(torch::isin(3, torch::tensor({{1, 2}, {3, 4}})), {1.});
  CHECK(torch::isin(3, torch::tensor({{1, 2}, {3, 4}})).dim() == 0);
}

TEST_CASE("frontend_more errors of the statistics and factories start with the op's name", "[frontend_more]") {
  auto starts = [](const std::function<void()>& f, const std::string& prefix) {
    const std::string e = ember_test::error_of(f);
    INFO(e);
    CHECK(fm_starts(e, prefix));
  };
  const torch::Tensor x = torch::ones({3, 4});
  starts([&] { x.quantile(1.5); }, "[quantile] expected q values");
  starts([&] { x.nanquantile(0.5, 0, false, "cubic"); }, "[nanquantile] expected interpolation");
  starts([&] { torch::ones({3}, torch::kLong).quantile(0.5); }, "[quantile] expected a float32 or float64");
  starts([&] { x.quantile(torch::ones({2, 2}) / 2); }, "[quantile] expected q of 0 or 1 dims");
  starts([&] { x.quantile(torch::ones({2}, torch::kDouble) / 2); }, "[quantile] expected q of the input's dtype");
  starts([&] { torch::empty({0}).quantile(0.5); }, "[quantile] expected a non-empty");
  starts([&] { torch::ones({2, 2, 2}).cov(); }, "[cov] expected an input of at most 2 dims");
  starts([&] { x.cov(1, torch::tensor({1, -2, 1, 1})); }, "[cov] expected non-negative fweights");
  starts([&] { x.cov(1, torch::tensor({1, 2})); }, "[cov] expected fweights with one value");
  starts([&] { x.cov(1, torch::zeros({4}, torch::kLong)); }, "[cov] expected weights whose sum");
  starts([&] { x.cov(1, std::nullopt, torch::ones({4}, torch::kLong)); }, "[cov] expected floating aweights");
  starts([&] { torch::ones({3}, torch::kLong).histc(); }, "[histc] expected a floating input");
  starts([&] { x.histc(0); }, "[histc] expected bins > 0");
  starts([&] { x.histc(3, 2, 1); }, "[histc] expected max > min");
  starts([&] { torch::tensor({1., INFINITY}).histc(3); }, "[histc] expected a finite range");
  starts([&] { torch::tensor({1, -3}).bincount(); }, "[bincount] expected non-negative values");
  starts([&] { torch::tensor({1., 3.}).bincount(); }, "[bincount] expected an integral input");
  starts([&] { torch::tensor({1, 3}).bincount({}, -1); }, "[bincount] expected minlength >= 0");
  starts([&] { torch::isin(torch::tensor({true}), torch::tensor({1})); }, "[isin] expected numeric");
  starts([&] { torch::block_diag({torch::ones({2, 2, 2})}); }, "[block_diag] expected tensors of at most 2 dims");
  starts([&] { torch::cartesian_prod({torch::ones({2, 2})}); }, "[cartesian_prod] expected 1-d tensors");
  starts([&] { torch::combinations(torch::ones({3}), -1); }, "[combinations] expected r >= 0");
  starts([&] { torch::diag_embed(torch::ones({3}), 0, 0, 0); }, "[diag_embed] expected two different dims");
  starts([&] { torch::tril_indices(-1, 3); }, "[tril_indices] expected row >= 0");
  starts([&] { torch::triu_indices(3, 3, 0, torch::kFloat); }, "[triu_indices] expected an integral dtype");
  starts([&] { torch::vander(torch::ones({3}), -1); }, "[vander] expected N >= 0");
  starts([&] { torch::trapezoid(torch::ones({3, 5}), torch::ones({4})); }, "[trapezoid] expected one x per sample");
  starts([&] { torch::cumulative_trapezoid(torch::ones({3, 5}), torch::ones({4})); }, "[cumulative_trapezoid] expected one x");
  starts([&] { x.renorm(0, 0, 1); }, "[renorm] expected p > 0");
  starts([&] { x.renorm(2, 0, -1); }, "[renorm] expected maxnorm >= 0");
  starts([&] { torch::ones({3}).renorm(2, 0, 1); }, "[renorm] expected an input of at least 2 dims");
  starts([&] { torch::chain_matmul({}); }, "[chain_matmul] expected one or more");
  starts([&] { torch::chain_matmul({torch::ones({2, 3}), torch::ones({3})}); }, "[chain_matmul] expected 2-d");
}

// Found by tools/difffuzz --new against libtorch 2.15; expected values recorded there.
TEST_CASE("trapezoid rules: x of more dims than y, empty dims, bool; cov of one variable; cosine_similarity dtype",
          "[frontend_more]") {
  // An x of more dims than y is sliced along y's dim index (here 0), not aligned from the right.
  const torch::Tensor y = torch::tensor({7., 7.}, torch::kDouble);
  const torch::Tensor x = torch::arange(72, torch::kFloat).reshape({3, 3, 2, 2, 2}).to(torch::kBFloat16);
  const torch::Tensor t = torch::trapezoid(y, x, 0);
  CHECK(t.scalar_type() == torch::kDouble);
  CHECK(t.sizes() == torch::IntArrayRef({3, 2, 2, 2}));
  fm_check_values(t, std::vector<double>(24, 336.));
  const torch::Tensor c = torch::cumulative_trapezoid(y, x, 0);
  CHECK(c.sizes() == torch::IntArrayRef({2, 3, 2, 2, 2}));
  std::vector<double> cv(24, 168.);
  cv.resize(48, 336.);
  fm_check_values(c, cv);
  // An empty dim: zeros of y's dtype (trapezoid), the promoted dtype and n - 1 = 0 (cumulative).
  const torch::Tensor ys = torch::zeros({20, 4, 0}, torch::kShort);
  CHECK(torch::trapezoid(ys, 2.5).scalar_type() == torch::kShort);
  CHECK(torch::trapz(ys, 2.5).sizes() == torch::IntArrayRef({20, 4}));
  CHECK(torch::trapezoid(ys, torch::zeros({0})).scalar_type() == torch::kShort);
  CHECK(torch::cumulative_trapezoid(ys, 2.5).scalar_type() == torch::kFloat);
  const torch::Tensor ce = torch::cumulative_trapezoid(torch::zeros({0}, torch::kByte), torch::zeros({3, 4, 0}));
  CHECK(ce.scalar_type() == torch::kFloat);
  CHECK(ce.sizes() == torch::IntArrayRef({2, 4, 0}));
  CHECK(torch::trapezoid(torch::zeros({0}, torch::kByte), torch::zeros({3, 4, 0})).scalar_type() == torch::kByte);
  CHECK(torch::trapezoid(torch::zeros({0}, torch::kBool), 1.0).scalar_type() == torch::kBool);
  CHECK_THROWS(torch::trapezoid(torch::tensor({1., 2., 3.}), torch::tensor({{0., 1., 3.}, {0., 2., 4.}}), 0));
  // cov squeezes: one variable gives a 0-dim result also from a 2-d input.
  const torch::Tensor one = torch::tensor({{-9.f, -7.f, -5.f}});
  CHECK(one.cov().dim() == 0);
  fm_check_values(one.cov(), {4.});
  fm_check_values(one.corrcoef(), {1.});
  CHECK(torch::ones({3, 1}).cov().sizes() == torch::IntArrayRef({3, 3}));
  // Both operands' dtypes count in full (a 0-dim float64 promotes float16 to float64).
  const torch::Tensor cs = torch::cosine_similarity(torch::ones({2, 3}, torch::kHalf), torch::tensor(2.0, torch::kDouble), 1);
  CHECK(cs.scalar_type() == torch::kDouble);
  fm_check_values(cs, {1., 1.});
  // isin promotes as result_type: a 0-dim operand of the same category takes the other's dtype.
  const torch::Tensor u8 = torch::tensor({245, 246, 247}, torch::kByte);
  fm_check_values(torch::isin(torch::tensor(-11, torch::kInt), u8), {1.});
  fm_check_values(torch::isin(u8, torch::tensor(-12, torch::kInt)), {0., 0., 0.});
  fm_check_values(torch::isin(u8, torch::tensor(-11, torch::kInt)), {1., 0., 0.});
  auto starts = [](const std::function<void()>& f, const std::string& prefix) {
    const std::string e = ember_test::error_of(f);
    INFO(e);
    CHECK(fm_starts(e, prefix));
  };
  starts([&] { torch::trapezoid(torch::ones({3}, torch::kBool), 1.0); }, "[trapezoid] expected numeric y");
  starts([&] { torch::trapezoid(torch::ones({3}), torch::ones({3}, torch::kBool)); }, "[trapezoid] expected numeric y and x");
  starts([&] { torch::cumulative_trapezoid(torch::ones({3}, torch::kBool), 1.0); }, "[cumulative_trapezoid] expected numeric");
  starts([&] { torch::cumulative_trapezoid(torch::ones({3}, torch::kBool), torch::ones({3})); }, "[cumulative_trapezoid] expected");
  starts([&] { torch::cosine_similarity(torch::ones({2, 3}), torch::ones({2, 3}), 1, -1.0); }, "[cosine_similarity] expected a non-negative eps");
  starts([&] { torch::pairwise_distance(torch::ones({2, 3}, torch::kBool), torch::ones({2, 3})); }, "[pairwise_distance] expected numeric");
  starts([&] { torch::dist(torch::ones({3}, torch::kBool), torch::ones({3}, torch::kBool)); }, "[dist] expected numeric");
}
