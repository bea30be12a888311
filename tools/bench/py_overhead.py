"""Per-op time from Python on tiny tensors (the binding and dispatch overhead, as PyTorch's
benchmarks/dynamo/microbenchmarks/overheads.py measures `x + 1`), for Ember or PyTorch:

    PYTHONPATH=build/python python3 tools/bench/py_overhead.py ember
    .peer/venv/bin/python tools/bench/py_overhead.py torch

Prints the best of 7 repeats, in ns per call.
"""
import importlib
import sys
import timeit


def main():
    lib = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "ember")
    torch_threads = getattr(lib, "set_num_threads", None)
    if torch_threads:
        torch_threads(1)
    x = lib.ones(1)
    y = lib.ones(1)
    g = lib.ones(1, requires_grad=True)
    cases = {
        "x + 1": lambda: x + 1,
        "x + y": lambda: x + y,
        "add(x, y)": lambda: lib.add(x, y),
        "x.add(y, alpha=2)": lambda: x.add(y, alpha=2),
        "x.neg()": lambda: x.neg(),
        "x.sum(0, keepdim=True)": lambda: x.sum(0, keepdim=True),
        "zeros(2, 3)": lambda: lib.zeros(2, 3),
        "g * 2 (grad)": lambda: g * 2,
    }
    print(f"{lib.__name__}: ns per call, best of 7")
    for name, fn in cases.items():
        n = 20000
        best = min(timeit.repeat(fn, number=n, repeat=7)) / n
        print(f"  {name:24s} {best * 1e9:8.0f}")


if __name__ == "__main__":
    main()
