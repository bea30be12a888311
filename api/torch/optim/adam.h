#pragma once
// torch::optim::Adam: adaptive moment estimation with bias correction, L2 weight decay and AMSGrad,
// as libtorch's.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/optimizer.h>

#include <cmath>
#include <tuple>

namespace torch::optim {

/// Options of Adam.
struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}
  TORCH_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, amsgrad) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
  void serialize(torch::serialize::OutputArchive& archive) const override {
    detail::write_optimizer_name(archive, "Adam");
    detail::write_double(archive, "lr", lr_);
    detail::write_betas(archive, "betas", betas_);
    detail::write_double(archive, "eps", eps_);
    detail::write_double(archive, "weight_decay", weight_decay_);
    detail::write_bool(archive, "amsgrad", amsgrad_);
  }
  void serialize(torch::serialize::InputArchive& archive) override {
    detail::check_optimizer_name(archive, "Adam");
    lr_ = detail::read_double(archive, "lr");
    betas_ = detail::read_betas(archive, "betas");
    eps_ = detail::read_double(archive, "eps");
    weight_decay_ = detail::read_double(archive, "weight_decay");
    amsgrad_ = detail::read_bool(archive, "amsgrad");
  }
  friend bool operator==(const AdamOptions& a, const AdamOptions& b) {
    return a.lr() == b.lr() && a.betas() == b.betas() && a.eps() == b.eps() && a.weight_decay() == b.weight_decay() &&
           a.amsgrad() == b.amsgrad();
  }

 protected:
  // See Note [Group options inherit the optimizer's defaults].
  void inherit_unset_from(const OptimizerOptions& defaults) override {
    const auto* d = dynamic_cast<const AdamOptions*>(&defaults);
    if (d == nullptr) return;
    const AdamOptions fresh;
    inherit_field(lr_, fresh.lr_, d->lr_);
    inherit_field(betas_, fresh.betas_, d->betas_);
    inherit_field(eps_, fresh.eps_, d->eps_);
    inherit_field(weight_decay_, fresh.weight_decay_, d->weight_decay_);
    inherit_field(amsgrad_, fresh.amsgrad_, d->amsgrad_);
  }
};

/// Adam's per-parameter state: step count and the moment estimates.
struct AdamParamState : public OptimizerCloneableParamState<AdamParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, exp_avg);
  TORCH_ARG(Tensor, exp_avg_sq);
  TORCH_ARG(Tensor, max_exp_avg_sq);

 public:
  void serialize(torch::serialize::OutputArchive& archive) const override {
    detail::write_int(archive, "step", step_);
    detail::write_optional_tensor(archive, "exp_avg", exp_avg_);
    detail::write_optional_tensor(archive, "exp_avg_sq", exp_avg_sq_);
    detail::write_optional_tensor(archive, "max_exp_avg_sq", max_exp_avg_sq_);
  }
  void serialize(torch::serialize::InputArchive& archive) override {
    step_ = detail::read_int(archive, "step");
    detail::read_optional_tensor(archive, "exp_avg", exp_avg_);
    detail::read_optional_tensor(archive, "exp_avg_sq", exp_avg_sq_);
    detail::read_optional_tensor(archive, "max_exp_avg_sq", max_exp_avg_sq_);
  }
  void for_each_tensor(const std::function<void(const char*, Tensor&)>& fn) override {
    fn("exp_avg", exp_avg_);
    fn("exp_avg_sq", exp_avg_sq_);
    fn("max_exp_avg_sq", max_exp_avg_sq_);
  }
};

namespace detail {
// Checks shared by Adam and AdamW; `name` starts the message.
template <typename Options>
void check_adam_options(const char* name, const Options& o) {
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  EMBER_CHECK(o.lr() >= 0, "[", name, "] expected lr >= 0, got ", o.lr());
  EMBER_CHECK(o.eps() >= 0, "[", name, "] expected eps >= 0, got ", o.eps());
  EMBER_CHECK(beta1 >= 0 && beta1 < 1, "[", name, "] expected 0 <= betas[0] < 1, got ", beta1);
  EMBER_CHECK(beta2 >= 0 && beta2 < 1, "[", name, "] expected 0 <= betas[1] < 1, got ", beta2);
  EMBER_CHECK(o.weight_decay() >= 0, "[", name, "] expected weight_decay >= 0, got ", o.weight_decay());
}

// The moment update and parameter step shared by Adam and AdamW (weight decay is applied by the caller).
// Runs under NoGradGuard; writes to p in place.
template <typename State>
void adam_moment_step(Tensor& p, const Tensor& grad, State& s, double lr, const std::tuple<double, double>& betas,
                      double eps, bool amsgrad) {
  const double beta1 = std::get<0>(betas), beta2 = std::get<1>(betas);
  s.step(s.step() + 1);
  const double bias_correction1 = 1 - std::pow(beta1, static_cast<double>(s.step()));
  const double bias_correction2 = 1 - std::pow(beta2, static_cast<double>(s.step()));
  s.exp_avg().mul_(beta1).add_(grad, 1 - beta1);
  s.exp_avg_sq().mul_(beta2).addcmul_(grad, grad, 1 - beta2);
  Tensor second = s.exp_avg_sq();
  if (amsgrad) {
    s.max_exp_avg_sq().maximum_(s.exp_avg_sq());
    second = s.max_exp_avg_sq();
  }
  Tensor denom = (second.sqrt() / std::sqrt(bias_correction2)).add_(eps);
  p.addcdiv_(s.exp_avg(), denom, -lr / bias_correction1);
}

// The state of a parameter on its first step: zero moments shaped like p.
template <typename State>
void init_adam_state(State& s, const Tensor& p, bool amsgrad) {
  s.step(0);
  s.exp_avg(at::zeros_like(p));
  s.exp_avg_sq(at::zeros_like(p));
  if (amsgrad) s.max_exp_avg_sq(at::zeros_like(p));
}
}  // namespace detail

/// Adam. Per parameter p with gradient g, at step t (libtorch's formulas):
///   g += weight_decay * p;  m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g;  (amsgrad: v_max = max(v_max, v))
///   p -= lr / (1 - b1^t) * m / (sqrt(v or v_max) / sqrt(1 - b2^t) + eps).
class Adam : public Optimizer {
 public:
  explicit Adam(const std::vector<OptimizerParamGroup>& param_groups, AdamOptions defaults = {})
      : Optimizer(param_groups, std::make_unique<AdamOptions>(defaults)) {
    detail::check_adam_options("Adam", defaults);
  }
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {})
      : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<AdamParamState>();
  }

  /// One update of every parameter with a defined gradient; returns the closure's loss (or undefined).
  Tensor step(LossClosure closure = nullptr) override {
    Tensor loss = evaluate_closure(closure);
    at::NoGradGuard no_grad;
    for (auto& group : param_groups_) {
      const auto& o = static_cast<const AdamOptions&>(group.options());
      for (auto& p : group.params()) {
        if (!p.grad().defined()) continue;
        Tensor grad = p.grad();
        auto* s = find_state<AdamParamState>(p);
        if (s == nullptr) {
          s = &create_state<AdamParamState>(p);
          detail::init_adam_state(*s, p, o.amsgrad());
        }
        if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
        detail::adam_moment_step(p, grad, *s, o.lr(), o.betas(), o.eps(), o.amsgrad());
      }
    }
    return loss;
  }
};

}  // namespace torch::optim

EMBER_PUBLIC_END
