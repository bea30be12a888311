#pragma once
// Multi-head attention: nn::MultiheadAttention, its options, and F::multi_head_attention_forward
// (libtorch's C++ API: sequence-first (L, N, E) tensors, no batch_first). The computation is in
// api/src/nn_attention.cpp. (The fused at::scaled_dot_product_attention is an op: ops.yaml.)
//   torch::nn::MultiheadAttention mha(torch::nn::MultiheadAttentionOptions(64, 8).dropout(0.1));
//   auto [out, weights] = mha->forward(q, k, v);   // out (L, N, 64), weights (N, L, S)
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/modules.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <ostream>
#include <tuple>

namespace torch::nn {

/// Options of MultiheadAttention: kdim and vdim (the key's and value's feature sizes) default to embed_dim.
struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  TORCH_ARG(int64_t, embed_dim);
  TORCH_ARG(int64_t, num_heads);
  /// Dropout probability on the attention weights (training only).
  TORCH_ARG(double, dropout) = 0.0;
  /// Biases of the input and output projections.
  TORCH_ARG(bool, bias) = true;
  /// Learned key and value rows (bias_k, bias_v) appended to every sequence.
  TORCH_ARG(bool, add_bias_kv) = false;
  /// A zero key and value appended to every sequence (after the projections).
  TORCH_ARG(bool, add_zero_attn) = false;
  TORCH_ARG(int64_t, kdim);
  TORCH_ARG(int64_t, vdim);
};

namespace functional {

/// Everything multi_head_attention_forward takes besides query, key and value.
struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads, at::Tensor in_proj_weight,
                                       at::Tensor in_proj_bias, at::Tensor bias_k, at::Tensor bias_v,
                                       bool add_zero_attn, double dropout_p, at::Tensor out_proj_weight,
                                       at::Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check), num_heads_(num_heads), in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)), bias_k_(std::move(bias_k)), bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn), dropout_p_(dropout_p), out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  TORCH_ARG(int64_t, embed_dim_to_check);
  TORCH_ARG(int64_t, num_heads);
  TORCH_ARG(at::Tensor, in_proj_weight);
  TORCH_ARG(at::Tensor, in_proj_bias);
  TORCH_ARG(at::Tensor, bias_k);
  TORCH_ARG(at::Tensor, bias_v);
  TORCH_ARG(bool, add_zero_attn);
  TORCH_ARG(double, dropout_p);
  TORCH_ARG(at::Tensor, out_proj_weight);
  TORCH_ARG(at::Tensor, out_proj_bias);
  TORCH_ARG(bool, training) = true;
  /// (N, S) bool: true marks a key position to ignore.
  TORCH_ARG(at::Tensor, key_padding_mask);
  TORCH_ARG(bool, need_weights) = true;
  /// (L, S) or (N * num_heads, L, S): a float mask is added to the scores, a bool one masks where true.
  TORCH_ARG(at::Tensor, attn_mask);
  TORCH_ARG(bool, use_separate_proj_weight) = false;
  TORCH_ARG(at::Tensor, q_proj_weight);
  TORCH_ARG(at::Tensor, k_proj_weight);
  TORCH_ARG(at::Tensor, v_proj_weight);
  /// Already projected keys / values, (N * num_heads, S, head_dim), used instead of projecting key / value.
  TORCH_ARG(at::Tensor, static_k);
  TORCH_ARG(at::Tensor, static_v);
  TORCH_ARG(bool, average_attn_weights) = true;
};

/// Multi-head attention over (L, N, E) query and (S, N, kdim / vdim) key and value: returns the
/// output (L, N, E) and, with need_weights, the attention weights (N, L, S), or (N, heads, L, S)
/// without average_attn_weights (else an undefined tensor).
std::tuple<at::Tensor, at::Tensor> multi_head_attention_forward(const at::Tensor& query, const at::Tensor& key,
                                                                const at::Tensor& value,
                                                                const MultiheadAttentionForwardFuncOptions& options);

}  // namespace functional

/// Multi-head attention with learned projections (parameters named as libtorch's: in_proj_weight
/// (3E, E) and in_proj_bias, or q/k/v_proj_weight when kdim or vdim differ from E; out_proj.*).
class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options_);
  /// Registers the projections and initialises them (xavier_uniform_ weights, zero biases,
  /// xavier_normal_ bias_k / bias_v).
  void reset() override;
  /// Re-initialises the parameters as reset() does.
  void _reset_parameters();
  /// query (L, N, E), key (S, N, kdim), value (S, N, vdim); see F::multi_head_attention_forward.
  std::tuple<at::Tensor, at::Tensor> forward(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                                             const at::Tensor& key_padding_mask = {}, bool need_weights = true,
                                             const at::Tensor& attn_mask = {}, bool average_attn_weights = true);
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::MultiheadAttention"; }

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim{};
  at::Tensor in_proj_weight;
  at::Tensor in_proj_bias;
  at::Tensor bias_k;
  at::Tensor bias_v;
  Linear out_proj = nullptr;
  at::Tensor q_proj_weight;
  at::Tensor k_proj_weight;
  at::Tensor v_proj_weight;
  int64_t head_dim{};
};
TORCH_MODULE(MultiheadAttention);

}  // namespace torch::nn

EMBER_PUBLIC_END
