"""Autograd from Python: tensor hooks, ember.autograd.Function, grad_fn / next_functions, retain_grad,
.grad and requires_grad assignment, grad-mode decorators.

References: hand-derived derivatives, central finite differences in float64, and values recorded
from PyTorch 2.x (marked "PyTorch:"; the numbers are data here, torch is not imported)."""
import math
import threading

import pytest

import ember
from ember.autograd import Function
from ember.autograd.function import once_differentiable
from ember.autograd.graph import Node


def f64(values, requires_grad=False):
    return ember.tensor(values, dtype=ember.float64, requires_grad=requires_grad)


def approx(values, rel=1e-12, abs=1e-12):
    return pytest.approx(values, rel=rel, abs=abs)


def finite_difference(fn, xs, h=1e-6):
    """d sum(fn(x)) / dx_i by central differences; fn maps a list of floats to a list of floats."""
    grads = []
    for i in range(len(xs)):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        grads.append((sum(fn(up)) - sum(fn(down))) / (2 * h))
    return grads


# ---------------------------------------------------------------- tensor hooks

def test_hook_replaces_the_gradient_of_a_leaf():
    xs = [1.5, -2.0, 0.25]
    x = f64(xs, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))  # returns None: observes only
    x.register_hook(lambda g: g * 2)
    (x * x).sum().backward()
    assert seen == [approx([2 * v for v in xs])]
    assert x.grad.tolist() == approx([4 * v for v in xs])


def test_hooks_run_in_registration_order_and_chain():
    xs = [1.0, 3.0]
    x = f64(xs, requires_grad=True)
    x.register_hook(lambda g: g + 1)
    x.register_hook(lambda g: g * 2)  # sees the first hook's result
    (x * x).sum().backward()
    assert x.grad.tolist() == approx([(2 * v + 1) * 2 for v in xs])


def test_hook_on_a_non_leaf_changes_what_flows_further():
    xs = [1.0, -0.5]
    x = f64(xs, requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g + 1)
    (y * y).sum().backward()
    # dL/dy = 2y, hooked to 2y + 1; dL/dx = 3 (2y + 1)
    assert x.grad.tolist() == approx([3 * (2 * 3 * v + 1) for v in xs])


def test_removed_hook_is_not_called():
    x = f64([2.0], requires_grad=True)
    calls = []

    def hook(g):
        calls.append(1)
        return g * 100

    handle = x.register_hook(hook)
    handle.remove()
    handle.remove()  # removing twice is harmless
    (x * 5).sum().backward()
    assert calls == [] and x.grad.tolist() == [5.0]
    with x.register_hook(lambda g: g * 0):  # a handle is a context manager: removed on exit
        (x * 5).sum().backward()
    (x * 5).sum().backward()
    assert x.grad.tolist() == [10.0]


def test_retain_grad_sees_the_hooked_gradient():
    # PyTorch: z.grad == [60., 120.], x.grad == [180., 360.] (retain_grad shows the hook's result)
    x = f64([1.0, 2.0], requires_grad=True)
    z = x * 3
    z.retain_grad()
    z.register_hook(lambda g: g * 10)
    (z * z).sum().backward()
    assert z.grad.tolist() == [60.0, 120.0] and x.grad.tolist() == [180.0, 360.0]


def test_hooks_apply_to_autograd_grad():
    # PyTorch: grad w.r.t. a leaf with hook g*2 of sum(x*x) at [1, 2] -> [4, 8]; w.r.t. y = 3x with
    # hook g+1 of sum(y*y) -> [7, 13]
    x = f64([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    (g,) = ember.autograd.grad((x * x).sum(), x)
    assert g.tolist() == [4.0, 8.0] and x.grad is None
    y = x * 3
    y.register_hook(lambda g: g + 1)
    (gy,) = ember.autograd.grad((y * y).sum(), y)
    assert gy.tolist() == [7.0, 13.0]


def test_hook_may_run_autograd_itself():
    # PyTorch: the hook sees grad mode off (backward without create_graph) and gives x.grad [12, 12]
    x = f64([1.0, 2.0], requires_grad=True)
    w = f64([3.0], requires_grad=True)
    modes = []

    def hook(g):
        modes.append(ember.is_grad_enabled())
        with ember.enable_grad():
            (gw,) = ember.autograd.grad((w * w).sum(), w)  # a nested engine run, d(w^2)/dw = 6
        return g * gw

    y = x * 2
    y.register_hook(hook)
    y.sum().backward()
    assert modes == [False] and x.grad.tolist() == [12.0, 12.0]


class HookError(Exception):
    pass


def test_hook_exception_comes_back_from_backward():
    x = f64([1.0, 2.0], requires_grad=True)
    y = x * 2

    def bad(g):
        raise HookError("raised inside the hook")

    handle = y.register_hook(bad)
    with pytest.raises(HookError, match="raised inside the hook"):
        y.sum().backward(retain_graph=True)
    with pytest.raises(HookError):
        ember.autograd.grad(y.sum(), x, retain_graph=True)
    assert x.grad is None
    handle.remove()
    y.sum().backward()  # the graph still works once the hook is gone
    assert x.grad.tolist() == [2.0, 2.0]


def test_leaf_hook_exception_type_is_kept():
    x = f64([1.0], requires_grad=True)
    x.register_hook(lambda g: {}["missing"])
    with pytest.raises(KeyError):
        (x * 2).sum().backward()


def test_hook_errors():
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^\[register_hook\] expected a tensor that requires grad"):
        x.register_hook(lambda g: g)
    x.requires_grad = True
    with pytest.raises(TypeError, match=r"^\[register_hook\] expected a callable"):
        x.register_hook(3)
    h = x.register_hook(lambda g: 1.5)
    with pytest.raises(TypeError, match=r"^\[register_hook\] expected the hook to return None or a Tensor; got float"):
        (x * 2).sum().backward()
    h.remove()
    h = x.register_hook(lambda g: g[:1])
    with pytest.raises(RuntimeError, match=r"^\[register_hook\] expected the hook to return a gradient of the shape"):
        (x * 2).sum().backward()
    h.remove()
    h = x.register_hook(lambda g: g.to(ember.float32))
    with pytest.raises(RuntimeError, match=r"^\[register_hook\] expected the hook to return a gradient of dtype"):
        (x * 2).sum().backward()


# ---------------------------------------------------------------- custom Functions

class Exp(Function):
    ctxs = []

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        Exp.ctxs.append(ctx)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


def test_function_exp_values_gradient_and_node():
    xs = [0.0, 1.0, -2.5]
    x = f64(xs, requires_grad=True)
    y = Exp.apply(x)
    assert y.tolist() == approx([math.exp(v) for v in xs])
    assert y.requires_grad and not y.is_leaf
    fn = y.grad_fn
    assert fn is Exp.ctxs[-1]  # the ctx is the node
    assert fn.name() == "ExpBackward" and type(fn).__name__ == "ExpBackward" and isinstance(fn, Node)
    assert fn._forward_cls is Exp
    (acc, nr), = fn.next_functions
    assert nr == 0 and acc.name() == "torch::autograd::AccumulateGrad"
    (y * 3).sum().backward()
    assert x.grad.tolist() == approx([3 * math.exp(v) for v in xs])


def test_function_double_call_and_saved_tensors_freed():
    xs = [0.5, -1.0]
    x = f64(xs, requires_grad=True)
    y1, y2 = Exp.apply(x), Exp.apply(x)
    assert y1.grad_fn is not y2.grad_fn
    (y1 + y2).sum().backward(retain_graph=True)
    assert x.grad.tolist() == approx([2 * math.exp(v) for v in xs])
    y1.sum().backward()  # graph kept: runs again, frees y1's saved tensors
    assert x.grad.tolist() == approx([3 * math.exp(v) for v in xs])
    with pytest.raises(RuntimeError, match=r"^\[ExpBackward\] expected saved tensors that are still held"):
        y1.sum().backward()


def test_function_no_input_requires_grad_records_nothing():
    x = f64([1.0])
    y = Exp.apply(x)
    assert not y.requires_grad and y.grad_fn is None and y.tolist() == approx([math.e])
    # under no_grad nothing is recorded either; needs_input_grad still says which inputs require
    # grad (PyTorch: (True, False) for ScaleShift.apply(x, 2.0) with x requiring grad)
    x.requires_grad = True
    with ember.no_grad():
        z = ScaleShift.apply(x, 2.0)
    assert not z.requires_grad and z.grad_fn is None and ScaleShift.seen["needs"] == (True, False)


class SinCos(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        (x,) = ctx.saved_tensors
        return g_sin * x.cos() - g_cos * x.sin()


def test_function_two_outputs():
    xs = [0.3, -1.2, 2.0]
    x = f64(xs, requires_grad=True)
    s, c = SinCos.apply(x)
    assert s.grad_fn is c.grad_fn and (s.output_nr, c.output_nr) == (0, 1)
    assert s.tolist() == approx([math.sin(v) for v in xs]) and c.tolist() == approx([math.cos(v) for v in xs])
    (2 * s + 3 * c).sum().backward()
    assert x.grad.tolist() == approx([2 * math.cos(v) - 3 * math.sin(v) for v in xs])
    x.grad = None
    s2, _ = SinCos.apply(x)
    s2.sum().backward()  # the unused output's gradient arrives as zeros
    assert x.grad.tolist() == approx([math.cos(v) for v in xs])


class ScaleShift(Function):
    """y = x * scale + shift (scale a float, shift a tensor or None); records what backward saw."""
    seen = {}

    @staticmethod
    def forward(ctx, x, scale, shift=None):
        ctx.scale = scale
        ScaleShift.seen["needs"] = ctx.needs_input_grad
        y = x * scale
        return y if shift is None else y + shift

    @staticmethod
    def backward(ctx, grad):
        ScaleShift.seen["needs_backward"] = ctx.needs_input_grad
        gx = grad * ctx.scale if ctx.needs_input_grad[0] else None
        if len(ctx.needs_input_grad) == 2:  # called without shift: one gradient per argument given
            return gx, None
        return gx, None, (grad if ctx.needs_input_grad[2] else None)


def test_function_with_non_tensor_argument():
    x = f64([1.0, -2.0], requires_grad=True)
    y = ScaleShift.apply(x, 2.5)
    assert ScaleShift.seen["needs"] == (True, False)
    y.sum().backward()
    assert x.grad.tolist() == [2.5, 2.5] and ScaleShift.seen["needs_backward"] == (True, False)

    b = f64([10.0, 20.0])  # a tensor argument that needs no gradient
    z = ScaleShift.apply(x, 4.0, shift=b)  # keyword arguments bind to forward's parameters
    assert ScaleShift.seen["needs"] == (True, False, False) and z.tolist() == [14.0, 12.0]
    b.requires_grad = True
    w = ScaleShift.apply(f64([1.0, 1.0]), 3.0, b)
    assert ScaleShift.seen["needs"] == (False, False, True)
    w.sum().backward()
    assert b.grad.tolist() == [1.0, 1.0]


class Blend(Function):
    """f(x, y) = x * y^2 + sin(x) with a hand-written backward."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y * y + x.sin()

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (y * y + x.cos()), grad * 2 * x * y


def test_function_gradient_matches_finite_differences():
    xs, ys = [0.7, -1.3, 2.1], [1.1, 0.4, -0.9]
    x, y = f64(xs, requires_grad=True), f64(ys, requires_grad=True)
    Blend.apply(x, y).sum().backward()
    n = len(xs)

    def blend(v):
        return [v[i] * v[n + i] ** 2 + math.sin(v[i]) for i in range(n)]

    fd = finite_difference(blend, xs + ys)
    assert x.grad.tolist() + y.grad.tolist() == pytest.approx(fd, rel=1e-7, abs=1e-8)


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x  # recorded under create_graph: differentiable again


def test_function_double_backward():
    xs = [1.0, -2.0]
    x = f64(xs, requires_grad=True)
    (g,) = ember.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == approx([3 * v * v for v in xs]) and g.requires_grad
    (gg,) = ember.autograd.grad(g.sum(), x)
    assert gg.tolist() == approx([6 * v for v in xs])


class CubeOnce(Cube):
    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x


def test_once_differentiable_backward_records_no_graph():
    x = f64([2.0], requires_grad=True)
    (g,) = ember.autograd.grad(CubeOnce.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [12.0] and not g.requires_grad
    assert type(CubeOnce.apply(x).grad_fn).__name__ == "CubeOnceBackward"


class SortValues(Function):
    """(sorted values, their positions as floats); the positions have no gradient."""

    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        positions = idx.to(x.dtype)
        ctx.mark_non_differentiable(positions)
        ctx.save_for_backward(idx)
        return values, positions

    @staticmethod
    def backward(ctx, g_values, g_positions):
        (idx,) = ctx.saved_tensors
        out = ember.zeros_like(g_values)
        out[idx] = g_values
        return out


def test_function_mark_non_differentiable():
    x = f64([3.0, 1.0, 2.0], requires_grad=True)
    values, positions = SortValues.apply(x)
    assert values.requires_grad and not positions.requires_grad and positions.tolist() == [1.0, 2.0, 0.0]
    (values * f64([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [100.0, 1.0, 10.0]


class Identity(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class WithCount(Function):
    """Returns (x * 2, a Python int); backward receives None for the int."""
    got = []

    @staticmethod
    def forward(ctx, x):
        return x * 2, 7

    @staticmethod
    def backward(ctx, grad, grad_of_int):
        WithCount.got.append(grad_of_int)
        return grad * 2


def test_function_returning_its_input_and_non_tensor_outputs():
    x = f64([1.0, 2.0], requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and x.grad_fn is None and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    t, k = WithCount.apply(x)
    assert k == 7
    t.sum().backward()
    assert WithCount.got == [None] and x.grad.tolist() == [3.0, 3.0]


class Square(Function):
    """setup_context style: forward takes only the inputs."""

    @staticmethod
    def forward(x):
        return x * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


class OnlyVjp(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 4

    @staticmethod
    def vjp(ctx, grad):
        return grad * 4


def test_function_setup_context_and_vjp():
    x = f64([3.0, -1.0], requires_grad=True)
    Square.apply(x).sum().backward()
    assert x.grad.tolist() == [6.0, -2.0]
    x.grad = None
    OnlyVjp.apply(x).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


class Raises(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        raise HookError("raised in backward")


class WrongCount(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, grad):
        return grad


class WrongType(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        return "not a tensor"


class WrongShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        return ember.ones(5, dtype=ember.float64)


class NoBackward(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1


class GradOfInt(Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, grad):
        return grad, grad  # a tensor for the int argument


def test_function_backward_errors():
    x = f64([1.0, 2.0], requires_grad=True)
    with pytest.raises(HookError, match="raised in backward"):
        Raises.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"^\[WrongCountBackward\] expected backward to return one gradient per "
                                           r"forward input \(2\); got 1"):
        WrongCount.apply(x, x).sum().backward()
    with pytest.raises(TypeError, match=r"^\[WrongTypeBackward\] expected backward to return Tensors or None; got str"):
        WrongType.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"^\[WrongShapeBackward\] expected backward's gradient for input 0"):
        WrongShape.apply(x).sum().backward()
    with pytest.raises(NotImplementedError, match=r"^\[autograd.Function\] NoBackward defines no backward"):
        NoBackward.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"^\[GradOfIntBackward\] expected an undefined gradient at position 2"):
        GradOfInt.apply(x, 3).sum().backward()
    assert x.grad is None


def test_function_misuse():
    with pytest.raises(RuntimeError, match=r"^\[autograd.Function\] Exp is used through its static methods"):
        Exp()
    x = f64([1.0], requires_grad=True)
    y = Exp.apply(x)
    with pytest.raises(RuntimeError, match=r"^\[save_for_backward\] expected a call from forward"):
        y.grad_fn.save_for_backward(x)

    class SavesInt(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x

    with pytest.raises(TypeError, match=r"^\[save_for_backward\] expected Tensors or None; got int"):
        SavesInt.apply(x)

    class ForwardRaises(Function):
        @staticmethod
        def forward(ctx, x):
            raise HookError("raised in forward")

    with pytest.raises(HookError, match="raised in forward"):
        ForwardRaises.apply(x)
    assert ember.is_grad_enabled()  # forward's no_grad was undone


def test_function_backward_from_threads():
    # Each thread runs backward without the GIL; the Python backward takes it back.
    results, errors = [], []

    def work(k):
        try:
            x = f64([float(k), 0.5], requires_grad=True)
            for _ in range(20):
                (Exp.apply(x) * Cube.apply(x)).sum().backward()
            results.append((k, x.grad.tolist()))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for k, g in results:
        # d/dx e^x x^3 = e^x (x^3 + 3x^2)
        assert g == approx([20 * math.exp(v) * (v ** 3 + 3 * v * v) for v in (float(k), 0.5)], rel=1e-10)


# ---------------------------------------------------------------- grad_fn, next_functions, leaves

def test_grad_fn_graph_of_a_small_expression():
    # PyTorch: SumBackward0 -> AddBackward0 -> (MulBackward0, None); MulBackward0 -> (AccumulateGrad, AccumulateGrad)
    a = f64([1.5, -2.0, 0.25], requires_grad=True)
    b = f64([0.5, 3.0, -1.0], requires_grad=True)
    c = f64([2.0, 2.0, 2.0])
    y = (a * b + c).sum()
    assert a.grad_fn is None and a.is_leaf and c.is_leaf and not y.is_leaf
    s = y.grad_fn
    assert s.name() == "SumBackward0" and isinstance(s, Node) and s is y.grad_fn
    (add, nr), = s.next_functions
    assert add.name() == "AddBackward0" and nr == 0
    (mul, n0), (none, n1) = add.next_functions
    assert mul.name() == "MulBackward0" and none is None and (n0, n1) == (0, 0)
    (acc_a, _), (acc_b, _) = mul.next_functions
    assert acc_a.name() == acc_b.name() == "torch::autograd::AccumulateGrad"
    assert acc_a.next_functions == ()
    assert acc_a.variable.data_ptr() == a.data_ptr() and acc_b.variable.data_ptr() == b.data_ptr()
    assert acc_a == mul.next_functions[0][0] and hash(acc_a) == hash(mul.next_functions[0][0])
    assert "AccumulateGrad" in repr(acc_a) and "SumBackward0" in repr(s)
    with pytest.raises(AttributeError, match="variable"):
        s.variable


def test_grad_fn_names_of_common_ops():
    # PyTorch names, each with one (AccumulateGrad, 0) edge for x
    x = f64([1.0, 2.0], requires_grad=True)
    for y, name in [(x.exp(), "ExpBackward0"), (x.sin(), "SinBackward0"), (x.mean(), "MeanBackward0"),
                    (x.view(2, 1), "ViewBackward0"), (x[0], "SelectBackward0"), (x.relu(), "ReluBackward0")]:
        assert y.grad_fn.name() == name
        assert [(f.name(), i) for f, i in y.grad_fn.next_functions] == [("torch::autograd::AccumulateGrad", 0)]
    # PyTorch: x @ x is DotBackward0 with two edges into the same AccumulateGrad
    (e0, _), (e1, _) = (x @ x).grad_fn.next_functions
    assert (x @ x).grad_fn.name() == "DotBackward0" and e0 is e1


def test_retain_grad_on_a_non_leaf():
    xs = [1.0, -3.0]
    x = f64(xs, requires_grad=True)
    y = x * x
    assert not y.retains_grad and not x.retains_grad
    y.retain_grad()
    y.retain_grad()  # twice: one retained gradient, not two
    assert y.retains_grad
    (y * 4).sum().backward(retain_graph=True)
    assert y.grad.tolist() == [4.0, 4.0] and x.grad.tolist() == approx([8 * v for v in xs])
    (y * 4).sum().backward()  # accumulates like a leaf's
    assert y.grad.tolist() == [8.0, 8.0]
    y.grad = None  # the retained gradient can be reset and assigned like a leaf's
    assert y.grad is None
    z = x * x
    z.retain_grad()
    z.grad = f64([5.0, 5.0])
    (z * 4).sum().backward()
    assert z.grad.tolist() == [9.0, 9.0]
    x.retain_grad()  # on a leaf: nothing to do
    assert not x.retains_grad
    with pytest.raises(RuntimeError, match=r"^\[retain_grad\] expected a tensor that requires grad"):
        f64([1.0]).retain_grad()


def test_grad_assignment():
    x = f64([1.0, 2.0], requires_grad=True)
    x.grad = f64([10.0, 20.0])
    (x * 3).sum().backward()
    assert x.grad.tolist() == [13.0, 23.0]
    x.grad = None
    assert x.grad is None
    with pytest.raises(RuntimeError, match=r"^\[grad\] expected a gradient of shape \[2\]"):
        x.grad = f64([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"^\[grad\] expected a gradient of dtype"):
        x.grad = ember.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"^\[grad\] expected a Tensor or None; got list"):
        x.grad = [1.0, 2.0]


def test_requires_grad_assignment():
    x = f64([1.0])
    x.requires_grad = True
    assert x.requires_grad and x.is_leaf
    y = x * 2
    with pytest.raises(RuntimeError, match=r"^\[requires_grad_\]"):
        y.requires_grad = False
    x.requires_grad = False
    assert not (x * 2).requires_grad
    with pytest.raises(RuntimeError, match=r"^\[requires_grad_\] expected a floating-point tensor"):
        ember.tensor([1, 2]).requires_grad = True


# ---------------------------------------------------------------- grad modes as decorators

def test_grad_mode_decorators():
    x = f64([1.0], requires_grad=True)

    @ember.no_grad()
    def off(t):
        return t * 2

    @ember.enable_grad()
    def on(t):
        return t * 2

    @ember.set_grad_enabled(False)
    def off2(t):
        return t * 2

    assert ember.is_grad_enabled()  # decorating with set_grad_enabled changes nothing by itself
    assert not off(x).requires_grad and not off2(x).requires_grad and ember.is_grad_enabled()
    with ember.no_grad():
        assert on(x).requires_grad and not ember.is_grad_enabled()
    assert off.__name__ == "off"
    assert ember.autograd.no_grad is ember.no_grad and ember.autograd.set_grad_enabled is ember.set_grad_enabled
    ember.set_grad_enabled(False)  # called alone: from now on
    assert not ember.is_grad_enabled()
    ember.set_grad_enabled(True)
    assert ember.is_grad_enabled()


# ---------------------------------------------------------------- backward(inputs=), gradcheck, anomaly mode

def test_backward_inputs_accumulates_only_there():
    a, b = f64([1.0, 2.0], requires_grad=True), f64([3.0, 4.0], requires_grad=True)
    (a * b).sum().backward(inputs=[b])
    assert a.grad is None and b.grad.tolist() == [1.0, 2.0]
    (a * b).sum().backward(inputs=a)
    assert a.grad.tolist() == [3.0, 4.0]
    with pytest.raises(TypeError, match=r"^\[backward\] expected inputs to be a Tensor or a sequence of Tensors"):
        (a * b).sum().backward(inputs=[a, 1])


def test_gradcheck_accepts_right_and_rejects_wrong_backward():
    x = f64([0.7, -1.3, 2.1], requires_grad=True)
    y = f64([1.1, 0.4, -0.9], requires_grad=True)
    assert ember.autograd.gradcheck(Blend.apply, (x, y))
    assert ember.autograd.gradcheck(lambda t: (t.sin() * t, t.exp()), [x])
    assert ember.autograd.gradgradcheck(Cube.apply, (x,))

    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, grad):
            return grad * 3  # should be 2x

    assert ember.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False) is False
    # analytical 3 against numerical 2x = 1.4, -2.6, 4.2: the report names the worst, element 1
    with pytest.raises(ember.autograd.GradcheckError,
                       match=r"^\[gradcheck\] Jacobian mismatch at output 0 element 1, input 0 element 1: analytical 3,"):
        ember.autograd.gradcheck(Wrong.apply, (x,))
    with pytest.raises(RuntimeError, match=r"^\[gradcheck\] inputs should be float64"):
        ember.autograd.gradcheck(lambda t: t * 2, [ember.tensor([1.0], requires_grad=True)])


def test_detect_anomaly_names_the_node():
    x = f64([0.0, 1.0], requires_grad=True)
    assert not ember.autograd.is_anomaly_enabled()
    (x.log() * 0).sum().backward()  # 0 * inf: a NaN gradient, unnoticed without anomaly mode
    assert math.isnan(x.grad.tolist()[0])
    with ember.autograd.detect_anomaly():
        assert ember.autograd.is_anomaly_enabled()
        with pytest.raises(RuntimeError, match=r"^\[autograd\] expected NaN-free gradients from 'LogBackward0'"):
            (x.log() * 0).sum().backward()
    assert not ember.autograd.is_anomaly_enabled()

    @ember.autograd.detect_anomaly()
    def run():
        (x.log() * 0).sum().backward()

    with pytest.raises(RuntimeError, match="LogBackward0"):
        run()
    ember.autograd.set_detect_anomaly(True)
    assert ember.autograd.is_anomaly_enabled()
    ember.autograd.set_detect_anomaly(False)
    assert not ember.autograd.is_anomaly_enabled()


# ---------------------------------------------------------------- more of ctx

class SinCosLazy(SinCos):
    """SinCos without materialized gradients: an output with no gradient arrives as None."""
    got = []

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        SinCosLazy.got.append((g_sin is None, g_cos is None))
        (x,) = ctx.saved_tensors
        return g_sin * x.cos()


def test_function_set_materialize_grads():
    xs = [0.4, 1.7]
    x = f64(xs, requires_grad=True)
    s, _ = SinCosLazy.apply(x)
    s.sum().backward()
    assert SinCosLazy.got == [(False, True)] and x.grad.tolist() == approx([math.cos(v) for v in xs])


class DoubleInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def test_function_mark_dirty():
    a = f64([1.0, 3.0], requires_grad=True)
    b = a * 1
    out = DoubleInPlace.apply(b)
    assert out.tolist() == [2.0, 6.0] and b.tolist() == [2.0, 6.0]
    assert b.grad_fn.name() == "DoubleInPlaceBackward"  # b itself now comes from the Function
    (b * b).sum().backward()
    # d/da (2a)^2 = 8a
    assert a.grad.tolist() == [8.0, 24.0]
    with pytest.raises(RuntimeError, match=r"^\[DoubleInPlaceBackward\]"):
        DoubleInPlace.apply(f64([1.0], requires_grad=True))  # a leaf that requires grad


class Mul(Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * y, grad * x


def test_function_saved_input_modified_in_place_is_detected():
    x = f64([1.0, 2.0], requires_grad=True)
    w = f64([3.0, 4.0])
    z = Mul.apply(x, w)
    w.add_(1)  # after it was saved
    with pytest.raises(RuntimeError, match=r"^\[autograd\] expected MulBackward's saved input"):
        z.sum().backward()


def test_function_node_and_ctx_are_freed_with_the_outputs():
    import gc
    import weakref

    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.big = ember.zeros(1000, dtype=ember.float64)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = f64([1.0], requires_grad=True)
    y = Twice.apply(x)
    ctx = weakref.ref(y.grad_fn)
    node = weakref.ref(y.grad_fn)
    z = y * 3
    del y
    gc.collect()
    assert ctx() is not None  # z's graph still holds it
    del z
    gc.collect()
    assert ctx() is None and node() is None
    x2 = f64([1.0])  # no input requires grad: no node, the ctx goes at once
    Twice.apply(x2)
    gc.collect()
    with pytest.raises(RuntimeError, match=r"^\[name\] expected the ctx of a Function call whose graph is still alive"):
        Twice._backward_cls().name()


# ---------------------------------------------------------------- ember.autograd.functional
AF = ember.autograd.functional


def poly(x):
    """f(x) = [x0 x1, x0 + x1^3]; J = [[x1, x0], [1, 3 x1^2]]."""
    return ember.stack([x[0] * x[1], x[0] + x[1] ** 3])


def test_jacobian_tensor_and_tuples():
    x = f64([2.0, 3.0])
    assert AF.jacobian(poly, x).tolist() == [[3.0, 2.0], [1.0, 27.0]]
    a, b = f64([1.0, 2.0]), f64([3.0, 5.0])
    ja, jb = AF.jacobian(lambda p, q: p * q, (a, b))  # elementwise: diagonal Jacobians
    assert ja.tolist() == [[3.0, 0.0], [0.0, 5.0]] and jb.tolist() == [[1.0, 0.0], [0.0, 2.0]]
    (j_sum,), (j_prod,) = AF.jacobian(lambda p: (p.sum(), p.prod()), (a,))
    assert j_sum.tolist() == [1.0, 1.0] and j_prod.tolist() == [2.0, 1.0]
    m = f64([[1.0, 2.0], [3.0, 4.0]])
    j = AF.jacobian(lambda t: t * t, m)  # shape out.shape + in.shape, 2 t on the diagonal
    assert tuple(j.shape) == (2, 2, 2, 2) and j[1, 0, 1, 0].item() == 6.0 and j[1, 0, 0, 1].item() == 0.0


def test_hessian_vjp_jvp_hvp():
    x = f64([2.0, 3.0])

    def f(t):  # x0^2 x1 + x1^3: H = [[2 x1, 2 x0], [2 x0, 6 x1]] = [[6, 4], [4, 18]]
        return t[0] ** 2 * t[1] + t[1] ** 3

    assert AF.hessian(f, x).tolist() == [[6.0, 4.0], [4.0, 18.0]]
    v = f64([1.0, -1.0])
    out, vj = AF.vjp(poly, x, v)  # v^T J = [3 - 1, 2 - 27]
    assert out.tolist() == [6.0, 29.0] and vj.tolist() == [2.0, -25.0]
    out, jv = AF.jvp(poly, x, v)  # J v = [3 - 2, 1 - 27]
    assert jv.tolist() == [1.0, -26.0] and not jv.requires_grad
    out, hv = AF.hvp(f, x, v)  # H v = [6 - 4, 4 - 18]
    assert out.item() == 39.0 and hv.tolist() == [2.0, -14.0]
    _, vh = AF.vhp(f, x, v)
    assert vh.tolist() == [2.0, -14.0]
    with ember.no_grad():  # differentiates under no_grad too
        assert AF.jacobian(poly, x).tolist() == [[3.0, 2.0], [1.0, 27.0]]


def test_functional_create_graph_and_errors():
    x = f64([2.0, 3.0], requires_grad=True)
    j = AF.jacobian(poly, x, create_graph=True)
    assert j.requires_grad
    (g,) = ember.autograd.grad(j[1, 1], x)  # d(3 x1^2)/dx = [0, 6 x1]
    assert g.tolist() == [0.0, 18.0]
    with pytest.raises(RuntimeError, match=r"^\[jacobian\] the output does not depend on input 1"):
        AF.jacobian(lambda p, q: p * 2, (x, x), strict=True)
    assert AF.jacobian(lambda p, q: p * 2, (f64([1.0]), f64([1.0])))[1].tolist() == [[0.0]]
    with pytest.raises(RuntimeError, match=r"^\[vjp\] expected v\[0\] to have the shape of output 0"):
        AF.vjp(poly, x, f64([1.0]))
    with pytest.raises(TypeError, match=r"^\[jacobian\] expected inputs to be a Tensor or a tuple of Tensors"):
        AF.jacobian(poly, [1.0, 2.0])
