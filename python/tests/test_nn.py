"""ember.nn from Python: Module registration and state_dict, each layer's forward against a float64
formula written here, gradients against finite differences, repr against PyTorch's text, and the
DataLoader. PyTorch is never imported: the repr strings were printed by PyTorch 2.15.
"""
import collections
import importlib.util
import math
import os
import random

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info, random_split

f64 = ember.float64


def T(data, dtype=f64, requires_grad=False):
    return ember.tensor(data, dtype=dtype, requires_grad=requires_grad)


def flat(x):
    """A nested list (or tensor) flattened to a list of floats."""
    if isinstance(x, ember.Tensor):
        x = x.detach().tolist()
    if isinstance(x, (list, tuple)):
        return [v for e in x for v in flat(e)]
    return [float(x)]


def assert_close(actual, expected, rtol=1e-6, atol=1e-9):
    a, e = flat(actual), flat(expected)
    assert len(a) == len(e), (len(a), len(e))
    for i, (x, y) in enumerate(zip(a, e)):
        assert abs(x - y) <= atol + rtol * abs(y), f"element {i}: {x} vs {y}"


def seeded(shape, seed):
    """Deterministic float64 values in [-1, 1) of the given shape (Python's random, not Ember's)."""
    r = random.Random(seed)
    n = math.prod(shape)
    return T([r.uniform(-1, 1) for _ in range(n)]).reshape(list(shape))


# ================================================================ Module registration
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, bias=False)
        self.bn = nn.BatchNorm2d(2)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(8, 3))
        self.scale = nn.Parameter(ember.ones(1))
        self.register_buffer("steps", ember.zeros(1))
        self.register_buffer("scratch", ember.zeros(1), persistent=False)
        self.note = "plain attribute"

    def forward(self, x):
        return self.head(F.relu(self.bn(self.conv(x)))) * self.scale


def test_registration_and_names():
    m = Net()
    names = [n for n, _ in m.named_parameters()]
    assert names == ["scale", "conv.weight", "bn.weight", "bn.bias", "head.1.weight", "head.1.bias"]
    assert [n for n, _ in m.named_buffers()] == ["steps", "scratch", "bn.running_mean", "bn.running_var",
                                                 "bn.num_batches_tracked"]
    assert [n for n, _ in m.named_children()] == ["conv", "bn", "head"]
    assert [n for n, _ in m.named_modules()] == ["", "conv", "bn", "head", "head.0", "head.1"]
    assert len(list(m.modules())) == 6 and len(list(m.children())) == 3
    assert m.note == "plain attribute" and "note" not in m._parameters
    assert m.get_parameter("head.1.bias") is m.head[1].bias
    assert m.get_submodule("head.1") is m.head[1]
    assert m.get_buffer("bn.running_var") is m.bn.running_var
    assert all(p.requires_grad for p in m.parameters())
    assert isinstance(m.scale, nn.Parameter) and not isinstance(m.steps, nn.Parameter)
    assert "conv" in dir(m) and "scale" in dir(m)


def test_parameters_shared_once_and_reassignment():
    a = nn.Linear(2, 2)
    seq = nn.Sequential(a, nn.ReLU(), a)  # the same layer twice
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4
    b = nn.Linear(2, 2)
    b.weight = a.weight  # tied weights
    m = nn.Sequential(a, b)
    assert len(list(m.parameters())) == 3
    # a plain tensor cannot replace a parameter; None can
    with pytest.raises(TypeError, match=r"\[Module\] cannot assign .* as parameter \"weight\""):
        b.weight = ember.zeros(2, 2)
    b.bias = None
    assert b.bias is None and [n for n, _ in b.named_parameters()] == ["weight"]
    with pytest.raises(TypeError, match="child module"):
        m.__setattr__("0", 3)
    del b.weight
    assert "weight" not in b._parameters


def test_assign_before_init_errors():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ember.zeros(1))

    with pytest.raises(AttributeError, match=r"before Module.__init__\(\) call"):
        Bad()
    m = nn.Module()
    with pytest.raises(KeyError, match="be empty or contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(TypeError, match="ember.Tensor or None expected"):
        m.register_buffer("b", 3)
    with pytest.raises(NotImplementedError, match="forward"):
        m(1)


def test_frozen_parameter_is_registered():
    m = nn.Module()
    m.w = nn.Parameter(ember.zeros(2), requires_grad=False)
    assert [n for n, _ in m.named_parameters()] == ["w"] and not m.w.requires_grad


def test_state_dict_round_trip():
    a, b = Net(), Net()
    with ember.no_grad():
        for p in a.parameters():
            p.uniform_(-1, 1)
        a.bn.running_mean.fill_(0.25)
        a.steps.fill_(7)
    sd = a.state_dict()
    assert list(sd) == ["scale", "steps", "conv.weight", "bn.weight", "bn.bias", "bn.running_mean",
                        "bn.running_var", "bn.num_batches_tracked", "head.1.weight", "head.1.bias"]
    assert "scratch" not in sd  # not persistent
    assert not any(v.requires_grad for v in sd.values())
    r = b.load_state_dict(sd)
    assert r.missing_keys == [] and r.unexpected_keys == []
    for (n1, v1), (n2, v2) in zip(a.state_dict().items(), b.state_dict().items()):
        assert n1 == n2 and v1.equal(v2), n1
    # the copies are into b's own tensors: a's later changes do not reach b
    with ember.no_grad():
        a.scale.fill_(5)
    assert b.scale.item() != 5
    x = seeded((2, 1, 4, 4), 1).to(ember.float32)
    a.eval(), b.eval()
    with ember.no_grad():
        a.scale.fill_(1), b.scale.fill_(1)
        assert a(x).equal(b(x))


def test_load_state_dict_errors():
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    sd = m.state_dict()
    del sd["2.bias"]
    sd["extra"] = ember.zeros(1)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(sd)
    msg = str(e.value)
    assert msg.startswith("[load_state_dict] Error(s) in loading state_dict for Sequential")
    assert 'Missing key(s) in state_dict: "2.bias".' in msg and 'Unexpected key(s) in state_dict: "extra".' in msg
    r = m.load_state_dict(sd, strict=False)
    assert r.missing_keys == ["2.bias"] and r.unexpected_keys == ["extra"]
    sd = m.state_dict()
    sd["0.weight"] = ember.zeros(3, 3)
    with pytest.raises(RuntimeError, match=r"size mismatch for 0.weight: copying a param with shape \[3, 3\] "
                                           r"from checkpoint, the shape in current model is \[3, 2\]"):
        m.load_state_dict(sd, strict=False)  # sizes are checked even when not strict
    with pytest.raises(TypeError, match="dict-like"):
        m.load_state_dict([1, 2])


def test_train_eval_zero_grad_apply_requires_grad():
    m = Net()
    assert m.training and m.bn.training
    m.eval()
    assert not m.training and not m.bn.training and not m.head[1].training
    m.train()
    assert m.head[0].training
    out = m(seeded((2, 1, 4, 4), 3).to(ember.float32)).sum()
    out.backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Conv2d", "BatchNorm2d", "Flatten", "Linear", "Sequential", "Net"]
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_dtype_keeps_integer_buffers():
    m = Net().to(f64)
    assert all(p.dtype == f64 for p in m.parameters())
    assert m.bn.running_mean.dtype == f64 and m.bn.num_batches_tracked.dtype == ember.int64
    assert all(p.requires_grad and p.is_leaf for p in m.parameters())
    m.float()
    assert m.conv.weight.dtype == ember.float32
    same = m.conv.weight
    m.to("cpu")
    assert m.conv.weight is same  # nothing to move: the same parameter
    with pytest.raises(TypeError, match="floating point dtypes"):
        m.to(ember.int32)


def test_hooks():
    lin = nn.Linear(2, 2)
    calls = []

    def pre(mod, args):
        calls.append("pre")
        return (args[0] * 0,)

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    h1 = lin.register_forward_pre_hook(pre)
    h2 = lin.register_forward_hook(post)
    y = lin(T([[1.0, 2.0]], dtype=ember.float32))
    assert calls == ["pre", "post"]
    assert_close(y, (lin.bias + 1).unsqueeze(0))
    h1.remove()
    h2.remove()
    y = lin(T([[0.0, 0.0]], dtype=ember.float32))
    assert_close(y, lin.bias.unsqueeze(0))
    assert len(calls) == 2


# ================================================================ repr (the strings PyTorch 2.15 prints)
@pytest.mark.parametrize("make,text", [
    (lambda: nn.Linear(3, 2), "Linear(in_features=3, out_features=2, bias=True)"),
    (lambda: nn.Linear(3, 2, bias=False), "Linear(in_features=3, out_features=2, bias=False)"),
    (lambda: nn.Conv2d(1, 16, 3, padding=1, bias=False),
     "Conv2d(1, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)"),
    (lambda: nn.Conv2d(3, 8, (3, 5), stride=2), "Conv2d(3, 8, kernel_size=(3, 5), stride=(2, 2))"),
    (lambda: nn.MaxPool2d(2), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"),
    (lambda: nn.AvgPool2d(3, stride=2), "AvgPool2d(kernel_size=3, stride=2, padding=0)"),
    (lambda: nn.BatchNorm2d(16),
     "BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"),
    (lambda: nn.BatchNorm1d(4, momentum=None, affine=False),
     "BatchNorm1d(4, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=True)"),
    (lambda: nn.Dropout(0.25), "Dropout(p=0.25, inplace=False)"),
    (lambda: nn.ReLU(), "ReLU()"),
    (lambda: nn.GELU(), "GELU(approximate='none')"),
    (lambda: nn.Sigmoid(), "Sigmoid()"),
    (lambda: nn.Tanh(), "Tanh()"),
    (lambda: nn.Softmax(dim=1), "Softmax(dim=1)"),
    (lambda: nn.LogSoftmax(dim=-1), "LogSoftmax(dim=-1)"),
    (lambda: nn.Flatten(), "Flatten(start_dim=1, end_dim=-1)"),
    (lambda: nn.Embedding(10, 3), "Embedding(10, 3)"),
    (lambda: nn.Embedding(10, 3, padding_idx=0), "Embedding(10, 3, padding_idx=0)"),
    (lambda: nn.LayerNorm(5), "LayerNorm((5,), eps=1e-05, elementwise_affine=True, bias=True)"),
    (lambda: nn.LayerNorm((2, 3), eps=1e-6), "LayerNorm((2, 3), eps=1e-06, elementwise_affine=True, bias=True)"),
    (lambda: nn.CrossEntropyLoss(), "CrossEntropyLoss()"),
    (lambda: nn.MSELoss(), "MSELoss()"),
    (lambda: nn.Identity(), "Identity()"),
    (lambda: nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Sequential(nn.Flatten(), nn.Linear(4, 2))),
     "Sequential(\n  (0): Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1))\n  (1): ReLU()\n  (2): Sequential(\n"
     "    (0): Flatten(start_dim=1, end_dim=-1)\n    (1): Linear(in_features=4, out_features=2, bias=True)\n  )\n)"),
    (lambda: nn.ModuleList([nn.ReLU(), nn.Linear(1, 1)]),
     "ModuleList(\n  (0): ReLU()\n  (1): Linear(in_features=1, out_features=1, bias=True)\n)"),
    (lambda: nn.ModuleDict({"a": nn.ReLU()}), "ModuleDict(\n  (a): ReLU()\n)"),
])
def test_repr_like_pytorch(make, text):
    assert repr(make()) == text


# ================================================================ containers
def test_containers():
    seq = nn.Sequential(collections.OrderedDict([("fc", nn.Linear(2, 3)), ("act", nn.ReLU())]))
    assert isinstance(seq[0], nn.Linear) and seq[-1] is seq.act and len(seq) == 2
    assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 1
    with pytest.raises(IndexError, match=r"\[Sequential\] index 2 is out of range"):
        seq[2]
    seq.append(nn.Linear(3, 1))
    assert [n for n, _ in seq.named_children()] == ["fc", "act", "2"]
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    ml.append(nn.ReLU())
    assert len(ml) == 4 and len(list(ml.parameters())) == 6 and isinstance(ml[-1], nn.ReLU)
    del ml[0]
    assert [n for n, _ in ml.named_children()] == ["0", "1", "2"]
    md = nn.ModuleDict({"a": nn.Linear(1, 2), "b": nn.ReLU()})
    assert list(md.keys()) == ["a", "b"] and "a" in md and len(list(md.parameters())) == 2
    pl = nn.ParameterList([nn.Parameter(ember.zeros(2)), ember.ones(3)])
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"] and pl[1].requires_grad


def test_dict_containers_share_the_dict_protocol():
    # what torch 2.15.0's ParameterDict/ModuleDict do: pop returns the entry, clear empties, a missing key is a
    # KeyError
    pd = nn.ParameterDict({"x": ember.ones(2), "y": ember.zeros(1)})
    assert type(pd.pop("x")).__name__ == "Parameter" and list(pd) == ["y"] and len(pd) == 1
    pd.clear()
    assert len(pd) == 0 and list(pd.parameters()) == []
    md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Linear(1, 1)})
    for bad in (lambda: md.pop("q"), lambda: md.__delitem__("q"), lambda: pd.__delitem__("q")):
        with pytest.raises(KeyError):
            bad()
    del md["a"]
    md.update([("c", nn.Tanh())])
    assert list(md.keys()) == ["b", "c"] and [type(m).__name__ for m in md.values()] == ["Linear", "Tanh"]
    assert dict(md.items())["b"] is md["b"] and "c" in md and "a" not in md
    seq = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    seq.insert(1, nn.Linear(1, 1))
    del seq[0]
    assert [(n, type(m).__name__) for n, m in seq.named_children()] == [("0", "Linear"), ("1", "Tanh"),
                                                                        ("2", "Sigmoid")]
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])
    del ml[0:2]
    assert [(n, type(m).__name__) for n, m in ml.named_children()] == [("0", "Sigmoid")]


# ================================================================ layers against float64 formulas
def test_linear_forward():
    lin = nn.Linear(3, 2).double()
    x = seeded((4, 3), 10)
    W, b, X = lin.weight.tolist(), lin.bias.tolist(), x.tolist()
    want = [[sum(X[n][k] * W[o][k] for k in range(3)) + b[o] for o in range(2)] for n in range(4)]
    assert_close(lin(x), want, rtol=1e-12)


def test_linear_and_conv_default_init_bounds():
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w = lin.weight.detach()
    assert w.abs().max().item() <= bound and lin.bias.abs().max().item() <= bound
    # 300 draws of U(-b, b) all inside 0.9 b: probability 0.9 ** 300, about 2e-14
    assert lin.bias.abs().max().item() > 0.9 * bound
    # U(-b, b) has standard deviation b / sqrt(3)
    assert abs(w.std().item() - bound / math.sqrt(3)) < 0.02 * bound
    conv = nn.Conv2d(16, 32, 3)
    cb = 1 / math.sqrt(16 * 9)
    assert conv.weight.abs().max().item() <= cb and conv.bias.abs().max().item() <= cb
    assert conv.bias.abs().max().item() > 0.5 * cb  # 32 draws: 0.5 ** 32
    assert abs(conv.weight.detach().std().item() - cb / math.sqrt(3)) < 0.05 * cb
    emb = nn.Embedding(1000, 20, padding_idx=3)
    assert abs(emb.weight.detach().std().item() - 1.0) < 0.05 and emb.weight[3].abs().sum().item() == 0


def conv2d_ref(x, w, b, stride, pad):
    N, C, H, W = len(x), len(x[0]), len(x[0][0]), len(x[0][0][0])
    O, _, KH, KW = len(w), len(w[0]), len(w[0][0]), len(w[0][0][0])
    OH, OW = (H + 2 * pad - KH) // stride + 1, (W + 2 * pad - KW) // stride + 1
    out = [[[[0.0] * OW for _ in range(OH)] for _ in range(O)] for _ in range(N)]
    for n in range(N):
        for o in range(O):
            for i in range(OH):
                for j in range(OW):
                    s = b[o] if b is not None else 0.0
                    for c in range(C):
                        for ki in range(KH):
                            for kj in range(KW):
                                r, q = i * stride + ki - pad, j * stride + kj - pad
                                if 0 <= r < H and 0 <= q < W:
                                    s += x[n][c][r][q] * w[o][c][ki][kj]
                    out[n][o][i][j] = s
    return out


@pytest.mark.parametrize("stride,pad,bias", [(1, 0, True), (2, 1, False), (1, 2, True)])
def test_conv2d_forward(stride, pad, bias):
    conv = nn.Conv2d(2, 3, 3, stride=stride, padding=pad, bias=bias).double()
    x = seeded((2, 2, 5, 6), 20 + stride + pad)
    want = conv2d_ref(x.tolist(), conv.weight.tolist(), conv.bias.tolist() if bias else None, stride, pad)
    assert_close(conv(x), want, rtol=1e-10, atol=1e-12)


def pool_ref(x, k, s, op):
    out = []
    for plane_n in x:
        on = []
        for plane in plane_n:
            H, W = len(plane), len(plane[0])
            rows = []
            for i in range(0, H - k + 1, s):
                row = []
                for j in range(0, W - k + 1, s):
                    win = [plane[i + a][j + c] for a in range(k) for c in range(k)]
                    row.append(op(win))
                rows.append(row)
            on.append(rows)
        out.append(on)
    return out


def test_pooling_forward():
    x = seeded((2, 3, 6, 7), 30)
    assert_close(nn.MaxPool2d(2)(x), pool_ref(x.tolist(), 2, 2, max))
    assert_close(nn.MaxPool2d(3, stride=2)(x), pool_ref(x.tolist(), 3, 2, max))
    assert_close(nn.AvgPool2d(2)(x), pool_ref(x.tolist(), 2, 2, lambda v: sum(v) / len(v)), rtol=1e-12)
    y, idx = F.max_pool2d(x, 2, return_indices=True)
    assert_close(y, pool_ref(x.tolist(), 2, 2, max))
    assert idx.dtype == ember.int64
    X = x.tolist()
    for n, c, i, j in [(0, 0, 0, 0), (1, 2, 2, 1), (1, 1, 1, 2)]:
        k = idx[n, c, i, j].item()  # the flat index into the plane of the maximum
        assert X[n][c][k // 7][k % 7] == y[n, c, i, j].item()


def test_batchnorm2d_train_and_eval():
    bn = nn.BatchNorm2d(3, momentum=0.2).double()
    with ember.no_grad():
        bn.weight.copy_(T([1.5, -0.5, 2.0]))
        bn.bias.copy_(T([0.1, 0.2, -0.3]))
    x = seeded((4, 3, 2, 5), 40)
    X = x.tolist()
    y = bn(x)
    Y = y.tolist()
    for c in range(3):
        vals = [X[n][c][i][j] for n in range(4) for i in range(2) for j in range(5)]
        m = sum(vals) / len(vals)
        var = sum((v - m) ** 2 for v in vals) / len(vals)
        unbiased = var * len(vals) / (len(vals) - 1)
        g, b = [1.5, -0.5, 2.0][c], [0.1, 0.2, -0.3][c]
        got = [Y[n][c][i][j] for n in range(4) for i in range(2) for j in range(5)]
        assert_close(got, [(v - m) / math.sqrt(var + 1e-5) * g + b for v in vals], rtol=1e-10, atol=1e-12)
        # running statistics: (1 - momentum) * old + momentum * batch, with the unbiased variance
        assert abs(bn.running_mean[c].item() - 0.2 * m) < 1e-12
        assert abs(bn.running_var[c].item() - (0.8 + 0.2 * unbiased)) < 1e-12
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    rm, rv = bn.running_mean.tolist(), bn.running_var.tolist()
    Y = bn(x).tolist()
    for c in range(3):
        g, b = [1.5, -0.5, 2.0][c], [0.1, 0.2, -0.3][c]
        want = [(X[n][c][i][j] - rm[c]) / math.sqrt(rv[c] + 1e-5) * g + b
                for n in range(4) for i in range(2) for j in range(5)]
        got = [Y[n][c][i][j] for n in range(4) for i in range(2) for j in range(5)]
        assert_close(got, want, rtol=1e-10, atol=1e-12)
    assert bn.num_batches_tracked.item() == 1  # eval does not count


def test_batchnorm1d_cumulative_momentum_and_errors():
    bn = nn.BatchNorm1d(2, momentum=None, affine=False).double()
    a, b = seeded((5, 2), 41), seeded((5, 2), 42)
    bn(a)
    bn(b)
    # momentum=None: the running mean is the plain average of the batch means
    want = [(sum(r[c] for r in a.tolist()) / 5 + sum(r[c] for r in b.tolist()) / 5) / 2 for c in range(2)]
    assert_close(bn.running_mean, want, rtol=1e-12)
    with pytest.raises(ValueError, match=r"\[BatchNorm1d\] expected 2D or 3D input \(got 4D input\)"):
        bn(ember.zeros(1, 2, 1, 1, dtype=f64))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        bn(ember.zeros(1, 2, dtype=f64))


def test_layernorm_forward():
    ln = nn.LayerNorm((2, 3)).double()
    with ember.no_grad():
        ln.weight.copy_(seeded((2, 3), 50))
        ln.bias.copy_(seeded((2, 3), 51))
    x = seeded((4, 2, 3), 52)
    g, b = flat(ln.weight), flat(ln.bias)
    want = []
    for row in x.tolist():
        v = flat(row)
        m = sum(v) / 6
        var = sum((e - m) ** 2 for e in v) / 6
        want.append([(e - m) / math.sqrt(var + 1e-5) * g[k] + b[k] for k, e in enumerate(v)])
    assert_close(ln(x), want, rtol=1e-10, atol=1e-12)


def test_embedding_forward_and_padding_grad():
    emb = nn.Embedding(5, 3, padding_idx=1).double()
    idx = ember.tensor([[0, 1], [4, 1]])
    W = emb.weight.tolist()
    assert_close(emb(idx), [[W[0], W[1]], [W[4], W[1]]])
    emb(idx).sum().backward()
    g = emb.weight.grad.tolist()
    assert g[1] == [0.0, 0.0, 0.0] and g[0] == [1.0] * 3 and g[4] == [1.0] * 3 and g[2] == [0.0] * 3


def test_activations_forward():
    x = T([-3.0, -0.5, 0.0, 0.7, 2.5])
    v = flat(x)
    assert_close(nn.ReLU()(x), [max(e, 0.0) for e in v])
    assert_close(nn.GELU()(x), [e * 0.5 * (1 + math.erf(e / math.sqrt(2))) for e in v], rtol=1e-12)
    tanh_gelu = [0.5 * e * (1 + math.tanh(math.sqrt(2 / math.pi) * (e + 0.044715 * e ** 3))) for e in v]
    assert_close(nn.GELU("tanh")(x), tanh_gelu, rtol=1e-12)
    assert_close(nn.Sigmoid()(x), [1 / (1 + math.exp(-e)) for e in v], rtol=1e-12)
    assert_close(nn.Tanh()(x), [math.tanh(e) for e in v], rtol=1e-12)
    assert_close(nn.LeakyReLU(0.1)(x), [e if e > 0 else 0.1 * e for e in v])
    m = seeded((3, 4), 60)
    for row_out, row_in in zip(nn.Softmax(dim=1)(m).tolist(), m.tolist()):
        z = sum(math.exp(e) for e in row_in)
        assert_close(row_out, [math.exp(e) / z for e in row_in], rtol=1e-12)
    for row_out, row_in in zip(nn.LogSoftmax(dim=1)(m).tolist(), m.tolist()):
        lz = math.log(sum(math.exp(e) for e in row_in))
        assert_close(row_out, [e - lz for e in row_in], rtol=1e-12)
    assert nn.Flatten()(ember.zeros(2, 3, 4)).shape == (2, 12)
    assert nn.Flatten(0, 1)(ember.zeros(2, 3, 4)).shape == (6, 4)


def test_dropout():
    x = ember.ones(2000, dtype=f64)
    d = nn.Dropout(0.25)
    y = flat(d(x))
    kept = [e for e in y if e != 0]
    assert all(abs(e - 1 / 0.75) < 1e-12 for e in kept)
    assert 0.2 < 1 - len(kept) / len(y) < 0.3
    d.eval()
    assert d(x).equal(x)
    assert nn.Dropout(0.0)(x).equal(x) and flat(nn.Dropout(1.0)(x)) == [0.0] * 2000
    with pytest.raises(ValueError, match=r"\[Dropout\] dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    ch = flat(nn.Dropout2d(0.5)(ember.ones(100, 8, 3, dtype=f64)).sum((2,)))
    assert all(e in (0.0, 6.0) for e in ch)  # whole channels: 3 elements each, scaled by 2


# ================================================================ losses
def test_cross_entropy_and_nll():
    logits = seeded((4, 5), 70)
    target = ember.tensor([0, 3, 4, 3])
    L, tg = logits.tolist(), target.tolist()
    per = [math.log(sum(math.exp(e) for e in row)) - row[t] for row, t in zip(L, tg)]
    assert_close(nn.CrossEntropyLoss()(logits, target), [sum(per) / 4], rtol=1e-12)
    assert_close(nn.CrossEntropyLoss(reduction="sum")(logits, target), [sum(per)], rtol=1e-12)
    assert_close(nn.CrossEntropyLoss(reduction="none")(logits, target), per, rtol=1e-12)
    w = T([1.0, 2.0, 0.5, 3.0, 0.25])
    W = flat(w)
    want = sum(W[t] * p for t, p in zip(tg, per)) / sum(W[t] for t in tg)
    assert_close(nn.CrossEntropyLoss(weight=w)(logits, target), [want], rtol=1e-12)
    # ignore_index: the ignored rows leave the mean
    t2 = ember.tensor([0, -100, 4, -100])
    assert_close(F.cross_entropy(logits, t2), [(per[0] + per[2]) / 2], rtol=1e-12)
    # label smoothing eps: (1-eps) * nll + eps * mean over classes of -log p
    eps = 0.1
    sm = [(1 - eps) * p + eps * sum(math.log(sum(math.exp(e) for e in row)) - e for e in row) / 5
          for row, p in zip(L, per)]
    assert_close(F.cross_entropy(logits, target, label_smoothing=eps), [sum(sm) / 4], rtol=1e-12)
    logp = F.log_softmax(logits, 1)
    assert_close(nn.NLLLoss()(logp, target), [sum(per) / 4], rtol=1e-12)
    assert_close(F.nll_loss(logp, target, reduction="sum"), [sum(per)], rtol=1e-12)
    with pytest.raises(ValueError, match=r"\[reduction\] 'avg' is not a valid value"):
        F.nll_loss(logp, target, reduction="avg")


def test_mse_and_bce_with_logits():
    a, b = seeded((3, 4), 80), seeded((3, 4), 81)
    A, B = flat(a), flat(b)
    assert_close(nn.MSELoss()(a, b), [sum((x - y) ** 2 for x, y in zip(A, B)) / 12], rtol=1e-12)
    assert_close(nn.MSELoss(reduction="sum")(a, b), [sum((x - y) ** 2 for x, y in zip(A, B))], rtol=1e-12)
    z = seeded((3, 4), 82) * 4
    y = T([[1.0, 0.0, 1.0, 0.5]] * 3)
    Z, Yv = flat(z), flat(y)
    pw = [2.0, 1.0, 0.5, 3.0]

    def bce(zz, yy, pos):
        ls = lambda v: -math.log1p(math.exp(-v)) if v > 0 else v - math.log1p(math.exp(v))  # log sigmoid
        return -(pos * yy * ls(zz) + (1 - yy) * ls(-zz))

    assert_close(nn.BCEWithLogitsLoss()(z, y), [sum(bce(p, q, 1.0) for p, q in zip(Z, Yv)) / 12], rtol=1e-12)
    want = sum(bce(p, q, pw[k % 4]) for k, (p, q) in enumerate(zip(Z, Yv))) / 12
    assert_close(nn.BCEWithLogitsLoss(pos_weight=T(pw))(z, y), [want], rtol=1e-12)
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(z, y[:, :2])


# ================================================================ gradients against finite differences
def numeric_grad(f, t, eps=1e-6):
    """Central differences of the scalar f() with respect to every element of t (changed in place)."""
    out = []
    with ember.no_grad():
        view = t.detach().reshape(-1)
        for k in range(view.numel()):
            old = view[k].item()
            view[k] = old + eps
            hi = f().item()
            view[k] = old - eps
            lo = f().item()
            view[k] = old
            out.append((hi - lo) / (2 * eps))
    return out


def check_module_grads(module, x, seed=0, rtol=1e-5, atol=1e-7):
    x = x.detach().requires_grad_(True)
    w = seeded(tuple(module(x).shape), 1000 + seed)  # a fixed random projection of the output

    def loss():
        return (module(x) * w).sum()

    for p in module.parameters():
        p.grad = None
    loss().backward()
    for name, p in [("input", x)] + list(module.named_parameters()):
        if x is p and not x.is_floating_point():
            continue
        assert_close(p.grad, numeric_grad(loss, p), rtol=rtol, atol=atol)


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.Linear(3, 2), (4, 3)),
    (lambda: nn.Conv2d(2, 3, 3, padding=1), (2, 2, 4, 4)),
    (lambda: nn.Conv2d(2, 2, 2, stride=2, bias=False), (1, 2, 4, 4)),
    (lambda: nn.BatchNorm2d(2), (3, 2, 2, 2)),
    (lambda: nn.BatchNorm1d(3), (4, 3)),
    (lambda: nn.LayerNorm(4), (3, 4)),
    (lambda: nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.Linear(4, 2), nn.Tanh()), (5, 3)),
    (lambda: nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8, 1)),
     (2, 1, 6, 6)),
    (lambda: nn.AvgPool2d(2), (1, 2, 4, 4)),
    (lambda: nn.LogSoftmax(dim=1), (3, 5)),
])
def test_layer_gradients_match_finite_differences(make, shape):
    module = make().double()
    check_module_grads(module, seeded(shape, hash(shape) % 1000), seed=len(shape))


def test_loss_gradients_match_finite_differences():
    logits = seeded((3, 4), 90).requires_grad_(True)
    target = ember.tensor([1, 0, 3])
    F.cross_entropy(logits, target, label_smoothing=0.05).backward()
    assert_close(logits.grad, numeric_grad(lambda: F.cross_entropy(logits, target, label_smoothing=0.05), logits),
                 rtol=1e-5, atol=1e-8)
    z = seeded((2, 3), 91).requires_grad_(True)
    y = T([[1.0, 0.0, 0.3], [0.0, 1.0, 1.0]])
    F.binary_cross_entropy_with_logits(z, y).backward()
    assert_close(z.grad, numeric_grad(lambda: F.binary_cross_entropy_with_logits(z, y), z), rtol=1e-5, atol=1e-8)


def test_embedding_gradient_matches_finite_differences():
    emb = nn.Embedding(4, 2).double()
    idx = ember.tensor([3, 0, 3])
    w = seeded((3, 2), 92)
    (emb(idx) * w).sum().backward()
    assert_close(emb.weight.grad, numeric_grad(lambda: (emb(idx) * w).sum(), emb.weight), rtol=1e-6)


def test_clip_grad_norm():
    a = nn.Parameter(T([3.0, 0.0]))
    b = nn.Parameter(T([4.0]))
    a.grad, b.grad = T([3.0, 0.0]), T([4.0])
    total = nn.utils.clip_grad_norm_([a, b], 1.0)
    assert abs(total.item() - 5.0) < 1e-12
    assert_close(a.grad, [0.6, 0.0], rtol=1e-5)
    assert_close(b.grad, [0.8], rtol=1e-5)


# ================================================================ ember.utils.data
class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"x": ember.tensor([float(i), float(i * i)]), "i": i, "name": f"s{i}"}


def test_dataloader_batches_and_collate():
    dl = DataLoader(Squares(), batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    b = batches[0]
    assert b["x"].shape == (4, 2) and b["i"].tolist() == [0, 1, 2, 3] and b["i"].dtype == ember.int64
    assert b["name"] == ["s0", "s1", "s2", "s3"]
    assert batches[2]["i"].tolist() == [8, 9]
    dl = DataLoader(Squares(), batch_size=4, drop_last=True)
    assert len(dl) == 2 and [b["i"].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    pairs = DataLoader([(1.5, 2), (2.5, 3)], batch_size=2)
    (f, i), = list(pairs)
    assert f.dtype == ember.float64 and f.tolist() == [1.5, 2.5] and i.tolist() == [2, 3]
    single = list(DataLoader(Squares(), batch_size=None))
    assert len(single) == 10 and single[3]["i"] == 3


def test_tensor_dataset_and_shuffle_determinism():
    x = ember.arange(0, 20).reshape(10, 2)
    y = ember.arange(0, 10)
    ds = TensorDataset(x, y)
    assert len(ds) == 10 and ds[3][0].tolist() == [6, 7] and ds[3][1].item() == 3
    with pytest.raises(ValueError, match="size mismatch"):
        TensorDataset(x, ember.arange(0, 9))

    def order(gen):
        return [yb.tolist() for _, yb in DataLoader(ds, batch_size=3, shuffle=True, generator=gen)]

    first = order(random.Random(5))
    assert first == order(random.Random(5)) and first == order(5)
    assert first != order(random.Random(6))
    assert sorted(sum(first, [])) == list(range(10))  # a permutation
    for xb, yb in DataLoader(ds, batch_size=3, shuffle=True, generator=1):
        assert [r[0] // 2 for r in xb.tolist()] == yb.tolist()  # the fields stay paired
    # one generator gives a new order each epoch, repeatable from the seed
    dl = DataLoader(ds, batch_size=10, shuffle=True, generator=random.Random(7))
    e1, e2 = next(iter(dl))[1].tolist(), next(iter(dl))[1].tolist()
    dl2 = DataLoader(ds, batch_size=10, shuffle=True, generator=random.Random(7))
    assert e1 != e2 and [next(iter(dl2))[1].tolist(), next(iter(dl2))[1].tolist()] == [e1, e2]
    random.seed(3)
    a = order(None)
    random.seed(3)
    assert order(None) == a


def test_random_split_and_errors():
    parts = random_split(list(range(10)), [7, 3], generator=0)
    assert [len(p) for p in parts] == [7, 3]
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10))
    with pytest.raises(ValueError, match="sum of input lengths"):
        random_split(list(range(10)), [5, 3])
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(list(range(4)), sampler=[0, 1], shuffle=True)
    with pytest.raises(ValueError, match="need num_workers > 0"):
        DataLoader(list(range(4)), prefetch_factor=2)


# ---------------------------------------------------------------- worker processes
# (module-level classes: a spawned worker gets the dataset by pickling)
class InfoDataset(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "worker": -1 if info is None else info.id, "x": ember.full([2, 3], float(i))}


class FailingDataset(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError(f"no sample {i}")
        return ember.tensor([i])


class Stream(IterableDataset):
    """0..9, split between the workers by get_worker_info()."""

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(10))
        return iter(range(info.id, 10, info.num_workers))


def shm_files():
    return {f for f in os.listdir("/dev/shm") if f.startswith("ember-dl-")} if os.path.isdir("/dev/shm") else set()


def test_workers_match_the_main_process():
    before = shm_files()
    x = ember.arange(0, 200).reshape(100, 2).to(ember.float32)
    y = ember.arange(0, 100)
    ds = TensorDataset(x, y)
    one = [(xb.tolist(), yb.tolist()) for xb, yb in DataLoader(ds, batch_size=7, shuffle=True, generator=11)]
    two = [(xb.tolist(), yb.tolist()) for xb, yb in
           DataLoader(ds, batch_size=7, shuffle=True, generator=11, num_workers=2)]
    assert one == two and len(two) == 15  # the same batches, in order
    batches = list(DataLoader(InfoDataset(), batch_size=4, num_workers=2, prefetch_factor=1))
    assert [b["i"].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    assert [set(b["worker"].tolist()) for b in batches] == [{0}, {1}, {0}]  # round robin
    assert batches[2]["x"].shape == (4, 2, 3) and batches[2]["x"][1].tolist() == [[9.0] * 3] * 2
    assert shm_files() <= before  # every shared file was unlinked


def test_worker_errors_and_iterable_datasets():
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0(.|\n)*no sample 5"):
        list(DataLoader(FailingDataset(), batch_size=2, num_workers=2))
    got = sorted(v for b in DataLoader(Stream(), batch_size=3, num_workers=2) for v in b.tolist())
    assert got == list(range(10))
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=4)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


# ================================================================ the main job, briefly
DATA = "/usr/share/datasets/fashion-mnist"


@pytest.mark.skipif(not os.path.exists(os.path.join(DATA, "t10k-labels-idx1-ubyte.gz")),
                    reason="Debian's dataset-fashion-mnist is not installed")
def test_main_job_smoke(capsys):
    """python/examples/fashion_mnist.py for 30 training batches (a full epoch reaches about 88%: see
    its docstring); 30 batches of AdamW already lift the test accuracy far above chance."""
    spec = importlib.util.spec_from_file_location(
        "fashion_mnist", os.path.join(os.path.dirname(__file__), "..", "examples", "fashion_mnist.py"))
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    accuracy = job.main(["--limit", "30", "--data", DATA])
    out = capsys.readouterr().out
    assert "epoch  1/1" in out and "final test accuracy" in out
    assert accuracy > 60.0


# ================================================================ more hooks, pad_sequence, NumPy collate
def test_forward_hooks_with_kwargs_and_prepend():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()
    order = []
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": 3.0}), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: order.append(("b", kwargs["factor"])), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: order.append(("a", out.tolist())), prepend=True)
    assert m(T([2.0]), factor=5.0).tolist() == [6.0]
    assert order == [("a", [6.0]), ("b", 3.0)]
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        bad = Scale()
        bad.register_forward_pre_hook(lambda mod, args, kwargs: 1, with_kwargs=True)
        bad(T([1.0]))


def test_full_backward_hooks():
    lin = nn.Linear(3, 2).double()
    seen = []

    def pre(mod, grad_output):
        seen.append("pre")
        return (grad_output[0] * 2,)  # doubles the gradient reaching the module

    def post(mod, grad_input, grad_output):
        seen.append(("post", grad_output[0].tolist()))
        return (grad_input[0] * 10,)

    lin.register_full_backward_pre_hook(pre)
    h = lin.register_full_backward_hook(post)
    x = T([[1.0, 2.0, 3.0]], requires_grad=True)
    w = T([[1.0, -1.0]])
    (lin(x) * w).sum().backward()
    assert seen == ["pre", ("post", [[2.0, -2.0]])]
    W = lin.weight.tolist()
    # d/dx of sum(w * (x W^T + b)) is w W; doubled by the pre-hook, times 10 by the hook
    assert_close(x.grad, [[20 * (W[0][k] - W[1][k]) for k in range(3)]], rtol=1e-12)
    assert_close(lin.bias.grad, [2.0, -2.0])  # the parameters see the doubled grad_output
    h.remove()
    seen.clear()
    got = []
    lin.register_full_backward_hook(lambda mod, gi, go: got.append(gi))
    lin(ember.ones(1, 3, dtype=f64)).sum().backward()  # an input without grad: grad_input is (None,)
    assert got == [(None,)] and seen == ["pre"]


def test_pad_sequence():
    from ember.nn.utils.rnn import pad_sequence, unpad_sequence
    a, b, c = T([1.0, 2.0, 3.0]), T([4.0]), T([5.0, 6.0])
    assert pad_sequence([a, b, c], batch_first=True).tolist() == [[1, 2, 3], [4, 0, 0], [5, 6, 0]]
    assert pad_sequence([a, b], padding_value=-1).tolist() == [[1, 4], [2, -1], [3, -1]]  # (L, B)
    assert pad_sequence([a, b], batch_first=True, padding_side="left").tolist() == [[1, 2, 3], [0, 0, 4]]
    back = unpad_sequence(pad_sequence([a, b, c]), ember.tensor([3, 1, 2]))
    assert [t.tolist() for t in back] == [[1, 2, 3], [4], [5, 6]]
    rows = pad_sequence([ember.ones(2, 3), ember.ones(1, 3)], batch_first=True)
    assert rows.shape == (2, 2, 3) and rows[1, 1].tolist() == [0.0] * 3


def test_collate_numpy():
    np = pytest.importorskip("numpy")
    from ember.utils.data import default_collate
    b = default_collate([np.arange(4, dtype=np.float32).reshape(2, 2), np.ones((2, 2), dtype=np.float32)])
    assert b.shape == (2, 2, 2) and b.dtype == ember.float32 and b[0].tolist() == [[0, 1], [2, 3]]
    s = default_collate([np.float64(1.5), np.float64(2.0)])
    assert s.tolist() == [1.5, 2.0]


# ================================================================ checkpoints shared with PyTorch
@pytest.mark.skipif(not hasattr(ember, "load"), reason="ember.load is not built")
def test_load_a_state_dict_saved_by_pytorch(tmp_path):
    """data/torch_small_state_dict.pt is torch.save(model.state_dict()) of this model from PyTorch 2.15,
    with deterministic weights; the eval-mode output below is what PyTorch computed from it."""
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3)).double()
    sd = ember.load(os.path.join(os.path.dirname(__file__), "data", "torch_small_state_dict.pt"))
    assert list(sd) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                        "1.num_batches_tracked", "4.weight", "4.bias"]
    model.load_state_dict(sd)
    assert model[1].num_batches_tracked.item() == 7
    model.eval()
    r = random.Random(99)
    x = T([r.uniform(-1, 1) for _ in range(32)]).reshape(2, 1, 4, 4)
    assert_close(model(x), [[-2.074424717515547, -0.984827359460402, 0.4412470303743543],
                            [-2.367956228389726, -1.597066711764114, -0.630137530228772]], rtol=1e-12)
    # and back: ember.save of the state_dict loads into a fresh model with the same outputs
    path = str(tmp_path / "small.pt")
    ember.save(model.state_dict(), path)
    again = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3)).double()
    again.load_state_dict(ember.load(path))
    assert again.eval()(x).equal(model(x))


def test_weighted_random_sampler():
    from ember.utils.data import WeightedRandomSampler
    s = WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=0)
    draws = list(s)
    assert len(s) == 4000 and 0 not in draws
    assert abs(draws.count(2) / 4000 - 0.75) < 0.03  # proportional to the weights
    assert list(WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=0)) == draws  # repeatable
    once = list(WeightedRandomSampler(ember.tensor([1.0, 1.0, 1.0, 0.0]), 3, replacement=False, generator=1))
    assert sorted(once) == [0, 1, 2]
    with pytest.raises(ValueError, match="cannot exceed"):
        WeightedRandomSampler([1.0, 0.0], 2, replacement=False)
    batches = list(DataLoader(list(range(10)), batch_size=5, sampler=WeightedRandomSampler([1.0] * 10, 10,
                                                                                          generator=3)))
    assert [len(b) for b in batches] == [5, 5]
