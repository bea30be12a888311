"""derivatives.yaml -> the autograd model: one backward Node class per entry and the Autograd-key
wrapper of every op (record the graph, then call the backend kernel below autograd).

An entry names an op and gives one formula per differentiable input (C++ over at:: ops, so the
backward is itself differentiable):

    - name: mul.Tensor
      self: grad * other
      other: grad * self

Formulas may use `grad` (or `grads[i]` for multi-output ops), the op's arguments by name,
`result` / `result0`.. (or the named returns), `grad_input_mask` (for a formula keyed "a, b" that
returns a tuple), and the helpers in autograd/include/torch/csrc/autograd/derivative_helpers.h.
`output_differentiability: [true, false]` marks outputs; `node: MeanBackward1` names the backward class
(default <Op>Backward<k>, k counting the entries of that base name); `non_differentiable: true` marks an op
whose outputs never require grad. Mistakes are reported as `derivatives.yaml:LINE: message`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from model import GenError, cpp_args, cpp_arg_type, cpp_ret_type, load_yaml

# Tensor properties a formula may use without keeping the tensor alive.
PROPS = {"sizes": ("::std::vector<int64_t>", "{x}.sizes().vec()"),
         "dim": ("int64_t", "{x}.dim()"),
         "numel": ("int64_t", "{x}.numel()"),
         "scalar_type": ("at::ScalarType", "{x}.scalar_type()"),
         "options": ("at::TensorOptions", "{x}.options()"),
         "device": ("at::Device", "{x}.device()")}


@dataclass
class Formula:
    names: list  # input names this formula produces (one, or several with grad_input_mask)
    text: str
    line: int = 0  # derivatives.yaml line of the formula (compiler errors point there via #line)


@dataclass
class Derivative:
    name: str
    line: int
    formulas: list = field(default_factory=list)
    output_differentiability: Optional[list] = None
    non_differentiable: bool = False
    node: str = ""
    twice: bool = True


def parse_derivatives(path: str, ops):
    entries = load_yaml(path)
    with open(path) as f:
        lines = f.read().split("\n")
    by_name = {op.full_name: op for op in ops}
    out = {}
    for e in entries:
        if not isinstance(e, dict) or "name" not in e:
            line = e.get("__line__", 0) if isinstance(e, dict) else 0
            raise GenError(f"{path}:{line}: each entry needs 'name: <op.overload>'")
        line = e["__line__"]
        name = e["name"]
        if name not in by_name:
            raise GenError(f"{path}:{line}: '{name}' is not an op in ops.yaml")
        op = by_name[name]
        if op.kind == "composite":
            raise GenError(f"{path}:{line}: '{name}' is composite: it gets autograd through its parts")
        if name in out:
            raise GenError(f"{path}:{line}: '{name}' already has an entry at line {out[name].line}")
        d = Derivative(name, line, twice=bool(e.get("twice_differentiable", True)),
                       non_differentiable=bool(e.get("non_differentiable", False)),
                       output_differentiability=e.get("output_differentiability"),
                       node=str(e.get("node", "")))
        if d.node and not re.fullmatch(r"[A-Z]\w*Backward\d+", d.node):
            raise GenError(f"{path}:{line}: node: '{d.node}' should read like <Name>Backward<N>")
        argnames = {a.name: a for a in op.schema.args}
        for k, v in e.items():
            if k in ("__line__", "name", "non_differentiable", "output_differentiability", "twice_differentiable", "node"):
                continue
            names = [n.strip() for n in k.split(",")]
            for n in names:
                if n not in argnames:
                    raise GenError(f"{path}:{line}: '{n}' is not an argument of {name} "
                                   f"(arguments: {', '.join(argnames)})")
                if not argnames[n].type.is_tensor:
                    raise GenError(f"{path}:{line}: '{n}' of {name} is not a Tensor; only tensors have derivatives")
            fline = line
            for i in range(line - 1, min(len(lines), line + 40)):
                if re.match(rf"^\s*-?\s*{re.escape(k)}\s*:", lines[i]):
                    fline = i + 1
                    break
            d.formulas.append(Formula(names, str(v), fline))
        if d.output_differentiability is not None and len(d.output_differentiability) != len(op.schema.rets):
            raise GenError(f"{path}:{line}: output_differentiability has {len(d.output_differentiability)} entries; "
                           f"{name} has {len(op.schema.rets)} outputs")
        if not d.non_differentiable and not d.formulas:
            raise GenError(f"{path}:{line}: {name} gives no formula (or mark it non_differentiable: true)")
        out[name] = d
    return out


def _camel(name):
    """max_pool2d_with_indices -> MaxPool2DWithIndices: words capitalised, and a letter right after
    a digit too (libtorch's spelling of its backward classes)."""
    word = "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)
    return re.sub(r"(?<=\d)[a-z]", lambda m: m.group(0).upper(), word)


@dataclass
class Saved:
    name: str  # member name
    kind: str  # tensor | tensor_list | value | prop | output
    cpp_type: str = ""
    init: str = ""  # expression saved (forward side)


@dataclass
class AutogradInfo:
    op: object
    deriv: Optional[Derivative]
    node: str
    diff_inputs: list  # tensor arg names with edges (in order)
    saved: list
    formulas: list  # (names, rewritten text)
    kind: str  # functional | inplace | out | nondiff | notimpl
    out_diff: list
    is_view: bool = False
    clone_self: bool = False
    inplace_of: str = ""
    twice: bool = True
    emits_node: bool = False


def _refs(text, name):
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def build(ops, derivs, path):
    """Autograd info for every op that takes tensors; also lists differentiable ops without entries."""
    infos, missing, counters = [], [], {}
    explicit_nodes = {d.node for d in derivs.values() if d.node}
    node_owner = {}
    by_name = {op.full_name: op for op in ops}
    for op in ops:
        if op.kind == "composite":
            continue
        tensor_args = [a for a in op.schema.args if a.type.is_tensor]
        if not tensor_args:
            continue
        base = op.base or op
        d = derivs.get(op.full_name) or (derivs.get(base.full_name) if op.variant_kind != "functional" else None)
        if op.variant_kind == "out":
            infos.append(AutogradInfo(op, d, "", [], [], [], "out", []))
            continue
        if d is None:
            float_capable = any(t in ("Float", "Double", "Half", "BFloat16") for t in op.dtypes) or op.kind != "pointwise"
            returns_tensor = any(r.type.is_tensor for r in op.schema.rets)
            if float_capable and returns_tensor and op.variant_kind == "functional":
                missing.append(op.full_name)
            infos.append(AutogradInfo(op, None, "NotImplemented", [], [], [], "notimpl", []))
            continue
        if d.non_differentiable:
            infos.append(AutogradInfo(op, d, "", [], [], [], "nondiff", []))
            continue
        key = (d.name.split(".")[0])
        if d.node:
            node = d.node
        else:
            # <Op>Backward<k>, k counting this base name's entries, skipping names that an
            # entry's `node:` took (libtorch's names, where its numbering differs).
            if d.name not in counters:
                k = counters.setdefault(("n", key), 0)
                while f"{_camel(key.rstrip('_'))}Backward{k}" in explicit_nodes:
                    k += 1
                counters[d.name] = k
                counters[("n", key)] = k + 1
            node = f"{_camel(key.rstrip('_'))}Backward{counters[d.name]}"
        owner = node_owner.setdefault(node, d.name)
        if owner != d.name:
            raise GenError(f"derivatives.yaml:{d.line}: backward class {node} is also {owner}'s; give one a different node:")
        if op.variant_kind == "inplace":
            node = node  # in-place variants reuse the functional formula (and class name)
        diff = []
        for f in d.formulas:
            for n in f.names:
                if n not in diff:
                    diff.append(n)
        diff = [a.name for a in op.schema.args if a.name in diff]
        saved, formulas = _plan_saves(op, d, path)
        out_diff = d.output_differentiability or [True] * len(op.schema.rets)
        is_view = bool(op.schema.rets) and op.schema.rets[0].type.alias is not None and not op.schema.rets[0].type.mutable
        clone_self = op.variant_kind == "inplace" and any(s.name == "self" and s.kind == "tensor" for s in saved)
        info = AutogradInfo(op, d, node, diff, saved, formulas,
                            "inplace" if op.variant_kind == "inplace" or _is_inplace(op) else "functional",
                            out_diff, is_view, clone_self)
        info.twice = d.twice
        info.emits_node = op.full_name == d.name  # variants reuse the class of their functional op
        if info.kind == "inplace":
            info.inplace_of = op.schema.name
        infos.append(info)
    return infos, missing


def _is_inplace(op):
    return bool(op.schema.rets) and op.schema.rets[0].type.mutable and op.schema.args[0].type.mutable


def _plan_saves(op, d, path):
    texts = " ".join(f.text for f in d.formulas)
    saved, formulas = [], []
    rename = {}
    for a in op.schema.args:
        if not _refs(texts, a.name):
            continue
        if a.type.is_tensor and not a.type.is_list:
            # Only properties used? Save those instead of the tensor.
            uses = re.findall(rf"(?<![\w.]){re.escape(a.name)}(?!\w)(\.(\w+)\(\))?", texts)
            if uses and all(u[1] in PROPS for u in uses):
                for prop in sorted({u[1] for u in uses}):
                    t, init = PROPS[prop]
                    saved.append(Saved(f"{a.name}_{prop}", "prop", t, init.format(x=a.name)))
                    rename[rf"(?<![\w.]){re.escape(a.name)}\.{prop}\(\)"] = f"{a.name}_{prop}"
            else:
                saved.append(Saved(a.name, "tensor_opt" if a.type.optional else "tensor"))
        elif a.type.is_tensor:
            saved.append(Saved(a.name, "tensor_opt_list" if a.type.elem_optional else "tensor_list"))
        else:
            t = cpp_arg_type(a.type)
            store = {"at::IntArrayRef": "::std::vector<int64_t>",
                     "at::OptionalIntArrayRef": "::std::optional<::std::vector<int64_t>>",
                     "const at::Scalar&": "at::Scalar", "const ::std::optional<at::Scalar>&": "::std::optional<at::Scalar>",
                     "c10::string_view": "::std::string", "::std::optional<c10::string_view>": "::std::optional<::std::string>",
                     "at::TensorOptions": "at::TensorOptions"}.get(t, t.replace("const ", "").replace("&", ""))
            init = a.name
            if t == "at::IntArrayRef":
                init = f"{a.name}.vec()"
            elif t == "at::OptionalIntArrayRef":
                init = f"({a.name}.has_value() ? ::std::optional<::std::vector<int64_t>>({a.name}->vec()) : ::std::nullopt)"
            elif t == "::std::optional<c10::string_view>":
                init = f"({a.name} ? ::std::optional<::std::string>(::std::string(*{a.name})) : ::std::nullopt)"
            elif t == "c10::string_view":
                init = f"::std::string({a.name})"
            saved.append(Saved(a.name, "value", store, init))
    # outputs
    nrets = len(op.schema.rets)
    ret_names = [r.name or (f"result{i}" if nrets > 1 else "result") for i, r in enumerate(op.schema.rets)]
    for i, rn in enumerate(ret_names):
        if _refs(texts, rn) or (nrets > 1 and _refs(texts, f"result{i}")):
            saved.append(Saved(rn, "output", "", str(i)))
            if rn != f"result{i}" and nrets > 1:
                rename[rf"(?<![\w.])result{i}(?!\w)"] = rn
    for f in d.formulas:
        t = f.text
        for pat, rep in rename.items():
            t = re.sub(pat, rep, t)
        formulas.append((f.names, t, f.line))
    return saved, formulas
