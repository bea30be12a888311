"""Parse and validate ops.yaml / derivatives.yaml into a model the templates render.

Every mistake is reported as ``ops.yaml:LINE: message`` (a GenError), never a traceback.
The schema language is PyTorch's function-schema language:

    add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

import yaml


class GenError(Exception):
    """A user-facing generator error: file:line: message."""


# ---------------------------------------------------------------- YAML with line numbers
class _LineLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader, node, deep=False):
    mapping = yaml.SafeLoader.construct_mapping(loader, node, deep=True)
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml(path: str, text: Optional[str] = None):
    if text is None:
        with open(path) as f:
            text = f.read()
    try:
        data = yaml.load(text, Loader=_LineLoader)
    except yaml.YAMLError as e:
        line = getattr(getattr(e, "problem_mark", None), "line", -1) + 1
        raise GenError(f"{path}:{line}: invalid YAML: {getattr(e, 'problem', e)}")
    if data is None:
        data = []
    if not isinstance(data, list):
        raise GenError(f"{path}:1: expected a list of entries at top level")
    return data


# ---------------------------------------------------------------- schema types
@dataclass
class Type:
    base: str  # Tensor, int, float, bool, Scalar, ScalarType, Layout, Device, MemoryFormat, str, Generator
    optional: bool = False  # T?
    is_list: bool = False  # T[] / T[N]
    list_size: Optional[int] = None
    elem_optional: bool = False  # Tensor?[]
    alias: Optional[str] = None  # 'a' in Tensor(a) / Tensor(a!)
    mutable: bool = False  # Tensor(a!)

    @property
    def is_tensor(self):
        return self.base == "Tensor"

    def __str__(self):
        s = self.base
        if self.alias:
            s += f"({self.alias}{'!' if self.mutable else ''})"
        if self.elem_optional:
            s += "?"
        if self.is_list:
            s += f"[{self.list_size or ''}]"
        if self.optional:
            s += "?"
        return s


BASE_TYPES = {"Tensor", "int", "SymInt", "float", "bool", "Scalar", "ScalarType", "Layout", "Device",
              "MemoryFormat", "str", "Generator"}

_TYPE_RE = re.compile(r"^(\w+)(?:\((\w+)(!?)(?:\s*->\s*\*)?\))?(\?)?(?:\[(\d*)\])?(\?)?$")


def parse_type(s: str, where: str) -> Type:
    m = _TYPE_RE.match(s)
    if not m:
        raise GenError(f"{where}: cannot parse type '{s}'")
    base, alias, bang, q1, lsize, q2 = m.groups()
    if base not in BASE_TYPES:
        raise GenError(f"{where}: unknown type '{base}' (known: {', '.join(sorted(BASE_TYPES))})")
    if base == "SymInt":
        base = "int"
    is_list = lsize is not None
    t = Type(base=base, alias=alias, mutable=bool(bang))
    if is_list:
        t.is_list = True
        t.list_size = int(lsize) if lsize else None
        t.elem_optional = bool(q1)
        t.optional = bool(q2)
    else:
        t.optional = bool(q1 or q2)
    if alias and base != "Tensor":
        raise GenError(f"{where}: alias annotations are only allowed on Tensor, got '{s}'")
    return t


@dataclass
class Arg:
    name: str
    type: Type
    default: Optional[str] = None
    kwarg_only: bool = False


@dataclass
class Ret:
    name: Optional[str]
    type: Type


_SCHEMA_RE = re.compile(r"^\s*([A-Za-z_][\w]*)(?:\.([\w]+))?\s*\((.*)\)\s*->\s*(.+?)\s*$")


def _split_top(s: str):
    """Split on commas not inside brackets/parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


@dataclass
class Schema:
    name: str
    overload: str
    args: list
    rets: list

    @property
    def full_name(self):
        return f"{self.name}.{self.overload}" if self.overload else self.name

    def __str__(self):
        parts, kw = [], False
        for a in self.args:
            if a.kwarg_only and not kw:
                parts.append("*")
                kw = True
            s = f"{a.type} {a.name}"
            if a.default is not None:
                s += f"={a.default}"
            parts.append(s)
        if len(self.rets) == 1 and self.rets[0].name is None:
            r = str(self.rets[0].type)
        else:
            r = "(" + ", ".join(f"{x.type}" + (f" {x.name}" if x.name else "") for x in self.rets) + ")"
        return f"{self.full_name}({', '.join(parts)}) -> {r}"


def parse_schema(s: str, where: str) -> Schema:
    m = _SCHEMA_RE.match(s)
    if not m:
        raise GenError(f"{where}: cannot parse schema '{s}' (expected 'name.overload(args) -> returns')")
    name, overload, argstr, retstr = m.groups()
    args, kw = [], False
    seen = set()
    for a in _split_top(argstr):
        if a == "*":
            kw = True
            continue
        am = re.match(r"^(.+?)\s+(\w+)(?:\s*=\s*(.+))?$", a)
        if not am:
            raise GenError(f"{where}: cannot parse argument '{a}'")
        t = parse_type(am.group(1), where)
        if am.group(2) in seen:
            raise GenError(f"{where}: duplicate argument name '{am.group(2)}'")
        seen.add(am.group(2))
        args.append(Arg(am.group(2), t, am.group(3), kw))
    rets = []
    retstr = retstr.strip()
    if retstr.startswith("(") and retstr.endswith(")"):
        inner = retstr[1:-1].strip()
        items = _split_top(inner) if inner else []
    else:
        items = [retstr]
    for r in items:
        rm = re.match(r"^(\S+)(?:\s+(\w+))?$", r)
        if not rm:
            raise GenError(f"{where}: cannot parse return '{r}'")
        rets.append(Ret(rm.group(2), parse_type(rm.group(1), where)))
    return Schema(name, overload or "", args, rets)


# ---------------------------------------------------------------- C++ rendering of types
def cpp_arg_type(t: Type) -> str:
    b = t.base
    if b == "Tensor":
        if t.is_list:
            return "const c10::List<::std::optional<at::Tensor>>&" if t.elem_optional else "at::TensorList"
        if t.optional:
            return "const ::std::optional<at::Tensor>&"
        return "at::Tensor&" if t.mutable else "const at::Tensor&"
    if b == "int":
        if t.is_list:
            return "at::OptionalIntArrayRef" if t.optional else "at::IntArrayRef"
        return "::std::optional<int64_t>" if t.optional else "int64_t"
    simple = {"float": "double", "bool": "bool", "ScalarType": "at::ScalarType", "Layout": "at::Layout",
              "Device": "at::Device", "MemoryFormat": "at::MemoryFormat", "str": "c10::string_view",
              "Generator": "at::Generator"}
    if b == "Scalar":
        if t.is_list:
            return "at::ArrayRef<at::Scalar>"
        return "const ::std::optional<at::Scalar>&" if t.optional else "const at::Scalar&"
    if b == "float" and t.is_list:
        return "at::ArrayRef<double>"
    if b == "bool" and t.is_list:
        return f"::std::array<bool, {t.list_size}>" if t.list_size else "at::ArrayRef<bool>"
    base = simple[b]
    return f"::std::optional<{base}>" if t.optional else base


def cpp_ret_type(rets) -> str:
    def one(t: Type):
        if t.base == "Tensor":
            if t.is_list:
                return "::std::vector<at::Tensor>"
            return "at::Tensor&" if t.mutable else "at::Tensor"
        return {"Scalar": "at::Scalar", "bool": "bool", "int": "int64_t", "float": "double",
                "ScalarType": "at::ScalarType"}[t.base]
    if not rets:
        return "void"
    if len(rets) == 1:
        return one(rets[0].type)
    return "::std::tuple<" + ", ".join(one(r.type) for r in rets) + ">"


def cpp_default(a: Arg, where: str) -> str:
    d, t = a.default, a.type
    if d == "None":
        return "::std::nullopt" if not (t.base == "Tensor" and not t.optional) else "{}"
    if d in ("True", "False"):
        return "true" if d == "True" else "false"
    if d.startswith("["):
        inner = d[1:-1].strip()
        return "{" + inner + "}" if inner else "{}"
    if d.startswith('"') or d.startswith("'"):
        return '"' + d[1:-1] + '"'
    if d == "contiguous_format":
        return "at::MemoryFormat::Contiguous"
    if d == "Mean":
        return "at::Reduction::Mean"
    if d in ("long", "float", "double", "int", "bool"):
        return {"long": "at::kLong", "float": "at::kFloat", "double": "at::kDouble", "int": "at::kInt",
                "bool": "at::kBool"}[d]
    if re.match(r"^-?[\d.]+(e-?\d+)?$", d) or re.match(r"^-?inf$", d):
        if "inf" in d:
            return ("-" if d.startswith("-") else "") + "::std::numeric_limits<double>::infinity()"
        if t.base == "int" and t.is_list:
            return "{" + ", ".join([d] * (t.list_size or 1)) + "}"
        return d
    raise GenError(f"{where}: cannot translate default '{d}' of argument '{a.name}'")


TENSOR_OPTIONS_ARGS = ["dtype", "layout", "device", "pin_memory"]


@dataclass
class CppArg:
    name: str
    type: str
    default: Optional[str]
    schema_args: list  # the schema Args this stands for (4 for TensorOptions)


def cpp_args(schema: Schema, where: str, with_defaults=True, out_first=False):
    """C++ parameter list; dtype/layout/device/pin_memory collapse into TensorOptions."""
    out, i, args = [], 0, schema.args
    while i < len(args):
        a = args[i]
        if a.name == "dtype" and [x.name for x in args[i:i + 4]] == TENSOR_OPTIONS_ARGS:
            out.append(CppArg("options", "at::TensorOptions", "{}", args[i:i + 4]))
            i += 4
            continue
        d = cpp_default(a, where) if (a.default is not None and with_defaults) else None
        out.append(CppArg(a.name, cpp_arg_type(a.type), d, [a]))
        i += 1
    if out_first:
        outs = [c for c in out if c.type == "at::Tensor&" and c.schema_args[0].kwarg_only]
        out = outs + [c for c in out if c not in outs]
    # C++ needs defaults to be trailing: drop defaults that precede a non-default argument.
    seen_nondefault = False
    for c in reversed(out):
        if c.default is None:
            seen_nondefault = True
        elif seen_nondefault:
            c.default = None
    return out


def ident(full_name: str) -> str:
    return full_name.replace(".", "_")


# ---------------------------------------------------------------- op entries
DTYPE_GROUPS = {
    "floating": ["Float", "Double", "Half", "BFloat16"],
    "integral": ["Byte", "Char", "Short", "Int", "Long"],
    "bool": ["Bool"],
}
DTYPE_GROUPS["all"] = DTYPE_GROUPS["integral"] + DTYPE_GROUPS["floating"]
DTYPE_GROUPS["all_and_bool"] = DTYPE_GROUPS["all"] + ["Bool"]
DTYPE_GROUPS["integral_and_bool"] = DTYPE_GROUPS["integral"] + ["Bool"]
DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
PROMOTIONS = {"default", "int_to_float", "always_bool", "none"}


@dataclass
class Sample:
    line: int
    tensors: dict  # arg -> {shape:[...], layout:str, dtype:str, domain, index_bound, special:bool}
    scalars: dict  # arg -> python value (rendered to C++ later)
    dtype: str
    domain: tuple
    index: int
    special: bool = False  # generated: a copy of a sample with NaN, ±inf, -0.0, denormals, extremes
    layouts: bool = False  # generated: a copy of a sample with non-contiguous layouts (_add_layout_sample)


@dataclass
class Op:
    schema: Schema
    line: int
    variants: list
    kind: str  # pointwise | dispatch | composite
    expr: Optional[str] = None
    dtypes: list = field(default_factory=list)
    promote: str = "default"
    wrapped: list = field(default_factory=list)  # Scalar args that take part in type promotion
    dispatch: dict = field(default_factory=dict)
    samples: list = field(default_factory=list)
    family: str = "misc"
    base: Optional["Op"] = None  # for generated in-place/out variants: the functional op
    variant_kind: str = "functional"  # functional | inplace | out
    checks: dict = field(default_factory=dict)
    tol: Optional[float] = None
    ref: Optional[str] = None
    test: bool = True
    grad: bool = True
    # Pointwise argument checks that need the computation dtype: [C++ condition over `dt` and the
    # op's Scalar args, message parts...]; a part naming an argument prints its value.
    require: list = field(default_factory=list)
    # True, or the reason libtorch's output is not this op's reference (see tools/golden).
    golden: object = True
    # True, or the reason the op gets no generated special-value sample.
    special: object = True
    # True, or the reason the op gets no generated layout sample.
    layouts: object = True
    # True, or the reason libtorch's gradients are not this op's reference.
    golden_grad: object = True
    golden_grad_tol: Optional[float] = None  # relative tolerance of the libtorch gradient comparison
    # True, or the reason a CUDA result is not comparable with the CPU's (the op reads storage
    # outside its input view, which a copy to the device does not carry).
    cuda_compare: object = True
    # None, or the reason the op needs values on a data-less backend (Meta): its generated backend
    # tests may then skip a sample that raises "<backend> tensors have no data" (composites over a
    # `Meta: raise` op, or that return a value computed from data). Any other op must run.
    needs_data: Optional[str] = None
    # True: Half/BFloat16 calls of this unary op read a 65,536-entry table filled from its own
    # vector code (Note [16-bit lookup tables] in aten/ATen/native/cpu/Lut16.h).
    lut16: bool = False

    @property
    def full_name(self):
        return self.schema.full_name

    @property
    def ident(self):
        return ident(self.full_name)

    @property
    def cpp_name(self):
        if self.variant_kind == "out":
            return self.schema.name + "_out"
        return self.schema.name

    @property
    def tensor_args(self):
        return [a for a in self.schema.args if a.type.is_tensor and not a.type.is_list]


KNOWN_KEYS = {"func", "variants", "pointwise", "dispatch", "composite", "samples", "dtypes", "promote",
              "wrapped", "family", "checks", "tol", "ref", "test", "__line__", "inplace", "out", "doc", "grad",
              "require", "golden", "special", "layouts", "golden_grad", "golden_grad_tol", "cuda_compare",
              "lut16", "needs_data"}


def _dtypes(spec, where):
    if spec is None:
        return DTYPE_GROUPS["all"]
    items = spec if isinstance(spec, list) else [spec]
    out = []
    for it in items:
        if it in DTYPE_GROUPS:
            out += DTYPE_GROUPS[it]
        elif it in DTYPE_NAMES:
            out.append(DTYPE_NAMES[it])
        else:
            raise GenError(f"{where}: unknown dtype or group '{it}' (groups: {', '.join(DTYPE_GROUPS)}; "
                           f"dtypes: {', '.join(DTYPE_NAMES)})")
    return list(dict.fromkeys(out))


def _inplace_schema(s: Schema) -> Schema:
    args = [Arg(a.name, Type(**{**a.type.__dict__}), a.default, a.kwarg_only) for a in s.args]
    args[0].type.alias, args[0].type.mutable = "a", True
    return Schema(s.name + "_", s.overload, args, [Ret(None, Type("Tensor", alias="a", mutable=True))])


def _has_tensor_options(s: Schema) -> bool:
    names = [a.name for a in s.args]
    return any(names[i:i + 4] == TENSOR_OPTIONS_ARGS for i in range(len(names)))


def _out_schema(s: Schema, spec=None) -> Schema:
    """The out= form: the functional arguments, then keyword-only mutable tensors, one per result
    (`out` for one; for several, the names and overload an `out: {overload, names}` entry gives).
    The out tensors come last, so the Python binding can take them as one `out=` tuple."""
    # A factory's dtype/layout/device/pin_memory are out's (Note [Composite out= variants]).
    args = [Arg(a.name, Type(**{**a.type.__dict__}), a.default, a.kwarg_only) for a in s.args
            if not (_has_tensor_options(s) and a.name in TENSOR_OPTIONS_ARGS)]
    if spec is None or spec.get("names") is None:
        args.append(Arg("out", Type("Tensor", alias="a", mutable=True), None, True))
        ov = spec["overload"] if spec else (f"{s.overload}_out" if s.overload else "out")
        return Schema(s.name, ov, args, [Ret(None, Type("Tensor", alias="a", mutable=True))])
    letters = "abcdefgh"
    rets = []
    for i, (n, r) in enumerate(zip(spec["names"], s.rets)):
        args.append(Arg(n, Type("Tensor", alias=letters[i], mutable=True), None, True))
        rets.append(Ret(r.name, Type("Tensor", alias=letters[i], mutable=True)))
    return Schema(s.name, spec["overload"], args, rets)


def _check_composite_out(s: Schema, where: str, value):
    """`out:` on a dispatch or composite op: `true` for one fresh Tensor result (`{overload: <name>}`
    where libtorch's overload name is not `<overload>_out`: arange.start_step's is start_out); for
    several fresh Tensor results, `{overload: <name>, names: [<one per result>]}` (libtorch's overload
    and out argument names: max.dim's is max.dim_max(..., *, Tensor(a!) max, Tensor(b!) max_values)).
    A factory's out= form drops dtype/layout/device/pin_memory: they are out's.
    Returns the spec for _out_schema (None for one result under the default name)."""
    rets = s.rets
    fresh = all(r.type.is_tensor and not r.type.is_list and r.type.alias is None for r in rets)
    if value is True:
        if len(rets) != 1 or not fresh:
            raise GenError(f"{where}: 'out: true' needs an op that returns one new Tensor; '{s.full_name}' returns "
                           f"{', '.join(str(r.type) for r in rets) or 'nothing'} (several results take "
                           f"'out: {{overload: ..., names: [...]}}')")
        spec = None
    elif isinstance(value, dict) and set(value) - {"__line__"} == {"overload"} and isinstance(value["overload"], str):
        if len(rets) != 1 or not fresh:
            raise GenError(f"{where}: 'out: {{overload}}' needs an op that returns one new Tensor; '{s.full_name}' returns "
                           f"{', '.join(str(r.type) for r in rets) or 'nothing'}")
        spec = {"overload": value["overload"], "names": None}
    else:
        if not isinstance(value, dict) or set(value) - {"overload", "names", "__line__"} or \
                not isinstance(value.get("overload"), str) or not isinstance(value.get("names"), list):
            raise GenError(f"{where}: 'out' is true or {{overload: <name>, names: [<out argument per result>]}}; "
                           f"got {value!r}")
        if len(rets) < 2 or not fresh:
            raise GenError(f"{where}: 'out: {{overload, names}}' needs an op that returns several new Tensors; "
                           f"'{s.full_name}' returns {', '.join(str(r.type) for r in rets) or 'nothing'}")
        names = [str(n) for n in value["names"]]
        if len(names) != len(rets) or len(set(names)) != len(names):
            raise GenError(f"{where}: 'out' names {names}: expected {len(rets)} distinct names, one per result")
        clash = [n for n in names if n in {a.name for a in s.args}]
        if clash:
            raise GenError(f"{where}: out argument name(s) {clash} already name arguments of '{s.full_name}'")
        spec = {"overload": value["overload"], "names": names}
    if any(a.type.mutable for a in s.args):
        raise GenError(f"{where}: 'out' needs an op that writes none of its arguments")
    if set(TENSOR_OPTIONS_ARGS) <= {a.name for a in s.args} and not _has_tensor_options(s):
        raise GenError(f"{where}: 'out' on an op whose dtype/layout/device/pin_memory arguments are not together")
    if _has_tensor_options(s) and any(a.type.is_tensor for a in s.args):
        raise GenError(f"{where}: 'out' on an op with tensor and dtype/layout/device arguments ('{s.full_name}'): "
                       f"only factories' out= forms take those from `out`")
    return spec


def _parse_samples(entry, schema: Schema, where_file, line):
    raw = entry.get("samples")
    if not raw:
        raise GenError(f"{where_file}:{line}: op '{schema.full_name}' has no samples "
                       f"(every op lists sample inputs for the generated tests)")
    argnames = {a.name: a for a in schema.args}
    out = []
    for i, s in enumerate(raw):
        sl = s.get("__line__", line) if isinstance(s, dict) else line
        w = f"{where_file}:{sl}"
        if not isinstance(s, dict):
            raise GenError(f"{w}: a sample must be a mapping of argument name to shape/value")
        tensors, scalars = {}, {}
        # `dtype:` sets the sample's tensor dtype, unless the op has an argument named dtype
        # (then `tensor_dtype:` does).
        dkey = "tensor_dtype" if "dtype" in argnames else "dtype"
        dtype = s.get(dkey, "float32")
        if dtype not in DTYPE_NAMES:
            raise GenError(f"{w}: unknown sample dtype '{dtype}'")
        domain = tuple(s.get("domain", [-2.0, 2.0]))
        for k, v in s.items():
            if k in ("__line__", dkey, "domain"):
                continue
            if k not in argnames:
                raise GenError(f"{w}: sample names '{k}', which is not an argument of {schema.full_name}")
            a = argnames[k]
            if a.type.is_tensor and not a.type.is_list and a.type.optional and v is None:
                scalars[k] = None  # an optional tensor left out (`bias: null`)
            elif a.type.is_tensor and not a.type.is_list:
                if isinstance(v, list):
                    tensors[k] = {"shape": v, "layout": "contiguous", "dtype": None, "domain": None,
                                  "index_bound": None, "special": False}
                elif isinstance(v, dict):
                    if "shape" not in v:
                        raise GenError(f"{w}: tensor sample for '{k}' needs 'shape'")
                    lay = v.get("layout", "contiguous")
                    if lay not in LAYOUTS:
                        raise GenError(f"{w}: unknown layout '{lay}' ({', '.join(LAYOUTS)})")
                    if lay == "channels_last" and len(v["shape"]) not in (4, 5):
                        raise GenError(f"{w}: layout channels_last needs a shape of rank 4 or 5")
                    dt = v.get("dtype")
                    if dt is not None and dt not in DTYPE_NAMES:
                        raise GenError(f"{w}: unknown dtype '{dt}'")
                    tensors[k] = {"shape": v["shape"], "layout": lay, "dtype": dt,
                                  "domain": v.get("domain"), "index_bound": v.get("index_bound"),
                                  "special": bool(v.get("special", False))}
                else:
                    raise GenError(f"{w}: tensor sample for '{k}' must be a shape list or a mapping")
            elif a.type.is_tensor and a.type.is_list:
                if not isinstance(v, list) or not all(isinstance(x, list) for x in v):
                    raise GenError(f"{w}: Tensor[] sample for '{k}' must be a list of shapes")
                tensors[k] = {"list": v, "layout": "contiguous", "dtype": None, "domain": None,
                              "index_bound": None, "special": False}
            else:
                scalars[k] = v
        for a in schema.args:
            if a.type.is_tensor and not a.type.optional and not a.type.mutable and a.name not in tensors:
                raise GenError(f"{w}: sample for {schema.full_name} gives no shape for tensor argument '{a.name}'")
        out.append(Sample(sl, tensors, scalars, dtype, domain, i))
    return out


FLOATING = ("float32", "float64", "float16", "bfloat16")
# Tensor layouts a sample can ask for (tests/sample_inputs.h builds them).
LAYOUTS = ("contiguous", "transposed", "strided", "expanded", "offset", "channels_last")


def _layout_for(rank, position):
    """The layout a generated layout sample gives a tensor: every other tensor argument is an offset
    view (mixed layouts within one call); the others get the rank's most telling non-contiguous
    layout (channels-last for images and volumes, transposed matrices, strided vectors)."""
    if position % 2 == 1 or rank == 0:
        return "offset"
    if rank in (4, 5):
        return "channels_last"
    return "transposed" if rank >= 2 else "strided"


def _add_layout_sample(op):
    """Appends a copy of the op's first sample with every single-tensor argument in a non-contiguous
    layout (see _layout_for). Its expected outputs come from libtorch (tests/golden) like any
    sample's, and gradcheck runs on it with the layouts kept."""
    for s in op.samples:
        if s.special:
            continue
        tens, pos = {}, 0
        for k, t in s.tensors.items():
            t2 = dict(t)
            if "list" not in t:
                t2["layout"] = _layout_for(len(t["shape"]), pos)
                pos += 1
            tens[k] = t2
        if pos:
            op.samples.append(Sample(s.line, tens, dict(s.scalars), s.dtype, s.domain, len(op.samples), False, True))
            return


INTEGRAL = ("int64", "int32", "int16", "int8", "uint8")


def _add_special_sample(op):
    """Appends a copy of the op's first floating sample whose floating, non-index tensors hold the
    special values (NaN, +-inf, -0.0, denormals, huge and tiny magnitudes) at every other element,
    and likewise a copy of its first integral sample with the dtype's extremes, their neighbours,
    0 and ±1 (tests/sample_inputs.h). Their expected outputs come from libtorch (tests/golden)."""
    for kinds, name in ((FLOATING, "floating"), (INTEGRAL, "integral")):
        if isinstance(op.special, dict) and op.special.get(name, True) is not True:
            continue
        for s in list(op.samples):
            if s.special:
                continue
            tens = {}
            hit = False
            for k, t in s.tensors.items():
                t2 = dict(t)
                dt = t.get("dtype") or s.dtype
                if "list" not in t and t.get("index_bound") is None and dt in kinds:
                    t2["special"] = True
                    hit = True
                tens[k] = t2
            if hit:
                op.samples.append(Sample(s.line, tens, dict(s.scalars), s.dtype, s.domain, len(op.samples), True))
                break
        else:
            if kinds is INTEGRAL and op.kind == "pointwise" and "Long" in op.dtypes:
                # A pointwise op that takes integers but has no integral sample: its first sample,
                # as int64, with the extremes.
                s = next((x for x in op.samples if not x.special), None)
                if s is not None:
                    tens = {k: dict(t, special=True, dtype="int64") for k, t in s.tensors.items()}
                    op.samples.append(Sample(s.line, tens, dict(s.scalars), "int64", s.domain, len(op.samples), True))


# ---------------------------------------------------------------- backends (codegen/backends.yaml)
BACKENDS_PATH = __import__("os").path.join(__import__("os").path.dirname(__import__("os").path.abspath(__file__)),
                                           "backends.yaml")
BACKEND_KEYS = {"name", "yaml_key", "pointwise", "composites", "generic", "register", "missing", "tests", "__line__"}
# `dispatch: {Meta: raise}`: the op's output shape depends on its data; a generated Meta kernel raises.
META_RAISE = "raise"


@dataclass
class Backend:
    name: str
    yaml_key: bool
    pointwise: str  # cpu | cuda | meta | none
    composites: bool
    generic: bool
    register: Optional[str]
    missing: str  # error | stub | fallback
    tests: Optional[str] = None

    @property
    def lower(self):
        return self.name.lower()


_BACKENDS = None


def load_backends(path: str = BACKENDS_PATH):
    """The backends list (codegen/backends.yaml), validated; cached for the default path."""
    global _BACKENDS
    if path == BACKENDS_PATH and _BACKENDS is not None:
        return _BACKENDS
    out = []
    for e in load_yaml(path):
        where = f"{path}:{e.get('__line__', 0) if isinstance(e, dict) else 0}"
        if not isinstance(e, dict) or "name" not in e:
            raise GenError(f"{where}: each backend needs 'name'")
        for k in e:
            if k not in BACKEND_KEYS:
                raise GenError(f"{where}: unknown key '{k}' (known: {', '.join(sorted(BACKEND_KEYS - {'__line__'}))})")
        if e.get("pointwise", "none") not in ("cpu", "cuda", "meta", "none"):
            raise GenError(f"{where}: pointwise is cpu, cuda, meta or none")
        if e.get("missing", "error") not in ("error", "stub", "fallback"):
            raise GenError(f"{where}: missing is error, stub or fallback")
        if e.get("tests") not in (None, "compare_cpu_shapes"):
            raise GenError(f"{where}: tests is compare_cpu_shapes or absent")
        out.append(Backend(e["name"], bool(e.get("yaml_key", False)), e.get("pointwise", "none"),
                           bool(e.get("composites", False)), bool(e.get("generic", False)), e.get("register"),
                           e.get("missing", "error"), e.get("tests")))
    if [b.name for b in out[:2]] != ["CPU", "CUDA"]:
        raise GenError(f"{path}:1: the first two backends are CPU and CUDA (the dispatch table's rows 0 and 1)")
    if path == BACKENDS_PATH:
        _BACKENDS = out
    return out


def dispatch_keys():
    return [b.name for b in load_backends() if b.yaml_key]


def parse_ops(path: str, text: Optional[str] = None):
    entries = load_yaml(path, text)
    ops, names = [], {}
    for e in entries:
        if not isinstance(e, dict) or "func" not in e:
            line = e.get("__line__", 0) if isinstance(e, dict) else 0
            raise GenError(f"{path}:{line}: each entry needs 'func: <schema>'")
        line = e["__line__"]
        where = f"{path}:{line}"
        for k in e:
            if k not in KNOWN_KEYS:
                raise GenError(f"{where}: unknown key '{k}' (known: {', '.join(sorted(KNOWN_KEYS - {'__line__'}))})")
        schema = parse_schema(e["func"], where)
        kinds = [k for k in ("pointwise", "dispatch", "composite") if k in e]
        if len(kinds) != 1:
            raise GenError(f"{where}: op '{schema.full_name}' needs exactly one of pointwise/dispatch/composite, "
                           f"got {kinds or 'none'}")
        kind = kinds[0]
        variants = [v.strip() for v in str(e.get("variants", "function")).split(",")]
        for v in variants:
            if v not in ("function", "method"):
                raise GenError(f"{where}: unknown variant '{v}' (function, method)")
        if "method" in variants and not (schema.args and schema.args[0].name == "self"):
            raise GenError(f"{where}: method variant needs a first argument named 'self'")
        promote = e.get("promote", "default")
        if promote not in PROMOTIONS:
            raise GenError(f"{where}: unknown promote '{promote}' ({', '.join(sorted(PROMOTIONS))})")
        op = Op(schema=schema, line=line, variants=variants, kind=kind, dtypes=_dtypes(e.get("dtypes"), where),
                promote=promote, wrapped=list(e.get("wrapped", [])), family=e.get("family", "misc"),
                checks={k: v for k, v in (e.get("checks", {}) or {}).items() if k != "__line__"}, tol=e.get("tol"), ref=e.get("ref"), test=e.get("test", True),
                grad=e.get("grad", True))
        argnames = [a.name for a in schema.args]
        g = e.get("golden", True)
        if g is not True and not (isinstance(g, str) and g.strip()):
            raise GenError(f"{where}: golden is true or a string giving the reason libtorch is not the reference")
        op.golden = g
        sp = e.get("special", True)
        # true, a reason (no special-value samples), or per kind {floating: true|reason, integral: ...}
        ok_reason = lambda v: v is True or (isinstance(v, str) and v.strip())
        if isinstance(sp, dict):
            sp = {k: v for k, v in sp.items() if k != "__line__"}
            # gradient: a reason to compute the special-value sample's gradients without comparing
            # them with libtorch's (where libtorch's derivative at inf or NaN is an artefact).
            if not set(sp) <= {"floating", "integral", "gradient"} or not all(ok_reason(v) for v in sp.values()) \
                    or sp.get("gradient", "x") is True:
                raise GenError(f"{where}: special per kind is {{floating: true|reason, integral: true|reason, gradient: reason}}")
        elif not ok_reason(sp):
            raise GenError(f"{where}: special is true, a string giving the reason the op skips special values, "
                           f"or {{floating: ..., integral: ...}}")
        op.special = sp
        lay = e.get("layouts", True)
        if lay is not True and not (isinstance(lay, str) and lay.strip()):
            raise GenError(f"{where}: layouts is true or a string giving the reason the op skips the layout sample")
        op.layouts = lay
        gg = e.get("golden_grad", True)
        if gg is not True and not (isinstance(gg, str) and gg.strip()):
            raise GenError(f"{where}: golden_grad is true or a string giving the reason libtorch's gradients differ")
        op.golden_grad = gg
        ggt = e.get("golden_grad_tol")
        if ggt is not None:
            if not (isinstance(ggt, dict) and isinstance(ggt.get("tol"), (int, float)) and isinstance(ggt.get("why"), str)
                    and ggt["why"].strip() and set(ggt) <= {"tol", "why", "__line__"}):
                raise GenError(f"{where}: golden_grad_tol is {{tol: <relative tolerance>, why: \"<reason libtorch's gradients are less exact>\"}}")
            op.golden_grad_tol = float(ggt["tol"])
        cc = e.get("cuda_compare", True)
        if cc is not True and not (isinstance(cc, str) and cc.strip()):
            raise GenError(f"{where}: cuda_compare is true or a string giving the reason CUDA results differ from the CPU's")
        op.cuda_compare = cc
        nd = e.get("needs_data")
        if nd is not None:
            if not (isinstance(nd, str) and nd.strip()):
                raise GenError(f"{where}: needs_data is a string giving the reason the op needs values (meta tensors have none)")
            if e.get("dispatch", {}).get("Meta") == META_RAISE:
                raise GenError(f"{where}: needs_data is implied by `Meta: raise`; drop one")
        op.needs_data = nd
        lut = e.get("lut16", False)
        if not isinstance(lut, bool):
            raise GenError(f"{where}: lut16 is true or false")
        if lut:
            if kind != "pointwise" or len(schema.args) != 1 or not schema.args[0].type.is_tensor:
                raise GenError(f"{where}: lut16 is for pointwise ops of one Tensor argument and no scalars "
                               f"(the table maps each 16-bit input to its result)")
            if promote == "always_bool" or not {"Half", "BFloat16"} & set(op.dtypes):
                raise GenError(f"{where}: lut16 needs Half or BFloat16 among the dtypes and a result of the input's dtype")
        op.lut16 = lut
        for r in e.get("require", []) or []:
            if not isinstance(r, list) or len(r) < 2 or not all(isinstance(x, str) for x in r):
                raise GenError(f"{where}: each require entry is [condition, message parts...]")
            if kind != "pointwise":
                raise GenError(f"{where}: require is for pointwise ops (others check in their kernels)")
            op.require.append({"cond": r[0], "parts": [{"arg": x in argnames, "text": x} for x in r[1:]]})
        for w in op.wrapped:
            if w not in argnames:
                raise GenError(f"{where}: wrapped names '{w}', which is not an argument")
        for k, v in op.checks.items():
            if k == "cross_device" and isinstance(v, bool):
                continue
            if k not in argnames:
                raise GenError(f"{where}: checks names '{k}', which is not an argument")
        if kind == "pointwise":
            op.expr = str(e["pointwise"])
            if schema.rets and (len(schema.rets) != 1 or not schema.rets[0].type.is_tensor):
                raise GenError(f"{where}: a pointwise op returns one Tensor")
            if not op.tensor_args:
                raise GenError(f"{where}: a pointwise op needs at least one Tensor argument")
            for a in schema.args:
                if a.type.is_list or (a.type.is_tensor and a.type.optional):
                    raise GenError(f"{where}: pointwise op argument '{a.name}' has type {a.type}; "
                                   f"pointwise ops take Tensors and scalars only")
        elif kind == "dispatch":
            d = e["dispatch"]
            if not isinstance(d, dict) or "CPU" not in d:
                raise GenError(f"{where}: dispatch needs at least 'CPU: <kernel function>'")
            keys = dispatch_keys()
            for k in d:
                if k not in keys and k != "__line__":
                    raise GenError(f"{where}: unknown dispatch key '{k}' ({', '.join(keys)}; codegen/backends.yaml)")
            op.dispatch = {k: v for k, v in d.items() if k != "__line__"}
        op.samples = _parse_samples(e, schema, path, line)
        if op.special is True or isinstance(op.special, dict):
            _add_special_sample(op)
        if op.layouts is True:
            _add_layout_sample(op)
        _add(ops, names, op, path)
        if kind == "pointwise" and e.get("inplace", True):
            ip = Op(**{**op.__dict__})
            ip.schema, ip.variants, ip.base, ip.variant_kind = _inplace_schema(schema), ["function", "method"], op, "inplace"
            _add(ops, names, ip, path)
        if kind == "pointwise" and e.get("out", True):
            o = Op(**{**op.__dict__})
            o.schema, o.variants, o.base, o.variant_kind = _out_schema(schema), ["function"], op, "out"
            _add(ops, names, o, path)
        elif kind != "pointwise" and e.get("out", False) not in (False, None):
            spec = _check_composite_out(schema, where, e["out"])
            # Note [Composite out= variants]: computed by the functional op, then written into `out`
            # (codegen/templates/OutVariants.cpp.j2); random ops are not compared with their
            # functional run by the generated tests (two calls draw different numbers).
            o = Op(**{**op.__dict__})
            o.schema, o.variants, o.base, o.variant_kind, o.kind = _out_schema(schema, spec), ["function"], op, "out", "composite"
            o.test = op.test and not any(a.type.base == "Generator" for a in schema.args)
            _add(ops, names, o, path)
    for i, op in enumerate(ops):
        op.id = i
        op.path = path
    return ops


def _add(ops, names, op, path):
    if op.full_name in names:
        raise GenError(f"{path}:{op.line}: op '{op.full_name}' already declared at line {names[op.full_name]}")
    names[op.full_name] = op.line
    ops.append(op)


# ---------------------------------------------------------------- type promotion (mirrors ScalarType.h)
def promote_types(a, b):
    if a == b:
        return a
    if a is None:
        return b
    if b is None:
        return a
    if a == "Bool":
        return b
    if b == "Bool":
        return a
    fl = {"Half": 1, "BFloat16": 1, "Float": 2, "Double": 3}
    isz = {"Byte": 1, "Char": 1, "Short": 2, "Int": 4, "Long": 8}
    if a in fl and b in fl:
        if fl[a] == 1 and fl[b] == 1:
            return "Float"
        return a if fl[a] >= fl[b] else b
    if a in fl:
        return a
    if b in fl:
        return b
    if "Byte" in (a, b):
        other = b if a == "Byte" else a
        return "Short" if isz[other] == 1 else other
    return a if isz[a] >= isz[b] else b
