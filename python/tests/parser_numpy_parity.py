"""NumPy scalars and arrays as arguments, gathered by the same code from `torch` or `ember`: PyTorch's parser
takes NumPy integers for `int` (not NumPy floats), any NumPy number for `Scalar`/`float`, NumPy bools for
`bool`, and an integer array as an index. `<a Python with torch and numpy> python/tests/parser_numpy_parity.py
--record` writes PyTorch's answers (dtype, shape and values, or the exception type) to
data/torch_parser_numpy.json; test_parser_numpy.py compares Ember's (torch is never imported there).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "torch_parser_numpy.json")


def cases(T, np):
    x = T.arange(6.0).reshape(2, 3)
    return {
        "select_np_int64": lambda: x.select(0, np.int64(1)),
        "select_np_int32": lambda: x.select(np.int32(1), 2),
        "select_np_uint8": lambda: x.select(0, np.uint8(1)),
        "select_np_bool": lambda: x.select(0, np.bool_(True)),
        "select_np_float": lambda: x.select(0, np.float64(1.0)),
        "sum_dim_np": lambda: x.sum(np.int64(1)),
        "sum_keepdim_np_bool": lambda: x.sum(1, keepdim=np.bool_(True)),
        "view_np_ints": lambda: x.view(np.int64(3), np.int64(2)),
        "view_np_list": lambda: x.view([np.int64(3), 2]),
        "zeros_np": lambda: T.zeros(np.int64(2), 3),
        "zeros_np_tuple": lambda: T.zeros((np.int32(2), np.int64(3))),
        "add_np_float64": lambda: x.add(np.float64(0.5)),
        "add_np_int_alpha": lambda: x.add(x, alpha=np.int64(2)),
        "mul_np_float32": lambda: x.mul(np.float32(2.0)),
        "add_np_float16": lambda: x.add(np.float16(1.5)),
        "full_np_float": lambda: T.full((2,), np.float64(1.5)),
        "full_np_int": lambda: T.full((2,), np.int64(3)),
        "clamp_np": lambda: x.clamp(np.float64(1.0), np.int64(4)),
        "dropout_p_np": lambda: T.dropout(x, np.float64(0.0), False),
        "leaky_relu_np_float32": lambda: T.nn.functional.leaky_relu(x, np.float32(0.2)),
        "topk_np": lambda: x.topk(np.int64(2)).values,
        "index_np_int": lambda: x[np.int64(1)],
        "index_np_slice": lambda: x[:, np.int64(1):],
        "index_np_int_array": lambda: x[np.array([1, 0])],
        "roll_np": lambda: x.roll(np.int64(1), 1),
        "pow_np_int": lambda: x.pow(np.int64(2)),
        "transpose_np": lambda: x.transpose(np.int64(0), np.int64(1)),
        "reshape_np_neg": lambda: x.reshape(np.int64(-1)),
        "repeat_np": lambda: x.repeat(np.int64(2), 1),
        "new_full_np": lambda: x.new_full((np.int64(2),), np.float64(7)),
        "arange_np": lambda: T.arange(np.int64(3)),
        "arange_np_float": lambda: T.arange(np.float64(0.5), 2),
        "mul_np_int8": lambda: x.mul(np.int8(2)),
        "add_np_bool": lambda: T.tensor([True, False]).add(np.bool_(True)),
        "mul_int_np_float32": lambda: T.tensor([1, 2]).mul(np.float32(0.5)),
        "clamp_np_float32": lambda: x.clamp(np.float32(1.5)),
        "full_np_float32": lambda: T.full((2,), np.float32(0.5)),
        "lerp_np_float16": lambda: x.lerp(x * 2, np.float16(0.5)),
        "index_np_bool_array": lambda: x[np.array([True, False])],
        "index_np_int32_array": lambda: x[np.array([1, 0], dtype=np.int32)],
        "index_np_int_array_2d": lambda: x[:, np.array([[0, 2], [1, 1]])],
        "index_np_int_array_pair": lambda: x[np.array([0, 1]), np.array([2, 0])],
        "setitem_np_int_array": lambda: _set(x.clone(), np.array([1]), 9.0),
        "setitem_np_bool_array": lambda: _set(x.clone(), np.array([[True, False, True], [False, False, True]]),
                                              np.float32(-1.0)),
    }


def _set(t, index, value):
    t[index] = value
    return t


def run(T, np):
    out = {}
    for k, f in cases(T, np).items():
        try:
            r = f()
            out[k] = [str(r.dtype).split(".")[-1], list(r.shape), r.reshape(-1).tolist()]
        except Exception as e:  # noqa: BLE001 - the type is the fact
            out[k] = type(e).__name__
    return out


if __name__ == "__main__":
    if "--record" not in sys.argv:
        raise SystemExit(__doc__)
    import numpy
    import torch
    res = run(torch, numpy)
    res["_recorded_with"] = f"torch {torch.__version__}, numpy {numpy.__version__}"
    with open(DATA, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print(f"wrote {len(res) - 1} results to {DATA}")
