#pragma once
// torch::optim::RMSprop: divides the gradient by a running root mean square, with optional centering,
// momentum and L2 weight decay, as libtorch's.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/optimizer.h>

namespace torch::optim {

/// Options of RMSprop.
struct RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  TORCH_ARG(double, lr) = 1e-2;
  TORCH_ARG(double, alpha) = 0.99;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(double, momentum) = 0;
  TORCH_ARG(bool, centered) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
  void serialize(torch::serialize::OutputArchive& archive) const override {
    detail::write_optimizer_name(archive, "RMSprop");
    detail::write_double(archive, "lr", lr_);
    detail::write_double(archive, "alpha", alpha_);
    detail::write_double(archive, "eps", eps_);
    detail::write_double(archive, "weight_decay", weight_decay_);
    detail::write_double(archive, "momentum", momentum_);
    detail::write_bool(archive, "centered", centered_);
  }
  void serialize(torch::serialize::InputArchive& archive) override {
    detail::check_optimizer_name(archive, "RMSprop");
    lr_ = detail::read_double(archive, "lr");
    alpha_ = detail::read_double(archive, "alpha");
    eps_ = detail::read_double(archive, "eps");
    weight_decay_ = detail::read_double(archive, "weight_decay");
    momentum_ = detail::read_double(archive, "momentum");
    centered_ = detail::read_bool(archive, "centered");
  }
  friend bool operator==(const RMSpropOptions& a, const RMSpropOptions& b) {
    return a.lr() == b.lr() && a.alpha() == b.alpha() && a.eps() == b.eps() && a.weight_decay() == b.weight_decay() &&
           a.momentum() == b.momentum() && a.centered() == b.centered();
  }

 protected:
  // See Note [Group options inherit the optimizer's defaults].
  void inherit_unset_from(const OptimizerOptions& defaults) override {
    const auto* d = dynamic_cast<const RMSpropOptions*>(&defaults);
    if (d == nullptr) return;
    const RMSpropOptions fresh;
    inherit_field(lr_, fresh.lr_, d->lr_);
    inherit_field(alpha_, fresh.alpha_, d->alpha_);
    inherit_field(eps_, fresh.eps_, d->eps_);
    inherit_field(weight_decay_, fresh.weight_decay_, d->weight_decay_);
    inherit_field(momentum_, fresh.momentum_, d->momentum_);
    inherit_field(centered_, fresh.centered_, d->centered_);
  }
};

/// RMSprop's per-parameter state.
struct RMSpropParamState : public OptimizerCloneableParamState<RMSpropParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, square_avg);
  TORCH_ARG(Tensor, momentum_buffer);
  TORCH_ARG(Tensor, grad_avg);

 public:
  void serialize(torch::serialize::OutputArchive& archive) const override {
    detail::write_int(archive, "step", step_);
    detail::write_optional_tensor(archive, "square_avg", square_avg_);
    detail::write_optional_tensor(archive, "momentum_buffer", momentum_buffer_);
    detail::write_optional_tensor(archive, "grad_avg", grad_avg_);
  }
  void serialize(torch::serialize::InputArchive& archive) override {
    step_ = detail::read_int(archive, "step");
    detail::read_optional_tensor(archive, "square_avg", square_avg_);
    detail::read_optional_tensor(archive, "momentum_buffer", momentum_buffer_);
    detail::read_optional_tensor(archive, "grad_avg", grad_avg_);
  }
  void for_each_tensor(const std::function<void(const char*, Tensor&)>& fn) override {
    fn("square_avg", square_avg_);
    fn("momentum_buffer", momentum_buffer_);
    fn("grad_avg", grad_avg_);
  }
};

/// RMSprop. Per parameter p with gradient g (libtorch's formulas):
///   g += weight_decay * p;  v = alpha*v + (1-alpha)*g*g;  centered: a = alpha*a + (1-alpha)*g, d = sqrt(v - a*a) + eps,
///   else d = sqrt(v) + eps;  momentum > 0: buf = momentum*buf + g/d, p -= lr*buf;  else p -= lr*g/d.
class RMSprop : public Optimizer {
 public:
  explicit RMSprop(const std::vector<OptimizerParamGroup>& param_groups, RMSpropOptions defaults = {})
      : Optimizer(param_groups, std::make_unique<RMSpropOptions>(defaults)) {
    EMBER_CHECK(defaults.lr() >= 0, "[RMSprop] expected lr >= 0, got ", defaults.lr());
    EMBER_CHECK(defaults.eps() >= 0, "[RMSprop] expected eps >= 0, got ", defaults.eps());
    EMBER_CHECK(defaults.momentum() >= 0, "[RMSprop] expected momentum >= 0, got ", defaults.momentum());
    EMBER_CHECK(defaults.weight_decay() >= 0, "[RMSprop] expected weight_decay >= 0, got ", defaults.weight_decay());
    EMBER_CHECK(defaults.alpha() >= 0, "[RMSprop] expected alpha >= 0, got ", defaults.alpha());
  }
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {})
      : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<RMSpropParamState>();
  }

  /// One update of every parameter with a defined gradient; returns the closure's loss (or undefined).
  Tensor step(LossClosure closure = nullptr) override {
    Tensor loss = evaluate_closure(closure);
    at::NoGradGuard no_grad;
    for (auto& group : param_groups_) {
      const auto& o = static_cast<const RMSpropOptions&>(group.options());
      for (auto& p : group.params()) {
        if (!p.grad().defined()) continue;
        Tensor grad = p.grad();
        auto* s = find_state<RMSpropParamState>(p);
        if (s == nullptr) {
          s = &create_state<RMSpropParamState>(p);
          s->square_avg(at::zeros_like(p));
          if (o.momentum() > 0) s->momentum_buffer(at::zeros_like(p));
          if (o.centered()) s->grad_avg(at::zeros_like(p));
        }
        s->step(s->step() + 1);
        if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
        s->square_avg().mul_(o.alpha()).addcmul_(grad, grad, 1 - o.alpha());
        Tensor denom;
        if (o.centered()) {
          s->grad_avg().mul_(o.alpha()).add_(grad, 1 - o.alpha());
          denom = s->square_avg().addcmul(s->grad_avg(), s->grad_avg(), -1).sqrt_().add_(o.eps());
        } else {
          denom = s->square_avg().sqrt().add_(o.eps());
        }
        if (o.momentum() > 0) {
          s->momentum_buffer().mul_(o.momentum()).addcdiv_(grad, denom);
          p.add_(s->momentum_buffer(), -o.lr());
        } else {
          p.addcdiv_(grad, denom, -o.lr());
        }
      }
    }
    return loss;
  }
};

}  // namespace torch::optim

EMBER_PUBLIC_END
