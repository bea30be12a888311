// Losses as composites of differentiable primitives (their gradients come from the primitives').
#include <ATen/native/NativeFunctions.h>

namespace at::native {
namespace {

Tensor reduce(const Tensor& loss, int64_t reduction, const char* op) {
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Mean: return loss.mean();
    case Reduction::Sum: return loss.sum();
    default: throw c10::Error(c10::str("[", op, "] expected reduction None (0), Mean (1) or Sum (2); got ", reduction));
  }
}

void check_same_shape(const Tensor& self, const Tensor& target, const char* op) {
  EMBER_CHECK(self.sizes() == target.sizes(), "[", op, "] expected input and target of one shape; got ", self.sizes(),
              " and ", target.sizes());
}

// Class-index targets against inputs with classes in dim 1 ((C), (N, C) or (N, C, d1, ...)):
// returns the input with classes moved last, and checks the target's shape and values.
struct ClassTargets {
  Tensor input;   // (..., C)
  Tensor target;  // (...), int64, ignored entries replaced by class 0
  Tensor valid;   // (...), bool: target != ignore_index
  int64_t classes = 0;
};

ClassTargets class_targets(const Tensor& self, const Tensor& target, int64_t ignore_index, const char* op) {
  EMBER_CHECK(self.dim() >= 1, "[", op, "] expected an input of at least 1 dim (classes); got a 0-dim tensor");
  EMBER_CHECK(target.scalar_type() == kLong || target.scalar_type() == kInt || target.scalar_type() == kByte,
              "[", op, "] expected class-index targets of an integer dtype (Long); got ", target.scalar_type());
  ClassTargets r;
  if (self.dim() == 1) {
    EMBER_CHECK(target.dim() == 0, "[", op, "] expected a 0-dim target for an input of shape ", self.sizes(), "; got shape ",
                target.sizes());
    r.input = self.unsqueeze(0);
    r.target = target.unsqueeze(0);
  } else {
    std::vector<int64_t> want = self.sizes().vec();
    want.erase(want.begin() + 1);
    EMBER_CHECK(target.sizes().vec() == want, "[", op, "] expected a target of shape ", c10::IntArrayRef(want),
                " for an input of shape ", self.sizes(), "; got ", target.sizes());
    std::vector<int64_t> perm{0};
    for (int64_t d = 2; d < self.dim(); ++d) perm.push_back(d);
    perm.push_back(1);
    r.input = self.permute(perm);
    r.target = target;
  }
  r.classes = r.input.size(-1);
  r.target = r.target.to(kLong);
  r.valid = at::ne(r.target, ignore_index);
  r.target = at::where(r.valid, r.target, at::zeros_like(r.target));
  if (r.target.numel() > 0 && !r.target.is_meta()) {  // (meta targets have no values to check)
    const Tensor bad = at::logical_or(at::lt(r.target, 0), at::ge(r.target, r.classes));
    if (bad.any().item<bool>()) {
      const int64_t v = r.target.masked_select(bad).flatten()[0].item<int64_t>();
      throw c10::IndexError(c10::str("[", op, "] expected target values in [0, ", r.classes, ") or ignore_index ",
                                     ignore_index, "; got ", v));
    }
  }
  return r;
}

// Per-target weights (zero where ignored), shaped like the target.
Tensor target_weights(const ClassTargets& t, const std::optional<Tensor>& weight, const Tensor& like, const char* op) {
  Tensor w;
  if (weight && weight->defined()) {
    EMBER_CHECK(weight->dim() == 1 && weight->size(0) == t.classes, "[", op, "] expected a weight of shape [", t.classes,
                "]; got ", weight->sizes());
    w = weight->index_select(0, t.target.flatten()).view(t.target.sizes());
  } else {
    w = at::ones(t.target.sizes(), like.options());
  }
  return at::where(t.valid, w, at::zeros_like(w));
}

}  // namespace

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "[nll_loss] expected a 1-D or 2-D input (nll_loss_nd takes more); got ",
              self.dim(), " dims");
  return at::nll_loss_nd(self, target, weight, reduction, ignore_index);
}

Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                   int64_t ignore_index) {
  const ClassTargets t = class_targets(self, target, ignore_index, "nll_loss");
  const Tensor w = target_weights(t, weight, self, "nll_loss");
  const Tensor picked = t.input.gather(-1, t.target.unsqueeze(-1)).squeeze(-1);
  // Ignored entries contribute exactly 0, even where the picked value is infinite.
  Tensor loss = at::where(t.valid, at::neg(picked) * w, at::zeros_like(picked));
  if (self.dim() == 1) loss = loss.squeeze(0);
  if (reduction == Reduction::Mean) return loss.sum() / w.sum();  // 0/0 = NaN when all are ignored
  return reduce(loss, reduction, "nll_loss");
}

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  EMBER_CHECK(label_smoothing >= 0 && label_smoothing <= 1, "[cross_entropy] expected label_smoothing in [0, 1]; got ",
              label_smoothing);
  EMBER_CHECK(self.dim() >= 1, "[cross_entropy] expected an input of at least 1 dim (classes); got a 0-dim tensor");
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const Tensor logp = at::log_softmax(self, class_dim);
  const int64_t classes = self.size(class_dim);
  std::vector<int64_t> wshape(static_cast<size_t>(self.dim()), 1);
  wshape[static_cast<size_t>(class_dim)] = classes;
  const bool weighted = weight && weight->defined();
  if (weighted)
    EMBER_CHECK(weight->dim() == 1 && weight->size(0) == classes, "[cross_entropy] expected a weight of shape [", classes,
                "]; got ", weight->sizes());
  if (at::isFloatingType(target.scalar_type())) {
    // Class probabilities: -sum_c w_c p_c log q_c per element; the mean is over elements (not weights).
    check_same_shape(self, target, "cross_entropy");
    Tensor p = target;
    if (label_smoothing > 0) p = p * (1 - label_smoothing) + label_smoothing / static_cast<double>(classes);
    Tensor terms = logp * p;
    if (weighted) terms = terms * weight->view(wshape);
    const Tensor loss = at::neg(terms.sum(class_dim));
    if (reduction == Reduction::Mean) return loss.sum() / static_cast<double>(self.numel() / std::max<int64_t>(classes, 1));
    return reduce(loss, reduction, "cross_entropy");
  }
  const Tensor nll = at::nll_loss_nd(logp, target, weight, reduction, ignore_index);
  if (label_smoothing == 0) return nll;
  // Label smoothing mixes in the uniform distribution: eps/C * -sum_c w_c log q_c per valid element.
  const ClassTargets t = class_targets(self, target, ignore_index, "cross_entropy");
  Tensor terms = weighted ? logp * weight->view(wshape) : logp;
  Tensor smooth = at::neg(terms.sum(class_dim));
  const Tensor valid = self.dim() == 1 ? t.valid.squeeze(0) : t.valid;
  smooth = at::where(valid, smooth, at::zeros_like(smooth));
  if (reduction == Reduction::Mean) {
    const Tensor denom = weighted ? target_weights(t, weight, self, "cross_entropy").sum() : valid.sum().to(self.scalar_type());
    smooth = smooth.sum() / denom;
  } else {
    smooth = reduce(smooth, reduction, "cross_entropy");
  }
  return nll * (1 - label_smoothing) + smooth * (label_smoothing / static_cast<double>(classes));
}

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  const Tensor d = at::sub(self, target);
  return reduce(d * d, reduction, "mse_loss");
}

Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return reduce(at::abs(at::sub(self, target)), reduction, "l1_loss");
}

}  // namespace at::native
