"""ember.autograd: gradients from Python (the C++ engine, run without the GIL).

grad() and backward() run the engine; Function (function.py) defines operations with a Python
backward; graph.Node is the type of every grad_fn; gradcheck compares gradients with finite
differences; detect_anomaly makes backward raise at the first NaN gradient; functional has
jacobian, hessian, vjp, jvp, vhp, hvp. Tensor hooks
(Tensor.register_hook), grad_fn, retain_grad and .grad are methods of ember.Tensor
(python/src/autograd.cpp). The grad-mode context managers are ember's (ember.autograd.no_grad is
ember.no_grad).
"""
from .. import _C
from .._C import Tensor
from . import anomaly_mode, function, functional, graph  # noqa: F401
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401,E402

_GRAD_MODES = ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode")


def __getattr__(name):
    # ember/__init__.py imports this package before it defines the grad modes: look them up late.
    if name in _GRAD_MODES:
        import ember
        return getattr(ember, name)
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")


def _seq(x):
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """Gradients of `outputs` with respect to `inputs`, returned as a tuple (not accumulated into
    .grad); None for an unused input when allow_unused=True."""
    return _C._autograd_grad(_seq(outputs), _seq(inputs), _seq(grad_outputs), retain_graph, create_graph,
                             allow_unused)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` into the leaves' .grad (only into `inputs` if given)."""
    _C._autograd_backward(_seq(tensors), _seq(grad_tensors), retain_graph, create_graph, _seq(inputs))
