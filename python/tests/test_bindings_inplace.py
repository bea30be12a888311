"""The in-place bindings that PyTorch has no Python counterpart for (minimum_, hardshrink_, special_i1_, ...:
test_bindings.py can only check that they run) against their own functional form on the same ops.yaml
sample: `x.op_(...)` must leave in x, and return, what `op(x, ...)` returns (the functional form is itself
compared with libtorch in test_bindings.py), or raise where x cannot hold that result (its shape or dtype
differs)."""
import json
import os
import sys

import pytest

import ember

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_cases  # noqa: E402

with open(op_cases.DATA) as _f:
    _TORCH = json.load(_f)["cases"]
CASES = [c for c in op_cases.load_cases()
         if c["variant"] == "inplace" and c["name"] not in _TORCH and c["op"].endswith("_")]


def test_there_are_such_cases():
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_inplace_binding_matches_its_functional_form(case):
    name = case["op"][:-1]
    functional = dict(case, op=name, variant="functional", function=callable(getattr(ember, name, None)),
                      method=callable(getattr(ember.Tensor, name, None)))
    assert functional["function"] or functional["method"], f"no functional form {name}"
    fn, pos, kw, self_t = op_cases.build_call(ember, case)  # the method: self is the receiver
    before = (str(self_t.dtype).split(".")[-1], list(self_t.shape))
    want = op_cases.run(ember, functional)
    if "raises" in want:
        pytest.fail(f"the functional form raised: {want['raises']}")
    try:
        r = fn(*pos, **kw)
    except RuntimeError:
        # only where self cannot hold the result: a broadcast shape or a dtype it cannot be cast to
        assert (want["dtype"], want["shape"]) != before
        return
    assert r is self_t, "an in-place op returns its self argument"
    got = op_cases.encode(ember, self_t)
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"])
    assert got["values"] == want["values"]
