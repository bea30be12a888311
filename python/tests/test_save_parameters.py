"""ember.save / ember.load of nn.Parameter: written as PyTorch writes one
(torch._utils._rebuild_parameter(data, requires_grad, OrderedDict())), read back as ember.nn.Parameter,
one object per parameter, sharing storage with the tensors saved beside it.

data/torch_parameters.pt was written by torch 2.15.0:
    p = nn.Parameter(torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4)
    frozen = nn.Parameter(torch.tensor([1.5, -2.0], dtype=torch.float64), requires_grad=False)
    ip = nn.Parameter(torch.tensor([7, -3], dtype=torch.int32), requires_grad=False)
    torch.save({"p": p, "frozen": frozen, "int": ip, "view": p.data[1],
                "plain": torch.ones(2, requires_grad=True), "list": [p, frozen]}, path)
and torch.load of it gives (recorded): p, frozen, int: Parameter with requires_grad True, False, False;
view and plain: Tensor (requires_grad False, True); view shares p's storage; list holds p and frozen
themselves (`is`).
"""
import io
import os
import pickle
import zipfile

import ember
import pytest
from ember import nn

HERE = os.path.dirname(os.path.abspath(__file__))


def data_pkl(blob):
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        name = next(n for n in z.namelist() if n.endswith("/data.pkl"))
        return z.read(name)


def round_trip(obj):
    buf = io.BytesIO()
    ember.save(obj, buf)
    blob = buf.getvalue()
    return ember.load(io.BytesIO(blob)), blob


def test_load_parameters_saved_by_pytorch():
    o = ember.load(os.path.join(HERE, "data", "torch_parameters.pt"))
    assert sorted(o) == ["frozen", "int", "list", "p", "plain", "view"]
    kinds = {k: (type(o[k]).__name__, o[k].requires_grad) for k in ("p", "frozen", "int", "view", "plain")}
    assert kinds == {"p": ("Parameter", True), "frozen": ("Parameter", False), "int": ("Parameter", False),
                     "view": ("Tensor", False), "plain": ("Tensor", True)}
    assert o["p"].tolist() == [[0.0, 0.25, 0.5], [0.75, 1.0, 1.25]]
    assert o["frozen"].dtype == ember.float64 and o["frozen"].tolist() == [1.5, -2.0]
    assert o["int"].dtype == ember.int32 and o["int"].tolist() == [7, -3]
    assert o["list"][0] is o["p"] and o["list"][1] is o["frozen"]
    assert o["p"].is_leaf and o["p"].grad_fn is None
    # the view shares the parameter's storage: writing through one shows in the other
    with ember.no_grad():
        o["p"][1, 0] = 9.0
    assert o["view"].tolist() == [9.0, 1.0, 1.25]


def test_save_writes_rebuild_parameter_and_loads_parameters():
    p = nn.Parameter(ember.tensor([[1.0, -0.0], [float("inf"), 2.5]]))
    frozen = nn.Parameter(ember.tensor([3, 4], dtype=ember.int64), requires_grad=False)
    plain = ember.tensor([1.0, 2.0], requires_grad=True)
    o, blob = round_trip({"p": p, "frozen": frozen, "plain": plain, "row": p.detach()[1], "again": [p, p]})
    pkl = data_pkl(blob)
    assert pkl.count(b"_rebuild_parameter") == 1  # the global once; the second and third p are memo gets
    assert type(o["p"]) is nn.Parameter and o["p"].requires_grad
    assert type(o["frozen"]) is nn.Parameter and not o["frozen"].requires_grad
    assert type(o["plain"]) is ember.Tensor and o["plain"].requires_grad
    assert type(o["row"]) is ember.Tensor and not o["row"].requires_grad
    assert o["again"][0] is o["p"] and o["again"][1] is o["p"]
    got = o["p"].tolist()
    assert got[0][0] == 1.0 and str(got[0][1]) == "-0.0" and got[1] == [float("inf"), 2.5]
    assert o["frozen"].tolist() == [3, 4] and o["frozen"].dtype == ember.int64
    with ember.no_grad():
        o["p"][1, 1] = -7.0
    assert o["row"].tolist() == [float("inf"), -7.0]  # one storage for p and its row


def test_parameters_of_a_module_and_the_plain_forms():
    lin = nn.Linear(3, 2)
    o, blob = round_trip(list(lin.parameters()))
    assert [type(x) for x in o] == [nn.Parameter, nn.Parameter]
    assert [x.shape for x in o] == [lin.weight.shape, lin.bias.shape]
    assert all(ember.equal(a, b) for a, b in zip(o, lin.parameters()))
    # state_dict() holds plain tensors (detached), so nothing there is a Parameter, as in PyTorch
    sd, blob = round_trip(lin.state_dict())
    assert b"_rebuild_parameter" not in data_pkl(blob)
    assert all(type(v) is ember.Tensor for v in sd.values())
    # keep_vars=True keeps the Parameters
    sd, _ = round_trip(lin.state_dict(keep_vars=True))
    assert all(type(v) is nn.Parameter for v in sd.values())
    # loaded parameters train: gradients reach them
    w = o[0]
    (w * 2).sum().backward()
    assert w.grad.tolist() == [[2.0] * 3] * 2


def test_subclass_of_parameter_saves_as_parameter():
    class MyParam(nn.Parameter):
        pass

    p = MyParam(ember.ones(2))
    o, blob = round_trip([p])
    assert type(o[0]) is nn.Parameter and o[0].requires_grad


def test_pickle_and_deepcopy_keep_their_own_forms():
    # Python's pickle of a Parameter goes through Parameter.__reduce_ex__ (not ember.save)
    p = nn.Parameter(ember.tensor([1.0, 2.0]))
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is nn.Parameter and q.tolist() == [1.0, 2.0]


def test_save_still_refuses_other_objects():
    with pytest.raises(TypeError, match=r"^\[save\]"):
        ember.save({"m": nn.Linear(2, 2)}, io.BytesIO())
