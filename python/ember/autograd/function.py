"""ember.autograd.Function: an operation with a forward and a backward written in Python.

    class Exp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

apply() runs forward with grad mode off and, when a tensor argument requires grad, records one
node in the graph (a C++ Node, python/src/autograd.cpp) whose backward calls the class's backward
with the GIL held. The ctx handed to forward and backward is that node as Python sees it: it is
also the outputs' grad_fn, an instance of `<Name>Backward`.
"""
import functools as _functools
import inspect as _inspect

from .. import _C


class BackwardCFunction(_C._FunctionBase):
    """The ctx of one Function call and its node in the graph (what the outputs' grad_fn is).

    C++ methods (ember._C._FunctionBase): save_for_backward(*tensors), saved_tensors,
    needs_input_grad, mark_non_differentiable(*tensors), mark_dirty(*tensors),
    set_materialize_grads(bool), name(), next_functions. Other attributes set on ctx in forward
    (ctx.k = 3) are kept for backward.
    """
    _forward_cls = None

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"


# libtorch's Python spelling of the ctx type.
FunctionCtx = BackwardCFunction


class FunctionMeta(type):
    """Gives each Function subclass its ctx/node type, `<Name>Backward`."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        # vjp is the other name of backward: a class that defines only vjp uses it as its backward.
        if "vjp" in attrs and "backward" not in attrs:
            cls.backward = attrs["vjp"]


class Function(metaclass=FunctionMeta):
    """Base of custom autograd operations: define static forward(ctx, *args) and
    backward(ctx, *grad_outputs), then call Cls.apply(*args).

    backward gets one gradient per output of forward (None for an output that is not a tensor)
    and returns one gradient per argument of forward (None for arguments that are not tensors or
    need none). forward may instead take only the arguments, with a static
    setup_context(ctx, inputs, output) filling ctx.
    """

    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"[autograd.Function] {type(self).__name__} is used through its static methods: call "
                           f"{type(self).__name__}.apply(...) instead of making an instance")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("[autograd.Function] a Function subclass must define a static forward")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("[autograd.Function] setup_context is optional; this one is not defined")

    @staticmethod
    def backward(ctx, *grad_outputs):
        name = ctx._forward_cls.__name__ if ctx._forward_cls else "Function"
        raise NotImplementedError(f"[autograd.Function] {name} defines no backward (nor vjp), so gradients cannot "
                                  "flow through it")

    vjp = backward

    @classmethod
    def _run_forward(cls, ctx, args):
        # Called by _C._function_apply with grad mode off.
        if cls.setup_context is Function.setup_context:
            return cls.forward(ctx, *args)
        output = cls.forward(*args)
        cls.setup_context(ctx, args, output)
        return output

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs forward on the arguments and records the call in the graph."""
        if kwargs:
            sig = _inspect.signature(cls.forward)
            if cls.setup_context is Function.setup_context:
                bound = sig.bind(None, *args, **kwargs)
                bound.apply_defaults()
                args = bound.args[1:]
            else:
                bound = sig.bind(*args, **kwargs)
                bound.apply_defaults()
                args = bound.args
        return _C._function_apply(cls, cls._backward_cls(), tuple(args))


def once_differentiable(fn):
    """Decorates a Function's backward that is not itself differentiable: it runs without
    recording a graph, so its results carry no history."""

    @_functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            return fn(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)

    return wrapper
