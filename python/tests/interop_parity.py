"""Interop behaviour gathered by the same code from `torch` or `ember` (with NumPy): DLPack capsule names
and fields, the exception types of interop errors, the dtypes that tensor()/as_tensor() give NumPy
data, and which calls share memory. test_interop.py compares Ember's answers with PyTorch's, recorded
in data/torch_interop.json by `<a Python with torch and numpy> python/tests/interop_parity.py --record`
(the tests never import torch).
"""
import copy
import ctypes
import io
import json
import os
import pickle
import sys
import warnings
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "torch_interop.json")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _Versioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_capi = ctypes.pythonapi
_capi.PyCapsule_GetName.restype = ctypes.c_char_p
_capi.PyCapsule_GetName.argtypes = [ctypes.py_object]
_capi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_capi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _name(cap):
    return _capi.PyCapsule_GetName(cap).decode()


def _outcome(fn):
    """'ok', or the exception's type name; warnings are recorded as 'warns:<category>'."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 -- the type is the fact
            return type(e).__name__
    user = [x for x in w if issubclass(x.category, UserWarning)]
    return "warns:" + user[0].category.__name__ if user else "ok"


def _dtype(x):
    return str(x.dtype).split(".")[-1]


def _views_share_after_load(lib):
    base = lib.zeros(4)
    buf = io.BytesIO()
    lib.save([base, base[2:]], buf)
    buf.seek(0)
    b, v = lib.load(buf)
    b.fill_(1.0)
    return v.tolist() == [1.0, 1.0]


def _empty_zip():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/version", "3\n")
    return buf.getvalue()


def _shares_bytearray(lib):
    ba = bytearray(4)
    t = lib.asarray(ba, dtype=lib.int8)
    ba[2] = 9
    return t.tolist() == [0, 0, 9, 0]


def gather(lib, np):
    """The facts for `lib` (torch or ember)."""
    facts = {}
    t = lib.ones(2)
    facts["capsule_names"] = {
        "default": _name(t.__dlpack__()),
        "max_version=(0, 8)": _name(t.__dlpack__(max_version=(0, 8))),
        "max_version=(1, 0)": _name(t.__dlpack__(max_version=(1, 0))),
        "max_version=(1, 3)": _name(t.__dlpack__(max_version=(1, 3))),
    }
    facts["dlpack_device_cpu"] = [int(x) for x in t.__dlpack_device__()]
    fields = {}
    for name in DTYPES:
        x = lib.zeros(2, 3, dtype=getattr(lib, name)).t()
        cap = x.__dlpack__(max_version=(1, 0))
        m = ctypes.cast(_capi.PyCapsule_GetPointer(cap, b"dltensor_versioned"), ctypes.POINTER(_Versioned)).contents
        dl = m.dl_tensor
        fields[name] = {"version_major": m.major, "flags": m.flags,
                        "dtype": [dl.dtype.code, dl.dtype.bits, dl.dtype.lanes],
                        "device": [dl.device.device_type, dl.device.device_id], "ndim": dl.ndim,
                        "shape": [dl.shape[i] for i in range(dl.ndim)],
                        "strides": [dl.strides[i] for i in range(dl.ndim)],
                        "points_at_first_element": dl.data + dl.byte_offset == x.data_ptr()}
    facts["dlpack_fields"] = fields
    copied = t.__dlpack__(max_version=(1, 0), copy=True)
    facts["copy_true_flags"] = ctypes.cast(_capi.PyCapsule_GetPointer(copied, b"dltensor_versioned"),
                                           ctypes.POINTER(_Versioned)).contents.flags

    def used_capsule():
        cap = t.__dlpack__()
        lib.from_dlpack(cap)
        lib.from_dlpack(cap)

    grad = lib.ones(2, requires_grad=True)
    ro = np.arange(3.0)
    ro.flags.writeable = False
    facts["outcomes"] = {
        "numpy() of a tensor requiring grad": _outcome(lambda: grad.numpy()),
        "numpy() of bfloat16": _outcome(lambda: lib.ones(2, dtype=lib.bfloat16).numpy()),
        "np.asarray of a tensor requiring grad": _outcome(lambda: np.asarray(grad)),
        "__dlpack__ of a tensor requiring grad": _outcome(lambda: grad.__dlpack__()),
        "__dlpack__(stream='0')": _outcome(lambda: t.__dlpack__(stream="0")),
        "from_dlpack of a used capsule": _outcome(used_capsule),
        "from_dlpack of a list": _outcome(lambda: lib.from_dlpack([1, 2])),
        "from_numpy of a list": _outcome(lambda: lib.from_numpy([1.0])),
        "from_numpy of a negative stride": _outcome(lambda: lib.from_numpy(np.arange(3.0)[::-1])),
        "from_numpy of a read-only array": _outcome(lambda: lib.from_numpy(ro)),
        "from_numpy of complex64": _outcome(lambda: lib.from_numpy(np.zeros(2, dtype=np.complex64))),
        "from_numpy of object": _outcome(lambda: lib.from_numpy(np.zeros(2, dtype=object))),
        "tensor of a tensor": _outcome(lambda: lib.tensor(t)),
        "frombuffer of bytes": _outcome(lambda: lib.frombuffer(b"\x01\x02\x03\x04", dtype=lib.int8)),
        "frombuffer of an empty buffer": _outcome(lambda: lib.frombuffer(bytearray(), dtype=lib.int8)),
        "frombuffer with a partial element": _outcome(lambda: lib.frombuffer(bytearray(3), dtype=lib.int16)),
        "frombuffer with too large a count": _outcome(lambda: lib.frombuffer(bytearray(4), dtype=lib.int8, count=5)),
        "frombuffer past the end": _outcome(lambda: lib.frombuffer(bytearray(4), dtype=lib.int8, offset=4)),
        "deepcopy of a non-leaf": _outcome(lambda: copy.deepcopy(grad * 2)),
        "numpy asarray of bfloat16": _outcome(lambda: np.asarray(lib.ones(2, dtype=lib.bfloat16))),
        "__dlpack__ to CUDA with copy=False": _outcome(
            lambda: t.__dlpack__(max_version=(1, 0), dl_device=(2, 0), copy=False)),
        "__dlpack__ to Metal": _outcome(lambda: t.__dlpack__(max_version=(1, 0), dl_device=(8, 0))),
        "__dlpack__(copy=False) on its own device": _outcome(lambda: t.__dlpack__(max_version=(1, 0), copy=False)),
        "from_dlpack(device='cpu', copy=False)": _outcome(lambda: lib.from_dlpack(t, device="cpu", copy=False)),
        "from_numpy of uint16": _outcome(lambda: lib.from_numpy(np.zeros(2, dtype=np.uint16))),
        "save of object()": _outcome(lambda: lib.save(object(), io.BytesIO())),
        "save of an int beyond 64 bits": _outcome(lambda: lib.save(2 ** 70, io.BytesIO())),
        "load of bytes that are no checkpoint": _outcome(lambda: lib.load(io.BytesIO(b"not a checkpoint"))),
        "load of a zip without data.pkl": _outcome(lambda: lib.load(io.BytesIO(_empty_zip()))),
        "load of a missing file": _outcome(lambda: lib.load(os.path.join(HERE, "no-such-file.pt"))),
    }
    facts["dtypes"] = {
        "tensor(np.float64 scalar)": _dtype(lib.tensor(np.float64(2.5))),
        "tensor(np.float32 scalar)": _dtype(lib.tensor(np.float32(2.5))),
        "tensor(np.int16 scalar)": _dtype(lib.tensor(np.int16(3))),
        "tensor(np.bool_ scalar)": _dtype(lib.tensor(np.bool_(True))),
        "tensor([np.float32, np.float32])": _dtype(lib.tensor([np.float32(1), np.float32(2)])),
        "tensor([int32 array, int32 array])": _dtype(lib.tensor([np.arange(2, dtype=np.int32)] * 2)),
        "tensor(float64 array)": _dtype(lib.tensor(np.arange(2.0))),
        "tensor(uint8 array)": _dtype(lib.tensor(np.arange(2, dtype=np.uint8))),
        "as_tensor(float64 array)": _dtype(lib.as_tensor(np.arange(2.0))),
        "from_numpy(float16 array)": _dtype(lib.from_numpy(np.arange(2, dtype=np.float16))),
        "numpy() of float16": str(lib.zeros(1, dtype=lib.float16).numpy().dtype),
        "numpy() of bool": str(lib.zeros(1, dtype=lib.bool).numpy().dtype),
        "np.sin(int64 tensor)": _dtype(np.sin(lib.tensor([0, 1]))),
        "frombuffer(bytearray, float32)": _dtype(lib.frombuffer(bytearray(8), dtype=lib.float32)),
        "asarray(bytearray(8))": _dtype(lib.asarray(bytearray(8))),
        "asarray(bytearray(8), dtype=int16)": _dtype(lib.asarray(bytearray(8), dtype=lib.int16)),
    }
    a = np.arange(4.0)
    x = lib.arange(3.0) if hasattr(lib, "arange") else None
    ba = bytearray(b"\x00\x00\x80\x3f")  # 1.0f
    fb = lib.frombuffer(ba, dtype=lib.float32)
    ba[3] = 0x40  # 4.0f
    facts["sharing"] = {
        "as_tensor(t) is t": lib.as_tensor(x) is x,
        "as_tensor(t, dtype=same) is t": lib.as_tensor(x, dtype=x.dtype) is x,
        "asarray(t) is t": lib.asarray(x) is x,
        "as_tensor(array) shares": lib.as_tensor(a).data_ptr() == a.ctypes.data,
        "asarray(array) shares": lib.asarray(a).data_ptr() == a.ctypes.data,
        "from_numpy(array) shares": lib.from_numpy(a).data_ptr() == a.ctypes.data,
        "tensor(array) shares": lib.tensor(a).data_ptr() == a.ctypes.data,
        "numpy() shares": x.numpy().ctypes.data == x.data_ptr(),
        "numpy(force=True) of a tensor requiring grad shares": grad.numpy(force=True).ctypes.data == grad.data_ptr(),
        "from_dlpack(t) shares": lib.from_dlpack(x).data_ptr() == x.data_ptr(),
        "np.from_dlpack(t) shares": np.from_dlpack(x).ctypes.data == x.data_ptr(),
        "frombuffer shares": fb.tolist() == [4.0],
        "asarray(bytearray) shares": _shares_bytearray(lib),
        "ufunc on a tensor returns a tensor": isinstance(np.sin(x), lib.Tensor),
        "np.asarray(t) shares": np.asarray(x).ctypes.data == x.data_ptr(),
        "deepcopy keeps requires_grad": copy.deepcopy(grad).requires_grad,
        "pickle keeps requires_grad": pickle.loads(pickle.dumps(grad)).requires_grad,
        "pickle round trip keeps values": pickle.loads(pickle.dumps(x)).tolist() == x.tolist(),
        "load keeps views of one storage": _views_share_after_load(lib),
    }
    return facts


if __name__ == "__main__":
    if "--record" not in sys.argv:
        sys.exit("usage: <python with torch and numpy> interop_parity.py --record")
    import numpy
    import torch
    facts = gather(torch, numpy)
    facts = {"torch": torch.__version__, "numpy": numpy.__version__, **facts}
    with open(DATA, "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", DATA)
