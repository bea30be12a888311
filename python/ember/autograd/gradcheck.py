"""gradcheck / gradgradcheck: the gradients autograd computes against central finite differences
(the C++ check, torch::autograd::gradcheck, with a Python function)."""
from .. import _C
from .._C import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical gradients differ."""


def _as_list(x):
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _check(second_order, func, inputs, eps, atol, rtol, raise_exception):
    inputs = _as_list(inputs)
    ok, report = _C._gradcheck(lambda xs: _as_list(func(*xs)), inputs, eps, atol, rtol, second_order)
    if not ok and raise_exception:
        what = "gradgradcheck" if second_order else "gradcheck"
        raise GradcheckError(f"[{what}] {report}")
    return ok


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True if the gradients of func(*inputs) with respect to the float64 inputs that require grad
    match finite differences within atol + rtol * |numerical|; otherwise raises GradcheckError
    naming the worst element (or returns False with raise_exception=False)."""
    return _check(False, func, inputs, eps, atol, rtol, raise_exception)


def gradgradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """gradcheck of the first gradients (with random gradient outputs): checks second derivatives."""
    return _check(True, func, inputs, eps, atol, rtol, raise_exception)
