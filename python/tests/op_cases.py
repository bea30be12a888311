"""Calls of every op of ops.yaml from Python, built from its samples, runnable against `ember` or `torch`
(the same call with `import ember as torch`): test_bindings.py runs them through Ember's generated
bindings and compares with the results libtorch gave for the same calls (data/torch_ops.json,
written by `python3 python/tests/op_cases.py --record` with PyTorch importable; a PyTorch without
PyYAML: `python3 op_cases.py --dump-cases > /tmp/c.json; <torch's python> op_cases.py --record --cases /tmp/c.json`).

Inputs are deterministic and exactly representable in every floating dtype (multiples of 1/64),
so both libraries start from bit-identical tensors.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(HERE, "data", "torch_ops.json")
SAMPLES_PER_OP = 2

# Results that are random or uninitialised (resize_ grows into uninitialised memory): only dtype and
# shape are compared.
NONDETERMINISTIC = ("rand", "dropout", "bernoulli", "normal", "uniform_", "exponential_", "multinomial", "random_",
                    "cauchy_", "geometric_",
                    "rrelu", "empty", "new_empty", "randperm", "resize_")


def load_cases():
    """[case] for every op overload with samples: name, op (Python name), kind, call style, args."""
    sys.path.insert(0, os.path.join(ROOT, "codegen"))
    from model import parse_ops  # noqa: E402
    ops = parse_ops(os.path.join(ROOT, "ops.yaml"))
    out = []
    for op in ops:
        samples = [s for s in op.samples if not s.special and not s.layouts][:SAMPLES_PER_OP]
        for k, s in enumerate(samples):
            args = []
            for a in op.schema.args:
                if a.name in s.tensors:
                    spec = dict(s.tensors[a.name])
                    spec["dtype"] = spec.get("dtype") or s.dtype
                    spec["domain"] = list(spec.get("domain") or s.domain)
                    args.append({"name": a.name, "tensor": spec, "kwonly": a.kwarg_only,
                                 "list": a.type.is_list})
                elif a.name in s.scalars:
                    args.append({"name": a.name, "value": s.scalars[a.name], "kwonly": a.kwarg_only,
                                 "type": a.type.base})
                else:
                    args.append({"name": a.name, "missing": True, "kwonly": a.kwarg_only})
            rets = op.schema.rets
            several = op.variant_kind == "out" and len(rets) > 1
            out.append({"name": f"{op.full_name} #{k}", "op": op.schema.name, "variant": op.variant_kind,
                        "function": "function" in op.variants, "method": "method" in op.variants,
                        # a several-result out= form: its out tensors (one `out=` tuple in Python, bound
                        # only where the results are named, as in PyTorch's API)
                        "outs": [a.name for a in op.schema.args[-len(rets):]] if several else [],
                        "named_results": all(r.name for r in rets),
                        "golden": op.golden if isinstance(op.golden, str) else None, "args": args})
    return out


class _Lcg:
    def __init__(self, seed):
        self.x = seed & 0xFFFFFFFFFFFF

    def next(self):
        self.x = (self.x * 0x5DEECE66D + 11) & 0xFFFFFFFFFFFF
        return self.x >> 16


def _seed(text):
    h = 1469598103934665603
    for ch in text.encode():
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def _values(spec, n, seed):
    rng = _Lcg(seed)
    lo, hi = spec["domain"]
    dt = spec["dtype"]
    out = []
    for _ in range(n):
        r = rng.next() / float(1 << 32)
        if spec.get("index_bound") is not None:
            out.append(int(r * max(spec["index_bound"], 1)))
        elif dt == "bool":
            out.append(r < 0.5)
        elif dt in ("int64", "int32", "int16", "int8", "uint8"):
            out.append(int(math.floor(lo + (hi - lo) * r)))
        else:
            v = math.floor((lo + (hi - lo) * r) * 64) / 64
            out.append(min(max(v, lo), hi))
    return out


def _tensor(lib, spec, shape, seed):
    n = 1
    for d in shape:
        n *= d
    dt = "int64" if spec.get("index_bound") is not None else spec["dtype"]
    flat = _values(spec, n, seed)
    t = lib.tensor(flat, dtype=getattr(lib, dt))
    return t.reshape(tuple(shape))


def _convert_scalar(lib, arg):
    v = arg["value"]
    if arg["type"] == "ScalarType" and isinstance(v, str):
        return getattr(lib, v)
    if arg["type"] == "MemoryFormat" and isinstance(v, str):
        return getattr(lib, v)
    if isinstance(v, list) and arg["type"] == "ScalarType":
        return [getattr(lib, x) for x in v]
    return v


def build_call(lib, case, prefer_method=True, want_fn=True):
    """(callable, positional args, keyword args, self tensor or None)."""
    pos, kw, self_t = [], {}, None
    keyword_now = False
    for i, a in enumerate(case["args"]):
        if a.get("missing"):
            keyword_now = True
            continue
        if "tensor" in a:
            spec = a["tensor"]
            seed = _seed(case["name"] + "/" + a["name"])
            if a["list"]:
                v = [_tensor(lib, spec, shape, seed + j) for j, shape in enumerate(spec["list"])]
            else:
                v = _tensor(lib, spec, spec["shape"], seed)
        else:
            v = _convert_scalar(lib, a)
        if a["name"] == "self" and "tensor" in a and self_t is None:
            self_t = v
        if a["kwonly"] or keyword_now:
            kw[a["name"]] = v
        else:
            pos.append(v)
    if not want_fn:
        return None, pos, kw, self_t
    if case["function"] and not (prefer_method and case["method"] and self_t is not None):
        # Ember's generated function binding itself (ember.<op> may be a Python wrapper with PyTorch's
        # Python-level signature, e.g. tensordot(a, b, dims), einsum(equation, *operands))
        space = lib._C if lib.__name__ == "ember" else lib
        return getattr(space, case["op"]), pos, kw, self_t
    # a method: self is the receiver
    i = [a["name"] for a in case["args"] if not a.get("missing") and not a["kwonly"]].index("self")
    del pos[i]
    return getattr(self_t, case["op"]), pos, kw, self_t


def encode(lib, r):
    """A JSON-able record of a result."""
    if isinstance(r, (tuple, list)):
        return {"seq": [encode(lib, x) for x in r]}
    if isinstance(r, bool) or isinstance(r, int) or isinstance(r, float):
        return {"py": _num(r)}
    if r is None:
        return {"none": True}
    if hasattr(r, "dtype") and hasattr(r, "shape"):
        dt = str(r.dtype).split(".")[-1]
        flat = r.detach().reshape(-1).tolist() if r.dim() > 0 else [r.item()]
        return {"dtype": dt, "shape": list(r.shape), "values": [_num(x) for x in flat]}
    return {"other": type(r).__name__}


def _num(x):
    if isinstance(x, bool):
        return x
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return repr(x)
    return x


def run(lib, case, prefer_method=True):
    """The encoded result of a case, or {'raises': message}. Methods are preferred where the op has
    one (PyTorch has in-place ops as methods only)."""
    try:
        fn, pos, kw, _ = build_call(lib, case, prefer_method)
    except Exception as e:  # inputs the library cannot build
        return {"setup": f"{type(e).__name__}: {e}"[:200]}
    try:
        return encode(lib, fn(*pos, **kw))
    except TypeError as e:
        # torch.block_diag(*tensors) & co. take the list as separate arguments
        if len(pos) == 1 and isinstance(pos[0], list) and not kw:
            try:
                return encode(lib, fn(*pos[0]))
            except Exception as e2:
                e = e2
        return {"raises": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]}
    except Exception as e:
        return {"raises": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]}


def run_aten(torch, case):
    """The result of torch.ops.aten.<op>.<overload> on the case's arguments, or None if there is none."""
    overload = case["name"].split(" #")[0].split(".")[1] if "." in case["name"].split(" #")[0] else "default"
    try:
        fn = getattr(getattr(torch.ops.aten, case["op"]), overload)
    except (AttributeError, RuntimeError):
        return None
    try:
        _, pos, kw, _ = build_call(torch, case, prefer_method=False, want_fn=False)
    except Exception as e:
        return {"setup": f"{type(e).__name__}: {e}"[:200]}
    try:
        return encode(torch, fn(*pos, **kw))
    except Exception as e:
        return {"raises": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]}


def record(cases_file=None):
    import torch
    if cases_file:  # a Python without PyYAML (PyTorch's venv) takes the cases --dump-cases wrote
        with open(cases_file) as f:
            cases = json.load(f)
    else:
        cases = load_cases()
    cases = [c for c in cases if c["variant"] != "out"]
    out = {}
    for c in cases:
        # The reference is the same schema's ATen operator (torch.ops.aten.<name>.<overload>): torch's
        # Python functions sometimes differ from their schema (torch.kl_div does not reduce by default).
        r = run_aten(torch, c)
        # (where the ATen schema differs from Ember's -- a default Ember has, a sample value of another
        # type -- the Python API's result is the reference)
        if r is not None and "raises" in r and ("is missing value for argument" in r["raises"]
                                                or "Expected a value of type" in r["raises"]):
            r = None
        if r is None and not c["op"].startswith("_") and (hasattr(torch, c["op"]) or hasattr(torch.Tensor, c["op"])):
            r = run(torch, c)
        if r is not None:
            out[c["name"]] = r
    os.makedirs(os.path.dirname(DATA), exist_ok=True)
    with open(DATA, "w") as f:
        json.dump({"torch": torch.__version__, "cases": out}, f, separators=(",", ":"), sort_keys=True)
    print(f"{DATA}: {len(out)} cases from torch {torch.__version__}")


if __name__ == "__main__":
    if "--dump-cases" in sys.argv:
        json.dump(load_cases(), sys.stdout)
    elif "--record" in sys.argv:
        record(sys.argv[sys.argv.index("--cases") + 1] if "--cases" in sys.argv else None)
