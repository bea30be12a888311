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
