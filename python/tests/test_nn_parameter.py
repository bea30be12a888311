"""What counts as an nn.Parameter and what a Module registers (parameter_parity.py) against PyTorch 2.15's
answers recorded by the same code (data/torch_parameter_facts.json; torch is never imported here). Ember's
parameters are plain tensors remembered by identity (Note [Parameters are plain tensors]); the facts below
are the ones that design can give; type(p) and repr(p) are not among them."""
import json

import pytest

import ember
import parameter_parity

with open(parameter_parity.DATA) as _f:
    RECORDED = {k: v for k, v in json.load(_f).items() if not k.startswith("_")}


@pytest.fixture(scope="module")
def ours():
    return parameter_parity.facts(ember)


def test_same_names(ours):
    assert set(ours) == set(RECORDED)


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_matches_pytorch(ours, key):
    assert ours[key] == RECORDED[key]


def test_the_record_of_parameters_does_not_keep_them_alive():
    import gc
    from ember.nn import parameter
    before = len(parameter._made)
    ps = [ember.nn.Parameter(ember.zeros(2)) for _ in range(100)]
    assert len(parameter._made) == before + 100
    del ps
    gc.collect()
    assert len(parameter._made) == before
    # a new tensor at a freed parameter's address (CPython reuses them) is not taken for that parameter
    reused = 0
    for _ in range(200):
        p = ember.nn.Parameter(ember.zeros(1))
        addr = id(p)
        del p
        t = ember.zeros(1, requires_grad=True)
        reused += id(t) == addr
        assert not isinstance(t, ember.nn.Parameter)
        del t
    assert reused > 0
