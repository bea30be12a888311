"""One autograd script written against PyTorch's Python API, run with `torch` or with `ember` passed
in (test_autograd_parity.py). It imports neither; it returns plain data (lists, strings, bools) so
that the two runs compare as JSON."""


def scenario(torch):
    out = {}
    f64 = torch.float64

    # backward, .grad accumulation, retain_grad, hooks
    x = torch.tensor([0.5, -1.25, 2.0], dtype=f64, requires_grad=True)
    y = x * x + x.sin()
    y.retain_grad()
    h = y.register_hook(lambda g: g * 3)
    y.sum().backward(retain_graph=True)
    out["hooked_grad"] = x.grad.tolist()
    out["retained"] = y.grad.tolist()
    h.remove()
    y.sum().backward()
    out["accumulated"] = x.grad.tolist()
    out["retains_grad"] = [y.retains_grad, x.retains_grad, y.is_leaf, x.is_leaf]

    # grad_fn graph
    a = torch.tensor([1.0, 2.0], dtype=f64, requires_grad=True)
    b = torch.tensor([3.0, -4.0], dtype=f64, requires_grad=True)
    c = torch.tensor([0.5, 0.5], dtype=f64)
    z = ((a * b).exp() + c).mean()

    def walk(fn):
        if fn is None:
            return None
        return [fn.name(), [[walk(f), i] for f, i in fn.next_functions]]

    out["graph"] = walk(z.grad_fn)
    out["leaf_grad_fn"] = a.grad_fn is None

    # autograd.grad, create_graph and a second derivative
    (g,) = torch.autograd.grad((a ** 3).sum(), a, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), a)
    out["second"] = [g.tolist(), gg.tolist()]

    # a custom Function: two outputs, a non-tensor argument, needs_input_grad, saved tensors
    class ScaledSinCos(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t, k):
            ctx.save_for_backward(t)
            ctx.k = k
            out["needs_input_grad"] = list(ctx.needs_input_grad)
            return (t * k).sin(), (t * k).cos()

        @staticmethod
        def backward(ctx, gs, gc):
            (t,) = ctx.saved_tensors
            return (gs * (t * ctx.k).cos() - gc * (t * ctx.k).sin()) * ctx.k, None

    s, co = ScaledSinCos.apply(a, 0.75)
    (s * 2 + co).sum().backward()
    out["function_grad"] = a.grad.tolist()
    out["function_node"] = [s.grad_fn.name(), type(s.grad_fn).__name__, s.grad_fn is co.grad_fn,
                            [f.name() if f else None for f, _ in s.grad_fn.next_functions]]

    # no_grad, set_grad_enabled as a decorator, requires_grad assignment
    with torch.no_grad():
        out["no_grad"] = (a * 2).requires_grad

    @torch.set_grad_enabled(False)
    def off(t):
        return t * 2

    out["decorated"] = [off(a).requires_grad, torch.is_grad_enabled()]
    w = torch.tensor([1.0, 2.0], dtype=f64)
    w.requires_grad = True
    (w * w).sum().backward(inputs=[w])
    out["inputs"] = w.grad.tolist()

    # a hook's exception comes back from backward as itself
    class Stop(Exception):
        pass

    def stop(grad):
        raise Stop("from the hook")

    v = torch.tensor([1.0], dtype=f64, requires_grad=True)
    v.register_hook(stop)
    try:
        (v * 2).sum().backward()
        out["hook_exception"] = None
    except Stop as e:
        out["hook_exception"] = str(e)
    return out
