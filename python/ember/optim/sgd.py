"""Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay."""
from .optimizer import Optimizer, required, _closure_loss, _use_grad_for_differentiable


class SGD(Optimizer):
    """p <- p - lr * d, where d is the gradient (plus weight_decay * p), or with momentum the buffer
    b <- momentum * b + (1 - dampening) * d (b starts as d), and d + momentum * b under nesterov."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr is not required and lr < 0.0:
            raise ValueError(f"[SGD] invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"[SGD] invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"[SGD] invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("[SGD] nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
            for p in group["params"]:
                d = p.grad
                if d is None:
                    continue
                if maximize:
                    d = -d
                if wd != 0:
                    d = d.add(p, alpha=wd)
                if momentum != 0:
                    state = self.state.setdefault(p, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = d.clone().detach()
                        state["momentum_buffer"] = buf
                    else:
                        buf.mul_(momentum).add_(d, alpha=1 - dampening)
                    d = d.add(buf, alpha=momentum) if nesterov else buf
                p.add_(d, alpha=-lr)
        return loss
