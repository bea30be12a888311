#!/usr/bin/env python3
"""Fits the float coefficients of Vec.h's own erf / gelu_erf (Note [Own float erf]) and prints them.

Each is a minimax fit (Lawson-reweighted least squares in float64 on Chebyshev nodes, values from
mpmath at 40 digits), rounded to float one coefficient at a time from the constant term up, the
remaining ones refitted after each rounding. Needs numpy and mpmath:  python3 tools/fit_erf.py
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 40
N = 2000  # nodes per fit


def nodes(a, b, n=None):
    k = np.arange(n or N)
    return (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (k + 0.5) / len(k))


def lawson(A, f, weight, iters=40):
    w = weight.copy()
    for _ in range(iters):
        c, *_ = np.linalg.lstsq(A * w[:, None], f * w, rcond=None)
        err = (A @ c - f) * weight
        w = w * np.sqrt(np.abs(err) + 1e-300)
        w /= w.max()
    return c


def fit(x, f, degree, weight, c0=None):
    """Coefficients c_0..c_degree (float32 values) of sum c_k x^k ~ f, error weighted by weight
    (c_0 = c0 when given)."""
    A = np.vander(x, degree + 1, increasing=True)
    cs = [] if c0 is None else [c0]
    for k in range(len(cs), degree + 1):
        rest = f - (A[:, :k] @ np.array(cs) if k else 0)
        cs.append(float(np.float32(lawson(A[:, k:], rest, weight)[0])))
    return cs, float(np.abs((A @ np.array(cs) - f) * weight).max())


def show(name, cs, err):
    print(f"// {name}: max error {err:.3g} = {err / 2**-24:.3f} x 2^-24")
    def hexf(c):
        mant, exp = float(c).hex().split("p")
        return mant.rstrip("0").rstrip(".") + "p" + exp + "f"
    print("{" + ", ".join(hexf(c) for c in cs) + "}")


def erf_over_x(v, scale):  # erf(scale sqrt(v)) / sqrt(v)
    return mp.erf(scale * mp.sqrt(v)) / mp.sqrt(v) if v > 0 else 2 * scale / mp.sqrt(mp.pi)


# erf(z) / z - 1 in z^2, z in [0, 0.9], error relative to erf(z) / z
s = np.abs(nodes(0, 0.81))
f = np.array([float(erf_over_x(mp.mpf(v), 1)) for v in s])
show("kErfSmall", *fit(s, f - 1, 6, 1 / f))
# Q(u) = log(erfc(z) e^(z^2) (1 + p z)) + ln 2, u = 2 / (1 + p z) - 1, p = 1 / sqrt 2, z in [0.3, 11]
p = 1 / mp.sqrt(2)
u = nodes(float((1 - p * 11) / (1 + p * 11)), float((1 - p * 0.3) / (1 + p * 0.3)))
z = [(1 - mp.mpf(v)) / (p * (1 + mp.mpf(v))) for v in u]
q = np.array([float(mp.log(mp.erfc(v) * mp.exp(v * v) * (1 + p * v)) + mp.log(2)) for v in z])
show("kErfcTail", *fit(u, q, 11, np.ones(N)))
# gelu: R(a) = Phi(-a) e^(a^2 / 2) on 8 intervals [lo, hi): the halves of the octaves of y = 1 + a,
# the last cut at 14.875 (Vec.h takes R at min(a, 14.875)); on each, R(a0 + s) ~ c0 + c1 s + ... +
# c8 s^8 around a0, the midpoint (0 for the first interval), with c0 = R(a0) exactly as two floats
# (c0hi + c0lo) and c1..c8 fitted to the rest, error relative to R. s runs from a hair below lo - a0
# (a rounded y can start an interval early) to hi - a0.
def gelu_r(a):
    a = mp.mpf(a)
    return mp.erfc(a / mp.sqrt(2)) / 2 * mp.exp(a * a / 2)
GELU_INTERVALS = [(0, 0.5, 0), (0.5, 1, 0.75), (1, 2, 1.5), (2, 3, 2.5), (3, 5, 4), (5, 7, 6), (7, 11, 9),
                  (11, 14.875, 13)]
rows, worst = [], 0.0
for lo, hi, a0 in GELU_INTERVALS:
    w = hi - lo
    sv = np.concatenate([nodes(lo - a0 - w * 2**-20, hi - a0, 400), [lo - a0 - w * 2**-20, 0.0, hi - a0]])
    fm = [gelu_r(mp.mpf(a0) + mp.mpf(v)) for v in sv]
    f = np.array([float(v) for v in fm])
    c0 = gelu_r(a0)
    c0hi = float(np.float32(float(c0)))
    c0lo = float(np.float32(float(c0 - c0hi)))
    rest = np.array([float(v - c0) for v in fm])
    A = np.vander(sv, 9, increasing=True)[:, 1:]
    cs = []
    for j in range(8):
        r = rest - (A[:, :j] @ np.array(cs) if j else 0)
        cs.append(float(np.float32(lawson(A[:, j:], r, 1 / f)[0])))
    approx = (c0hi + c0lo) + A @ np.array(cs)
    worst = max(worst, float(np.abs((approx - f) / f).max()))
    rows.append([c0hi, c0lo] + cs)
print(f"// kGeluR: max error {worst:.3g} = {worst / 2**-24:.3f} x 2^-24 (relative to R)")
def hexf(c):
    if c == 0:
        return "0.0f"
    mant, exp = float(c).hex().split("p")
    return mant.rstrip("0").rstrip(".") + "p" + exp + "f"
print("{" + ",\n ".join("{" + ", ".join(hexf(r[j]) for r in rows) + "}" for j in range(10)) + "}")
# gelu near 0 (|x| < 3.875, Vec.h's gelu_near): E(a) = Phi(-a) on 16 intervals around a0 = j / 4,
# s = a - a0 in [-1/8, 1/8] ([0, 1/8] for j = 0); E(a0 + s) ~ c0 + c1 s + ... + c6 s^6, error
# relative to E.
rows, worst = [], 0.0
for j in range(16):
    a0 = mp.mpf(j) / 4
    lo = 0.0 if j == 0 else -0.125
    sv = np.concatenate([nodes(lo, 0.125, 400), [lo, 0.125, 0.0]])
    f = np.array([float(mp.erfc((a0 + mp.mpf(v)) / mp.sqrt(2)) / 2) for v in sv])
    cs, err = fit(sv, f, 6, 1 / f)
    worst = max(worst, err)
    rows.append(cs)
print(f"// kGeluNear: max error {worst:.3g} = {worst / 2**-24:.3f} x 2^-24 (relative to E)")
print("{\n " + ",\n ".join("{" + ", ".join(hexf(r[j]) for r in rows) + "}" for j in range(7)) + "}")
# (e^r - 1 - r) / r^2, |r| <= ln 2 / 2 (and 0.2% more), error relative to e^r
r = nodes(-float(mp.log(2)) / 2 * 1.002, float(mp.log(2)) / 2 * 1.002)
g = np.array([float((mp.exp(mp.mpf(v)) - 1 - v) / mp.mpf(v) ** 2) for v in r])
show("kExpPoly", *fit(r, g, 4, r * r / np.exp(r)))
