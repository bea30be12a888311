#!/usr/bin/env python3
"""Fits the float coefficients kExp of Vec.h's own float exp (Note [Own float exp]) and prints them.

e^r = 1 + r + r^2 q(r) on |r| <= ln 2 / 2 (plus the few ulps by which r can pass it, since n comes
from a float log2 e); q is degree 5, fitted by least squares on Chebyshev nodes with the error
weighted to be relative to e^r (values from mpmath at 40 digits), rounded to float one coefficient
at a time from the constant term up, the rest refitted after each rounding. The error printed is
the fit's alone; the function's own error, over every float, is in docs/vector-math.md.
Needs numpy and mpmath:  python3 tools/fit_exp.py
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 40
N = 4000
HALF_LN2 = float(mp.log(2) / 2) + 3e-6

r = HALF_LN2 * np.cos(np.pi * (np.arange(N) + 0.5) / N)
q = np.array([float((mp.exp(mp.mpf(v)) - 1 - v) / mp.mpf(v) ** 2) for v in r])
w = np.array([float(mp.mpf(v) ** 2 / mp.exp(mp.mpf(v))) for v in r])  # q's error times w: relative to e^r

DEGREE = 5
cs, done = [], np.zeros(N)
for k in range(DEGREE + 1):
    A = np.stack([r**j for j in range(k, DEGREE + 1)], axis=1) * w[:, None]
    c = np.linalg.lstsq(A, (q - done) * w, rcond=None)[0]
    cs.append(float(np.float32(c[0])))
    done += cs[-1] * r**k
err = float(np.abs((done - q) * w).max())


def hexf(c):
    mant, exp = float(c).hex().split("p")
    return mant.rstrip("0").rstrip(".") + "p" + exp + "f"


print(f"// kExp: max error {err:.3g} = {err / 2**-24:.4f} x 2^-24")
print("{" + ", ".join(hexf(c) for c in cs) + "}")
