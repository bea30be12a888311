// Records the reference values of tests/nn/test_rnn.cpp from libtorch (not part of any build).
// Every parameter, input and initial state is filled from a formula (fill below), the layer runs in
// float64, and each result is reduced to two weighted sums (digest below); test_rnn.cpp repeats the
// same formulas against Ember and compares. Build and run (from the repository root):
//   LT=.peer/libtorch; g++ -std=c++20 -O0 -D_GLIBCXX_USE_CXX11_ABI=1 -w -I$LT/include \
//     -I$LT/include/torch/csrc/api/include tests/nn/libtorch/record_rnn.cpp -L$LT/lib -ltorch_cpu -lc10 \
//     -Wl,-rpath,$LT/lib -Wl,--allow-shlib-undefined -o /tmp/record_rnn && /tmp/record_rnn
#include <torch/torch.h>
#include <cstdio>
#include <string>

namespace R = torch::nn::utils::rnn;

// value j of a tensor filled with seed k: 0.5 sin(0.9 j + 1.7 k)
torch::Tensor fill(at::IntArrayRef shape, int k) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return (torch::arange(n, torch::kDouble) * 0.9 + 1.7 * k).sin().mul(0.5).reshape(shape);
}
torch::Tensor w1(int64_t n) { return (torch::arange(n, torch::kDouble) * 0.31 + 0.2).cos(); }
torch::Tensor w2(int64_t n) {
  auto j = torch::arange(n, torch::kDouble);
  return (j * 1.13 + 0.5).sin() + j * 0.01;
}
double wdot(const torch::Tensor& t, const torch::Tensor& w) {
  return (t.contiguous().reshape(-1) * w).sum().item<double>();
}
void digest(const std::string& name, const torch::Tensor& t) {
  auto n = t.numel();
  std::printf("      {\"%s\", {%.15g, %.15g}},\n", name.c_str(), wdot(t, w1(n)), wdot(t, w2(n)));
}
// loss = sum(a w1) + sum(b w2) + 0.5 sum(c w1) over whichever are defined
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
void grads(const std::string& prefix, torch::nn::Module& m) {
  for (auto& p : m.named_parameters()) digest(prefix + ".grad." + p.key(), p.value().grad());
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
  // libtorch's C++ layers take batched input only: an unbatched case runs as a batch of one (the
  // digests of the squeezed results are the same).
  auto x_in = batch < 0 ? x.unsqueeze(1) : x;
  auto r = with_state
               ? m->forward(x_in, std::make_tuple(batch < 0 ? h0.unsqueeze(1) : h0, batch < 0 ? c0.unsqueeze(1) : c0))
               : m->forward(x_in);
  auto y = std::get<0>(r);
  auto [hn, cn] = std::get<1>(r);
  digest(name + ".out", y);
  digest(name + ".h_n", hn);
  digest(name + ".c_n", cn);
  loss_of(y, hn, cn).backward();
  digest(name + ".grad.x", x.grad());
  if (with_state) digest(name + ".grad.h0", h0.grad()), digest(name + ".grad.c0", c0.grad());
  grads(name, *m);
}

template <typename M>
void run_h(const std::string& name, M m, at::IntArrayRef xshape, bool with_state, int64_t states, int64_t batch) {
  m->to(torch::kDouble);
  set_params(*m);
  auto x = fill(xshape, 1).requires_grad_(true);
  std::vector<int64_t> hs{states, batch, m->options.hidden_size()};
  if (batch < 0) hs = {states, m->options.hidden_size()};
  auto h0 = fill(hs, 2).requires_grad_(true);
  auto x_in = batch < 0 ? x.unsqueeze(1) : x;  // unbatched: as a batch of one (see run_lstm)
  auto [y, hn] = with_state ? m->forward(x_in, batch < 0 ? h0.unsqueeze(1) : h0) : m->forward(x_in);
  digest(name + ".out", y);
  digest(name + ".h_n", hn);
  loss_of(y, hn).backward();
  digest(name + ".grad.x", x.grad());
  if (with_state) digest(name + ".grad.h0", h0.grad());
  grads(name, *m);
}

int main() {
  using namespace torch::nn;
  std::printf("    // LSTM, GRU and RNN layers\n");
  run_lstm("lstm_2l_bi", LSTM(LSTMOptions(3, 4).num_layers(2).bidirectional(true)), {5, 2, 3}, true, 4, 2);
  run_lstm("lstm_proj_bf", LSTM(LSTMOptions(3, 5).proj_size(2).batch_first(true)), {3, 4, 3}, false, 1, 3);
  run_lstm("lstm_proj_2l_bi", LSTM(LSTMOptions(2, 4).proj_size(3).num_layers(2).bidirectional(true)), {4, 2, 2}, true,
           4, 2);
  run_lstm("lstm_unbatched", LSTM(LSTMOptions(3, 4).num_layers(2)), {4, 3}, true, 2, -1);
  run_lstm("lstm_nobias", LSTM(LSTMOptions(3, 4).bias(false)), {4, 1, 3}, true, 1, 1);
  run_h("gru_2l_bi_bf", GRU(GRUOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true)), {2, 5, 3}, true, 4,
        2);
  run_h("gru_nobias", GRU(GRUOptions(3, 4).bias(false)), {4, 2, 3}, false, 1, 2);
  run_h("gru_unbatched_bi", GRU(GRUOptions(3, 4).bidirectional(true)), {4, 3}, true, 2, -1);
  run_h("rnn_tanh_2l", RNN(RNNOptions(3, 4).num_layers(2)), {5, 2, 3}, true, 2, 2);
  run_h("rnn_relu_bi", RNN(RNNOptions(3, 4).nonlinearity(torch::kReLU).bidirectional(true)), {5, 2, 3}, true, 2, 2);

  std::printf("    // packed sequences\n");
  {
    LSTM m(LSTMOptions(3, 4).num_layers(2).bidirectional(true));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({5, 3, 3}, 1).requires_grad_(true);
    auto h0 = fill({4, 3, 4}, 2).requires_grad_(true), c0 = fill({4, 3, 4}, 3).requires_grad_(true);
    auto packed = R::pack_padded_sequence(x, torch::tensor({2, 5, 3}), false, false);
    auto [py, hc] = m->forward_with_packed_input(packed, std::make_tuple(h0, c0));
    auto [y, lens] = R::pad_packed_sequence(py, false, 0.0);
    auto [hn, cn] = hc;
    digest("packed_lstm.data", py.data());
    digest("packed_lstm.out", y);
    digest("packed_lstm.h_n", hn);
    digest("packed_lstm.c_n", cn);
    loss_of(y, hn, cn).backward();
    digest("packed_lstm.grad.x", x.grad());
    digest("packed_lstm.grad.h0", h0.grad());
    digest("packed_lstm.grad.c0", c0.grad());
    grads("packed_lstm", *m);
  }
  {
    GRU m(GRUOptions(3, 4).bidirectional(true).batch_first(true));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({3, 4, 3}, 1).requires_grad_(true);
    auto packed = R::pack_padded_sequence(x, torch::tensor({4, 4, 1}), true, true);
    auto [py, hn] = m->forward_with_packed_input(packed);
    auto [y, lens] = R::pad_packed_sequence(py, true, -2.0, 6);
    digest("packed_gru.out", y);
    digest("packed_gru.h_n", hn);
    loss_of(y, hn).backward();
    digest("packed_gru.grad.x", x.grad());
    grads("packed_gru", *m);
  }
  {
    RNN m(RNNOptions(3, 4));
    m->to(torch::kDouble);
    set_params(*m);
    auto a = fill({2, 3}, 4), b = fill({4, 3}, 5), c = fill({3, 3}, 6);
    auto [py, hn] = m->forward_with_packed_input(R::pack_sequence({a, b, c}, false));
    digest("packed_rnn.data", py.data());
    digest("packed_rnn.h_n", hn);
  }

  std::printf("    // cells\n");
  {
    RNNCell m(RNNCellOptions(3, 4).nonlinearity(torch::kReLU));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({2, 3}, 1).requires_grad_(true), h = fill({2, 4}, 2).requires_grad_(true);
    auto y = m->forward(x, h);
    digest("rnn_cell.h", y);
    (y.reshape(-1) * w1(8)).sum().backward();
    digest("rnn_cell.grad.x", x.grad());
    digest("rnn_cell.grad.hx", h.grad());
    grads("rnn_cell", *m);
    // libtorch 2.15 needs the state here: without it, unbatched input fails ("Input batch size 1 doesn't
    // match hidden0 batch size 3"); Ember makes a zero state of the right shape.
    digest("rnn_cell.unbatched", m->forward(fill({3}, 1), fill({4}, 2)));
  }
  {
    LSTMCell m(LSTMCellOptions(3, 4));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({2, 3}, 1).requires_grad_(true), h = fill({2, 4}, 2).requires_grad_(true),
         c = fill({2, 4}, 3).requires_grad_(true);
    auto [h1, c1] = m->forward(x, std::make_tuple(h, c));
    digest("lstm_cell.h", h1);
    digest("lstm_cell.c", c1);
    loss_of(h1, c1).backward();
    digest("lstm_cell.grad.x", x.grad());
    digest("lstm_cell.grad.h", h.grad());
    digest("lstm_cell.grad.c", c.grad());
    grads("lstm_cell", *m);
    digest("lstm_cell.unbatched", std::get<1>(m->forward(fill({3}, 1), std::make_tuple(fill({4}, 2), fill({4}, 3)))));
  }
  {
    GRUCell m(GRUCellOptions(3, 4).bias(false));
    m->to(torch::kDouble);
    set_params(*m);
    auto x = fill({2, 3}, 1).requires_grad_(true), h = fill({2, 4}, 2).requires_grad_(true);
    auto y = m->forward(x, h);
    digest("gru_cell.h", y);
    (y.reshape(-1) * w1(8)).sum().backward();
    digest("gru_cell.grad.x", x.grad());
    digest("gru_cell.grad.hx", h.grad());
    grads("gru_cell", *m);
    digest("gru_cell.zero_state", m->forward(fill({2, 3}, 1)));
  }
}
