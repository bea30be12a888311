"""L-BFGS (Nocedal & Wright, Numerical Optimization, algorithm 7.4/7.5) over all parameters as one
flat vector; step(closure) runs up to max_iter iterations, each with a fixed step lr or, with
line_search_fn="strong_wolfe", a step that satisfies the strong Wolfe conditions (algorithms 3.5/3.6)."""
import math

from .. import _C
from .optimizer import Optimizer, _closure_loss, _use_grad_for_differentiable


class _Probe:
    """One evaluated point of a line search: the step t, the loss f there, the flat gradient g and the
    slope g.d along the search direction."""
    __slots__ = ("t", "f", "g", "slope")

    def __init__(self, t, f, g, slope):
        self.t, self.f, self.g, self.slope = t, f, g, slope


def _cubic_minimizer(a, b, lo=None, hi=None):
    """The minimiser of the cubic that matches f and the slope at probes a and b (N&W eq. 3.59), clamped
    to [lo, hi] (by default the interval between a.t and b.t); the middle of [lo, hi] where the cubic
    has no local minimum."""
    if a.t > b.t:
        a, b = b, a
    if lo is None:
        lo, hi = a.t, b.t
    if a.t == b.t:
        return min(max(a.t, lo), hi)
    d1 = a.slope + b.slope - 3 * (a.f - b.f) / (a.t - b.t)
    disc = d1 * d1 - a.slope * b.slope
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = math.sqrt(disc)
    denom = b.slope - a.slope + 2 * d2
    if denom == 0:
        return (lo + hi) / 2.0
    t = b.t - (b.t - a.t) * ((b.slope + d2 - d1) / denom)
    return min(max(t, lo), hi)


def _strong_wolfe(probe, start, t, d_max, max_evals, tolerance_change, c1=1e-4, c2=0.9):
    """A step along the search direction that satisfies the strong Wolfe conditions

        f(t) <= f(0) + c1 t f'(0)    (sufficient decrease)    and    |f'(t)| <= c2 |f'(0)|    (curvature)

    found by N&W's algorithm 3.5: steps grow (by cubic interpolation, from the last step plus a hundredth
    of the last increase up to 10 times the last step) until one satisfies both or an interval is known
    to hold such steps; then algorithm 3.6
    ("zoom") shrinks that interval by cubic interpolation, keeping each trial at least a tenth of the
    interval from its ends when the last trial was already that close. probe(t) evaluates the loss
    at t; start is the probe at t = 0; d_max = max |d| (the interval is too small once its length
    times d_max is below tolerance_change). Returns the best probe found and how many evaluations
    were made (at most max_evals after the first)."""
    f0, slope0 = start.f, start.slope

    def decreases(p):
        return p.f <= f0 + c1 * p.t * slope0

    def flat_enough(p):
        return abs(p.slope) <= -c2 * slope0

    prev, cur = start, probe(t)
    evals, tries = 1, 0
    ends = None
    while tries < max_evals:
        if not decreases(cur) or (tries > 1 and cur.f >= prev.f):
            ends = [prev, cur]  # too far: a step in between satisfies both conditions
            break
        if flat_enough(cur):
            return cur, evals
        if cur.slope >= 0:
            ends = [prev, cur]  # the loss rises again beyond cur: the same
            break
        nxt = _cubic_minimizer(prev, cur, cur.t + 0.01 * (cur.t - prev.t), 10 * cur.t)
        prev, cur = cur, probe(nxt)
        evals += 1
        tries += 1
    if ends is None:  # out of evaluations while the steps still grew: the better of 0 and the last
        ends = [start, cur]

    # ends[low] has the lower loss (the first on a tie), ends[1 - low] the other end of the interval
    low = 0 if ends[0].f <= ends[1].f else 1
    near_end = False
    while tries < max_evals:
        left, right = min(ends[0].t, ends[1].t), max(ends[0].t, ends[1].t)
        if (right - left) * d_max < tolerance_change:
            break
        t = _cubic_minimizer(ends[0], ends[1])
        margin = 0.1 * (right - left)
        if min(right - t, t - left) < margin:
            # a trial this close to an end twice running (or on an end) moves a tenth inside instead
            if near_end or t >= right or t <= left:
                t = right - margin if abs(t - right) < abs(t - left) else left + margin
                near_end = False
            else:
                near_end = True
        else:
            near_end = False
        p = probe(t)
        evals += 1
        tries += 1
        if not decreases(p) or p.f >= ends[low].f:
            ends[1 - low] = p  # the minimiser lies between the low end and p
            low = 0 if ends[0].f <= ends[1].f else 1
            continue
        if flat_enough(p):
            ends[low] = p
            break
        if p.slope * (ends[1 - low].t - ends[low].t) >= 0:
            ends[1 - low] = ends[low]  # the loss falls from p towards the old low end
        ends[low] = p
    return ends[low], evals


class LBFGS(Optimizer):
    """Limited-memory BFGS: the search direction is -H g, with H built from the last history_size pairs
    (s, y) of steps and gradient changes by the two-loop recursion. The first step is scaled to
    lr * min(1, 1 / |g|_1). Each iteration moves by the step lr along it, or with
    line_search_fn="strong_wolfe" by a step found by a line search that starts from that step and
    stops at one satisfying the strong Wolfe conditions (c1=1e-4, c2=0.9), with at most max_eval
    loss evaluations per step() call. step(closure) needs a closure that clears the gradients,
    computes the loss, calls backward() and returns the loss. One parameter group only; maximize=True
    climbs the loss instead."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None, *, maximize=False):
        if lr < 0:
            raise ValueError(f"[LBFGS] invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"[LBFGS] line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn, maximize=maximize))
        if len(self.param_groups) != 1:
            raise ValueError("[LBFGS] doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        parts = [(p.grad if p.grad is not None else _C.zeros_like(p)).reshape(-1) for p in self._params]
        g = _C.cat(parts, 0)
        return g.neg_() if self.param_groups[0].get("maximize", False) else g

    def _move(self, t, d):
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(d[offset:offset + n].view_as(p), alpha=t)
            offset += n

    @_use_grad_for_differentiable
    def step(self, closure=None):
        if closure is None:
            raise RuntimeError("[LBFGS] step() needs a closure that reevaluates the model and returns the loss")

        def evaluate():
            return _closure_loss(closure)

        if not self._params:
            return evaluate()
        group = self.param_groups[0]
        sign = -1.0 if group.get("maximize", False) else 1.0
        line_search = group["line_search_fn"]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change, history = group["tolerance_grad"], group["tolerance_change"], group["history_size"]
        state = self.state.setdefault(self._params[0], {"func_evals": 0, "n_iter": 0})

        first_loss = evaluate()
        loss = sign * float(first_loss)
        evals = 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if g.abs().max().item() <= tol_grad:
            return first_loss

        d, t = state.get("d"), state.get("t")
        dirs, steps, rhos = state.get("old_dirs", []), state.get("old_stps", []), state.get("ro", [])
        h_diag, g_prev, loss_prev = state.get("H_diag", 1), state.get("prev_flat_grad"), state.get("prev_loss")
        it = 0
        while it < max_iter:
            it += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -g
                dirs, steps, rhos, h_diag = [], [], [], 1
            else:
                y = g - g_prev
                s = d * t
                ys = y.dot(s).item()
                if ys > 1e-10:  # keep the pair only while the curvature condition holds
                    if len(dirs) == history:
                        dirs.pop(0), steps.pop(0), rhos.pop(0)
                    dirs.append(y)
                    steps.append(s)
                    rhos.append(1.0 / ys)
                    h_diag = ys / y.dot(y).item()
                # two-loop recursion: d = -H g
                alphas = [0.0] * len(dirs)
                q = -g
                for i in range(len(dirs) - 1, -1, -1):
                    alphas[i] = steps[i].dot(q).item() * rhos[i]
                    q = q.add(dirs[i], alpha=-alphas[i])
                r = q * h_diag
                for i in range(len(dirs)):
                    beta = dirs[i].dot(r).item() * rhos[i]
                    r = r.add(steps[i], alpha=alphas[i] - beta)
                d = r
            g_prev = g.clone()
            loss_prev = loss
            t = min(1.0, 1.0 / g.abs().sum().item()) * lr if state["n_iter"] == 1 else lr
            slope = g.dot(d).item()
            if slope > -tol_change:  # not a descent direction any more
                break
            converged = False
            if line_search == "strong_wolfe":
                start = [p.clone() for p in self._params]

                def probe(step, d=d, start=start):
                    self._move(step, d)
                    f = sign * float(evaluate())
                    grad = self._flat_grad()
                    for p, p0 in zip(self._params, start):
                        p.copy_(p0)
                    return _Probe(step, f, grad, grad.dot(d).item())

                best, n = _strong_wolfe(probe, _Probe(0.0, loss, g, slope), t, d.abs().max().item(),
                                        max_eval - evals, tol_change)
                t, loss, g = best.t, best.f, best.g
                self._move(t, d)
                converged = g.abs().max().item() <= tol_grad
                evals += n
                state["func_evals"] += n
            else:
                self._move(t, d)
                if it != max_iter:
                    loss = sign * float(evaluate())
                    g = self._flat_grad()
                    converged = g.abs().max().item() <= tol_grad
                    evals += 1
                    state["func_evals"] += 1
            if it == max_iter or evals >= max_eval or converged:
                break
            if (d * t).abs().max().item() <= tol_change or abs(loss - loss_prev) < tol_change:
                break
        state.update(d=d, t=t, old_dirs=dirs, old_stps=steps, ro=rhos, H_diag=h_diag, prev_flat_grad=g_prev,
                     prev_loss=loss_prev)
        return first_loss
