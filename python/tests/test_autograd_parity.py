"""Parity with PyTorch's Python API for autograd: autograd_scenario.scenario run with `ember` against
(1) its results under PyTorch 2.15, recorded in data/autograd_parity_torch.json, and (2) when a Python
with torch is at hand (EMBER_TORCH_PYTHON, or the repository's .peer/venv), a live run under torch
in a subprocess (skipped otherwise; torch is never imported here)."""
import json
import os
import pathlib
import subprocess

import pytest

import ember
from autograd_scenario import scenario

HERE = pathlib.Path(__file__).resolve().parent


def assert_same(ours, theirs, path="result"):
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), path
        for k in theirs:
            assert_same(ours[k], theirs[k], f"{path}.{k}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), path
        for k, (o, t) in enumerate(zip(ours, theirs)):
            assert_same(o, t, f"{path}[{k}]")
    elif isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12), path
    else:
        assert ours == theirs, path


def test_autograd_scenario_matches_recorded_pytorch():
    recorded = json.loads((HERE / "data" / "autograd_parity_torch.json").read_text())["result"]
    assert_same(scenario(ember), recorded)


def torch_python():
    candidates = [os.environ.get("EMBER_TORCH_PYTHON"), str(HERE.parents[1] / ".peer" / "venv" / "bin" / "python")]
    for c in candidates:
        if c and os.path.exists(c):
            probe = subprocess.run([c, "-c", "import torch"], capture_output=True)
            if probe.returncode == 0:
                return c
    return None


def test_autograd_scenario_matches_live_pytorch():
    py = torch_python()
    if py is None:
        pytest.skip("no Python with torch (set EMBER_TORCH_PYTHON)")
    code = "import json, torch, autograd_scenario as s; print(json.dumps(s.scenario(torch)))"
    run = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=HERE, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(HERE)})
    assert run.returncode == 0, run.stderr[-2000:]
    assert_same(scenario(ember), json.loads(run.stdout.strip().splitlines()[-1]))
