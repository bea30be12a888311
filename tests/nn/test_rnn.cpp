// Recurrent layers (nn::RNN / LSTM / GRU, the cells) and torch::nn::utils::rnn packing, against
// values recorded from libtorch 2.15 by tests/nn/libtorch/record_rnn.cpp: every parameter, input and
// initial state comes from one formula (fill), the layers run in float64, and each result (outputs,
// final states, the gradients of a weighted loss w.r.t. input, states and every parameter) is
// reduced to two weighted sums (digest) whose weights differ per element, so a wrong value, a
// swapped gate, a swapped direction or a permuted batch all change them.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include "nn/reference_util.h"

#include "rnn_reference.h"

#include <ATen/native/cpu/LstmCell.h>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>

namespace {
using ember_ref::printed;

namespace R = torch::nn::utils::rnn;
using Catch::Matchers::StartsWith;

// The formulas of record_rnn.cpp.
using ember_ref::fill;  // 0.5 sin(0.9 j + 1.7 k), as the recording programs
torch::Tensor w1(int64_t n) { return (torch::arange(n, torch::kDouble) * 0.31 + 0.2).cos(); }
torch::Tensor w2(int64_t n) {
  auto j = torch::arange(n, torch::kDouble);
  return (j * 1.13 + 0.5).sin() + j * 0.01;
}
double wdot(const torch::Tensor& t, const torch::Tensor& w) {
  return (t.contiguous().reshape(-1) * w).sum().item<double>();
}
torch::Tensor loss_of(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& c = {}) {
  auto l = (a.reshape(-1) * w1(a.numel())).sum() + (b.reshape(-1) * w2(b.numel())).sum();
  if (c.defined()) l = l + 0.5 * (c.reshape(-1) * w1(c.numel())).sum();
  return l;
}
void set_params(torch::nn::Module& m) {
  torch::NoGradGuard g;
  int k = 10;
  for (auto& p : m.named_parameters()) p.value().copy_(fill(p.value().sizes(), k++));
}

void check(const std::string& name, const torch::Tensor& t) {
  INFO(name);
  auto it = rnn_reference().find(name);
  REQUIRE(it != rnn_reference().end());
  REQUIRE(t.defined());
  const double a = wdot(t, w1(t.numel())), b = wdot(t, w2(t.numel()));
  CHECK(std::abs(a - it->second.a) <= 1e-9 * std::max(1.0, std::abs(it->second.a)));
  CHECK(std::abs(b - it->second.b) <= 1e-9 * std::max(1.0, std::abs(it->second.b)));
}
void check_grads(const std::string& prefix, torch::nn::Module& m) {
  for (auto& p : m.named_parameters()) check(prefix + ".grad." + p.key(), p.value().grad());
}

template <typename M>
void run_lstm(const std::string& name, M m, at::IntArrayRef xshape, bool with_state, int64_t states, int64_t batch) {
  m->to(torch::kDouble);
  set_params(*m);
  auto x = fill(xshape, 1).requires_grad_(true);
  const auto& o = m->options;
  int64_t out = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  std::vector<int64_t> hs{states, batch, out}, cs{states, batch, o.hidden_size()};
  if (batch < 0) hs = {states, out}, cs = {states, o.hidden_size()};
  auto h0 = fill(hs, 2).requires_grad_(true), c0 = fill(cs, 3).requires_grad_(true);
  auto r = with_state ? m->forward(x, std::make_tuple(h0, c0)) : m->forward(x);
  auto y = std::get<0>(r);
  auto [hn, cn] = std::get<1>(r);
  check(name + ".out", y);
  check(name + ".h_n", hn);
  check(name + ".c_n", cn);
  loss_of(y, hn, cn).backward();
  check(name + ".grad.x", x.grad());
  if (with_state) {
    check(name + ".grad.h0", h0.grad());
    check(name + ".grad.c0", c0.grad());
  }
  check_grads(name, *m);
}

template <typename M>
void run_h(const std::string& name, M m, at::IntArrayRef xshape, bool with_state, int64_t states, int64_t batch) {
  m->to(torch::kDouble);
  set_params(*m);
  auto x = fill(xshape, 1).requires_grad_(true);
  std::vector<int64_t> hs{states, batch, m->options.hidden_size()};
  if (batch < 0) hs = {states, m->options.hidden_size()};
  auto h0 = fill(hs, 2).requires_grad_(true);
  auto [y, hn] = with_state ? m->forward(x, h0) : m->forward(x);
  check(name + ".out", y);
  check(name + ".h_n", hn);
  loss_of(y, hn).backward();
  check(name + ".grad.x", x.grad());
  if (with_state) check(name + ".grad.h0", h0.grad());
  check_grads(name, *m);
}

}  // namespace

using namespace torch::nn;

TEST_CASE("LSTM matches libtorch: outputs, states and gradients", "[nn][rnn]") {
  SECTION("2 layers, bidirectional, initial states") {
    run_lstm("lstm_2l_bi", LSTM(LSTMOptions(3, 4).num_layers(2).bidirectional(true)), {5, 2, 3}, true, 4, 2);
  }
  SECTION("projections, batch_first, zero states") {
    run_lstm("lstm_proj_bf", LSTM(LSTMOptions(3, 5).proj_size(2).batch_first(true)), {3, 4, 3}, false, 1, 3);
  }
  SECTION("projections, 2 layers, bidirectional") {
    run_lstm("lstm_proj_2l_bi", LSTM(LSTMOptions(2, 4).proj_size(3).num_layers(2).bidirectional(true)), {4, 2, 2}, true,
             4, 2);
  }
  SECTION("unbatched input and states") {
    run_lstm("lstm_unbatched", LSTM(LSTMOptions(3, 4).num_layers(2)), {4, 3}, true, 2, -1);
  }
  SECTION("no bias, batch of one") {
    run_lstm("lstm_nobias", LSTM(LSTMOptions(3, 4).bias(false)), {4, 1, 3}, true, 1, 1);
  }
}

TEST_CASE("GRU and RNN match libtorch: outputs, states and gradients", "[nn][rnn]") {
  SECTION("GRU 2 layers, bidirectional, batch_first") {
    run_h("gru_2l_bi_bf", GRU(GRUOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true)), {2, 5, 3}, true, 4,
          2);
  }
  SECTION("GRU without bias") { run_h("gru_nobias", GRU(GRUOptions(3, 4).bias(false)), {4, 2, 3}, false, 1, 2); }
  SECTION("GRU unbatched, bidirectional") {
    run_h("gru_unbatched_bi", GRU(GRUOptions(3, 4).bidirectional(true)), {4, 3}, true, 2, -1);
  }
  SECTION("RNN tanh, 2 layers") { run_h("rnn_tanh_2l", RNN(RNNOptions(3, 4).num_layers(2)), {5, 2, 3}, true, 2, 2); }
  SECTION("RNN relu, bidirectional") {
    run_h("rnn_relu_bi", RNN(RNNOptions(3, 4).nonlinearity(torch::kReLU).bidirectional(true)), {5, 2, 3}, true, 2, 2);
  }
}

TEST_CASE("RNN layers over packed sequences match libtorch", "[nn][rnn]") {
  SECTION("LSTM, unsorted lengths, 2 layers, bidirectional, initial states") {
    LSTM m(LSTMOptions(3, 4).num_layers(2).bidirectional(true));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({5, 3, 3}, 1).requires_grad_(true);
    auto h0 = fill({4, 3, 4}, 2).requires_grad_(true), c0 = fill({4, 3, 4}, 3).requires_grad_(true);
    auto packed = R::pack_padded_sequence(x, torch::tensor({2, 5, 3}), false, false);
    auto [py, hc] = m->forward_with_packed_input(packed, std::make_tuple(h0, c0));
    auto [y, lens] = R::pad_packed_sequence(py, false, 0.0);
    auto [hn, cn] = hc;
    CHECK(py.batch_sizes().equal(packed.batch_sizes()));
    CHECK(lens.equal(torch::tensor({2, 5, 3}, torch::kInt64)));
    check("packed_lstm.data", py.data());
    check("packed_lstm.out", y);
    check("packed_lstm.h_n", hn);
    check("packed_lstm.c_n", cn);
    loss_of(y, hn, cn).backward();
    check("packed_lstm.grad.x", x.grad());
    check("packed_lstm.grad.h0", h0.grad());
    check("packed_lstm.grad.c0", c0.grad());
    check_grads("packed_lstm", *m);
    // Padding positions take no part: their input gradient is exactly zero.
    CHECK(x.grad().narrow(0, 2, 3).select(1, 0).abs().sum().item<double>() == 0.0);
    CHECK(x.grad().narrow(0, 3, 2).select(1, 2).abs().sum().item<double>() == 0.0);
  }
  SECTION("GRU, sorted lengths with a tie, batch_first, padded to total_length") {
    GRU m(GRUOptions(3, 4).bidirectional(true).batch_first(true));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({3, 4, 3}, 1).requires_grad_(true);
    auto packed = R::pack_padded_sequence(x, torch::tensor({4, 4, 1}), true, true);
    auto [py, hn] = m->forward_with_packed_input(packed);
    auto [y, lens] = R::pad_packed_sequence(py, true, -2.0, 6);
    CHECK(y.sizes() == at::IntArrayRef({3, 6, 8}));
    check("packed_gru.out", y);
    check("packed_gru.h_n", hn);
    loss_of(y, hn).backward();
    check("packed_gru.grad.x", x.grad());
    check_grads("packed_gru", *m);
  }
  SECTION("RNN over pack_sequence, unsorted") {
    RNN m(RNNOptions(3, 4));
    m->to(torch::kDouble);
    set_params(*m);
    auto [py, hn] =
        m->forward_with_packed_input(R::pack_sequence({fill({2, 3}, 4), fill({4, 3}, 5), fill({3, 3}, 6)}, false));
    check("packed_rnn.data", py.data());
    check("packed_rnn.h_n", hn);
  }
  SECTION("a packed batch of equal lengths gives the padded layer's results") {
    LSTM m(LSTMOptions(3, 4).bidirectional(true));
    auto x = torch::randn({4, 2, 3});
    auto [y, hc] = m->forward(x);
    auto [py, phc] = m->forward_with_packed_input(R::pack_padded_sequence(x, torch::tensor({4, 4})));
    CHECK(torch::allclose(std::get<0>(R::pad_packed_sequence(py)), y, 1e-6, 1e-6));
    CHECK(torch::allclose(std::get<0>(phc), std::get<0>(hc), 1e-6, 1e-6));
    CHECK(torch::allclose(std::get<1>(phc), std::get<1>(hc), 1e-6, 1e-6));
  }
}

TEST_CASE("RNN cells match libtorch", "[nn][rnn]") {
  SECTION("RNNCell relu") {
    RNNCell m(RNNCellOptions(3, 4).nonlinearity(torch::kReLU));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({2, 3}, 1).requires_grad_(true), h = fill({2, 4}, 2).requires_grad_(true);
    auto y = m->forward(x, h);
    check("rnn_cell.h", y);
    (y.reshape(-1) * w1(8)).sum().backward();
    check("rnn_cell.grad.x", x.grad());
    check("rnn_cell.grad.hx", h.grad());
    check_grads("rnn_cell", *m);
    auto u = m->forward(fill({3}, 1), fill({4}, 2));
    CHECK(u.sizes() == at::IntArrayRef({4}));
    check("rnn_cell.unbatched", u);
    // Without a state, unbatched input runs from zeros (libtorch 2.15's C++ cell fails here instead).
    CHECK(torch::allclose(m->forward(fill({3}, 1)), m->forward(fill({3}, 1), torch::zeros({4}, torch::kDouble))));
  }
  SECTION("LSTMCell") {
    LSTMCell m(LSTMCellOptions(3, 4));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({2, 3}, 1).requires_grad_(true), h = fill({2, 4}, 2).requires_grad_(true),
         c = fill({2, 4}, 3).requires_grad_(true);
    auto [h1, c1] = m->forward(x, std::make_tuple(h, c));
    check("lstm_cell.h", h1);
    check("lstm_cell.c", c1);
    loss_of(h1, c1).backward();
    check("lstm_cell.grad.x", x.grad());
    check("lstm_cell.grad.h", h.grad());
    check("lstm_cell.grad.c", c.grad());
    check_grads("lstm_cell", *m);
    check("lstm_cell.unbatched", std::get<1>(m->forward(fill({3}, 1), std::make_tuple(fill({4}, 2), fill({4}, 3)))));
  }
  SECTION("GRUCell without bias") {
    GRUCell m(GRUCellOptions(3, 4).bias(false));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({2, 3}, 1).requires_grad_(true), h = fill({2, 4}, 2).requires_grad_(true);
    auto y = m->forward(x, h);
    check("gru_cell.h", y);
    (y.reshape(-1) * w1(8)).sum().backward();
    check("gru_cell.grad.x", x.grad());
    check("gru_cell.grad.hx", h.grad());
    check_grads("gru_cell", *m);
    check("gru_cell.zero_state", m->forward(fill({2, 3}, 1)));
  }
  SECTION("an LSTM layer is its cell applied step by step") {
    LSTM layer(LSTMOptions(3, 5));
    LSTMCell cell(3, 5);
    {
      torch::NoGradGuard g;
      cell->weight_ih.copy_(layer->named_parameters()["weight_ih_l0"]);
      cell->weight_hh.copy_(layer->named_parameters()["weight_hh_l0"]);
      cell->bias_ih.copy_(layer->named_parameters()["bias_ih_l0"]);
      cell->bias_hh.copy_(layer->named_parameters()["bias_hh_l0"]);
    }
    auto x = torch::randn({6, 2, 3});
    auto [y, hc] = layer->forward(x);
    std::optional<std::tuple<torch::Tensor, torch::Tensor>> state;
    for (int64_t t = 0; t < 6; ++t) {
      state = cell->forward(x[t], state);
      CHECK(torch::allclose(std::get<0>(*state), y[t], 1e-5, 1e-6));
    }
    CHECK(torch::allclose(std::get<1>(*state), std::get<1>(hc)[0], 1e-5, 1e-6));
  }
}

TEST_CASE("LSTM training gradients equal those of LSTMCell steps, both directions", "[nn][rnn]") {
  // The layer trains through one fused node per direction (Note [Fused LSTM direction] in
  // api/src/nn_rnn.cpp); the cells run the composed recurrence under autograd.
  LSTM layer(LSTMOptions(3, 5).bidirectional(true));
  LSTMCell fwd(3, 5), bwd(3, 5);
  layer->to(torch::kDouble);
  fwd->to(torch::kDouble);
  bwd->to(torch::kDouble);
  set_params(*layer);
  {
    torch::NoGradGuard g;
    auto p = layer->named_parameters();
    for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
      fwd->named_parameters()[n].copy_(p[std::string(n) + "_l0"]);
      bwd->named_parameters()[n].copy_(p[std::string(n) + "_l0_reverse"]);
    }
  }
  auto x = fill({6, 2, 3}, 1).requires_grad_(true);
  auto h0 = fill({2, 2, 5}, 2).requires_grad_(true), c0 = fill({2, 2, 5}, 3).requires_grad_(true);
  auto [y, hc] = layer->forward(x, std::make_tuple(h0, c0));
  loss_of(y, std::get<0>(hc), std::get<1>(hc)).backward();

  auto x2 = x.detach().clone().requires_grad_(true);
  auto h02 = h0.detach().clone().requires_grad_(true), c02 = c0.detach().clone().requires_grad_(true);
  std::vector<torch::Tensor> outs_f(6), outs_b(6);
  std::tuple<torch::Tensor, torch::Tensor> sf{h02[0], c02[0]}, sb{h02[1], c02[1]};
  for (int64_t t = 0; t < 6; ++t) {
    sf = fwd->forward(x2[t], sf);
    outs_f[t] = std::get<0>(sf);
    sb = bwd->forward(x2[5 - t], sb);
    outs_b[5 - t] = std::get<0>(sb);
  }
  auto y2 = torch::cat({torch::stack(outs_f), torch::stack(outs_b)}, 2);
  auto hn2 = torch::stack({std::get<0>(sf), std::get<0>(sb)});
  auto cn2 = torch::stack({std::get<1>(sf), std::get<1>(sb)});
  CHECK(torch::allclose(y, y2, 1e-12, 1e-12));
  loss_of(y2, hn2, cn2).backward();
  CHECK(torch::allclose(x.grad(), x2.grad(), 1e-12, 1e-12));
  CHECK(torch::allclose(h0.grad(), h02.grad(), 1e-12, 1e-12));
  CHECK(torch::allclose(c0.grad(), c02.grad(), 1e-12, 1e-12));
  auto p = layer->named_parameters();
  for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
    INFO(n);
    CHECK(torch::allclose(p[std::string(n) + "_l0"].grad(), fwd->named_parameters()[n].grad(), 1e-12, 1e-12));
    CHECK(torch::allclose(p[std::string(n) + "_l0_reverse"].grad(), bwd->named_parameters()[n].grad(), 1e-12, 1e-12));
  }
  // The two bias gradients are equal in value but separate tensors.
  CHECK_FALSE(p["bias_ih_l0"].grad().is_same(p["bias_hh_l0"].grad()));
  CHECK(p["bias_ih_l0"].grad().data_ptr() != p["bias_hh_l0"].grad().data_ptr());

  SECTION("the fused backward is not differentiable again") {
    auto y3 = std::get<0>(layer->forward(x));
    CHECK_THROWS_WITH(torch::autograd::grad({y3.sum()}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true),
                      Catch::StartsWith("[LSTM] the LSTM layer's backward cannot be differentiated again"));
  }
}

TEST_CASE("LSTM in float32 on the CPU: the fused steps against LSTMCell steps", "[nn][rnn]") {
  // Note [Fused LSTM steps on the CPU] and Note [LSTM gate activations in float]: hidden size 13
  // runs one full group of 8 units and a masked group of 5; the cells run the composed ops.
  LSTM layer(LSTMOptions(7, 13).bidirectional(true));
  LSTMCell fwd(7, 13), bwd(7, 13);
  {
    torch::NoGradGuard g;
    int k = 10;
    for (auto& p : layer->named_parameters()) p.value().copy_(fill(p.value().sizes(), k++) * 2);
    auto p = layer->named_parameters();
    for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
      fwd->named_parameters()[n].copy_(p[std::string(n) + "_l0"]);
      bwd->named_parameters()[n].copy_(p[std::string(n) + "_l0_reverse"]);
    }
  }
  auto x = (fill({5, 3, 7}, 1) * 3).to(torch::kFloat).requires_grad_(true);
  auto h0 = fill({2, 3, 13}, 2).to(torch::kFloat).requires_grad_(true);
  auto c0 = (fill({2, 3, 13}, 3) * 4).to(torch::kFloat).requires_grad_(true);
  auto [y, hc] = layer->forward(x, std::make_tuple(h0, c0));
  loss_of(y, std::get<0>(hc), std::get<1>(hc)).backward({}, /*retain_graph=*/true);

  auto x2 = x.detach().clone().requires_grad_(true);
  auto h02 = h0.detach().clone().requires_grad_(true), c02 = c0.detach().clone().requires_grad_(true);
  std::vector<torch::Tensor> outs_f(5), outs_b(5);
  std::tuple<torch::Tensor, torch::Tensor> sf{h02[0], c02[0]}, sb{h02[1], c02[1]};
  for (int64_t t = 0; t < 5; ++t) {
    sf = fwd->forward(x2[t], sf);
    outs_f[t] = std::get<0>(sf);
    sb = bwd->forward(x2[4 - t], sb);
    outs_b[4 - t] = std::get<0>(sb);
  }
  auto y2 = torch::cat({torch::stack(outs_f), torch::stack(outs_b)}, 2);
  auto hn2 = torch::stack({std::get<0>(sf), std::get<0>(sb)});
  auto cn2 = torch::stack({std::get<1>(sf), std::get<1>(sb)});
  CHECK(torch::allclose(y, y2, 1e-5, 1e-6));
  CHECK(torch::allclose(std::get<0>(hc), hn2, 1e-5, 1e-6));
  CHECK(torch::allclose(std::get<1>(hc), cn2, 1e-5, 1e-6));
  loss_of(y2, hn2, cn2).backward();
  CHECK(torch::allclose(x.grad(), x2.grad(), 1e-4, 1e-5));
  CHECK(torch::allclose(h0.grad(), h02.grad(), 1e-4, 1e-5));
  CHECK(torch::allclose(c0.grad(), c02.grad(), 1e-4, 1e-5));
  auto p = layer->named_parameters();
  for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
    INFO(n);
    CHECK(torch::allclose(p[std::string(n) + "_l0"].grad(), fwd->named_parameters()[n].grad(), 1e-4, 1e-5));
    CHECK(torch::allclose(p[std::string(n) + "_l0_reverse"].grad(), bwd->named_parameters()[n].grad(), 1e-4, 1e-5));
  }

  SECTION("a second backward through the retained graph gives the same gradients") {
    const auto gx = x.grad().clone(), gw = p["weight_hh_l0"].grad().clone();
    loss_of(y, std::get<0>(hc), std::get<1>(hc)).backward();
    CHECK(torch::allclose(x.grad(), gx * 2, 1e-6, 0));
    CHECK(torch::allclose(p["weight_hh_l0"].grad(), gw * 2, 1e-6, 0));
  }
  SECTION("without grad mode the same steps give the same values") {
    torch::NoGradGuard g;
    auto [y3, hc3] = layer->forward(x, std::make_tuple(h0, c0));
    CHECK(torch::equal(y3, y));
    CHECK(torch::equal(std::get<0>(hc3), std::get<0>(hc)));
    CHECK(torch::equal(std::get<1>(hc3), std::get<1>(hc)));
  }
}

TEST_CASE("LSTM in float32 with 4 * hidden a multiple of 512: the padded step matrix", "[nn][rnn]") {
  // Hidden 128: W_hh^T is [128, 512], whose rows alias in the cache; where oneDNN keeps it plain
  // the step product packs it with longer rows (kernels/cpu/rnn.cpp, Note [Aliased leading
  // dimensions]). Against LSTMCell steps (the composed ops), values and gradients.
  torch::manual_seed(21);
  LSTM layer(LSTMOptions(40, 128));
  LSTMCell cell(40, 128);
  {
    torch::NoGradGuard g;
    for (auto& p : layer->named_parameters()) p.value().copy_(torch::randn(p.value().sizes()) * 0.1);
    auto p = layer->named_parameters();
    for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) cell->named_parameters()[n].copy_(p[std::string(n) + "_l0"]);
  }
  auto x = torch::randn({6, 16, 40}).requires_grad_(true);
  auto [y, hc] = layer->forward(x);
  (y * y).sum().backward();
  auto x2 = x.detach().clone().requires_grad_(true);
  std::optional<std::tuple<torch::Tensor, torch::Tensor>> state;
  std::vector<torch::Tensor> outs;
  for (int64_t t = 0; t < 6; ++t) {
    state = cell->forward(x2[t], state);
    outs.push_back(std::get<0>(*state));
  }
  auto y2 = torch::stack(outs);
  CHECK(torch::allclose(y, y2, 1e-5, 1e-6));
  CHECK(torch::allclose(std::get<1>(hc)[0], std::get<1>(*state), 1e-5, 1e-6));
  (y2 * y2).sum().backward();
  CHECK(torch::allclose(x.grad(), x2.grad(), 1e-4, 1e-5));
  auto p = layer->named_parameters();
  for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
    INFO(n);
    CHECK(torch::allclose(p[std::string(n) + "_l0"].grad(), cell->named_parameters()[n].grad(), 1e-4, 1e-5));
  }
}

TEST_CASE("RNN layers: parameters, initialisation, printing", "[nn][rnn]") {
  SECTION("names and shapes in libtorch's order") {
    LSTM m(LSTMOptions(3, 4).num_layers(2).bidirectional(true).proj_size(2));
    std::vector<std::string> names;
    for (auto& p : m->named_parameters()) names.push_back(p.key() + " " + std::to_string(p.value().numel()));
    // libtorch 2.15: per layer and direction w_ih, w_hh, b_ih, b_hh, w_hr.
    CHECK(names ==
          std::vector<std::string>{"weight_ih_l0 48",         "weight_hh_l0 32",         "bias_ih_l0 16",
                                   "bias_hh_l0 16",           "weight_hr_l0 8",          "weight_ih_l0_reverse 48",
                                   "weight_hh_l0_reverse 32", "bias_ih_l0_reverse 16",   "bias_hh_l0_reverse 16",
                                   "weight_hr_l0_reverse 8",  "weight_ih_l1 64",         "weight_hh_l1 32",
                                   "bias_ih_l1 16",           "bias_hh_l1 16",           "weight_hr_l1 8",
                                   "weight_ih_l1_reverse 64", "weight_hh_l1_reverse 32", "bias_ih_l1_reverse 16",
                                   "bias_hh_l1_reverse 16",   "weight_hr_l1_reverse 8"});
    CHECK(m->all_weights().size() == 20);
    m->flatten_parameters();
    GRU g(GRUOptions(3, 4).bias(false));
    CHECK(g->named_parameters().size() == 2);
    CHECK(g->named_parameters()["weight_ih_l0"].sizes() == at::IntArrayRef({12, 3}));
    GRUCell gc(GRUCellOptions(3, 4).bias(false));
    CHECK(gc->named_parameters().size() == 2);
    CHECK_FALSE(gc->bias_ih.defined());
  }
  SECTION("every parameter drawn from U(-1/sqrt(hidden), 1/sqrt(hidden))") {
    torch::manual_seed(3);
    LSTM m(LSTMOptions(50, 16).num_layers(2));
    for (auto& p : m->parameters()) {
      CHECK(p.abs().max().item<double>() <= 0.25);
      CHECK(p.abs().max().item<double>() > 0.2);
      CHECK(std::abs(p.mean().item<double>()) < 0.05);
    }
    RNNCell c(10, 100);
    CHECK(c->weight_hh.abs().max().item<double>() <= 0.1);
    CHECK(c->weight_hh.abs().max().item<double>() > 0.099);
  }
  SECTION("printing (libtorch 2.15's text)") {
    CHECK(printed(*LSTM(LSTMOptions(3, 4).num_layers(2).bidirectional(true).dropout(0.5))) ==
          "torch::nn::LSTM(input_size=3, hidden_size=4, num_layers=2, bias=true, batch_first=false, dropout=0.5, "
          "bidirectional=true)");
    CHECK(printed(*LSTM(LSTMOptions(3, 4).proj_size(2))) ==
          "torch::nn::LSTM(input_size=3, hidden_size=4, num_layers=1, bias=true, batch_first=false, dropout=0, "
          "bidirectional=false, proj_size=2)");
    CHECK(printed(*GRU(3, 4)) ==
          "torch::nn::GRU(input_size=3, hidden_size=4, num_layers=1, bias=true, batch_first=false, dropout=0, "
          "bidirectional=false)");
    // libtorch prints no nonlinearity for the RNN layer.
    CHECK(printed(*RNN(RNNOptions(3, 4).nonlinearity(torch::kReLU))) ==
          "torch::nn::RNN(input_size=3, hidden_size=4, num_layers=1, bias=true, batch_first=false, dropout=0, "
          "bidirectional=false)");
    CHECK(printed(*RNNCell(RNNCellOptions(3, 4).nonlinearity(torch::kReLU))) ==
          "torch::nn::RNNCell(3, 4, nonlinearity=kReLU)");
    CHECK(printed(*RNNCell(3, 4)) == "torch::nn::RNNCell(3, 4)");
    CHECK(printed(*LSTMCell(LSTMCellOptions(3, 4).bias(false))) == "torch::nn::LSTMCell(3, 4, bias=false)");
    CHECK(printed(*GRUCell(3, 4)) == "torch::nn::GRUCell(3, 4)");
  }
  SECTION("clone and to(kDouble) keep the layer working") {
    LSTM m(LSTMOptions(3, 4).num_layers(2));
    auto copy = std::dynamic_pointer_cast<LSTMImpl>(m->clone());
    REQUIRE(copy);
    auto x = torch::randn({3, 2, 3});
    CHECK(torch::equal(std::get<0>(copy->forward(x)), std::get<0>(m->forward(x))));
    m->to(torch::kDouble);
    CHECK(std::get<0>(m->forward(x.to(torch::kDouble))).scalar_type() == torch::kDouble);
  }
}

TEST_CASE("RNN layers: layouts, dropout, edge sizes", "[nn][rnn]") {
  SECTION("batch_first gives the time-first results transposed; a non-contiguous input works") {
    LSTM a(LSTMOptions(3, 4).num_layers(2).bidirectional(true));
    LSTM b(LSTMOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true));
    {
      torch::NoGradGuard g;
      for (auto& p : b->named_parameters()) p.value().copy_(a->named_parameters()[p.key()]);
    }
    auto x = torch::randn({5, 2, 3});
    auto [ya, hca] = a->forward(x);
    auto [yb, hcb] = b->forward(x.transpose(0, 1));  // a transposed view, not contiguous
    CHECK(torch::allclose(yb.transpose(0, 1), ya, 1e-6, 1e-6));
    CHECK(torch::allclose(std::get<0>(hcb), std::get<0>(hca), 1e-6, 1e-6));
  }
  SECTION("dropout applies between layers in training only") {
    GRU m(GRUOptions(3, 4).num_layers(2).dropout(1.0));
    GRU top(GRUOptions(4, 4));
    {
      torch::NoGradGuard g;
      for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"})
        top->named_parameters()[std::string(n) + "_l0"].copy_(m->named_parameters()[std::string(n) + "_l1"]);
    }
    auto x = torch::randn({4, 2, 3});
    // With p = 1 the second layer sees zeros.
    auto [y, h] = m->forward(x);
    auto [y_top, h_top] = top->forward(torch::zeros({4, 2, 4}));
    CHECK(torch::allclose(y, y_top, 1e-6, 1e-6));
    m->eval();
    CHECK_FALSE(torch::allclose(std::get<0>(m->forward(x)), y_top, 1e-3, 1e-3));
  }
  SECTION("an empty batch") {
    LSTM m(LSTMOptions(3, 4).bidirectional(true));
    auto [y, hc] = m->forward(torch::randn({3, 0, 3}));
    CHECK(y.sizes() == at::IntArrayRef({3, 0, 8}));
    CHECK(std::get<0>(hc).sizes() == at::IntArrayRef({2, 0, 4}));
  }
  SECTION("NaN in one sequence stays in that sequence") {
    GRU m(GRUOptions(2, 3));
    auto x = torch::randn({4, 2, 2});
    x[1][0][0] = std::nan("");
    auto [y, h] = m->forward(x);
    CHECK_FALSE(torch::isnan(y.select(1, 0).narrow(0, 0, 1)).any().item<bool>());
    CHECK(torch::isnan(y.select(1, 0).narrow(0, 1, 3)).all().item<bool>());
    CHECK_FALSE(torch::isnan(y.select(1, 1)).any().item<bool>());
  }
}

TEST_CASE("pack_padded_sequence / pad_packed_sequence / pad_sequence", "[nn][rnn]") {
  SECTION("packing an unsorted batch (libtorch 2.15's values)") {
    auto p = R::pack_padded_sequence(torch::arange(24.).reshape({4, 3, 2}), torch::tensor({2, 4, 1}), false, false);
    CHECK(p.batch_sizes().equal(torch::tensor({3, 2, 1, 1}, torch::kInt64)));
    CHECK(p.sorted_indices().equal(torch::tensor({1, 0, 2}, torch::kInt64)));
    CHECK(p.unsorted_indices().equal(torch::tensor({1, 0, 2}, torch::kInt64)));
    CHECK(p.data().equal(torch::tensor({2., 3., 0., 1., 4., 5., 8., 9., 6., 7., 14., 15., 20., 21.}).view({7, 2})));
    auto [pad, len] = R::pad_packed_sequence(p, true, -1.0, 5);
    CHECK(len.equal(torch::tensor({2, 4, 1}, torch::kInt64)));
    CHECK(pad.sizes() == at::IntArrayRef({3, 5, 2}));
    CHECK(pad[0].equal(torch::tensor({0., 1., 6., 7., -1., -1., -1., -1., -1., -1.}).view({5, 2})));
    CHECK(pad[1].equal(torch::tensor({2., 3., 8., 9., 14., 15., 20., 21., -1., -1.}).view({5, 2})));
    CHECK(pad[2].equal(torch::tensor({4., 5., -1., -1., -1., -1., -1., -1., -1., -1.}).view({5, 2})));
  }
  SECTION("pack_sequence keeps a sorted batch without indices") {
    auto ps = R::pack_sequence({torch::ones({3, 2}), torch::ones({1, 2})});
    CHECK(ps.batch_sizes().equal(torch::tensor({2, 1, 1}, torch::kInt64)));
    CHECK_FALSE(ps.sorted_indices().defined());
    CHECK_FALSE(ps.unsorted_indices().defined());
  }
  SECTION("pad_sequence: right and left padding, batch_first") {
    auto a = R::pad_sequence({torch::ones({2}), torch::ones({3}) * 2}, true, -1);
    CHECK(a.equal(torch::tensor({1., 1., -1., 2., 2., 2.}).view({2, 3})));
    auto b = R::pad_sequence({torch::ones({2, 1}), torch::ones({3, 1}) * 2}, false, 0, "left");
    CHECK(b.equal(torch::tensor({0., 2., 1., 2., 1., 2.}).view({3, 2, 1})));
  }
  SECTION("gradients flow back through packing and unpacking") {
    auto x = torch::randn({4, 3, 2}, torch::requires_grad());
    auto p = R::pack_padded_sequence(x, torch::tensor({4, 1, 3}), false, false);
    std::get<0>(R::pad_packed_sequence(p)).sum().backward();
    auto expect = torch::ones({4, 3, 2});
    expect.narrow(0, 1, 3).select(1, 1).zero_();
    expect.narrow(0, 3, 1).select(1, 2).zero_();
    CHECK(x.grad().equal(expect));
  }
  SECTION("invert_permutation") {
    CHECK(R::invert_permutation(torch::tensor({2, 0, 3, 1})).equal(torch::tensor({1, 3, 0, 2})));
    CHECK_FALSE(R::invert_permutation(torch::Tensor()).defined());
  }
}

TEST_CASE("RNN layers and packing reject bad input with a message", "[nn][rnn]") {
  auto msg = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const c10::Error& e) {
      return e.what();
    }
    return "no error";
  };
  // libtorch 2.15 rejects the same inputs (its words in the comments).
  LSTM lstm(3, 4);
  SECTION("sequence layers") {
    // "input must have 3 dimensions, got 4" (libtorch's C++ layers take no unbatched input; Ember's do)
    CHECK_THAT(msg([&] {
                 lstm->forward(torch::randn({2, 2, 2, 3}));
               }),
               StartsWith("[LSTM] expected input of 2 (unbatched: time, features) or 3 (batched) dimensions; got 4-D"));
    CHECK_THAT(msg([&] { lstm->forward(torch::randn({3})); }), StartsWith("[LSTM] expected input of 2"));
    // "input.size(-1) must be equal to input_size. Expected 3, got 7"
    CHECK_THAT(msg([&] {
                 lstm->forward(torch::randn({5, 2, 7}));
               }),
               StartsWith("[LSTM] expected input.size(-1) to equal input_size (3); got 7"));
    // "Expected hidden[0] size 1 2 4, got [1, 3, 4]"
    CHECK_THAT(
        msg([&] {
          lstm->forward(torch::randn({5, 2, 3}), std::make_tuple(torch::zeros({1, 3, 4}), torch::zeros({1, 2, 4})));
        }),
        StartsWith("[LSTM] expected h_0 of shape [1, 2, 4]; got [1, 3, 4]"));
    // "Expected hidden[1] size 1 2 4, got [1, 2, 5]"
    CHECK_THAT(
        msg([&] {
          lstm->forward(torch::randn({5, 2, 3}), std::make_tuple(torch::zeros({1, 2, 4}), torch::zeros({1, 2, 5})));
        }),
        StartsWith("[LSTM] expected c_0 of shape [1, 2, 4]; got [1, 2, 5]"));
    CHECK_THAT(msg([&] {
                 lstm->forward(torch::randn({5, 2, 3}), std::make_tuple(torch::zeros({1, 4}), torch::zeros({1, 4})));
               }),
               StartsWith("[LSTM] expected h_0 of shape [1, 2, 4]; got [1, 4]"));
    CHECK_THAT(msg([&] {
                 lstm->forward(torch::randn({5, 3}), std::make_tuple(torch::zeros({1, 2, 4}), torch::zeros({1, 2, 4})));
               }),
               StartsWith("[LSTM] expected h_0 of shape [1, 4]; got [1, 2, 4]"));
    // "Expected sequence length to be larger than 0 in RNN"
    CHECK_THAT(msg([&] {
                 lstm->forward(torch::randn({0, 2, 3}));
               }),
               StartsWith("[LSTM] expected at least one time step; got input of shape [0, 2, 3]"));
    // "mat1 and mat2 must have the same dtype, but got Double and Float"
    CHECK_THAT(msg([&] {
                 lstm->forward(torch::randn({5, 2, 3}, torch::kDouble));
               }),
               StartsWith("[LSTM] expected input of dtype"));
    CHECK_THAT(msg([&] {
                 lstm->forward(torch::randn({5, 2, 3}),
                               std::make_tuple(torch::zeros({1, 2, 4}, torch::kDouble), torch::zeros({1, 2, 4})));
               }),
               StartsWith("[LSTM] expected h_0 of dtype"));
    // "Expected hidden size 1 2 4, got [2, 2, 4]"
    CHECK_THAT(msg([&] {
                 GRU(3, 4)->forward(torch::randn({5, 2, 3}), torch::zeros({2, 2, 4}));
               }),
               StartsWith("[GRU] expected h_0 of shape [1, 2, 4]; got [2, 2, 4]"));
    CHECK_THAT(msg([&] {
                 RNN(3, 4)->forward(torch::randn({5, 2, 3}), torch::zeros({1, 2, 5}));
               }),
               StartsWith("[RNN] expected h_0 of shape [1, 2, 4]; got [1, 2, 5]"));
    auto packed = R::pack_sequence({torch::randn({3, 3}), torch::randn({2, 3})});
    CHECK_THAT(
        msg([&] {
          lstm->forward_with_packed_input(packed, std::make_tuple(torch::zeros({1, 3, 4}), torch::zeros({1, 3, 4})));
        }),
        StartsWith("[LSTM] expected h_0 of shape [1, 2, 4]; got [1, 3, 4]"));
    CHECK_THAT(msg([&] {
                 lstm->forward_with_packed_input(R::PackedSequence(torch::randn({5, 2, 3}), torch::tensor({3, 2})));
               }),
               StartsWith("[LSTM] expected packed data of 2 dimensions"));
  }
  SECTION("options") {
    // "dropout should be a number in range [0, 1] ..."
    CHECK_THAT(msg([] { LSTM(LSTMOptions(3, 4).dropout(1.5)); }),
               StartsWith("[LSTM] expected a dropout probability in [0, 1]; got 1.5"));
    // "proj_size has to be a positive integer, smaller than hidden_size or zero ..."
    CHECK_THAT(msg([] { LSTM(LSTMOptions(3, 4).proj_size(4)); }),
               StartsWith("[LSTM] expected proj_size (4) to be smaller than hidden_size (4)"));
    CHECK_THAT(msg([] { LSTM(LSTMOptions(3, 4).proj_size(-1)); }),
               StartsWith("[LSTM] expected a non-negative proj_size"));
    // "hidden_size must be greater than zero", "num_layers must be greater than zero"
    CHECK_THAT(msg([] { GRU(GRUOptions(3, 0)); }), StartsWith("[GRU] expected a positive hidden_size; got 0"));
    CHECK_THAT(msg([] { RNN(RNNOptions(3, 4).num_layers(0)); }),
               StartsWith("[RNN] expected a positive num_layers; got 0"));
    CHECK_THAT(msg([] { LSTMCell(3, 0); }), StartsWith("[LSTMCell] expected a positive hidden_size; got 0"));
  }
  SECTION("cells") {
    LSTMCell cell(3, 4);
    // "Expected input to be 1D or 2D, got 3D instead"
    CHECK_THAT(msg([&] {
                 cell->forward(torch::randn({2, 2, 3}));
               }),
               StartsWith("[LSTMCell] expected input of 1 (unbatched) or 2 (batch, features) dimensions; got 3-D"));
    // "input has inconsistent input_size: got 5 expected 3"
    CHECK_THAT(msg([&] {
                 cell->forward(torch::randn({2, 5}));
               }),
               StartsWith("[LSTMCell] expected input.size(-1) to equal input_size (3); got 5"));
    // "Input batch size 2 doesn't match hidden0 batch size 3"
    CHECK_THAT(msg([&] {
                 cell->forward(torch::randn({2, 3}), std::make_tuple(torch::zeros({3, 4}), torch::zeros({2, 4})));
               }),
               StartsWith("[LSTMCell] expected h of shape [2, 4] for input of shape [2, 3]; got [3, 4]"));
    CHECK_THAT(msg([&] {
                 cell->forward(torch::randn({2, 3}), std::make_tuple(torch::zeros({2, 4}), torch::zeros({2, 5})));
               }),
               StartsWith("[LSTMCell] expected c of shape [2, 4] for input of shape [2, 3]; got [2, 5]"));
    CHECK_THAT(msg([&] {
                 cell->forward(torch::randn({3}), std::make_tuple(torch::zeros({3, 4}), torch::zeros({3, 4})));
               }),
               StartsWith("[LSTMCell] expected h of shape [4] for input of shape [3]; got [3, 4]"));
    // "hidden0 has inconsistent hidden_size: got 5, expected 4"
    CHECK_THAT(msg([&] {
                 RNNCell(3, 4)->forward(torch::randn({2, 3}), torch::zeros({2, 5}));
               }),
               StartsWith("[RNNCell] expected hx of shape [2, 4] for input of shape [2, 3]; got [2, 5]"));
    CHECK_THAT(msg([&] {
                 GRUCell(3, 4)->forward(torch::randn({2, 3}, torch::kDouble));
               }),
               StartsWith("[GRUCell] expected input of dtype"));
    CHECK(RNNCell(3, 4)->forward(torch::randn({0, 3})).sizes() == at::IntArrayRef({0, 4}));  // libtorch: [0, 4]
  }
  SECTION("packing") {
    auto x = torch::randn({4, 3, 2});
    // "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. ..."
    CHECK_THAT(
        msg([&] {
          R::pack_padded_sequence(x, torch::tensor({2, 4, 1}));
        }),
        StartsWith("[pack_padded_sequence] with enforce_sorted=true the lengths must not increase; got 2 then 4"));
    // "Length of all samples has to be greater than 0, ..."
    CHECK_THAT(msg([&] {
                 R::pack_padded_sequence(x, torch::tensor({4, 2, 0}));
               }),
               StartsWith("[pack_padded_sequence] every sequence needs at least one step; got a length of 0"));
    // "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)"
    CHECK_THAT(msg([&] {
                 R::pack_padded_sequence(x, torch::tensor({4, 2}));
               }),
               StartsWith("[pack_padded_sequence] expected one length per sequence (3); got 2 lengths"));
    // libtorch 2.15 accepts a length beyond the padded input (and reads past it); Ember refuses.
    CHECK_THAT(msg([&] {
                 R::pack_padded_sequence(x, torch::tensor({5, 2, 1}));
               }),
               StartsWith("[pack_padded_sequence] a length (5) exceeds the padded input's 4 time steps"));
    CHECK_THAT(msg([&] {
                 R::pack_padded_sequence(x, torch::tensor({4., 2., 1.}));
               }),
               StartsWith("[pack_padded_sequence] expected integer lengths"));
    CHECK_THAT(msg([&] { R::pack_padded_sequence(torch::randn({4}), torch::tensor({4})); }),
               StartsWith("[pack_padded_sequence] expected input of at least 2 dimensions"));
    // "Expected total_length to be at least the length of the longest sequence in input, ..."
    auto p = R::pack_padded_sequence(x, torch::tensor({4, 2, 1}));
    CHECK_THAT(msg([&] { R::pad_packed_sequence(p, false, 0, 3); }),
               StartsWith("[pad_packed_sequence] total_length (3) must be at least the longest sequence's length (4)"));
    // "Expected padding_side to be one of left or right, but got middle."
    CHECK_THAT(msg([] { R::pad_sequence({torch::ones({2})}, false, 0, "middle"); }),
               StartsWith("[pad_sequence] padding_side must be \"right\" or \"left\"; got \"middle\""));
    // "received an empty list of sequences"
    CHECK_THAT(msg([] { R::pad_sequence({}); }), StartsWith("[pad_sequence] expected at least one sequence; got none"));
    // "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
    CHECK_THAT(msg([] {
                 R::pad_sequence({torch::ones({2, 3}), torch::ones({2, 4})});
               }),
               StartsWith("[pad_sequence] sequence 1 has shape [2, 4] but sequence 0 has [2, 3]"));
    CHECK_THAT(msg([] { R::PackedSequence(torch::ones({2}), torch::Tensor()); }),
               StartsWith("[PackedSequence] batch_sizes must be a CPU tensor"));
  }
}

// ---------------------------------------------------------------- the LSTM's step products
// Note [LSTM step products] (kernels/cpu/rnn.cpp): the packed per-step product and the product into
// a caller's block, against a float64 triple loop written here.
namespace lstm_products_test {

// a [m, k] @ b [k, n] in double, one dot product per element, from any strides.
torch::Tensor ref_mm(const torch::Tensor& a, const torch::Tensor& b) {
  auto ad = a.to(torch::kDouble).contiguous(), bd = b.to(torch::kDouble).contiguous();
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  auto out = torch::empty({m, n}, torch::kDouble);
  const double *pa = ad.data_ptr<double>(), *pb = bd.data_ptr<double>();
  double* po = out.data_ptr<double>();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < k; ++q) s += pa[i * k + q] * pb[q * n + j];
      po[i * n + j] = s;
    }
  return out;
}

// |got - want| within float rounding of a length-k dot product of these magnitudes.
void check_close(const torch::Tensor& got, const torch::Tensor& a, const torch::Tensor& b) {
  const auto want = ref_mm(a, b);
  const auto scale = ref_mm(a.to(torch::kDouble).abs(), b.to(torch::kDouble).abs());
  const double eps = got.scalar_type() == torch::kFloat ? 6e-8 : 1.2e-16;
  const auto err = (got.to(torch::kDouble) - want).abs();
  const auto bound = scale * (eps * (a.size(1) + 2)) + 1e-300;
  CHECK((err <= bound).all().item<bool>());
}

}  // namespace lstm_products_test

TEST_CASE("LSTM step products: packed per-step product and product into a block", "[nn][rnn]") {
  namespace T = lstm_products_test;
  using at::native::cpu::LstmStepProduct;
  // Shapes: an LSTM step's (rows, H, 4H) and its transpose, odd sizes (blocked-layout tails), one row.
  const std::vector<std::array<int64_t, 3>> shapes = {{32, 256, 1024}, {32, 1024, 256}, {5, 13, 52}, {1, 7, 20}, {3, 20, 5}};
  for (const auto dtype : {torch::kFloat, torch::kDouble}) {
    for (const auto& [m, k, n] : shapes) {
      INFO(dtype << " " << m << "x" << k << "x" << n);
      const auto a = (fill({m, k}, 1) * 3).to(dtype);
      const auto b_rm = (fill({k, n}, 2) * 2).to(dtype);
      const auto b_cm = (fill({n, k}, 3) * 2).to(dtype).t();  // column-major, as W_hh^T
      for (const auto& b : {b_rm, b_cm}) {
        const LstmStepProduct p(b, m);
        // Written into a block of a larger buffer, twice with other left operands (the packed
        // matrix and the cached memory objects are reused).
        auto buf = torch::full({m * n + 7}, std::nan(""), dtype);
        auto out = buf.narrow(0, 3, m * n).view({m, n});
        p.mm(a, out);
        T::check_close(out, a, b);
        const auto a2 = (fill({m, k}, 4) - 0.25).to(dtype);
        p.mm(a2, out);
        T::check_close(out, a2, b);
        CHECK(std::isnan(buf[0].item<double>()));
        CHECK(std::isnan(buf[m * n + 6].item<double>()));
        // Another row count than packed for, and a strided left operand: the plain product.
        const auto a3 = (fill({m + 1, 2 * k}, 5)).to(dtype).narrow(1, 0, k);
        auto out3 = torch::empty({m + 1, n}, dtype);
        p.mm(a3, out3);
        T::check_close(out3, a3, b);
      }
      // lstm_mm_into: row- and column-major operands, a strided one, into a block of a buffer.
      const auto a_cm = (fill({k, m}, 6)).to(dtype).t();
      const auto a_strided = (fill({m, 2 * k}, 7)).to(dtype).slice(1, 0, 2 * k, 2);
      for (const auto& lhs : {a, a_cm, a_strided})
        for (const auto& rhs : {b_rm, b_cm}) {
          auto buf = torch::full({m * n + 2}, std::nan(""), dtype);
          auto out = buf.narrow(0, 1, m * n).view({m, n});
          at::native::cpu::lstm_mm_into(out, lhs, rhs);
          T::check_close(out, lhs, rhs);
          CHECK(std::isnan(buf[0].item<double>()));
          CHECK(std::isnan(buf[m * n + 1].item<double>()));
        }
    }
  }
  SECTION("NaN and infinities propagate as in a product") {
    auto a = fill({4, 8}, 1).to(torch::kFloat);
    auto b = fill({8, 16}, 2).to(torch::kFloat);
    a.index_put_({1, 3}, std::nan(""));
    a.index_put_({2, 0}, INFINITY);
    const LstmStepProduct p(b, 4);
    auto out = torch::empty({4, 16});
    p.mm(a, out);
    CHECK(out[1].isnan().all().item<bool>());
    CHECK((out[2].isinf() | out[2].isnan()).all().item<bool>());
    CHECK(out[0].isfinite().all().item<bool>());
    CHECK(out[3].isfinite().all().item<bool>());
    T::check_close(out.narrow(0, 0, 1), a.narrow(0, 0, 1), b);
  }
  SECTION("empty operands") {
    const LstmStepProduct p(torch::empty({0, 4}), 3);
    auto out = torch::full({3, 4}, 7.0f);
    p.mm(torch::empty({3, 0}), out);
    CHECK(torch::equal(out, torch::zeros({3, 4})));
    auto out2 = torch::full({3, 4}, 7.0f);
    at::native::cpu::lstm_mm_into(out2, torch::empty({3, 0}), torch::empty({0, 4}));
    CHECK(torch::equal(out2, torch::zeros({3, 4})));
  }
}

TEST_CASE("LSTM in float32 at the benchmark's size: fused steps against LSTMCell steps", "[nn][rnn]") {
  // H = 256 and 32 rows: the packed step products' real shapes (Note [LSTM step products]), the
  // whole workspace one block of the allocator's large-block cache (Note [One LSTM workspace]).
  LSTM layer(LSTMOptions(64, 256));
  LSTMCell cell(64, 256);
  {
    torch::NoGradGuard g;
    int k = 20;
    for (auto& p : layer->named_parameters()) p.value().copy_(fill(p.value().sizes(), k++) * 0.25);
    auto p = layer->named_parameters();
    for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) cell->named_parameters()[n].copy_(p[std::string(n) + "_l0"]);
  }
  auto x = fill({24, 32, 64}, 1).to(torch::kFloat).requires_grad_(true);
  auto [y, hc] = layer->forward(x);
  auto gy = fill({24, 32, 256}, 9).to(torch::kFloat);
  y.backward(gy);
  auto x2 = x.detach().clone().requires_grad_(true);
  std::vector<torch::Tensor> outs(24);
  std::optional<std::tuple<torch::Tensor, torch::Tensor>> s;
  for (int64_t t = 0; t < 24; ++t) {
    s = cell->forward(x2[t], s);
    outs[t] = std::get<0>(*s);
  }
  auto y2 = torch::stack(outs);
  CHECK(torch::allclose(y, y2, 1e-5, 1e-5));
  CHECK(torch::allclose(std::get<1>(hc)[0], std::get<1>(*s), 1e-5, 1e-5));
  y2.backward(gy);
  CHECK(torch::allclose(x.grad(), x2.grad(), 1e-4, 1e-5));
  auto p = layer->named_parameters();
  for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
    INFO(n);
    CHECK(torch::allclose(p[std::string(n) + "_l0"].grad(), cell->named_parameters()[n].grad(), 1e-4, 1e-4));
  }
  SECTION("without grad mode the same values") {
    torch::NoGradGuard g;
    auto y3 = std::get<0>(layer->forward(x));
    CHECK(torch::equal(y3, y));
  }
}
