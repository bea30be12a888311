"""ember.optim.LBFGS against PyTorch 2.15's iterates, recorded by the same code (lbfgs_parity.py ->
data/torch_lbfgs_facts.json; torch is never imported here): the strong Wolfe line search on the
Rosenbrock function and on a small regularised least-squares problem, float64 and float32."""
import math

import pytest

import ember
import lbfgs_parity
from ember import nn, optim
from ember.optim.lbfgs import _cubic_minimizer, _Probe
from parity_record import recorded

RECORDED = recorded(lbfgs_parity.DATA)


def _rosenbrock_closure(opt, x):
    def closure():
        opt.zero_grad()
        loss = lbfgs_parity.rosenbrock(x)
        loss.backward()
        return loss
    return closure


def _tolerance(case):
    # float64: the same arithmetic up to the order of a dot product's sums. float32: PyTorch keeps the line
    # search's slopes and curvature pairs as float32 tensors where Ember takes Python floats (doubles), so
    # the iterates part at float32's precision, amplified over a few dozen iterations of Rosenbrock's valley.
    return dict(rel=1e-9, abs=1e-12) if lbfgs_parity.CASES[case].get("dtype", "float64") == "float64" else \
        dict(rel=1e-3, abs=1e-4)


@pytest.fixture(scope="module")
def ours():
    return lbfgs_parity.facts(ember)


@pytest.mark.parametrize("case", sorted(lbfgs_parity.CASES))
def test_iterates_match_pytorch(ours, case):
    got, want = ours[case], RECORDED[case]
    tol = _tolerance(case)
    assert len(got["iterates"]) == len(want["iterates"])
    for i, (g, w) in enumerate(zip(got["iterates"], want["iterates"])):
        assert g == pytest.approx(w, **tol), f"after step() call {i}"
    assert got["losses"] == pytest.approx(want["losses"], **tol)
    assert got["final_loss"] == pytest.approx(want["final_loss"], **tol)
    assert (got["func_evals"], got["n_iter"]) == (want["func_evals"], want["n_iter"])


def test_rosenbrock_reaches_the_minimum():
    # (an independent check of the recorded runs: the minimum of Rosenbrock's function is at (1, 1))
    want = RECORDED["rosenbrock_wolfe"]
    assert want["iterates"][-1] == pytest.approx([1.0, 1.0], abs=1e-5)


def test_least_squares_reaches_the_normal_equations_solution():
    # min |A w + c - b|^2 + 0.1 |w|^2 solves [A 1]^T [A 1] z + diag(0.1,0.1,0.1,0) z = [A 1]^T b
    np = pytest.importorskip("numpy")
    an = np.array([row + [1.0] for row in lbfgs_parity.A])
    z = np.linalg.solve(an.T @ an + np.diag([0.1, 0.1, 0.1, 0.0]), an.T @ np.array(lbfgs_parity.B))
    a = ember.tensor(an.tolist(), dtype=ember.float64)
    b = ember.tensor(lbfgs_parity.B, dtype=ember.float64)
    p = [nn.Parameter(ember.zeros(3, dtype=ember.float64)), nn.Parameter(ember.zeros(1, dtype=ember.float64))]
    opt = optim.LBFGS(p, line_search_fn="strong_wolfe", tolerance_grad=1e-12, tolerance_change=1e-14)
    A, B = a[:, :3], b

    def closure():
        opt.zero_grad()
        r = A.matmul(p[0]) + p[1] - B
        loss = (r * r).sum() + 0.1 * (p[0] * p[0]).sum()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    assert ember.cat([p[0], p[1]]).tolist() == pytest.approx(z.tolist(), abs=1e-8)
    # (PyTorch's recorded run with lr=20 ends there too)
    assert RECORDED["least_squares_wolfe_big_lr"]["iterates"][-1] == pytest.approx(z.tolist(), abs=1e-6)


def test_cubic_minimizer():
    # f(t) = (t - 0.3)^2 (t + 2): its local minimum is at t = 0.3; the cubic through two probes of a cubic
    # is the cubic itself
    def probe(t):
        return _Probe(t, (t - 0.3) ** 2 * (t + 2), 2 * (t - 0.3) * (t + 2) + (t - 0.3) ** 2, 0.0)

    for a, b in ((0.0, 1.0), (1.0, 0.0), (-0.5, 2.5)):
        pa, pb = probe(a), probe(b)
        pa.slope, pb.slope = pa.g, pb.g
        assert _cubic_minimizer(pa, pb) == pytest.approx(0.3, abs=1e-12)
        assert _cubic_minimizer(pa, pb, 0.5, 0.9) == 0.5  # clamped to the bounds
    # no local minimum (a cubic without one, f = t^3 + t): the middle of the interval
    pa, pb = _Probe(0.0, 0.0, None, 1.0), _Probe(1.0, 2.0, None, 4.0)
    assert _cubic_minimizer(pa, pb) == 0.5
    # a parabola (f = (t - 0.25)^2) probed at two points: its minimiser
    pa, pb = _Probe(0.0, 0.0625, None, -0.5), _Probe(1.0, 0.5625, None, 1.5)
    assert _cubic_minimizer(pa, pb) == pytest.approx(0.25, abs=1e-12)


def test_line_search_steps_satisfy_the_strong_wolfe_conditions():
    # every step of a run on Rosenbrock's function satisfies f(t) <= f(0) + c1 t f'(0), |f'(t)| <= c2 |f'(0)|
    from ember.optim import lbfgs
    seen = []
    real = lbfgs._strong_wolfe

    def spy(probe, start, t, d_max, max_evals, tolerance_change, c1=1e-4, c2=0.9):
        best, n = real(probe, start, t, d_max, max_evals, tolerance_change, c1, c2)
        seen.append((start.f, start.slope, best.t, best.f, best.slope, n, max_evals))
        return best, n

    lbfgs._strong_wolfe = spy
    try:
        x = nn.Parameter(ember.tensor([-1.2, 1.0], dtype=ember.float64))
        opt = optim.LBFGS([x], line_search_fn="strong_wolfe", max_iter=30, max_eval=1000)
        opt.step(_rosenbrock_closure(opt, x))
    finally:
        lbfgs._strong_wolfe = real
    assert len(seen) > 10
    for f0, s0, t, f, s, n, max_evals in seen:
        assert s0 < 0 and t > 0 and 1 <= n <= max_evals + 1
        assert f <= f0 + 1e-4 * t * s0
        assert abs(s) <= 0.9 * abs(s0)


def test_bad_line_search_name():
    p = nn.Parameter(ember.zeros(1))
    with pytest.raises(ValueError, match=r"^\[LBFGS\] line_search_fn"):
        optim.LBFGS([p], line_search_fn="backtracking")
    assert optim.LBFGS([p], line_search_fn="strong_wolfe").param_groups[0]["line_search_fn"] == "strong_wolfe"


def test_no_parameters_just_evaluates():
    opt = optim.LBFGS([nn.Parameter(ember.zeros(1))])
    opt.param_groups[0]["params"].clear()
    calls = []
    assert opt.step(lambda: calls.append(1) or ember.tensor(2.0)).item() == 2.0 and calls == [1]


def test_state_dict_round_trip_keeps_the_history():
    x = nn.Parameter(ember.tensor([-1.5, 2.0], dtype=ember.float64))
    opt = optim.LBFGS([x], line_search_fn="strong_wolfe", max_iter=3)
    opt.step(_rosenbrock_closure(opt, x))
    y = nn.Parameter(x.detach().clone())
    opt2 = optim.LBFGS([y], line_search_fn="strong_wolfe", max_iter=3)
    opt2.load_state_dict(opt.state_dict())
    opt.step(_rosenbrock_closure(opt, x))
    opt2.step(_rosenbrock_closure(opt2, y))
    assert y.tolist() == x.tolist() and not math.isnan(y.sum().item())
