"""ember.linalg: what Ember has of torch.linalg (cross)."""
from . import _C


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along dim (input and other broadcast)."""
    r = _C.linalg_cross(input, other, dim=dim)
    if out is None:
        return r
    return out.resize_(r.shape).copy_(r)


__all__ = ["cross"]
