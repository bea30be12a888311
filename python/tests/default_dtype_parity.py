"""set_default_dtype / get_default_dtype, gathered by the same code from `torch` or `ember`: `<a Python with
torch> python/tests/default_dtype_parity.py --record` writes PyTorch's answers to data/torch_default_dtype.json;
test_default_dtype.py compares Ember's (torch is never imported there). The default is put back afterwards.
"""
import os

from parity_record import record_main

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "torch_default_dtype.json")


def _name(dt):
    return str(dt).split(".")[-1]


def _under(T):
    """What depends on the default dtype, under the one set now."""
    cases = {
        "default": lambda: _name(T.get_default_dtype()),
        "tensor_float": lambda: _name(T.tensor(1.5).dtype),
        "tensor_float_list": lambda: _name(T.tensor([1, 2.5]).dtype),
        "tensor_int_list": lambda: _name(T.tensor([1, 2]).dtype),
        "tensor_bool": lambda: _name(T.tensor([True]).dtype),
        "tensor_empty": lambda: _name(T.tensor([]).dtype),
        "tensor_float_value": lambda: T.tensor(0.1).item(),
        "zeros": lambda: _name(T.zeros(2).dtype),
        "ones_like_int": lambda: _name(T.ones_like(T.tensor([1])).dtype),
        "empty": lambda: _name(T.empty(2).dtype),
        "rand": lambda: _name(T.rand(2).dtype),
        "randn": lambda: _name(T.randn(2).dtype),
        "full_float": lambda: _name(T.full((2,), 1.5).dtype),
        "full_int": lambda: _name(T.full((2,), 3).dtype),
        "arange_int": lambda: _name(T.arange(3).dtype),
        "arange_float": lambda: _name(T.arange(0.5, 2).dtype),
        "linspace": lambda: _name(T.linspace(0, 1, 3).dtype),
        "eye": lambda: _name(T.eye(2).dtype),
        "int_times_float": lambda: _name((T.tensor([1, 2]) * 2.5).dtype),
        "int_true_divide": lambda: _name((T.tensor([1, 2]) / 2).dtype),
        "float32_plus_float": lambda: _name((T.ones(2, dtype=T.float32) + 2.5).dtype),
        "int_sqrt": lambda: _name(T.tensor([4]).sqrt().dtype),
        "finfo_default_bits": lambda: T.finfo().bits,
        "repr_float32": lambda: repr(T.tensor([1.5], dtype=T.float32)).replace("torch.", "ember."),
        "repr_float64": lambda: repr(T.tensor([1.5], dtype=T.float64)).replace("torch.", "ember."),
    }
    out = {}
    for k, f in cases.items():
        try:
            out[k] = f()
        except Exception as e:  # noqa: BLE001 - the type is the fact
            out[k] = type(e).__name__
    return out


def facts(T):
    out = {"initial": _name(T.get_default_dtype())}
    try:
        for dt in ("float32", "float64", "float16", "bfloat16"):
            try:
                T.set_default_dtype(getattr(T, dt))
            except Exception as e:  # noqa: BLE001 - the type is the fact
                out[f"set_{dt}"] = type(e).__name__
                continue
            out[f"set_{dt}"] = _under(T)
        T.set_default_dtype(T.float64)
        for bad in ("int64", "bool"):
            try:
                T.set_default_dtype(getattr(T, bad))
                out[f"set_{bad}"] = None
            except Exception as e:  # noqa: BLE001
                out[f"set_{bad}"] = type(e).__name__
        out["after_refused"] = _name(T.get_default_dtype())
    finally:
        T.set_default_dtype(T.float32)
    out["restored"] = _name(T.get_default_dtype())
    out["restored_tensor_float"] = _name(T.tensor(1.5).dtype)
    return out


if __name__ == "__main__":
    record_main(facts, DATA, __doc__)
