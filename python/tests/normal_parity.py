"""ember.normal with mean/std tensors that require grad, gathered by the same code from `torch` or
`ember`: `<a Python with torch> python/tests/normal_parity.py --record` writes PyTorch's answers to
data/torch_normal_facts.json; test_normal_grad.py compares Ember's (torch is never imported there).
"""
import os

from parity_record import raises, record_main

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "torch_normal_facts.json")


def facts(torch):
    out = {}
    f64 = torch.float64

    def grads(*ts):
        return [None if t.grad is None else t.grad.tolist() for t in ts]

    def run(name, mean, std, **kw):
        torch.manual_seed(0)
        o = torch.normal(mean, std, **kw)
        out[name] = {"values": o.tolist(), "grad_fn": None if o.grad_fn is None else type(o.grad_fn).__name__,
                     "requires_grad": o.requires_grad, "is_leaf": o.is_leaf}
        return o

    m = torch.tensor([0.5, -1.0, 2.0], dtype=f64, requires_grad=True)
    s = torch.tensor([1.0, 0.0, 2.0], dtype=f64, requires_grad=True)
    o = run("tensor_tensor", m, s)
    o.backward(torch.tensor([1.0, 2.0, 3.0], dtype=f64))
    out["tensor_tensor"]["grads"] = grads(m, s)

    m = torch.tensor([0.5, 1.5], requires_grad=True)
    o = run("tensor_float", m, 2.0)
    (o * m).sum().backward()  # the product's gradient reaches m, normal's adds zero
    out["tensor_float"]["grads"] = grads(m)

    s = torch.tensor([0.5, 1.5], requires_grad=True)
    o = run("float_tensor", 1.0, s)
    o.sum().backward()
    out["float_tensor"]["grads"] = grads(s)

    m = torch.zeros(2, 1, requires_grad=True)
    s = torch.ones(3, requires_grad=True)
    o = run("broadcast", m, s)
    o.sum().backward()
    out["broadcast"]["grads"] = grads(m, s)

    m = torch.zeros(2, requires_grad=True)
    o = run("std_only_needs_none", m, torch.ones(2))
    o.sum().backward()
    out["std_only_needs_none"]["grads"] = grads(m)

    with torch.no_grad():
        run("no_grad", torch.zeros(2, requires_grad=True), torch.ones(2))
    run("float_float_requires_grad", 2.0, 3.0, size=(3,), requires_grad=True)
    run("float_float", 2.0, 3.0, size=(3,))
    run("plain_tensors", torch.zeros(2), torch.ones(2))
    out["out_with_grad"] = raises(lambda: torch.normal(torch.zeros(2, requires_grad=True), 1.0,
                                                       out=torch.empty(2)))
    g = torch.Generator().manual_seed(3)
    out["generator"] = torch.normal(torch.zeros(3, requires_grad=True), 1.0, generator=g).tolist()
    return out


if __name__ == "__main__":
    record_main(facts, DATA, __doc__)
