"""ember.nn.Parameter: a tensor that a Module registers as one of its parameters.

See Note [Parameters are plain tensors] for why Parameter(...) returns an ember.Tensor rather than
an instance of a Tensor subclass.
"""
from .. import _C
from .._C import Tensor

# Note [Parameters are plain tensors]
# ember.Tensor is a nanobind class with no Python constructor, so a Python subclass of it cannot be
# instantiated, and an existing tensor's __class__ cannot be changed (nanobind's deallocator differs).
# Parameter(data) therefore returns a detached leaf tensor sharing data's storage, with
# requires_grad set. `isinstance(x, Parameter)` is answered by the metaclass: a leaf tensor that
# requires grad counts as a parameter, and so does a tensor that Parameter(..., requires_grad=False)
# made (remembered in _frozen until a Module registers it). Module keeps its parameters by
# registration (_parameters), so parameters() never depends on this test.
_frozen = {}


class _ParameterMeta(type):
    def __instancecheck__(cls, obj):
        if not isinstance(obj, Tensor):
            return False
        if _frozen.get(id(obj)) is obj:
            return True
        return obj.requires_grad and obj.is_leaf


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
        if not requires_grad:
            _frozen[id(p)] = p
        return p


def _forget(t):
    """Drops t from the frozen-parameter memo once a Module has registered it."""
    if _frozen.get(id(t)) is t:
        del _frozen[id(t)]


class Buffer(metaclass=type):
    """A tensor that a Module keeps in its state_dict but does not train: `self.x = Buffer(t)` registers
    t as a buffer (persistent=False keeps it out of state_dict)."""

    def __init__(self, data, persistent=True):
        if not isinstance(data, Tensor):
            raise TypeError(f"[Buffer] data must be a Tensor, got {type(data).__name__}")
        self.data = data
        self.persistent = persistent
