#!/usr/bin/env python3
"""Ember's C ABI from Python with nothing but ctypes: no compiler, no binding library.

    python3 examples/python-ctypes/ember_ctypes.py build/libember.so

Loads libember.so, gets the API table (EmberGetApi), builds tensors from Python-owned buffers and
runs ops both ways a binding can: through the boxed entry point (CallOp: an op name and an array
of tagged EmberValues — what a generated binding uses) and through a typed slot of the EmberOps
table, found by OpFind. Version 2 of the table: DLPack exchange both ways (a Python-declared
DLManagedTensorVersioned, read and written without copies) and seeded generators. Checks every
value against plain Python arithmetic and exits non-zero on any mismatch; the ctest
c_abi.python_ctypes runs it.
"""
import ctypes as C
import math
import sys

# ---------------------------------------------------------------- the C declarations we use
EMBER_API_VERSION = 2
EMBER_FLOAT32, EMBER_FLOAT64, EMBER_INT64 = 6, 7, 4
NONE, TENSOR, INT, DOUBLE, BOOL, DTYPE = 0, 1, 2, 3, 4, 5
INT_LIST, TENSOR_LIST, GENERATOR = 10, 13, 14
EMBER_ERROR, EMBER_INVALID_ARGUMENT, EMBER_NOT_FOUND = 1, 2, 4


class Value(C.Structure):  # EmberValue
    _fields_ = [("tag", C.c_int32), ("aux", C.c_int32), ("i", C.c_int64), ("d", C.c_double), ("p", C.c_void_p)]


class Device(C.Structure):  # EmberDevice
    _fields_ = [("type", C.c_int32), ("index", C.c_int32)]


# DLPack 1.x (dlpack.h): only what this script reads and writes.
class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32), ("dtype", DLDataType),
                ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class DLManagedTensorVersioned(C.Structure):
    pass


DLDeleterV = C.CFUNCTYPE(None, C.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("major", C.c_uint32), ("minor", C.c_uint32), ("manager_ctx", C.c_void_p),
                                     ("deleter", DLDeleterV), ("flags", C.c_uint64), ("dl_tensor", DLTensor)]
kDLCPU, kDLFloat = 1, 2

P = C.c_void_p  # EmberTensor*, EmberStatus*, EmberGenerator*
PP = C.POINTER(C.c_void_p)
I64P = C.POINTER(C.c_int64)
SZ = C.c_size_t
F = C.CFUNCTYPE
Deleter = F(None, C.c_void_p, C.c_void_p)


class Api(C.Structure):  # EmberApi, version 1, in declaration order (ember.h)
    _fields_ = [
        ("version", C.c_uint32), ("reserved", C.c_uint32), ("ops", C.c_void_p),
        ("VersionString", F(C.c_char_p)),
        ("StatusMessage", F(C.c_char_p, P)), ("StatusCode", F(C.c_int32, P)), ("ReleaseStatus", F(None, P)),
        ("TensorEmpty", F(P, I64P, SZ, C.c_int32, C.POINTER(Device), PP)),
        ("TensorZeros", F(P, I64P, SZ, C.c_int32, C.POINTER(Device), PP)),
        ("TensorFromBuffer", F(P, C.c_void_p, I64P, SZ, I64P, C.c_int32, C.POINTER(Device), Deleter, C.c_void_p, PP)),
        ("TensorRetain", F(P, P, PP)), ("ReleaseTensor", F(None, P)), ("ReleaseTensorArray", F(None, PP, SZ)),
        ("TensorDType", F(P, P, C.POINTER(C.c_int32))), ("TensorDim", F(P, P, C.POINTER(SZ))),
        ("TensorShape", F(P, P, I64P, SZ, C.POINTER(SZ))), ("TensorStrides", F(P, P, I64P, SZ, C.POINTER(SZ))),
        ("TensorNumel", F(P, P, I64P)), ("TensorDevice", F(P, P, C.POINTER(Device))),
        ("TensorData", F(P, P, PP)),
        ("TensorContiguous", F(P, P, PP)), ("TensorClone", F(P, P, PP)), ("TensorTo", F(P, P, C.c_int32, PP)),
        ("TensorToDevice", F(P, P, C.POINTER(Device), PP)),
        ("TensorSetRequiresGrad", F(P, P, C.c_bool)), ("TensorRequiresGrad", F(P, P, C.POINTER(C.c_bool))),
        ("TensorGrad", F(P, P, PP)), ("Backward", F(P, P, P, C.c_bool)),
        ("SetGradEnabled", F(P, C.c_bool, C.POINTER(C.c_bool))), ("IsGradEnabled", F(C.c_bool)),
        ("OpCount", F(SZ)), ("OpFind", F(P, C.c_char_p, C.POINTER(SZ))), ("OpSchema", F(C.c_char_p, SZ)),
        ("CallOp", F(P, C.c_char_p, C.POINTER(Value), SZ, C.POINTER(Value), SZ, C.POINTER(SZ))),
        ("CallOpIndex", F(P, SZ, C.POINTER(Value), SZ, C.POINTER(Value), SZ, C.POINTER(SZ))),
        ("ReleaseValues", F(None, C.POINTER(Value), SZ)),
        ("SaveTensors", F(P, C.c_char_p, P, P, SZ)), ("LoadTensors", F(P, C.c_char_p, P, P, C.POINTER(SZ))),
        ("ReleaseNames", F(None, P, SZ)),
        # version 2
        ("TensorToDLPackVersioned", F(P, P, C.POINTER(C.POINTER(DLManagedTensorVersioned)))),
        ("TensorToDLPack", F(P, P, PP)),
        ("TensorFromDLPackVersioned", F(P, C.POINTER(DLManagedTensorVersioned), PP)),
        ("TensorFromDLPack", F(P, P, PP)),
        ("GeneratorCreate", F(P, C.c_uint64, C.POINTER(Device), PP)),
        ("GeneratorDefault", F(P, C.POINTER(Device), PP)), ("GeneratorClone", F(P, P, PP)),
        ("GeneratorManualSeed", F(P, P, C.c_uint64)), ("GeneratorInitialSeed", F(P, P, C.POINTER(C.c_uint64))),
        ("GeneratorGetState", F(P, P, PP)), ("GeneratorSetState", F(P, P, P)), ("ReleaseGenerator", F(None, P)),
    ]


failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def main():
    lib = C.CDLL(sys.argv[1] if len(sys.argv) > 1 else "build/libember.so")
    lib.EmberGetApi.restype = C.POINTER(Api)
    lib.EmberGetApi.argtypes = [C.c_uint32]
    expect(not lib.EmberGetApi(EMBER_API_VERSION + 1000), "EmberGetApi refuses a version from the future")
    api = lib.EmberGetApi(EMBER_API_VERSION).contents
    print("Ember", api.VersionString().decode(), "API version", api.version, "-", api.OpCount(), "ops")

    def check(st, what):
        if st:
            msg = api.StatusMessage(st).decode()
            api.ReleaseStatus(st)
            raise RuntimeError(f"{what}: {msg}")

    freed = []

    @Deleter
    def on_free(data, ctx):
        freed.append(ctx)

    keep = []  # Python-owned buffers: alive until their deleter ran

    def tensor(values, shape, ctx):
        buf = (C.c_double * len(values))(*values)
        keep.append(buf)
        dims = (C.c_int64 * len(shape))(*shape)
        out = P()
        check(api.TensorFromBuffer(C.cast(buf, C.c_void_p), dims, len(shape), None, EMBER_FLOAT64, None, on_free,
                                   C.c_void_p(ctx), C.byref(out)), "TensorFromBuffer")
        return out

    def values(t):
        t2 = P()
        check(api.TensorContiguous(t, C.byref(t2)), "TensorContiguous")
        n = C.c_int64()
        check(api.TensorNumel(t2, C.byref(n)), "TensorNumel")
        data = C.c_void_p()
        check(api.TensorData(t2, C.byref(data)), "TensorData")
        out = list((C.c_double * n.value).from_address(data.value))
        api.ReleaseTensor(t2)
        return out

    def shape(t):
        dims = (C.c_int64 * 8)()
        nd = SZ()
        check(api.TensorShape(t, dims, 8, C.byref(nd)), "TensorShape")
        return list(dims[:nd.value])

    a_vals, b_vals = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.5, -1.0, 2.0, 0.25, 3.0, -2.0]
    a, b = tensor(a_vals, [2, 3], 1), tensor(b_vals, [2, 3], 2)

    # Boxed: add.Tensor(self, other, *, alpha=2) by name.
    args = (Value * 3)(Value(TENSOR, 0, 0, 0, a), Value(TENSOR, 0, 0, 0, b), Value(INT, 0, 2, 0, None))
    res = (Value * 1)()
    n = SZ()
    check(api.CallOp(b"add.Tensor", args, 3, res, 1, C.byref(n)), "CallOp add.Tensor")
    c = P(res[0].p)
    expect(n.value == 1 and res[0].tag == TENSOR, "CallOp returns one TENSOR")
    expect(shape(c) == [2, 3], "add shape [2, 3]")
    expect(values(c) == [x + 2 * y for x, y in zip(a_vals, b_vals)], "add.Tensor(a, b, alpha=2) == a + 2 b")

    # Boxed with a default left out (NONE) and a list argument: sum.dim_IntList(c, [1]).
    args = (Value * 4)(Value(TENSOR, 0, 0, 0, c), Value(INT_LIST, 0, 1, 0, C.cast((C.c_int64 * 1)(1), C.c_void_p)),
                       Value(NONE), Value(NONE))
    res2 = (Value * 1)()
    check(api.CallOp(b"sum.dim_IntList", args, 4, res2, 1, C.byref(n)), "CallOp sum.dim_IntList")
    s = P(res2[0].p)
    want = [sum(x + 2 * y for x, y in zip(a_vals[r * 3:r * 3 + 3], b_vals[r * 3:r * 3 + 3])) for r in range(2)]
    expect(values(s) == want, f"sum(c, dim=[1]) == {want}")

    # Typed: the exp slot of the EmberOps table, found by OpFind (slot k follows two 64-bit words).
    idx = SZ()
    check(api.OpFind(b"exp", C.byref(idx)), "OpFind exp")
    expect(api.OpSchema(idx.value).decode() == "exp(Tensor self) -> Tensor", "OpSchema(exp)")
    slots = C.cast(api.ops, C.POINTER(C.c_void_p))
    expect(slots[0] == api.OpCount(), "EmberOps.num_ops == OpCount()")
    exp_fn = F(P, P, PP)(slots[2 + idx.value])
    e = P()
    check(exp_fn(a, C.byref(e)), "ops->exp")
    expect(all(abs(x - math.exp(y)) <= 1e-12 * math.exp(y) for x, y in zip(values(e), a_vals)), "ops->exp(a) == exp(a)")

    # Autograd: d/da sum(a * a) = 2 a.
    check(api.TensorSetRequiresGrad(a, True), "TensorSetRequiresGrad")
    args = (Value * 2)(Value(TENSOR, 0, 0, 0, a), Value(TENSOR, 0, 0, 0, a))
    sq = (Value * 1)()
    check(api.CallOp(b"mul.Tensor", args, 2, sq, 1, C.byref(n)), "mul")
    args = (Value * 2)(Value(TENSOR, 0, 0, 0, sq[0].p), Value(NONE))
    tot = (Value * 1)()
    check(api.CallOp(b"sum", args, 2, tot, 1, C.byref(n)), "sum")
    check(api.Backward(tot[0].p, None, False), "Backward")
    g = P()
    check(api.TensorGrad(a, C.byref(g)), "TensorGrad")
    expect(values(g) == [2 * x for x in a_vals], "grad of sum(a*a) == 2a")

    # Errors come back as statuses with "[op]" messages, never as a crash.
    bad = tensor([1.0, 2.0], [2], 3)
    args = (Value * 3)(Value(TENSOR, 0, 0, 0, a), Value(TENSOR, 0, 0, 0, bad), Value(NONE))
    st = api.CallOp(b"add.Tensor", args, 3, res, 1, C.byref(n))
    msg = api.StatusMessage(st).decode() if st else ""
    expect(st and api.StatusCode(st) == EMBER_ERROR and msg.startswith("[add]"), f"shape mismatch -> status: {msg}")
    api.ReleaseStatus(st)
    st = api.CallOp(b"no_such_op", args, 3, res, 1, C.byref(n))
    expect(st and api.StatusCode(st) == EMBER_NOT_FOUND, "unknown op -> EMBER_NOT_FOUND")
    api.ReleaseStatus(st)
    st = exp_fn(None, C.byref(e))
    msg = api.StatusMessage(st).decode() if st else ""
    expect(st and api.StatusCode(st) == EMBER_INVALID_ARGUMENT and msg.startswith("[exp]"), f"null handle -> status: {msg}")
    api.ReleaseStatus(st)

    # DLPack out: the transpose of `a` as a DLPack 1.x wrapper, read here through its shape and
    # strides (no copy: its data is a's buffer).
    args = (Value * 1)(Value(TENSOR, 0, 0, 0, a))
    tr = (Value * 1)()
    check(api.CallOp(b"t", args, 1, tr, 1, C.byref(n)), "CallOp t")
    m = C.POINTER(DLManagedTensorVersioned)()
    check(api.TensorToDLPackVersioned(tr[0].p, C.byref(m)), "TensorToDLPackVersioned")
    dl = m.contents.dl_tensor
    dims, steps = [dl.shape[k] for k in range(dl.ndim)], [dl.strides[k] for k in range(dl.ndim)]
    expect((m.contents.major, dl.device.device_type, dl.dtype.code, dl.dtype.bits) == (1, kDLCPU, kDLFloat, 64),
           "DLPack version 1, kDLCPU, float64")
    expect(dims == [3, 2] and steps == [1, 3], f"exported transpose: shape {dims}, strides {steps}")
    expect(dl.data == C.cast(keep[0], C.c_void_p).value, "exported data is a's own buffer")
    elems = (C.c_double * 6).from_address(dl.data)
    expect([[elems[i * steps[0] + j * steps[1]] for j in range(2)] for i in range(3)] ==
           [[a_vals[j * 3 + i] for j in range(2)] for i in range(3)], "elements read through the DLTensor == a.T")
    api.ReleaseValues(tr, 1)
    m.contents.deleter(m)  # the consumer's part: once, when done

    # DLPack in: a Python-owned buffer described by a Python-built wrapper; Ember shares it.
    imported = []

    @DLDeleterV
    def dl_deleter(mt):
        imported.append(mt.contents.manager_ctx)

    xs = (C.c_double * 4)(1.0, -2.0, 3.5, 0.25)
    x_shape = (C.c_int64 * 2)(2, 2)
    w = DLManagedTensorVersioned(1, 1, 77, dl_deleter, 0,
                                 DLTensor(C.cast(xs, C.c_void_p), DLDevice(kDLCPU, 0), 2, DLDataType(kDLFloat, 64, 1),
                                          C.cast(x_shape, C.POINTER(C.c_int64)), None, 0))
    x = P()
    check(api.TensorFromDLPackVersioned(C.byref(w), C.byref(x)), "TensorFromDLPackVersioned")
    expect(shape(x) == [2, 2] and values(x) == list(xs), "imported tensor has the buffer's values")
    args = (Value * 2)(Value(TENSOR, 0, 0, 0, x), Value(DOUBLE, 0, 0, 10.0, None))
    check(api.CallOp(b"mul_.Scalar", args, 2, res, 1, C.byref(n)), "CallOp mul_.Scalar")
    api.ReleaseValues(res, 1)
    expect(list(xs) == [10.0, -20.0, 35.0, 2.5], "Ember's in-place write landed in the Python buffer")
    expect(imported == [], "the producer's deleter waits for the last handle")
    api.ReleaseTensor(x)
    expect(imported == [77], "the producer's deleter ran once, with its wrapper")
    w.major = 2  # a major version this library does not know: refused, not consumed
    st = api.TensorFromDLPackVersioned(C.byref(w), C.byref(x))
    msg = api.StatusMessage(st).decode() if st else ""
    expect(st and msg.startswith("[fromDLPack] expected DLPack major version 1"), f"DLPack 2.x -> status: {msg}")
    api.ReleaseStatus(st)
    expect(imported == [77], "a refused wrapper's deleter is not called")

    # Generators: two seeded alike give the same randn, a third does not.
    def randn(gen, count):
        size = (C.c_int64 * 1)(count)
        args = (Value * 6)(Value(INT_LIST, 0, 1, 0, C.cast(size, C.c_void_p)), Value(GENERATOR, 0, 0, 0, gen),
                           Value(DTYPE, 0, EMBER_FLOAT64, 0, None), Value(NONE), Value(NONE), Value(NONE))
        out = (Value * 1)()
        check(api.CallOp(b"randn.generator", args, 6, out, 1, C.byref(n)), "CallOp randn.generator")
        v = values(out[0].p)
        api.ReleaseValues(out, 1)
        return v

    gens = []
    for seed in (1, 1, 2):
        gen = P()
        check(api.GeneratorCreate(seed, None, C.byref(gen)), "GeneratorCreate")
        gens.append(gen)
    r1, r2, r3 = (randn(gen, 8) for gen in gens)
    expect(r1 == r2 and r1 != r3, "generators seeded alike draw alike, another seed differs")
    # libtorch's torch::manual_seed(1); torch::randn({8}, torch::kDouble) starts 0.66135217157045223.
    expect(r1[0] == 0.66135217157045223, f"randn with seed 1 starts as libtorch's ({r1[0]!r})")
    for gen in gens:
        api.ReleaseGenerator(gen)

    # Release everything; each buffer's deleter runs once, when its last reference goes.
    api.ReleaseValues(res, 1)
    api.ReleaseValues(res2, 1)
    api.ReleaseValues(sq, 1)
    api.ReleaseValues(tot, 1)
    for t in (e, g, bad, b):
        api.ReleaseTensor(t)
    expect(sorted(freed) == [2, 3], f"deleters of b and bad ran once each (freed {sorted(freed)})")
    api.ReleaseTensor(a)
    expect(sorted(freed) == [1, 2, 3], "a's deleter ran when its last reference (the handle) went")

    if failures:
        print(f"{len(failures)} checks failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
