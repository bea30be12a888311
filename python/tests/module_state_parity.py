"""A Module's state_dict and load_state_dict machinery (extra state, the state_dict and load_state_dict
hooks, the missing/unexpected keys, to_empty), gathered by the same code from `torch` or `ember`:
`<a Python with torch> python/tests/module_state_parity.py --record` writes PyTorch's answers to
data/torch_module_state_facts.json; test_nn_module_state.py compares Ember's (torch is never imported
there).
"""
import collections
import os

from parity_record import raises, record_main

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "torch_module_state_facts.json")


def facts(torch):
    nn = torch.nn
    out = {}

    def error_lines(fn):
        """The lines of a load_state_dict error after its first (Ember's first line adds "[op] ")."""
        try:
            fn()
        except RuntimeError as e:
            return [line.strip() for line in str(e).split("\n")[1:]]
        return None

    def keys(sd):
        return list(sd)

    def plain(v):
        return v.tolist() if isinstance(v, torch.Tensor) else v

    # ---------------------------------------------------------------- extra state
    class Counter(nn.Module):
        """Extra state both ways: a dict with a count."""

        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 1)
            self.count = 0
            self.seen = []

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.seen.append(state)
            self.count = state["count"]

    class GetOnly(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(1))

        def get_extra_state(self):
            return "meta"

    class SetOnly(nn.Module):
        def __init__(self):
            super().__init__()
            self.got = []

        def set_extra_state(self, state):
            self.got.append(state)

    c = Counter()
    c.count = 5
    sd = c.state_dict()
    out["extra_keys"] = keys(sd)
    out["extra_value"] = sd["_extra_state"]
    outer = nn.Sequential(nn.Linear(1, 1), c)
    out["extra_nested_keys"] = keys(outer.state_dict())
    fresh = nn.Sequential(nn.Linear(1, 1), Counter())
    r = fresh.load_state_dict(outer.state_dict())
    out["extra_loaded"] = [fresh[1].count, fresh[1].seen, list(r.missing_keys), list(r.unexpected_keys)]
    no_extra = {k: v for k, v in c.state_dict().items() if k != "_extra_state"}
    out["extra_missing_strict"] = error_lines(lambda: Counter().load_state_dict(no_extra))
    r = Counter().load_state_dict(no_extra, strict=False)
    out["extra_missing_lax"] = [list(r.missing_keys), list(r.unexpected_keys)]
    out["extra_unexpected_strict"] = error_lines(
        lambda: nn.Linear(2, 1).load_state_dict(dict(c.state_dict())))
    r = nn.Linear(2, 1).load_state_dict(dict(c.state_dict()), strict=False)
    out["extra_unexpected_lax"] = [list(r.missing_keys), list(r.unexpected_keys)]
    g = GetOnly()
    out["get_only_keys"] = keys(g.state_dict())
    out["get_only_reload"] = error_lines(lambda: GetOnly().load_state_dict(g.state_dict()))
    s = SetOnly()
    out["set_only_keys"] = keys(s.state_dict())
    r = s.load_state_dict({"_extra_state": [1, 2]})
    out["set_only_loaded"] = [s.got, list(r.missing_keys), list(r.unexpected_keys)]
    out["set_only_missing"] = error_lines(lambda: SetOnly().load_state_dict({}))
    out["base_get_extra_state"] = raises(lambda: nn.Linear(1, 1).get_extra_state())
    out["base_set_extra_state"] = raises(lambda: nn.Linear(1, 1).set_extra_state(1))
    out["extra_keep_vars_keys"] = keys(c.state_dict(keep_vars=True))
    out["extra_prefix_keys"] = keys(c.state_dict(prefix="p."))

    # ---------------------------------------------------------------- state_dict hooks
    log = []

    def tree():
        return nn.Sequential(collections.OrderedDict(a=nn.Linear(1, 1), b=nn.Sequential(nn.Linear(1, 1))))

    m = tree()

    def pre(tag):
        def hook(module, prefix, keep_vars):
            log.append(["pre", tag, type(module).__name__, prefix, keep_vars])
        return hook

    def post(tag):
        def hook(module, state_dict, prefix, local_metadata):
            log.append(["post", tag, type(module).__name__, prefix, keys(state_dict), dict(local_metadata)])
        return hook

    handles = []
    for tag, mod in (("root", m), ("a", m.a), ("b", m.b), ("b0", m.b[0])):
        handles.append(mod.register_state_dict_pre_hook(pre(tag)))
        handles.append(mod.register_state_dict_post_hook(post(tag)))
    sd = m.state_dict(keep_vars=True)
    out["state_dict_hook_order"] = log[:]
    out["state_dict_metadata"] = {k: dict(v) for k, v in getattr(sd, "_metadata", {}).items()}
    out["state_dict_is_ordered_dict"] = isinstance(sd, collections.OrderedDict)
    log.clear()
    m.state_dict(prefix="top.")
    out["state_dict_hook_order_prefix"] = log[:]
    log.clear()
    for h in handles:
        h.remove()
    m.state_dict()
    out["state_dict_hooks_removed"] = log[:]

    def editing_post(module, state_dict, prefix, local_metadata):
        state_dict[prefix + "note"] = 1
        del state_dict[prefix + "bias"]

    lin = nn.Linear(2, 2)
    h = lin.register_state_dict_post_hook(editing_post)
    out["post_hook_edits"] = keys(lin.state_dict())
    h.remove()
    out["post_hook_edits_removed"] = keys(lin.state_dict())
    lin.register_state_dict_post_hook(lambda *a: {"x": 1})
    out["post_hook_returns_value"] = raises(lin.state_dict)

    # the older private hook: a returned dict replaces the result at the root, not below it
    lin = nn.Linear(1, 1)
    lin._register_state_dict_hook(lambda module, sd, prefix, meta: {"replaced": 1})
    out["private_hook_at_root"] = keys(lin.state_dict())
    out["private_hook_below_root"] = keys(nn.Sequential(lin).state_dict())

    def twice(module, sd, prefix, meta):
        return None

    lin = nn.Linear(1, 1)
    lin.register_state_dict_post_hook(twice)
    out["private_after_public_same_fn"] = raises(lambda: lin._register_state_dict_hook(twice))

    def drop_bias_pre(module, prefix, keep_vars):
        module.bias = None

    lin = nn.Linear(1, 1)
    lin.register_state_dict_pre_hook(drop_bias_pre)
    out["pre_hook_runs_before_saving"] = keys(lin.state_dict())

    # ---------------------------------------------------------------- load_state_dict hooks
    log.clear()
    src = tree()
    dst = tree()

    def lpre(tag):
        def hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
            log.append(["pre", tag, type(module).__name__, prefix, keys(state_dict), dict(local_metadata), strict,
                        list(missing_keys), list(unexpected_keys), list(error_msgs)])
        return hook

    def lpost(tag):
        def hook(module, incompatible_keys):
            log.append(["post", tag, type(module).__name__, type(incompatible_keys).__name__,
                        list(incompatible_keys.missing_keys), list(incompatible_keys.unexpected_keys)])
        return hook

    handles = []
    for tag, mod in (("root", dst), ("a", dst.a), ("b", dst.b), ("b0", dst.b[0])):
        handles.append(mod.register_load_state_dict_pre_hook(lpre(tag)))
        handles.append(mod.register_load_state_dict_post_hook(lpost(tag)))
    dst.load_state_dict(src.state_dict())
    out["load_hook_order"] = log[:]
    log.clear()
    partial = {k: v for k, v in src.state_dict().items() if k != "a.bias"}
    partial["b.0.stray"] = src.b[0].weight.detach()
    partial["stray"] = src.a.weight.detach()
    dst.load_state_dict(partial, strict=False)
    out["load_hook_order_partial"] = log[:]
    log.clear()
    dst.load_state_dict(dict(src.state_dict()), assign=True)
    out["load_hook_order_plain_dict_assign"] = log[:]
    log.clear()
    for h in handles:
        h.remove()
    dst.load_state_dict(src.state_dict())
    out["load_hooks_removed"] = log[:]

    def clear_keys(module, incompatible_keys):
        incompatible_keys.missing_keys.clear()
        incompatible_keys.unexpected_keys.clear()

    lin = nn.Linear(2, 1)
    lin.register_load_state_dict_post_hook(clear_keys)
    r = lin.load_state_dict({"weight": torch.zeros(1, 2), "other": torch.zeros(1)})
    out["post_hook_clears_keys"] = [list(r.missing_keys), list(r.unexpected_keys), lin.weight.tolist()]

    def add_key(module, incompatible_keys):
        incompatible_keys.missing_keys.append("invented")

    lin = nn.Linear(2, 1)
    lin.register_load_state_dict_post_hook(add_key)
    out["post_hook_adds_key"] = error_lines(lambda: lin.load_state_dict(lin.state_dict()))
    lin = nn.Linear(2, 1)
    lin.register_load_state_dict_post_hook(lambda module, keys_: 1)
    out["post_hook_returns_value"] = raises(lambda: lin.load_state_dict(lin.state_dict()))

    def rename(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        if prefix + "old_weight" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "old_weight")

    outer = nn.Sequential(nn.Linear(2, 1))
    outer[0].register_load_state_dict_pre_hook(rename)
    given = {"0.old_weight": torch.full((1, 2), 3.0), "0.bias": torch.zeros(1)}
    r = outer.load_state_dict(given)
    out["pre_hook_renames"] = [outer[0].weight.tolist(), list(r.missing_keys), list(r.unexpected_keys),
                               sorted(given)]

    def rename_children(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        for k in [k for k in state_dict if k.startswith(prefix + "first.")]:
            state_dict[prefix + "0." + k[len(prefix) + 6:]] = state_dict.pop(k)

    outer = nn.Sequential(nn.Linear(2, 1))
    outer.register_load_state_dict_pre_hook(rename_children)
    r = outer.load_state_dict({"first.weight": torch.full((1, 2), 2.0), "first.bias": torch.ones(1)})
    out["root_pre_hook_renames_child_keys"] = [outer[0].weight.tolist(), outer[0].bias.tolist(),
                                               list(r.missing_keys), list(r.unexpected_keys)]

    def report_error(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        error_msgs.append("refused by hook")

    lin = nn.Linear(1, 1)
    lin.register_load_state_dict_pre_hook(report_error)
    out["pre_hook_error_msgs"] = error_lines(lambda: lin.load_state_dict(lin.state_dict(), strict=False))

    calls = []
    lin = nn.Linear(1, 1)
    lin._register_load_state_dict_pre_hook(lambda *a: calls.append(len(a)))
    lin._register_load_state_dict_pre_hook(lambda *a: calls.append(len(a)), with_module=True)
    lin.load_state_dict(lin.state_dict())
    out["private_load_pre_hook_arity"] = calls

    # ---------------------------------------------------------------- keys and errors
    m = nn.Sequential(collections.OrderedDict(fc=nn.Linear(1, 1)))
    r = m.load_state_dict({"fc.x": torch.zeros(1), "y": torch.zeros(1), "fc.weight": torch.zeros(1, 1)},
                          strict=False)
    out["unexpected_order"] = [list(r.missing_keys), list(r.unexpected_keys)]
    out["unexpected_order_strict"] = error_lines(
        lambda: m.load_state_dict({"fc.x": torch.zeros(1), "y": torch.zeros(1), "fc.weight": torch.zeros(1, 1)}))
    m = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.Linear(1, 1)))
    r = m.load_state_dict({"1.0.weight": torch.zeros(1, 1), "9.w": torch.zeros(1), "1.9": torch.zeros(1)},
                          strict=False)
    out["missing_and_unexpected_nested"] = [list(r.missing_keys), list(r.unexpected_keys)]

    class Scalar(nn.Module):
        def __init__(self):
            super().__init__()
            self.s = nn.Parameter(torch.tensor(1.0))

    sc = Scalar()
    sc.load_state_dict({"s": torch.tensor([4.0])})
    out["one_element_into_scalar"] = [sc.s.tolist(), list(sc.s.shape)]
    none_bias = nn.Linear(1, 1, bias=False)
    out["key_for_absent_parameter"] = error_lines(
        lambda: none_bias.load_state_dict({"weight": torch.zeros(1, 1), "bias": torch.zeros(1)}))
    out["not_a_tensor"] = error_lines(lambda: nn.Linear(1, 1).load_state_dict({"weight": 1, "bias": torch.zeros(1)}))
    lin = nn.Linear(1, 1)
    p = nn.Parameter(torch.full((1, 1), 7.0), requires_grad=False)
    lin.load_state_dict({"weight": p, "bias": torch.zeros(1)}, assign=True)
    out["assign_parameter_identity"] = [lin.weight is p, lin.weight.requires_grad, type(lin.bias).__name__]
    shared = nn.Linear(1, 1)
    twice_m = nn.Sequential(shared, shared)
    out["shared_module_state_dict"] = keys(twice_m.state_dict())
    r = twice_m.load_state_dict({"0.weight": torch.zeros(1, 1), "0.bias": torch.zeros(1)}, strict=False)
    out["shared_module_missing"] = [list(r.missing_keys), list(r.unexpected_keys)]

    # ---------------------------------------------------------------- batch norm's version 2 (num_batches_tracked)
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.InstanceNorm1d(2, track_running_stats=True))
    out["norm_metadata"] = {k: dict(v) for k, v in net.state_dict()._metadata.items()}
    old = {k: v for k, v in net.state_dict().items() if not k.endswith("num_batches_tracked")}
    fresh = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.InstanceNorm1d(2, track_running_stats=True))
    fresh[1].num_batches_tracked.fill_(5)
    r = fresh.load_state_dict(old)
    out["norm_load_without_count"] = [list(r.missing_keys), list(r.unexpected_keys),
                                      int(fresh[1].num_batches_tracked), int(fresh[2].num_batches_tracked)]
    with_meta = collections.OrderedDict(old)
    with_meta._metadata = net.state_dict()._metadata
    out["norm_load_without_count_version_2"] = error_lines(lambda: fresh.load_state_dict(with_meta))
    with_meta._metadata = {k: {"version": 1} for k in net.state_dict()._metadata}
    out["norm_load_without_count_version_1"] = error_lines(lambda: fresh.load_state_dict(with_meta))
    untracked = nn.BatchNorm1d(2, track_running_stats=False)
    out["norm_untracked_load"] = error_lines(lambda: untracked.load_state_dict({"weight": torch.ones(2),
                                                                               "bias": torch.zeros(2)}))

    # ---------------------------------------------------------------- to_empty
    lin = nn.Linear(3, 2)
    before = [lin.weight, lin.bias]
    lin.weight.grad = torch.ones(2, 3)
    lin.bias.requires_grad_(False)
    res = lin.to_empty(device="cpu")
    out["to_empty_returns_self"] = res is lin
    out["to_empty_new_parameters"] = [a is not b for a, b in zip(before, [lin.weight, lin.bias])]
    out["to_empty_types"] = [type(lin.weight).__name__, type(lin.bias).__name__]
    out["to_empty_shapes"] = [list(lin.weight.shape), list(lin.bias.shape)]
    out["to_empty_requires_grad"] = [lin.weight.requires_grad, lin.bias.requires_grad]
    out["to_empty_grad"] = None if lin.weight.grad is None else list(lin.weight.grad.shape)
    out["to_empty_devices"] = [str(lin.weight.device)]
    outer = nn.Sequential(nn.Linear(1, 1))
    outer.register_buffer("buf", torch.ones(2))
    inner_w, buf = outer[0].weight, outer.buf
    outer.to_empty(device="cpu", recurse=False)
    out["to_empty_not_recursive"] = [outer[0].weight is inner_w, outer.buf is buf, list(outer.buf.shape)]
    outer.to_empty(device=None)
    out["to_empty_device_none"] = [outer[0].weight is inner_w, str(outer.buf.device)]
    out["to_empty_needs_device"] = raises(lambda: nn.Linear(1, 1).to_empty())
    out["to_empty_positional"] = raises(lambda: nn.Linear(1, 1).to_empty("cpu"))
    return out


if __name__ == "__main__":
    record_main(facts, DATA, __doc__)
