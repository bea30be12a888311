#!/usr/bin/env python3
"""Prints Ember vs libtorch Google Benchmark JSON results side by side (ratio < 1: Ember faster)."""
import json
import sys


def load(path):
    return {b["name"]: b for b in json.load(open(path))["benchmarks"] if not b.get("error_occurred")}


def main(ember_json, libtorch_json):
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


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
