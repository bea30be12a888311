// Transformer layers (api/torch/nn/transformer.h): post-norm blocks over MultiheadAttention,
// Linear, Dropout and LayerNorm, registered under libtorch's names and in its order, so
// named_parameters() and printing match it.
#include <torch/nn/transformer.h>
#include <torch/nn/init.h>
#include <ATen/core/GradMode.h>
#include <limits>

namespace torch::nn {
namespace {

at::Tensor activate(const activation_t& activation, const at::Tensor& x) {
  if (std::holds_alternative<enumtype::kGELU>(activation)) return at::gelu(x, "none");
  if (std::holds_alternative<enumtype::kReLU>(activation)) return at::relu(x);
  const auto& f = std::get<std::function<at::Tensor(const at::Tensor&)>>(activation);
  EMBER_CHECK(static_cast<bool>(f), "[Transformer] the activation function is empty");
  return f(x);
}

void check_heads(const char* layer, int64_t d_model, int64_t nhead) {
  EMBER_CHECK(d_model > 0 && nhead > 0 && d_model % nhead == 0, "[", layer, "] expected nhead (", nhead,
              ") to be positive and divide d_model (", d_model, ")");
}

// Re-draws the parameters of a module and its descendants through their own reset_parameters rules.
void reset_linear_and_norms(Module& m) {
  for (auto& child : m.modules(/*include_self=*/false)) {
    if (auto* lin = dynamic_cast<LinearImpl*>(child.get())) lin->reset_parameters();
    if (auto* mha = dynamic_cast<MultiheadAttentionImpl*>(child.get())) mha->_reset_parameters();
    if (auto* ln = dynamic_cast<LayerNormImpl*>(child.get())) ln->reset_parameters();
  }
}

}  // namespace

// ---------------------------------------------------------------- encoder layer

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  check_heads("TransformerEncoderLayer", options.d_model(), options.nhead());
  const int64_t E = options.d_model();
  self_attn = register_module(
      "self_attn", MultiheadAttention(MultiheadAttentionOptions(E, options.nhead()).dropout(options.dropout())));
  linear1 = register_module("linear1", Linear(E, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), E));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({E})));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({E})));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() { reset_linear_and_norms(*this); }

at::Tensor TransformerEncoderLayerImpl::forward(const at::Tensor& src, const at::Tensor& src_mask,
                                                const at::Tensor& src_key_padding_mask) {
  at::Tensor attended = std::get<0>(self_attn->forward(src, src, src, src_key_padding_mask, /*need_weights=*/false,
                                                       src_mask));
  at::Tensor x = norm1->forward(src + dropout1->forward(attended));
  at::Tensor ff = linear2->forward(dropout->forward(activate(options.activation(), linear1->forward(x))));
  return norm2->forward(x + dropout2->forward(ff));
}

// ---------------------------------------------------------------- decoder layer

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  check_heads("TransformerDecoderLayer", options.d_model(), options.nhead());
  const int64_t E = options.d_model();
  const auto mha = MultiheadAttentionOptions(E, options.nhead()).dropout(options.dropout());
  // libtorch's registration order (printing and named_parameters follow it).
  self_attn = register_module("self_attn", MultiheadAttention(mha));
  multihead_attn = register_module("multihead_attn", MultiheadAttention(mha));
  linear1 = register_module("linear1", Linear(E, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), E));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({E})));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({E})));
  norm3 = register_module("norm3", LayerNorm(LayerNormOptions({E})));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
  dropout3 = register_module("dropout3", Dropout(options.dropout()));
}

void TransformerDecoderLayerImpl::reset_parameters() { reset_linear_and_norms(*this); }

at::Tensor TransformerDecoderLayerImpl::forward(const at::Tensor& tgt, const at::Tensor& memory,
                                                const at::Tensor& tgt_mask, const at::Tensor& memory_mask,
                                                const at::Tensor& tgt_key_padding_mask,
                                                const at::Tensor& memory_key_padding_mask) {
  at::Tensor x = tgt;
  at::Tensor a = std::get<0>(self_attn->forward(x, x, x, tgt_key_padding_mask, /*need_weights=*/false, tgt_mask));
  x = norm1->forward(x + dropout1->forward(a));
  a = std::get<0>(multihead_attn->forward(x, memory, memory, memory_key_padding_mask, /*need_weights=*/false,
                                          memory_mask));
  x = norm2->forward(x + dropout2->forward(a));
  a = linear2->forward(dropout->forward(activate(options.activation(), linear1->forward(x))));
  return norm3->forward(x + dropout3->forward(a));
}

// ---------------------------------------------------------------- stacks

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_) : options(std::move(options_)) {
  reset();
}

void TransformerEncoderImpl::reset() {
  EMBER_CHECK(!options.encoder_layer().is_empty(), "[TransformerEncoder] expected an encoder_layer; got none");
  EMBER_CHECK(options.num_layers() >= 0, "[TransformerEncoder] expected num_layers >= 0; got ", options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(options.encoder_layer()->clone());
  norm = AnyModule();
  if (!options.norm().is_empty()) {
    norm = options.norm().clone();
    register_module("norm", norm.ptr());
  }
}

void TransformerEncoderImpl::reset_parameters() { reset_linear_and_norms(*this); }

at::Tensor TransformerEncoderImpl::forward(const at::Tensor& src, const at::Tensor& src_mask,
                                           const at::Tensor& src_key_padding_mask) {
  at::Tensor x = src;
  for (size_t i = 0; i < layers->size(); ++i)
    x = layers->at<TransformerEncoderLayerImpl>(i).forward(x, src_mask, src_key_padding_mask);
  return norm.is_empty() ? x : norm.forward(x);
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_) : options(std::move(options_)) {
  reset();
}

void TransformerDecoderImpl::reset() {
  EMBER_CHECK(!options.decoder_layer().is_empty(), "[TransformerDecoder] expected a decoder_layer; got none");
  EMBER_CHECK(options.num_layers() >= 0, "[TransformerDecoder] expected num_layers >= 0; got ", options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(options.decoder_layer()->clone());
  norm = AnyModule();
  if (!options.norm().is_empty()) {
    norm = options.norm().clone();
    register_module("norm", norm.ptr());
  }
}

void TransformerDecoderImpl::reset_parameters() { reset_linear_and_norms(*this); }

at::Tensor TransformerDecoderImpl::forward(const at::Tensor& tgt, const at::Tensor& memory, const at::Tensor& tgt_mask,
                                           const at::Tensor& memory_mask, const at::Tensor& tgt_key_padding_mask,
                                           const at::Tensor& memory_key_padding_mask) {
  at::Tensor x = tgt;
  for (size_t i = 0; i < layers->size(); ++i)
    x = layers->at<TransformerDecoderLayerImpl>(i).forward(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                                           memory_key_padding_mask);
  return norm.is_empty() ? x : norm.forward(x);
}

// ---------------------------------------------------------------- Transformer

TransformerImpl::TransformerImpl(TransformerOptions options_) : options(std::move(options_)) { reset(); }

void TransformerImpl::reset() {
  const int64_t E = options.d_model();
  if (options.custom_encoder().is_empty()) {
    auto layer = TransformerEncoderLayerOptions(E, options.nhead())
                     .dim_feedforward(options.dim_feedforward())
                     .dropout(options.dropout())
                     .activation(options.activation());
    encoder = AnyModule(TransformerEncoder(TransformerEncoderOptions(layer, options.num_encoder_layers())
                                               .norm(AnyModule(LayerNorm(LayerNormOptions({E}))))));
  } else {
    encoder = options.custom_encoder().clone();
  }
  if (options.custom_decoder().is_empty()) {
    auto layer = TransformerDecoderLayerOptions(E, options.nhead())
                     .dim_feedforward(options.dim_feedforward())
                     .dropout(options.dropout())
                     .activation(options.activation());
    decoder = AnyModule(TransformerDecoder(TransformerDecoderOptions(layer, options.num_decoder_layers())
                                               .norm(AnyModule(LayerNorm(LayerNormOptions({E}))))));
  } else {
    decoder = options.custom_decoder().clone();
  }
  EMBER_CHECK(dynamic_cast<TransformerEncoderImpl*>(encoder.ptr().get()) != nullptr,
              "[Transformer] custom_encoder must hold a TransformerEncoder; got ", encoder.ptr()->name());
  EMBER_CHECK(dynamic_cast<TransformerDecoderImpl*>(decoder.ptr().get()) != nullptr,
              "[Transformer] custom_decoder must hold a TransformerDecoder; got ", decoder.ptr()->name());
  register_module("encoder", encoder.ptr());
  register_module("decoder", decoder.ptr());
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  at::NoGradGuard no_grad;
  for (auto& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

at::Tensor TransformerImpl::forward(const at::Tensor& src, const at::Tensor& tgt, const at::Tensor& src_mask,
                                    const at::Tensor& tgt_mask, const at::Tensor& memory_mask,
                                    const at::Tensor& src_key_padding_mask, const at::Tensor& tgt_key_padding_mask,
                                    const at::Tensor& memory_key_padding_mask) {
  EMBER_CHECK(src.defined() && tgt.defined() && src.dim() == 3 && tgt.dim() == 3,
              "[Transformer] expected src (S, N, E) and tgt (T, N, E); got ", src.dim(), "-D and ", tgt.dim(), "-D");
  EMBER_CHECK(src.size(1) == tgt.size(1), "[Transformer] expected src and tgt of one batch size; got ", src.size(1),
              " and ", tgt.size(1));
  EMBER_CHECK(src.size(2) == options.d_model() && tgt.size(2) == options.d_model(),
              "[Transformer] expected src and tgt of d_model (", options.d_model(), ") features; got ", src.size(2),
              " and ", tgt.size(2));
  at::Tensor memory = encoder.get<TransformerEncoderImpl>().forward(src, src_mask, src_key_padding_mask);
  return decoder.get<TransformerDecoderImpl>().forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                                       memory_key_padding_mask);
}

at::Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  EMBER_CHECK(sz >= 0, "[Transformer] expected a non-negative mask size; got ", sz);
  return at::full({sz, sz}, -std::numeric_limits<float>::infinity()).triu(1);
}

}  // namespace torch::nn
