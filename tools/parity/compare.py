#!/usr/bin/env python3
"""Compares two outputs of tools/parity/parity.cpp (Ember's, libtorch's) line by line.

Each line is `name dtype shape v1 v2 ...` (or `name ERROR message`). Names, dtypes and shapes must match
exactly; integer and bool values exactly; floating values to |e - l| <= atol + rtol * |l| with per-dtype
tolerances (NaN equals NaN, infinities must match exactly). Exits 1 when anything differs.
"""
import math
import sys

TOL = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}  # (rtol, atol)
SHOW = 8  # values shown per differing line


def parse(path):
    out = {}
    order = []
    with open(path) as f:
        for raw in f:
            parts = raw.split()
            if not parts:
                continue
            name = parts[0]
            if len(parts) >= 2 and parts[1] == "ERROR":
                rec = ("ERROR", " ".join(parts[2:]), None)
            else:
                rec = (parts[1] if len(parts) > 1 else "?", parts[2] if len(parts) > 2 else "?", parts[3:])
            if name not in out:
                order.append(name)
            out[name] = rec
    return out, order


def close(e, l, dtype):
    if dtype in TOL:
        a, b = float(e), float(l)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        rtol, atol = TOL[dtype]
        return abs(a - b) <= atol + rtol * abs(b)
    return e == l


def main():
    ember, order = parse(sys.argv[1])
    torch, torch_order = parse(sys.argv[2])
    diffs = []
    compared = 0
    worst, inexact = {}, {}  # per dtype, over matching results: largest |e - l| / max(|l|, 1), and how many values were not bit-equal
    for name in torch_order:
        if name not in ember:
            diffs.append(f"{name}: missing from Ember's output (libtorch: {torch[name][0]} {torch[name][1]})")
    for name in order:
        e = ember[name]
        if name not in torch:
            diffs.append(f"{name}: missing from libtorch's output (Ember: {e[0]} {e[1]})")
            continue
        l = torch[name]
        compared += 1
        if e[0] == "ERROR" or l[0] == "ERROR":
            if not (e[0] == "ERROR" and l[0] == "ERROR"):
                diffs.append(f"{name}: Ember {' '.join(e[:2])} | libtorch {' '.join(l[:2])}")
            continue
        if e[0] != l[0] or e[1] != l[1]:
            diffs.append(f"{name}: dtype/shape Ember {e[0]} {e[1]} | libtorch {l[0]} {l[1]}")
            continue
        if len(e[2]) != len(l[2]):
            diffs.append(f"{name}: {len(e[2])} values from Ember, {len(l[2])} from libtorch")
            continue
        bad = [i for i, (a, b) in enumerate(zip(e[2], l[2])) if not close(a, b, e[0])]
        if e[0] in TOL and not bad:
            for a, b in zip(e[2], l[2]):
                a, b = float(a), float(b)
                if math.isfinite(a) and math.isfinite(b) and a != b:
                    worst[e[0]] = max(worst.get(e[0], 0.0), abs(a - b) / max(abs(b), 1.0))
                    inexact[e[0]] = inexact.get(e[0], 0) + 1
        if bad:
            shown = ", ".join(f"[{i}] ember {e[2][i]} libtorch {l[2][i]}" for i in bad[:SHOW])
            more = f" (+{len(bad) - SHOW} more)" if len(bad) > SHOW else ""
            diffs.append(f"{name} {e[0]} {e[1]}: {len(bad)}/{len(e[2])} values differ: {shown}{more}")
    print(f"parity: {compared} results compared, {len(diffs)} differ")
    for dt in sorted(worst):
        print(f"  {dt}: {inexact[dt]} values not bit-equal; largest |ember - libtorch| / max(|libtorch|, 1) = {worst[dt]:.3g}")
    for d in diffs:
        print("  DIFF " + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
