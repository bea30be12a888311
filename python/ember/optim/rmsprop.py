"""RMSprop (Hinton's lecture 6e) and Adagrad (Duchi et al., 2011)."""
import math

from .. import _C
from .optimizer import Optimizer, _closure_loss, _use_grad_for_differentiable


class RMSprop(Optimizer):
    """v <- alpha v + (1 - alpha) g^2; p <- p - lr g / (sqrt(v) + eps) (centered: v minus the squared running
    mean of g; momentum: a buffer b <- momentum b + g / (...) stepped instead)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        for name, v in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                        ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if v < 0:
                raise ValueError(f"[RMSprop] invalid {name}: {v}")
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if group["maximize"]:
                    g = -g
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {"step": _C.tensor(0.0), "square_avg": _C.zeros_like(p)}
                    if momentum > 0:
                        state["momentum_buffer"] = _C.zeros_like(p)
                    if centered:
                        state["grad_avg"] = _C.zeros_like(p)
                state["step"].add_(1)
                if wd != 0:
                    g = g.add(p, alpha=wd)
                v = state["square_avg"]
                v.mul_(alpha).addcmul_(g, g, value=1 - alpha)
                if centered:
                    m = state["grad_avg"]
                    m.mul_(alpha).add_(g, alpha=1 - alpha)
                    denom = v.addcmul(m, m, value=-1).sqrt_().add_(eps)
                else:
                    denom = v.sqrt().add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(g, denom)
                    p.add_(buf, alpha=-lr)
                else:
                    p.addcdiv_(g, denom, value=-lr)
        return loss


class Adagrad(Optimizer):
    """s <- s + g^2; p <- p - lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps)."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        for name, v in (("learning rate", lr), ("lr_decay", lr_decay), ("weight_decay value", weight_decay),
                        ("initial_accumulator_value", initial_accumulator_value), ("epsilon value", eps)):
            if v < 0:
                raise ValueError(f"[Adagrad] invalid {name}: {v}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize))
        for group in self.param_groups:  # Adagrad's state exists from the start
            for p in group["params"]:
                self.state[p] = {"step": _C.tensor(0.0),
                                 "sum": _C.full_like(p, float(group["initial_accumulator_value"]))}

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if group["maximize"]:
                    g = -g
                state = self.state[p]
                state["step"].add_(1)
                t = float(state["step"].item())
                if group["weight_decay"] != 0:
                    g = g.add(p, alpha=group["weight_decay"])
                clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
                s = state["sum"]
                s.addcmul_(g, g, value=1)
                p.addcdiv_(g, s.sqrt().add_(group["eps"]), value=-clr)
        return loss
