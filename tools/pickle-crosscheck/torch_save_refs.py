#!/usr/bin/env python3
"""Cross-check of Ember's PyTorch checkpoints against Python's real torch (a tool only: Ember never needs it).
Runs in the venv tools/pickle-crosscheck/torch-venv makes (torch from the pinned PyPI wheel in .peer/dl).

  torch_save_refs.py write DIR     torch.save the reference cases into DIR/torch_*.pt
                                   (tests/serialize/test_pickle_torchsave.cpp spells out their values)
  torch_save_refs.py check DIR     torch.load(weights_only=True) the files Ember wrote into DIR and compare
                                   them with the same cases built here with torch:
                                   - DIR/{tensors,nested,tensor_list,tensor}.pt: crosscheck.cpp's cases;
                                   - DIR/resaved_torch_*.pt: Ember's pickle_save of what it loaded from the
                                     torch_*.pt files, compared with those cases.
Every tensor is compared on dtype, sizes, strides, storage offset, storage size, the bits of every element
(so NaN payloads and -0.0 count), requires_grad, and which tensors share one storage. Exit status 1 on any
difference; each difference is printed.
"""
import collections
import math
import os
import sys

import torch


def arange_of(dtype, n):
    return torch.arange(n, dtype=torch.float64).to(dtype)


# ---- the torch.save reference cases (values kept small enough to spell out in the C++ test)

def state_dict_case():
    """A real nn.Module state_dict (OrderedDict with _metadata) holding every dtype Ember loads."""
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 2)
            self.bn = torch.nn.BatchNorm1d(2)
            inf = math.inf
            self.register_buffer("f64", torch.tensor([0.1, -2.5, 1e300, -0.0, math.nan], dtype=torch.float64))
            self.register_buffer("f16", torch.tensor([0.5, -65504.0, 6.103515625e-05, 5.960464477539063e-08, inf],
                                                     dtype=torch.float16))
            self.register_buffer("bf16", torch.tensor([1.0, -2.5, 3.140625, 3.3895313892515355e38, -inf],
                                                      dtype=torch.bfloat16))
            self.register_buffer("i64", torch.tensor([-2**63, -1, 2**63 - 1], dtype=torch.int64))
            self.register_buffer("i32", torch.tensor([-2**31, 7, 2**31 - 1], dtype=torch.int32))
            self.register_buffer("i16", torch.tensor([-32768, 32767, -1], dtype=torch.int16))
            self.register_buffer("i8", torch.tensor([-128, 127, 0], dtype=torch.int8))
            self.register_buffer("u8", torch.tensor([0, 255, 17], dtype=torch.uint8))
            self.register_buffer("mask", torch.tensor([[True, False], [False, True]]))

    torch.manual_seed(0)
    m = Net()
    with torch.no_grad():
        m.fc.weight.copy_(torch.tensor([[1.5, -0.0, 3.4028234663852886e38],
                                        [1.401298464324817e-45, math.inf, -math.inf]]))
        m.fc.bias.copy_(torch.tensor([0.25, -0.75]))
        m.bn.weight.copy_(torch.tensor([2.0, 0.5]))
        m.bn.bias.copy_(torch.tensor([-1.0, 1.0]))
        m.bn.running_mean.copy_(torch.tensor([0.125, -0.125]))
        m.bn.running_var.copy_(torch.tensor([4.0, 0.0625]))
        m.bn.num_batches_tracked.fill_(3)
    return m.state_dict()


def misc_case():
    """Views of one storage, non-contiguous tensors, 0-dim and empty tensors, a Parameter, nested containers."""
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    steps = torch.arange(10, dtype=torch.float64)
    return {
        "base": base,
        "view": base[1:3, 1:3],             # [2, 2], strides [4, 1], offset 5, base's storage
        "t": base.t(),                      # [4, 3], strides [1, 4], base's storage
        "row": base[2],                     # [4], offset 8, base's storage
        "step": steps[1::3],                # [3], stride 3, offset 1, a storage of 10 doubles
        "bf16_t": torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.bfloat16).t(),
        "expanded": torch.tensor([7, -8], dtype=torch.int32).reshape(2, 1).expand(2, 3),  # strides [1, 0]
        "scalar": torch.tensor(3.25),
        "scalar_i64": torch.tensor(-7),
        "scalar_bool": torch.tensor(True),
        "empty": torch.zeros(0, 3),
        "empty_i64": torch.zeros(0, dtype=torch.int64),
        "param": torch.nn.Parameter(torch.tensor([0.5, -1.5])),
        "nested": {
            "list": [1, 2.5, "x", torch.tensor([1, 2], dtype=torch.int16), [None, False]],
            "tuple": (1, "a", 2.0, None),
            "dict": {"a": torch.tensor(0.5, dtype=torch.float64), "inner": {"b": []}},
            "ints": [1, -2, 3],
            "intkeys": {1: "one", -2: "minus two"},
        },
        "none": None, "true": True, "false": False,
        "int": 42, "neg": -3, "u16max": 65535, "u16max1": 65536, "i32min": -2**31,
        "big": 2**40, "min": -2**63, "max": 2**63 - 1,
        "double": -0.125, "inf": math.inf,
        "str": "h\u00e9llo\n", "empty_str": "",
    }


def tensor_list_case():
    """A list of tensors: [a, a.t(), a[:, 1:3]] over one storage (also crosscheck.cpp's tensor_list case)."""
    x = torch.arange(6, dtype=torch.int64).reshape(2, 3)
    return [x, x.t(), x[:, 1:3]]


REFERENCES = {"torch_state_dict.pt": state_dict_case, "torch_misc.pt": misc_case,
              "torch_tensor_list.pt": tensor_list_case}


# ---- crosscheck.cpp's cases (what Ember writes), built again here with torch

def ember_tensors_case():
    inf, nan = math.inf, math.nan
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    return collections.OrderedDict([
        ("f32", torch.tensor([1.5, -0.0, 3.4e38, 1.401298464324817e-45, inf, -inf], dtype=torch.float64)
         .float().reshape(2, 3)),
        ("f64", torch.tensor([0.1, -2.5, 1e300, nan], dtype=torch.float64)),
        ("i64", torch.tensor([-2**63, -1, 2**63 - 1], dtype=torch.int64)),
        ("i32", torch.tensor([-2**31, 7], dtype=torch.int32)),
        ("i16", torch.tensor([-32768, 32767], dtype=torch.int16)),
        ("i8", torch.tensor([-128, 127, 0], dtype=torch.int8)),
        ("u8", torch.tensor([0, 255, 17], dtype=torch.uint8)),
        ("bool", torch.tensor([True, False, True])),
        ("bf16", torch.tensor([1.0, -2.5, 3.140625, 256.0], dtype=torch.float64).to(torch.bfloat16)),
        ("f16", torch.tensor([0.5, -65504.0, 6.103515625e-05, 1.0009765625], dtype=torch.float64).to(torch.float16)),
        ("base", base),
        ("view", base[1:3, 1:3]),
        ("t", base.t()),
        ("step", torch.arange(10, dtype=torch.float64)[1::3]),
        ("scalar", torch.tensor(3.25, dtype=torch.float32)),
        ("scalar_i64", torch.tensor(-7, dtype=torch.int64)),
        ("empty", torch.zeros(0, 3)),
        ("empty_i64", torch.zeros(0, dtype=torch.int64)),
    ])


def ember_nested_case():
    return {
        "none": None, "true": True, "false": False, "int": 42, "neg": -3, "u16max": 65535, "u16max1": 65536,
        "i32min": -2**31, "big": 2**40, "min": -2**63, "max": 2**63 - 1, "double": -0.125, "inf": math.inf,
        "str": "h\u00e9llo\n", "empty_str": "",
        "list": [1, 2.5, "x", torch.tensor([1, 2], dtype=torch.int32), [None, False]],
        "ints": [1, -2, 3],
        "tuple": (1, "a", 2.0, None),
        "tuple1": (7,),
        "intkeys": {1: "one", -2: "minus two"},
        "nested": {"a": torch.tensor(0.5, dtype=torch.float64), "inner": {"b": []}},
        "empty_list": [],
        "empty_dict": {},
    }


def ember_tensor_case():
    return torch.tensor([1, 2, 3, 4, 5, 6], dtype=torch.float64).to(torch.bfloat16).reshape(2, 3).t()


EMBER_FILES = {"tensors.pt": ember_tensors_case, "nested.pt": ember_nested_case,
               "tensor_list.pt": tensor_list_case, "tensor.pt": ember_tensor_case}


# ---- comparison

BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def bits_of(t):
    """The elements' bit patterns as integers (so NaN == NaN and -0.0 != 0.0)."""
    t = t.detach().contiguous()
    if t.dtype == torch.bool:
        return t.to(torch.uint8).reshape(-1).tolist()
    return t.view(BITS[t.element_size()]).reshape(-1).tolist()


class Compare:
    def __init__(self, name):
        self.name, self.errors, self.tensors = name, [], 0
        self.got_storages, self.want_storages = {}, {}  # data_ptr -> id of the first path seen

    def fail(self, path, msg):
        self.errors.append("%s%s: %s" % (self.name, path, msg))

    def tensor(self, path, got, want):
        self.tensors += 1
        for what, g, w in (("dtype", got.dtype, want.dtype), ("sizes", tuple(got.shape), tuple(want.shape)),
                           ("strides", got.stride(), want.stride()),
                           ("storage_offset", got.storage_offset(), want.storage_offset()),
                           ("storage bytes", got.untyped_storage().nbytes(), want.untyped_storage().nbytes()),
                           ("requires_grad", got.requires_grad, want.requires_grad),
                           ("device", got.device, want.device)):
            if g != w:
                self.fail(path, "%s %s, expected %s" % (what, g, w))
                return
        if bits_of(got) != bits_of(want):
            self.fail(path, "values %s, expected %s" % (got.tolist(), want.tolist()))
        # Storage sharing: tensors share a storage in `got` exactly when they do in `want` (storages of no
        # bytes have no address to tell them apart). An nn.Parameter is expected back as a tensor with
        # requires_grad set: Ember has no Parameter type and writes it as one.
        if want.untyped_storage().nbytes() == 0:
            return
        g = self.got_storages.setdefault(got.untyped_storage().data_ptr(), path)
        w = self.want_storages.setdefault(want.untyped_storage().data_ptr(), path)
        if g != w:
            self.fail(path, "shares a storage with %s, expected with %s" % (g, w))

    def value(self, path, got, want):
        if isinstance(want, torch.Tensor):
            if not isinstance(got, torch.Tensor):
                return self.fail(path, "%s, expected a tensor" % type(got).__name__)
            return self.tensor(path, got, want)
        # Ember writes tuples as tuples, lists as lists and every dict as a dict (OrderedDict loads as one).
        kinds = (bool, int, float, str, type(None), list, tuple, dict)
        gk = next((k for k in kinds if isinstance(got, k)), type(got))
        wk = next((k for k in kinds if isinstance(want, k)), type(want))
        if gk is not wk:
            return self.fail(path, "%s %r, expected %s %r" % (type(got).__name__, got, type(want).__name__, want))
        if isinstance(want, dict):
            if list(got.keys()) != list(want.keys()):
                return self.fail(path, "keys %s, expected %s" % (list(got.keys()), list(want.keys())))
            for k in want:
                self.value("%s[%r]" % (path, k), got[k], want[k])
        elif isinstance(want, (list, tuple)):
            if len(got) != len(want):
                return self.fail(path, "length %d, expected %d" % (len(got), len(want)))
            for i, (g, w) in enumerate(zip(got, want)):
                self.value("%s[%d]" % (path, i), g, w)
        elif isinstance(want, float):
            if not (got == want or (math.isnan(got) and math.isnan(want))) or math.copysign(1, got) != math.copysign(1, want):
                self.fail(path, "%r, expected %r" % (got, want))
        elif got != want:
            self.fail(path, "%r, expected %r" % (got, want))


def check(path, want):
    c = Compare(os.path.basename(path))
    try:
        got = torch.load(path, weights_only=True)
    except Exception as e:  # report and go on with the other files
        c.fail("", "torch.load(weights_only=True) failed: %s" % e)
        return c
    c.value("", got, want)
    return c


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        sys.exit("usage: torch_save_refs.py write DIR | check DIR")
    mode, d = sys.argv[1], sys.argv[2]
    if mode == "write":
        os.makedirs(d, exist_ok=True)
        for name, case in REFERENCES.items():
            torch.save(case(), os.path.join(d, name))
            print("wrote %s (%d bytes) with torch %s" % (name, os.path.getsize(os.path.join(d, name)),
                                                        torch.__version__))
        return
    results = [(n, check(os.path.join(d, n), case())) for n, case in EMBER_FILES.items()]
    results += [("resaved_" + n, check(os.path.join(d, "resaved_" + n), case())) for n, case in REFERENCES.items()]
    fail = False
    for name, c in results:
        for e in c.errors:
            print("MISMATCH " + e)
        fail |= bool(c.errors)
        print("%s: torch %s torch.load(weights_only=True): %s (%d tensors compared)"
              % (name, torch.__version__, "differs" if c.errors else "equal", c.tensors))
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
