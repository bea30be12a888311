"""What counts as an nn.Parameter, and what a Module registers, gathered by the same code from `torch` or
`ember`: `<a Python with torch> python/tests/parameter_parity.py --record` writes PyTorch's answers to
data/torch_parameter_facts.json; test_nn_parameter.py compares Ember's (torch is never imported there).
"""
import copy
import io
import os
import pickle

from parity_record import raises, record_main

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "torch_parameter_facts.json")


def facts(torch):
    nn = torch.nn
    out = {}

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(2))
            self.frozen = nn.Parameter(torch.ones(3), requires_grad=False)
            self.leaf = torch.zeros(2, requires_grad=True)  # a plain tensor: an attribute, not a parameter
            self.lin = nn.Linear(2, 2)

    # made per library (it subclasses that library's nn.Module), findable by pickle under this module's name
    Net.__qualname__ = "Net"
    globals()["Net"] = Net
    net = Net()
    out["plain_leaf_is_parameter"] = isinstance(torch.zeros(2, requires_grad=True), nn.Parameter)
    out["plain_tensor_is_parameter"] = isinstance(torch.zeros(2), nn.Parameter)
    out["parameter_is_parameter"] = isinstance(nn.Parameter(torch.zeros(2)), nn.Parameter)
    out["frozen_is_parameter"] = isinstance(nn.Parameter(torch.zeros(2), requires_grad=False), nn.Parameter)
    out["parameter_is_tensor"] = isinstance(nn.Parameter(torch.zeros(2)), torch.Tensor)
    out["parameter_requires_grad"] = nn.Parameter(torch.zeros(2)).requires_grad
    out["parameter_is_leaf"] = nn.Parameter(torch.zeros(2, requires_grad=True) * 2).is_leaf
    out["named_parameters"] = [n for n, _ in net.named_parameters()]
    out["state_dict"] = list(net.state_dict())
    out["leaf_attribute_kept"] = isinstance(net.leaf, torch.Tensor) and "leaf" in net.__dict__
    out["registered_are_parameters"] = [isinstance(p, nn.Parameter) for p in net.parameters()]
    out["state_dict_values_are_parameters"] = [isinstance(v, nn.Parameter) for v in net.state_dict().values()]
    out["keep_vars_values_are_parameters"] = [isinstance(v, nn.Parameter)
                                              for v in net.state_dict(keep_vars=True).values()]
    out["assign_plain_to_parameter_name"] = raises(lambda: setattr(net, "w", torch.zeros(2)))
    out["assign_plain_leaf_to_parameter_name"] = raises(lambda: setattr(net, "w", torch.zeros(2, requires_grad=True)))
    out["assign_itself"] = raises(lambda: setattr(net, "w", net.w))
    out["assign_none"] = raises(lambda: setattr(Net(), "w", None))
    out["register_parameter_plain"] = raises(lambda: Net().register_parameter("x", torch.zeros(2)))
    out["register_parameter_parameter"] = raises(lambda: Net().register_parameter("x", nn.Parameter(torch.zeros(2))))
    deep = copy.deepcopy(net)
    out["deepcopy_named_parameters"] = [n for n, _ in deep.named_parameters()]
    out["deepcopy_are_parameters"] = [isinstance(p, nn.Parameter) for p in deep.parameters()]
    out["deepcopy_shares_nothing"] = all(p.data_ptr() != q.data_ptr() for p, q in zip(net.parameters(),
                                                                                     deep.parameters()))
    out["deepcopy_requires_grad"] = [p.requires_grad for p in deep.parameters()]
    moved = Net().to(torch.float64)
    out["to_float64_are_parameters"] = [isinstance(p, nn.Parameter) for p in moved.parameters()]
    out["to_float64_dtypes"] = [str(p.dtype).split(".")[-1] for p in moved.parameters()]
    out["to_float64_requires_grad"] = [p.requires_grad for p in moved.parameters()]
    fresh = Net()
    fresh.load_state_dict({k: v * 2 for k, v in net.state_dict().items()}, assign=True)
    out["assign_load_are_parameters"] = [isinstance(p, nn.Parameter) for p in fresh.parameters()]
    out["assign_load_requires_grad"] = [p.requires_grad for p in fresh.parameters()]
    plist = nn.ParameterList([torch.ones(2), nn.Parameter(torch.zeros(1)), torch.ones(3, requires_grad=True)])
    out["parameter_list_are_parameters"] = [isinstance(p, nn.Parameter) for p in plist]
    out["parameter_list_requires_grad"] = [p.requires_grad for p in plist]
    pdict = nn.ParameterDict({"a": torch.ones(2), "b": nn.Parameter(torch.ones(1), requires_grad=False)})
    out["parameter_dict_are_parameters"] = [isinstance(p, nn.Parameter) for p in pdict.values()]
    out["parameter_dict_requires_grad"] = [p.requires_grad for p in pdict.values()]
    buf = io.BytesIO()
    torch.save(net.state_dict(), buf)
    buf.seek(0)
    reloaded = Net()
    reloaded.load_state_dict(torch.load(buf))
    out["save_load_values"] = [float(v) for p in reloaded.parameters() for v in p.detach().reshape(-1).tolist()] == \
        [float(v) for p in net.parameters() for v in p.detach().reshape(-1).tolist()]
    un = pickle.loads(pickle.dumps(net))
    out["pickle_are_parameters"] = [isinstance(p, nn.Parameter) for p in un.parameters()]
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    (net.w * net.w).sum().backward()
    opt.step()
    out["sgd_step"] = net.w.detach().tolist()
    out["sgd_step_still_parameter"] = isinstance(net.w, nn.Parameter)

    # a lone parameter: its type, repr, storage, and what ops, copies and pickling make of it
    def tname(x):
        return type(x).__name__

    t = torch.tensor([1.5, -2.0])
    p = nn.Parameter(t)
    out["subclass_of_tensor"] = issubclass(nn.Parameter, torch.Tensor)
    out["type_name"] = tname(p)
    out["repr"] = repr(p)
    out["repr_frozen"] = repr(nn.Parameter(torch.ones(2), requires_grad=False))
    out["repr_empty"] = repr(nn.Parameter())
    out["str"] = str(nn.Parameter(torch.zeros(1)))
    out["shares_storage"] = p.data_ptr() == t.data_ptr() and p is not t
    with torch.no_grad():
        p.mul_(2)
    out["write_through_shared_storage"] = t.tolist()
    out["source_unchanged_requires_grad"] = t.requires_grad
    out["frozen_requires_grad"] = nn.Parameter(torch.ones(2), requires_grad=False).requires_grad
    out["int_parameter"] = raises(lambda: nn.Parameter(torch.zeros(2, dtype=torch.long)))
    out["int_frozen_type"] = tname(nn.Parameter(torch.zeros(2, dtype=torch.long), requires_grad=False))
    out["parameter_of_parameter_type"] = tname(nn.Parameter(nn.Parameter(torch.ones(1))))
    out["non_tensor_data"] = raises(lambda: nn.Parameter([1.0]))
    out["op_result_type"] = tname(p * 2)
    out["detach_type"] = tname(p.detach())
    out["view_type"] = tname(p.view(2))
    with torch.no_grad():
        out["inplace_returns_self"] = p.add_(1) is p
    (p * p).sum().backward()
    out["grad_type"] = tname(p.grad)
    out["grad"] = p.grad.tolist()
    out["isinstance_after_requires_grad_"] = isinstance(p.requires_grad_(False), nn.Parameter)
    p.requires_grad_(True)
    p.note = "kept"
    d = copy.deepcopy(p)
    out["deepcopy_type"] = tname(d)
    out["deepcopy_values"] = d.tolist() == p.tolist() and d.data_ptr() != p.data_ptr()
    out["deepcopy_lone_requires_grad"] = [d.requires_grad, copy.deepcopy(nn.Parameter(torch.ones(1), False)).requires_grad]
    out["deepcopy_grad"] = d.grad is None
    u = pickle.loads(pickle.dumps(p))
    out["pickle_type"] = tname(u)
    out["pickle_values"] = u.tolist() == p.tolist()
    out["pickle_requires_grad"] = [u.requires_grad,
                                   pickle.loads(pickle.dumps(nn.Parameter(torch.ones(1), False))).requires_grad]
    out["pickle_attribute"] = getattr(u, "note", None)
    pair = pickle.loads(pickle.dumps([p, p]))
    out["pickle_identity_kept"] = pair[0] is pair[1]
    lin = nn.Linear(2, 1)
    out["module_parameter_types"] = [tname(q) for q in lin.parameters()]
    out["state_dict_types"] = [tname(v) for v in lin.state_dict().values()]
    out["keep_vars_types"] = [tname(v) for v in lin.state_dict(keep_vars=True).values()]
    return out


if __name__ == "__main__":
    record_main(facts, DATA, __doc__)
