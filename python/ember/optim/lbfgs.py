"""L-BFGS (Nocedal & Wright, Numerical Optimization, algorithm 7.4/7.5) over all parameters as one
flat vector; step(closure) runs up to max_iter iterations with a fixed step lr."""
from .. import _C
from .optimizer import Optimizer, _use_grad_for_differentiable


class LBFGS(Optimizer):
    """Limited-memory BFGS: the search direction is -H g, with H built from the last history_size pairs
    (s, y) of steps and gradient changes by the two-loop recursion. The first step is scaled to
    lr * min(1, 1 / |g|_1). step(closure) needs a closure that clears the gradients, computes the loss,
    calls backward() and returns the loss. One parameter group only; line_search_fn=None only."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if lr < 0:
            raise ValueError(f"[LBFGS] invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn is not None:
            raise NotImplementedError(f"[LBFGS] line_search_fn={line_search_fn!r} is not supported yet (#11); "
                                      "use None (a fixed step lr)")
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("[LBFGS] doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        parts = [(p.grad if p.grad is not None else _C.zeros_like(p)).reshape(-1) for p in self._params]
        return _C.cat(parts, 0)

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
        from .. import enable_grad

        def evaluate():
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change, history = group["tolerance_grad"], group["tolerance_change"], group["history_size"]
        state = self.state.setdefault(self._params[0], {"func_evals": 0, "n_iter": 0})

        first_loss = evaluate()
        loss = float(first_loss)
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
            self._move(t, d)
            converged = False
            if it != max_iter:
                loss = float(evaluate())
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
