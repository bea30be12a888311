"""The C ABI (include/ember/ember.h) part of the generator: one typed C function per op overload and
the boxed calling convention, rendered from the same model as everything else.

See Note [C ABI slot order]: the slots of the generated EmberOps table follow the committed list
codegen/c_abi_ops.txt, so that a new op in ops.yaml appends a slot instead of moving the others.

    python3 codegen/c_abi.py --ops ops.yaml --check    # exit 1 when the list is stale (ctest c_abi.op_list)
    python3 codegen/c_abi.py --ops ops.yaml --update   # append new ops, mark removed ones

Note [C ABI slot order]
The typed functions are members of a struct; a C program compiled against one header calls slot k
of whatever library it loads. Slots therefore never move: the list file holds one schema per line,
in slot order, and only grows. An op added to ops.yaml takes the next free slot once `--update`
appends it (until then the generator appends it after the listed ones and the check fails); an op
removed from ops.yaml keeps its slot as a `removed: ` line, rendered as a null pointer member of the
same name. A changed schema changes its slot's C signature: `--check` reports it, and `--update`
accepts it (a deliberate ABI change, with EMBER_API_VERSION raised in ember.h).
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import GenError, cpp_args, cpp_default, cpp_ret_type, parse_ops, parse_schema, ident  # noqa: E402

LIST_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "c_abi_ops.txt")
# The list describes the repository's ops.yaml; a build from another operator database (EMBER_OPS_YAML,
# the generator's tests) gets its slots in that file's order, with no stability promise.
REPO_OPS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ops.yaml")
REMOVED = "removed: "


# ---------------------------------------------------------------- slot order
@dataclass
class Slot:
    index: int
    ident: str
    op: object = None  # the model Op, or None for a removed op
    listed_schema: Optional[str] = None


def read_list(path):
    """[(schema text, removed?)] in slot order."""
    out = []
    if path is None or not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith(REMOVED):
                out.append((line[len(REMOVED):], True))
            else:
                out.append((line, False))
    return out


def _name_of(schema_text):
    return schema_text.split("(", 1)[0].strip()


def slots(ops, path=LIST_PATH):
    """The table's slots: listed ops in list order, then ops missing from the list in ops.yaml order.
    Returns (slots, problems) where problems says how the list is stale."""
    by_name = {o.full_name: o for o in ops}
    out, problems, seen = [], [], set()
    for text, removed in read_list(path):
        name = _name_of(text)
        seen.add(name)
        op = by_name.get(name)
        if op is None:
            if not removed:
                problems.append(f"{name}: listed but no longer in ops.yaml (its slot stays as a null pointer; "
                                f"--update marks it removed)")
            out.append(Slot(len(out), "removed_" + ident(name), None, text))
            continue
        if removed:
            problems.append(f"{name}: marked removed but declared in ops.yaml")
        if str(op.schema) != text:
            problems.append(f"{name}: schema changed (listed '{text}', ops.yaml '{op.schema}'): this changes "
                            f"the slot's C signature")
        out.append(Slot(len(out), op.ident, op, text))
    for op in ops:
        if op.full_name not in seen:
            if path is not None:
                problems.append(f"{op.full_name}: not in {os.path.basename(path)} yet (appended after the listed slots)")
            out.append(Slot(len(out), op.ident, op, None))
    return out, problems


def update_list(ops, path=LIST_PATH):
    by_name = {o.full_name: o for o in ops}
    lines, seen = [], set()
    for text, removed in read_list(path):
        name = _name_of(text)
        seen.add(name)
        op = by_name.get(name)
        lines.append(REMOVED + text if op is None else str(op.schema))
    for op in ops:
        if op.full_name not in seen:
            lines.append(str(op.schema))
    head = ("# Slot order of the C ABI's EmberOps table (include/ember/ember.h): one schema per line, append-only.\n"
            "# Maintained by `python3 codegen/c_abi.py --ops ops.yaml --update`; see Note [C ABI slot order] in codegen/c_abi.py.\n")
    with open(path, "w") as f:
        f.write(head + "\n".join(lines) + "\n")


# ---------------------------------------------------------------- argument kinds
def kind(t):
    b = t.base
    if b == "Tensor":
        if t.is_list:
            return "opt_tensor_list" if t.elem_optional else "tensor_list"
        if t.optional:
            return "opt_tensor"
        return "mut_tensor" if t.mutable else "tensor"
    simple = {"int": "int", "float": "float", "bool": "bool", "Scalar": "scalar", "ScalarType": "dtype",
              "Layout": "layout", "Device": "device", "MemoryFormat": "memory_format", "str": "str",
              "Generator": "generator"}
    k = simple[b]
    if t.is_list:
        if b not in ("int", "float", "bool"):
            raise GenError(f"C ABI: no mapping for list type {t}")
        return ("opt_" if t.optional else "") + k + "_list"
    if b == "Generator":
        return "generator"
    return ("opt_" if t.optional else "") + k


C_VALUE = {"int": "int64_t", "float": "double", "bool": "bool", "dtype": "EmberDType", "layout": "EmberLayout",
           "memory_format": "EmberMemoryFormat"}
STORAGE = {"tensor": "at::Tensor", "mut_tensor": "at::Tensor", "opt_tensor": "::std::optional<at::Tensor>",
           "tensor_list": "::std::vector<at::Tensor>", "opt_tensor_list": "c10::List<::std::optional<at::Tensor>>",
           "int": "int64_t", "opt_int": "::std::optional<int64_t>", "int_list": "::std::vector<int64_t>",
           "opt_int_list": "::std::optional<::std::vector<int64_t>>", "float": "double",
           "opt_float": "::std::optional<double>", "float_list": "::std::vector<double>", "bool": "bool",
           "opt_bool": "::std::optional<bool>", "bool_list": "::std::vector<bool>", "scalar": "at::Scalar", "opt_scalar": "::std::optional<at::Scalar>",
           "dtype": "at::ScalarType", "opt_dtype": "::std::optional<at::ScalarType>", "layout": "at::Layout",
           "opt_layout": "::std::optional<at::Layout>", "device": "at::Device",
           "opt_device": "::std::optional<at::Device>", "memory_format": "at::MemoryFormat",
           "opt_memory_format": "::std::optional<at::MemoryFormat>", "str": "::std::string",
           "opt_str": "::std::optional<::std::string>", "generator": "::std::optional<at::Generator>"}


def fn(k):
    """The helper's name for a kind (int, float and bool are C++ keywords)."""
    return k + "_" if k in ("int", "float", "bool") else k


def has_default(a):
    return a.default is not None and a.default != "None"


def by_pointer(a):
    """Optional arguments and arguments with a default are passed by pointer: NULL selects None or
    the default. Structs (Scalar, Device) always are."""
    k = kind(a.type)
    return a.type.optional or has_default(a) or k in ("scalar", "device")


def c_params(a):
    """The C parameter declarations of one schema argument."""
    k, n = kind(a.type), a.name
    if k == "tensor" or k == "opt_tensor":
        return [f"const EmberTensor* {n}"]
    if k == "mut_tensor":
        return [f"EmberTensor* {n}"]
    if k.endswith("tensor_list"):
        return [f"const EmberTensor* const* {n}", f"size_t {n}_len"]
    if k.endswith("_list"):
        elem = C_VALUE[k.replace("opt_", "").replace("_list", "")]
        return [f"const {elem}* {n}", f"size_t {n}_len"]
    if k in ("scalar", "opt_scalar"):
        return [f"const EmberScalar* {n}"]
    if k in ("device", "opt_device"):
        return [f"const EmberDevice* {n}"]
    if k in ("str", "opt_str"):
        return [f"const char* {n}"]
    if k == "generator":
        return [f"EmberGenerator* {n}"]
    base = k.replace("opt_", "")
    if by_pointer(a):
        return [f"const {C_VALUE[base]}* {n}"]
    return [f"{C_VALUE[base]} {n}"]


def pack_expr(a):
    """C++ expression turning the C parameter(s) into one EmberValue (typed -> boxed)."""
    k, n = kind(a.type), a.name
    if k.endswith("_list"):
        return f"P::{k.replace('opt_', '')}({n}, {n}_len)"
    if k in ("tensor", "opt_tensor", "mut_tensor"):
        return f"P::tensor({n})"
    if k in ("scalar", "opt_scalar", "device", "opt_device", "str", "opt_str", "generator"):
        return f"P::{k.replace('opt_', '')}({n})"
    base = k.replace("opt_", "")
    return f"P::{base}_ptr({n})" if by_pointer(a) else f"P::{fn(base)}({n})"


def _default_value(a, where):
    st = STORAGE[kind(a.type)]
    d = cpp_default(a, where)
    if a.type.is_list:
        return f"{st}{d}"
    if kind(a.type) == "str":
        return f"{st}({d})"
    return f"{st}({d})"


def unbox_line(a, i, where):
    k = kind(a.type)
    st = STORAGE[k]
    get = f"U::{fn(k)}(v[{i}], op, \"{a.name}\")"
    if k == "bool_list":
        get = f"U::bool_array<{a.type.list_size}>(v[{i}], op, \"{a.name}\")"
        st = f"::std::array<bool, {a.type.list_size}>"
    if has_default(a):
        return f"{st} a{i} = U::absent(v[{i}]) ? {_default_value(a, where)} : {get};"
    return f"{st} a{i} = {get};"


def pass_expr(a, i):
    k = kind(a.type)
    if k == "opt_str":
        return f"U::view(a{i})"
    return f"a{i}"


def rets_info(op):
    """[(kind, C params)] per return."""
    rets = op.schema.rets
    names = ["ret"] if len(rets) == 1 else [f"ret{j}" for j in range(len(rets))]
    out = []
    for r, n in zip(rets, names):
        t = r.type
        if t.base == "Tensor" and t.is_list:
            out.append(("tensor_list", n, [f"EmberTensor*** {n}", f"size_t* {n}_len"], f"{n}, {n}_len"))
        elif t.base == "Tensor":
            out.append(("tensor", n, [f"EmberTensor** {n}"], n))
        elif t.base == "bool":
            out.append(("bool", n, [f"bool* {n}"], n))
        else:
            raise GenError(f"C ABI: no mapping for return type {t} of {op.full_name}")
    return out


def c_signature_params(op):
    ps = []
    for a in op.schema.args:
        ps += c_params(a)
    for r in rets_info(op):
        ps += r[2]
    return ", ".join(ps) if ps else "void"


def call_target(op):
    """The at:: function the boxed invoker calls, as a pointer of the op's exact C++ type (picks the
    overload)."""
    if "function" not in op.variants:
        name = f"at::_method_{op.ident}"
    elif op.variant_kind == "out":
        name = f"at::{op.schema.name}_outf"
    else:
        name = f"at::{op.schema.name}"
    return f"static_cast<at::ops::{op.ident}::schema*>(&{name})"


def invoke_body(op):
    """The unboxing lines and the call expression of an op's invoker."""
    where = f"{op.path}:{op.line}"
    lines = [unbox_line(a, i, where) for i, a in enumerate(op.schema.args)]
    index = {a.name: i for i, a in enumerate(op.schema.args)}
    call = []
    for c in cpp_args(op.schema, where, with_defaults=False):
        if c.type == "at::TensorOptions":
            ids = [index[x.name] for x in c.schema_args]
            call.append("U::options(" + ", ".join(f"a{j}" for j in ids) + ")")
        else:
            call.append(pass_expr(c.schema_args[0], index[c.name]))
    return lines, f"{call_target(op)}({', '.join(call)})"


def ret_puts(op):
    n = len(op.schema.rets)
    if n == 1:
        return ["R::put(r[0], res);"]
    return [f"R::put(r[{j}], ::std::get<{j}>(res));" for j in range(n)]


def shard_of(slot, n):
    return slot.index % n


def cstr(s):
    """A C string literal."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


TEMPLATE_GLOBALS = dict(cstr=cstr, c_signature_params=c_signature_params, pack_expr=pack_expr, invoke_body=invoke_body,
                        ret_puts=ret_puts, rets_info=rets_info, cpp_ret_type=cpp_ret_type)


def render(env, writer, ops, n_shards=4):
    """Writes include/ember/ember_ops.h (the typed table, installed with ember.h) and the sources that
    fill it: src/CApiOps_<k>.cpp (invokers + typed functions) and src/CApiTable.cpp."""
    ops_path = ops[0].path if ops else ""
    same = os.path.exists(ops_path) and os.path.samefile(ops_path, REPO_OPS)
    ss, problems = slots(ops, LIST_PATH if same else None)
    ctx = dict(slots=ss, live=[s for s in ss if s.op is not None], problems=problems, **TEMPLATE_GLOBALS)
    writer.write("include/ember/ember_ops.h", env.get_template("CApiOps.h.j2").render(**ctx))
    writer.write("src/CApiOpsDecl.h", env.get_template("CApiOpsDecl.h.j2").render(**ctx))
    for k in range(n_shards):
        writer.write(f"src/CApiOps_{k}.cpp", env.get_template("CApiOps.cpp.j2").render(
            shard=[s for s in ctx["live"] if shard_of(s, n_shards) == k], **ctx))
    writer.write("src/CApiTable.cpp", env.get_template("CApiTable.cpp.j2").render(**ctx))
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", required=True)
    ap.add_argument("--list", default=LIST_PATH)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true")
    g.add_argument("--update", action="store_true")
    args = ap.parse_args(argv)
    try:
        ops = parse_ops(args.ops)
        for o in ops:
            o.path = args.ops
        if args.update:
            update_list(ops, args.list)
            return 0
        ss, problems = slots(ops, args.list)
        for p in problems:
            print(f"{args.list}: {p}", file=sys.stderr)
        if problems:
            print(f"{args.list}: stale ({len(problems)} problems); run python3 codegen/c_abi.py --ops ops.yaml --update "
                  f"and commit the list (see Note [C ABI slot order])", file=sys.stderr)
            return 1
        print(f"C ABI: {sum(1 for s in ss if s.op)} op overloads in {len(ss)} slots, list up to date")
        return 0
    except GenError as e:
        print(str(e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
