"""Tensor behaviour gathered by the same code from `torch` or `ember`: repr() of tensors chosen to reach
each printing rule (notation, widths, wrapping, summarization, suffixes, print options), values of the
random ops drawn from seeded generators, and the results of operators between tensors and NumPy
arrays. test_tensor_py.py compares Ember's answers with PyTorch's, recorded in
data/torch_tensor_py.json by `<a Python with torch and numpy> python/tests/tensor_py_parity.py --record`
(the tests never import torch). In the recorded strings `torch.` is written `ember.`.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "torch_tensor_py.json")

# (name, expression, print options). `T` is the module (torch or ember); the expressions use only
# exact arithmetic (lists, arange, division by powers of two or exact quotients), so both libraries
# hold the same values.
REPR_CASES = [
    ("float_2x2", "T.tensor([[1., 2.], [3., 4.]])", {}),
    ("float_fixed", "T.tensor([1.5, -2.25, 3.125])", {}),
    ("float_fixed_rounding", "T.tensor([0.1, 0.12345, 2.0 / 3.0, -1.0 / 3.0])", {}),
    ("float_sci_range", "T.tensor([1.0, 1001.0])", {}),
    ("float_sci_small", "T.tensor([0.00001, 1.5])", {}),
    ("float_sci_large", "T.tensor([1.5e9, 2.5])", {}),
    ("float_int_large", "T.tensor([1e9, 2e9])", {}),
    ("float_int_range", "T.tensor([1.0, 2000.0])", {}),
    ("float_int_neg", "T.tensor([-1.0, 20.0, 300.0])", {}),
    ("float_zero", "T.zeros(3)", {}),
    ("float_neg_zero", "T.tensor([-0.0, 1.0])", {}),
    ("float_neg_zero_fixed", "T.tensor([-0.0, 1.5])", {}),
    ("float_nan_inf", "T.tensor([float('nan'), float('inf'), -float('inf'), 1.0])", {}),
    ("float_nan_inf_fixed", "T.tensor([float('nan'), 1.25, -float('inf')])", {}),
    ("float_only_nan", "T.tensor([float('nan'), float('nan')])", {}),
    ("float_only_inf", "T.tensor([float('inf')])", {}),
    ("float_sci_nan", "T.tensor([1e-8, float('nan'), 3.0])", {}),
    ("scalar_float", "T.tensor(3.5)", {}),
    ("scalar_int_valued", "T.tensor(2.0)", {}),
    ("scalar_int", "T.tensor(7)", {}),
    ("scalar_bool", "T.tensor(True)", {}),
    ("scalar_nan", "T.tensor(float('nan'))", {}),
    ("scalar_small", "T.tensor(1e-10)", {}),
    ("scalar_int32", "T.tensor(5, dtype=T.int32)", {}),
    ("int64", "T.tensor([1, -20, 300])", {}),
    ("int32", "T.tensor([1, 2, 3], dtype=T.int32)", {}),
    ("int8", "T.tensor([-128, 0, 127], dtype=T.int8)", {}),
    ("uint8", "T.tensor([0, 255], dtype=T.uint8)", {}),
    ("int16_2d", "T.arange(6, dtype=T.int16).reshape(2, 3)", {}),
    ("bool", "T.tensor([True, False, True])", {}),
    ("bool_2d", "T.tensor([[True], [False]])", {}),
    ("float64", "T.tensor([1.5, 2.0], dtype=T.float64)", {}),
    ("float64_int", "T.tensor([1.0, 2.0], dtype=T.float64)", {}),
    ("float16", "T.tensor([0.1, 2.5, -3.0], dtype=T.float16)", {}),
    ("bfloat16", "T.tensor([0.1, 2.5, -3.0], dtype=T.bfloat16)", {}),
    ("bfloat16_int", "T.tensor([1.0, 256.0], dtype=T.bfloat16)", {}),
    ("float16_sci", "T.tensor([0.0001, 60000.0], dtype=T.float16)", {}),
    ("empty_1d", "T.tensor([])", {}),
    ("empty_0x3", "T.zeros(0, 3)", {}),
    ("empty_int", "T.zeros(0, dtype=T.int64)", {}),
    ("empty_int32_2d", "T.zeros(2, 0, dtype=T.int32)", {}),
    ("empty_bool", "T.zeros(0, dtype=T.bool)", {}),
    ("empty_float64", "T.zeros(0, 2, dtype=T.float64)", {}),
    ("3d", "T.arange(24.).reshape(2, 3, 4)", {}),
    ("4d", "T.arange(16).reshape(2, 2, 2, 2)", {}),
    ("3d_fixed", "(T.arange(12.) / 8).reshape(3, 2, 2)", {}),
    ("wrap_1d", "T.arange(40.) / 4", {}),
    ("wrap_1d_int", "T.arange(100)", {}),
    ("wrap_2d", "(T.arange(60.) / 8).reshape(2, 30)", {}),
    ("wrap_sci", "T.arange(1, 30.) * 1e5", {}),
    ("summary_1d", "T.arange(2000.)", {}),
    ("summary_1d_fixed", "T.arange(2000.) / 8", {}),
    ("summary_2d", "T.arange(4000.).reshape(40, 100)", {}),
    ("summary_3d", "T.arange(3000).reshape(10, 10, 30)", {}),
    ("summary_edge_values", "T.cat([T.tensor([0.5]), T.arange(1, 1999.), T.tensor([1e6])])", {}),
    ("summary_million", "T.arange(1000000.).reshape(1000, 1000)", {}),
    ("summary_short_dim", "T.arange(2002.).reshape(2, 1001)", {}),
    ("summary_bool", "T.arange(1500).remainder(3).eq(0)", {}),
    ("requires_grad", "T.tensor([1., 2.], requires_grad=True)", {}),
    ("requires_grad_2d", "T.ones(2, 2, requires_grad=True)", {}),
    ("requires_grad_scalar", "T.tensor(1.5, requires_grad=True)", {}),
    ("grad_fn_mul", "T.ones(2, requires_grad=True) * T.ones(2)", {}),
    ("grad_fn_sum", "T.ones(3, requires_grad=True).sum()", {}),
    ("grad_fn_float64", "T.ones(2, dtype=T.float64, requires_grad=True).exp()", {}),
    ("grad_fn_view", "T.ones(2, 3, requires_grad=True).t()", {}),
    ("grad_fn_wrap", "T.ones(18, requires_grad=True).mul(T.arange(18.) / 3)", {}),
    ("suffix_wrap", "T.arange(15, dtype=T.int32) * 100000", {}),
    ("suffix_wrap_2", "(T.arange(9, dtype=T.float64) / 7).requires_grad_()", {}),
    ("noncontiguous", "T.arange(6.).reshape(2, 3).t()", {}),
    ("sliced", "T.arange(10.)[::3]", {}),
    ("opt_precision_2", "T.tensor([1.23456, 2.5])", {"precision": 2}),
    ("opt_precision_7", "T.tensor([1.23456789, 1e-3])", {"precision": 7}),
    ("opt_precision_0", "T.tensor([1.6, 2.5])", {"precision": 0}),
    ("opt_threshold", "T.arange(10.)", {"threshold": 5}),
    ("opt_threshold_2d", "T.arange(36).reshape(6, 6)", {"threshold": 5, "edgeitems": 2}),
    ("opt_edgeitems_1", "T.arange(2000)", {"edgeitems": 1}),
    ("opt_edgeitems_0", "T.arange(2000.)", {"edgeitems": 0}),
    ("opt_edgeitems_0_2d", "T.arange(2000.).reshape(20, 100)", {"edgeitems": 0}),
    ("opt_linewidth", "T.arange(20.)", {"linewidth": 30}),
    ("opt_linewidth_tiny", "T.arange(5.) * 1000", {"linewidth": 5}),
    ("opt_sci_on", "T.tensor([1.5, 2.0])", {"sci_mode": True}),
    ("opt_sci_on_int", "T.tensor([1.0, 2.0])", {"sci_mode": True}),
    ("opt_sci_off", "T.tensor([1e-8, 1e8])", {"sci_mode": False}),
    ("opt_sci_off_int", "T.tensor([1.0, 1e10])", {"sci_mode": False}),
    ("opt_profile_short", "T.arange(2000.) / 3", {"profile": "short"}),
    ("opt_profile_full", "T.arange(1200)", {"profile": "full"}),
]

# (name, expression): str(), repr() and f"{x:spec}" spellings.
FORMAT_CASES = [
    ("format_scalar", "f'{T.tensor(3.14159):.2f}'"),
    ("format_int", "f'{T.tensor(42):>5}'"),
    ("format_vector", "f'{T.tensor([1., 2.])}'"),
    ("str_equals_repr", "str(T.tensor([[1, 2]])) == repr(T.tensor([[1, 2]]))"),
    ("printoptions_dict", "sorted(T._tensor_str.get_printoptions().items())"),
    ("size_repr", "T.zeros(2, 3).shape"),
    ("size_0d", "T.tensor(1.).size()"),
    ("size_empty", "T.Size()"),
    ("size_slice", "tuple(T.zeros(2, 3, 4).shape[1:])"),
    ("size_add", "T.zeros(2, 3).size() + (4,)"),
    ("size_radd", "(4,) + T.zeros(2, 3).size()"),
    ("size_mul", "T.zeros(2).shape * 2"),
    ("size_item", "type(T.zeros(2).shape[0]).__name__"),
    ("size_numel", "(T.zeros(2, 3).shape.numel(), T.Size([]).numel())"),
    ("size_tuple", "(isinstance(T.zeros(1).shape, tuple), T.zeros(2, 3).shape == (2, 3), str(T.zeros(5).shape))"),
    ("size_hash", "hash(T.zeros(2, 3).shape) == hash((2, 3))"),
]

# The random ops with a seeded generator (CPU streams are the same in libtorch and Ember); each
# expression gets `g`, a fresh Generator seeded with 1234.
RANDOM_CASES = [
    ("rand", "T.rand(5, generator=g)"),
    ("rand_f64", "T.rand(3, dtype=T.float64, generator=g)"),
    ("randn", "T.randn(4, generator=g)"),
    ("randn_20", "T.randn(20, generator=g)"),
    ("randint", "T.randint(0, 100, (6,), generator=g)"),
    ("randint_high", "T.randint(10, (4,), generator=g)"),
    ("normal_", "T.empty(5).normal_(2.0, 0.5, generator=g)"),
    ("uniform_", "T.empty(5).uniform_(-1.0, 1.0, generator=g)"),
    ("bernoulli", "T.full((8,), 0.5).bernoulli(generator=g)"),
    ("bernoulli_", "T.empty(8).bernoulli_(0.3, generator=g)"),
    ("multinomial", "T.tensor([0.1, 0.2, 0.3, 0.4]).multinomial(6, True, generator=g)"),
    ("exponential_", "T.empty(4).exponential_(2.0, generator=g)"),
    ("random_", "T.empty(5, dtype=T.int64).random_(0, 50, generator=g)"),
    ("randn_f64_2d", "T.randn(2, 3, dtype=T.float64, generator=g)"),
    ("log_normal_", "T.empty(6, dtype=T.float64).log_normal_(0.5, 0.25, generator=g)"),
    ("cauchy_", "T.empty(5).cauchy_(1.0, 2.0, generator=g)"),
    ("geometric_", "T.empty(7, dtype=T.int32).geometric_(0.3, generator=g)"),
    ("normal_tensor_float", "T.normal(T.arange(5.0), 2.0, generator=g)"),
    ("normal_float_tensor", "T.normal(1.0, T.arange(4.0), generator=g)"),
    ("normal_tensor_tensor", "T.normal(T.zeros(2, 1), T.ones(3), generator=g)"),
    ("normal_float_float", "T.normal(1.0, 2.0, (4,), generator=g)"),
    ("rand_like_g", "T.rand_like(T.zeros(3), generator=g)"),
    ("randn_like_g", "T.randn_like(T.zeros(2, 2), generator=g)"),
    ("randint_like", "T.randint_like(T.zeros(5), 3, 9, generator=g)"),
    ("randint_like_high", "T.randint_like(T.zeros(4, dtype=T.int64), 7, generator=g)"),
    ("randperm_g", "T.randperm(8, generator=g)"),
]


def _repr_facts(T):
    out = {}
    for name, expr, opts in REPR_CASES:
        T.set_printoptions(**opts)
        try:
            out[name] = repr(eval(expr, {"T": T}))
        finally:
            T.set_printoptions(profile="default")
    return out


def _format_facts(T):
    return {name: repr(eval(expr, {"T": T})) for name, expr in FORMAT_CASES}


def _random_facts(T):
    out = {}
    for name, expr in RANDOM_CASES:
        g = T.Generator().manual_seed(1234)
        out[name] = eval(expr, {"T": T, "g": g}).tolist()
    return out


def _numpy_facts(T):
    """Type, dtype and values of `tensor <op> ndarray` where PyTorch returns a tensor."""
    import numpy as np
    t = T.tensor([1., 2., 3.])
    ti = T.tensor([6, 2, 3])
    a = np.array([4., 5., 6.])
    ai = np.array([3, 5, 7], dtype=np.int32)
    exprs = ["t + a", "t - a", "t * a", "t / a", "t ** a", "t @ a", "t == a", "t // a", "t % a",
             "ti & ai", "ti | ai", "ti ^ ai", "ti + ai", "ti + a", "a == t"]
    out = {}
    for e in exprs:
        r = eval(e, {"t": t, "ti": ti, "a": a, "ai": ai})
        out[e] = [type(r).__name__, str(r.dtype).replace("torch.", "ember."), r.tolist()]
    return out


# Operators with a Python number on the left (reflected) and the augmented ones: dtype and values.
REFLECTED_CASES = ["2.5 ** ti", "2 ** t", "2 ** ti", "3 / t", "3 / ti", "7 // t", "7 // ti", "7.5 // ti",
                   "7 % t", "-7 % ti", "7.5 % ti", "5 - ti", "5.5 - ti", "2.5 * ti32", "1 + th", "2.5 ** th",
                   "True & tb", "3 | ti", "6 ^ ti", "1 & ti32", "list(reversed(ti))", "reversed(T.tensor(5))"]
INPLACE_CASES = ["x &= 6", "x |= 8", "x ^= 5", "x %= 4", "x **= 2", "y %= 1.5", "y **= 0.5"]


def _reflected_facts(T):
    env = {"T": T, "t": T.tensor([7., 4., 0.5]), "ti": T.tensor([1, 2, 3]), "ti32": T.tensor([4, 5], dtype=T.int32),
           "th": T.tensor([0.5, 3.0], dtype=T.float16), "tb": T.tensor([True, False])}
    out = {}
    for e in REFLECTED_CASES:
        r = eval(e, env)
        if isinstance(r, list):
            out[e] = [x.tolist() for x in r]
        else:
            out[e] = [str(r.dtype).replace("torch.", "ember."), r.tolist()]
    for e in INPLACE_CASES:
        x, y = T.tensor([13, 7, 2]), T.tensor([2.25, 9.0])
        before = {"x": x, "y": y}
        env = dict(before)
        exec(e, env)
        name = e.split()[0]
        out[e] = [env[name] is before[name], str(env[name].dtype).replace("torch.", "ember."), env[name].tolist()]
    return out


# Operands the operators do not take: the result, or the exception's type and message.
OTHER_OPERAND_CASES = ['t == "a"', 't != "a"', 't + "x"', 't < "a"', 't == [1, 2]', 't * None', 't @ 3',
                       'object() == t', 't & "x"', 'u += "x"', '"x" - t', '[1.0] ** t', '[1.0, 2.0] @ t', '3 // t.to(T.int32)']


def _other_operand_facts(T):
    out = {}
    for e in OTHER_OPERAND_CASES:
        env = {"T": T, "t": T.tensor([1., 2.]), "u": T.tensor([1., 2.])}
        try:
            exec("r = " + e if "+=" not in e else e, env)
            out[e] = repr(env.get("r"))
        except Exception as ex:  # noqa: BLE001 (the exception is the fact)
            out[e] = [type(ex).__name__, str(ex)]
    return out


# Conversions and attributes: each expression's value (tensors as [dtype, values]) or exception type.
METHOD_CASES = ["x.float() is x", "x.double()", "x.half()", "x.bfloat16()", "x.int()", "x.long()", "x.short()",
                "x.char()", "x.byte()", "x.bool()", "x.cpu() is x", "x.type()", "x.int().type()",
                "x.bool().type()", "x.type(T.float64)", "x.type('torch.IntTensor')", "x.is_signed()",
                "x.byte().is_signed()", "x.bool().is_signed()", "x.itemsize", "x.double().nbytes", "x.layout",
                "x.is_sparse", "x.is_quantized", "x.is_meta", "x.is_cpu", "x.is_complex()", "x.real is x",
                "x.imag", "x.new_tensor([1, 2])", "x.new_tensor([1, 2]).requires_grad", "m.mT", "m.H", "m.mH",
                "x.H", "x.nelement()", "x.ndimension()", "T.tensor([1., 2., 3.]).apply_(lambda v: v * 10)",
                "T.tensor([[1, 2], [3, 4]]).map_(T.tensor([10, 20]), lambda a, b: a * b)",
                "x.absolute()", "x.negative()", "T.negative(x)", "x.divide(T.tensor([2., 4.]))",
                "x.multiply(3)", "T.subtract(x, 1)", "x.true_divide(4)", "x.greater(0)", "x.less_equal(-2.)",
                "T.not_equal(x, 1.5)", "x.clone().absolute_()", "T.arctan2(x, T.ones(2))", "T.tensor([0., -1.]).arcsin_()",
                "x.where(x > 0, T.zeros(2))", "m.fliplr()", "m.flipud()", "x.fliplr()", "x.get_device()",
                "T.tensor([3.]).is_nonzero()", "x.is_nonzero()", "x.is_same_size(T.zeros(2))", "x.conj() is x",
                "x.is_conj()", "x.is_neg()", "(x * T.ones(2, requires_grad=True)).detach_().requires_grad"]


def _value(r):
    if hasattr(r, "tolist") and hasattr(r, "dtype"):
        return [str(r.dtype).replace("torch.", "ember."), r.tolist()]
    return str(r).replace("torch.", "ember.")


def _method_facts(T):
    out = {}
    for e in METHOD_CASES:
        env = {"T": T, "x": T.tensor([1.5, -2.0]), "m": T.arange(6.).reshape(2, 3)}
        try:
            out[e] = _value(eval(e, env))
        except Exception as ex:  # noqa: BLE001 (the exception type is the fact)
            out[e] = type(ex).__name__
    return out


# Module-level helpers: each expression's value.
MODULE_CASES = ["T.is_tensor(T.ones(1))", "T.is_tensor([1])", "T.numel(T.ones(2, 3))", "T.is_floating_point(T.ones(1))",
                "T.is_complex(T.ones(1))", "T.is_nonzero(T.tensor([0.]))", "T.typename(T.ones(1))",
                "T.typename(T.ones(1, dtype=T.int64))", "T.typename(3)", "T.get_default_dtype()",
                "T.broadcast_shapes((2, 1), (3,))", "T.broadcast_shapes(4, (2, 1), (1, 1, 4))", "T.broadcast_shapes()",
                "T.broadcast_shapes((2,), (3,))", "T.promote_types(T.int32, T.float16)",
                "T.promote_types(T.uint8, T.int8)", "T.promote_types(T.bool, T.bfloat16)",
                "T.promote_types(T.float16, T.bfloat16)", "T.result_type(T.ones(2, dtype=T.int32), 2.5)",
                "T.result_type(T.ones(2, dtype=T.int32), T.tensor(2.5, dtype=T.float64))",
                "T.result_type(T.tensor(1, dtype=T.int8), T.ones(2, dtype=T.uint8))",
                "T.result_type(T.ones(2, dtype=T.float16), 1)", "T.result_type(2, 2.5)", "T.result_type(True, 2)",
                "T.result_type(T.ones(1, dtype=T.bool), False)",
                "T.finfo().eps", "T.finfo(T.float64).max", "T.finfo(T.float16).tiny", "T.finfo(T.bfloat16).eps",
                "T.finfo(T.bfloat16).max", "T.finfo(T.float32).resolution", "T.finfo(T.float16).resolution",
                "T.finfo(T.float64).smallest_normal", "(T.finfo(T.float32).bits, T.finfo(T.float32).min)",
                "T.finfo(T.float32)", "T.finfo(T.bfloat16)", "T.finfo(T.float16)", "T.iinfo(T.int8)", "T.iinfo(T.uint8).max", "T.iinfo(T.int64).min",
                "(T.iinfo(T.int16).bits, T.iinfo(T.int32).max)", "T.finfo(T.int32)", "T.iinfo(T.float32)",
                "T.get_num_threads() >= 1", "T.cuda.is_available() in (True, False)", "T.cuda.device_count() >= 0"]


def _module_facts(T):
    out = {}
    for e in MODULE_CASES:
        try:
            out[e] = _value(eval(e, {"T": T}))
        except Exception as ex:  # noqa: BLE001 (the exception type is the fact)
            out[e] = type(ex).__name__
    return out


def facts(T):
    return {"repr": _repr_facts(T), "format": _format_facts(T), "random": _random_facts(T),
            "numpy": _numpy_facts(T), "reflected": _reflected_facts(T), "other_operands": _other_operand_facts(T),
            "methods": _method_facts(T), "module": _module_facts(T)}


def _ember_names(x):
    if isinstance(x, str):
        return x.replace("torch.", "ember.")
    if isinstance(x, dict):
        return {k: _ember_names(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_ember_names(v) for v in x]
    return x


if __name__ == "__main__" and "--record" in sys.argv:
    import warnings

    import numpy
    import torch
    warnings.simplefilter("ignore")
    torch._tensor_str = torch._tensor_str  # get_printoptions lives there in both
    data = {"torch": torch.__version__, "numpy": numpy.__version__, "facts": _ember_names(facts(torch))}
    with open(DATA, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    print("recorded", DATA)
