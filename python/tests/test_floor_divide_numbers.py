"""t // number, t.floor_divide(number), ember.floor_divide(t, number) and t //= ... (ops.yaml's
floor_divide.Scalar and floor_divide_), and the other overloads PyTorch code reaches for: round(decimals=),
squeeze(dims), sort(stable=). Expected values and dtypes recorded from torch 2.15.0 (PyPI) with the same
expressions."""
import pytest

import ember as torch

# expression -> (values, dtype) as torch 2.15.0 gave them
RECORDED = {
    "x // 2": ([2.0, -4.0, 1.0], "float32"),
    "x // -2.5": ([-2.0, 2.0, -2.0], "float32"),
    "i // 2": ([2, -4, 1], "int32"),
    "i // 2.5": ([2.0, -3.0, 1.0], "float32"),
    "h // 2.5": ([2.0, -3.0, 1.0], "float16"),
    "x.floor_divide(2)": ([2.0, -4.0, 1.0], "float32"),
    "torch.floor_divide(i, -2)": ([-3, 3, -2], "int32"),
}


@pytest.mark.parametrize("expr", sorted(RECORDED))
def test_floor_divide_by_a_number_as_pytorch(expr):
    x = torch.tensor([5.0, -7.0, 3.0])
    i = torch.tensor([5, -7, 3], dtype=torch.int32)
    h = torch.tensor([5.0, -7.0, 3.0], dtype=torch.float16)
    r = eval(expr, {"torch": torch, "x": x, "i": i, "h": h})
    values, dtype = RECORDED[expr]
    assert r.tolist() == values
    assert r.dtype == getattr(torch, dtype)


def test_floor_divide_keeps_tensor_operands_and_rejects_others():
    x = torch.tensor([5.0, -7.0, 3.0])
    assert (x // torch.tensor([2.0, 2.0, 2.0])).tolist() == [2.0, -4.0, 1.0]
    assert (7 // x).tolist() == [1.0, -1.0, 2.0]
    with pytest.raises(TypeError):
        x // "a"


def test_floor_divide_in_place_and_float_floor_division():
    i = torch.tensor([5, -7, 3], dtype=torch.int32)
    j = i
    i //= 2
    assert i is j and i.tolist() == [2, -4, 1] and i.dtype == torch.int32
    x = torch.tensor([5.0, -7.0, 3.0])
    x //= 0.1
    assert x.tolist() == [49.0, -70.0, 29.0]  # Python's float //, not floor(a / b)
    i = torch.tensor([5, -7, 3], dtype=torch.int32)
    with pytest.raises(RuntimeError, match=r"^\[floor_divide_\]"):
        i //= 2.5  # float32 cannot be written into int32
    assert i.tolist() == [5, -7, 3]
    assert (torch.tensor([1.0, -1.0]) // 0.1).tolist() == [9.0, -10.0]
    assert (torch.tensor([1.0, -1.0], dtype=torch.float64) // 0.1).tolist() == [9.0, -10.0]
    assert (7 // torch.tensor([2, -2])).tolist() == [3, -4]


def test_round_decimals_squeeze_dims_sort_stable():
    x = torch.tensor([[1.25, 2.35], [-0.05, 1250.0]])
    assert x.round(decimals=1).tolist() == [[1.2000000476837158, 2.4000000953674316], [-0.0, 1250.0]]
    assert torch.round(x, decimals=-2).tolist() == [[0.0, 0.0], [-0.0, 1200.0]]
    with pytest.raises(RuntimeError, match=r"^\[round\]"):
        torch.tensor([1, 2]).round(decimals=1)
    assert torch.zeros(2, 1, 3, 1).squeeze((1, 3)).shape == (2, 3)
    assert torch.zeros(2, 1, 3, 1).squeeze(dim=(0, 1)).shape == (2, 3, 1)
    assert torch.zeros(2, 1, 3, 1).squeeze(1).shape == (2, 3, 1)
    assert torch.tensor([3, 1, 3, 1]).sort(stable=True, descending=True).indices.tolist() == [0, 2, 1, 3]
