"""`import ember as torch` on nn_parity.py's models (a CNN with AdamW, an embedding + bidirectional LSTM
tagger with nesterov SGD, GRU, a transformer encoder layer with Adam/amsgrad, attention, batch norm
statistics, losses, schedulers) against PyTorch's results recorded by the same script
(data/torch_nn_parity.json; torch is not imported here)."""
import json
import os

import pytest

import ember
import nn_parity

HERE = os.path.dirname(__file__)


@pytest.fixture(scope="module")
def results():
    with open(os.path.join(HERE, "data", "torch_nn_parity.json")) as f:
        recorded = json.load(f)
    return recorded, nn_parity.run(ember)


def test_same_names(results):
    recorded, ours = results
    assert set(ours) == {k for k in recorded if not k.startswith("_")}


@pytest.mark.parametrize("key", sorted(k for k in json.load(open(os.path.join(HERE, "data", "torch_nn_parity.json")))
                                      if not k.startswith("_")))
def test_matches_pytorch(results, key):
    recorded, ours = results
    want, got = recorded[key], ours[key]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert abs(g - w) <= 1e-12 + 1e-9 * abs(w), f"{key}[{i}]: ember {g!r}, torch {w!r}"
