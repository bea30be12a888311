"""ember.nn.utils: gradient clipping and parameter/vector conversion."""
import math

from . import rnn  # noqa: F401

from ... import _C
from ..._C import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their joint norm is at most max_norm; returns the norm before."""
    grads = _grads(parameters)
    if not grads:
        return _C.tensor(0.0)
    norm_type = float(norm_type)
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        if math.isinf(norm_type):
            norms = [g.abs().max() for g in grads]
            total = norms[0] if len(norms) == 1 else _C.stack(norms).max()
        else:
            total = _C.stack([g.norm(norm_type) for g in grads]).norm(norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise RuntimeError(f"[clip_grad_norm_] the total norm of order {norm_type} of the gradients is "
                               "non-finite, so it cannot be clipped")
        coef = float(max_norm) / (float(total) + 1e-6)
        if coef < 1.0:
            for g in grads:
                g.mul_(coef)
    finally:
        _C._set_grad_enabled(prev)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element into [-clip_value, clip_value] in place."""
    for g in _grads(parameters):
        g.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    return _C.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    offset = 0
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].view_as(p))
            offset += n
    finally:
        _C._set_grad_enabled(prev)
