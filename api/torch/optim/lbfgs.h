#pragma once
// torch::optim::LBFGS: limited-memory BFGS over all parameters as one flat vector, as libtorch's. step()
// needs a closure that recomputes the loss and its gradients; each call runs up to max_iter iterations.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/optimizer.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

/// L-BFGS with a fixed step (lr; the first iteration scales it by min(1, 1/|g|_1)) or, with
/// line_search_fn("strong_wolfe"), a step found by a strong Wolfe line search from there. One
/// parameter group only.
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
    EMBER_CHECK(!o.line_search_fn().has_value() || *o.line_search_fn() == "strong_wolfe",
                "[LBFGS] expected line_search_fn \"strong_wolfe\" or none (a fixed step); got \"",
                o.line_search_fn().value_or(""), "\"");
    const bool line_search = o.line_search_fn().has_value();
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
      if (line_search) {
        WolfeResult r = strong_wolfe(closure, t, d, loss, flat_grad, gtd, tol_change);
        loss = r.loss;
        flat_grad = r.grad;
        t = r.t;
        ls_func_evals = r.evals;
        add_grad(t, d);
        opt_cond = flat_grad.abs().max().item<double>() <= tol_grad;
      } else {
        add_grad(t, d);
        if (n_iter != max_iter) {
          loss = evaluate_closure(closure).item<double>();
          flat_grad = gather_flat_grad();
          opt_cond = flat_grad.abs().max().item<double>() <= tol_grad;
          ls_func_evals = 1;
        }
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
  // Note [Strong Wolfe line search]
  // Finds a step t along d with sufficient decrease, f(t) <= f(0) + c1 t f'(0), and small slope,
  // |f'(t)| <= c2 |f'(0)| (Nocedal & Wright, Numerical Optimization, algorithms 3.5 and 3.6, with
  // c1 = 1e-4, c2 = 0.9 and at most 25 evaluations, as libtorch). Phase one grows t by cubic
  // extrapolation until an interval brackets an acceptable step; phase two shrinks the bracket by
  // cubic interpolation, kept a tenth of the bracket away from its ends when progress stalls.
  struct WolfeResult {
    double loss;
    Tensor grad;
    double t;
    int64_t evals;
  };
  // One end of a bracket: a step, the loss there, the flat gradient and the slope along d.
  struct Probe {
    double t, f;
    Tensor g;
    double gtd;
  };

  // The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to
  // [lo, hi]; the middle of [lo, hi] when the cubic has no minimum.
  static double cubic_min(double x1, double f1, double g1, double x2, double f2, double g2, double lo, double hi) {
    const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
    const double disc = d1 * d1 - g1 * g2;
    if (!(disc >= 0)) return (lo + hi) / 2;
    const double d2 = std::sqrt(disc);
    const double m = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                              : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(m, lo), hi);
  }
  static double cubic_min(const Probe& a, const Probe& b) {
    return cubic_min(a.t, a.f, a.gtd, b.t, b.f, b.gtd, std::min(a.t, b.t), std::max(a.t, b.t));
  }

  // Loss and flat gradient at x + t * d, where x is the parameters' current value; the parameters
  // are restored afterwards.
  Probe probe(const LossClosure& closure, const std::vector<Tensor>& x, double t, const Tensor& d) {
    add_grad(t, d);
    Probe p{t, evaluate_closure(closure).item<double>(), gather_flat_grad(), 0};
    p.gtd = p.g.dot(d).item<double>();
    auto& params = param_groups_[0].params();
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(x[i]);
    return p;
  }

  WolfeResult strong_wolfe(const LossClosure& closure, double t, const Tensor& d, double f, const Tensor& g,
                           double gtd, double tol_change) {
    constexpr double c1 = 1e-4, c2 = 0.9;
    constexpr int64_t max_ls = 25;
    std::vector<Tensor> x;
    for (const auto& p : param_groups_[0].params()) x.push_back(p.clone());
    const double d_norm = d.abs().max().item<double>();
    const Probe start{0, f, g.clone(), gtd};

    Probe prev = start, cur = probe(closure, x, t, d);
    int64_t evals = 1, iter = 0;
    std::vector<Probe> bracket;  // one probe when it already satisfies both conditions
    bool done = false;
    while (iter < max_ls) {
      if (cur.f > f + c1 * cur.t * gtd || (iter > 1 && cur.f >= prev.f)) {
        bracket = {prev, cur};
        break;
      }
      if (std::abs(cur.gtd) <= -c2 * gtd) {
        bracket = {cur};
        done = true;
        break;
      }
      if (cur.gtd >= 0) {  // past a minimum
        bracket = {prev, cur};
        break;
      }
      const double next = cubic_min(prev.t, prev.f, prev.gtd, cur.t, cur.f, cur.gtd, cur.t + 0.01 * (cur.t - prev.t), cur.t * 10);
      prev = cur;
      cur = probe(closure, x, next, d);
      ++evals;
      ++iter;
    }
    if (iter == max_ls) bracket = {start, cur};

    // Zoom: shrink [bracket[0], bracket[1]] around an acceptable step; `low` is the lower-loss end.
    bool stalled = false;
    size_t low = 0, high = 1;
    if (bracket.size() == 2 && bracket[1].f < bracket[0].f) std::swap(low, high);
    while (!done && iter < max_ls) {
      if (std::abs(bracket[1].t - bracket[0].t) * d_norm < tol_change) break;
      double s = cubic_min(bracket[0], bracket[1]);
      const double lo = std::min(bracket[0].t, bracket[1].t), hi = std::max(bracket[0].t, bracket[1].t);
      const double margin = 0.1 * (hi - lo);
      if (std::min(hi - s, s - lo) < margin) {
        // Too close to an end: accept once, move a margin inside when it happens again (or at an end).
        if (stalled || s >= hi || s <= lo) {
          s = std::abs(s - hi) < std::abs(s - lo) ? hi - margin : lo + margin;
          stalled = false;
        } else {
          stalled = true;
        }
      } else {
        stalled = false;
      }
      Probe p = probe(closure, x, s, d);
      ++evals;
      ++iter;
      if (p.f > f + c1 * s * gtd || p.f >= bracket[low].f) {
        bracket[high] = std::move(p);
        if (bracket[1].f < bracket[0].f) low = 1, high = 0;
        else low = 0, high = 1;
      } else {
        if (std::abs(p.gtd) <= -c2 * gtd) done = true;
        else if (p.gtd * (bracket[high].t - bracket[low].t) >= 0) bracket[high] = bracket[low];
        bracket[low] = std::move(p);
      }
    }
    const Probe& best = bracket.size() == 1 ? bracket[0] : bracket[low];
    return {best.f, best.g, best.t, evals};
  }

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

EMBER_PUBLIC_END
