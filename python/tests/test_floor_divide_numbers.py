"""t // number, t.floor_divide(number) and ember.floor_divide(t, number): PyTorch's Scalar overload of
floor_divide, which ops.yaml lacks (the number goes in as a 0-dim tensor). Expected values and dtypes
recorded from torch 2.15.0 (PyPI) with the same expressions."""
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
