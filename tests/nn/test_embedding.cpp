// Embedding tables: at::embedding / F::embedding (rows, padding_idx and scale_grad_by_freq
// gradients against float64 loops written here and finite differences), F::embedding_bag and
// nn::EmbeddingBag against values and gradients recorded from libtorch 2.15, nn::Embedding init,
// from_pretrained, printing (libtorch's strings) and the errors.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include "nn/reference_util.h"
#include <torch/csrc/autograd/gradcheck.h>
#include <cmath>
#include <sstream>
#include <vector>

namespace nn = torch::nn;
namespace F = torch::nn::functional;

namespace {
using ember_ref::printed;
// The deterministic input the libtorch reference program used: (i * step + off) mod 3 - 1.
torch::Tensor ramp(std::vector<int64_t> s, double step = 0.25, double off = -1.5) {
  int64_t n = 1;
  for (auto v : s) n *= v;
  return torch::arange(n, torch::kDouble).mul(step).add(off).remainder(3.0).sub(1.0).to(torch::kFloat).reshape(s);
}

torch::Tensor values(std::vector<int64_t> shape, std::vector<double> v) {
  return torch::tensor(v, torch::kDouble).reshape(shape);
}

void require_close(const torch::Tensor& got, const torch::Tensor& want, double tol = 1e-5) {
  REQUIRE(got.sizes() == want.sizes());
  INFO("got " << got << "\nwant " << want);
  REQUIRE(torch::allclose(got.detach().to(torch::kDouble), want.to(torch::kDouble), tol, tol));
}
}  // namespace

TEST_CASE("embedding looks up rows for any index shape and dtype", "[nn][embedding]") {
  const auto w = ramp({5, 3});
  const auto idx = torch::tensor({4, 0, 4, 2, 1, 3}, torch::kLong).reshape({2, 3});
  const auto y = F::embedding(idx, w);
  REQUIRE(y.sizes() == torch::IntArrayRef({2, 3, 3}));
  for (int64_t i = 0; i < 6; ++i) REQUIRE(torch::equal(y.reshape({6, 3})[i], w[idx.reshape({-1})[i].item<int64_t>()]));
  REQUIRE(torch::equal(F::embedding(idx.to(torch::kInt), w), y));
  // A transposed (non-contiguous) table and a 0-dim index.
  const auto wt = ramp({3, 5}).t();
  REQUIRE(torch::equal(F::embedding(torch::tensor(3, torch::kLong), wt), wt[3].contiguous()));
  REQUIRE(F::embedding(torch::zeros({0, 2}, torch::kLong), w).sizes() == torch::IntArrayRef({0, 2, 3}));
  // NaN rows are copied, not computed with.
  auto wn = w.clone();
  wn[1][2] = NAN;
  REQUIRE(std::isnan(F::embedding(torch::tensor({1}, torch::kLong), wn)[0][2].item<double>()));
}

TEST_CASE("embedding gradient: scatter-added rows, padding_idx gets none, scale_grad_by_freq divides by counts",
          "[nn][embedding][grad]") {
  const std::vector<int64_t> ids = {1, 3, 1, 0, 3, 1, 2};
  const auto idx = torch::tensor(ids, torch::kLong);
  const auto g = ramp({7, 2}, 0.35, 0.1).to(torch::kDouble);
  for (bool scale : {false, true})
    for (int64_t pad : {-1, 1}) {
      auto w = ramp({4, 2}).to(torch::kDouble).requires_grad_();
      torch::embedding(w, idx, pad, scale).backward(g);
      // float64 reference: each lookup adds its gradient row, divided by the row's lookup count.
      std::vector<double> want(8, 0.0), count(4, 0.0);
      for (auto i : ids) count[size_t(i)] += 1;
      for (size_t k = 0; k < ids.size(); ++k) {
        if (ids[k] == pad) continue;
        for (int64_t d = 0; d < 2; ++d)
          want[size_t(ids[k] * 2 + d)] += g[int64_t(k)][d].item<double>() / (scale ? count[size_t(ids[k])] : 1.0);
      }
      INFO("scale " << scale << " pad " << pad);
      require_close(w.grad(), values({4, 2}, want), 1e-12);
    }
  // Finite differences (without padding_idx and scaling the gradient is the derivative), and
  // second derivatives through the composite backward.
  auto w = ramp({4, 3}).to(torch::kDouble).requires_grad_();
  auto f = [&](const torch::autograd::variable_list& x) {
    return torch::autograd::variable_list{torch::embedding(x[0], idx).mul(torch::arange(21, torch::kDouble).reshape({7, 3}))};
  };
  REQUIRE(torch::autograd::gradcheck(f, {w}));
  auto gd = ramp({7, 3}, 0.35, 0.1).to(torch::kDouble).requires_grad_();
  auto fb = [&](const torch::autograd::variable_list& x) {
    return torch::autograd::variable_list{torch::embedding_backward(x[0], idx, 4, 1, true, false)};
  };
  REQUIRE(torch::autograd::gradcheck(fb, {gd}));
}

TEST_CASE("embedding errors", "[nn][embedding][errors]") {
  const auto w = ramp({4, 2});
  REQUIRE_THROWS_WITH(F::embedding(torch::tensor({1.0}), w), Catch::Contains("[embedding] expected int64 or int32 indices"));
  REQUIRE_THROWS_WITH(F::embedding(torch::tensor({4}, torch::kLong), w), Catch::Contains("[embedding] expected indices in [0, 4)"));
  REQUIRE_THROWS_WITH(F::embedding(torch::tensor({-1}, torch::kLong), w), Catch::Contains("[embedding] expected indices in [0, 4)"));
  REQUIRE_THROWS_WITH(torch::embedding(ramp({4}), torch::tensor({1}, torch::kLong)), Catch::Contains("[embedding] expected a 2-D weight"));
  REQUIRE_THROWS_WITH(F::embedding(torch::tensor({1}, torch::kLong), w, F::EmbeddingFuncOptions().padding_idx(4)),
                      Catch::Contains("[embedding] expected padding_idx in [-4, 4)"));
  REQUIRE_THROWS_WITH(F::embedding(torch::tensor({1}, torch::kLong), w, F::EmbeddingFuncOptions().max_norm(-1.0)),
                      Catch::Contains("[embedding] expected max_norm >= 0; got -1"));
  REQUIRE_THROWS_WITH(F::embedding(torch::tensor({7}, torch::kLong), w, F::EmbeddingFuncOptions().max_norm(1.0)),
                      Catch::Contains("[embedding] expected indices in [0, 4)"));
  auto wg = w.clone().requires_grad_();
  auto y = torch::embedding(wg, torch::tensor({1}, torch::kLong), -1, false, /*sparse=*/true);
  REQUIRE_THROWS_WITH(y.sum().backward(), Catch::Contains("[embedding_backward] expected sparse=false"));
}

TEST_CASE("nn::Embedding: N(0, 1) init with the padding row zeroed, from_pretrained, printing", "[nn][embedding]") {
  torch::manual_seed(0);
  nn::Embedding e(nn::EmbeddingOptions(2000, 50).padding_idx(-2));
  REQUIRE(e->options.padding_idx() == 1998);  // negative padding_idx counts from the end (libtorch: 3 of 5 for -2)
  REQUIRE(e->weight.sizes() == torch::IntArrayRef({2000, 50}));
  REQUIRE(e->weight[1998].abs().sum().item<double>() == 0.0);
  REQUIRE(std::abs(e->weight.mean().item<double>()) < 0.01);
  REQUIRE(std::abs(e->weight.std().item<double>() - 1.0) < 0.01);
  REQUIRE(e->named_parameters().size() == 1);
  // Strings recorded from libtorch 2.15.
  REQUIRE(printed(*nn::Embedding(nn::EmbeddingOptions(5, 3).padding_idx(-2))) ==
          "torch::nn::Embedding(num_embeddings=5, embedding_dim=3, padding_idx=3)");
  REQUIRE(printed(*nn::Embedding(nn::EmbeddingOptions(5, 3).scale_grad_by_freq(true))) ==
          "torch::nn::Embedding(num_embeddings=5, embedding_dim=3, scale_grad_by_freq=true)");
  const auto table = ramp({4, 2});
  auto pre = nn::Embedding::from_pretrained(table);
  REQUIRE(printed(*pre) == "torch::nn::Embedding(num_embeddings=4, embedding_dim=2)");
  REQUIRE_FALSE(pre->weight.requires_grad());
  REQUIRE(torch::equal(pre(torch::tensor({3, 0}, torch::kLong)), torch::stack({table[3], table[0]})));
  auto trained = nn::Embedding::from_pretrained(table, nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(0));
  REQUIRE(trained->weight.requires_grad());
  trained(torch::tensor({0, 2, 0}, torch::kLong)).sum().backward();
  require_close(trained->weight.grad(), values({4, 2}, {0, 0, 0, 0, 1, 1, 0, 0}));
  REQUIRE_THROWS_WITH(nn::Embedding(nn::EmbeddingOptions(5, 3).padding_idx(5)), Catch::Contains("[Embedding] expected padding_idx"));
  REQUIRE_THROWS_WITH(nn::Embedding(nn::EmbeddingOptions(5, 3)._weight(ramp({4, 3}))),
                      Catch::Contains("[Embedding] expected _weight of shape [5, 3]"));
}

// libtorch 2.15's outputs (tests/nn: reference program over the same ramp inputs): table ramp({6, 3}),
// indices {1, 2, 4, 5, 4, 3, 2, 0}, offsets {0, 2, 2, 5} (bag 1 is empty), output gradient ramp({4, 3}, 0.5, 0.3).
TEST_CASE("embedding_bag sum / mean / max against libtorch, with gradients", "[nn][embedding]") {
  const auto idx = torch::tensor({1, 2, 4, 5, 4, 3, 2, 0}, torch::kLong);
  const auto off = torch::tensor({0, 2, 2, 5}, torch::kLong);
  const auto g = ramp({4, 3}, 0.5, 0.3);
  {
    auto w = ramp({6, 3}).requires_grad_();
    auto psw = torch::tensor({0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 1.0}, torch::kFloat).requires_grad_();
    auto y = F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions().offsets(off).mode(torch::kSum).per_sample_weights(psw));
    y.backward(g);
    require_close(y, values({4, 3}, {1.625, 1.5, 1.375, 0, 0, 0, 2.0625, 3, 3.9375, -2.3125, -1.5, -0.6875}));
    require_close(w.grad(), values({6, 3}, {0.800000012, 1.29999995, 1.79999995, -0.349999994, -0.100000001, 0.150000006,
                                            3.0999999, 4.0999999, 5.0999999, -0.600000024, -0.974999964, -1.3499999,
                                            -2.45000005, -0.699999988, 1.05000007, -0.174999997, -0.0500000007, 0.075000003}));
    require_close(psw.grad(), values({8}, {-0.649999917, 0.700000048, -0.199999988, -0.649999917, -0.199999988, 0.249999985,
                                           -2.67499995, 3.17499995}));
  }
  {
    auto w = ramp({6, 3}).requires_grad_();
    auto y = F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions().offsets(off).mode(torch::kMean).padding_idx(2));
    y.backward(g);
    require_close(y, values({4, 3}, {1.25, 1.5, 1.75, 0, 0, 0, 0.75, 1, 1.25, 0.125, 0.375, 0.625}));
    require_close(w.grad(), values({6, 3}, {0.400000006, 0.649999976, 0.899999976, -0.699999988, -0.200000003, 0.300000012, 0, 0,
                                            0, 0.400000006, 0.649999976, 0.899999976, -0.466666669, -0.13333334, 0.200000018,
                                            -0.233333334, -0.0666666701, 0.100000009}));
  }
  {
    auto w = ramp({6, 3}).requires_grad_();
    auto y = F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions().offsets(off).mode(torch::kMax).padding_idx(2));
    y.backward(g);
    require_close(y, values({4, 3}, {1.25, 1.5, 1.75, 0, 0, 0, 1.25, 1.5, 1.75, 0.5, 0.75, 1}));
    require_close(w.grad(), values({6, 3}, {0.800000012, 1.29999995, 1.79999995, -0.699999988, -0.200000003, 0.300000012, 0, 0,
                                            0, 0, 0, 0, 0, 0, 0, -0.699999988, -0.200000003, 0.300000012}));
  }
  const auto w = ramp({6, 3});
  require_close(F::embedding_bag(idx, w,
                                 F::EmbeddingBagFuncOptions()
                                     .offsets(torch::tensor({0, 3, 3, 8}, torch::kLong))
                                     .mode(torch::kMean)
                                     .include_last_offset(true)),
                values({3, 3}, {0.25, 0.5, 0.75, 0, 0, 0, 0.200000003, 0.449999988, 0.699999988}));
  // 2-D input: one bag per row.
  require_close(F::embedding_bag(torch::tensor({1, 2, 0, 5, 5, 3}, torch::kLong).reshape({2, 3}), w,
                                 F::EmbeddingBagFuncOptions().mode(torch::kMax)),
                values({2, 3}, {1.25, 1.5, 1.75, 1.25, 1.5, 1.75}));
  // Finite differences through the weighted sum and the mean.
  auto wd = ramp({6, 3}).to(torch::kDouble).requires_grad_();
  auto pd = torch::tensor({0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 1.0}, torch::kDouble).requires_grad_();
  auto f = [&](const torch::autograd::variable_list& x) {
    auto a = F::embedding_bag(idx, x[0], F::EmbeddingBagFuncOptions().offsets(off).mode(torch::kSum).per_sample_weights(x[1]));
    auto b = F::embedding_bag(idx, x[0], F::EmbeddingBagFuncOptions().offsets(off).mode(torch::kMean).padding_idx(4));
    return torch::autograd::variable_list{a, b};
  };
  REQUIRE(torch::autograd::gradcheck(f, {wd, pd}));
}

TEST_CASE("nn::EmbeddingBag: defaults, printing, errors", "[nn][embedding][errors]") {
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(5, 3));
  REQUIRE(std::holds_alternative<torch::enumtype::kMean>(bag->options.mode()));
  const auto idx = torch::tensor({0, 4, 4, 1}, torch::kLong), off = torch::tensor({0, 1}, torch::kLong);
  const auto y = bag(idx, off);
  require_close(y[1], (bag->weight[4] * 2 + bag->weight[1]) / 3);
  // Strings recorded from libtorch 2.15.
  REQUIRE(printed(*bag) == "torch::nn::EmbeddingBag(num_embeddings=5, embedding_dim=3)");
  REQUIRE(printed(*nn::EmbeddingBag(nn::EmbeddingBagOptions(5, 3).mode(torch::kSum).padding_idx(1))) ==
          "torch::nn::EmbeddingBag(num_embeddings=5, embedding_dim=3, mode=kSum, padding_idx=1)");
  auto pre = nn::EmbeddingBag::from_pretrained(ramp({4, 2}), nn::EmbeddingBagFromPretrainedOptions().mode(torch::kSum));
  REQUIRE_FALSE(pre->weight.requires_grad());
  require_close(pre(torch::tensor({{0, 3}}, torch::kLong)), (ramp({4, 2})[0] + ramp({4, 2})[3]).unsqueeze(0));

  const auto w = ramp({6, 3});
  const auto psw = torch::ones({4});
  REQUIRE_THROWS_WITH(F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions().offsets(off).per_sample_weights(psw)),
                      Catch::Contains("[embedding_bag] per_sample_weights are only supported with mode 0 (sum)"));
  REQUIRE_THROWS_WITH(F::embedding_bag(idx.reshape({2, 2}), w, F::EmbeddingBagFuncOptions().offsets(off)),
                      Catch::Contains("[embedding_bag] expected no offsets with a 2-D input"));
  REQUIRE_THROWS_WITH(F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions().offsets(torch::tensor({1, 3}, torch::kLong))),
                      Catch::Contains("[embedding_bag] expected offsets[0] == 0; got 1"));
  REQUIRE_THROWS_WITH(F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions().offsets(torch::tensor({0, 3, 2}, torch::kLong))),
                      Catch::Contains("[embedding_bag] expected non-decreasing offsets"));
  REQUIRE_THROWS_WITH(F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions().offsets(torch::tensor({0, 5}, torch::kLong))),
                      Catch::Contains("[embedding_bag] expected non-decreasing offsets no larger than the number of indices (4)"));
  REQUIRE_THROWS_WITH(F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions()), Catch::Contains("[embedding_bag] expected 1-D offsets"));
  REQUIRE_THROWS_WITH(F::embedding_bag(torch::tensor({7}, torch::kLong), w, F::EmbeddingBagFuncOptions().offsets(off.narrow(0, 0, 1))),
                      Catch::Contains("[embedding_bag] expected indices in [0, 6)"));
  REQUIRE_THROWS_WITH(torch::embedding_bag(w, idx, off, /*scale_grad_by_freq=*/false, /*mode=*/3),
                      Catch::Contains("[embedding_bag] expected mode 0 (sum), 1 (mean) or 2 (max); got 3"));
  REQUIRE_THROWS_WITH(torch::embedding_bag(w, idx, off, /*scale_grad_by_freq=*/true),
                      Catch::Contains("[embedding_bag] scale_grad_by_freq=true is not supported"));
  REQUIRE_THROWS_WITH(torch::embedding_bag(w, idx, off, false, 0, false, std::nullopt, false, 6),
                      Catch::Contains("[embedding_bag] expected padding_idx in [-6, 6); got 6"));
  REQUIRE_THROWS_WITH(torch::embedding_bag(w, idx, off, false, 0, /*sparse=*/true), Catch::Contains("[embedding_bag] expected sparse=false"));
  REQUIRE_THROWS_WITH(torch::embedding_bag(w, idx.reshape({2, 2}), off), Catch::Contains("[embedding_bag] expected 1-D indices"));
  REQUIRE_THROWS_WITH(torch::embedding_bag(w, idx, off.to(torch::kFloat)), Catch::Contains("[embedding_bag] expected 1-D int64 or int32 offsets"));
  REQUIRE_THROWS_WITH(torch::embedding_bag(w, idx, torch::zeros({0}, torch::kLong), false, 0, false, std::nullopt, true),
                      Catch::Contains("[embedding_bag] expected at least one offset with include_last_offset=true"));
  REQUIRE_THROWS_WITH(torch::embedding_bag(w, idx, off, false, 0, false, torch::ones({3}), false),
                      Catch::Contains("[embedding_bag] expected per_sample_weights of the indices' shape [4]"));
  REQUIRE_THROWS_WITH(F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions().offsets(off).mode(torch::kSum).per_sample_weights(torch::ones({3}))),
                      Catch::Contains("[embedding_bag] expected per_sample_weights of the input's shape [4]"));
  REQUIRE_THROWS_WITH(torch::embedding_backward(ramp({4, 3}), idx, -1, -1, false, false),
                      Catch::Contains("[embedding_backward] expected a non-negative num_weights; got -1"));
  REQUIRE_THROWS_WITH(torch::embedding_backward(ramp({4}), idx, 6, -1, false, false),
                      Catch::Contains("[embedding_backward] expected grad of shape indices.sizes() + [embedding_dim]"));
  REQUIRE_THROWS_WITH(nn::EmbeddingBag(nn::EmbeddingBagOptions(-1, 3)), Catch::Contains("[EmbeddingBag] expected non-negative num_embeddings"));
  REQUIRE_THROWS_WITH(nn::Embedding(nn::EmbeddingOptions(3, -3)), Catch::Contains("[Embedding] expected non-negative num_embeddings"));
  // Empty bags and no indices at all.
  const auto none = F::embedding_bag(torch::zeros({0}, torch::kLong), w,
                                     F::EmbeddingBagFuncOptions().offsets(torch::zeros({2}, torch::kLong)).mode(torch::kMax));
  REQUIRE(torch::equal(none, torch::zeros({2, 3})));
}

TEST_CASE("embedding and embedding_bag max_norm renormalise the looked-up rows as libtorch", "[nn][embedding]") {
  // Recorded from libtorch 2.15: rows whose norm exceeds max_norm are scaled in place by
  // max_norm / (norm + 1e-7); rows not looked up, and rows within the bound, keep their values.
  auto w = torch::arange(12, torch::kDouble).view({4, 3}).clone().requires_grad_(true);
  auto out = F::embedding(torch::tensor({1, 3, 1}, torch::kLong), w, F::EmbeddingFuncOptions().max_norm(5.0));
  out.sum().backward();
  const auto w_after = torch::tensor({0.0, 1, 2, 2.121320313559643, 2.8284270847461905, 3.5355338559327381, 6, 7, 8,
                                      2.5894590045173, 2.8771766716858886, 3.1648943388544777},
                                     torch::kDouble);
  CHECK(torch::allclose(w.detach().view(-1), w_after, 1e-14, 0));
  CHECK(torch::allclose(out.detach(), w_after.view({4, 3}).index_select(0, torch::tensor({1, 3, 1}, torch::kLong)), 1e-14, 0));
  CHECK(torch::equal(w.grad().view(-1), torch::tensor({0.0, 0, 0, 2, 2, 2, 0, 0, 0, 1, 1, 1}, torch::kDouble)));
  CHECK(w._version() == 1);
  // The renormalised rows' 2-norm is max_norm up to the 1e-7 guard: 5 norm / (norm + 1e-7).
  const double n1 = std::sqrt(50.0), n3 = std::sqrt(302.0);
  CHECK(torch::allclose(w.detach().index_select(0, torch::tensor({1, 3}, torch::kLong)).norm(2, {1}),
                        torch::tensor({5 * n1 / (n1 + 1e-7), 5 * n3 / (n3 + 1e-7)}, torch::kDouble), 1e-14, 0));

  auto w2 = torch::arange(12, torch::kDouble).view({4, 3}).clone();
  auto bag = F::embedding_bag(torch::tensor({0, 2, 3}, torch::kLong), w2,
                              F::EmbeddingBagFuncOptions().offsets(torch::tensor({0, 1}, torch::kLong)).max_norm(6.0).norm_type(1.0));
  CHECK(torch::allclose(w2.view(-1),
                        torch::tensor({0.0, 1, 2, 3, 4, 5, 1.7142857061224488, 1.9999999904761903, 2.2857142748299317,
                                       1.7999999939999998, 1.9999999933333332, 2.1999999926666667}, torch::kDouble), 1e-14, 0));
  CHECK(torch::allclose(bag.view(-1), torch::tensor({0.0, 1, 2, 1.7571428500612243, 1.9999999919047617, 2.2428571337482994},
                                                    torch::kDouble), 1e-14, 0));

  // The module passes its options through.
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(4, 3).max_norm(1.0));
  emb->forward(torch::tensor({0, 2}, torch::kLong));
  const auto norms = emb->weight.detach().index_select(0, torch::tensor({0, 2}, torch::kLong)).norm(2, {1});
  CHECK((norms <= 1.0 + 1e-6).all().item<bool>());
}
