"""ember.normal with mean/std tensors that require grad (normal_parity.py) against PyTorch 2.15's answers
recorded by the same code (data/torch_normal_facts.json; torch is never imported here): the seeded
values, the grad_fn PyTorch names (NormalBackward1/2/3) and its gradients, which are zero in PyTorch."""
import pytest

import ember
import normal_parity
from parity_record import parity_tests

ours, test_same_names, test_matches_pytorch = parity_tests(normal_parity)


def test_gradients_are_zero_not_the_sampling_path():
    # (an independent statement of the recorded facts: d normal / d mean is defined as 0, although a
    # finite difference of the seeded sample in mean would be 1)
    m = ember.tensor([0.25, -0.5], dtype=ember.float64, requires_grad=True)
    s = ember.tensor([2.0, 0.5], dtype=ember.float64, requires_grad=True)
    ember.manual_seed(7)
    o = ember.normal(m, s)
    ember.manual_seed(7)
    shifted = ember.normal(m.detach() + 1e-3, s.detach())
    assert ((shifted - o.detach()) / 1e-3).tolist() == pytest.approx([1.0, 1.0])
    o.sum().backward()
    assert m.grad.tolist() == [0.0, 0.0] and s.grad.tolist() == [0.0, 0.0]


def test_the_reparameterised_form_the_docstring_names():
    # mean + std * eps has gradient grad for mean and grad * (out - mean) / std for std
    m = ember.tensor([0.25, -0.5], dtype=ember.float64, requires_grad=True)
    s = ember.tensor([2.0, 0.5], dtype=ember.float64, requires_grad=True)
    ember.manual_seed(7)
    o = m + s * ember.randn_like(s)
    g = ember.tensor([1.0, -3.0], dtype=ember.float64)
    o.backward(g)
    eps = ((o - m) / s).detach()
    assert m.grad.tolist() == g.tolist()
    assert s.grad.tolist() == pytest.approx((g * eps).tolist(), rel=1e-12)


def test_values_equal_the_graphless_draw_and_the_graph_is_reusable():
    ember.manual_seed(11)
    plain = ember.normal(ember.zeros(4), ember.ones(4))
    ember.manual_seed(11)
    m = ember.zeros(4, requires_grad=True)
    with_graph = ember.normal(m, ember.ones(4))
    assert with_graph.detach().equal(plain)
    loss = (with_graph * with_graph).sum()
    loss.backward()
    assert m.grad.tolist() == [0.0] * 4
    with pytest.raises(RuntimeError, match=r"^\[normal\]"):
        ember.normal(ember.ones(2), ember.tensor([1.0, -1.0], requires_grad=True))
