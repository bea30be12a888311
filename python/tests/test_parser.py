"""The argument rules of the generated bindings (Note [Python overload order] in codegen/python.py),
each with the error a call that breaks it gets."""
import pytest

import ember


def t23():
    return ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def test_positional_and_keyword_arguments():
    a, b = t23(), t23()
    want = [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]
    assert ember.add(a, b).tolist() == want
    assert ember.add(a, other=b).tolist() == want
    assert ember.add(self=a, other=b).tolist() == want
    assert a.add(other=b).tolist() == want


def test_keyword_only_after_star():
    a, b = t23(), t23()
    assert ember.add(a, b, alpha=2).tolist() == [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]]
    with pytest.raises(TypeError, match="fewer positional arguments"):
        ember.add(a, b, 2)  # alpha is keyword-only in add.Tensor; add.Scalar wants a Number


def test_defaults():
    a = t23()
    assert a.sum().item() == 21.0
    assert a.sum(1).tolist() == [6.0, 15.0]
    assert a.sum(1).shape == (2,)  # keepdim=False
    assert a.sum(1, True).shape == (2, 1)
    assert ember.sum(a, dim=0, keepdim=True).shape == (1, 3)


def test_out_argument():
    a = t23()
    out = ember.empty(0)
    r = ember.mul(a, 2, out=out)
    assert r is out and out.tolist() == [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]
    with pytest.raises(TypeError, match="out"):
        ember.mul(a, 2, out=3)


def test_bool_parameter_takes_only_bool():
    a = t23()
    with pytest.raises(TypeError, match="argument 'keepdim' must be bool, not int"):
        ember.sum(a, 1, keepdim=1)
    with pytest.raises(TypeError):
        a.sum(1, 1)
    with pytest.raises(TypeError, match="must be bool"):
        ember.sum(a, 1, keepdim=ember.tensor(True))


def test_int_parameter_rejects_bool_and_float_accepts_0dim_int_tensors_and_index():
    a = t23()
    with pytest.raises(TypeError, match="argument 'dim' must be int, not bool"):
        a.select(True, 0)
    with pytest.raises(TypeError, match="must be int, not float"):
        a.select(0, 1.0)
    with pytest.raises(TypeError, match="must be int, not Tensor"):
        a.select(0, ember.tensor(1.0))  # a 0-dim float tensor is not an int
    with pytest.raises(TypeError):
        a.select(0, ember.tensor([1]))  # 1-dim: not an int either
    assert a.select(ember.tensor(0), ember.tensor(1)).tolist() == [4.0, 5.0, 6.0]

    class NumpyLikeInt:  # NumPy integers are accepted through __index__
        def __index__(self):
            return 2
    assert a.select(1, NumpyLikeInt()).tolist() == [3.0, 6.0]


def test_float_parameter_accepts_int():
    a = t23()
    assert ember.dropout(a, 0, False).tolist() == a.tolist()
    with pytest.raises(TypeError, match="must be float, not str"):
        ember.dropout(a, "0.5", False)


def test_scalar_takes_python_numbers_and_0dim_tensors():
    assert ember.full((2,), 3).tolist() == [3, 3]
    assert ember.full((2,), 3).dtype is ember.int64
    assert ember.full((2,), 2.5).tolist() == [2.5, 2.5]
    assert ember.full((2,), True).tolist() == [True, True]
    assert ember.full((2,), ember.tensor(7)).tolist() == [7, 7]
    with pytest.raises(TypeError, match="must be Number, not Tensor"):
        ember.full((2,), ember.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="must be Number, not str"):
        ember.full((2,), "x")


def test_int_list_of_fixed_size_takes_a_single_int():
    x = ember.arange(16.0).reshape(1, 1, 4, 4)
    assert ember.max_pool2d(x, 2).tolist() == ember.max_pool2d(x, [2, 2]).tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert x.sum(1).shape == x.sum([1]).shape  # int[1] dim


def test_int_list_as_separate_arguments():
    assert ember.zeros(2, 3).shape == (2, 3)
    assert ember.zeros((2, 3)).shape == (2, 3)
    assert ember.zeros([4]).shape == (4,)
    assert ember.ones(5).shape == (5,)
    a = t23()
    assert a.view(3, -1).shape == (3, 2)
    assert a.reshape(6).shape == (6,)
    assert a.permute(1, 0).shape == (3, 2)
    assert a.view(ember.tensor(6)).shape == (6,)  # 0-dim int tensors are ints


def test_separate_ints_are_checked_and_kept_in_order():
    # The ints stay in the call's argument array (no tuple is built); each must still be an int.
    assert ember.zeros(1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3).shape == (1,) * 9 + (2, 3)  # more than 8 ints
    assert ember.ones(1, 2, 1, 3, 1, 1, 1, 1, 1, 1).view(3, 2).tolist() == [[1.0, 1.0]] * 3
    assert t23().view(-1).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert t23().view(1, -1, 2).shape == (1, 3, 2)
    with pytest.raises(TypeError, match="argument 'size' must be tuple of ints, not separate ints"):
        ember.zeros(2, 3.0)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        t23().view(2, True)  # bool is no int
    with pytest.raises(TypeError, match="must be tuple of ints"):
        ember.zeros(2, 3, ember.float64)  # dtype is keyword-only: a dtype among the ints is no int
    assert ember.zeros(2, 3, dtype=ember.float64).dtype is ember.float64


def test_keywords_built_at_run_time_are_found_by_name():
    # Keyword names from source code are interned str objects; names built at run time are not,
    # and must match all the same (Note [Python keyword matching]).
    a = t23()
    key = "".join(["keep", "dim"])
    assert a.sum(0, **{key: True}).shape == (1, 3)
    assert ember.add(a, a, **{"".join(["al", "pha"]): 2}).tolist() == [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]]
    with pytest.raises(TypeError, match="unexpected keyword argument 'keepdims'"):
        a.sum(0, **{"".join(["keep", "dims"]): True})
    with pytest.raises(TypeError, match="multiple values for argument 'dim'"):
        a.sum(0, **{"".join(["d", "im"]): 1})


def test_noop_binding_parses_like_add():
    # ember._C._noop (the benchmark's parsing-only binding) follows add's two signatures.
    a = t23()
    assert ember._C._noop(a, a) is None
    assert ember._C._noop(a, 2, 3) is None
    assert ember._C._noop(a, a, alpha=2.5) is None
    with pytest.raises(TypeError, match="fewer positional arguments"):
        ember._C._noop(a, a, 2)
    with pytest.raises(TypeError, match="accepted signatures"):
        ember._C._noop(a, "x")


def test_dtype_device_and_memory_format_arguments():
    assert ember.zeros(2, dtype=ember.float64).dtype is ember.float64
    assert ember.zeros(2, dtype=float).dtype is ember.float64
    assert ember.zeros(2, dtype=int).dtype is ember.int64
    assert ember.zeros(2, dtype=bool).dtype is ember.bool
    assert ember.zeros(2, device="cpu").device.type == "cpu"
    assert ember.zeros(2, device=ember.device("cpu")).device.type == "cpu"
    assert t23().to(ember.int32).dtype is ember.int32
    assert t23().to(dtype=ember.float16).dtype is ember.float16
    x = ember.zeros(1, 2, 3, 4)
    assert x.contiguous(memory_format=ember.channels_last).stride() == (24, 1, 8, 2)
    with pytest.raises(TypeError, match="must be dtype, not str"):
        ember.zeros(2, dtype="float32")


def test_keyword_errors():
    a = t23()
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        ember.neg(a, bogus=1)
    with pytest.raises(TypeError, match="multiple values for argument 'self'"):
        ember.neg(a, self=a)
    with pytest.raises(TypeError, match="missing required argument 'self'"):
        ember.neg()


def test_type_error_lists_every_signature_in_call_order():
    with pytest.raises(TypeError) as e:
        ember.add(t23(), "x")
    msg = str(e.value)
    assert msg.startswith("add() received an invalid combination of arguments; got (Tensor, str)")
    order = ["add(Tensor self, Tensor other, *, Number alpha=1)",
             "add(Tensor self, Tensor other, *, Number alpha=1, Tensor out)",
             "add(Tensor self, Number other, Number alpha=1)",
             "add(Tensor self, Number other, Number alpha=1, *, Tensor out)"]
    pos = [msg.index(s) for s in order]
    assert pos == sorted(pos)
    assert ember.add.__doc__.splitlines() == order


def test_tensor_overload_preferred_over_scalar():
    # a 0-dim tensor fills Tensor other (add.Tensor, type promotion of a tensor) before Number other
    a = ember.tensor([1, 2], dtype=ember.int32)
    assert (a + ember.tensor(1, dtype=ember.int64)).dtype is ember.int32  # 0-dim tensors do not promote
    assert ember.where(ember.tensor([True, False]), ember.tensor([1.0, 2.0]), 0.0).tolist() == [1.0, 0.0]
    assert ember.where(ember.tensor([True, False]), 5.0, ember.tensor([1.0, 2.0])).tolist() == [5.0, 2.0]


def test_library_errors_keep_their_op_prefix_and_type():
    with pytest.raises(RuntimeError, match=r"^\[matmul\]|^\[mm\]"):
        t23() @ t23()
    with pytest.raises(IndexError):
        t23().select(0, 7)
    with pytest.raises(RuntimeError, match=r"^\[view\]"):
        t23().view(4)


def test_method_receiver_is_self():
    a = t23()
    assert a.neg().tolist() == [[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]]
    with pytest.raises(TypeError, match="unexpected keyword argument 'self'"):
        a.neg(self=a)


def test_factories_take_requires_grad():
    x = ember.ones(2, 3, requires_grad=True)
    assert x.requires_grad and x.is_leaf
    (x * x).sum().backward()
    assert x.grad.tolist() == [[2.0] * 3] * 2
    assert not ember.zeros(2).requires_grad
    assert ember.full((2,), 1.5, dtype=ember.float64, requires_grad=True).requires_grad
    assert ember.zeros_like(x, requires_grad=False).requires_grad is False
    with pytest.raises(TypeError, match="unexpected keyword argument 'requires_grad'"):
        ember.neg(x, requires_grad=True)
    assert "requires_grad=False" in ember.zeros.__doc__
