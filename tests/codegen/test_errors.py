#!/usr/bin/env python3
"""Generator error reporting: every mistake in ops.yaml is reported as `ops.yaml:LINE: message`,
with exit status 1 and no Python traceback."""
import os
import subprocess
import sys
import tempfile

GEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "codegen", "gen.py")

CASES = [
    ("bad schema", "- func: add(Tensor self Tensor other) -> Tensor\n  pointwise: self\n  samples: [{self: [2]}]\n",
     1, "cannot parse"),
    ("unknown type", "- func: foo(Tensr self) -> Tensor\n  pointwise: self\n  samples: [{self: [2]}]\n",
     1, "unknown type 'Tensr'"),
    ("no samples", "- func: foo(Tensor self) -> Tensor\n  pointwise: self\n", 1, "has no samples"),
    ("two kinds", "- func: foo(Tensor self) -> Tensor\n  pointwise: self\n  composite: true\n  samples: [{self: [2]}]\n",
     1, "exactly one of pointwise/dispatch/composite"),
    ("unknown kernel key", "\n\n- func: foo(Tensor self) -> Tensor\n  dispatch: {CPU: foo_cpu, TPU: foo_tpu}\n  samples: [{self: [2]}]\n",
     3, "unknown dispatch key 'TPU'"),
    ("bad kernel name", "- func: foo(Tensor self) -> Tensor\n  dispatch: {CPU: 'foo-cpu'}\n  samples: [{self: [2]}]\n",
     1, "is not a C++ function name"),
    ("unknown key", "- func: foo(Tensor self) -> Tensor\n  pointwise: self\n  sampels: [{self: [2]}]\n", 1, "unknown key 'sampels'"),
    ("sample names unknown arg", "- func: foo(Tensor self) -> Tensor\n  pointwise: self\n  samples:\n    - {selff: [2]}\n",
     4, "not an argument"),
    ("non-broadcasting sample", "- func: foo(Tensor self, Tensor other) -> Tensor\n  pointwise: self\n  samples:\n    - {self: [2], other: [3]}\n",
     4, "do not broadcast"),
    ("unknown dtype", "- func: foo(Tensor self) -> Tensor\n  pointwise: self\n  dtypes: [float33]\n  samples: [{self: [2]}]\n",
     1, "unknown dtype or group 'float33'"),
    ("duplicate op", "- func: foo(Tensor self) -> Tensor\n  pointwise: self\n  samples: [{self: [2]}]\n"
     "- func: foo(Tensor self) -> Tensor\n  pointwise: self\n  samples: [{self: [2]}]\n", 4, "already declared"),
    ("lut16 not a bool", "- func: foo(Tensor self) -> Tensor\n  pointwise: self\n  lut16: 1\n  samples: [{self: [2]}]\n",
     1, "lut16 is true or false"),
    ("lut16 with a scalar", "- func: foo(Tensor self, Scalar a) -> Tensor\n  pointwise: self * a\n  lut16: true\n"
     "  samples: [{self: [2], a: 2}]\n", 1, "lut16 is for pointwise ops of one Tensor argument"),
    ("lut16 without 16-bit dtypes", "- func: foo(Tensor self) -> Tensor\n  pointwise: self\n  dtypes: [float32]\n"
     "  lut16: true\n  samples: [{self: [2]}]\n", 1, "lut16 needs Half or BFloat16"),
    ("needs_data without a reason", "- func: foo(Tensor self) -> Tensor\n  composite: true\n  needs_data: ''\n"
     "  samples: [{self: [2]}]\n", 1, "needs_data is a string giving the reason"),
    ("needs_data with Meta: raise", "- func: foo(Tensor self) -> Tensor\n  dispatch: {CPU: foo_cpu, Meta: raise}\n"
     "  needs_data: \"its shape depends on values\"\n  samples: [{self: [2]}]\n", 1, "implied by `Meta: raise`"),
    ("invalid yaml", "- func: foo(Tensor self) -> Tensor\n  pointwise: [self\n", 3, "invalid YAML"),
    ("out: true on several results", "- func: foo(Tensor self) -> (Tensor a, Tensor b)\n  composite: true\n  out: true\n"
     "  samples: [{self: [2]}]\n", 1, "several results take 'out: {overload: ..., names: [...]}'"),
    ("out names on one result", "- func: foo(Tensor self) -> Tensor\n  composite: true\n  out: {overload: o, names: [x]}\n"
     "  samples: [{self: [2]}]\n", 1, "needs an op that returns several new Tensors"),
    ("out names miscounted", "- func: foo(Tensor self) -> (Tensor a, Tensor b)\n  composite: true\n"
     "  out: {overload: o, names: [x]}\n  samples: [{self: [2]}]\n", 1, "expected 2 distinct names, one per result"),
    ("out name of an argument", "- func: foo(Tensor self) -> (Tensor a, Tensor b)\n  composite: true\n"
     "  out: {overload: o, names: [self, y]}\n  samples: [{self: [2]}]\n", 1, "already name arguments"),
    ("out overload alone on several results", "- func: foo(Tensor self) -> (Tensor a, Tensor b)\n  composite: true\n"
     "  out: {overload: o}\n  samples: [{self: [2]}]\n", 1, "'out: {overload}' needs an op that returns one new Tensor"),
    ("out on a tensor op with options", "- func: foo(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
     "Device? device=None, bool? pin_memory=None) -> Tensor\n  composite: true\n  out: true\n  samples: [{self: [2]}]\n",
     1, "only factories' out= forms take those from `out`"),
    ("out neither true nor a mapping", "- func: foo(Tensor self) -> (Tensor a, Tensor b)\n  composite: true\n"
     "  out: [x, y]\n  samples: [{self: [2]}]\n", 1, "'out' is true or {overload: <name>, names:"),
]


OPS_OK = "- func: foo(Tensor self, Tensor other) -> Tensor\n  pointwise: self * other\n  samples: [{self: [2], other: [2]}]\n"
DERIV_CASES = [
    ("derivative of unknown op", "- name: bar\n  self: grad\n", 1, "'bar' is not an op in ops.yaml"),
    ("derivative for unknown input", "- name: foo\n  self: grad * other\n  selff: grad\n", 1, "'selff' is not an argument of foo"),
    ("derivative without formula", "\n- name: foo\n", 2, "gives no formula"),
    ("duplicate derivative", "- name: foo\n  self: grad\n- name: foo\n  self: grad\n", 3, "already has an entry"),
]


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        for name, text, line, msg in CASES:
            path = os.path.join(d, "ops.yaml")
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([sys.executable, GEN, "--ops", path, "--out", os.path.join(d, "out")],
                               capture_output=True, text=True)
            err = r.stderr.strip()
            ok = (r.returncode == 1 and err.startswith(f"{path}:{line}: ") and msg in err and "Traceback" not in err)
            print(("ok   " if ok else "FAIL ") + f"{name}: {err}")
            failed += not ok
        for name, text, line, msg in DERIV_CASES:
            ops = os.path.join(d, "ops.yaml")
            with open(ops, "w") as f:
                f.write(OPS_OK)
            path = os.path.join(d, "derivatives.yaml")
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([sys.executable, GEN, "--ops", ops, "--derivatives", path, "--out", os.path.join(d, "out")],
                               capture_output=True, text=True)
            err = r.stderr.strip()
            ok = (r.returncode == 1 and err.startswith(f"{path}:{line}: ") and msg in err and "Traceback" not in err)
            print(("ok   " if ok else "FAIL ") + f"{name}: {err}")
            failed += not ok
    total = len(CASES) + len(DERIV_CASES)
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
