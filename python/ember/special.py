"""ember.special: the special functions under torch.special's names (the C++ frontend's torch::special).

Each is the op of ops.yaml of that meaning (special.gammaln is lgamma, special.expit is sigmoid, ...), so
gradients, out= and errors come with it. A Python number given for one operand of xlog1py or zeta becomes
a 0-dim tensor, which takes part in type promotion as a wrapped number (the tensor operand's dtype wins
within its category; a float with an integer tensor gives the default float dtype).
"""
import math as _math

from . import _C

gammaln = _C.lgamma
digamma = _C.digamma
psi = _C.digamma
polygamma = _C.polygamma
entr = _C.special_entr
erf = _C.erf
erfc = _C.erfc
erfcx = _C.special_erfcx
erfinv = _C.erfinv
ndtr = _C.special_ndtr
log_ndtr = _C.special_log_ndtr
ndtri = _C.special_ndtri
logit = _C.logit
expit = _C.sigmoid
exp2 = _C.exp2
expm1 = _C.expm1
log1p = _C.log1p
round = _C.round
sinc = _C.sinc
xlogy = _C.xlogy
i0 = _C.i0
i0e = _C.special_i0e
i1 = _C.special_i1
i1e = _C.special_i1e
softmax = _C.softmax
log_softmax = _C.log_softmax
logsumexp = _C.logsumexp


def _operand(x, like):
    if isinstance(x, _C.Tensor):
        return x
    if isinstance(x, bool):
        return _C.tensor(x, device=like.device)
    if isinstance(x, (int, float)):
        return _C.tensor(x, device=like.device)
    raise TypeError(f"[special] expected a Tensor or a Python number; got {type(x).__name__}")


def _binary(op, name):
    def f(input, other, *, out=None):
        if not isinstance(input, _C.Tensor) and not isinstance(other, _C.Tensor):
            raise TypeError(f"[{name}] expected at least one Tensor operand; got {type(input).__name__} and "
                            f"{type(other).__name__}")
        a = _operand(input, other if isinstance(other, _C.Tensor) else input)
        b = _operand(other, a)
        return op(a, b) if out is None else op(a, b, out=out)
    f.__name__ = f.__qualname__ = name
    return f


xlog1py = _binary(_C.special_xlog1py, "xlog1py")
xlog1py.__doc__ = "x * log1p(y), 0 where x is 0 (y not NaN)."
zeta = _binary(_C.special_zeta, "zeta")
zeta.__doc__ = "Hurwitz zeta: the sum over k >= 0 of (q + k)^-x, for x = input and q = other."


def multigammaln(input, p, *, out=None):
    """Multivariate log-gamma of dimension p: sum over j < p of lgamma(x - j / 2) + p (p - 1) / 4 log(pi), defined
    where every element exceeds (p - 1) / 2 (as PyTorch, the domain is not checked; the C++ frontend's
    torch::special::multigammaln checks it). An integer input gives the default float dtype."""
    if p < 1:
        raise RuntimeError(f"[multigammaln] expected a dimension p >= 1; got {p}")
    r = _C.lgamma(input)
    for j in range(1, p):
        r = r + _C.lgamma(input - 0.5 * j)
    r = r + 0.25 * p * (p - 1) * _math.log(_math.pi)
    return r if out is None else out.resize_(r.shape).copy_(r)


__all__ = ["gammaln", "digamma", "psi", "polygamma", "multigammaln", "entr", "erf", "erfc", "erfcx", "erfinv", "ndtr",
           "log_ndtr", "ndtri", "logit", "expit", "exp2", "expm1", "log1p", "round", "sinc", "xlogy", "xlog1py",
           "zeta", "i0", "i0e", "i1", "i1e", "softmax", "log_softmax", "logsumexp"]
