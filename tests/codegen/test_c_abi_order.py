#!/usr/bin/env python3
"""The C ABI's slot order (Note [C ABI slot order] in codegen/c_abi.py): listed ops keep their
slots whatever ops.yaml's order, new ops append, removed ops leave a placeholder of the same size,
changed schemas are reported, and --update only appends or marks. Runs the generator's functions on
small YAML files in a temporary directory (ctest c_abi.slot_order)."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "codegen"))
import jinja2  # noqa: E402

import c_abi  # noqa: E402
from model import parse_ops  # noqa: E402

OPS = """
- func: relu(Tensor self) -> Tensor
  pointwise: self
  inplace: false
  out: false
  samples: [{self: [2]}]
- func: neg(Tensor self) -> Tensor
  pointwise: -self
  samples: [{self: [2]}]
"""

failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def ops_of(tmp, text):
    p = os.path.join(tmp, "ops.yaml")
    with open(p, "w") as f:
        f.write(text)
    ops = parse_ops(p)
    for o in ops:
        o.path = p
    return ops


def render_header(ops, listing):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(HERE, "..", "..", "codegen", "templates")),
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    ss, _ = c_abi.slots(ops, listing)
    return env.get_template("CApiOps.h.j2").render(slots=ss, **c_abi.TEMPLATE_GLOBALS)


def members(header):
    return [line.split("(*", 1)[1].split(")", 1)[0] for line in header.splitlines() if "(*" in line]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        listing = os.path.join(tmp, "c_abi_ops.txt")
        ops = ops_of(tmp, OPS)
        # A fresh list: ops.yaml's order (relu, neg, neg_, neg.out).
        c_abi.update_list(ops, listing)
        ss, problems = c_abi.slots(ops, listing)
        expect(not problems, "an up-to-date list has no problems")
        first = [s.ident for s in ss]
        expect(first == ["relu", "neg", "neg_", "neg_out"], f"initial slots {first}")

        # A new op declared *before* the others in ops.yaml still takes the next slot.
        ops2 = ops_of(tmp, """
- func: abs(Tensor self) -> Tensor
  pointwise: self
  inplace: false
  out: false
  samples: [{self: [2]}]
""" + OPS)
        ss, problems = c_abi.slots(ops2, listing)
        expect([s.ident for s in ss] == first + ["abs"], "a new op is appended after the listed ones")
        expect(len(problems) == 1 and "abs" in problems[0], f"the check reports it: {problems}")
        c_abi.update_list(ops2, listing)
        ss, problems = c_abi.slots(ops2, listing)
        expect(not problems and [s.ident for s in ss] == first + ["abs"], "--update appends it")

        # Removing relu keeps its slot, as a placeholder member of the same size.
        ops3 = ops_of(tmp, OPS.replace("relu(Tensor self)", "abs(Tensor self)"))
        ss, problems = c_abi.slots(ops3, listing)
        expect([s.ident for s in ss] == ["removed_relu", "neg", "neg_", "neg_out", "abs"], "a removed op keeps its slot")
        expect(any("relu" in p and "no longer" in p for p in problems), f"the check reports the removal: {problems}")
        header = render_header(ops3, listing)
        expect(members(header)[:2] == ["removed_relu", "neg"], "the header keeps a placeholder member in its place")
        expect("void (*removed_relu)(void);" in header, "the placeholder is a function pointer")
        c_abi.update_list(ops3, listing)
        with open(listing) as f:
            expect("removed: relu(Tensor self) -> Tensor" in f.read(), "--update marks it removed")
        ss, problems = c_abi.slots(ops3, listing)
        expect(not problems and ss[0].op is None, "a marked removal is no longer a problem")

        # A changed schema is reported (its slot's C signature changes).
        ops4 = ops_of(tmp, OPS.replace("relu(Tensor self)", "abs(Tensor self)").replace(
            "neg(Tensor self) -> Tensor", "neg(Tensor self, *, bool flag=False) -> Tensor"))
        ss, problems = c_abi.slots(ops4, listing)
        expect(any("neg: schema changed" in p for p in problems), f"a changed schema is reported: {problems}")

        # The check's exit status follows.
        yaml4 = os.path.join(tmp, "ops.yaml")
        expect(c_abi.main(["--ops", yaml4, "--list", listing, "--check"]) == 1, "--check exits 1 on a stale list")
        c_abi.update_list(ops4, listing)
        expect(c_abi.main(["--ops", yaml4, "--list", listing, "--check"]) == 0, "--check exits 0 after --update")
    if failures:
        print(f"{len(failures)} checks failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
