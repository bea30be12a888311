"""Every generated binding called with its ops.yaml samples (op_cases.py) and compared with what
libtorch's Python API returned for the same call (data/torch_ops.json, recorded from the PyPI wheel):
dtype, shape and values; an error where libtorch raised. Each case runs through the method binding
where the op has one and through the function binding too, which must agree; out= forms must write
what the functional form returns."""
import json
import math
import os
import sys

import pytest

import ember

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_cases  # noqa: E402

CASES = op_cases.load_cases()
with open(op_cases.DATA) as _f:
    TORCH = json.load(_f)["cases"]

PARSER_ERRORS = ("received an invalid combination of arguments", "accepted signature")


def test_every_op_has_a_binding():
    sys.path.insert(0, os.path.join(op_cases.ROOT, "codegen"))
    from model import parse_ops
    import python as pygen
    ops = parse_ops(os.path.join(op_cases.ROOT, "ops.yaml"))
    for o in ops:
        o.path = "ops.yaml"
    funcs, methods, overloads = pygen.groups(ops)
    assert len(overloads) == len(ops)
    missing = [g.name for g in funcs if not callable(getattr(ember, g.name, None))]
    missing += ["Tensor." + g.name for g in methods if not callable(getattr(ember.Tensor, g.name, None))]
    assert not missing
    # every overload of a group is listed in its docstring, in call order
    for g in funcs:
        assert getattr(ember._C, g.name).__doc__ == g.doc()


def test_stub_declares_every_function_and_method():
    import ast
    with open(os.path.join(os.path.dirname(ember.__file__), "_C.pyi")) as f:
        tree = ast.parse(f.read())
    top = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    methods = {n.name for n in tensor.body if isinstance(n, ast.FunctionDef)}
    names = {c["op"] for c in CASES}
    assert {c["op"] for c in CASES if c["function"]} <= top
    assert {c["op"] for c in CASES if c["method"]} <= methods
    assert names


def _tol(dtype):
    return {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 2e-5, "float64": 1e-10}.get(dtype, 0.0)


def _num_equal(got, want, tol):
    if isinstance(want, str) or isinstance(got, str):  # nan / inf spelled as strings
        return str(got) == str(want)
    if isinstance(want, bool) or isinstance(got, bool):
        return got == want
    if tol == 0.0:
        return got == want
    return abs(got - want) <= tol * max(1.0, abs(want))


def _compare(got, want, nondet, where):
    if "seq" in want:
        assert "seq" in got and len(got["seq"]) == len(want["seq"]), where
        for k, (g, w) in enumerate(zip(got["seq"], want["seq"])):
            _compare(g, w, nondet, f"{where}[{k}]")
        return
    if "py" in want:
        assert "py" in got and _num_equal(got["py"], want["py"], 1e-12), f"{where}: {got} != {want}"
        return
    assert "dtype" in got, f"{where}: got {got}"
    assert got["dtype"] == want["dtype"] and got["shape"] == want["shape"], \
        f"{where}: {got['dtype']}{got['shape']} vs libtorch {want['dtype']}{want['shape']}"
    if nondet:
        return
    tol = _tol(want["dtype"])
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got["values"], want["values"])) if not _num_equal(g, w, tol)]
    assert not bad, f"{where}: {len(bad)} of {len(want['values'])} values differ, first (index, ember, libtorch): {bad[:3]}"


def _is_parser_error(r):
    return "raises" in r and r["raises"].startswith("TypeError") and any(p in r["raises"] for p in PARSER_ERRORS)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_binding_matches_libtorch(case):
    nondet = any(k in case["op"] for k in op_cases.NONDETERMINISTIC)
    want = TORCH.get(case["name"])
    if case["variant"] == "out":
        return _check_out(case, nondet)
    got = op_cases.run(ember, case)
    assert "setup" not in got, got
    if _is_parser_error(got):
        # the arguments follow the schema, so only a sample libtorch rejects as a TypeError may fail here
        assert want is not None and "raises" in want and want["raises"].startswith("TypeError"), got["raises"]
        return
    if case["function"] and case["method"]:
        via_function = op_cases.run(ember, case, prefer_method=False)
        if not nondet:
            assert via_function == got, "function and method bindings disagree"
    if want is None or "setup" in want:
        return  # libtorch has no such Python function: the call above must simply run or raise cleanly
    if case["golden"]:
        return  # ops.yaml says why libtorch is not this op's reference (`golden: "<reason>"`)
    if "raises" in want:
        assert "raises" in got, f"libtorch raised '{want['raises']}', Ember returned"
        return
    assert "raises" not in got, f"Ember raised '{got['raises']}', libtorch returned"
    _compare(got, want, nondet, case["name"])


def _check_out(case, nondet):
    """out= writes what the functional form returns, and returns the out tensor itself (a several-result
    op: out= takes a tuple of tensors, and returns them as the functional form's tuple)."""
    outs = case["outs"] or ["out"]
    functional = dict(case, variant="functional", args=[a for a in case["args"] if a["name"] not in outs])
    try:
        fn, pos, kw, _ = op_cases.build_call(ember, functional, prefer_method=False)
        expected = fn(*pos, **kw)
    except Exception:
        return  # the functional form raises for this sample: nothing to write
    if case["outs"]:
        assert isinstance(expected, tuple) and len(expected) == len(outs)
        bufs = tuple(ember.empty(0, dtype=e.dtype if e is not None else ember.float32) for e in expected)
        if not case["named_results"]:
            # as in PyTorch's Python API: no out= where the results are unnamed (var_mean, _unique2, ...)
            with pytest.raises(TypeError):
                fn(*pos, **kw, out=bufs)
            return
        r = fn(*pos, **kw, out=bufs)
        assert type(r) is type(expected)  # the same named tuple (ember.return_types.<op>)
        assert all(x is b for x, b in zip(r, bufs))
        with pytest.raises(TypeError):
            fn(*pos, **kw, out=bufs[:-1])  # one tensor per result
        if not nondet:
            for b, e in zip(bufs, expected):
                assert op_cases.encode(ember, b) == op_cases.encode(ember, e)
        return
    if not isinstance(expected, ember.Tensor):
        return
    out = ember.empty(0, dtype=expected.dtype)
    r = fn(*pos, **kw, out=out)
    assert r is out
    if not nondet:
        assert op_cases.encode(ember, out) == op_cases.encode(ember, expected)
