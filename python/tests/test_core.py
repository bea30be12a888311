"""The hand-written core of `import ember`: tensors from Python data, dtypes, devices, printing, Python
operators, item/tolist/len, indexing, autograd and grad mode. References are plain Python arithmetic."""
import math

import pytest

import ember


def test_tensor_from_nested_lists_infers_dtype_and_shape():
    assert ember.tensor([[1.0, 2.0], [3.0, 4.0]]).dtype is ember.float32
    assert ember.tensor([1, 2, 3]).dtype is ember.int64
    assert ember.tensor([True, False]).dtype is ember.bool
    assert ember.tensor([1, 2.5]).dtype is ember.float32
    assert ember.tensor(3.5).shape == ()
    assert ember.tensor([[1, 2, 3]]).shape == (1, 3)
    assert ember.tensor([]).shape == (0,)
    t = ember.tensor([[1, 2], [3, 4]], dtype=ember.float64)
    assert t.dtype is ember.float64 and t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    # int64 extremes survive (no round trip through double)
    big = 2**63 - 1
    assert ember.tensor([big, -big - 1]).tolist() == [big, -big - 1]


def test_tensor_rejects_ragged_and_foreign_data():
    with pytest.raises(ValueError, match=r"\[tensor\]"):
        ember.tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match=r"\[tensor\]"):
        ember.tensor(["a"])


def test_dtypes_and_devices():
    assert repr(ember.float32) == "ember.float32"
    assert ember.float is ember.float32 and ember.long is ember.int64 and ember.double is ember.float64
    assert ember.float16.is_floating_point and not ember.int32.is_floating_point
    assert ember.bfloat16.itemsize == 2 and ember.int64.itemsize == 8
    d = ember.device("cpu")
    assert d.type == "cpu" and d.index is None and str(d) == "cpu" and repr(d) == "device(type='cpu')"
    assert ember.zeros(2).device == d
    assert ember.zeros(2, device="cpu").device == d


def test_printing_follows_pytorch():
    # (the rules and PyTorch's recorded strings: test_tensor_py.py)
    assert repr(ember.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"


def test_python_operators_match_python_arithmetic():
    a_vals, b_vals = [1.5, -2.0, 3.25], [0.5, 4.0, -1.0]
    a, b = ember.tensor(a_vals, dtype=ember.float64), ember.tensor(b_vals, dtype=ember.float64)
    cases = {
        "+": (a + b, [x + y for x, y in zip(a_vals, b_vals)]),
        "-": (a - b, [x - y for x, y in zip(a_vals, b_vals)]),
        "*": (a * b, [x * y for x, y in zip(a_vals, b_vals)]),
        "/": (a / b, [x / y for x, y in zip(a_vals, b_vals)]),
        "+2": (a + 2, [x + 2 for x in a_vals]),
        "2-": (2 - a, [2 - x for x in a_vals]),
        "3*": (3 * a, [3 * x for x in a_vals]),
        "1/": (1 / b, [1 / y for y in b_vals]),
        "**2": (a ** 2, [x ** 2 for x in a_vals]),
        "2**": (2 ** a, [2 ** x for x in a_vals]),
        "neg": (-a, [-x for x in a_vals]),
        "abs": (abs(b), [abs(y) for y in b_vals]),
        "//": (a // b, [math.floor(x / y) for x, y in zip(a_vals, b_vals)]),
        "%": (a % b, [x - y * math.floor(x / y) for x, y in zip(a_vals, b_vals)]),
    }
    for name, (got, want) in cases.items():
        assert got.tolist() == pytest.approx(want, rel=1e-12), name
    assert (a == b).tolist() == [False, False, False]
    assert (a < b).tolist() == [x < y for x, y in zip(a_vals, b_vals)]
    assert (a >= 1.5).tolist() == [x >= 1.5 for x in a_vals]
    assert (a != a).tolist() == [False] * 3
    i, j = ember.tensor([6, 5, 12]), ember.tensor([3, 3, 10])
    assert (i & j).tolist() == [6 & 3, 5 & 3, 12 & 10]
    assert (i | j).tolist() == [6 | 3, 5 | 3, 12 | 10]
    assert (i ^ j).tolist() == [6 ^ 3, 5 ^ 3, 12 ^ 10]
    assert (~i).tolist() == [~6, ~5, ~12]


def test_matmul_operator():
    m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    n = [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]
    want = [[sum(m[r][k] * n[k][c] for k in range(3)) for c in range(2)] for r in range(2)]
    assert (ember.tensor(m) @ ember.tensor(n)).tolist() == want


def test_inplace_operators_keep_the_object():
    a = ember.tensor([1.0, 2.0])
    b = a
    a += 1
    a *= 2
    assert a is b and b.tolist() == [4.0, 6.0]
    assert a.add_(1) is a


def test_item_tolist_len_iter_bool():
    assert ember.tensor(2.5).item() == 2.5
    assert ember.tensor(7).item() == 7 and isinstance(ember.tensor(7).item(), int)
    assert ember.tensor(True).item() is True
    t = ember.tensor([[1, 2, 3], [4, 5, 6]])
    assert len(t) == 2
    assert [r.tolist() for r in t] == [[1, 2, 3], [4, 5, 6]]
    with pytest.raises(TypeError, match=r"\[len\]"):
        len(ember.tensor(1.0))
    assert bool(ember.tensor([1])) and not bool(ember.tensor(0.0))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(t)
    assert float(ember.tensor(1.5)) == 1.5 and int(ember.tensor(3)) == 3
    assert [10, 20, 30][ember.tensor(1)] == 20  # __index__
    assert ember.tensor([0.5, -1.25], dtype=ember.float16).tolist() == [0.5, -1.25]
    assert 5 in t and 7 not in t and ember.tensor(2) in t


def test_indexing_basics():
    rows = [[r * 4 + c for c in range(4)] for r in range(3)]
    t = ember.tensor(rows)
    assert t[1].tolist() == rows[1]
    assert t[-1, 2].item() == rows[-1][2]
    assert t[:, 1].tolist() == [r[1] for r in rows]
    assert t[::2, 1:3].tolist() == [r[1:3] for r in rows[::2]]
    assert t[..., None].shape == (3, 4, 1)
    assert t[None].shape == (1, 3, 4)
    assert t[ember.tensor([2, 0])].tolist() == [rows[2], rows[0]]
    assert t[t > 9].tolist() == [v for r in rows for v in r if v > 9]
    with pytest.raises(IndexError):
        t[3]
    u = ember.zeros(2, 3)
    u[0] = 5.0
    u[1, 1:] = ember.tensor([1.0, 2.0])
    assert u.tolist() == [[5.0, 5.0, 5.0], [0.0, 1.0, 2.0]]


def test_autograd_from_python():
    xs = [0.5, -1.0, 2.0]
    x = ember.tensor(xs, dtype=ember.float64, requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad is None
    y = (x * x * x).sum()  # d/dx x^3 = 3x^2
    assert y.requires_grad and not y.is_leaf
    y.backward()
    assert x.grad.tolist() == pytest.approx([3 * v * v for v in xs])
    # sin: d/dx = cos, accumulated onto the first gradient
    x.sin().sum().backward()
    assert x.grad.tolist() == pytest.approx([3 * v * v + math.cos(v) for v in xs])
    x.grad = None
    assert x.grad is None
    w = ember.tensor([1.0, 2.0])
    w.requires_grad = True
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    z = ember.tensor([1.0, 2.0])
    assert z.requires_grad_() is z and z.requires_grad


def test_no_grad_and_enable_grad():
    x = ember.tensor([1.0], requires_grad=True)
    assert ember.is_grad_enabled()
    with ember.no_grad():
        assert not ember.is_grad_enabled()
        assert not (x * 2).requires_grad
        with ember.enable_grad():
            assert (x * 2).requires_grad
    assert ember.is_grad_enabled() and (x * 2).requires_grad

    @ember.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad and ember.is_grad_enabled()
    with ember.set_grad_enabled(False):
        assert not ember.is_grad_enabled()
    assert ember.is_grad_enabled()


def test_library_errors_become_python_exceptions():
    with pytest.raises(RuntimeError, match=r"^\[mm\]"):
        ember.mm(ember.zeros(2, 3), ember.zeros(2, 3))
    with pytest.raises(IndexError):
        ember.zeros(2, 3).select(0, 5)


def test_gil_is_released_around_ops():
    import threading
    big = ember.ones(256, 256)
    out = []
    ts = [threading.Thread(target=lambda: out.append((big @ big).sum().item())) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out == [256.0 * 256 * 256] * 4


def test_named_results_are_namedtuples():
    t = ember.tensor([[1.0, 5.0, 3.0], [7.0, 2.0, 4.0]])
    r = ember.max(t, 1)
    assert r.values.tolist() == [5.0, 7.0] and r.indices.tolist() == [1, 0]
    values, indices = t.sort(1)
    assert values.tolist() == [[1.0, 3.0, 5.0], [2.0, 4.0, 7.0]] and indices.tolist() == [[0, 2, 1], [1, 2, 0]]
    assert type(r).__name__ == "max" and type(r).__module__ == "ember.return_types"
    assert isinstance(r, tuple) and len(r) == 2


def test_to_device_as_pytorch_spells_it():
    t = ember.tensor([1.5, 2.5])
    assert t.to("cpu").tolist() == [1.5, 2.5]
    assert t.to("cpu", ember.float64).dtype is ember.float64
    assert t.to(ember.device("cpu"), dtype=ember.int32).tolist() == [1, 2]
    assert t.to(ember.float16).dtype is ember.float16


def test_autograd_grad_and_backward_functions():
    xs = [0.5, -1.5]
    x = ember.tensor(xs, dtype=ember.float64, requires_grad=True)
    y = (x * x * x).sum()
    (g,) = ember.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == pytest.approx([3 * v * v for v in xs]) and x.grad is None
    (gg,) = ember.autograd.grad(g.sum(), [x])  # second derivative 6x
    assert gg.tolist() == pytest.approx([6 * v for v in xs])
    z = ember.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        ember.autograd.grad((x * 2).sum(), [x, z])  # z unused
    _, gz = ember.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    assert gz is None
    ember.autograd.backward([(x * 3).sum()])
    assert x.grad.tolist() == [3.0, 3.0]


def test_inference_mode():
    x = ember.tensor([1.0], requires_grad=True)
    with ember.inference_mode():
        assert ember.is_inference_mode_enabled() and not ember.is_grad_enabled()
        assert not (x * 2).requires_grad
    assert not ember.is_inference_mode_enabled() and ember.is_grad_enabled()
    with ember.inference_mode(False):
        assert (x * 2).requires_grad

    @ember.inference_mode()
    def f(t):
        return t * 2
    assert not f(x).requires_grad
