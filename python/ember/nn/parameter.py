"""ember.nn.Parameter: a tensor that a Module registers as one of its parameters.

See Note [Parameters are plain tensors] for why Parameter(...) returns an ember.Tensor rather than
an instance of a Tensor subclass.
"""
import weakref as _weakref

from .. import _C
from .._C import Tensor

# Note [Parameters are plain tensors]
# ember.Tensor is a nanobind class with no Python constructor, so a Python subclass of it cannot be
# instantiated, and an existing tensor's __class__ cannot be changed (nanobind's deallocator differs).
# Parameter(data) therefore returns a detached leaf tensor sharing data's storage, with
# requires_grad set, and remembers it (weakly, by identity) in _made. `isinstance(x, Parameter)` is
# answered by the metaclass from that record: true for the tensors Parameter() made (and for the copies
# a Module makes of its own parameters: to(), load_state_dict(assign=True), deepcopy and pickling), false
# for any other tensor, requires_grad or not, as PyTorch answers for a plain tensor. So a plain tensor
# assigned to a Module attribute stays a plain attribute, as in PyTorch. What this cannot give:
# type(p) is ember.Tensor, repr(p) does not say "Parameter containing:", and copy.deepcopy(p) or
# p.detach() of a lone parameter is a plain tensor (a real subclass needs a Tensor constructor in
# python/src/module.cpp).
_made = {}  # id(tensor) -> weak reference to it


def _mark(t):
    key = id(t)

    def gone(_, key=key):
        r = _made.get(key)
        if r is not None and r() is None:
            del _made[key]

    _made[key] = _weakref.ref(t, gone)
    return t


def _is_parameter(obj):
    r = _made.get(id(obj))
    return r is not None and r() is obj


class _ParameterMeta(type):
    def __instancecheck__(cls, obj):
        return _is_parameter(obj)


class Parameter(metaclass=_ParameterMeta):
    """A tensor meant to be trained: assigning one to a Module attribute registers it.

    `Parameter(data, requires_grad=True)` returns a leaf ember.Tensor sharing data's storage (see
    Note [Parameters are plain tensors]); `Parameter()` is an empty float tensor.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"[Parameter] data must be a Tensor, got {type(data).__name__}")
        p = data.detach()
        p.requires_grad_(bool(requires_grad))
        return _mark(p)


def _forget(t):
    """Kept for the callers of the former frozen-parameter memo: a registered parameter stays marked."""


class Buffer(metaclass=type):
    """A tensor that a Module keeps in its state_dict but does not train: `self.x = Buffer(t)` registers
    t as a buffer (persistent=False keeps it out of state_dict)."""

    def __init__(self, data, persistent=True):
        if not isinstance(data, Tensor):
            raise TypeError(f"[Buffer] data must be a Tensor, got {type(data).__name__}")
        self.data = data
        self.persistent = persistent
