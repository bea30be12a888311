// Records the reference values of tests/nn/test_attention.cpp from libtorch (not part of any build).
// Every parameter (in named_parameters() order, k = its index) and input is filled from a formula
// (fill below), the module runs in float64 in eval mode, and each result is reduced to two weighted
// sums (digest below); the test repeats the formulas against Ember. Build and run (repository root):
//   LT=.peer/libtorch; g++ -std=c++20 -O0 -D_GLIBCXX_USE_CXX11_ABI=1 -w -I$LT/include \
//     -I$LT/include/torch/csrc/api/include tests/nn/libtorch/record_attention.cpp -L$LT/lib -ltorch_cpu -lc10 \
//     -Wl,-rpath,$LT/lib -Wl,--allow-shlib-undefined -o /tmp/record_attention && /tmp/record_attention
#include <torch/torch.h>
#include <cstdio>
#include <string>

using torch::Tensor;
namespace nn = torch::nn;

// value j of a tensor filled with seed k: 0.5 sin(0.9 j + 1.7 k)
Tensor fill(at::IntArrayRef shape, int k) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return (torch::arange(n, torch::kDouble) * 0.9 + 1.7 * k).sin().mul(0.5).reshape(shape);
}
Tensor w1(int64_t n) { return (torch::arange(n, torch::kDouble) * 0.31 + 0.2).cos(); }
Tensor w2(int64_t n) {
  auto j = torch::arange(n, torch::kDouble);
  return (j * 1.13 + 0.5).sin() + j * 0.01;
}
double wdot(const Tensor& t, const Tensor& w) { return (t.contiguous().reshape(-1) * w).sum().item<double>(); }
void digest(const std::string& name, const Tensor& t) {
  auto n = t.numel();
  std::printf("      {\"%s\", {%.15g, %.15g}},\n", name.c_str(), wdot(t, w1(n)), wdot(t, w2(n)));
}
Tensor loss_of(const Tensor& t) { return (t.reshape(-1) * w1(t.numel())).sum(); }
void fill_params(nn::Module& m) {
  torch::NoGradGuard g;
  int k = 0;
  for (auto& p : m.named_parameters()) p.value().copy_(fill(p.value().sizes(), 10 + k++));
}
// Sum of every parameter gradient weighted by w2, one number.
double param_grads(nn::Module& m) {
  double s = 0;
  for (auto& p : m.parameters()) s += wdot(p.grad(), w2(p.numel()));
  return s;
}
Tensor leaf(at::IntArrayRef shape, int k) { return fill(shape, k).requires_grad_(true); }

int main() {
  std::printf("// libtorch %s\n", TORCH_VERSION);
  {  // MHA self-attention, bias, averaged weights
    nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 2));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto x = leaf({3, 2, 4}, 1);
    auto [out, w] = m->forward(x, x, x);
    (loss_of(out) + loss_of(w)).backward();
    digest("mha_self.out", out);
    digest("mha_self.w", w);
    digest("mha_self.dx", x.grad());
    std::printf("      {\"mha_self.dparams\", {%.15g, 0}},\n", param_grads(*m));
  }
  {  // MHA cross, kdim = vdim != embed_dim (libtorch requires key and value of one shape), bias_kv, zero_attn, float attn_mask, key padding, per-head weights
    nn::MultiheadAttention m(nn::MultiheadAttentionOptions(6, 3).kdim(5).vdim(5).add_bias_kv(true).add_zero_attn(true));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto q = leaf({2, 2, 6}, 2), k = leaf({4, 2, 5}, 3), v = leaf({4, 2, 5}, 4);
    auto mask = fill({2, 4}, 5);
    auto kpm = torch::tensor({false, true, false, false, true, false, false, false}, torch::kBool).reshape({2, 4});
    // libtorch appends the bias_kv / zero-attention columns to the masks itself; the masks cover S = 4.
    auto [out, w] = m->forward(q, k, v, kpm, true, mask, false);
    (loss_of(out) + loss_of(w)).backward();
    digest("mha_cross.out", out);
    digest("mha_cross.w", w);
    digest("mha_cross.dq", q.grad());
    digest("mha_cross.dk", k.grad());
    digest("mha_cross.dv", v.grad());
    std::printf("      {\"mha_cross.dparams\", {%.15g, 0}},\n", param_grads(*m));
  }
  {  // MHA without bias, query != key == value
    nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 1).bias(false));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto q = leaf({2, 3, 4}, 6), kv = leaf({5, 3, 4}, 7);
    auto [out, w] = m->forward(q, kv, kv);
    loss_of(out).backward();
    digest("mha_nobias.out", out);
    digest("mha_nobias.w", w);
    digest("mha_nobias.dkv", kv.grad());
  }
  {  // encoder layer, relu, causal mask and key padding
    nn::TransformerEncoderLayer m(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto x = leaf({3, 2, 4}, 8);
    auto mask = nn::TransformerImpl::generate_square_subsequent_mask(3).to(torch::kDouble);
    auto kpm = torch::tensor({false, false, true, false, false, false}, torch::kBool).reshape({2, 3});
    auto out = m->forward(x, mask, kpm);
    loss_of(out).backward();
    digest("enc_layer.out", out);
    digest("enc_layer.dx", x.grad());
    std::printf("      {\"enc_layer.dparams\", {%.15g, 0}},\n", param_grads(*m));
  }
  {  // decoder layer, gelu
    nn::TransformerDecoderLayer m(nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(5).activation(torch::kGELU));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto t = leaf({3, 2, 4}, 9), mem = leaf({4, 2, 4}, 10);
    auto mask = nn::TransformerImpl::generate_square_subsequent_mask(3).to(torch::kDouble);
    auto out = m->forward(t, mem, mask);
    loss_of(out).backward();
    digest("dec_layer.out", out);
    digest("dec_layer.dt", t.grad());
    digest("dec_layer.dmem", mem.grad());
    std::printf("      {\"dec_layer.dparams\", {%.15g, 0}},\n", param_grads(*m));
  }
  {  // full transformer, function activation
    nn::Transformer m(nn::TransformerOptions(4, 2, 2, 1).dim_feedforward(6).activation(
        [](const Tensor& x) { return torch::tanh(x); }));
    m->to(torch::kDouble);
    m->eval();
    fill_params(*m);
    auto src = leaf({4, 2, 4}, 11), tgt = leaf({3, 2, 4}, 12);
    auto out = m->forward(src, tgt, {}, nn::TransformerImpl::generate_square_subsequent_mask(3).to(torch::kDouble));
    loss_of(out).backward();
    digest("transformer.out", out);
    digest("transformer.dsrc", src.grad());
    digest("transformer.dtgt", tgt.grad());
    std::printf("      {\"transformer.dparams\", {%.15g, 0}},\n", param_grads(*m));
  }
  {  // SDPA with a fully masked row, gradients
    auto q = leaf({2, 3, 4}, 13), k = leaf({2, 5, 4}, 14), v = leaf({2, 5, 3}, 15);
    auto mask = torch::ones({3, 5}, torch::kBool);
    mask[1] = false;
    mask[0][2] = false;
    auto out = at::scaled_dot_product_attention(q, k, v, mask);
    loss_of(out).backward();
    digest("sdpa_dead_row.out", out);
    digest("sdpa_dead_row.dq", q.grad());
    digest("sdpa_dead_row.dk", k.grad());
    digest("sdpa_dead_row.dv", v.grad());
  }
}
