"""NumPy scalars and arrays as arguments (parser_numpy_parity.py) against PyTorch 2.15's answers recorded by
the same code (data/torch_parser_numpy.json; torch is never imported here)."""
import json

import pytest

import ember
import parser_numpy_parity

with open(parser_numpy_parity.DATA) as _f:
    RECORDED = {k: v for k, v in json.load(_f).items() if not k.startswith("_")}


@pytest.fixture(scope="module")
def ours():
    # NumPy imported here, not at collection: the other files' tests see NumPy not loaded, as they would alone
    np = pytest.importorskip("numpy")
    return parser_numpy_parity.run(ember, np)


def test_same_names(ours):
    assert set(ours) == set(RECORDED)


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_matches_pytorch(ours, key):
    assert ours[key] == RECORDED[key]
