"""A Module's state_dict machinery (module_state_parity.py: extra state, the state_dict and
load_state_dict hooks, missing/unexpected keys, to_empty) against PyTorch 2.15's answers recorded by the
same code (data/torch_module_state_facts.json; torch is never imported here)."""
import collections
import copy
import pickle

import pytest

import ember
import module_state_parity
from ember import nn
from parity_record import parity_tests, recorded

RECORDED = recorded(module_state_parity.DATA)

# Where Ember knowingly answers otherwise (none now: to_empty and to() keep the Parameter objects, as
# PyTorch's, through the .data setter).
DIFFERENT = {}


def _normalise(v):
    """PyTorch's messages name torch.Tensor where Ember's name ember.Tensor."""
    if isinstance(v, str):
        return v.replace("torch.Tensor", "ember.Tensor")
    if isinstance(v, list):
        return [_normalise(x) for x in v]
    if isinstance(v, dict):
        return {k: _normalise(x) for k, x in v.items()}
    return v


ours, test_same_names, test_matches_pytorch = parity_tests(
    module_state_parity, lambda key, value: DIFFERENT.get(key, _normalise(value)))


def test_differences_are_still_differences():
    if not DIFFERENT:
        pytest.skip("no documented differences from PyTorch")
    for key, ours_value in DIFFERENT.items():
        assert RECORDED[key] != ours_value, key


def test_incompatible_keys_repr():
    r = nn.Linear(1, 1).load_state_dict(nn.Linear(1, 1).state_dict())
    assert repr(r) == "<All keys matched successfully>" and str(r) == repr(r)
    r = nn.Linear(1, 1).load_state_dict({"weight": ember.zeros(1, 1)}, strict=False)
    assert repr(r) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])"  # (as PyTorch's)
    missing, unexpected = r
    assert missing == ["bias"] and unexpected == []


def test_load_state_dict_leaves_the_callers_dict_alone():
    lin = nn.Linear(2, 1)

    def rename(module, sd, prefix, *rest):
        sd["weight"] = sd.pop("w")

    lin.register_load_state_dict_pre_hook(rename)
    given = {"w": ember.ones(1, 2), "bias": ember.zeros(1)}
    lin.load_state_dict(given)
    assert sorted(given) == ["bias", "w"] and lin.weight.tolist() == [[1.0, 1.0]]


def test_extra_state_round_trips_through_save_and_pickle(tmp_path):
    class Tagged(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.tag = "new"

        def get_extra_state(self):
            return {"tag": self.tag, "steps": [1, 2]}

        def set_extra_state(self, state):
            self.tag = state["tag"]

    a = Tagged()
    a.tag = "trained"
    ember.save(a.state_dict(), tmp_path / "m.pt")
    b = Tagged()
    assert repr(b.load_state_dict(ember.load(tmp_path / "m.pt"))) == "<All keys matched successfully>"
    assert b.tag == "trained" and b.lin.weight.equal(a.lin.weight)
    # a state_dict (with its _metadata) pickles and deep-copies
    sd = a.state_dict()
    for again in (pickle.loads(pickle.dumps(sd)), copy.deepcopy(sd)):
        assert list(again) == list(sd) and again._metadata == sd._metadata


def test_hooks_survive_deepcopy_and_pickle_on_the_copy():
    seen = []
    lin = nn.Linear(1, 1)
    lin._register_load_state_dict_pre_hook(lambda module, *rest: seen.append(module), with_module=True)
    twin = copy.deepcopy(lin)
    twin.load_state_dict(twin.state_dict())
    assert seen == [twin]  # the copy's hook is given the copy


def test_hooks_of_a_module_from_an_older_pickle():
    lin = nn.Linear(1, 1)
    state = dict(lin.__dict__)
    for store in ("_state_dict_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
                  "_load_state_dict_post_hooks"):
        del state[store]
    old = nn.Linear.__new__(nn.Linear)
    old.__setstate__(state)
    assert list(old.state_dict()) == ["weight", "bias"]
    old.load_state_dict(lin.state_dict())


def test_bound_method_hooks_and_handles():
    class Recorder:
        def __init__(self):
            self.calls = []

        def post(self, module, sd, prefix, meta):
            self.calls.append(prefix)

    rec = Recorder()
    m = nn.Sequential(nn.Linear(1, 1))
    h = m[0].register_state_dict_post_hook(rec.post)
    m.state_dict()
    with h:
        m.state_dict(prefix="x.")
    m.state_dict()
    assert rec.calls == ["0.", "x.0."]


def test_share_memory_raises():
    with pytest.raises(NotImplementedError, match=r"^\[Module.share_memory\]"):
        nn.Linear(1, 1).share_memory()


def test_to_empty_keeps_dtype_and_is_writable():
    m = nn.Linear(3, 2).double()
    m.to_empty(device="cpu")
    assert [p.dtype for p in m.parameters()] == [ember.float64, ember.float64]
    with ember.no_grad():
        nn.init.constant_(m.weight, 0.5)
        m.bias.zero_()
    assert m(ember.ones(1, 3, dtype=ember.float64)).tolist() == [[1.5, 1.5]]


def test_positional_state_dict_arguments():
    lin = nn.Linear(1, 1)
    dest = collections.OrderedDict()
    assert lin.state_dict(dest, "p.") is dest and list(dest) == ["p.weight", "p.bias"]
