"""The Python frontend (`import ember`, python/) part of the generator: one binding per function and per
Tensor method of ops.yaml, its argument-parser tables, and the type stub, rendered from the same model
as everything else.

Note [Python overload order]
Overloads are grouped by Python name (the schema name: `add.Tensor`, `add.Scalar` and their `out=`
forms are all `ember.add`; `add_` is its own group). A call tries the group's overloads in a fixed
order and takes the first whose parameters accept the arguments:
  1. fewer parameters that a 0-dim tensor could also fill (Scalar, int, float) first, so that a
     Tensor overload is preferred over a Scalar one (`add(t, zero_dim)` is add.Tensor, `add(t, 2)`
     falls through to add.Scalar);
  2. then ops.yaml order (the functional overload before its generated out= form, which only an
     `out=` argument selects since `out` has no default).
No conversion happens while matching (only type tests), so a failed overload has no side effects.
When none matches, the TypeError lists every signature of the group in this order.

The parser rules (python/src/arg_parser.cpp) follow PyTorch's Python API: positional or keyword
arguments, keyword-only after `*`, defaults, `out=`; a bool parameter takes only bool; int rejects
bool and takes objects with __index__ and 0-dim integer tensors; float takes int and float; Scalar
takes bool, int, float and 0-dim tensors; int[N] takes a single int (repeated N times); a signature
whose only positional parameter is an int list also takes the ints as separate arguments
(`zeros(2, 3)`, `t.view(2, -1)`).
"""
from __future__ import annotations

import ast
import os
import re

import keyword

from model import TENSOR_OPTIONS_ARGS, Arg, GenError, Type, cpp_args, cpp_default, cpp_ret_type
import c_abi

# c_abi.kind() -> the C++ enumerator of ember::python::Kind.
KIND = {"tensor": "Tensor", "mut_tensor": "Tensor", "opt_tensor": "OptTensor", "tensor_list": "TensorList",
        "opt_tensor_list": "OptTensorList", "int": "Int", "opt_int": "OptInt", "int_list": "IntList",
        "opt_int_list": "OptIntList", "float": "Float", "opt_float": "OptFloat", "float_list": "FloatList",
        "opt_float_list": "OptFloatList", "bool": "Bool", "opt_bool": "OptBool", "bool_list": "BoolList",
        "scalar": "Scalar", "opt_scalar": "OptScalar", "dtype": "Dtype", "opt_dtype": "OptDtype",
        "layout": "Layout", "opt_layout": "OptLayout", "device": "Device", "opt_device": "OptDevice",
        "memory_format": "MemoryFormat", "opt_memory_format": "OptMemoryFormat", "str": "Str",
        "opt_str": "OptStr", "generator": "Generator"}

# How each kind is converted from its slot (python/src/arg_parser.h, struct Args).
GETTER = {"tensor": "tensor", "mut_tensor": "mut_tensor", "opt_tensor": "opt_tensor", "tensor_list": "tensor_list",
          "opt_tensor_list": "opt_tensor_list", "int": "int64", "opt_int": "opt_int64", "int_list": "int_list",
          "opt_int_list": "opt_int_list", "float": "float64", "opt_float": "opt_float64",
          "float_list": "float_list", "bool_list": "bool_array", "bool": "boolean", "opt_bool": "opt_boolean", "scalar": "scalar",
          "opt_scalar": "opt_scalar", "dtype": "dtype", "opt_dtype": "opt_dtype", "layout": "layout",
          "opt_layout": "opt_layout", "device": "device", "opt_device": "opt_device",
          "memory_format": "memory_format", "opt_memory_format": "opt_memory_format", "str": "str",
          "opt_str": "opt_str", "generator": "generator"}

# Python type names used in signatures shown by TypeErrors and in the stub.
PY_TYPE = {"Tensor": "Tensor", "int": "int", "float": "float", "bool": "bool", "Scalar": "Number",
           "ScalarType": "dtype", "Layout": "layout", "Device": "Device", "MemoryFormat": "memory_format",
           "str": "str", "Generator": "Generator"}

# Parameters a 0-dim tensor may also fill (Note [Python overload order], rule 1).
NUMBER_KINDS = {"scalar", "int", "float"}


def py_type(t):
    b = PY_TYPE[t.base]
    if t.is_list:
        b = f"List[{'Optional[Tensor]' if t.elem_optional else b}]"
        if t.list_size and t.base == "int":
            b = f"Union[{PY_TYPE['int']}, {b}]"
    if t.optional:
        b = f"Optional[{b}]"
    return b


def py_default(d):
    if d is None:
        return None
    if d in ("True", "False", "None"):
        return d
    if d == "Mean":
        return "1"
    if d == "contiguous_format":
        return "contiguous_format"
    if d in ("long", "float", "double", "int", "bool"):
        return {"long": "int64", "float": "float32", "double": "float64", "int": "int32", "bool": "bool"}[d]
    if d.startswith("'") or d.startswith('"'):
        return '"' + d[1:-1] + '"'
    return d.replace("[", "(").replace("]", ")") if d.startswith("[") else d


def self_arg(op):
    for a in op.schema.args:
        if a.name == "self" and a.type.is_tensor and not a.type.is_list and not a.type.optional:
            return a
    return None


def is_factory(op):
    """Takes dtype/layout/device/pin_memory and returns a new tensor: the Python function also takes
    `requires_grad=False` (keyword-only), as PyTorch's factories do."""
    names = [a.name for a in op.schema.args]
    rets = op.schema.rets
    return (all(n in names for n in TENSOR_OPTIONS_ARGS) and len(rets) == 1 and rets[0].type.base == "Tensor"
            and not rets[0].type.is_list and not rets[0].type.alias)


def out_tuple_size(op):
    """The number of out tensors of a several-result out= form (0 for other ops). Python takes them as
    one keyword-only `out=` tuple, as PyTorch does (`torch.max(x, 1, out=(values, indices))`); they are
    the schema's last arguments (model._out_schema)."""
    rets = op.schema.rets
    return len(rets) if op.variant_kind == "out" and len(rets) > 1 else 0


def python_args(op):
    """The schema's arguments as a Python caller passes them: a several-result out= form's out tensors
    become one `out` argument (a tuple of that many tensors)."""
    n = out_tuple_size(op)
    if not n:
        return op.schema.args
    return op.schema.args[:-n] + [Arg("out", Type("Tensor", is_list=True, list_size=n, mutable=True), None, True)]


def python_params(op, method, render):
    """render(arg) for each argument a Python caller passes (a method's self left out), with "*"
    before the first keyword-only one: the shape shared by TypeError signatures and .pyi stubs."""
    parts, kw = [], False
    for a in python_args(op):
        if method and a is self_arg(op):
            continue
        if a.kwarg_only and not kw:
            parts.append("*")
            kw = True
        parts.append(render(a))
    return parts


def signature_text(op, method):
    """The Python signature shown in TypeErrors: `(Tensor input, Tensor other, *, Number alpha=1)`."""
    parts = python_params(op, method, lambda a: f"{py_type(a.type)} {a.name}"
                          + (f"={py_default(a.default)}" if a.default is not None else ""))
    if is_factory(op):
        parts.append("bool requires_grad=False")
    return "(" + ", ".join(parts) + ")"


class Overload:
    def __init__(self, op, index):
        self.op = op
        self.index = index  # position in ops.yaml order
        self.ident = op.ident
        self.where = f"{op.path}:{op.line}"
        for a in op.schema.args:
            k = c_abi.kind(a.type)
            if k not in KIND:
                raise GenError(f"{self.where}: the Python binding has no mapping for argument type {a.type}")
        for r in op.schema.rets:
            if r.type.base not in ("Tensor", "bool", "int", "float", "Scalar", "ScalarType"):
                raise GenError(f"{self.where}: the Python binding has no mapping for return type {r.type}")

    def order_key(self):
        n = sum(1 for a in self.op.schema.args if c_abi.kind(a.type) in NUMBER_KINDS)
        return (n, self.index)

    def params(self):
        """[(name, Kind, kwonly, has_default, list_size)] in schema order."""
        out = []
        n_out = out_tuple_size(self.op)
        for a in python_args(self.op):
            kind = "OutTuple" if n_out and a.name == "out" else KIND[c_abi.kind(a.type)]
            out.append(dict(name=a.name, kind=kind, kwonly=a.kwarg_only,
                            has_default=a.default is not None, list_size=a.type.list_size or 0))
        if is_factory(self.op):
            out.append(dict(name="requires_grad", kind="Bool", kwonly=True, has_default=True, list_size=0))
        return out

    def self_index(self):
        s = self_arg(self.op)
        return self.op.schema.args.index(s) if s is not None else -1

    def varargs_intlist(self, method):
        """The only positional parameter (self aside for methods) is an int list."""
        pos = [a for a in self.op.schema.args if not a.kwarg_only and not (method and a is self_arg(self.op))]
        return len(pos) == 1 and pos[0].type.base == "int" and pos[0].type.is_list

    def body(self):
        """C++ lines that convert the slots (`a`) and call the op; the result is in `res`."""
        where = self.where
        lines = []
        index = {x.name: i for i, x in enumerate(self.op.schema.args)}
        n_out = out_tuple_size(self.op)
        first_out = len(self.op.schema.args) - n_out
        if n_out:
            # the `out=` sequence (parameter first_out), snapshotted as a tuple that holds its tensors
            lines.append(f"OwnedRef outs{{a.same_items({first_out})}};")
            lines.append("if (!outs.get()) return nullptr;")
        for i, x in enumerate(self.op.schema.args):
            if n_out and i >= first_out:
                lines.append(f"at::Tensor a{i} = ::ember::python::unpack(PyTuple_GET_ITEM(outs.get(), {i - first_out}));")
                continue
            k = c_abi.kind(x.type)
            st = c_abi.STORAGE[k]
            get = f"a.{GETTER[k]}({i})"
            if k == "bool_list":
                st = f"::std::array<bool, {x.type.list_size}>"
                get = f"a.bool_array<{x.type.list_size}>({i})"
            elif k in ("int_list", "opt_int_list"):
                # held in place (IntListArg), converted to the op's IntArrayRef / OptionalIntArrayRef
                st = "IntListArg"
                if x.type.list_size:
                    get = f"a.{GETTER[k]}({i}, {x.type.list_size})"
                if c_abi.has_default(x):
                    lines.append(f"{st} a{i} = a.present({i}) ? {get} : {st}{cpp_default(x, where)};")
                else:
                    lines.append(f"{st} a{i} = {get};")
                continue
            if k in ("tensor", "mut_tensor"):
                ref = "at::Tensor&" if k == "mut_tensor" else "const at::Tensor&"
                if c_abi.has_default(x):
                    lines.append(f"{ref} a{i} = a.present({i}) ? {get} : a.undefined();")
                else:
                    lines.append(f"{ref} a{i} = {get};")
                continue
            if c_abi.has_default(x):
                lines.append(f"{st} a{i} = a.present({i}) ? {get} : {c_abi._default_value(x, where)};")
            else:
                lines.append(f"{st} a{i} = {get};")
        call = []
        for c in cpp_args(self.op.schema, where, with_defaults=False):
            if c.type == "at::TensorOptions":
                ids = [index[x.name] for x in c.schema_args]
                call.append("::ember::python::options(" + ", ".join(f"a{j}" for j in ids) + ")")
            else:
                call.append(c_abi.pass_expr(c.schema_args[0], index[c.name]))
        return lines, f"{c_abi.call_target(self.op)}({', '.join(call)})"

    def result(self):
        """C++ statement returning the Python result of `res` (an aliasing in-place/out= result returns
        the argument's own Python object)."""
        rets = self.op.schema.rets
        if is_factory(self.op):
            n = len(self.op.schema.args)
            return (f"if (a.present({n}) && a.boolean({n})) res.set_requires_grad(true);\n"
                    f"  return ::ember::python::wrap(std::move(res));")
        if not rets:
            return "Py_RETURN_NONE;"
        n_out = out_tuple_size(self.op)
        if n_out:
            # the out tensors' own Python objects, as the functional form's (named) tuple
            fields = ", ".join(f'"{r.name}"' for r in rets)
            return (f"return ::ember::python::named_tuple(outs.release(), \"{self.op.schema.name}\", "
                    f"{{{fields}}});")
        if len(rets) == 1:
            t = rets[0].type
            if t.base == "Tensor" and t.mutable:
                for i, x in enumerate(self.op.schema.args):
                    if x.type.alias == t.alias and x.type.mutable:
                        return f"return a.same({i});"
            return "return ::ember::python::wrap(std::move(res));"
        if all(r.name for r in rets):
            # named results: a namedtuple ember.return_types.<name> (PyTorch's torch.return_types)
            fields = ", ".join(f'"{r.name}"' for r in rets)
            return (f"return ::ember::python::named_tuple(::ember::python::wrap_tuple(std::move(res)), "
                    f"\"{self.op.schema.name}\", {{{fields}}});")
        return "return ::ember::python::wrap_tuple(std::move(res));"


class Group:
    def __init__(self, name, overloads, method):
        self.name = name
        self.method = method
        self.overloads = sorted(overloads, key=lambda o: o.order_key())

    @property
    def cname(self):
        return ("m_" if self.method else "f_") + self.name

    def sig_text(self, ov):
        return signature_text(ov.op, self.method)

    def doc(self):
        return "\n".join(self.name + self.sig_text(ov) for ov in self.overloads)


def groups(ops):
    """(function groups, method groups): overloads by Python name, each in its call order."""
    overloads = [Overload(op, i) for i, op in enumerate(ops)]
    funcs, methods = {}, {}
    for ov in overloads:
        if out_tuple_size(ov.op) and not all(r.name for r in ov.op.schema.rets):
            # PyTorch's Python API has the out= form of a several-result op only where its results are
            # named (max, sort, topk, aminmax, ...; not var_mean, native_layer_norm, _unique2, ...)
            continue
        if "function" in ov.op.variants:
            funcs.setdefault(ov.op.schema.name, []).append(ov)
        if "method" in ov.op.variants:
            if self_arg(ov.op) is None:
                raise GenError(f"{ov.where}: a method needs a 'Tensor self' argument")
            methods.setdefault(ov.op.schema.name, []).append(ov)
    return ([Group(n, v, False) for n, v in funcs.items()], [Group(n, v, True) for n, v in methods.items()],
            overloads)


# Type names the stub spells through module-level aliases (`_int`, `_dtype`, ...): inside `class Tensor`
# a bare `int` or `dtype` would name the method Tensor.int or the attribute Tensor.dtype.
_SHADOWED = re.compile(r"\b(int|float|bool|str|dtype|device|layout|memory_format)\b")


def stub_type(text):
    """A signature's Python type as the stub spells it: shadow-proof names, and Sequence for lists (the
    parser takes lists and tuples)."""
    return _SHADOWED.sub(r"_\1", text).replace("List[", "Sequence[")


def stub_params(op, method, varargs=False):
    """The stub's parameters; with varargs, the form that takes an int list as separate ints (`zeros(2, 3)`,
    `t.view(2, -1)`: Overload.varargs_intlist)."""
    def one(a):
        name = f"{a.name}{'_' if keyword.iskeyword(a.name) else ''}"
        if varargs and not a.kwarg_only:
            return f"*{name}: _int"
        return f"{name}: {stub_type(py_type(a.type))}" + (" = ..." if a.default is not None else "")
    parts = ["self"] if method else []
    parts += [x for x in python_params(op, method, one) if not (varargs and x == "*")]
    if is_factory(op):
        parts.append("requires_grad: _bool = ...")
    return ", ".join(parts)


def stub_ret(op):
    def one(t):
        if t.base == "Tensor":
            return "Tuple[Tensor, ...]" if t.is_list else "Tensor"
        return {"bool": "_bool", "int": "_int", "float": "_float", "Scalar": "Number", "ScalarType": "_dtype"}[t.base]
    rets = op.schema.rets
    if not rets:
        return "None"
    if len(rets) == 1:
        return one(rets[0].type)
    return "Tuple[" + ", ".join(one(r.type) for r in rets) + "]"


# ---------------------------------------------------------------- names beyond ops.yaml
# Note [Python names beyond ops.yaml]
# Three kinds of Tensor attribute have no ops.yaml entry of their own; their tables live here so that
# what is installed and what the stub declares come from one place:
#   - ALIASES: PyTorch's alias names. ember.<alias>, Tensor.<alias> and Tensor.<alias>_ are the op of
#     the other name (only where the alias is no op itself and the op has that variant). Rendered to
#     python/ember/_aliases.py, which python/ember/__init__.py imports and installs, and into the stub
#     as the op's overloads under the alias name.
#   - OPERATORS: the operator entries python/src/module.cpp installs on Tensor, each the generated
#     method of the same meaning behind an entry that returns NotImplemented for a NumPy array operand
#     (and answers `t == None`). Rendered to python/PythonOperators.inc (the rows of module.cpp's
#     g_operators, for module.cpp to include; while it spells them itself, test_stub_coverage.py checks
#     that its rows are these) and into the stub as the method's overloads under the operator's name.
#   - codegen/templates/PythonStubTensor.pyi.j2: the hand-written Tensor attributes (module.cpp's
#     properties, autograd.cpp, interop.cpp, and what python/ember/__init__.py adds in Python), as stub
#     lines. A name declared there replaces the generated method of that name in the stub (as the
#     hand-written binding wins at run time). python/tests/test_stub_coverage.py checks that every public
#     attribute of ember.Tensor and of the ember module is declared.

ALIASES = {"absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
           "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "divide": "div", "multiply": "mul",
           "subtract": "sub", "true_divide": "div", "greater": "gt", "greater_equal": "ge", "less": "lt",
           "less_equal": "le", "not_equal": "ne", "negative": "neg"}

# (operator, generated method, kind): kind Eq/Ne answer `t == None` / `t != None` with False / True.
OPERATORS = (
    ("__add__", "add", "Plain"), ("__radd__", "add", "Plain"), ("__iadd__", "add_", "Plain"),
    ("__sub__", "sub", "Plain"), ("__isub__", "sub_", "Plain"),
    ("__mul__", "mul", "Plain"), ("__rmul__", "mul", "Plain"), ("__imul__", "mul_", "Plain"),
    ("__truediv__", "div", "Plain"), ("__itruediv__", "div_", "Plain"),
    ("__floordiv__", "floor_divide", "Plain"), ("__mod__", "remainder", "Plain"), ("__pow__", "pow", "Plain"),
    ("__matmul__", "matmul", "Plain"),
    ("__and__", "bitwise_and", "Plain"), ("__or__", "bitwise_or", "Plain"), ("__xor__", "bitwise_xor", "Plain"),
    ("__eq__", "eq", "Eq"), ("__ne__", "ne", "Ne"),
    ("__lt__", "lt", "Plain"), ("__le__", "le", "Plain"), ("__gt__", "gt", "Plain"), ("__ge__", "ge", "Plain"),
    ("__iand__", "bitwise_and_", "Plain"), ("__ior__", "bitwise_or_", "Plain"), ("__ixor__", "bitwise_xor_", "Plain"),
    ("__imod__", "remainder_", "Plain"), ("__ipow__", "pow_", "Plain"), ("__ifloordiv__", "floor_divide_", "Plain"),
    ("__rand__", "bitwise_and", "Plain"), ("__ror__", "bitwise_or", "Plain"), ("__rxor__", "bitwise_xor", "Plain"),
)

# The operators python/ember/__init__.py wraps so that a Python number becomes a 0-dim tensor first
# (the bitwise ops of ops.yaml take tensors only): their stubs also take a Number.
NUMBER_WRAPPED = {"__and__", "__or__", "__xor__", "__rand__", "__ror__", "__rxor__", "__iand__", "__ior__",
                  "__ixor__"}

HAND_STUB = "PythonStubTensor.pyi.j2"


def hand_stub(env):
    """The hand-written Tensor stub lines and the names they declare."""
    text = env.loader.get_source(env, HAND_STUB)[0]
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    cls = ast.parse("class Tensor:\n" + body).body[0]
    names = set()
    for n in cls.body:
        if isinstance(n, ast.FunctionDef):
            names.add(n.name)
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            names.add(n.target.id)
    return body.rstrip("\n"), names


def alias_names(fgroups, mgroups):
    """(functions, methods): {alias: op} for the aliases that are installed."""
    fnames = {g.name for g in fgroups}
    mnames = {g.name for g in mgroups}
    funcs = {a: o for a, o in ALIASES.items() if a not in fnames and o in fnames}
    methods = {}
    for a, o in ALIASES.items():
        for suffix in ("", "_"):
            if a + suffix not in mnames and o + suffix in mnames:
                methods[a + suffix] = o + suffix
    return funcs, methods


def stub_defs(name, group, indent=""):
    """Stub lines declaring `name` with each overload of the group, in call order (and after each one that
    also takes its int list as separate ints, that form)."""
    sigs = []
    for ov in group.overloads:
        sigs.append(f"def {name}({stub_params(ov.op, group.method)}) -> {stub_ret(ov.op)}: ...")
        if ov.varargs_intlist(group.method):
            sigs.append(f"def {name}({stub_params(ov.op, group.method, varargs=True)}) -> {stub_ret(ov.op)}: ...")
    out = []
    for sig in sigs:
        if len(sigs) > 1:
            out.append(indent + "@overload")
        out.append(indent + sig)
    return out


def stub_methods(name, group):
    """Stub lines (class-body indented) declaring `name` with each overload of the method group."""
    return stub_defs(name, group, "    ")


def operator_stubs(mgroups):
    by_name = {g.name: g for g in mgroups}
    out = []
    for dunder, method, kind in OPERATORS:
        if method not in by_name:
            raise GenError(f"codegen/python.py OPERATORS: {dunder} names {method}, which is no generated method")
        if kind != "Plain":
            # Any operand (`t == None` is False); returns a tensor, unlike object.__eq__
            out.append(f"    def {dunder}(self, other: Any) -> Tensor: ...  # type: ignore[override]")
            continue
        # `a + b` passes one operand: the overloads callable so, with their other parameters left out
        sigs = []
        for ov in by_name[method].overloads:
            args = [a for a in ov.op.schema.args if a is not self_arg(ov.op)]
            if args and not args[0].kwarg_only and all(a.default is not None for a in args[1:]):
                sig = f"def {dunder}(self, other: {stub_type(py_type(args[0].type))}) -> {stub_ret(ov.op)}: ..."
                if sig not in sigs:
                    sigs.append(sig)
        if dunder in NUMBER_WRAPPED and not any("other: Number" in x for x in sigs):
            sigs.append(f"def {dunder}(self, other: Number) -> Tensor: ...")
        if not sigs:
            raise GenError(f"codegen/python.py OPERATORS: no overload of {method} takes one operand")
        for sig in sigs:
            if len(sigs) > 1:
                out.append("    @overload")
            out.append("    " + sig)
    return out


def operator_rows():
    return "".join(f'{{"{d}", "{m}", OpKind::{k}, nullptr}},\n' for d, m, k in OPERATORS)


def aliases_py(funcs, methods):
    lines = ["# @generated by codegen/python.py from its ALIASES table (Note [Python names beyond ops.yaml]) -- edit",
             "# the table there.",
             '"""PyTorch\'s alias names: ember.<alias>, Tensor.<alias> and Tensor.<alias>_ are the op of the other name',
             '(python/ember/__init__.py installs METHODS on Tensor)."""']
    for a, o in funcs.items():
        lines.append(f"from ._C import {o} as {a}")
    lines.append("")
    lines.append("__all__ = [" + ", ".join(f'"{a}"' for a in funcs) + "]")
    lines.append("")
    lines.append("# Tensor.<alias> -> the name of the Tensor method it is")
    lines.append("METHODS = {")
    lines += [f'    "{a}": "{o}",' for a, o in methods.items()]
    lines.append("}")
    return "\n".join(lines) + "\n"


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


N_SHARDS = 4


def render(env, writer, ops):
    """Writes python/Bindings_<k>.cpp (the overload invokers and parser tables, split so that two
    cores build them in parallel), python/BindingsDecl.h (what the shards share, and register_all)
    and python/ember/_C.pyi (the stub)."""
    fgroups, mgroups, overloads = groups(ops)
    # Invokers are shared by the function and method groups; shard by op.
    used = {ov.ident for g in fgroups + mgroups for ov in g.overloads}
    ctx = dict(cstr=cstr, fgroups=fgroups, mgroups=mgroups, stub_params=stub_params, stub_ret=stub_ret,
               cpp_ret_type=cpp_ret_type, n_shards=N_SHARDS)
    for k in range(N_SHARDS):
        shard_ov = [ov for ov in overloads if ov.ident in used and ov.index % N_SHARDS == k]
        shard_groups = [g for i, g in enumerate(fgroups + mgroups) if i % N_SHARDS == k]
        writer.write(f"python/Bindings_{k}.cpp", env.get_template("PythonBindings.cpp.j2").render(
            shard=k, shard_ov=shard_ov, shard_groups=shard_groups, **ctx))
    writer.write("python/BindingsDecl.h", env.get_template("PythonBindingsDecl.h.j2").render(
        overloads=[ov for ov in overloads if ov.ident in used], **ctx))
    hand_text, hand_names = hand_stub(env)
    afuncs, amethods = alias_names(fgroups, mgroups)
    by_name = {g.name: g for g in mgroups}
    alias_lines = [x for a, o in amethods.items() for x in stub_methods(a, by_name[o])]
    ctx.update(hand_tensor=hand_text, alias_methods="\n".join(alias_lines),
               operator_methods="\n".join(operator_stubs(mgroups)),
               methods_stub="\n".join(x for g in mgroups if g.name not in hand_names for x in stub_methods(g.name, g)),
               functions_stub="\n".join(x for g in fgroups for x in stub_defs(g.name, g)))
    writer.write("python/ember/_C.pyi", env.get_template("PythonStub.pyi.j2").render(**ctx))
    writer.write("python/ember/_aliases.py", aliases_py(afuncs, amethods))
    writer.write("python/PythonOperators.inc",
                 "// @generated by codegen/python.py from its OPERATORS table (Note [Python names beyond ops.yaml]):\n"
                 "// the rows of python/src/module.cpp's g_operators.\n" + operator_rows())
    return fgroups, mgroups
