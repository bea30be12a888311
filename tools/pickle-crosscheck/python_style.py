#!/usr/bin/env python3
"""Writes tests/data/pickle/python_*.pt: checkpoints laid out as Python's torch.save lays them out, pickled
by Python's own pickle module (protocol 2), for machines where `import torch` is not available.

torch.save pickles a tensor through Tensor.__reduce_ex__, which returns
  (torch._utils._rebuild_tensor_v2, (storage, storage_offset, tuple(size), stride, requires_grad, OrderedDict()))
and each storage through persistent_id as ('storage', torch.<Type>Storage, key, location, numel), its bytes going
to the record <archive>/data/<key>, where <archive> is the file's stem. Stand-ins registered under those module
names let the standard pickler emit exactly those opcodes (GLOBAL, BINPERSID, REDUCE, memo puts and gets,
BUILD for the state_dict's _metadata attribute) without torch installed.
Usage: python3 tools/pickle-crosscheck/python_style.py [OUT_DIR]   (default tests/data/pickle)
"""
import collections
import io
import os
import pickle
import struct
import sys
import types
import zipfile

torch = types.ModuleType("torch")
torch_utils = types.ModuleType("torch._utils")
sys.modules["torch"] = torch
sys.modules["torch._utils"] = torch_utils
torch._utils = torch_utils


def _rebuild_tensor_v2(*args):
    raise RuntimeError("stand-in: never called when writing")


_rebuild_tensor_v2.__module__ = "torch._utils"
torch_utils._rebuild_tensor_v2 = _rebuild_tensor_v2

FORMATS = {"FloatStorage": "f", "DoubleStorage": "d", "LongStorage": "q", "IntStorage": "i", "ShortStorage": "h",
           "CharStorage": "b", "ByteStorage": "B", "BoolStorage": "?", "HalfStorage": "e", "BFloat16Storage": "H"}
for name in FORMATS:
    cls = type(name, (), {"__module__": "torch"})
    setattr(torch, name, cls)


class Storage:
    def __init__(self, kind, values):
        self.kind, self.values = kind, values

    def data(self):
        return struct.pack("<%d%s" % (len(self.values), FORMATS[self.kind]), *self.values)


class Tensor:
    def __init__(self, storage, offset, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, offset, size, stride

    def __reduce_ex__(self, proto):
        return (_rebuild_tensor_v2, (self.storage, self.offset, tuple(self.size), tuple(self.stride), False,
                                     collections.OrderedDict()))


def save(obj, path):
    keys = {}

    def persistent_id(o):
        if isinstance(o, Storage):
            key = keys.setdefault(id(o), str(len(keys)))
            return ("storage", getattr(torch, o.kind), key, "cpu", len(o.values))
        return None

    buf = io.BytesIO()
    p = pickle.Pickler(buf, protocol=2)
    p.persistent_id = persistent_id
    p.dump(obj)
    storages = {}

    def collect(o):
        if isinstance(o, Tensor):
            storages.setdefault(id(o.storage), o.storage)
        elif isinstance(o, dict):
            for v in o.values():
                collect(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                collect(v)
    collect(obj)
    stem = os.path.splitext(os.path.basename(path))[0]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr(stem + "/data.pkl", buf.getvalue())
        z.writestr(stem + "/.format_version", "1")
        z.writestr(stem + "/.storage_alignment", "64")
        z.writestr(stem + "/byteorder", "little")
        for sid, s in storages.items():
            z.writestr(stem + "/data/" + keys[sid], s.data())
        z.writestr(stem + "/version", "3\n")
        z.writestr(stem + "/.data/serialization_id", "0123456789012345678901234567890123456789")


def bf16(x):
    return struct.unpack("<I", struct.pack("<f", x))[0] >> 16


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/pickle"
    # A state_dict as nn.Module.state_dict() returns it: an OrderedDict with a _metadata attribute.
    sd = collections.OrderedDict()
    sd["weight"] = Tensor(Storage("FloatStorage", [0.5 * i - 1 for i in range(6)]), 0, [2, 3], [3, 1])
    sd["bias"] = Tensor(Storage("FloatStorage", [0.25, -0.75]), 0, [2], [1])
    sd._metadata = collections.OrderedDict([("", {"version": 1})])
    save(sd, os.path.join(out, "python_state_dict.pt"))
    # Shared storages, a transposed bfloat16 view, a big int and more than 256 memo entries (LONG_BINPUT/GET).
    shared = Storage("BFloat16Storage", [bf16(v) for v in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)])
    d = {"words": ["w%d" % i for i in range(300)],
         "a": Tensor(shared, 0, [2, 3], [3, 1]),
         "a_t": Tensor(shared, 0, [3, 2], [1, 3]),
         "tail": Tensor(shared, 4, [2], [1]),
         "ids": Tensor(Storage("LongStorage", [2**40, -5]), 0, [2], [1]),
         "big": 2**62, "neg": -2**40, "f": 1.5, "t": (1, 2, 3, 4)}
    save(d, os.path.join(out, "python_misc.pt"))


if __name__ == "__main__":
    main()
