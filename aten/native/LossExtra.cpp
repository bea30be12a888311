// The regression, binary, divergence, margin and likelihood losses of torch.nn (issue #6), as
// composites of differentiable primitives: autograd differentiates through the parts, on every
// device that has them. Reductions follow libtorch: the mean of zero elements is NaN.
#include <ATen/native/NativeFunctions.h>
#include <ATen/core/GradMode.h>
#include <cmath>

namespace at::native {
namespace {

Tensor reduce_loss(const Tensor& loss, int64_t reduction, const char* op) {
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Mean: return loss.mean();
    case Reduction::Sum: return loss.sum();
    default: throw c10::Error(c10::str("[", op, "] expected reduction None (0), Mean (1) or Sum (2); got ", reduction));
  }
}

void check_floating(const Tensor& t, const char* op, const char* name) {
  EMBER_CHECK(isFloatingType(t.scalar_type()), "[", op, "] expected a floating point ", name, "; got ", t.scalar_type());
}

void check_same_sizes(const Tensor& a, const Tensor& b, const char* op, const char* an, const char* bn) {
  EMBER_CHECK(a.sizes() == b.sizes(), "[", op, "] expected ", an, " and ", bn, " of one shape; got ", a.sizes(), " and ",
              b.sizes());
}

// xlogy(t, t): t * log(t) with 0 * log(0) = 0. Its gradient at t = 0 is NaN, as libtorch's.
Tensor t_log_t(const Tensor& t) { return at::where(at::eq(t, 0), at::zeros_like(t), t * at::log(t)); }

}  // namespace

Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  EMBER_CHECK(beta >= 0, "[smooth_l1_loss] expected beta >= 0; got ", beta);
  const Tensor d = at::sub(self, target);
  // The quadratic part has no width: L1, with libtorch's slope -1 at d = 0.
  if (beta == 0) return reduce_loss(at::where(d <= 0, at::neg(d), d), reduction, "smooth_l1_loss");
  const Tensor z = at::abs(d);
  const Tensor loss = at::where(z < beta, z * z * (0.5 / beta), z - 0.5 * beta);
  return reduce_loss(loss, reduction, "smooth_l1_loss");
}

Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  EMBER_CHECK(delta > 0, "[huber_loss] expected delta > 0; got ", delta);
  const Tensor z = at::abs(at::sub(self, target));
  const Tensor loss = at::where(z < delta, z * z * 0.5, (z - 0.5 * delta) * delta);
  return reduce_loss(loss, reduction, "huber_loss");
}

Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  check_same_sizes(self, target, "binary_cross_entropy", "input", "target");
  check_floating(self, "binary_cross_entropy", "input");
  if (self.numel() > 0 && !self.is_meta()) {  // (a meta input has no values to check)
    const bool in_range = at::logical_and(self >= 0, self <= 1).all().item<bool>();
    EMBER_CHECK(in_range, "[binary_cross_entropy] expected input probabilities in [0, 1]; got a value outside "
                "(or NaN), input ", self.sizes(), " ", self.scalar_type());
  }
  // Each log is held at -100 or above, so a confident wrong answer costs 100, not infinity.
  const Tensor log_p = at::clamp_min(at::log(self), -100);
  const Tensor log_q = at::clamp_min(at::log1p(at::neg(self)), -100);
  Tensor loss = at::neg(target * log_p + (1 - target) * log_q);
  if (weight && weight->defined()) loss = loss * *weight;
  return reduce_loss(loss, reduction, "binary_cross_entropy");
}

Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  check_same_sizes(self, target, "binary_cross_entropy_with_logits", "input", "target");
  check_floating(self, "binary_cross_entropy_with_logits", "input");
  // -[p y log s(x) + (1 - y) log(1 - s(x))] = (1 - y) x - (1 + (p - 1) y) log s(x), with log s(x)
  // from log_sigmoid, which is finite for every finite x.
  Tensor positive_scale = (pos_weight && pos_weight->defined()) ? (*pos_weight - 1) * target + 1 : at::ones_like(target);
  Tensor loss = (1 - target) * self - positive_scale * at::log_sigmoid(self);
  if (weight && weight->defined()) loss = loss * *weight;
  return reduce_loss(loss, reduction, "binary_cross_entropy_with_logits");
}

Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  // self holds log-probabilities; target probabilities (or their logs with log_target).
  const Tensor loss = log_target ? at::exp(target) * (target - self) : t_log_t(target) - target * self;
  return reduce_loss(loss, reduction, "kl_div");
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           int64_t reduction) {
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
              "[margin_ranking_loss] expected input1, input2 and target of one rank; got shapes ", input1.sizes(), ", ",
              input2.sizes(), " and ", target.sizes());
  const Tensor loss = at::clamp_min(at::neg(target) * (input1 - input2) + margin, 0);
  return reduce_loss(loss, reduction, "margin_ranking_loss");
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             int64_t reduction) {
  const char* op = "cosine_embedding_loss";
  EMBER_CHECK(target.dim() <= 1, "[", op, "] expected a 0-D or 1-D target (one label per pair); got shape ",
              target.sizes());
  const int64_t want = target.dim() + 1;
  EMBER_CHECK(input1.dim() == want && input2.dim() == want, "[", op, "] expected ", want, "-D inputs for a ",
              target.dim(), "-D target; got shapes ", input1.sizes(), " and ", input2.sizes());
  const int64_t d = target.dim();  // the feature dim
  // A tiny constant under the square root keeps all-zero vectors from dividing by zero.
  constexpr double kTiny = 1e-12;
  const Tensor dot = (input1 * input2).sum(d);
  const Tensor n1 = (input1 * input1).sum(d) + kTiny;
  const Tensor n2 = (input2 * input2).sum(d) + kTiny;
  const Tensor cos = dot / at::sqrt(n1 * n2);
  const Tensor zero = at::zeros_like(cos);
  const Tensor loss = at::where(target == 1, 1 - cos, zero) + at::where(target == -1, at::clamp_min(cos - margin, 0), zero);
  return reduce_loss(loss, reduction, op);
}

Tensor hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin, int64_t reduction) {
  // Label 1 costs x, label -1 costs max(0, margin - x); any other label pays both terms.
  const Tensor zero = at::zeros_like(self);
  const Tensor loss = at::where(target != -1, self, zero) + at::where(target != 1, at::clamp_min(margin - self, 0), zero);
  return reduce_loss(loss, reduction, "hinge_embedding_loss");
}

Tensor soft_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return reduce_loss(at::log1p(at::exp(at::neg(target) * self)), reduction, "soft_margin_loss");
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin, double p,
                           double eps, bool swap, int64_t reduction) {
  const char* op = "triplet_margin_loss";
  EMBER_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(), "[", op,
              "] expected anchor, positive and negative of one rank; got shapes ", anchor.sizes(), ", ",
              positive.sizes(), " and ", negative.sizes());
  EMBER_CHECK(anchor.dim() >= 1, "[", op, "] expected inputs of at least 1 dim (features last); got 0-dim tensors");
  // The p-norm of a - b + eps over the last dim (eps keeps the norm of equal vectors differentiable).
  auto distance = [&](const Tensor& a, const Tensor& b) {
    return at::norm(a - b + eps, c10::Scalar(p), std::vector<int64_t>{-1}, false);
  };
  const Tensor d_pos = distance(anchor, positive);
  Tensor d_neg = distance(anchor, negative);
  if (swap) d_neg = at::minimum(d_neg, distance(positive, negative));
  return reduce_loss(at::clamp_min(d_pos - d_neg + margin, 0), reduction, op);
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        int64_t reduction) {
  // Negative log-likelihood of target under Poisson(rate), rate = exp(input) or input, dropping
  // log(target!) unless `full` adds its Stirling approximation (for targets above 1).
  Tensor loss = log_input ? at::exp(input) - target * input : input - target * at::log(input + eps);
  if (full) {
    const Tensor big = target > 1;
    const Tensor safe = at::where(big, target, at::ones_like(target));
    const Tensor stirling = safe * at::log(safe) - safe + 0.5 * at::log(safe * (2 * M_PI));
    loss = loss + at::where(big, stirling, at::zeros_like(stirling));
  }
  return reduce_loss(loss, reduction, "poisson_nll_loss");
}

}  // namespace at::native
