"""The GIL is released while a kernel or the autograd engine runs: another Python thread keeps running
bytecode during one long call. (Threads that each run ops and get the right results, as in
test_core.py, would pass with the GIL held too, only serialized.)

The measure: a worker thread makes one call that lasts tens of milliseconds while the main thread counts
loop iterations, stamping each with perf_counter. With the GIL held for the whole call no iteration can
fall inside it; released, the main thread runs throughout. Only the middle 60% of the call counts, so
that the Python work around the C call (argument parsing, wrapping) is left out.
"""
import threading
import time

import ember


def _ticks_inside(fn):
    """(duration of fn() in the worker, number of main-thread iterations inside its middle 60%)."""
    done = threading.Event()
    span = {}

    def work():
        span["start"] = time.perf_counter()
        fn()
        span["end"] = time.perf_counter()
        done.set()

    ticks = []
    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
    worker.join()
    start, end = span["start"], span["end"]
    d = end - start
    return d, sum(1 for t in ticks if start + 0.2 * d < t < end - 0.2 * d)


def _long_matrices(requires_grad=False, target=0.03):
    """Square float64 matrices whose product takes at least `target` seconds here (doubling n from 256)."""
    n = 256
    while True:
        a = ember.rand(n, n, dtype=ember.float64)
        t0 = time.perf_counter()
        a @ a
        if time.perf_counter() - t0 >= target or n >= 4096:
            b = ember.rand(n, n, dtype=ember.float64)
            return a.requires_grad_(requires_grad), b.requires_grad_(requires_grad)
        n *= 2


def _check(fn):
    # the main thread may be descheduled on a busy machine: a few tries before calling it held
    for _ in range(3):
        d, inside = _ticks_inside(fn)
        if inside > 0:
            return d, inside
    return d, inside


def test_a_generated_op_runs_without_the_gil():
    a, b = _long_matrices()
    d, inside = _check(lambda: ember.mm(a, b))
    assert inside > 0, f"no Python ran during a {d * 1e3:.0f} ms mm"


def test_an_operator_runs_without_the_gil():
    a, b = _long_matrices()
    d, inside = _check(lambda: a @ b)
    assert inside > 0, f"no Python ran during a {d * 1e3:.0f} ms a @ b"


def test_backward_runs_without_the_gil():
    a, b = _long_matrices(requires_grad=True)

    def run():
        (a @ b).sum().backward()  # the forward mm has the GIL released too; backward runs two more

    d, inside = _check(run)
    assert inside > 0, f"no Python ran during a {d * 1e3:.0f} ms forward + backward"


def test_autograd_grad_runs_without_the_gil():
    a, b = _long_matrices(requires_grad=True)
    y = (a @ b).sum()
    d, inside = _check(lambda: ember.autograd.grad(y, [a, b], retain_graph=True))
    assert inside > 0, f"no Python ran during a {d * 1e3:.0f} ms autograd.grad"


def _long_mask():
    """A float tensor and a mask of about half its elements such that x[mask] takes at least 30 ms here."""
    n = 1 << 22
    while True:
        x = ember.rand(n)
        mask = x > 0.5
        t0 = time.perf_counter()
        x[mask]
        if time.perf_counter() - t0 >= 0.03 or n >= 1 << 26:
            return x, mask
        n *= 2


# (These two failed as strict xfails while module.cpp's __getitem__/__setitem__ held the GIL around
# index/index_put_: the measure tells the two apart.)
def test_indexing_with_a_mask_runs_without_the_gil():
    x, mask = _long_mask()
    d, inside = _check(lambda: x[mask])
    assert inside > 0, f"no Python ran during a {d * 1e3:.0f} ms x[mask]"


def test_assigning_through_a_mask_runs_without_the_gil():
    x, mask = _long_mask()
    v = x[mask] * 2

    def run():
        x[mask] = v

    d, inside = _check(run)
    assert inside > 0, f"no Python ran during a {d * 1e3:.0f} ms x[mask] = v"
    assert ember.equal(x[mask], v)
