#!/usr/bin/env python3
"""Ember vs libtorch benchmark results side by side (ratio = Ember / libtorch; below 1: Ember faster).

  compare.py EMBER_JSON LIBTORCH_JSON   two Google Benchmark JSON files (tools/gpu-check)
  compare.py --results DIR              the output of tools/bench/run: one table of every case at every
                                        thread count, with the issue's target, the fraction of the machine's
                                        limit and the value check; exits 1 when a value check FAILED

DIR holds limits.json (machine_limits) and t<threads>/<program>.<ember|libtorch>.<repetition>.json; of
the repetitions each case keeps its lowest time. After the table, the rows whose ratio target is met by
one Ember/libtorch repetition pair and missed by another (repetition r of each side, run one after the
other) are listed with that range: their verdict is within the host's noise. The counters are those of
Note [Benchmark counters] in bench_common.h.
"""
import glob
import json
import math
import os
import re
import sys


def records_of(path):
    """The benchmark records of one JSON file, named without the "/min_time:0.300" that Google Benchmark
    appends for cases that set their own minimum time."""
    records = json.load(open(path))["benchmarks"]
    for b in records:
        b["name"] = re.sub(r"/min_time:[0-9.]+$", "", b["name"])
    return records


def load(path):
    return {b["name"]: b for b in records_of(path) if not b.get("error_occurred")}


def pairwise(ember_json, libtorch_json):
    e, l = load(ember_json), load(libtorch_json)
    print(f"{'benchmark':36s} {'ember us':>10s} {'libtorch us':>12s} {'ratio':>7s} {'ember GB/s':>11s} {'TFLOP/s e/l':>14s}")
    for name, b in e.items():
        if name not in l:
            continue
        te, tl = b["real_time"], l[name]["real_time"]
        unit = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b.get("time_unit", "ns")]
        unit_l = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[l[name].get("time_unit", "ns")]
        bw = b.get("bytes_per_second", 0) / 1e9
        tf = ""
        if "TFLOPs" in b and "TFLOPs" in l[name]:
            tf = f"{b['TFLOPs']:6.1f}/{l[name]['TFLOPs']:<6.1f}"
        print(f"{name:36s} {te * unit:10.2f} {tl * unit_l:12.2f} {te * unit / (tl * unit_l):7.3f} {bw:11.1f} {tf:>14s}")


# Readable case names, in table order; a case missing here is printed under its benchmark name, last.
LABELS = {
    "BM_add_1elem": "add, 1 element, no grad",
    "BM_autograd_chain10_1elem": "autograd fwd+bwd, 10-op chain, 1 element",
    "BM_pointwise/add_f32": "add 16M f32",
    "BM_pointwise/mul_f32": "mul 16M f32",
    "BM_pointwise/exp_f32": "exp 16M f32",
    "BM_pointwise/gelu_f32": "gelu 16M f32",
    "BM_pointwise/sigmoid_f32": "sigmoid 16M f32",
    "BM_add_broadcast_f32": "add [4096²] + [4096] f32 (broadcast)",
    "BM_add_transposed_f32": "a.t() + b, 4096² f32 (transposed)",
    "BM_pointwise/add_bf16": "add 16M bf16",
    "BM_pointwise/mul_bf16": "mul 16M bf16",
    "BM_pointwise/exp_bf16": "exp 16M bf16",
    "BM_pointwise/gelu_bf16": "gelu 16M bf16",
    "BM_pointwise/sigmoid_bf16": "sigmoid 16M bf16",
    "BM_pointwise/add_f16": "add 16M f16",
    "BM_pointwise/mul_f16": "mul 16M f16",
    "BM_pointwise/exp_f16": "exp 16M f16",
    "BM_pointwise/gelu_f16": "gelu 16M f16",
    "BM_pointwise/sigmoid_f16": "sigmoid 16M f16",
    "BM_sum_all_4096sq": "sum all, 4096²",
    "BM_sum_dim0_4096sq": "sum dim 0, 4096²",
    "BM_sum_dim1_4096sq": "sum dim 1, 4096²",
    "BM_max_dim_4096x1024": "max dim -1 (values, indices), 4096×1024",
    "BM_var_4096x1024": "var dim -1, 4096×1024",
    "BM_softmax_4096x1024": "softmax dim -1, 4096×1024",
    "BM_log_softmax_4096x1024": "log_softmax dim -1, 4096×1024",
    "BM_mm/64": "mm 64 f32",
    "BM_mm/256": "mm 256 f32",
    "BM_mm/1024": "mm 1024 f32",
    "BM_mm/2048": "mm 2048 f32",
    "BM_bmm_64x128": "bmm 64×128³ f32",
    "BM_linear_b64_1024": "linear, batch 64, 1024→1024",
    "BM_conv2d_fwd_bwd/mnist1": "conv2d fwd+bwd 64×1×28² → 16 (MNIST CNN 1)",
    "BM_conv2d_fwd_bwd/mnist2": "conv2d fwd+bwd 64×16×14² → 32 (MNIST CNN 2)",
    "BM_conv2d_fwd_bwd/resnet": "conv2d fwd+bwd 8×64×56² → 64 (ResNet block)",
    "BM_conv2d_channels_last_fwd_bwd/resnet_cl": "conv2d fwd+bwd 8×64×56² → 64, channels-last",
    "BM_max_pool2d_fwd_bwd": "max_pool2d 2×2 fwd+bwd, 64×16×28²",
    "BM_max_pool2d_channels_last_fwd_bwd": "max_pool2d 2×2 fwd+bwd, 64×16×28², channels-last",
    "BM_batch_norm2d_fwd_bwd": "batch_norm train fwd+bwd, 8×64×56²",
    "BM_batch_norm2d_channels_last_fwd_bwd": "batch_norm train fwd+bwd, 8×64×56², channels-last",
    "BM_batch_norm2d_eval": "batch_norm eval fwd (no grad), 8×64×56²",
    "BM_batch_norm2d_channels_last_eval": "batch_norm eval fwd (no grad), 8×64×56², channels-last",
    "BM_LSTM_h256_fwd_bwd": "LSTM h256, seq 32, batch 32, fwd+bwd",
    "BM_main_job_epoch": "MNIST CNN main job, one epoch",
    "BM_main_job_peak_rss": "main job peak resident memory",
    "BM_startup": "process start to first op result",
}


def best_of(paths):
    """Lowest real_time of each case over the repetitions (load from elsewhere only adds time), and every
    repetition's record of each case (all of them are value-checked)."""
    best, every = {}, {}
    for p in paths:
        try:
            records = records_of(p)
        except (ValueError, KeyError):  # empty (the filter matched nothing) or cut short by a crash
            continue
        for b in records:
            every.setdefault(b["name"], []).append(b)
            if b.get("error_occurred"):
                best.setdefault(b["name"], b)
                continue
            old = best.get(b["name"])
            if old is None or old.get("error_occurred") or b["real_time"] < old["real_time"]:
                best[b["name"]] = b
    return best, every


SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def value(b):
    """(number, kind): seconds, or bytes for the memory case."""
    if b.get("time_unit") == "bytes":
        return b["real_time"], "bytes"
    return b["real_time"] * SECONDS[b.get("time_unit", "ns")], "s"


def fmt(v, kind):
    if kind == "bytes":
        return f"{v / 2**20:.0f} MiB"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if v >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v / 1e-9:.3g} ns"


def value_check(e, l):
    """'ok', or why not; None when the case has no checksums (timing or memory only)."""
    keys = sorted((k for k in l if re.fullmatch(r"c\d+", k)), key=lambda k: int(k[1:]))
    if not keys:
        return None
    tol = l.get("tol", 1e-5)
    for k in keys:
        s = l.get("s" + k[1:], abs(l[k]))
        if k not in e:
            return f"FAILED ({k} missing)"
        d = abs(e[k] - l[k]) / s if s > 0 else abs(e[k] - l[k])
        if not math.isfinite(d) or d > tol:
            return f"FAILED ({k}: {d:.1e} > {tol:g})"
    return "ok"


def table(results):
    limits = json.load(open(os.path.join(results, "limits.json")))
    tdirs = sorted(glob.glob(os.path.join(results, "t*")), key=lambda d: int(os.path.basename(d)[1:]))
    threads = [os.path.basename(d)[1:] for d in tdirs]
    runs = {}  # threads -> (ember, libtorch)
    for t, d in zip(threads, tdirs):
        (e, e_all), (l, l_all) = (best_of(sorted(glob.glob(os.path.join(d, f"*.{side}.*.json")))) for side in ("ember", "libtorch"))
        runs[t] = (e, l, e_all, l_all)
    names = []
    for e, l, *_ in runs.values():
        for n in list(e) + list(l):
            if n not in names:
                names.append(n)
    names.sort(key=lambda n: list(LABELS).index(n) if n in LABELS else len(LABELS))

    head = ["case", "target"]
    for t in threads:
        head += [f"Ember {t}T", f"libtorch {t}T", f"ratio {t}T"]
    head += ["of limit (" + " / ".join(f"{t}T" for t in threads) + ")", "values", "met"]
    rows, failed, swings = [], False, []
    for n in names:
        row, ratios, fracs, checks, meta = [LABELS.get(n, n)], [], [], [], {}
        for t in threads:
            e, l = runs[t][0].get(n), runs[t][1].get(n)
            if e is None or l is None or e.get("error_occurred") or l.get("error_occurred"):
                err = (e or {}).get("error_message") or (l or {}).get("error_message") or "missing"
                row += ["—", "—", "—"]
                ratios.append(None)
                if e is None or e.get("error_occurred"):
                    checks.append(f"FAILED (Ember {t}T: {err})")
                continue
            meta = l
            (ve, kind), (vl, _) = value(e), value(l)
            ratios.append(ve / vl)
            row += [fmt(ve, kind), fmt(vl, kind), f"{ve / vl:.2f}"]
            c = None
            for rec in runs[t][2].get(n, [e]):
                c = value_check(rec, l) if not rec.get("error_occurred") else f"FAILED ({rec.get('error_message')})"
                if c is not None and c != "ok":
                    break
            if c is not None:
                checks.append(c if c == "ok" else f"{c} at {t}T")
            # Repetition r of Ember ran just before repetition r of libtorch: their ratio, per pair.
            target = l.get("target", 0)
            paired = [value(a)[0] / value(b)[0] for a, b in zip(runs[t][2].get(n, []), runs[t][3].get(n, []))
                      if not a.get("error_occurred") and not b.get("error_occurred")]
            if target and len(paired) > 1 and min(paired) <= target < max(paired):
                swings.append(f"{LABELS.get(n, n)} at {t}T: {min(paired):.2f}–{max(paired):.2f}")
            # Fraction of the machine's limit at this thread count (Ember's throughput).
            if e.get("flops", 0) > 0 and str(t) in limits["fma_gflops"]:
                fracs.append((e["flops"] / ve / 1e9 / limits["fma_gflops"][str(t)], "FMA peak"))
            elif e.get("read", 0) and e.get("bytes", 0) > 0 and str(t) in limits.get("read_gbs", {}):
                fracs.append((e["bytes"] / ve / 1e9 / limits["read_gbs"][str(t)], "read"))
            elif e.get("bytes", 0) > 0 and str(t) in limits["triad_gbs"]:
                fracs.append((e["bytes"] / ve / 1e9 / limits["triad_gbs"][str(t)], "triad"))
        target = meta.get("target", 0)
        ftarget = meta.get("frac_target", 0)
        tcell = f"≤ {target:g}" if target else ""
        if ftarget:
            tcell += f", ≥ {ftarget:.0%} of {fracs[0][1] if fracs else 'limit'}"
        row.insert(1, tcell)
        row.append(" / ".join(f"{f:.0%}" for f, _ in fracs) + (f" {fracs[0][1]}" if fracs else ""))
        bad = [c for c in checks if c != "ok"]
        failed |= bool(bad)
        row.append("; ".join(bad) if bad else ("ok" if checks else "n/a"))
        met = (target == 0 or all(r is not None and r <= target for r in ratios)) and \
              (ftarget == 0 or (fracs and all(f >= ftarget for f, _ in fracs)))
        row.append("FAILED" if bad else ("yes" if met else "no"))
        rows.append(row)

    at = lambda k: " / ".join(f"{limits[k][t]:.1f}" for t in threads if t in limits.get(k, {}))
    ts = " / ".join(f"{t}T" for t in threads)
    print(f"machine limits at {ts} (machine_limits): FMA peak {at('fma_gflops')} GFLOP/s "
          f"(256-bit vectors: {at('fma_gflops_256bit')}), triad {at('triad_gbs')} GB/s"
          + (f", read (64 MiB) {at('read_gbs')} GB/s" if "read_gbs" in limits else ""))
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" if i < len(head) - 3 else "---" for i in range(len(head))) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if swings:
        # A row whose verdict flips between repetitions is within the host's noise of its target.
        print("\nratio of each Ember/libtorch repetition pair crosses the target: " + "; ".join(swings))
    if failed:
        print("\nvalue check FAILED for at least one case (Ember's result differs from libtorch's)")
    return 1 if failed else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--results":
        return table(argv[2])
    if len(argv) == 3:
        pairwise(argv[1], argv[2])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
