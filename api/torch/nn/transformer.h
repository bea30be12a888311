#pragma once
// Transformer layers of libtorch's C++ API: TransformerEncoderLayer, TransformerDecoderLayer,
// TransformerEncoder, TransformerDecoder and Transformer, with their options. Sequence-first
// (S, N, E) tensors and post-norm layers (x = norm(x + sublayer(x))), as libtorch's C++ frontend
// (which has no batch_first, norm_first or layer_norm_eps). Implemented in api/src/nn_transformer.cpp.
//   torch::nn::Transformer model(torch::nn::TransformerOptions(32, 4, 2, 2).dim_feedforward(64));
//   auto mask = torch::nn::TransformerImpl::generate_square_subsequent_mask(tgt.size(0));
//   auto out = model->forward(src, tgt, {}, mask);
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/enum.h>
#include <torch/nn/any.h>
#include <torch/nn/attention.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/modules.h>
#include <torch/nn/normalization.h>
#include <torch/nn/pimpl.h>
#include <functional>
#include <variant>

namespace torch::nn {

/// The feed-forward activation: torch::kReLU, torch::kGELU or any Tensor -> Tensor function.
using activation_t = std::variant<enumtype::kReLU, enumtype::kGELU, std::function<at::Tensor(const at::Tensor&)>>;

/// Options of TransformerEncoderLayer.
struct TransformerEncoderLayerOptions {
  /* implicit */ TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TORCH_ARG(int64_t, d_model);
  TORCH_ARG(int64_t, nhead);
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(activation_t, activation) = torch::kReLU;
};

/// Options of TransformerDecoderLayer.
struct TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TORCH_ARG(int64_t, d_model);
  TORCH_ARG(int64_t, nhead);
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(activation_t, activation) = torch::kReLU;
};

/// Self-attention then a feed-forward block, each added to its input and layer-normalised.
class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options_);
  void reset() override;
  /// Re-initialises every submodule's parameters.
  void reset_parameters();
  /// src (S, N, E); src_mask (S, S) or (N * nhead, S, S); src_key_padding_mask (N, S) bool.
  at::Tensor forward(const at::Tensor& src, const at::Tensor& src_mask = {},
                     const at::Tensor& src_key_padding_mask = {});

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
};
TORCH_MODULE(TransformerEncoderLayer);

/// Self-attention, attention over the encoder's memory, then a feed-forward block; each added to
/// its input and layer-normalised.
class TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options_);
  void reset() override;
  /// Re-initialises every submodule's parameters.
  void reset_parameters();
  /// tgt (T, N, E), memory (S, N, E); masks as MultiheadAttention's (tgt_mask (T, T), memory_mask (T, S)).
  at::Tensor forward(const at::Tensor& tgt, const at::Tensor& memory, const at::Tensor& tgt_mask = {},
                     const at::Tensor& memory_mask = {}, const at::Tensor& tgt_key_padding_mask = {},
                     const at::Tensor& memory_key_padding_mask = {});

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Dropout dropout1 = nullptr;
  LayerNorm norm1 = nullptr;
  MultiheadAttention multihead_attn = nullptr;
  Dropout dropout2 = nullptr;
  LayerNorm norm2 = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  Dropout dropout3 = nullptr;
  LayerNorm norm3 = nullptr;
};
TORCH_MODULE(TransformerDecoderLayer);

/// Options of TransformerEncoder: num_layers clones of encoder_layer, then the optional norm.
struct TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options, int64_t num_layers)
      : encoder_layer_(TransformerEncoderLayer(encoder_layer_options)), num_layers_(num_layers) {}
  TORCH_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  TORCH_ARG(int64_t, num_layers);
  /// Applied to the last layer's output when set (e.g. a LayerNorm).
  TORCH_ARG(AnyModule, norm);
};

/// Options of TransformerDecoder: num_layers clones of decoder_layer, then the optional norm.
struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options, int64_t num_layers)
      : decoder_layer_(TransformerDecoderLayer(decoder_layer_options)), num_layers_(num_layers) {}
  TORCH_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  TORCH_ARG(int64_t, num_layers);
  TORCH_ARG(AnyModule, norm);
};

/// A stack of encoder layers (each a clone of options.encoder_layer(), so all start equal).
class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(TransformerEncoderOptions options_);
  void reset() override;
  /// Re-initialises every layer's parameters and the norm's.
  void reset_parameters();
  /// Runs src (S, N, E) through every layer with the same masks, then the norm.
  at::Tensor forward(const at::Tensor& src, const at::Tensor& src_mask = {},
                     const at::Tensor& src_key_padding_mask = {});

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
TORCH_MODULE(TransformerEncoder);

/// A stack of decoder layers (each a clone of options.decoder_layer()).
class TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options_);
  void reset() override;
  /// Re-initialises every layer's parameters and the norm's.
  void reset_parameters();
  /// Runs tgt (T, N, E) through every layer against memory (S, N, E), then the norm.
  at::Tensor forward(const at::Tensor& tgt, const at::Tensor& memory, const at::Tensor& tgt_mask = {},
                     const at::Tensor& memory_mask = {}, const at::Tensor& tgt_key_padding_mask = {},
                     const at::Tensor& memory_key_padding_mask = {});

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
TORCH_MODULE(TransformerDecoder);

/// Options of Transformer. custom_encoder / custom_decoder, when set, must hold a
/// TransformerEncoder / TransformerDecoder (Ember's AnyModule runs only one-tensor forwards).
struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers, int64_t num_decoder_layers)
      : d_model_(d_model), nhead_(nhead), num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  TORCH_ARG(int64_t, d_model) = 512;
  TORCH_ARG(int64_t, nhead) = 8;
  TORCH_ARG(int64_t, num_encoder_layers) = 6;
  TORCH_ARG(int64_t, num_decoder_layers) = 6;
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(activation_t, activation) = torch::kReLU;
  TORCH_ARG(AnyModule, custom_encoder);
  TORCH_ARG(AnyModule, custom_decoder);
};

/// Encoder-decoder transformer: both stacks end with a LayerNorm; parameters of 2+ dims start
/// from xavier_uniform_.
class TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options_);
  void reset() override;
  /// xavier_uniform_ on every parameter of two or more dims.
  void reset_parameters();
  /// src (S, N, E), tgt (T, N, E) -> (T, N, E).
  at::Tensor forward(const at::Tensor& src, const at::Tensor& tgt, const at::Tensor& src_mask = {},
                     const at::Tensor& tgt_mask = {}, const at::Tensor& memory_mask = {},
                     const at::Tensor& src_key_padding_mask = {}, const at::Tensor& tgt_key_padding_mask = {},
                     const at::Tensor& memory_key_padding_mask = {});
  /// (sz, sz) float mask: 0 on and below the diagonal, -inf above (position i sees 0..i).
  static at::Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  AnyModule encoder;
  AnyModule decoder;
};
TORCH_MODULE(Transformer);

}  // namespace torch::nn

EMBER_PUBLIC_END
