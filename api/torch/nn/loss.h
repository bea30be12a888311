#pragma once
// More losses (issue #6): options, functionals and modules of SmoothL1Loss, HuberLoss, BCELoss,
// BCEWithLogitsLoss, KLDivLoss, MarginRankingLoss, CosineEmbeddingLoss, HingeEmbeddingLoss,
// SoftMarginLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss, MultiMarginLoss,
// MultiLabelMarginLoss and MultiLabelSoftMarginLoss, with libtorch's names, defaults and printing.
// The ops are composites in aten/native/LossExtra.cpp and LossMargin.cpp (multilabel_soft_margin_loss
// is written here, as in libtorch).
//   torch::nn::BCEWithLogitsLoss loss(torch::nn::BCEWithLogitsLossOptions().pos_weight(pw));
//   auto l = F::kl_div(logp, q, F::KLDivFuncOptions().reduction(torch::kBatchMean));
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/core/GradMode.h>
#include <torch/arg.h>
#include <torch/enum.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <cmath>
#include <optional>
#include <ostream>
#include <variant>

namespace torch::nn {

/// Options of the losses whose only setting is the reduction (plus the margin of some).
#define EMBER_REDUCTION_CTORS(Name)   \
  Name() = default;                   \
  /* implicit */ Name(LossReduction reduction) : reduction_(reduction) {}

struct SmoothL1LossOptions {
  EMBER_REDUCTION_CTORS(SmoothL1LossOptions)
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
  /// Width of the quadratic zone; unset means 1 (or the functional's beta argument).
  TORCH_ARG(std::optional<double>, beta) = std::nullopt;
};

struct HuberLossOptions {
  EMBER_REDUCTION_CTORS(HuberLossOptions)
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
  TORCH_ARG(double, delta) = 1.0;
};

struct BCELossOptions {
  EMBER_REDUCTION_CTORS(BCELossOptions)
  /// Rescales each element's loss (broadcast against the input).
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct BCEWithLogitsLossOptions {
  EMBER_REDUCTION_CTORS(BCEWithLogitsLossOptions)
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
  /// Weight of the positive term per class (broadcast against the last dim).
  TORCH_ARG(at::Tensor, pos_weight) = {};
};

/// KL divergence's reductions: kBatchMean (sum / batch size) in addition to the usual three.
struct KLDivLossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
  KLDivLossOptions() = default;
  /* implicit */ KLDivLossOptions(reduction_t reduction) : reduction_(reduction) {}
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  /// Whether the target holds log-probabilities.
  TORCH_ARG(bool, log_target) = false;
};

struct MarginRankingLossOptions {
  EMBER_REDUCTION_CTORS(MarginRankingLossOptions)
  TORCH_ARG(double, margin) = 0;
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct CosineEmbeddingLossOptions {
  EMBER_REDUCTION_CTORS(CosineEmbeddingLossOptions)
  TORCH_ARG(double, margin) = 0.0;
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct HingeEmbeddingLossOptions {
  EMBER_REDUCTION_CTORS(HingeEmbeddingLossOptions)
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct SoftMarginLossOptions {
  EMBER_REDUCTION_CTORS(SoftMarginLossOptions)
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct TripletMarginLossOptions {
  EMBER_REDUCTION_CTORS(TripletMarginLossOptions)
  TORCH_ARG(double, margin) = 1.0;
  /// The norm degree of the distances.
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  /// Use the smaller of d(anchor, negative) and d(positive, negative).
  TORCH_ARG(bool, swap) = false;
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct PoissonNLLLossOptions {
  EMBER_REDUCTION_CTORS(PoissonNLLLossOptions)
  /// The input is the log of the rate (true) or the rate itself (false).
  TORCH_ARG(bool, log_input) = true;
  /// Add Stirling's approximation of log(target!).
  TORCH_ARG(bool, full) = false;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

/// Gaussian negative log-likelihood (libtorch's C++ API has none; these are Python's settings).
struct GaussianNLLLossOptions {
  EMBER_REDUCTION_CTORS(GaussianNLLLossOptions)
  /// Add the constant 0.5 * log(2 pi).
  TORCH_ARG(bool, full) = false;
  /// Variances are held at eps or above (the gradient still reaches them).
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};
/// Options of the multi-class hinge loss: the power p (1 or 2), the margin, and optional class weights.
struct MultiMarginLossOptions {
  EMBER_REDUCTION_CTORS(MultiMarginLossOptions)
  TORCH_ARG(int64_t, p) = 1;
  TORCH_ARG(double, margin) = 1.0;
  /// Rescales the loss of each sample by the weight of its target class (C elements).
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct MultiLabelMarginLossOptions {
  EMBER_REDUCTION_CTORS(MultiLabelMarginLossOptions)
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};

struct MultiLabelSoftMarginLossOptions {
  EMBER_REDUCTION_CTORS(MultiLabelSoftMarginLossOptions)
  /// Rescales each class's term (C elements, broadcast against the input).
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(LossReduction, reduction) = torch::kMean;
};
#undef EMBER_REDUCTION_CTORS

namespace functional {

using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;
using GaussianNLLLossFuncOptions = GaussianNLLLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;

namespace loss_detail {
inline std::optional<at::Tensor> opt(const at::Tensor& t) { return t.defined() ? std::optional<at::Tensor>(t) : std::nullopt; }
}  // namespace loss_detail

/// 0.5 (x - y)^2 / beta where |x - y| < beta, |x - y| - 0.5 beta elsewhere (beta 0: L1). beta
/// comes from the options or from the argument, not both (default 1).
inline at::Tensor smooth_l1_loss(const at::Tensor& input, const at::Tensor& target,
                                 const SmoothL1LossFuncOptions& options = {}, std::optional<double> beta = std::nullopt) {
  EMBER_CHECK(!(options.beta().has_value() && beta.has_value()),
              "[smooth_l1_loss] expected beta in the options or as an argument, not both; got ", *options.beta(), " and ",
              *beta);
  const double b = options.beta().has_value() ? *options.beta() : beta.value_or(1.0);
  return at::smooth_l1_loss(input, target, nn::detail::reduction_code(options.reduction()), b);
}

/// 0.5 (x - y)^2 where |x - y| < delta, delta (|x - y| - 0.5 delta) elsewhere.
inline at::Tensor huber_loss(const at::Tensor& input, const at::Tensor& target, const HuberLossFuncOptions& options = {}) {
  return at::huber_loss(input, target, nn::detail::reduction_code(options.reduction()), options.delta());
}

/// -w [y log x + (1 - y) log(1 - x)] for probabilities x, each log held at -100 or above.
inline at::Tensor binary_cross_entropy(const at::Tensor& input, const at::Tensor& target,
                                       const BinaryCrossEntropyFuncOptions& options = {}) {
  return at::binary_cross_entropy(input, target, loss_detail::opt(options.weight()),
                                  nn::detail::reduction_code(options.reduction()));
}

/// binary_cross_entropy of sigmoid(x), computed from the logits x without overflow.
inline at::Tensor binary_cross_entropy_with_logits(const at::Tensor& input, const at::Tensor& target,
                                                   const BinaryCrossEntropyWithLogitsFuncOptions& options = {}) {
  return at::binary_cross_entropy_with_logits(input, target, loss_detail::opt(options.weight()),
                                              loss_detail::opt(options.pos_weight()),
                                              nn::detail::reduction_code(options.reduction()));
}

/// KL(target || exp(input)) per element for log-probabilities `input`; kBatchMean divides the sum
/// by the batch size (dim 0).
inline at::Tensor kl_div(const at::Tensor& input, const at::Tensor& target, const KLDivFuncOptions& options = {}) {
  const auto& r = options.reduction();
  int64_t code = at::Reduction::Mean;
  if (std::holds_alternative<enumtype::kNone>(r)) code = at::Reduction::None;
  if (std::holds_alternative<enumtype::kSum>(r) || std::holds_alternative<enumtype::kBatchMean>(r)) code = at::Reduction::Sum;
  at::Tensor out = at::kl_div(input, target, code, options.log_target());
  if (std::holds_alternative<enumtype::kBatchMean>(r) && input.dim() > 0) out = out / input.size(0);
  return out;
}

/// max(0, -y (x1 - x2) + margin).
inline at::Tensor margin_ranking_loss(const at::Tensor& input1, const at::Tensor& input2, const at::Tensor& target,
                                      const MarginRankingLossFuncOptions& options = {}) {
  return at::margin_ranking_loss(input1, input2, target, options.margin(),
                                 nn::detail::reduction_code(options.reduction()));
}

/// 1 - cos(x1, x2) for label 1, max(0, cos(x1, x2) - margin) for label -1 (rows of 2-D inputs).
inline at::Tensor cosine_embedding_loss(const at::Tensor& input1, const at::Tensor& input2, const at::Tensor& target,
                                        const CosineEmbeddingLossFuncOptions& options = {}) {
  return at::cosine_embedding_loss(input1, input2, target, options.margin(),
                                   nn::detail::reduction_code(options.reduction()));
}

/// x for label 1, max(0, margin - x) for label -1.
inline at::Tensor hinge_embedding_loss(const at::Tensor& input, const at::Tensor& target,
                                       const HingeEmbeddingLossFuncOptions& options = {}) {
  return at::hinge_embedding_loss(input, target, options.margin(),
                                  nn::detail::reduction_code(options.reduction()));
}

/// log(1 + exp(-y x)).
inline at::Tensor soft_margin_loss(const at::Tensor& input, const at::Tensor& target,
                                   const SoftMarginLossFuncOptions& options = {}) {
  return at::soft_margin_loss(input, target, nn::detail::reduction_code(options.reduction()));
}

/// max(0, d(a, p) - d(a, n) + margin) with d the p-norm distance over the last dim.
inline at::Tensor triplet_margin_loss(const at::Tensor& anchor, const at::Tensor& positive, const at::Tensor& negative,
                                      const TripletMarginLossFuncOptions& options = {}) {
  return at::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(), options.eps(),
                                 options.swap(), nn::detail::reduction_code(options.reduction()));
}

/// Poisson negative log-likelihood of target given the rate (or its log).
inline at::Tensor poisson_nll_loss(const at::Tensor& input, const at::Tensor& target,
                                   const PoissonNLLLossFuncOptions& options = {}) {
  return at::poisson_nll_loss(input, target, options.log_input(), options.full(), options.eps(),
                              nn::detail::reduction_code(options.reduction()));
}

/// 0.5 (log(var) + (input - target)^2 / var) [+ 0.5 log(2 pi)] with var held at eps or above; var is
/// input's shape, or that shape with its last dim 1 or dropped (one variance per sample).
inline at::Tensor gaussian_nll_loss(const at::Tensor& input, const at::Tensor& target, const at::Tensor& var,
                                    const GaussianNLLLossFuncOptions& options = {}) {
  at::Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const auto lead = input.sizes().slice(0, input.dim() > 0 ? input.dim() - 1 : 0);
    if (input.dim() > 0 && var.sizes() == lead) {
      v = var.unsqueeze(-1);
    } else {
      const bool homoscedastic = input.dim() > 0 && var.dim() == input.dim() && var.size(-1) == 1 &&
                                 var.sizes().slice(0, var.dim() - 1) == lead;
      EMBER_CHECK(homoscedastic, "[gaussian_nll_loss] expected var of the input's shape ", input.sizes(),
                  ", or of it with the last dim 1 or dropped; got ", var.sizes());
    }
  }
  EMBER_CHECK(options.eps() >= 0, "[gaussian_nll_loss] expected eps >= 0; got ", options.eps());
  if (v.numel() > 0) EMBER_CHECK(!(v < 0).any().item<bool>(), "[gaussian_nll_loss] expected var >= 0 everywhere; got a negative entry");
  // Held at eps without changing the gradient: the clamp's correction is a constant.
  at::Tensor clamped;
  {
    at::NoGradGuard no_grad;
    clamped = at::clamp_min(v, options.eps()) - v;
  }
  v = v + clamped;
  const at::Tensor d = input - target;
  at::Tensor loss = (at::log(v) + d * d / v) * 0.5;
  if (options.full()) loss = loss + 0.5 * std::log(2 * M_PI);
  const int64_t code = nn::detail::reduction_code(options.reduction());
  if (code == at::Reduction::Mean) return loss.mean();
  if (code == at::Reduction::Sum) return loss.sum();
  return loss;
}

/// Per row of (N, C) scores (or one (C) row) and its target class y: the sum over i != y of
/// max(0, margin - x[y] + x[i])^p, times weight[y], divided by C.
inline at::Tensor multi_margin_loss(const at::Tensor& input, const at::Tensor& target,
                                    const MultiMarginLossFuncOptions& options = {}) {
  EMBER_CHECK(options.p() == 1 || options.p() == 2, "[multi_margin_loss] expected p to be 1 or 2; got ", options.p());
  EMBER_CHECK(!options.weight().defined() || options.weight().dim() == 1,
              "[multi_margin_loss] expected a 1-D weight (one per class); got ", options.weight().dim(), " dims");
  return at::multi_margin_loss(input, target, options.p(), options.margin(), loss_detail::opt(options.weight()),
                               nn::detail::reduction_code(options.reduction()));
}

/// Per row of (N, C) scores (or one (C) row): target lists class indices up to the first -1; the
/// sum over listed j and unlisted i of max(0, 1 - (x[j] - x[i])), divided by C.
inline at::Tensor multilabel_margin_loss(const at::Tensor& input, const at::Tensor& target,
                                         const MultilabelMarginLossFuncOptions& options = {}) {
  return at::multilabel_margin_loss(input, target, nn::detail::reduction_code(options.reduction()));
}

/// Per row: the mean over the C classes of -[y log sigmoid(x) + (1 - y) log sigmoid(-x)] (times
/// weight), for targets y in [0, 1].
inline at::Tensor multilabel_soft_margin_loss(const at::Tensor& input, const at::Tensor& target,
                                              const MultilabelSoftMarginLossFuncOptions& options = {}) {
  EMBER_CHECK(input.defined() && target.defined() && input.dim() >= 1, "[multilabel_soft_margin_loss] expected an input with a class dim");
  at::Tensor loss = at::neg(target * at::log_sigmoid(input) + (1 - target) * at::log_sigmoid(at::neg(input)));
  if (options.weight().defined()) loss = loss * options.weight();
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum(std::vector<int64_t>{class_dim}) / input.size(class_dim);
  const int64_t code = nn::detail::reduction_code(options.reduction());
  if (code == at::Reduction::Mean) return loss.mean();
  if (code == at::Reduction::Sum) return loss.sum();
  return loss;
}

}  // namespace functional

// ---------------------------------------------------------------- modules

/// A loss module: options held, forward(input, target) calls the functional. `Name` prints as
/// libtorch does (some with "()", some without, some with settings: see each).
#define EMBER_LOSS_MODULE(Name, fn, printed)                                                      \
  class Name##Impl : public Cloneable<Name##Impl> {                                               \
   public:                                                                                        \
    explicit Name##Impl(Name##Options options_ = {}) : options(std::move(options_)) {}            \
    void reset() override {}                                                                      \
    at::Tensor forward(const at::Tensor& input, const at::Tensor& target) {                      \
      return functional::fn(input, target, options);                                             \
    }                                                                                             \
    void pretty_print(std::ostream& stream) const override { stream << std::boolalpha << printed; } \
    Name##Options options;                                                                        \
  };                                                                                              \
  TORCH_MODULE(Name);

EMBER_LOSS_MODULE(SmoothL1Loss, smooth_l1_loss, "torch::nn::SmoothL1Loss")
EMBER_LOSS_MODULE(HuberLoss, huber_loss, "torch::nn::HuberLoss")
EMBER_LOSS_MODULE(KLDivLoss, kl_div, "torch::nn::KLDivLoss()")
EMBER_LOSS_MODULE(HingeEmbeddingLoss, hinge_embedding_loss,
                  "torch::nn::HingeEmbeddingLoss(margin=" << options.margin() << ")")
EMBER_LOSS_MODULE(SoftMarginLoss, soft_margin_loss, "torch::nn::SoftMarginLoss()")
EMBER_LOSS_MODULE(PoissonNLLLoss, poisson_nll_loss, "torch::nn::PoissonNLLLoss()")
EMBER_LOSS_MODULE(MultiLabelMarginLoss, multilabel_margin_loss, "torch::nn::MultiLabelMarginLoss()")
#undef EMBER_LOSS_MODULE

/// Multi-class hinge loss; the class weights (if any) are the buffer "weight".
class MultiMarginLossImpl : public Cloneable<MultiMarginLossImpl> {
 public:
  explicit MultiMarginLossImpl(MultiMarginLossOptions options_ = {}) : options(std::move(options_)) { reset(); }
  /// Checks p and the weight, and registers the weight (if any) as the buffer "weight".
  void reset() override {
    EMBER_CHECK(options.p() == 1 || options.p() == 2, "[MultiMarginLoss] expected p to be 1 or 2; got ", options.p());
    EMBER_CHECK(!options.weight().defined() || options.weight().dim() == 1,
                "[MultiMarginLoss] expected a 1-D weight (one per class); got ", options.weight().dim(), " dims");
    if (options.weight().defined()) weight = register_buffer("weight", options.weight().detach());
  }
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target) {
    auto opts = options;
    opts.weight(weight);
    return functional::multi_margin_loss(input, target, opts);
  }
  /// Prints as libtorch, the weight as a tensor ("[ Tensor (undefined) ]" when unset).
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::MultiMarginLoss(p=" << options.p() << ", margin=" << options.margin() << ", weight=" << options.weight()
           << ", reduction=" << enumtype::get_enum_name(options.reduction()) << ")";
  }
  MultiMarginLossOptions options;
  at::Tensor weight;  ///< the registered class weights, or undefined
};
TORCH_MODULE(MultiMarginLoss);

/// Multi-label one-versus-all logistic loss; the weight (if any) is the buffer "weight".
class MultiLabelSoftMarginLossImpl : public Cloneable<MultiLabelSoftMarginLossImpl> {
 public:
  explicit MultiLabelSoftMarginLossImpl(MultiLabelSoftMarginLossOptions options_ = {}) : options(std::move(options_)) {
    reset();
  }
  /// Registers the weight (if any) as the buffer "weight".
  void reset() override {
    if (options.weight().defined()) weight = register_buffer("weight", options.weight().detach());
  }
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target) {
    auto opts = options;
    opts.weight(weight);
    return functional::multilabel_soft_margin_loss(input, target, opts);
  }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::MultiLabelSoftMarginLoss()"; }
  MultiLabelSoftMarginLossOptions options;
  at::Tensor weight;  ///< the registered weight, or undefined
};
TORCH_MODULE(MultiLabelSoftMarginLoss);

/// Binary cross entropy of probabilities; the weight (if any) is the buffer "weight".
class BCELossImpl : public Cloneable<BCELossImpl> {
 public:
  explicit BCELossImpl(BCELossOptions options_ = {}) : options(std::move(options_)) { reset(); }
  /// Registers the weight (if any) as the buffer "weight", a handle of its own.
  void reset() override {
    if (options.weight().defined()) weight = register_buffer("weight", options.weight().detach());
  }
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target) {
    auto opts = options;
    opts.weight(weight);
    return functional::binary_cross_entropy(input, target, opts);
  }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::BCELoss()"; }
  BCELossOptions options;
  at::Tensor weight;  ///< the registered weight, or undefined
};
TORCH_MODULE(BCELoss);

/// Binary cross entropy of logits; weight and pos_weight (if any) are buffers.
class BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
 public:
  explicit BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options_ = {}) : options(std::move(options_)) { reset(); }
  /// Registers weight and pos_weight (those given) as buffers.
  void reset() override {
    if (options.weight().defined()) weight = register_buffer("weight", options.weight().detach());
    if (options.pos_weight().defined()) pos_weight = register_buffer("pos_weight", options.pos_weight().detach());
  }
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target) {
    auto opts = options;
    opts.weight(weight).pos_weight(pos_weight);
    return functional::binary_cross_entropy_with_logits(input, target, opts);
  }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::BCEWithLogitsLoss()"; }
  BCEWithLogitsLossOptions options;
  at::Tensor weight;      ///< the registered weight, or undefined
  at::Tensor pos_weight;  ///< the registered positive weight, or undefined
};
TORCH_MODULE(BCEWithLogitsLoss);

/// Losses of pairs: forward(input1, input2, target).
class MarginRankingLossImpl : public Cloneable<MarginRankingLossImpl> {
 public:
  explicit MarginRankingLossImpl(MarginRankingLossOptions options_ = {}) : options(std::move(options_)) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input1, const at::Tensor& input2, const at::Tensor& target) {
    return functional::margin_ranking_loss(input1, input2, target, options);
  }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::MarginRankingLoss()"; }
  MarginRankingLossOptions options;
};
TORCH_MODULE(MarginRankingLoss);

class CosineEmbeddingLossImpl : public Cloneable<CosineEmbeddingLossImpl> {
 public:
  explicit CosineEmbeddingLossImpl(CosineEmbeddingLossOptions options_ = {}) : options(std::move(options_)) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input1, const at::Tensor& input2, const at::Tensor& target) {
    return functional::cosine_embedding_loss(input1, input2, target, options);
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::CosineEmbeddingLoss(margin=" << options.margin() << ")";
  }
  CosineEmbeddingLossOptions options;
};
TORCH_MODULE(CosineEmbeddingLoss);

/// forward(anchor, positive, negative).
class TripletMarginLossImpl : public Cloneable<TripletMarginLossImpl> {
 public:
  explicit TripletMarginLossImpl(TripletMarginLossOptions options_ = {}) : options(std::move(options_)) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& anchor, const at::Tensor& positive, const at::Tensor& negative) {
    return functional::triplet_margin_loss(anchor, positive, negative, options);
  }
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "torch::nn::TripletMarginLoss(margin=" << options.margin() << ", p=" << options.p()
           << ", eps=" << options.eps() << ", swap=" << options.swap() << ")";
  }
  TripletMarginLossOptions options;
};
TORCH_MODULE(TripletMarginLoss);

/// forward(input, target, var).
class GaussianNLLLossImpl : public Cloneable<GaussianNLLLossImpl> {
 public:
  explicit GaussianNLLLossImpl(GaussianNLLLossOptions options_ = {}) : options(std::move(options_)) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target, const at::Tensor& var) {
    return functional::gaussian_nll_loss(input, target, var, options);
  }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::GaussianNLLLoss()"; }
  GaussianNLLLossOptions options;
};
TORCH_MODULE(GaussianNLLLoss);

}  // namespace torch::nn

EMBER_PUBLIC_END
