#!/usr/bin/env python3
"""The cases of issue #8's table that are whole processes, not Google Benchmark loops (run by tools/bench/run):

  BM_startup            process start to first op result: tools/bench/startup.cpp, best of 10 runs
  BM_main_job_epoch     one epoch of the main job (examples/mnist, default CNN; train and test pass) as the
                        job itself reports it; value check: the test accuracy after that epoch
  BM_main_job_peak_rss  that run's peak resident memory (wait4's ru_maxrss)

Writes Google Benchmark-like JSON (real_time in ns, the counters of Note [Benchmark counters] in
bench_common.h) for one library, so compare.py reads it like the benchmark programs' output.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time


def run_startup(exe, runs=10):
    best, out = None, ""
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run([exe], capture_output=True, text=True)
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"{exe} exited with {p.returncode}: {p.stderr.strip()[-300:]}")
        out = p.stdout.strip()
        best = dt if best is None else min(best, dt)
    v = float(out)
    return {"name": "BM_startup", "real_time": best * 1e9, "time_unit": "ns",
            "c0": v, "s0": abs(v), "tol": 1e-6, "target": 0.2, "bytes": 0, "flops": 0}


def run_main_job(cmd):
    """Runs the job once; returns (epoch seconds, test accuracy %, peak RSS bytes)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {p.returncode}: {out.strip()[-500:]}")
    m = re.search(r"epoch\s+1/1 .*test accuracy ([0-9.]+)%\s+time ([0-9.]+)s", out)
    if not m:
        raise RuntimeError(f"no epoch line in the output of {' '.join(cmd)}: {out.strip()[-500:]}")
    return float(m.group(2)), float(m.group(1)), usage.ru_maxrss * 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--filter", default=".", help="regex over the case names (as --benchmark_filter)")
    ap.add_argument("--startup", help="the startup program")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--batches", type=int, default=0, help="train/test batches of the epoch (0: all)")
    ap.add_argument("job", nargs=argparse.REMAINDER, help="-- the main job's command (without --epochs)")
    a = ap.parse_args()
    job = [x for x in a.job if x != "--"]
    want = lambda name: re.search(a.filter, name) is not None
    out = []
    if a.startup and want("BM_startup"):
        out.append(run_startup(a.startup))
    if job and (want("BM_main_job_epoch") or want("BM_main_job_peak_rss")):
        cmd = job + ["--epochs", "1", "--threads", str(a.threads)]
        if a.batches > 0:
            cmd += ["--limit", str(a.batches)]
        secs, acc, rss = run_main_job(cmd)
        # One epoch from different random initialisations: the accuracies agree to a couple of points.
        if want("BM_main_job_epoch"):
            out.append({"name": "BM_main_job_epoch", "real_time": secs * 1e9, "time_unit": "ns",
                        "c0": acc, "s0": acc, "tol": 0.03, "target": 0.8, "bytes": 0, "flops": 0})
        if want("BM_main_job_peak_rss"):
            out.append({"name": "BM_main_job_peak_rss", "real_time": rss, "time_unit": "bytes",
                        "target": 1.0, "bytes": 0, "flops": 0})
    json.dump({"context": {}, "benchmarks": out}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
