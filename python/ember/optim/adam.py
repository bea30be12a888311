"""Adam and AdamW (Kingma & Ba, 2015; Loshchilov & Hutter, 2019), with the AMSGrad variant."""
import math

from .. import _C
from .optimizer import Optimizer, _closure_loss, _use_grad_for_differentiable


class Adam(Optimizer):
    """Adam: m <- b1 m + (1-b1) g, v <- b2 v + (1-b2) g^2,
    p <- p - lr/(1-b1^t) * m / (sqrt(v/(1-b2^t)) + eps); weight_decay adds weight_decay * p to g."""

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None):
        name = type(self).__name__
        if not 0.0 <= float(lr):
            raise ValueError(f"[{name}] invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"[{name}] invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"[{name}] invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"[{name}] invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"[{name}] invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if maximize:
                    g = -g
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {
                        "step": _C.tensor(0.0),
                        "exp_avg": _C.zeros_like(p),
                        "exp_avg_sq": _C.zeros_like(p),
                    }
                    if amsgrad:
                        state["max_exp_avg_sq"] = _C.zeros_like(p)
                state["step"].add_(1)
                t = float(state["step"].item())
                if wd != 0:
                    if self._decoupled:
                        p.mul_(1 - lr * wd)
                    else:
                        g = g.add(p, alpha=wd)
                m, v = state["exp_avg"], state["exp_avg_sq"]
                m.mul_(beta1).add_(g, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                bc1 = 1 - beta1 ** t
                bc2_sqrt = math.sqrt(1 - beta2 ** t)
                if amsgrad:
                    vmax = state["max_exp_avg_sq"]
                    _C.maximum(vmax, v, out=vmax)
                    denom = vmax.sqrt().div_(bc2_sqrt).add_(eps)
                else:
                    denom = v.sqrt().div_(bc2_sqrt).add_(eps)
                p.addcdiv_(m, denom, value=-lr / bc1)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay: p <- p * (1 - lr * weight_decay) before the Adam update."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
