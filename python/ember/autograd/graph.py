"""ember.autograd.graph: the backward graph's nodes as Python sees them.

A tensor with history has a grad_fn: a Node with name() ("MulBackward0"), next_functions (one
(node or None, input_nr) pair per input of the forward op: None for inputs that need no gradient,
an AccumulateGrad node, whose .variable is the leaf, for leaves that require grad). The nodes of
custom Functions are their ctx objects (ember.autograd.function.BackwardCFunction).
"""
import abc as _abc

from .. import _C
from .function import BackwardCFunction


class Node(_abc.ABC):
    """Abstract type of every graph node: isinstance(t.grad_fn, Node) holds for any grad_fn."""

    @_abc.abstractmethod
    def name(self):
        """The node's name, e.g. 'MulBackward0'."""

    @property
    @_abc.abstractmethod
    def next_functions(self):
        """Tuple of (node or None, input_nr), one per input of the forward op."""


Node.register(_C._Node)
Node.register(BackwardCFunction)
