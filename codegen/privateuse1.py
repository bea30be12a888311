"""The PrivateUse1 row of the dispatch table (Note [PrivateUse1 fallback] in aten/src/PrivateUse1.cpp).

For every op, what an out-of-tree backend gets until it registers a kernel of its own: the op's
composite, its device-generic kernel, or a generated CPU fallback. The policy (composites: / generic:)
comes from the PrivateUse1 entry of codegen/backends.yaml; gen.py calls render().
"""
from __future__ import annotations

from model import cpp_args, cpp_ret_type

N_SHARDS = 2
# What the fallback itself is made of: these never fall back (copy_ raises until the backend
# registers one; the others are device-generic and always installed).
MACHINERY = {"copy_", "_to_copy", "empty.memory_format", "empty_strided", "resize_"}


def _policy():
    """(composites, generic) for PrivateUse1 from codegen/backends.yaml (defaults when absent)."""
    try:
        from model import load_backends
        for b in load_backends():
            if b.name == "PrivateUse1":
                return b.composites, b.generic, b.missing
    except ImportError:
        pass
    return True, True, "fallback"


def generic_kernel(op):
    """The kernel of a `dispatch:` op whose CPU and CUDA entries are one device-generic function."""
    if op.kind != "dispatch":
        return None
    cpu = op.dispatch.get("CPU")
    return cpu if cpu and cpu == op.dispatch.get("CUDA") else None


def is_view(op):
    return any(r.type.is_tensor and r.type.alias and not r.type.mutable for r in op.schema.rets)


def fallback_body(op):
    """C++ statements of the generated fallback of `op` (its parameters are named as in the schema)."""
    cas = cpp_args(op.schema, "", with_defaults=False)
    ret = cpp_ret_type(op.schema.rets)
    lines = [f"detail::FallbackCall fb_(OpId::{op.ident});"]
    if is_view(op):
        lines.append("fb_.view_error();")
        return lines
    call_args, writes = [], []
    for c in cas:
        t = c.type
        if t in ("const at::Tensor&", "at::Tensor&", "const ::std::optional<at::Tensor>&", "at::TensorList",
                 "const c10::List<::std::optional<at::Tensor>>&", "at::TensorOptions"):
            decl = {"const at::Tensor&": "at::Tensor", "at::Tensor&": "at::Tensor",
                    "const ::std::optional<at::Tensor>&": "::std::optional<at::Tensor>",
                    "at::TensorList": "::std::vector<at::Tensor>",
                    "const c10::List<::std::optional<at::Tensor>>&": "c10::List<::std::optional<at::Tensor>>",
                    "at::TensorOptions": "at::TensorOptions"}[t]
            lines.append(f"{decl} fb_{c.name} = fb_.cpu({c.name});")
            call_args.append(f"fb_{c.name}")
            if t == "at::Tensor&":
                writes.append(c.name)
        else:
            call_args.append(c.name)
    call = f"reinterpret_cast<at::ops::{op.ident}::schema*>(fb_.cpu_kernel())({', '.join(call_args)})"
    if ret in ("void", "at::Tensor&"):  # a Tensor& result is the mutated argument: returned below
        lines.append(call + ";")
    else:
        lines.append(f"auto&& fb_r_ = {call};")
    for name in writes:
        lines.append(f"fb_.write_back({name}, fb_{name});")
    if ret in ("void",):
        return lines
    if ret == "at::Tensor&":
        alias = op.schema.rets[0].type.alias
        arg = next(a.name for a in op.schema.args if a.type.mutable and a.type.alias == alias)
        lines.append(f"return {arg};")
    elif ret in ("at::Tensor", "::std::vector<at::Tensor>"):
        lines.append("return fb_.back(std::move(fb_r_));")
    elif ret.startswith("::std::tuple<"):
        n = len(op.schema.rets)
        assert all(r.type.is_tensor and not r.type.is_list and not r.type.mutable for r in op.schema.rets), op.full_name
        lines.append("return {" + ", ".join(f"fb_.back(std::get<{i}>(fb_r_))" for i in range(n)) + "};")
    else:
        lines.append("return fb_r_;")
    return lines


def render(env, w, ops, shard_of):
    """Writes src/RegisterPrivateUse1_{k}.cpp; returns the number of generated fallbacks."""
    composites, generic, missing = _policy()
    entries = []  # (op, kind, kernel): kind composite | generic | copy | fallback | none
    for op in ops:
        g = generic_kernel(op)
        if op.full_name == "copy_":
            entries.append((op, "copy", None))
        elif op.kind == "composite":
            entries.append((op, "composite" if composites else ("fallback" if missing == "fallback" else "none"), None))
        elif g and (generic or op.full_name in MACHINERY):
            entries.append((op, "generic", g))
        elif missing == "fallback":
            entries.append((op, "fallback", None))
        else:
            entries.append((op, "none", None))
    for k in range(N_SHARDS):
        shard = [e for e in entries if shard_of(e[0], N_SHARDS) == k]
        w.write(f"src/RegisterPrivateUse1_{k}.cpp", env.get_template("RegisterPrivateUse1.cpp.j2").render(
            entries=shard, shard_index=k, fallback_body=fallback_body))
    return sum(1 for e in entries if e[1] == "fallback")
