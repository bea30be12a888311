#pragma once
// torch::optim::SGD: stochastic gradient descent with momentum, dampening, Nesterov momentum and L2 weight
// decay, as libtorch's.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/optimizer.h>

namespace torch::optim {

/// Options of SGD. Only the learning rate has no default.
struct SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr) : lr_(lr) {}
  TORCH_ARG(double, lr);
  TORCH_ARG(double, momentum) = 0;
  TORCH_ARG(double, dampening) = 0;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, nesterov) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
  void serialize(torch::serialize::OutputArchive& archive) const override {
    detail::write_optimizer_name(archive, "SGD");
    detail::write_double(archive, "lr", lr_);
    detail::write_double(archive, "momentum", momentum_);
    detail::write_double(archive, "dampening", dampening_);
    detail::write_double(archive, "weight_decay", weight_decay_);
    detail::write_bool(archive, "nesterov", nesterov_);
  }
  void serialize(torch::serialize::InputArchive& archive) override {
    detail::check_optimizer_name(archive, "SGD");
    lr_ = detail::read_double(archive, "lr");
    momentum_ = detail::read_double(archive, "momentum");
    dampening_ = detail::read_double(archive, "dampening");
    weight_decay_ = detail::read_double(archive, "weight_decay");
    nesterov_ = detail::read_bool(archive, "nesterov");
  }
  friend bool operator==(const SGDOptions& a, const SGDOptions& b) {
    return a.lr() == b.lr() && a.momentum() == b.momentum() && a.dampening() == b.dampening() &&
           a.weight_decay() == b.weight_decay() && a.nesterov() == b.nesterov();
  }

 protected:
  // See Note [Group options inherit the optimizer's defaults]; libtorch compares lr against 1e-3.
  void inherit_unset_from(const OptimizerOptions& defaults) override {
    const auto* d = dynamic_cast<const SGDOptions*>(&defaults);
    if (d == nullptr) return;
    const SGDOptions fresh(1e-3);
    inherit_field(lr_, fresh.lr_, d->lr_);
    inherit_field(momentum_, fresh.momentum_, d->momentum_);
    inherit_field(dampening_, fresh.dampening_, d->dampening_);
    inherit_field(weight_decay_, fresh.weight_decay_, d->weight_decay_);
    inherit_field(nesterov_, fresh.nesterov_, d->nesterov_);
  }
};

/// SGD's per-parameter state: the momentum buffer (only when momentum != 0).
struct SGDParamState : public OptimizerCloneableParamState<SGDParamState> {
  TORCH_ARG(Tensor, momentum_buffer);

 public:
  void serialize(torch::serialize::OutputArchive& archive) const override {
    detail::write_optional_tensor(archive, "momentum_buffer", momentum_buffer_);
  }
  void serialize(torch::serialize::InputArchive& archive) override {
    detail::read_optional_tensor(archive, "momentum_buffer", momentum_buffer_);
  }
  void for_each_tensor(const std::function<void(const char*, Tensor&)>& fn) override {
    fn("momentum_buffer", momentum_buffer_);
  }
};

/// Stochastic gradient descent. Per parameter p with gradient g (libtorch's order):
///   g += weight_decay * p;  buf = g on the first step, else buf = momentum * buf + (1 - dampening) * g;
///   g = nesterov ? g + momentum * buf : buf  (when momentum != 0);  p -= lr * g.
class SGD : public Optimizer {
 public:
  explicit SGD(const std::vector<OptimizerParamGroup>& param_groups, SGDOptions defaults)
      : Optimizer(param_groups, std::make_unique<SGDOptions>(defaults)) {
    EMBER_CHECK(defaults.lr() >= 0, "[SGD] expected lr >= 0, got ", defaults.lr());
    EMBER_CHECK(defaults.momentum() >= 0, "[SGD] expected momentum >= 0, got ", defaults.momentum());
    EMBER_CHECK(defaults.weight_decay() >= 0, "[SGD] expected weight_decay >= 0, got ", defaults.weight_decay());
    EMBER_CHECK(!defaults.nesterov() || (defaults.momentum() > 0 && defaults.dampening() == 0),
                "[SGD] nesterov expects momentum > 0 and dampening == 0, got momentum ", defaults.momentum(),
                " and dampening ", defaults.dampening());
  }
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults)
      : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<SGDParamState>();
  }

  /// One update of every parameter with a defined gradient; returns the closure's loss (or undefined).
  Tensor step(LossClosure closure = nullptr) override {
    Tensor loss = evaluate_closure(closure);
    at::NoGradGuard no_grad;
    for (auto& group : param_groups_) {
      const auto& o = static_cast<const SGDOptions&>(group.options());
      for (auto& p : group.params()) {
        if (!p.grad().defined()) continue;
        Tensor d_p = p.grad().data();
        if (o.weight_decay() != 0) d_p = d_p.add(p, o.weight_decay());
        if (o.momentum() != 0) {
          Tensor buf;
          if (auto* s = find_state<SGDParamState>(p)) {
            buf = s->momentum_buffer();
            buf.mul_(o.momentum()).add_(d_p, 1 - o.dampening());
          } else {
            buf = d_p.clone().detach();
            create_state<SGDParamState>(p).momentum_buffer(buf);
          }
          d_p = o.nesterov() ? d_p.add(buf, o.momentum()) : buf;
        }
        // Note [SGD updates through data()]: like libtorch, SGD writes through p.data(), which does not bump
        // p's version counter, so a graph saved before the step can still be backpropagated (it then sees the
        // updated values). Adam and AdamW write to p itself, as libtorch's do.
        p.data().add_(d_p, -o.lr());
      }
    }
    return loss;
  }
};

}  // namespace torch::optim

EMBER_PUBLIC_END
