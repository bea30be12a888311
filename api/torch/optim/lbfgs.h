#pragma once
// torch::optim::LBFGS: limited-memory BFGS over all parameters as one flat vector, as libtorch's. step()
// needs a closure that recomputes the loss and its gradients; each call runs up to max_iter iterations.
#include <torch/optim/optimizer.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string>

namespace torch::optim {

/// Options of LBFGS. max_eval defaults to max_iter * 5 / 4.
struct LBFGSOptions : public OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1) : lr_(lr) {}
  TORCH_ARG(double, lr) = 1;
  TORCH_ARG(int64_t, max_iter) = 20;
  TORCH_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  TORCH_ARG(double, tolerance_grad) = 1e-7;
  TORCH_ARG(double, tolerance_change) = 1e-9;
  TORCH_ARG(int64_t, history_size) = 100;
  TORCH_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
  friend bool operator==(const LBFGSOptions& a, const LBFGSOptions& b) {
    return a.lr() == b.lr() && a.max_iter() == b.max_iter() && a.max_eval() == b.max_eval() &&
           a.tolerance_grad() == b.tolerance_grad() && a.tolerance_change() == b.tolerance_change() &&
           a.history_size() == b.history_size() && a.line_search_fn() == b.line_search_fn();
  }
};

/// LBFGS's state (one for the whole optimizer, stored under the first parameter): the curvature history
/// (old_dirs = gradient differences y, old_stps = steps s, ro = 1 / y.s) and the last direction and step.
struct LBFGSParamState : public OptimizerCloneableParamState<LBFGSParamState> {
  TORCH_ARG(int64_t, func_evals) = 0;
  TORCH_ARG(int64_t, n_iter) = 0;
  TORCH_ARG(double, t) = 0;
  TORCH_ARG(double, prev_loss) = 0;
  TORCH_ARG(Tensor, d);
  TORCH_ARG(Tensor, H_diag);
  TORCH_ARG(Tensor, prev_flat_grad);
  TORCH_ARG(std::deque<Tensor>, old_dirs);
  TORCH_ARG(std::deque<Tensor>, old_stps);
  TORCH_ARG(std::deque<Tensor>, ro);
  TORCH_ARG(std::optional<std::vector<Tensor>>, al) = std::nullopt;
};

/// L-BFGS with a fixed step (lr; the first iteration scales it by min(1, 1/|g|_1)). One parameter group only.
class LBFGS : public Optimizer {
 public:
  explicit LBFGS(const std::vector<OptimizerParamGroup>& param_groups, LBFGSOptions defaults = {})
      : Optimizer(param_groups, std::make_unique<LBFGSOptions>(defaults)) {
    EMBER_CHECK(param_groups_.size() == 1, "[LBFGS] expected one parameter group (per-group options are not "
                "supported), got ", param_groups_.size());
    if (!defaults.max_eval().has_value()) {
      const int64_t max_eval = defaults.max_iter() * 5 / 4;
      static_cast<LBFGSOptions&>(param_groups_[0].options()).max_eval(max_eval);
      static_cast<LBFGSOptions&>(*defaults_).max_eval(max_eval);
    }
  }
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {})
      : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

  /// Runs up to max_iter iterations; `closure` must zero the gradients, compute the loss, call backward and
  /// return the loss. Returns the loss of the first evaluation.
  Tensor step(LossClosure closure) override {
    EMBER_CHECK(closure != nullptr, "[LBFGS] step: expected a closure that returns the loss, got none");
    const auto& o = static_cast<const LBFGSOptions&>(param_groups_[0].options());
    // TODO(#6): the strong-Wolfe line search.
    EMBER_CHECK(!o.line_search_fn().has_value(), "[LBFGS] line_search_fn '", o.line_search_fn().value_or(""),
                "' is not supported yet; leave it unset (fixed step)");
    at::NoGradGuard no_grad;
    const auto& params = param_groups_[0].params();
    EMBER_CHECK(!params.empty(), "[LBFGS] step: the optimizer has no parameters");
    auto* found = find_state<LBFGSParamState>(params[0]);
    LBFGSParamState& s = found != nullptr ? *found : create_state<LBFGSParamState>(params[0]);
    const double lr = o.lr(), tol_grad = o.tolerance_grad(), tol_change = o.tolerance_change();
    const int64_t max_iter = o.max_iter(), max_eval = o.max_eval().value_or(max_iter * 5 / 4);
    const auto history_size = static_cast<size_t>(o.history_size());

    Tensor orig_loss = evaluate_closure(closure);
    double loss = orig_loss.item<double>();
    int64_t current_evals = 1;
    s.func_evals(s.func_evals() + 1);
    Tensor flat_grad = gather_flat_grad();
    bool opt_cond = flat_grad.abs().max().item<double>() <= tol_grad;
    if (opt_cond) return orig_loss;

    Tensor d = s.d(), H_diag = s.H_diag(), prev_flat_grad = s.prev_flat_grad();
    double t = s.t(), prev_loss = s.prev_loss();
    auto& old_dirs = s.old_dirs();
    auto& old_stps = s.old_stps();
    auto& ro = s.ro();

    int64_t n_iter = 0;
    while (n_iter < max_iter) {
      ++n_iter;
      s.n_iter(s.n_iter() + 1);
      if (s.n_iter() == 1) {
        d = flat_grad.neg();
        old_dirs.clear();
        old_stps.clear();
        ro.clear();
        H_diag = at::ones({1}, flat_grad.options());
      } else {
        // Add the newest curvature pair (if it keeps the Hessian estimate positive definite), then apply the
        // two-loop recursion to get the direction -H * g.
        Tensor y = flat_grad.sub(prev_flat_grad);
        Tensor step_vec = d.mul(t);
        Tensor ys = y.dot(step_vec);
        if (ys.item<double>() > 1e-10) {
          if (old_dirs.size() == history_size) {
            old_dirs.pop_front();
            old_stps.pop_front();
            ro.pop_front();
          }
          old_dirs.push_back(y);
          old_stps.push_back(step_vec);
          ro.push_back(1. / ys);
          H_diag = ys / y.dot(y);
        }
        const auto num_old = static_cast<int64_t>(old_dirs.size());
        if (!s.al().has_value()) s.al(std::vector<Tensor>(history_size));
        auto& al = s.al().value();
        Tensor q = flat_grad.neg();
        for (int64_t i = num_old - 1; i >= 0; --i) {
          al.at(i) = old_stps.at(i).dot(q) * ro.at(i);
          q.add_(old_dirs.at(i), -al.at(i).item<double>());
        }
        Tensor r = at::mul(q, H_diag);
        d = r;
        for (int64_t i = 0; i < num_old; ++i) {
          Tensor be_i = old_dirs.at(i).dot(r) * ro.at(i);
          r.add_(old_stps.at(i), (al.at(i) - be_i).item<double>());
        }
      }
      if (!prev_flat_grad.defined()) prev_flat_grad = flat_grad.clone();
      else prev_flat_grad.copy_(flat_grad);
      prev_loss = loss;

      t = s.n_iter() == 1 ? std::min(1., 1. / flat_grad.abs().sum().item<double>()) * lr : lr;
      const double gtd = flat_grad.dot(d).item<double>();
      if (gtd > -tol_change) break;  // not a descent direction

      int64_t ls_func_evals = 0;
      add_grad(t, d);
      if (n_iter != max_iter) {
        loss = evaluate_closure(closure).item<double>();
        flat_grad = gather_flat_grad();
        opt_cond = flat_grad.abs().max().item<double>() <= tol_grad;
        ls_func_evals = 1;
      }
      current_evals += ls_func_evals;
      s.func_evals(s.func_evals() + ls_func_evals);

      if (n_iter == max_iter) break;
      if (current_evals >= max_eval) break;
      if (opt_cond) break;
      if (d.mul(t).abs().max().item<double>() <= tol_change) break;
      if (std::abs(loss - prev_loss) < tol_change) break;
    }
    s.d(d);
    s.t(t);
    s.H_diag(H_diag);
    s.prev_flat_grad(prev_flat_grad);
    s.prev_loss(prev_loss);
    return orig_loss;
  }

 private:
  // All gradients as one flat vector (zeros for a parameter without gradient).
  Tensor gather_flat_grad() const {
    std::vector<Tensor> views;
    for (const auto& p : param_groups_[0].params())
      views.push_back(p.grad().defined() ? p.grad().reshape({-1}) : at::zeros({p.numel()}, p.options()));
    return at::cat(views, 0);
  }
  // p += step_size * (p's slice of the flat `update`), for every parameter.
  void add_grad(double step_size, const Tensor& update) {
    int64_t offset = 0;
    for (auto& p : param_groups_[0].params()) {
      const int64_t n = p.numel();
      p.add_(update.slice(0, offset, offset + n).view_as(p), step_size);
      offset += n;
    }
  }
};

}  // namespace torch::optim
