"""ember.set_default_dtype / get_default_dtype (default_dtype_parity.py) against PyTorch 2.15's answers recorded by
the same code (data/torch_default_dtype.json; torch is never imported here)."""

import pytest

import ember
import default_dtype_parity
from parity_record import parity_tests

ours, test_same_names, test_matches_pytorch = parity_tests(default_dtype_parity)


def test_the_default_is_the_librarys_and_is_put_back():
    assert ember.get_default_dtype() is ember.float32
    try:
        ember.set_default_dtype(ember.float64)
        assert ember.get_default_dtype() is ember.float64
        # the factories of the C++ library read the same setting
        assert ember.zeros(1).dtype is ember.float64 and ember.tensor(0.1).item() == 0.1
    finally:
        ember.set_default_dtype(ember.float32)
    assert ember.tensor(0.1).dtype is ember.float32
    with pytest.raises(TypeError, match=r"^\[set_default_dtype\]"):
        ember.set_default_dtype("float64")
