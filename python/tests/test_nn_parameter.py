"""What counts as an nn.Parameter and what a Module registers (parameter_parity.py) against PyTorch 2.15's
answers recorded by the same code (data/torch_parameter_facts.json; torch is never imported here).
Parameter is a Python subclass of ember.Tensor (Note [Parameter is a Tensor subclass])."""
import copy
import gc
import pickle
import weakref

import pytest

import ember
import parameter_parity
from ember import nn
from parity_record import parity_tests

ours, test_same_names, test_matches_pytorch = parity_tests(parameter_parity)


def test_a_parameter_is_an_instance_of_the_subclass():
    p = ember.nn.Parameter(ember.ones(2))
    assert type(p) is ember.nn.Parameter and isinstance(p, ember.Tensor)
    assert not isinstance(ember.ones(2, requires_grad=True), ember.nn.Parameter)
    assert type(ember.Tensor) is type(ember.nn.Parameter)  # (nanobind's metaclass)
    # a subclass of Parameter stays that subclass, with its own attributes
    class Tagged(ember.nn.Parameter):
        pass
    q = Tagged(ember.zeros(1))
    q.tag = "x"
    assert type(q) is Tagged and q.tag == "x" and q.requires_grad
    assert type(copy.deepcopy(q)) is Tagged
    # pickle remakes a Parameter, with the attributes (PyTorch's _rebuild_parameter makes a Parameter too)
    u = pickle.loads(pickle.dumps(q))
    assert type(u) is ember.nn.Parameter and u.tag == "x"


def test_make_subclass_refuses_what_is_no_tensor_subclass():
    with pytest.raises(TypeError, match=r"^\[_make_subclass\]"):
        ember._C._make_subclass(int, ember.zeros(1), True)
    with pytest.raises(TypeError, match=r"^\[_make_subclass\]"):
        ember._C._make_subclass(ember.nn.Parameter, [1.0], True)


def test_a_parameter_in_a_cycle_is_collected_with_its_dict():
    # the GC reaches a parameter's __dict__ (CPython's subtype traverse) and its hooks (Note [Tensor GC])
    p = ember.nn.Parameter(ember.zeros(3))
    p.me = p
    p.register_hook(lambda g, p=p: g)
    gone = weakref.ref(p)
    del p
    gc.collect()
    assert gone() is None


def test_parameters_free_their_storage():
    x = ember.zeros(1000)
    ps = [ember.nn.Parameter(x) for _ in range(100)]
    assert all(p.data_ptr() == x.data_ptr() for p in ps)
    refs = [weakref.ref(p) for p in ps]
    del ps
    gc.collect()
    assert all(r() is None for r in refs)


def test_a_module_trains_its_parameters():
    lin = ember.nn.Linear(3, 1)
    assert all(type(p) is ember.nn.Parameter for p in lin.parameters())
    opt = ember.optim.Adam(lin.parameters(), lr=0.1)
    x, y = ember.randn(8, 3), ember.randn(8, 1)
    first = None
    for _ in range(20):
        opt.zero_grad()
        loss = ((lin(x) - y) ** 2).mean()
        first = first if first is not None else loss.item()
        loss.backward()
        opt.step()
    assert loss.item() < first
    assert all(type(p) is ember.nn.Parameter for p in lin.parameters())
    assert all(type(p) is ember.nn.Parameter for p in copy.deepcopy(lin).parameters())
    assert all(type(p) is ember.nn.Parameter for p in lin.to(ember.float64).parameters())


def test_data_setter_keeps_the_object_and_module_to_keeps_parameters():
    # t.data = u as PyTorch 2.15 (values recorded from torch): the object stays, its data, shape, strides
    # and dtype are u's, requires_grad stays, and gradients flow to it afterwards
    t = ember.ones(2, requires_grad=True)
    u = ember.arange(6.0).reshape(2, 3).t()
    t.data = u
    assert t.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]] and not t.is_contiguous() and t.requires_grad
    (t * t).sum().backward()
    assert t.grad.tolist() == [[0.0, 6.0], [2.0, 8.0], [4.0, 10.0]]
    with ember.no_grad():
        u[0, 0] = 7.0  # t shares u's storage
    assert t[0, 0].item() == 7.0
    with pytest.raises(RuntimeError, match=r"^\[data\] a tensor that requires grad needs floating-point"):
        t.data = ember.zeros(2, dtype=ember.int64)  # PyTorch: RuntimeError as well
    with pytest.raises(TypeError, match=r"^\[data\]"):
        t.data = [1.0, 2.0]
    # Ember refuses a tensor with a grad_fn (PyTorch allows it): its node describes the old data
    with pytest.raises(RuntimeError, match=r"^\[data\] can be set only"):
        (t * 2).data = ember.zeros(3)
    # Module.to()/double() convert in place: an optimizer made before still trains the model
    lin = nn.Linear(3, 2)
    w, b = lin.weight, lin.bias
    opt = ember.optim.SGD(lin.parameters(), lr=0.5)
    lin(ember.ones(1, 3)).sum().backward()
    lin.double()
    assert lin.weight is w and lin.bias is b and type(w) is nn.Parameter
    assert w.dtype == ember.float64 and w.grad.dtype == ember.float64 and w.requires_grad and w.is_leaf
    before = w.detach().clone()
    opt.step()
    assert ember.equal(w.detach(), before - 0.5)  # d(sum)/dw = 1 for the all-ones input
    assert lin(ember.ones(1, 3, dtype=ember.float64)).dtype == ember.float64
