"""The Tensor type's Pythonic behaviour: printing as PyTorch prints, ember.Generator and the seeded
random ops, garbage collection of reference cycles through tensors, and operators with NumPy arrays.

PyTorch's answers (repr strings, seeded random values, NumPy operator results) were recorded by
tensor_py_parity.py with torch 2.15.0 into data/torch_tensor_py.json; the CPU random streams of
libtorch and Ember are the same (Note [CPU random streams] in kernels/cpu/random.cpp), so the random
values are what the C++ API gives with the same seed.
"""
import gc
import json
import threading
import weakref

import pytest

import ember
import tensor_py_parity as parity

with open(parity.DATA) as _f:
    RECORDED = json.load(_f)["facts"]


@pytest.fixture(autouse=True)
def _default_print_options():
    yield
    ember.set_printoptions(profile="default")


# ---------------------------------------------------------------- printing
@pytest.mark.parametrize("name,expr,opts", parity.REPR_CASES, ids=[c[0] for c in parity.REPR_CASES])
def test_repr_matches_pytorch(name, expr, opts):
    ember.set_printoptions(**opts)
    assert repr(eval(expr, {"T": ember})) == RECORDED["repr"][name]


@pytest.mark.parametrize("name,expr", parity.FORMAT_CASES, ids=[c[0] for c in parity.FORMAT_CASES])
def test_str_and_format_match_pytorch(name, expr):
    assert repr(eval(expr, {"T": ember})) == RECORDED["format"][name]


def test_print_options_persist_until_reset_and_printoptions_restores():
    t = ember.tensor([1.23456, 2.5])
    ember.set_printoptions(precision=2)
    assert repr(t) == "tensor([1.23, 2.50])"
    assert repr(t) == "tensor([1.23, 2.50])"  # still set
    ember.set_printoptions(linewidth=100)  # leaves precision alone
    assert ember.get_printoptions()["precision"] == 2 and ember.get_printoptions()["linewidth"] == 100
    ember.set_printoptions(profile="default")
    assert repr(t) == "tensor([1.2346, 2.5000])"
    with ember._tensor_str.printoptions(precision=1, sci_mode=True):
        assert repr(t) == "tensor([1.2e+00, 2.5e+00])"
    assert repr(t) == "tensor([1.2346, 2.5000])"
    assert ember.get_printoptions() == dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)
    with pytest.raises(ValueError, match=r"^\[set_printoptions\]"):
        ember.set_printoptions(profile="long")


def test_repr_of_big_tensors_reads_only_the_edges():
    # A million elements print as quickly as a few: only the shown entries are formatted (the
    # string itself is the recorded case summary_million).
    t = ember.arange(1_000_000.).reshape(1000, 1000)
    s = repr(t)
    assert s.count("...") == 7 and s.count("\n") == 12


def test_repr_of_grad_fn_of_a_custom_function_uses_its_name():
    class Twice(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Twice.apply(ember.ones(2, requires_grad=True))
    assert repr(y) == f"tensor([2., 2.], grad_fn=<{type(y.grad_fn).__name__}>)"
    assert "Twice" in type(y.grad_fn).__name__


def test_repr_does_not_record_autograd_history():
    x = ember.ones(3000, requires_grad=True)  # summarized: cat/stack of edges
    repr(x * 2)
    assert x.grad is None


# ---------------------------------------------------------------- generators
def draws(g):
    return [ember.rand(3, generator=g).tolist(), ember.randn(2, generator=g).tolist(),
            ember.randint(0, 1000, (3,), generator=g).tolist()]


@pytest.mark.parametrize("name,expr", parity.RANDOM_CASES, ids=[c[0] for c in parity.RANDOM_CASES])
def test_seeded_random_ops_give_pytorch_values(name, expr):
    g = ember.Generator().manual_seed(1234)
    assert eval(expr, {"T": ember, "g": g}).tolist() == RECORDED["random"][name]


def test_same_seed_same_values_and_generators_are_independent():
    a, b = ember.Generator(), ember.Generator()
    assert a.manual_seed(7) is a and b.manual_seed(7) is b
    first = draws(a)
    ember.rand(100, generator=ember.Generator().manual_seed(7))  # a third stream moves neither
    ember.rand(100)  # nor does the default one
    assert draws(b) == first
    assert draws(a) != first  # a's stream moved on
    c = ember.Generator().manual_seed(8)
    assert draws(c) != first


def test_default_generator_and_manual_seed():
    assert isinstance(ember.default_generator, ember.Generator)
    assert ember.manual_seed(5) is ember.default_generator
    assert ember.initial_seed() == 5 and ember.default_generator.initial_seed() == 5
    x = ember.rand(4).tolist()
    assert ember.rand(4, generator=ember.Generator().manual_seed(5)).tolist() == x
    ember.manual_seed(5)
    assert ember.rand(4).tolist() == x
    assert ember.Generator().initial_seed() == 67280421310721  # a generator made without a seed
    ember.manual_seed(7.9)  # as torch.manual_seed: int(seed)
    assert ember.initial_seed() == 7


def test_seeds_follow_pytorch_ranges_and_errors():
    g = ember.Generator()
    assert g.manual_seed(-1).initial_seed() == 2 ** 64 - 1  # recorded from torch 2.15
    assert g.manual_seed(-2 ** 63).initial_seed() == 2 ** 63
    assert g.manual_seed(2 ** 64 - 1).initial_seed() == 2 ** 64 - 1
    # torch 2.15: out of range is a ValueError, another type a RuntimeError
    for bad in (2 ** 64, -2 ** 63 - 1):
        with pytest.raises(ValueError, match=r"^\[manual_seed\]"):
            g.manual_seed(bad)
    for bad in ("a", 1.5, True):
        with pytest.raises(RuntimeError, match=r"^\[manual_seed\]"):
            g.manual_seed(bad)
    with pytest.raises(TypeError, match="generator"):
        ember.rand(3, generator=5)
    with pytest.raises(RuntimeError, match=r"^\[Generator\]"):
        ember.Generator("cuda")
    assert ember.Generator("cpu").device == ember.device("cpu")


def test_seed_get_state_and_set_state():
    g = ember.Generator()
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 53 and g.initial_seed() == s
    state = g.get_state()
    assert state.dtype is ember.uint8 and state.dim() == 1
    first = draws(g)
    assert g.set_state(state) is g
    assert draws(g) == first
    # the state carries the stream, not the generator: another generator continues it too
    other = ember.Generator().manual_seed(99)
    other.set_state(state)
    assert draws(other) == first
    # the default generator through ember.get_rng_state / set_rng_state
    ember.manual_seed(3)
    saved = ember.get_rng_state()
    x = ember.randn(5).tolist()
    ember.set_rng_state(saved)
    assert ember.randn(5).tolist() == x
    with pytest.raises(TypeError, match=r"^\[Generator.set_state\]"):
        g.set_state([1, 2])
    with pytest.raises(RuntimeError, match=r"^\[Generator::set_state\]"):
        g.set_state(ember.zeros(3, dtype=ember.uint8))


def test_generators_pickle_deepcopy_and_clone_state_keep_the_stream_position():
    import copy
    import pickle
    g = ember.Generator().manual_seed(5)
    ember.rand(3, generator=g)
    for other in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g), g.clone_state()):
        assert other is not g and other.initial_seed() == 5
        assert draws(other) == draws(ember.Generator().set_state(g.get_state()))
    assert draws(g.clone_state()) == draws(g)  # the clone does not move g


def test_devices_and_dtypes_pickle():
    import copy
    import pickle
    for d in (ember.float32, ember.bfloat16, ember.int64, ember.bool):
        assert pickle.loads(pickle.dumps(d)) is d and copy.deepcopy(d) is d
    for dev in (ember.device("cpu"), ember.device("cuda", 1)):
        assert pickle.loads(pickle.dumps(dev)) == dev and copy.deepcopy(dev) == dev


def test_random_module_and_fork_rng():
    ember.random.manual_seed(11)
    assert ember.random.initial_seed() == 11
    before = ember.get_rng_state()
    with ember.random.fork_rng():
        ember.rand(10)
    assert ember.get_rng_state().tolist() == before.tolist()
    x = ember.rand(3).tolist()
    ember.random.manual_seed(11)
    assert ember.rand(3).tolist() == x


def test_generators_in_threads_give_their_own_streams():
    out = {}

    def work(k):
        g = ember.Generator().manual_seed(k)
        out[k] = [ember.rand(50, generator=g).tolist() for _ in range(20)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        g = ember.Generator().manual_seed(k)
        assert out[k] == [ember.rand(50, generator=g).tolist() for _ in range(20)]


# ---------------------------------------------------------------- GC of cycles through tensors
def collected(make):
    """make() builds a cycle and returns weak references into it; True when gc frees them all."""
    refs = make()
    gc.collect()
    return all(r() is None for r in refs)


def test_tensors_are_gc_tracked_and_weakly_referenceable():
    t = ember.ones(2)
    assert gc.is_tracked(t)
    r = weakref.ref(t)
    assert r() is t
    del t
    assert r() is None  # no cycle: freed at once
    # (no instance __dict__: it would slow every method call, see module.cpp)
    with pytest.raises(AttributeError):
        ember.ones(1).name = "w"


def test_cycle_through_a_leaf_hook_is_collected():
    def make():
        x = ember.ones(2, requires_grad=True)
        hook = lambda g: x * 0 + g  # noqa: E731 (refers to its own tensor)
        x.register_hook(hook)
        return [weakref.ref(x), weakref.ref(hook)]
    assert collected(make)


def test_cycle_through_a_non_leaf_hook_is_collected():
    def make():
        x = ember.ones(2, requires_grad=True)
        y = x * 2
        def hook(g):
            return g + y.detach()
        y.register_hook(hook)
        return [weakref.ref(y), weakref.ref(hook)]
    assert collected(make)


def test_cycle_through_a_function_ctx_attribute_is_collected():
    class Scale(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

    def make():
        y = Scale.apply(ember.ones(2, requires_grad=True))
        ctx = y.grad_fn
        ctx.out = y  # ctx -> y -> node -> ctx
        return [weakref.ref(y), weakref.ref(ctx)]
    assert collected(make)


def test_gc_keeps_hooks_of_live_tensors_working():
    seen = []
    x = ember.ones(2, requires_grad=True)
    x.register_hook(lambda g: seen.append(("leaf", x.shape)))
    y = x * 2
    y.register_hook(lambda g: seen.append(("mid", y.shape)) or g * 10)
    gc.collect()
    y.sum().backward()
    assert seen == [("mid", (2,)), ("leaf", (2,))] and x.grad.tolist() == [20.0, 20.0]


def test_a_tensor_shared_with_cpp_keeps_its_cycle_until_the_other_owner_goes():
    # While the graph (its AccumulateGrad node) and a second wrapper hold the leaf, the first
    # wrapper is not the only owner of the hooks; the GC must not free them, and backward still
    # calls the hook.
    calls = []
    x = ember.ones(4, requires_grad=True)
    x.register_hook(lambda g, x=x: calls.append(x) or None)  # (a default: `del x` keeps it)
    y = x * 2
    x2 = y.grad_fn.next_functions[0][0].variable  # another ember.Tensor of the same tensor
    r = weakref.ref(x)
    del x
    gc.collect()
    assert r() is not None
    y.sum().backward()
    assert len(calls) == 1 and x2.grad.tolist() == [2.0] * 4
    del calls[:], y, x2
    gc.collect()
    assert r() is None


def test_hook_handle_remove_after_the_tensor_is_gone():
    x = ember.ones(2, requires_grad=True)
    h = x.register_hook(lambda g: None)
    del x
    gc.collect()
    h.remove()  # nothing left to remove: no error


# ---------------------------------------------------------------- operators with NumPy arrays
def _np():
    return pytest.importorskip("numpy")


@pytest.mark.parametrize("expr", sorted(RECORDED["numpy"]))
def test_tensor_op_ndarray_gives_a_tensor_as_pytorch(expr):
    numpy = _np()
    t, ti = ember.tensor([1., 2., 3.]), ember.tensor([6, 2, 3])
    a, ai = numpy.array([4., 5., 6.]), numpy.array([3, 5, 7], dtype=numpy.int32)
    r = eval(expr, {"t": t, "ti": ti, "a": a, "ai": ai})
    kind, dtype, values = RECORDED["numpy"][expr]
    assert type(r).__name__ == kind and repr(r.dtype) == dtype and r.tolist() == values
    # and the value is NumPy's own on the arrays
    ref = eval(expr, {"t": t.numpy(), "ti": ti.numpy(), "a": a, "ai": ai})
    assert r.tolist() == ref.tolist()


def test_ndarray_on_either_side_and_in_place():
    numpy = _np()
    t = ember.tensor([1., 2., 4.])
    a = numpy.array([2., 2., 2.])
    for r, ref in ((a + t, a + t.numpy()), (a - t, a - t.numpy()), (a * t, a * t.numpy()), (a / t, a / t.numpy()),
                   (t < a, t.numpy() < a), (t >= a, t.numpy() >= a), (t != a, t.numpy() != a)):
        assert isinstance(r, ember.Tensor) and r.tolist() == ref.tolist()
    u = t
    u += a  # falls back to u = u + a (a new float64 tensor), as with torch
    assert u is not t and u.dtype is ember.float64 and u.tolist() == [3., 4., 6.] and t.tolist() == [1., 2., 4.]
    # NumPy scalars are still numbers to the operators
    assert (t + numpy.float64(1)).dtype is ember.float32
    assert (t * numpy.int64(2)).tolist() == [2., 4., 8.]


def test_operators_without_arrays_are_unchanged():
    t = ember.tensor([1., 2.])
    assert (t == None) is False and (t != None) is True  # noqa: E711
    assert (t + 1).tolist() == [2., 3.] and (1 + t).tolist() == [2., 3.]
    with pytest.raises(TypeError):
        t + "x"
    assert t.add(ember.ones(2)).tolist() == [2., 3.]


# ---------------------------------------------------------------- numbers on the left, augmented operators
@pytest.mark.parametrize("expr", sorted(RECORDED["reflected"]))
def test_reflected_and_in_place_operators_as_pytorch(expr):
    got = parity._reflected_facts(ember)[expr]
    assert got == RECORDED["reflected"][expr]


@pytest.mark.parametrize("expr", parity.OTHER_OPERAND_CASES)
def test_operands_the_ops_do_not_take_as_pytorch(expr):
    assert parity._other_operand_facts(ember)[expr] == RECORDED["other_operands"][expr]


def test_reflected_operators_refuse_other_types():
    t = ember.tensor([1., 2.])
    for bad in ("x", [1.0], None):
        with pytest.raises(TypeError):
            bad ** t
        with pytest.raises(TypeError):
            bad // t


# ---------------------------------------------------------------- conversions and attributes
@pytest.mark.parametrize("expr", parity.METHOD_CASES)
def test_conversions_and_attributes_as_pytorch(expr):
    assert parity._method_facts(ember)[expr] == RECORDED["methods"][expr]


@pytest.mark.parametrize("expr", parity.MODULE_CASES)
def test_module_helpers_as_pytorch(expr):
    assert parity._module_facts(ember)[expr] == RECORDED["module"][expr]


def test_set_num_threads():
    n = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
        with pytest.raises(ValueError, match=r"^\[set_num_threads\]"):
            ember.set_num_threads(0)
    finally:
        ember.set_num_threads(n)


def test_new_tensor_of_a_tensor_copies():
    x = ember.ones(2, dtype=ember.float64)
    src = ember.tensor([1, 2])
    y = x.new_tensor(src)
    assert y.dtype is ember.int64 and y.tolist() == [1, 2]
    y.add_(1)
    assert src.tolist() == [1, 2]


# ---------------------------------------------------------------- ember.Size
def test_size_is_a_tuple_the_ops_take():
    import pickle
    x = ember.zeros(2, 3)
    s = x.shape
    assert type(s) is ember.Size and type(x.size()) is ember.Size and x.size(1) == 3 and x.stride() == (3, 1)
    assert ember.zeros(s).shape == (2, 3) and x.view(s[::-1]).shape == (3, 2) and x.new_zeros(s).shape == s
    assert ember.ones(ember.Size([4])).tolist() == [1.0] * 4
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is ember.Size
    assert ember.Size([2, 0]).numel() == 0 and s[0] == 2 and type(s[0]) is int


# ---------------------------------------------------------------- one binding each
def test_grad_and_backward_are_the_autograd_bindings():
    # module.cpp's own grad/backward are gone: Tensor.grad checks its value, backward takes inputs=
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^\[grad\]"):
        x.grad = ember.ones(3)
    y = ember.ones(2, requires_grad=True)
    (x * y).sum().backward(inputs=[x])
    assert x.grad.tolist() == [1., 1.] and y.grad is None
