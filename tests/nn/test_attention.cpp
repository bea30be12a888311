// Attention: at::scaled_dot_product_attention (hand-written cases beside its generated op tests),
// nn::MultiheadAttention and the transformer layers. Module results are compared with values
// recorded from libtorch 2.15 by tests/nn/libtorch/record_attention.cpp: every parameter (in
// named_parameters() order) and input comes from one formula (fill), the modules run in float64
// in eval mode, and each result (outputs, attention weights, the gradients of a weighted loss with
// respect to the inputs and all parameters) is reduced to two weighted sums (digest), so a wrong
// value, a swapped head or a permuted batch changes them.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include "nn/reference_util.h"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <string>

namespace {

namespace nn = torch::nn;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using torch::Tensor;

// The formulas of record_attention.cpp.
using ember_ref::fill;  // 0.5 sin(0.9 j + 1.7 k), as the recording programs
Tensor w1(int64_t n) { return (torch::arange(n, torch::kDouble) * 0.31 + 0.2).cos(); }
Tensor w2(int64_t n) {
  auto j = torch::arange(n, torch::kDouble);
  return (j * 1.13 + 0.5).sin() + j * 0.01;
}
double wdot(const Tensor& t, const Tensor& w) { return (t.contiguous().reshape(-1) * w).sum().item<double>(); }
Tensor loss_of(const Tensor& t) { return (t.reshape(-1) * w1(t.numel())).sum(); }
void fill_params(nn::Module& m) {
  torch::NoGradGuard g;
  int k = 0;
  for (auto& p : m.named_parameters()) p.value().copy_(fill(p.value().sizes(), 10 + k++));
}
double param_grads(nn::Module& m) {
  double s = 0;
  for (auto& p : m.parameters()) s += wdot(p.grad(), w2(p.numel()));
  return s;
}
Tensor leaf(at::IntArrayRef shape, int k) { return fill(shape, k).requires_grad_(true); }

struct Digest {
  double a, b;
};

// Recorded from libtorch 2.15 (tests/nn/libtorch/record_attention.cpp).
const std::map<std::string, Digest>& reference() {
  static const std::map<std::string, Digest> ref = {
      {"mha_self.out", {-0.540404814300278, -1.4822119752623}},
      {"mha_self.w", {-0.756711907836449, 0.787988717271044}},
      {"mha_self.dx", {0.0279988340833077, -0.000376604293192334}},
      {"mha_self.dparams", {1.36081357199742, 0}},
      {"mha_cross.out", {0.0837228157429885, 0.942448002659292}},
      {"mha_cross.w", {-0.513326444524362, 4.84985056398803}},
      {"mha_cross.dq", {-0.736299375923653, 0.0038032912537167}},
      {"mha_cross.dk", {-0.260164407078647, -0.0977738761108645}},
      {"mha_cross.dv", {0.481714714503212, 0.489137445167882}},
      {"mha_cross.dparams", {4.88428948508386, 0}},
      {"mha_nobias.out", {0.000910998458161059, 0.0395704727872955}},
      {"mha_nobias.w", {0.0211455808562582, 1.04882536537201}},
      {"mha_nobias.dkv", {0.00379102574690235, 0.0717659944549231}},
      {"enc_layer.out", {-1.36558174443201, -0.82729314741815}},
      {"enc_layer.dx", {0.0235829221223573, 1.74950700590931}},
      {"enc_layer.dparams", {3.11568241711335, 0}},
      {"dec_layer.out", {0.289835967849104, -0.271764508082357}},
      {"dec_layer.dt", {-0.141369130041678, 0.239316675979989}},
      {"dec_layer.dmem", {0.013167899213392, -0.00676167996663899}},
      {"dec_layer.dparams", {1.29410952875264, 0}},
      {"transformer.out", {-0.344022606340754, 0.59880564461453}},
      {"transformer.dsrc", {-0.00145896586982035, 0.00171678491245577}},
      {"transformer.dtgt", {0.160518740090792, -0.280779332746283}},
      {"transformer.dparams", {2.09331140398245, 0}},
      {"sdpa_dead_row.out", {0.142153465087292, 0.0895774994605103}},
      {"sdpa_dead_row.dq", {-0.198441001881796, 0.374547788230655}},
      {"sdpa_dead_row.dk", {-0.0943410615790246, 0.285763736638363}},
      {"sdpa_dead_row.dv", {-0.111788217016657, -0.760915975627355}},
  };
  return ref;
}

void check(const std::string& name, const Tensor& t) {
  INFO(name);
  const auto it = reference().find(name);
  REQUIRE(it != reference().end());
  const auto n = t.numel();
  CHECK(wdot(t, w1(n)) == Approx(it->second.a).margin(1e-9).epsilon(1e-9));
  CHECK(wdot(t, w2(n)) == Approx(it->second.b).margin(1e-9).epsilon(1e-9));
}
void check_scalar(const std::string& name, double v) {
  INFO(name);
  const auto it = reference().find(name);
  REQUIRE(it != reference().end());
  CHECK(v == Approx(it->second.a).margin(1e-9).epsilon(1e-9));
}

std::string streamed(const nn::Module& m) {
  std::ostringstream s;
  s << m;
  return s.str();
}

}  // namespace

// ---------------------------------------------------------------- scaled_dot_product_attention

// softmax(q k^T * scale + mask) v in float64 loops, written apart from the composite: one (L, E),
// (S, E), (S, Ev) slice; keep(i, j) false masks a key; a row without keys gives zeros.
static Tensor sdpa_loops(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& keep, double scale) {
  const int64_t L = q.size(0), S = k.size(0), E = q.size(1), Ev = v.size(1);
  Tensor out = torch::zeros({L, Ev}, torch::kDouble);
  for (int64_t i = 0; i < L; ++i) {
    std::vector<double> s(static_cast<size_t>(S));
    double mx = -INFINITY;
    for (int64_t j = 0; j < S; ++j) {
      double d = 0;
      for (int64_t e = 0; e < E; ++e) d += q[i][e].item<double>() * k[j][e].item<double>();
      s[size_t(j)] = keep[i][j].item<bool>() ? d * scale : -INFINITY;
      mx = std::max(mx, s[size_t(j)]);
    }
    if (mx == -INFINITY) continue;
    double z = 0;
    for (auto& x : s) z += (x = std::exp(x - mx));
    for (int64_t c = 0; c < Ev; ++c) {
      double acc = 0;
      for (int64_t j = 0; j < S; ++j) acc += s[size_t(j)] / z * v[j][c].item<double>();
      out[i][c] = acc;
    }
  }
  return out;
}

TEST_CASE("sdpa: a row with every key masked gives 0 and no gradient (libtorch 2.15 CPU)", "[nn][attention]") {
  auto q = leaf({2, 3, 4}, 13), k = leaf({2, 5, 4}, 14), v = leaf({2, 5, 3}, 15);
  auto mask = torch::ones({3, 5}, torch::kBool);
  mask[1] = false;
  mask[0][2] = false;
  auto out = at::scaled_dot_product_attention(q, k, v, mask);
  CHECK(torch::equal(out.select(1, 1), torch::zeros({2, 3}, torch::kDouble)));
  for (int64_t b = 0; b < 2; ++b)
    CHECK(torch::allclose(out[b], sdpa_loops(q[b].detach(), k[b].detach(), v[b].detach(), mask, 0.5), 1e-12, 1e-12));
  loss_of(out).backward();
  CHECK(torch::equal(q.grad().select(1, 1), torch::zeros({2, 4}, torch::kDouble)));
  CHECK(!torch::isnan(q.grad()).any().item<bool>());
  check("sdpa_dead_row.out", out);
  check("sdpa_dead_row.dq", q.grad());
  check("sdpa_dead_row.dk", k.grad());
  check("sdpa_dead_row.dv", v.grad());
  // The same through a float mask of -inf.
  auto fmask = torch::zeros({3, 5}, torch::kDouble).masked_fill(mask.logical_not(), -INFINITY);
  CHECK(torch::allclose(at::scaled_dot_product_attention(q, k, v, fmask), out, 1e-12, 1e-12));
}

TEST_CASE("sdpa: causal, scale and grouped heads against loops", "[nn][attention]") {
  auto q = fill({4, 3}, 1), k = fill({2, 3}, 2), v = fill({2, 5}, 3);  // L > S
  auto keep = torch::ones({4, 2}, torch::kBool).tril();
  CHECK(torch::allclose(at::scaled_dot_product_attention(q, k, v, {}, 0.0, true), sdpa_loops(q, k, v, keep, 1 / std::sqrt(3.0)),
                        1e-12, 1e-12));
  auto all = torch::ones({4, 2}, torch::kBool);
  CHECK(torch::allclose(at::scaled_dot_product_attention(q, k, v, {}, 0.0, false, 0.25), sdpa_loops(q, k, v, all, 0.25),
                        1e-12, 1e-12));
  // enable_gqa: query head h uses key/value head h / 2.
  auto qg = fill({1, 4, 3, 2}, 4), kg = fill({1, 2, 5, 2}, 5), vg = fill({1, 2, 5, 3}, 6);
  auto out = at::scaled_dot_product_attention(qg, kg, vg, {}, 0.0, false, std::nullopt, true);
  auto keep5 = torch::ones({3, 5}, torch::kBool);
  for (int64_t h = 0; h < 4; ++h)
    CHECK(torch::allclose(out[0][h], sdpa_loops(qg[0][h], kg[0][h / 2], vg[0][h / 2], keep5, 1 / std::sqrt(2.0)), 1e-12,
                          1e-12));
  // float32 follows float64.
  CHECK(torch::allclose(at::scaled_dot_product_attention(q.to(torch::kFloat), k.to(torch::kFloat), v.to(torch::kFloat)),
                        sdpa_loops(q, k, v, torch::ones({4, 2}, torch::kBool), 1 / std::sqrt(3.0)).to(torch::kFloat), 1e-5,
                        1e-6));
}

TEST_CASE("sdpa: dropout_p zeroes weights at random and rescales the rest", "[nn][attention]") {
  torch::manual_seed(0);
  auto q = fill({1, 4, 3}, 1), k = fill({1, 6, 3}, 2), v = torch::ones({1, 6, 2}, torch::kDouble);
  // Weights of a row sum to 1; with v = 1 the output is the sum of the kept weights / (1 - p).
  CHECK(torch::equal(at::scaled_dot_product_attention(q, k, v, {}, 1.0), torch::zeros({1, 4, 2}, torch::kDouble)));
  auto plain = at::scaled_dot_product_attention(q, k, v);
  CHECK(torch::allclose(plain, torch::ones({1, 4, 2}, torch::kDouble)));
  Tensor acc = torch::zeros({1, 4, 2}, torch::kDouble);
  bool varied = false;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    auto o = at::scaled_dot_product_attention(q, k, v, {}, 0.5);
    varied = varied || !torch::allclose(o, plain);
    acc += o;
  }
  CHECK(varied);
  CHECK(torch::allclose(acc / n, plain, 0, 0.05));  // unbiased: E[out] = out without dropout
}

TEST_CASE("sdpa: empty sequences and errors", "[nn][attention]") {
  auto out = at::scaled_dot_product_attention(torch::ones({2, 3, 4}), torch::ones({2, 0, 4}), torch::ones({2, 0, 5}));
  CHECK(out.sizes() == at::IntArrayRef({2, 3, 5}));
  CHECK(torch::equal(out, torch::zeros({2, 3, 5})));
  auto q = torch::ones({2, 3, 4}), k = torch::ones({2, 5, 4}), v = torch::ones({2, 5, 6});
  auto sdpa = [](auto&&... a) { return at::scaled_dot_product_attention(a...); };
  const auto P = StartsWith("[scaled_dot_product_attention]");
  CHECK_THROWS_WITH(sdpa(q, k, v, torch::ones({3, 5}, torch::kBool), 0.0, true), P && Contains("is_causal"));
  CHECK_THROWS_WITH(sdpa(torch::ones({4}), torch::ones({4}), torch::ones({4})), P && Contains("at least 2 dims"));
  CHECK_THROWS_WITH(sdpa(q, k.to(torch::kDouble), v), P && Contains("one dtype"));
  CHECK_THROWS_WITH(sdpa(q.to(torch::kLong), k.to(torch::kLong), v.to(torch::kLong)), P && Contains("floating"));
  CHECK_THROWS_WITH(sdpa(q, torch::ones({2, 5, 3}), v), P && Contains("key.size(-1) (3)"));
  CHECK_THROWS_WITH(sdpa(q, k, torch::ones({2, 4, 6})), P && Contains("sequence length"));
  CHECK_THROWS_WITH(sdpa(q, k, v, torch::zeros({3, 5}, torch::kLong)), P && Contains("bool attn_mask"));
  CHECK_THROWS_WITH(sdpa(q, k, v, torch::zeros({3, 5}, torch::kDouble)), P && Contains("bool attn_mask"));
  CHECK_THROWS_WITH(sdpa(q, k, v, torch::zeros({4, 5})), P && Contains("broadcast to the scores"));
  CHECK_THROWS_WITH(sdpa(q, k, v, torch::zeros({3, 3, 5})), P && Contains("broadcast to the scores"));
  CHECK_THROWS_WITH(at::scaled_dot_product_attention(q, k, v, {}, 1.5), P && Contains("dropout_p"));
  auto q4 = torch::ones({1, 3, 2, 4}), k4 = torch::ones({1, 2, 5, 4});
  CHECK_THROWS_WITH(at::scaled_dot_product_attention(q4, k4, k4, {}, 0.0, false, std::nullopt, true),
                    P && Contains("must divide"));
  CHECK_THROWS_WITH(sdpa(torch::ones({1, 4, 2, 4}), k4, k4), P && Contains("enable_gqa is false"));
}

// ---------------------------------------------------------------- MultiheadAttention

TEST_CASE("MultiheadAttention: parameters, initialisation and printing as libtorch", "[nn][attention]") {
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 2));
  std::vector<std::string> names;
  for (auto& p : m->named_parameters()) names.push_back(p.key() + " " + std::to_string(p.value().numel()));
  CHECK(names == std::vector<std::string>{"in_proj_weight 48", "in_proj_bias 12", "out_proj.weight 16",
                                          "out_proj.bias 4"});
  CHECK(torch::equal(m->in_proj_bias, torch::zeros({12})));
  CHECK(torch::equal(m->out_proj->bias, torch::zeros({4})));
  const double bound = std::sqrt(6.0 / (4 + 12));  // xavier_uniform_ on (12, 4)
  CHECK(m->in_proj_weight.abs().max().item<double>() <= bound);
  CHECK(m->in_proj_weight.abs().max().item<double>() > bound / 2);
  CHECK(streamed(*m) ==
        "torch::nn::MultiheadAttention(\n  (out_proj): torch::nn::Linear(in_features=4, out_features=4, bias=true)\n)");

  nn::MultiheadAttention m2(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(5).add_bias_kv(true).bias(false));
  names.clear();
  for (auto& p : m2->named_parameters()) names.push_back(p.key());
  CHECK(names == std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k", "bias_v",
                                          "out_proj.weight"});
  CHECK(m2->k_proj_weight.sizes() == at::IntArrayRef({4, 3}));
  CHECK(m2->v_proj_weight.sizes() == at::IntArrayRef({4, 5}));
  CHECK(m2->bias_k.sizes() == at::IntArrayRef({1, 1, 4}));
  CHECK_THROWS_WITH(nn::MultiheadAttention(nn::MultiheadAttentionOptions(5, 2)),
                    StartsWith("[MultiheadAttention] expected num_heads (2)"));
  auto c = std::dynamic_pointer_cast<nn::MultiheadAttentionImpl>(m2->clone());
  REQUIRE(c != nullptr);
  CHECK(torch::equal(c->k_proj_weight, m2->k_proj_weight));
  CHECK(c->k_proj_weight.data_ptr() != m2->k_proj_weight.data_ptr());
}

TEST_CASE("MultiheadAttention: forward and gradients match libtorch", "[nn][attention]") {
  {
    nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 2));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto x = leaf({3, 2, 4}, 1);
    auto [out, w] = m->forward(x, x, x);
    CHECK(w.sizes() == at::IntArrayRef({2, 3, 3}));
    (loss_of(out) + loss_of(w)).backward();
    check("mha_self.out", out);
    check("mha_self.w", w);
    check("mha_self.dx", x.grad());
    check_scalar("mha_self.dparams", param_grads(*m));
  }
  {
    nn::MultiheadAttention m(
        nn::MultiheadAttentionOptions(6, 3).kdim(5).vdim(5).add_bias_kv(true).add_zero_attn(true));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto q = leaf({2, 2, 6}, 2), k = leaf({4, 2, 5}, 3), v = leaf({4, 2, 5}, 4);
    auto mask = fill({2, 4}, 5);
    auto kpm = torch::tensor({false, true, false, false, true, false, false, false}, torch::kBool).reshape({2, 4});
    auto [out, w] = m->forward(q, k, v, kpm, true, mask, false);
    CHECK(w.sizes() == at::IntArrayRef({2, 3, 2, 6}));  // S = 4 keys + bias_k + the zero key
    (loss_of(out) + loss_of(w)).backward();
    check("mha_cross.out", out);
    check("mha_cross.w", w);
    check("mha_cross.dq", q.grad());
    check("mha_cross.dk", k.grad());
    check("mha_cross.dv", v.grad());
    check_scalar("mha_cross.dparams", param_grads(*m));
  }
  {
    nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 1).bias(false));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto q = leaf({2, 3, 4}, 6), kv = leaf({5, 3, 4}, 7);
    auto [out, w] = m->forward(q, kv, kv);
    loss_of(out).backward();
    check("mha_nobias.out", out);
    check("mha_nobias.w", w);
    check("mha_nobias.dkv", kv.grad());
  }
}

TEST_CASE("MultiheadAttention: masks, weights and errors", "[nn][attention]") {
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 2));
  m->to(torch::kDouble);
  fill_params(*m);
  auto x = fill({3, 2, 4}, 1);
  // A bool attn_mask masks where true: the same as a float mask of -inf there.
  auto bmask = torch::tensor({false, true, true, false, false, true, false, false, false}, torch::kBool).reshape({3, 3});
  auto fmask = torch::zeros({3, 3}, torch::kDouble).masked_fill(bmask, -INFINITY);
  auto [ob, wb] = m->forward(x, x, x, {}, true, bmask);
  auto [of, wf] = m->forward(x, x, x, {}, true, fmask);
  CHECK(torch::allclose(ob, of));
  CHECK(torch::allclose(wb, wf));
  CHECK(torch::equal(wb.masked_select(bmask.unsqueeze(0).expand({2, 3, 3})), torch::zeros({6}, torch::kDouble)));
  // A 3-D mask (N * heads, L, S) equals the 2-D one repeated.
  auto [o3, w3] = m->forward(x, x, x, {}, true, fmask.unsqueeze(0).expand({4, 3, 3}).contiguous());
  CHECK(torch::allclose(o3, of));
  // Per-head weights average to the default ones; need_weights=false gives none.
  auto [oh, wh] = m->forward(x, x, x, {}, true, {}, false);
  auto [oa, wa] = m->forward(x, x, x);
  CHECK(wh.sizes() == at::IntArrayRef({2, 2, 3, 3}));
  CHECK(torch::allclose(wh.mean(1), wa));
  CHECK(!std::get<1>(m->forward(x, x, x, {}, false)).defined());
  // Every key of sample 0 padded: NaN for it (libtorch's behaviour), sample 1 unaffected.
  auto kpm = torch::tensor({true, true, true, false, false, false}, torch::kBool).reshape({2, 3});
  auto [op, wp] = m->forward(x, x, x, kpm);
  CHECK(torch::isnan(op.select(1, 0)).all().item<bool>());
  CHECK(torch::allclose(op.select(1, 1), oa.select(1, 1)));
  // Dropout acts in training only.
  nn::MultiheadAttention d(nn::MultiheadAttentionOptions(4, 2).dropout(0.5));
  d->to(torch::kDouble);
  fill_params(*d);
  d->eval();
  CHECK(torch::allclose(std::get<0>(d->forward(x, x, x)), oa));
  d->train();
  CHECK(!torch::allclose(std::get<0>(d->forward(x, x, x)), oa));

  const auto P = StartsWith("[multi_head_attention_forward]");
  CHECK_THROWS_WITH(m->forward(x.select(1, 0), x.select(1, 0), x.select(1, 0)), P && Contains("(L, N, E)"));
  CHECK_THROWS_WITH(m->forward(fill({3, 2, 5}, 1), x, x), P && Contains("embed_dim (4)"));
  CHECK_THROWS_WITH(m->forward(x, fill({3, 1, 4}, 1), fill({3, 1, 4}, 1)), P && Contains("batch size 2"));
  CHECK_THROWS_WITH(m->forward(x, x, x, {}, true, torch::zeros({3, 4}, torch::kDouble)),
                    P && Contains("attn_mask of shape [3, 3] or [4, 3, 3]"));
  CHECK_THROWS_WITH(m->forward(x, x, x, {}, true, torch::zeros({3, 3}, torch::kLong)), P && Contains("bool or floating"));
  CHECK_THROWS_WITH(m->forward(x, x, x, torch::zeros({2, 3}, torch::kDouble)), P && Contains("bool key_padding_mask"));
  CHECK_THROWS_WITH(m->forward(x, x, x, torch::zeros({2, 4}, torch::kBool)), P && Contains("[2, 3]"));
  CHECK_THROWS_WITH(m->forward(x, fill({3, 2, 5}, 1), fill({3, 2, 5}, 1)), P && Contains("packed in_proj_weight"));
}

// ---------------------------------------------------------------- transformer layers

TEST_CASE("Transformer layers: structure and printing as libtorch", "[nn][attention]") {
  nn::TransformerEncoderLayer el(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6));
  std::vector<std::string> names;
  for (auto& c : el->named_children()) names.push_back(c.key());
  CHECK(names == std::vector<std::string>{"self_attn", "linear1", "dropout", "linear2", "norm1", "norm2", "dropout1",
                                          "dropout2"});
  CHECK(streamed(*el) ==
        "torch::nn::TransformerEncoderLayerImpl(\n"
        "  (self_attn): torch::nn::MultiheadAttention(\n"
        "    (out_proj): torch::nn::Linear(in_features=4, out_features=4, bias=true)\n"
        "  )\n"
        "  (linear1): torch::nn::Linear(in_features=4, out_features=6, bias=true)\n"
        "  (dropout): torch::nn::Dropout(p=0.1, inplace=false)\n"
        "  (linear2): torch::nn::Linear(in_features=6, out_features=4, bias=true)\n"
        "  (norm1): torch::nn::LayerNorm([4], eps=1e-05, elementwise_affine=true)\n"
        "  (norm2): torch::nn::LayerNorm([4], eps=1e-05, elementwise_affine=true)\n"
        "  (dropout1): torch::nn::Dropout(p=0.1, inplace=false)\n"
        "  (dropout2): torch::nn::Dropout(p=0.1, inplace=false)\n"
        ")");
  nn::TransformerDecoderLayer dl(nn::TransformerDecoderLayerOptions(4, 2));
  names.clear();
  for (auto& c : dl->named_children()) names.push_back(c.key());
  CHECK(names == std::vector<std::string>{"self_attn", "multihead_attn", "linear1", "dropout", "linear2", "norm1",
                                          "norm2", "norm3", "dropout1", "dropout2", "dropout3"});
  // The encoder clones its layer: all layers start equal, own their tensors, and the norm is last.
  nn::TransformerEncoder enc(
      nn::TransformerEncoderOptions(el, 2).norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({4})))));
  auto l0 = enc->layers->ptr<nn::TransformerEncoderLayerImpl>(0), l1 = enc->layers->ptr<nn::TransformerEncoderLayerImpl>(1);
  CHECK(torch::equal(l0->linear1->weight, el->linear1->weight));
  CHECK(torch::equal(l1->linear1->weight, el->linear1->weight));
  CHECK(l0->linear1->weight.data_ptr() != l1->linear1->weight.data_ptr());
  auto np = enc->named_parameters();
  CHECK(np.size() == 26);
  CHECK(np.begin()->key() == "layers.0.self_attn.in_proj_weight");
  std::string last;
  for (auto& p : np) last = p.key();
  CHECK(last == "norm.bias");
  nn::Transformer tr(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(6));
  CHECK(tr->named_parameters().size() == 14 + 20);
  CHECK(tr->named_parameters().begin()->key() == "encoder.layers.0.self_attn.in_proj_weight");
  CHECK_THROWS_WITH(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(5, 2)),
                    StartsWith("[TransformerEncoderLayer] expected nhead (2)"));
  // clone() copies every value into fresh tensors and keeps working.
  fill_params(*tr);
  auto copy = std::dynamic_pointer_cast<nn::TransformerImpl>(tr->clone());
  REQUIRE(copy != nullptr);
  auto a = tr->named_parameters(), b = copy->named_parameters();
  REQUIRE(a.size() == b.size());
  for (auto& p : a) {
    INFO(p.key());
    CHECK(torch::equal(p.value(), b[p.key()]));
    CHECK(p.value().data_ptr() != b[p.key()].data_ptr());
  }
  tr->eval();
  copy->eval();
  auto src = torch::randn({3, 2, 4}), tgt = torch::randn({2, 2, 4});
  CHECK(torch::allclose(tr->forward(src, tgt), copy->forward(src, tgt)));
}

TEST_CASE("Transformer layers: forward and gradients match libtorch", "[nn][attention]") {
  {
    nn::TransformerEncoderLayer m(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto x = leaf({3, 2, 4}, 8);
    auto mask = nn::TransformerImpl::generate_square_subsequent_mask(3).to(torch::kDouble);
    auto kpm = torch::tensor({false, false, true, false, false, false}, torch::kBool).reshape({2, 3});
    auto out = m->forward(x, mask, kpm);
    loss_of(out).backward();
    check("enc_layer.out", out);
    check("enc_layer.dx", x.grad());
    check_scalar("enc_layer.dparams", param_grads(*m));
  }
  {
    nn::TransformerDecoderLayer m(
        nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(5).activation(torch::kGELU));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto t = leaf({3, 2, 4}, 9), mem = leaf({4, 2, 4}, 10);
    auto mask = nn::TransformerImpl::generate_square_subsequent_mask(3).to(torch::kDouble);
    auto out = m->forward(t, mem, mask);
    loss_of(out).backward();
    check("dec_layer.out", out);
    check("dec_layer.dt", t.grad());
    check("dec_layer.dmem", mem.grad());
    check_scalar("dec_layer.dparams", param_grads(*m));
  }
  {
    nn::Transformer m(nn::TransformerOptions(4, 2, 2, 1).dim_feedforward(6).activation(
        [](const Tensor& x) { return torch::tanh(x); }));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto src = leaf({4, 2, 4}, 11), tgt = leaf({3, 2, 4}, 12);
    auto out = m->forward(src, tgt, {}, nn::TransformerImpl::generate_square_subsequent_mask(3).to(torch::kDouble));
    loss_of(out).backward();
    check("transformer.out", out);
    check("transformer.dsrc", src.grad());
    check("transformer.dtgt", tgt.grad());
    check_scalar("transformer.dparams", param_grads(*m));
    const auto P = StartsWith("[Transformer]");
    CHECK_THROWS_WITH(m->forward(src, fill({3, 1, 4}, 1)), P && Contains("batch size"));
    CHECK_THROWS_WITH(m->forward(src, fill({3, 2, 5}, 1)), P && Contains("d_model (4)"));
  }
}

TEST_CASE("generate_square_subsequent_mask", "[nn][attention]") {
  auto m = nn::TransformerImpl::generate_square_subsequent_mask(3);
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(m.scalar_type() == torch::kFloat);
  CHECK(torch::equal(m, torch::tensor({0.f, -inf, -inf, 0.f, 0.f, -inf, 0.f, 0.f, 0.f}).reshape({3, 3})));
  CHECK(nn::TransformerImpl::generate_square_subsequent_mask(0).sizes() == at::IntArrayRef({0, 0}));
  CHECK_THROWS_WITH(nn::TransformerImpl::generate_square_subsequent_mask(-1), StartsWith("[Transformer]"));
}

TEST_CASE("F::multi_head_attention_forward: static keys and values, option errors", "[nn][attention]") {
  namespace F = torch::nn::functional;
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 2));
  m->to(torch::kDouble);
  fill_params(*m);
  auto q = fill({3, 2, 4}, 1), kv = fill({5, 2, 4}, 2);
  auto opts = [&] {
    return F::MultiheadAttentionForwardFuncOptions(4, 2, m->in_proj_weight, m->in_proj_bias, {}, {}, false, 0.0,
                                                   m->out_proj->weight, m->out_proj->bias);
  };
  auto [ref, wref] = F::multi_head_attention_forward(q, kv, kv, opts());
  CHECK(torch::allclose(ref, std::get<0>(m->forward(q, kv, kv))));
  // Keys and values projected by hand, (N * heads, S, head_dim), replace the projections.
  auto w = m->in_proj_weight, b = m->in_proj_bias;
  auto heads = [](const Tensor& t) { return t.contiguous().view({5, 4, 2}).transpose(0, 1); };
  auto sk = heads(torch::linear(kv, w.slice(0, 4, 8), b.slice(0, 4, 8)));
  auto sv = heads(torch::linear(kv, w.slice(0, 8, 12), b.slice(0, 8, 12)));
  auto [out, wts] = F::multi_head_attention_forward(q, kv, kv, opts().static_k(sk).static_v(sv));
  CHECK(torch::allclose(out, ref));
  CHECK(torch::allclose(wts, wref));

  const auto P = StartsWith("[multi_head_attention_forward]");
  CHECK_THROWS_WITH(F::multi_head_attention_forward(q, kv, kv, opts().static_k(sk.slice(2, 0, 1))),
                    P && Contains("static_k / static_v of shape [4, S, 2]"));
  CHECK_THROWS_WITH(F::multi_head_attention_forward(q, kv, kv, opts().bias_k(fill({1, 1, 4}, 3))),
                    P && Contains("bias_k and bias_v both or neither"));
  CHECK_THROWS_WITH(
      F::multi_head_attention_forward(q, kv, kv, opts().bias_k(fill({1, 1, 4}, 3)).bias_v(fill({1, 1, 4}, 4)).static_k(sk)),
      P && Contains("cannot be appended"));
  CHECK_THROWS_WITH(F::multi_head_attention_forward(q, kv, kv, opts().in_proj_bias(fill({8}, 3))),
                    P && Contains("in_proj_bias of shape [12]"));
  CHECK_THROWS_WITH(F::multi_head_attention_forward(q, kv, kv, opts().in_proj_weight(fill({12, 3}, 3))),
                    P && Contains("in_proj_weight of shape [12, 4]"));
  CHECK_THROWS_WITH(F::multi_head_attention_forward(q, kv, kv, opts().num_heads(3)), P && Contains("num_heads (3)"));
  CHECK_THROWS_WITH(F::multi_head_attention_forward(q, kv, kv, opts().use_separate_proj_weight(true)),
                    P && Contains("q_proj_weight of shape [4, 4]; got undefined"));
}
