// nn::MultiheadAttention and F::multi_head_attention_forward, in ATen ops (linear, bmm, softmax,
// dropout), so autograd comes through the parts and CUDA tensors work unchanged.
//
// Note [Multi-head attention masks]
// Scores are (N * heads, L, S), head h of sample n at row n * heads + h (libtorch's layout). A float
// attn_mask is added to them; a bool attn_mask sets the scores where it is true to -inf (Python's
// meaning; libtorch's C++ frontend adds a bool mask as 0 / 1, which only shifts a row's scores, so no
// libtorch C++ program can rely on it). key_padding_mask must be bool, true marking keys to ignore.
// A query whose keys are all masked gets NaN weights and output, as in libtorch (unlike
// scaled_dot_product_attention, which gives 0).
#include <torch/nn/attention.h>
#include <torch/nn/init.h>
#include <ATen/core/GradMode.h>
#include <cmath>
#include <limits>
#include <sstream>

namespace torch::nn {
namespace functional {
namespace {

constexpr const char* kOp = "multi_head_attention_forward";

std::string shape_of(const at::Tensor& t) {
  std::ostringstream s;
  if (!t.defined()) return "undefined";
  s << t.sizes() << " " << t.scalar_type();
  return s.str();
}

// Rows [begin, end) of a projection bias, or undefined when there is no bias.
at::Tensor bias_rows(const at::Tensor& b, int64_t begin, int64_t end) {
  return b.defined() ? b.slice(0, begin, end) : at::Tensor();
}

void check_projection(const at::Tensor& w, const char* name, int64_t rows, int64_t cols) {
  EMBER_CHECK(w.defined() && w.dim() == 2 && w.size(0) == rows && w.size(1) == cols, "[", kOp, "] expected ", name,
              " of shape [", rows, ", ", cols, "]; got ", shape_of(w));
}

// Appends one column of zeros (false for a bool mask) to the last dim of a mask, for the key
// position that bias_k / add_zero_attn appends.
at::Tensor pad_mask(const at::Tensor& m) {
  if (!m.defined()) return m;
  auto sizes = m.sizes().vec();
  sizes.back() = 1;
  return at::cat({m, at::zeros(sizes, m.options())}, -1);
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> multi_head_attention_forward(const at::Tensor& query, const at::Tensor& key,
                                                                const at::Tensor& value,
                                                                const MultiheadAttentionForwardFuncOptions& o) {
  EMBER_CHECK(query.defined() && key.defined() && value.defined(), "[", kOp, "] expected defined query, key and value");
  EMBER_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3, "[", kOp,
              "] expected query (L, N, E), key (S, N, kdim) and value (S, N, vdim); got query ", shape_of(query),
              ", key ", shape_of(key), ", value ", shape_of(value));
  const int64_t L = query.size(0), N = query.size(1), E = query.size(2), H = o.num_heads();
  EMBER_CHECK(E == o.embed_dim_to_check(), "[", kOp, "] expected query.size(2) to be embed_dim (",
              o.embed_dim_to_check(), "); got query ", shape_of(query));
  EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == N && value.size(1) == N, "[", kOp,
              "] expected key and value of one length S and the query's batch size ", N, "; got key ",
              shape_of(key), ", value ", shape_of(value));
  EMBER_CHECK(H > 0 && E % H == 0, "[", kOp, "] expected num_heads (", H, ") to be positive and divide embed_dim (",
              E, ")");
  const int64_t D = E / H;

  // Projections.
  const at::Tensor& b = o.in_proj_bias();
  if (b.defined())
    EMBER_CHECK(b.dim() == 1 && b.size(0) == 3 * E, "[", kOp, "] expected in_proj_bias of shape [", 3 * E, "]; got ",
                shape_of(b));
  at::Tensor q, k, v;
  if (o.use_separate_proj_weight()) {
    check_projection(o.q_proj_weight(), "q_proj_weight", E, E);
    check_projection(o.k_proj_weight(), "k_proj_weight", E, key.size(2));
    check_projection(o.v_proj_weight(), "v_proj_weight", E, value.size(2));
    q = at::linear(query, o.q_proj_weight(), bias_rows(b, 0, E));
    k = at::linear(key, o.k_proj_weight(), bias_rows(b, E, 2 * E));
    v = at::linear(value, o.v_proj_weight(), bias_rows(b, 2 * E, 3 * E));
  } else {
    const at::Tensor& w = o.in_proj_weight();
    check_projection(w, "in_proj_weight", 3 * E, E);
    EMBER_CHECK(key.size(2) == E && value.size(2) == E, "[", kOp,
                "] expected key and value of embed_dim features with a packed in_proj_weight; got key ",
                shape_of(key), ", value ", shape_of(value), " (use separate projection weights for other sizes)");
    q = at::linear(query, w.slice(0, 0, E), bias_rows(b, 0, E));
    k = at::linear(key, w.slice(0, E, 2 * E), bias_rows(b, E, 2 * E));
    v = at::linear(value, w.slice(0, 2 * E, 3 * E), bias_rows(b, 2 * E, 3 * E));
  }
  q = q.mul(1.0 / std::sqrt(static_cast<double>(D)));

  at::Tensor attn_mask = o.attn_mask(), kpm = o.key_padding_mask();
  EMBER_CHECK(o.bias_k().defined() == o.bias_v().defined(), "[", kOp, "] expected bias_k and bias_v both or neither");
  if (o.bias_k().defined()) {
    EMBER_CHECK(!o.static_k().defined() && !o.static_v().defined(), "[", kOp,
                "] bias_k / bias_v cannot be appended to static_k / static_v");
    EMBER_CHECK(o.bias_k().numel() == E && o.bias_v().numel() == E, "[", kOp, "] expected bias_k and bias_v of ", E,
                " elements; got ", shape_of(o.bias_k()), " and ", shape_of(o.bias_v()));
    k = at::cat({k, o.bias_k().reshape({1, 1, E}).expand({1, N, E})}, 0);
    v = at::cat({v, o.bias_v().reshape({1, 1, E}).expand({1, N, E})}, 0);
    attn_mask = pad_mask(attn_mask);
    kpm = pad_mask(kpm);
  }

  // (len, N, E) -> (N * H, len, D): head h of sample n is row n * H + h.
  q = q.contiguous().view({L, N * H, D}).transpose(0, 1);
  k = k.contiguous().view({k.size(0), N * H, D}).transpose(0, 1);
  v = v.contiguous().view({v.size(0), N * H, D}).transpose(0, 1);
  for (const auto* st : {&o.static_k(), &o.static_v()}) {
    if (!st->defined()) continue;
    EMBER_CHECK(st->dim() == 3 && st->size(0) == N * H && st->size(2) == D, "[", kOp,
                "] expected static_k / static_v of shape [", N * H, ", S, ", D, "]; got ", shape_of(*st));
  }
  if (o.static_k().defined()) k = o.static_k();
  if (o.static_v().defined()) v = o.static_v();
  EMBER_CHECK(k.size(1) == v.size(1), "[", kOp, "] expected keys and values of one length; got ", k.size(1), " and ",
              v.size(1));
  if (o.add_zero_attn()) {
    k = at::cat({k, at::zeros({N * H, 1, D}, k.options())}, 1);
    v = at::cat({v, at::zeros({N * H, 1, D}, v.options())}, 1);
    attn_mask = pad_mask(attn_mask);
    kpm = pad_mask(kpm);
  }
  const int64_t S = k.size(1);

  // Scores and masks (Note [Multi-head attention masks]).
  const double neg_inf = -std::numeric_limits<double>::infinity();
  at::Tensor scores = at::bmm(q, k.transpose(1, 2));
  if (attn_mask.defined()) {
    const bool shape_ok = (attn_mask.dim() == 2 && attn_mask.size(0) == L && attn_mask.size(1) == S) ||
                          (attn_mask.dim() == 3 && attn_mask.size(0) == N * H && attn_mask.size(1) == L &&
                           attn_mask.size(2) == S);
    EMBER_CHECK(shape_ok, "[", kOp, "] expected attn_mask of shape [", L, ", ", S, "] or [", N * H, ", ", L, ", ", S,
                "]; got ", shape_of(attn_mask));
    EMBER_CHECK(attn_mask.scalar_type() == at::kBool || attn_mask.is_floating_point(), "[", kOp,
                "] expected a bool or floating point attn_mask; got ", shape_of(attn_mask));
    scores = attn_mask.scalar_type() == at::kBool ? scores.masked_fill(attn_mask, neg_inf) : scores.add(attn_mask);
  }
  if (kpm.defined()) {
    EMBER_CHECK(kpm.scalar_type() == at::kBool, "[", kOp, "] expected a bool key_padding_mask; got ", shape_of(kpm));
    EMBER_CHECK(kpm.dim() == 2 && kpm.size(0) == N && kpm.size(1) == S, "[", kOp,
                "] expected key_padding_mask of shape [", N, ", ", S, "]; got ", shape_of(kpm));
    scores = scores.view({N, H, L, S}).masked_fill(kpm.view({N, 1, 1, S}), neg_inf).view({N * H, L, S});
  }
  at::Tensor weights = at::softmax(scores, -1);
  if (o.dropout_p() > 0) weights = at::dropout(weights, o.dropout_p(), o.training());
  at::Tensor out = at::bmm(weights, v).transpose(0, 1).contiguous().view({L, N, E});
  out = at::linear(out, o.out_proj_weight(), o.out_proj_bias().defined() ? std::optional<at::Tensor>(o.out_proj_bias())
                                                                          : std::nullopt);
  if (!o.need_weights()) return {out, at::Tensor()};
  weights = weights.view({N, H, L, S});
  if (o.average_attn_weights()) weights = weights.sum(1).div(static_cast<double>(H));
  return {out, weights};
}

}  // namespace functional

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_) : options(options_) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t E = options.embed_dim(), H = options.num_heads();
  EMBER_CHECK(E > 0 && H > 0 && E % H == 0, "[MultiheadAttention] expected num_heads (", H,
              ") to be positive and divide embed_dim (", E, ")");
  EMBER_CHECK(options.kdim() > 0 && options.vdim() > 0, "[MultiheadAttention] expected positive kdim and vdim; got ",
              options.kdim(), " and ", options.vdim());
  head_dim = E / H;
  _qkv_same_embed_dim = options.kdim() == E && options.vdim() == E;
  if (_qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", at::empty({3 * E, E}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", at::empty({E, E}));
    k_proj_weight = register_parameter("k_proj_weight", at::empty({E, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", at::empty({E, options.vdim()}));
  }
  if (options.bias()) in_proj_bias = register_parameter("in_proj_bias", at::empty({3 * E}));
  out_proj = register_module("out_proj", Linear(LinearOptions(E, E).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", at::empty({1, 1, E}));
    bias_v = register_parameter("bias_v", at::empty({1, 1, E}));
  }
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  at::NoGradGuard no_grad;
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<at::Tensor, at::Tensor> MultiheadAttentionImpl::forward(const at::Tensor& query, const at::Tensor& key,
                                                                   const at::Tensor& value,
                                                                   const at::Tensor& key_padding_mask,
                                                                   bool need_weights, const at::Tensor& attn_mask,
                                                                   bool average_attn_weights) {
  namespace F = functional;
  auto opts = F::MultiheadAttentionForwardFuncOptions(options.embed_dim(), options.num_heads(), in_proj_weight,
                                                      in_proj_bias, bias_k, bias_v, options.add_zero_attn(),
                                                      options.dropout(), out_proj->weight, out_proj->bias)
                  .training(is_training())
                  .key_padding_mask(key_padding_mask)
                  .need_weights(need_weights)
                  .attn_mask(attn_mask)
                  .average_attn_weights(average_attn_weights);
  if (!_qkv_same_embed_dim)
    opts.use_separate_proj_weight(true).q_proj_weight(q_proj_weight).k_proj_weight(k_proj_weight).v_proj_weight(
        v_proj_weight);
  return F::multi_head_attention_forward(query, key, value, opts);
}

}  // namespace torch::nn
