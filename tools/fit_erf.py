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


def nodes(a, b):
    k = np.arange(N)
    return (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (k + 0.5) / N)


def lawson(A, f, weight, iters=40):
    w = weight.copy()
    for _ in range(iters):
        c, *_ = np.linalg.lstsq(A * w[:, None], f * w, rcond=None)
        err = (A @ c - f) * weight
        w = w * np.sqrt(np.abs(err) + 1e-300)
        w /= w.max()
    return c


def fit(x, f, degree, weight):
    """Coefficients c_0..c_degree (float32 values) of sum c_k x^k ~ f, error weighted by weight."""
    A = np.vander(x, degree + 1, increasing=True)
    cs = []
    for k in range(degree + 1):
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
# erf(x / sqrt 2) / x in x^2, x in [0, 0.9 sqrt 2], relative
s = np.abs(nodes(0, 1.62))
f = np.array([float(erf_over_x(mp.mpf(v), 1 / mp.sqrt(2))) for v in s])
show("kGeluSmall", *fit(s, f, 6, 1 / f))
# Q(u) = log(erfc(z) e^(z^2) (1 + p z)) + ln 2, u = 2 / (1 + p z) - 1, p = 1 / sqrt 2, z in [0.3, 11]
p = 1 / mp.sqrt(2)
u = nodes(float((1 - p * 11) / (1 + p * 11)), float((1 - p * 0.3) / (1 + p * 0.3)))
z = [(1 - mp.mpf(v)) / (p * (1 + mp.mpf(v))) for v in u]
q = np.array([float(mp.log(mp.erfc(v) * mp.exp(v * v) * (1 + p * v)) + mp.log(2)) for v in z])
show("kErfcTail", *fit(u, q, 11, np.ones(N)))
# (e^r - 1 - r) / r^2, |r| <= ln 2 / 2 (and 0.2% more), error relative to e^r
r = nodes(-float(mp.log(2)) / 2 * 1.002, float(mp.log(2)) / 2 * 1.002)
g = np.array([float((mp.exp(mp.mpf(v)) - 1 - v) / mp.mpf(v) ** 2) for v in r])
show("kExpPoly", *fit(r, g, 4, r * r / np.exp(r)))
