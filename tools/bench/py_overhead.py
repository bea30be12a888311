"""Per-op time from Python on 1-element tensors: the binding, parsing and dispatch overhead, timed
the way PyTorch's benchmarks/dynamo/microbenchmarks/overheads.py times `x + 1` (timeit on a tiny
tensor, so the kernel itself costs next to nothing).

    PYTHONPATH=build/python python3 tools/bench/py_overhead.py ember      # one library
    .peer/venv/bin/python tools/bench/py_overhead.py torch
    python3 tools/bench/py_overhead.py compare                          # both, alternating, ratios

`compare` runs each library in its own process (Ember next to the build tree's python/, PyTorch with
--torch-python), alternating --rounds times, and keeps each case's best time; on a shared machine the
best of several rounds is the figure least disturbed by other work. Times are ns per statement (the
statement is compiled by timeit, no lambda around it).

Cases: the ops of issue #11 without grad (x, y plain) and with grad (x, y leaves that require grad,
so every op records a graph node); a 10-op chain forward and forward+backward; `x.dim()` and
Ember's `_C._noop` (a generated-style binding whose body returns at once: the parsing path alone);
`import` (a fresh interpreter's `import <lib>` minus its bare start-up, best of 5).
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import time
import timeit

OPS = [
    ("x + 1", "x + 1"),
    ("x + y", "x + y"),
    ("x.add(y)", "x.add(y)"),
    ("add(x, y, alpha=2)", "lib.add(x, y, alpha=2)"),
    ("x.sum()", "x.sum()"),
    ("x.sum(0, keepdim=True)", "x.sum(0, keepdim=True)"),
    ("zeros(2, 3)", "lib.zeros(2, 3)"),
    ("empty(4)", "lib.empty(4)"),
    ("x.view(-1)", "x.view(-1)"),
    ("x[0]", "x[0]"),
]

CHAIN = """
def chain(x):
    z = x * 2
    z = z + x
    z = z.sin()
    z = z * z
    z = z - 1
    z = z.exp()
    z = z / 2
    z = z.tanh()
    z = z.neg()
    return z.sum()
"""


def measure(name, repeat, number):
    lib = importlib.import_module(name)
    if hasattr(lib, "set_num_threads"):
        lib.set_num_threads(1)
    env = {"lib": lib}
    exec(CHAIN, env)
    cases = []
    for grad in (False, True):
        env_g = dict(env, x=lib.ones(1, requires_grad=grad), y=lib.ones(1, requires_grad=grad))
        tag = " (grad)" if grad else ""
        for label, stmt in OPS:
            cases.append((label + tag, stmt, env_g))
    env_c = dict(env, x=lib.ones(1), g=lib.ones(1, requires_grad=True))
    cases.append(("chain10 fwd", "chain(x)", env_c))
    cases.append(("chain10 fwd (grad)", "chain(g)", env_c))
    cases.append(("chain10 fwd+bwd", "chain(g).backward()", env_c))
    env_n = dict(env, x=lib.ones(1), y=lib.ones(1), C=getattr(lib, "_C", None))
    cases.append(("x.dim()", "x.dim()", env_n))
    if hasattr(env_n["C"], "_noop"):
        cases.append(("_noop(x, y)", "C._noop(x, y)", env_n))
        cases.append(("_noop(x, 1, alpha=2)", "C._noop(x, 1, alpha=2)", env_n))
    out = {}
    for label, stmt, g in cases:
        t = timeit.Timer(stmt, globals=g)
        n = number // 10 if label.startswith("chain") else number
        t.timeit(n // 10)  # warm up
        out[label] = min(t.repeat(repeat=repeat, number=n)) / n * 1e9
    return out


def import_time(python, name, env):
    def best(code):
        ts = []
        for _ in range(5):
            t0 = time.perf_counter()
            subprocess.run([python, "-c", code], env=env, check=True)
            ts.append(time.perf_counter() - t0)
        return min(ts)
    return (best(f"import {name}") - best("pass")) * 1e9


def run_child(python, name, env, repeat, number):
    r = subprocess.run([python, __file__, name, "--json", "--repeat", str(repeat), "--number", str(number)],
                       env=env, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{name}: {r.stderr}")
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib", nargs="?", default="ember", help="ember, torch or compare")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--number", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap.add_argument("--ember-path", default=os.path.join(root, "build", "python"))
    ap.add_argument("--torch-python", default=os.path.join(root, ".peer", "venv", "bin", "python"))
    a = ap.parse_args()
    if a.lib != "compare":
        res = measure(a.lib, a.repeat, a.number)
        if a.json:
            print(json.dumps(res))
            return
        print(f"{a.lib}: ns per statement, best of {a.repeat}")
        for k, v in res.items():
            print(f"  {k:32s} {v:8.0f}")
        return
    env_e = dict(os.environ, PYTHONPATH=a.ember_path)
    env_t = dict(os.environ)
    env_t.pop("PYTHONPATH", None)
    best = {"ember": {}, "torch": {}}
    for _ in range(a.rounds):
        for name, py, env in (("ember", sys.executable, env_e), ("torch", a.torch_python, env_t)):
            for k, v in run_child(py, name, env, a.repeat, a.number).items():
                best[name][k] = min(v, best[name].get(k, v))
    best["ember"]["import"] = import_time(sys.executable, "ember", env_e)
    best["torch"]["import"] = import_time(a.torch_python, "torch", env_t)
    tv = subprocess.run([a.torch_python, "-c", "import torch; print(torch.__version__)"], env=env_t,
                        capture_output=True, text=True).stdout.strip()
    print(f"ns per statement, best of {a.rounds} rounds x {a.repeat} repeats; Python {sys.version.split()[0]}, "
          f"torch {tv}, 1 thread")
    print(f"  {'case':32s} {'ember':>8s} {'torch':>8s} {'ratio':>6s}")
    for k, e in best["ember"].items():
        t = best["torch"].get(k)
        ratio = f"{e / t:6.2f}" if t else "      "
        ts = f"{t:8.0f}" if t else "       -"
        if k == "import":
            print(f"  {k:32s} {e / 1e6:6.0f}ms {t / 1e6:6.0f}ms {ratio}")
        else:
            print(f"  {k:32s} {e:8.0f} {ts} {ratio}")


if __name__ == "__main__":
    main()
