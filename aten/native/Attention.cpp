// scaled_dot_product_attention: a composite over matmul, where/add, softmax and dropout, so one
// definition serves every backend and autograd comes through the parts.
//
// Note [Rows with every key masked]
// A query row whose scores are all -inf (every key masked out, by a boolean mask, a float mask of
// -inf or the causal mask when S < L cannot happen, but a user mask can) has no defined softmax.
// libtorch (2.15, CPU) returns 0 for such a row and passes it no gradient; so do we: the row's
// scores are replaced by 0 before the softmax (so no NaN enters the graph, whose backward would
// spread it) and its weights are zeroed after.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/MatmulUtils.h>
#include <cmath>
#include <limits>
#include <vector>

namespace at::native {
namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

// True when the leading (batch) dims of a and b broadcast: each pair, aligned from the right,
// equal or one of them 1.
bool batch_dims_broadcast(const Tensor& a, const Tensor& b) {
  const int64_t na = a.dim() - 2, nb = b.dim() - 2;
  for (int64_t i = 1; i <= std::min(na, nb); ++i) {
    const int64_t x = a.size(na - i), y = b.size(nb - i);
    if (x != y && x != 1 && y != 1) return false;
  }
  return true;
}

// Whether `mask` broadcasts to `shape` (no dim of the mask may grow the result).
bool broadcasts_to(const Tensor& mask, IntArrayRef shape) {
  const int64_t n = static_cast<int64_t>(shape.size());
  if (mask.dim() > n) return false;
  for (int64_t i = 1; i <= mask.dim(); ++i) {
    const int64_t m = mask.size(mask.dim() - i), s = shape[static_cast<size_t>(n - i)];
    if (m != s && m != 1) return false;
  }
  return true;
}

void check_inputs(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& mask,
                  double dropout_p, bool is_causal) {
  using matmul_utils::describe;
  EMBER_CHECK(q.defined() && k.defined() && v.defined(), "[", kOp, "] expected defined query, key and value");
  EMBER_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, "[", kOp,
              "] expected query, key and value of at least 2 dims (..., L or S, E); got query ", describe(q), ", key ",
              describe(k), ", value ", describe(v));
  EMBER_CHECK(q.scalar_type() == k.scalar_type() && q.scalar_type() == v.scalar_type(), "[", kOp,
              "] expected query, key and value of one dtype; got query ", describe(q), ", key ", describe(k),
              ", value ", describe(v));
  EMBER_CHECK(isFloatingType(q.scalar_type()), "[", kOp, "] expected floating point query, key and value; got ",
              describe(q));
  EMBER_CHECK(q.device() == k.device() && q.device() == v.device(), "[", kOp,
              "] expected query, key and value on one device; got ", describe(q), ", ", describe(k), ", ",
              describe(v));
  EMBER_CHECK(k.size(-1) == q.size(-1), "[", kOp, "] expected key.size(-1) (", k.size(-1),
              ") to equal query.size(-1) (", q.size(-1), "); query ", describe(q), ", key ", describe(k));
  EMBER_CHECK(k.size(-2) == v.size(-2), "[", kOp, "] expected key and value of one sequence length S; got key ",
              describe(k), ", value ", describe(v));
  EMBER_CHECK(dropout_p >= 0 && dropout_p <= 1, "[", kOp, "] expected dropout_p in [0, 1]; got ", dropout_p);
  if (mask.has_value() && mask->defined()) {
    EMBER_CHECK(!is_causal, "[", kOp, "] expected either attn_mask or is_causal=true, not both");
    EMBER_CHECK(mask->scalar_type() == kBool || mask->scalar_type() == q.scalar_type(), "[", kOp,
                "] expected a bool attn_mask or one of the query's dtype (", q.scalar_type(), "); got ",
                describe(*mask));
    EMBER_CHECK(mask->device() == q.device(), "[", kOp, "] expected attn_mask on the query's device; got ",
                describe(*mask));
  }
}

// With enable_gqa, key and value heads (dim -3) are repeated to the query's head count, each head
// serving query.size(-3) / key.size(-3) consecutive query heads.
Tensor repeat_heads(const Tensor& t, const Tensor& q, const char* name) {
  if (q.dim() < 3 || t.dim() < 3 || t.size(-3) == q.size(-3)) return t;
  const int64_t hq = q.size(-3), ht = t.size(-3);
  EMBER_CHECK(ht > 0 && hq % ht == 0, "[", kOp, "] with enable_gqa, the ", name, " heads (", ht,
              ") must divide the query heads (", hq, ")");
  return t.repeat_interleave(hq / ht, t.dim() - 3);
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  using matmul_utils::describe;
  check_inputs(query, key, value, attn_mask, dropout_p, is_causal);
  Tensor k = key, v = value;
  if (enable_gqa) {
    k = repeat_heads(key, query, "key");
    v = repeat_heads(value, query, "value");
  }
  EMBER_CHECK(batch_dims_broadcast(query, k) && batch_dims_broadcast(query, v), "[", kOp,
              "] expected the batch dims of query, key and value to broadcast; got query ", describe(query), ", key ",
              describe(key), ", value ", describe(value), enable_gqa ? "" : " (enable_gqa is false)");
  const double s = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  Tensor scores = at::matmul(query, k.transpose(-2, -1)).mul(s);

  const double neg_inf = -std::numeric_limits<double>::infinity();
  if (is_causal) {
    // Query i sees keys 0..i (the top-left-aligned lower triangle, also when L != S).
    Tensor keep = at::ones({query.size(-2), k.size(-2)}, TensorOptions().dtype(kBool).device(query.device())).tril();
    scores = at::where(keep, scores, Scalar(neg_inf));
  } else if (attn_mask.has_value() && attn_mask->defined()) {
    const Tensor& m = *attn_mask;
    EMBER_CHECK(broadcasts_to(m, scores.sizes()), "[", kOp, "] expected attn_mask to broadcast to the scores (",
                scores.sizes(), ", i.e. (..., L, S)); got ", describe(m));
    scores = m.scalar_type() == kBool ? at::where(m, scores, Scalar(neg_inf)) : scores.add(m);
  }

  // See Note [Rows with every key masked].
  Tensor dead = scores.eq(Scalar(neg_inf)).all(-1, /*keepdim=*/true);
  Tensor weights = at::softmax(at::where(dead, Scalar(0.0), scores), -1);
  weights = at::where(dead, Scalar(0.0), weights);
  if (dropout_p > 0) weights = at::dropout(weights, dropout_p, /*train=*/true);
  return at::matmul(weights, v);
}

}  // namespace at::native
