"""repr(tensor) as PyTorch prints it: `tensor([[1., 2.], [3., 4.]])`, and ember.set_printoptions.

The layout rules (observed from PyTorch 2.15's output; python/tests/test_tensor_py.py holds its
recorded strings):
- Floating tensors pick one style for all their elements from the finite nonzero values: integral
  values print as `3.` (`nan`, `inf` as they are); a range wider than 1000x, a largest magnitude
  above 1e8 or a smallest below 1e-4 switches to scientific notation (`1.0000e+08`); otherwise
  fixed point with `precision` digits. Every element is right-aligned to the widest one.
- Rows wrap so a line holds as many elements as fit in `linewidth` after the indentation.
- Above `threshold` elements, each dimension shows only its first and last `edgeitems` entries,
  the rest replaced by `...`; the style and width then come from the shown entries only.
- After the values: `dtype=` unless float32 (the default dtype), int64 or bool; `size=` for empty
  tensors that are not 1-D; `device=` off the CPU; `grad_fn=<Name>` or `requires_grad=True`. A
  suffix that would overrun `linewidth` goes on its own line.
"""
import contextlib as _contextlib
import math as _math

from . import _C


class _Options:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


_opts = _Options()
_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=_math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Sets how tensors print (as torch.set_printoptions): digits after the point, the element count
    above which tensors are summarized, entries kept at each edge when summarizing, characters per
    line, a profile ("default", "short", "full") applied first, and sci_mode (True/False forces
    scientific or fixed notation; None, the default, chooses from the values; every call sets it)."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"[set_printoptions] expected profile 'default', 'short' or 'full'; got {profile!r}")
        for k, v in _PROFILES[profile].items():
            setattr(_opts, k, v)
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(_opts, name, value)
    _opts.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict that set_printoptions(**options) accepts."""
    return dict(precision=_opts.precision, threshold=_opts.threshold, edgeitems=_opts.edgeitems,
                linewidth=_opts.linewidth, sci_mode=_opts.sci_mode)


@_contextlib.contextmanager
def printoptions(**kwargs):
    """Print options for the block only: `with printoptions(precision=2): print(t)`."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _Style:
    """How every element of one tensor prints: a common notation and a common width."""

    def __init__(self, values, floating):
        self.floating = floating
        self.integral = True
        self.sci = False
        self.width = 1
        if not floating:
            self.width = max([1] + [len(str(v)) for v in values])
            return
        shown = [v for v in values if v != 0 and _math.isfinite(v)]
        if not shown:
            return
        mags = [abs(v) for v in shown]
        lo, hi = min(mags), max(mags)
        self.integral = all(v.is_integer() for v in shown)
        if _opts.sci_mode is None:
            self.sci = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci = bool(_opts.sci_mode)
        p = _opts.precision
        if self.sci:
            self.width = max(len(f"{v:.{p}e}") for v in shown)
        elif self.integral:
            self.width = max(len(f"{v:.0f}") + 1 for v in shown)  # + 1: the trailing '.'
        else:
            self.width = max(len(f"{v:.{p}f}") for v in shown)

    def format(self, v):
        if not self.floating:
            s = str(v)
        elif self.sci:
            s = f"{v:{self.width}.{_opts.precision}e}"
        elif self.integral:
            s = f"{v:.0f}"
            if _math.isfinite(v):
                s += "."
        else:
            s = f"{v:.{_opts.precision}f}"
        return s.rjust(self.width)


def _edges(t):
    """The entries of t a summarized print shows: the first and last edgeitems along every dimension."""
    if t.dim() == 0:
        return t
    e = _opts.edgeitems
    if t.dim() == 1:
        return _C.cat((t[:e], t[-e:])) if t.size(0) > 2 * e else t
    if not e:
        return t.new_empty([0] * t.dim())
    rows = range(t.size(0))
    if t.size(0) > 2 * e:
        rows = list(range(e)) + list(range(t.size(0) - e, t.size(0)))
    return _C.stack([_edges(t[i]) for i in rows])


def _vector(t, indent, summarize, style):
    per_line = max(1, (_opts.linewidth - indent) // (style.width + 2))
    e = _opts.edgeitems
    if summarize and not e:
        items = ["..."]
    elif summarize and t.size(0) > 2 * e:
        items = ([style.format(v) for v in t[:e].tolist()] + [" ..."] +
                 [style.format(v) for v in t[-e:].tolist()])
    else:
        items = [style.format(v) for v in t.tolist()]
    lines = [", ".join(items[k:k + per_line]) for k in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(t, indent, summarize, style):
    if t.dim() == 0:
        return style.format(t.item())
    if t.dim() == 1:
        return _vector(t, indent, summarize, style)
    e = _opts.edgeitems
    n = t.size(0)
    if summarize and n > 2 * e:
        parts = ([_nested(t[i], indent + 1, summarize, style) for i in range(e)] + ["..."] +
                 [_nested(t[i], indent + 1, summarize, style) for i in range(n - e, n)])
    else:
        parts = [_nested(t[i], indent + 1, summarize, style) for i in range(n)]
    return "[" + ("," + "\n" * (t.dim() - 1) + " " * (indent + 1)).join(parts) + "]"


def _values(t, indent):
    if t.numel() == 0:
        return "[]"
    summarize = t.numel() > _opts.threshold
    sample = _edges(t) if summarize else t
    style = _Style(sample.reshape(-1).tolist(), t.dtype.is_floating_point)
    return _nested(t, indent, summarize, style)


def _with_suffixes(text, suffixes, indent):
    out = [text]
    line = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if line + len(s) + 2 > _opts.linewidth:
            out.append(",\n" + " " * indent + s)
            line = indent + len(s)
        else:
            out.append(", " + s)
            line += len(s) + 2
    out.append(")")
    return "".join(out)


def _default_dtype():
    return _C._get_default_dtype()


def _grad_fn_name(fn):
    if isinstance(fn, _C._Node):
        return fn.name().rsplit("::", 1)[-1]
    return type(fn).__name__


def tensor_repr(inp):
    prefix = "tensor("
    indent = len(prefix)
    t = inp.detach()
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    default = _default_dtype()
    if t.numel() == 0:
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype != default:
            suffixes.append(f"dtype={t.dtype!r}")
        body = "[]"
    else:
        if not _opts.edgeitems:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype not in (default, _C.int64, _C.bool):
            suffixes.append(f"dtype={t.dtype!r}")
        if t.device.type != "cpu":
            t = t.to("cpu")
        body = _values(t, indent)
    fn = inp.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(fn)}>")
    elif inp.requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, indent)


def tensor_format(self, spec):
    """f"{t:.3f}" formats a 0-dim tensor's value; other tensors format their repr."""
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)
