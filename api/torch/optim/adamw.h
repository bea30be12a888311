#pragma once
// torch::optim::AdamW: Adam with decoupled weight decay (the parameter shrinks by lr * weight_decay before the
// Adam step, instead of adding weight_decay * p to the gradient), as libtorch's.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/adam.h>

namespace torch::optim {

/// Options of AdamW; weight_decay defaults to 1e-2.
struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  TORCH_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 1e-2;
  TORCH_ARG(bool, amsgrad) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
  void serialize(torch::serialize::OutputArchive& archive) const override {
    detail::write_optimizer_name(archive, "AdamW");
    detail::write_double(archive, "lr", lr_);
    detail::write_betas(archive, "betas", betas_);
    detail::write_double(archive, "eps", eps_);
    detail::write_double(archive, "weight_decay", weight_decay_);
    detail::write_bool(archive, "amsgrad", amsgrad_);
  }
  void serialize(torch::serialize::InputArchive& archive) override {
    detail::check_optimizer_name(archive, "AdamW");
    lr_ = detail::read_double(archive, "lr");
    betas_ = detail::read_betas(archive, "betas");
    eps_ = detail::read_double(archive, "eps");
    weight_decay_ = detail::read_double(archive, "weight_decay");
    amsgrad_ = detail::read_bool(archive, "amsgrad");
  }
  friend bool operator==(const AdamWOptions& a, const AdamWOptions& b) {
    return a.lr() == b.lr() && a.betas() == b.betas() && a.eps() == b.eps() && a.weight_decay() == b.weight_decay() &&
           a.amsgrad() == b.amsgrad();
  }

 protected:
  // See Note [Group options inherit the optimizer's defaults].
  void inherit_unset_from(const OptimizerOptions& defaults) override {
    const auto* d = dynamic_cast<const AdamWOptions*>(&defaults);
    if (d == nullptr) return;
    const AdamWOptions fresh;
    inherit_field(lr_, fresh.lr_, d->lr_);
    inherit_field(betas_, fresh.betas_, d->betas_);
    inherit_field(eps_, fresh.eps_, d->eps_);
    inherit_field(weight_decay_, fresh.weight_decay_, d->weight_decay_);
    inherit_field(amsgrad_, fresh.amsgrad_, d->amsgrad_);
  }
};

/// AdamW's per-parameter state: step count and the moment estimates.
struct AdamWParamState : public OptimizerCloneableParamState<AdamWParamState> {
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

/// AdamW: p *= 1 - lr * weight_decay, then Adam's moment step (see Adam) without L2 term in the gradient.
class AdamW : public Optimizer {
 public:
  explicit AdamW(const std::vector<OptimizerParamGroup>& param_groups, AdamWOptions defaults = {})
      : Optimizer(param_groups, std::make_unique<AdamWOptions>(defaults)) {
    detail::check_adam_options("AdamW", defaults);
  }
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = {})
      : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<AdamWParamState>();
  }

  /// One update of every parameter with a defined gradient; returns the closure's loss (or undefined).
  Tensor step(LossClosure closure = nullptr) override {
    Tensor loss = evaluate_closure(closure);
    at::NoGradGuard no_grad;
    for (auto& group : param_groups_) {
      const auto& o = static_cast<const AdamWOptions&>(group.options());
      for (auto& p : group.params()) {
        if (!p.grad().defined()) continue;
        if (o.weight_decay() != 0) p.mul_(1 - o.lr() * o.weight_decay());
        auto* s = find_state<AdamWParamState>(p);
        if (s == nullptr) {
          s = &create_state<AdamWParamState>(p);
          detail::init_adam_state(*s, p, o.amsgrad());
        }
        detail::adam_moment_step(p, p.grad(), *s, o.lr(), o.betas(), o.eps(), o.amsgrad());
      }
    }
    return loss;
  }
};

}  // namespace torch::optim

EMBER_PUBLIC_END
