"""ember.autograd: gradients from Python (the C++ engine, run without the GIL)."""
from . import _C
from ._C import Tensor


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
