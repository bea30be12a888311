"""ember.autograd.functional: derivatives of a whole function, built on autograd.grad.

    jacobian(f, x)          d f(x) / d x, shaped f(x).shape + x.shape
    hessian(f, x)           second derivatives of a scalar f
    vjp(f, x, v)            (f(x), v^T J)
    jvp(f, x, v)            (f(x), J v), by differentiating a vjp (the "double backward" trick)
    vhp / hvp(f, x, v)      (f(x), v^T H) / (f(x), H v)

`inputs` is a tensor or a tuple of tensors; f takes them as positional arguments. Results follow
the structure of inputs and outputs: a tensor for a tensor, tuples for tuples. The inputs are used
through detached copies, so the caller's graph is untouched unless create_graph=True.
"""
from .. import _C
from .._C import Tensor


def _as_tuple(x, what, fn):
    if isinstance(x, Tensor):
        return (x,), False
    if isinstance(x, (tuple, list)) and all(isinstance(t, Tensor) for t in x):
        return tuple(x), True
    raise TypeError(f"[{fn}] expected {what} to be a Tensor or a tuple of Tensors; got {type(x).__name__}")


def _prepare(inputs, create_graph):
    # Leaves of a fresh graph; with create_graph an input that requires grad keeps its history.
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _grad(outputs, inputs, grad_outputs, create_graph, strict, fn, what="input"):
    outputs = [o for o in outputs]
    live = [k for k, o in enumerate(outputs) if o.requires_grad]
    if live:
        gs = _C._autograd_grad([outputs[k] for k in live], list(inputs),
                               [grad_outputs[k] for k in live] if grad_outputs is not None else [],
                               True, create_graph, True)
    else:
        gs = [None] * len(inputs)
    result = []
    for k, (g, x) in enumerate(zip(gs, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"[{fn}] the output does not depend on {what} {k} (strict=True)")
            g = _C.zeros_like(x)
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)


def _check_v(v, outputs, fn, what):
    vs, _ = _as_tuple(v, "v", fn)
    if len(vs) != len(outputs):
        raise RuntimeError(f"[{fn}] expected v to have one tensor per {what} ({len(outputs)}); got {len(vs)}")
    for k, (a, b) in enumerate(zip(vs, outputs)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"[{fn}] expected v[{k}] to have the shape of {what} {k} ({list(b.shape)}); got "
                               f"{list(a.shape)}")
    return vs


def _finish(x, create_graph):
    return x if create_graph else x.detach()


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T J): v has the outputs' shapes (may be omitted for a single-element output)."""
    ins, ins_tuple = _as_tuple(inputs, "inputs", "vjp")
    with _C_grad(True):
        xs = _prepare(ins, create_graph)
        out = func(*xs)
        outs, outs_tuple = _as_tuple(out, "the outputs of func", "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("[vjp] expected v for a function whose output is not a single element")
            vs = (_C.ones_like(outs[0]),)
        else:
            vs = _check_v(v, outs, "vjp", "output")
        g = _grad(outs, xs, vs, create_graph, strict, "vjp")
    out = tuple(_finish(o, create_graph) for o in outs)
    return (out if outs_tuple else out[0]), (g if ins_tuple else g[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), J v): v has the inputs' shapes (may be omitted for a single-element input)."""
    ins, ins_tuple = _as_tuple(inputs, "inputs", "jvp")
    if v is None:
        if len(ins) != 1 or ins[0].numel() != 1:
            raise RuntimeError("[jvp] expected v for a function whose input is not a single element")
        vs = (_C.ones_like(ins[0]),)
    else:
        vs = _check_v(v, ins, "jvp", "input")
    with _C_grad(True):
        xs = _prepare(ins, create_graph)
        out = func(*xs)
        outs, outs_tuple = _as_tuple(out, "the outputs of func", "jvp")
        # u -> u^T J is linear in u; its gradient with respect to u, weighted by v, is J v.
        us = tuple(_C.zeros_like(o).requires_grad_(True) for o in outs)
        gs = _grad(outs, xs, us, True, strict, "jvp")
        jv = _grad(gs, us, vs, create_graph, strict, "jvp", what="output")
    out = tuple(_finish(o, create_graph) for o in outs)
    return (out if outs_tuple else out[0]), (jv if outs_tuple else jv[0])


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func(*inputs) / d inputs: for a tensor input and output, a tensor of shape
    output.shape + input.shape; with tuples, J[i][j] for output i and input j."""
    if strategy != "reverse-mode":
        raise NotImplementedError(f"[jacobian] only strategy='reverse-mode' is available; got {strategy!r}")
    ins, ins_tuple = _as_tuple(inputs, "inputs", "jacobian")
    with _C_grad(True):
        xs = _prepare(ins, create_graph)
        out = func(*xs)
        outs, outs_tuple = _as_tuple(out, "the outputs of func", "jacobian")
        rows_of = []
        for i, o in enumerate(outs):
            flat = o.reshape(-1)
            per_input = [[] for _ in xs]
            for j in range(flat.numel()):
                gs = _grad([flat[j]], xs, None, create_graph, strict, "jacobian")
                for k, g in enumerate(gs):
                    per_input[k].append(g.reshape(-1))
            blocks = []
            for k, x in enumerate(xs):
                if per_input[k]:
                    m = _C.stack(per_input[k])
                else:
                    m = _C.zeros([0, x.numel()], dtype=x.dtype)
                blocks.append(m.reshape(tuple(o.shape) + tuple(x.shape)))
            rows_of.append(tuple(blocks))
    if not outs_tuple:
        j = rows_of[0]
        return j if ins_tuple else j[0]
    return tuple(r if ins_tuple else r[0] for r in rows_of)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """Second derivatives of a function with a single-element output: for a tensor input, a tensor of
    shape input.shape + input.shape; with a tuple of inputs, H[i][j]."""
    ins, ins_tuple = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs):
        out = func(*xs)
        outs, outs_tuple = _as_tuple(out, "the output of func", "hessian")
        if outs_tuple or outs[0].numel() != 1:
            raise RuntimeError("[hessian] expected func to return a single-element Tensor")
        g = _grad(outs, xs, None, True, strict, "hessian")
        return g if ins_tuple else g[0]

    return jacobian(gradient, ins if ins_tuple else ins[0], create_graph, strict, vectorize,
                    outer_jacobian_strategy)


def _scalar_grad(func, ins, create_graph, strict, fn):
    xs = _prepare(ins, True)
    out = func(*xs)
    outs, outs_tuple = _as_tuple(out, "the output of func", fn)
    if outs_tuple or outs[0].numel() != 1:
        raise RuntimeError(f"[{fn}] expected func to return a single-element Tensor")
    g = _grad(outs, xs, None, True, strict, fn)
    return xs, outs[0], g


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T H) for a function with a single-element output."""
    ins, ins_tuple = _as_tuple(inputs, "inputs", "vhp")
    vs = _check_v(v, ins, "vhp", "input") if v is not None else None
    if vs is None:
        if len(ins) != 1 or ins[0].numel() != 1:
            raise RuntimeError("[vhp] expected v for a function whose input is not a single element")
        vs = (_C.ones_like(ins[0]),)
    with _C_grad(True):
        xs, out, g = _scalar_grad(func, ins, create_graph, strict, "vhp")
        r = _grad(g, xs, vs, create_graph, strict, "vhp")
    return _finish(out, create_graph), (r if ins_tuple else r[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), H v) for a function with a single-element output (H is symmetric: v^T H)."""
    return vhp(func, inputs, v, create_graph, strict)


class _C_grad:
    """Grad mode on for the block (these functions differentiate even when called under no_grad)."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        return False
