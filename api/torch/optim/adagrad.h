#pragma once
// torch::optim::Adagrad: per-coordinate learning rates from the running sum of squared gradients, with
// learning-rate decay and L2 weight decay, as libtorch's.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/optimizer.h>

namespace torch::optim {

/// Options of Adagrad.
struct AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}
  TORCH_ARG(double, lr) = 1e-2;
  TORCH_ARG(double, lr_decay) = 0;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(double, initial_accumulator_value) = 0;
  TORCH_ARG(double, eps) = 1e-10;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
  void serialize(torch::serialize::OutputArchive& archive) const override {
    detail::write_optimizer_name(archive, "Adagrad");
    detail::write_double(archive, "lr", lr_);
    detail::write_double(archive, "lr_decay", lr_decay_);
    detail::write_double(archive, "weight_decay", weight_decay_);
    detail::write_double(archive, "initial_accumulator_value", initial_accumulator_value_);
    detail::write_double(archive, "eps", eps_);
  }
  void serialize(torch::serialize::InputArchive& archive) override {
    detail::check_optimizer_name(archive, "Adagrad");
    lr_ = detail::read_double(archive, "lr");
    lr_decay_ = detail::read_double(archive, "lr_decay");
    weight_decay_ = detail::read_double(archive, "weight_decay");
    initial_accumulator_value_ = detail::read_double(archive, "initial_accumulator_value");
    eps_ = detail::read_double(archive, "eps");
  }
  friend bool operator==(const AdagradOptions& a, const AdagradOptions& b) {
    return a.lr() == b.lr() && a.lr_decay() == b.lr_decay() && a.weight_decay() == b.weight_decay() &&
           a.initial_accumulator_value() == b.initial_accumulator_value() && a.eps() == b.eps();
  }

 protected:
  // See Note [Group options inherit the optimizer's defaults].
  void inherit_unset_from(const OptimizerOptions& defaults) override {
    const auto* d = dynamic_cast<const AdagradOptions*>(&defaults);
    if (d == nullptr) return;
    const AdagradOptions fresh;
    inherit_field(lr_, fresh.lr_, d->lr_);
    inherit_field(lr_decay_, fresh.lr_decay_, d->lr_decay_);
    inherit_field(weight_decay_, fresh.weight_decay_, d->weight_decay_);
    inherit_field(initial_accumulator_value_, fresh.initial_accumulator_value_, d->initial_accumulator_value_);
    inherit_field(eps_, fresh.eps_, d->eps_);
  }
};

/// Adagrad's per-parameter state: the sum of squared gradients and the step count.
struct AdagradParamState : public OptimizerCloneableParamState<AdagradParamState> {
  TORCH_ARG(Tensor, sum);
  TORCH_ARG(int64_t, step) = 0;

 public:
  void serialize(torch::serialize::OutputArchive& archive) const override {
    detail::write_int(archive, "step", step_);
    detail::write_optional_tensor(archive, "sum", sum_);
  }
  void serialize(torch::serialize::InputArchive& archive) override {
    step_ = detail::read_int(archive, "step");
    detail::read_optional_tensor(archive, "sum", sum_);
  }
  void for_each_tensor(const std::function<void(const char*, Tensor&)>& fn) override {
    fn("sum", sum_);
  }
};

/// Adagrad. Per parameter p with gradient g at step t (libtorch's formulas):
///   g += weight_decay * p;  sum += g*g;  p -= lr / (1 + (t-1)*lr_decay) * g / (sqrt(sum) + eps).
/// As libtorch's, the state of every parameter exists from construction (sum = initial_accumulator_value).
class Adagrad : public Optimizer {
 public:
  explicit Adagrad(const std::vector<OptimizerParamGroup>& param_groups, AdagradOptions defaults = {})
      : Optimizer(param_groups, std::make_unique<AdagradOptions>(defaults)) {
    EMBER_CHECK(defaults.lr() >= 0, "[Adagrad] expected lr >= 0, got ", defaults.lr());
    EMBER_CHECK(defaults.lr_decay() >= 0, "[Adagrad] expected lr_decay >= 0, got ", defaults.lr_decay());
    EMBER_CHECK(defaults.weight_decay() >= 0, "[Adagrad] expected weight_decay >= 0, got ", defaults.weight_decay());
    EMBER_CHECK(defaults.initial_accumulator_value() >= 0, "[Adagrad] expected initial_accumulator_value >= 0, got ",
                defaults.initial_accumulator_value());
    EMBER_CHECK(defaults.eps() >= 0, "[Adagrad] expected eps >= 0, got ", defaults.eps());
    for (auto& group : param_groups_)
      for (auto& p : group.params()) init_state(p, static_cast<const AdagradOptions&>(group.options()));
  }
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {})
      : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<AdagradParamState>();
  }

  /// One update of every parameter with a defined gradient; returns the closure's loss (or undefined).
  Tensor step(LossClosure closure = nullptr) override {
    Tensor loss = evaluate_closure(closure);
    at::NoGradGuard no_grad;
    for (auto& group : param_groups_) {
      const auto& o = static_cast<const AdagradOptions&>(group.options());
      for (auto& p : group.params()) {
        if (!p.grad().defined()) continue;
        Tensor grad = p.grad();
        auto* s = find_state<AdagradParamState>(p);
        if (s == nullptr) s = &init_state(p, o);  // added after construction
        s->step(s->step() + 1);
        if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
        const double clr = o.lr() / (1 + static_cast<double>(s->step() - 1) * o.lr_decay());
        s->sum().addcmul_(grad, grad, 1.0);
        Tensor denom = s->sum().sqrt().add_(o.eps());
        p.addcdiv_(grad, denom, -clr);
      }
    }
    return loss;
  }

 private:
  AdagradParamState& init_state(const Tensor& p, const AdagradOptions& o) {
    auto& s = create_state<AdagradParamState>(p);
    s.step(0);
    s.sum(at::full_like(p, o.initial_accumulator_value()));
    return s;
  }
};

}  // namespace torch::optim

EMBER_PUBLIC_END
