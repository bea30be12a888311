"""ember.nn.Parameter: a tensor that a Module registers as one of its parameters."""
from collections import OrderedDict as _OrderedDict

from .. import _C
from .._C import Tensor
from ..serialization import _storage_copy

# Note [Parameter is a Tensor subclass]
# Parameter is a Python subclass of ember.Tensor. ember.Tensor has no Python constructor, so
# Parameter.__new__ has _C._make_subclass (python/src/module.cpp) allocate an instance of the subclass
# around a detached alias of the data (same storage, a leaf with its own requires_grad). Ops on a
# parameter return plain ember.Tensor (their results are made as the base type), in-place ops return the
# parameter itself. Unlike ember.Tensor, instances have a __dict__ (attributes may be set on a
# parameter); the GC reaches it through CPython's subtype traverse/clear, which then call Tensor's own
# (Note [Tensor GC]). ember.Tensor's own method calls are untouched: the base type still has no __dict__.


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """What pickle calls to remake a Parameter (the spelling of torch._utils._rebuild_parameter)."""
    del backward_hooks  # Ember pickles none (PyTorch writes an empty OrderedDict)
    return Parameter(data, requires_grad)


class Parameter(Tensor):
    """A tensor meant to be trained: assigning one to a Module attribute registers it.

    `Parameter(data, requires_grad=True)` shares data's storage as a new leaf; `Parameter()` is an empty
    float tensor.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, Tensor):  # (AttributeError, as PyTorch's: data has no detach())
            raise AttributeError(f"[Parameter] data must be a Tensor, got {type(data).__name__}")
        return _C._make_subclass(cls, data, bool(requires_grad))

    def __init__(self, data=None, requires_grad=True):  # (ember.Tensor's own __init__ refuses to run)
        pass

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__  # (ember.Tensor sets its own __str__; print(p) shows the prefix too, as PyTorch's)

    def __reduce_ex__(self, protocol):
        args = (self.detach(), self.requires_grad, _OrderedDict())
        state = self.__dict__
        return (_rebuild_parameter, args, dict(state)) if state else (_rebuild_parameter, args)

    def __deepcopy__(self, memo):
        # As PyTorch's: the data copied (parameters viewing one storage stay views of one new storage
        # within a deep copy, as plain tensors do), requires_grad kept; no grad.
        done = memo.get(id(self))
        if done is not None:
            return done
        result = type(self)(_storage_copy(self, memo), self.requires_grad)
        memo[id(self)] = result
        return result


class Buffer(metaclass=type):
    """A tensor that a Module keeps in its state_dict but does not train: `self.x = Buffer(t)` registers
    t as a buffer (persistent=False keeps it out of state_dict)."""

    def __init__(self, data, persistent=True):
        if not isinstance(data, Tensor):
            raise TypeError(f"[Buffer] data must be a Tensor, got {type(data).__name__}")
        self.data = data
        self.persistent = persistent
