#!/usr/bin/env python3
"""Ember's generator: ops.yaml (+ derivatives.yaml) -> dispatcher, at:: functions, Tensor methods,
CPU/CUDA kernel bindings and generated op tests, written into the build directory.

    python3 codegen/gen.py --ops ops.yaml --out build/generated [--cuda] [--list-outputs]

Files are written only when their content changed, so editing one op's entry rebuilds only what
that op touches. Errors are printed as `ops.yaml:LINE: message` and exit with status 1.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys

import jinja2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import (GenError, cpp_args, cpp_arg_type, cpp_default, cpp_ret_type, parse_ops, promote_types, DTYPE_NAMES,  # noqa: E402
                   DTYPE_GROUPS, META_RAISE, load_backends)

HEADER = "// @generated from ops.yaml by codegen/gen.py — edit the YAML"
N_FUNCTION_SHARDS = 4

CPP_DTYPE = {"Byte": "uint8_t", "Char": "int8_t", "Short": "int16_t", "Int": "int32_t", "Long": "int64_t",
             "Half": "c10::Half", "Float": "float", "Double": "double", "Bool": "bool", "BFloat16": "c10::BFloat16"}


# ---------------------------------------------------------------- helpers used by templates
def params(op, defaults=True, skip_self=False, out_first=False):
    where = f"{op.path}:{op.line}"
    cas = cpp_args(op.schema, where, with_defaults=defaults, out_first=out_first)
    if skip_self:
        cas = cas[1:]
    return ", ".join(f"{c.type} {c.name}" + (f" = {c.default}" if c.default is not None and defaults else "")
                     for c in cas)


def arg_names(op, skip_self=False):
    cas = cpp_args(op.schema, "", with_defaults=False)
    if skip_self:
        cas = cas[1:]
    return ", ".join(c.name for c in cas)


def fn_type(op):
    cas = cpp_args(op.schema, "", with_defaults=False)
    return f"{cpp_ret_type(op.schema.rets)}({', '.join(c.type for c in cas)})"


def dispatch_args(op):
    """Expressions the dispatcher reads devices / requires_grad from."""
    cas = cpp_args(op.schema, "", with_defaults=False)
    tensors = [c.name for c in cas if c.schema_args[0].type.is_tensor]
    if tensors:
        return "::ember::dispatch::key_set(" + ", ".join(tensors) + ")"
    for c in cas:
        if c.type == "at::TensorOptions":
            return "::ember::dispatch::key_set_for(options.device())"
        if c.name == "device":
            return "::ember::dispatch::key_set_for(device)"
    return "::ember::dispatch::KeySet{}"


def arg_checks(op):
    lines = []
    fname = op.schema.name if op.variant_kind != "out" else op.schema.name + "_out"
    for a in op.schema.args:
        if a.type.is_tensor and not a.type.optional and not a.type.is_list:
            lines.append(f'EMBER_CHECK({a.name}.defined(), "[{fname}] expected a defined tensor for argument '
                         f'\'{a.name}\'; got an undefined tensor");')
    devs = [a.name for a in op.schema.args if a.type.is_tensor and not a.type.is_list]
    if op.kind == "dispatch" and len(devs) >= 2 and not op.checks.get("cross_device"):
        lines.append(f'::ember::dispatch::check_same_device("{fname}", {", ".join(devs)});')
    for name, spec in op.checks.items():
        if not isinstance(spec, dict):
            continue
        if "dim" in spec:
            d = spec["dim"]
            dims = d if isinstance(d, list) else [d]
            cond = " || ".join(f"{name}.dim() == {x}" for x in dims)
            want = " or ".join(str(x) for x in dims)
            lines.append(f'EMBER_CHECK({cond}, "[{fname}] expected \'{name}\' to be a {want}-D tensor; got a ", '
                         f'{name}.dim(), "-D tensor of shape ", {name}.sizes());')
        if spec.get("nonzero_divisor"):
            # Integer division by zero raises (as libtorch); floating division gives inf/NaN.
            arg = next(a for a in op.schema.args if a.name == name)
            first = op.schema.args[0].name
            if arg.type.is_tensor:
                # (a meta divisor has no values to check: Meta kernels compute shapes only)
                zero = f"(!{name}.is_meta() && {name}.eq(0).any().item<bool>())"
            else:
                zero = f"{name}.toDouble() == 0"
            lines.append(f'EMBER_CHECK(!(c10::isIntegralType(at::result_type({first}, {name}), true) && {zero}), '
                         f'"[{fname}] expected a non-zero divisor ' + "'" + name + "'" + ' for integer inputs; got a zero");')
        if "dtypes" in spec:
            from model import _dtypes
            dts = _dtypes(spec["dtypes"], f"{op.path}:{op.line}")
            cond = " || ".join(f"{name}.scalar_type() == at::k{d}" for d in dts)
            want = ", ".join(_pretty(d) for d in dts)
            lines.append(f'EMBER_CHECK({cond}, "[{fname}] expected \'{name}\' of dtype {want}; got ", '
                         f'c10::dtypeName({name}.scalar_type()));')
    return lines


def _pretty(dt):
    return {v: k for k, v in DTYPE_NAMES.items()}[dt]


def mutable_args(op):
    """Tensors an op writes into (their version counters are bumped). resize_ changes metadata, not
    data, and like libtorch leaves the version alone."""
    if op.schema.name == "resize_":
        return []
    return [a.name for a in op.schema.args if a.type.is_tensor and a.type.mutable and not a.type.is_list]


def inplace_sample_ok(op, s):
    """An in-place variant applies to a sample when the result has self's shape."""
    if op.kind != "pointwise":
        return True
    return pw_shape(op, s) == s.tensors["self"]["shape"]


def sample_seed(op, s):
    """A stable RNG seed per sample: from the test's name, so adding or moving ops in the YAML does
    not change other samples' inputs (their golden data stays valid)."""
    import zlib
    return zlib.crc32(f"{op.full_name} #{s.index}".encode()) % 1000003 + 1000


def view_primitive(op):
    """A view op with its own kernel (not a composite over other views): the at:: function records
    the view for autograd when the call did not go through the Autograd row."""
    rets = op.schema.rets
    return (op.kind != "composite" and len(rets) == 1 and rets[0].type.alias is not None
            and not rets[0].type.mutable and op.variant_kind == "functional")


def has_options(op):
    return cpp_ret_type(op.schema.rets) == "at::Tensor" and any(
        c.type == "at::TensorOptions" for c in cpp_args(op.schema, "", with_defaults=False))


def list_args(op):
    return [a.name for a in op.schema.args if a.type.is_tensor and a.type.is_list and not a.type.elem_optional]


def optional_edge(op, name):
    a = next(x for x in op.schema.args if x.name == name)
    if a.type.optional:
        return f"{name} ? torch::autograd::gradient_edge(*{name}) : torch::autograd::Edge()"
    return f"torch::autograd::gradient_edge({name})"


def requires_grad_ptr(op, name):
    """The pointer compute_requires_grad reads for a tensor argument (null for an absent Tensor?)."""
    a = next(x for x in op.schema.args if x.name == name)
    if a.type.optional:
        return f"({name} ? &*{name} : nullptr)"
    return f"&{name}"


def kernel_name(op, backend):
    if op.kind == "pointwise":
        return f"{op.ident}_{backend.lower()}"
    if op.kind == "dispatch":
        return op.dispatch.get(backend)
    return op.ident  # composite: at::native::<ident>


# ---------------------------------------------------------------- backends (codegen/backends.yaml)
def backend_kernel(op, be):
    """The kernel a backend gets for a non-composite op: (name, how) where how is 'yaml' (named in
    ops.yaml), 'pointwise' (generated from the declaration), 'generic' (the op's device-generic
    CPU/CUDA function), 'raise' (data-dependent output shape: a generated kernel raises), or
    (None, None) when it has none (the backend's `missing:` policy applies)."""
    if op.kind == "composite":
        return None, None
    if op.kind == "pointwise":
        if be.pointwise == "none":
            return None, None
        return f"{op.ident}_{be.lower}", "pointwise"
    named = op.dispatch.get(be.name)
    if named == META_RAISE and be.pointwise == "meta":
        return f"{op.ident}_{be.lower}_raise", "raise"
    if named:
        return named, "yaml"
    cpu, cuda = op.dispatch.get("CPU"), op.dispatch.get("CUDA")
    if be.generic and cpu and cpu == cuda:
        return cpu, "generic"
    return None, None


def render_backends(env, w, ops, backends, tests):
    """Registration tables (src/RegisterBackends.cpp) of the backends whose `register:` is the
    generic template, the Meta pointwise kernels (kernels/meta/pw_<family>.cpp), and, with tests,
    each backend's shape-comparison test (tests/<backend>_<family>.cpp) and its list of ops
    without a kernel."""
    generic = [b for b in backends if b.register == "RegisterBackend.cpp.j2"]
    w.write("src/RegisterBackends.cpp", env.get_template("RegisterBackend.cpp.j2").render(
        ops=ops, backends=generic))
    pointwise = [o for o in ops if o.kind == "pointwise"]
    for be in backends:
        if be.pointwise != "meta":
            continue
        for fam in sorted({o.family for o in pointwise}):
            w.write(f"kernels/{be.lower}/pw_{fam}.cpp", env.get_template("PointwiseMeta.cpp.j2").render(
                ops=ops, be=be, fam_ops=[o for o in pointwise if o.family == fam]))
    if not tests:
        return
    for be in backends:
        if be.tests != "compare_cpu_shapes":
            continue
        missing = [o.full_name for o in ops if o.kind != "composite" and backend_kernel(o, be)[0] is None]
        raising = [o.full_name for o in ops if backend_kernel(o, be)[1] == "raise"]
        needs_data = [o.full_name for o in ops if o.needs_data]
        for fam in sorted({o.family for o in ops}):
            fam_ops = [o for o in ops if o.family == fam and o.test and o.variant_kind == "functional"]
            if fam_ops:
                w.write(f"tests/{be.lower}_{fam}.cpp", env.get_template("BackendShapeTests.cpp.j2").render(
                    ops=ops, be=be, fam_ops=fam_ops))
        w.write(f"tests/{be.lower}_gaps.cpp", env.get_template("BackendGaps.cpp.j2").render(
            ops=ops, be=be, missing=missing, raising=raising, needs_data=needs_data))


def ret_is_ref(op):
    return cpp_ret_type(op.schema.rets) == "at::Tensor&"


# ---------------------------------------------------------------- pointwise details
def pw_info(op):
    """Everything a pointwise kernel template needs about its (functional) op."""
    base = op.base or op
    s = base.schema
    tensors = [a.name for a in s.args if a.type.is_tensor]
    scalars = [a for a in s.args if not a.type.is_tensor]
    return {
        "tensors": tensors,
        "scalars": [{"name": a.name, "wrapped": a.name in base.wrapped, "base": a.type.base,
                     "optional": a.type.optional, "cpptype": cpp_arg_type(a.type)} for a in scalars],
        "expr": base.expr,
        "promote": base.promote,
        "dtypes": base.dtypes,
        "name": base.schema.name,
        "require": base.require,
        "lut16": base.lut16,
    }


def sample_cpp_value(v, arg):
    t = arg.type
    if t.optional and v is not None and not t.is_list:
        from model import Type
        inner = Type(**{**t.__dict__})
        inner.optional = False
        typ = cpp_arg_type(t).replace("const ", "").replace("&", "")
        return f"{typ}({sample_cpp_value(v, type(arg)(arg.name, inner, arg.default, arg.kwarg_only))})"
    if v is None:
        return "std::nullopt"
    if t.base == "ScalarType":
        return f"at::k{DTYPE_NAMES[v]}"
    if t.base == "str":
        return f'"{v}"'
    if t.base == "Device":
        return f'at::Device("{v}")'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list) and t.base == "bool":
        return f"::std::array<bool, {len(v)}>{{" + ", ".join("true" if x else "false" for x in v) + "}"
    if isinstance(v, list):
        return "std::vector<int64_t>{" + ", ".join(str(x) for x in v) + "}"
    if t.base == "Scalar" and isinstance(v, float):
        return f"at::Scalar({v!r})"
    if t.base == "Scalar" and isinstance(v, int):
        return f"at::Scalar(int64_t({v}))"
    if t.base == "float":
        return repr(float(v))
    return repr(v)


def sample_args(op, s, skip_self=False):
    """The C++ argument list of a generated test call: sample tensors as x.<name>, sample scalars by
    name, trailing defaults dropped."""
    out = []
    for c in cpp_args(op.schema, "", with_defaults=False):
        a = c.schema_args[0]
        if a.name in s.tensors:
            out.append("x." + a.name)
        elif a.name in s.scalars:
            out.append(c.name)
        elif c.type == "at::TensorOptions":
            out.append(None)
        elif a.default is not None:
            out.append(None)
        elif a.type.mutable:
            out.append(None)
        else:
            raise GenError(f"{op.path}:{s.line}: sample for {op.full_name} gives no value for '{a.name}'")
    while out and out[-1] is None:
        out.pop()
    if None in out:
        # An inner default: spell it out.
        cas = cpp_args(op.schema, "", with_defaults=True)
        out = [o if o is not None else (cas[i].default or "{}") for i, o in enumerate(out)]
    if skip_self:
        out = out[1:]
    return ", ".join(out)


def pw_shape(op, s):
    return broadcast([s.tensors[n]["shape"] for n in pw_info(op)["tensors"]])


def default_of(op, name):
    base = op.base or op
    for a in base.schema.args:
        if a.name == name and a.default is not None:
            return " = " + cpp_default(a, f"{op.path}:{op.line}")
    return ""


def broadcast(shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, d in enumerate(reversed(s)):
            j = nd - 1 - i
            if out[j] == 1:
                out[j] = d
            elif d != 1 and d != out[j]:
                return None
    return out


def result_dtype(op, sample):
    """Mirror of the runtime promotion for pointwise ops (used to state the expected dtype)."""
    info = pw_info(op)
    dim_r = zero_r = wrapped_r = None
    for name in info["tensors"]:
        spec = sample.tensors.get(name)
        dt = DTYPE_NAMES[spec.get("dtype") or sample.dtype]
        if len(spec["shape"]) > 0:
            dim_r = promote_types(dim_r, dt)
        else:
            zero_r = promote_types(zero_r, dt)
    for sc in info["scalars"]:
        if sc["wrapped"] and sc["name"] in sample.scalars:
            v = sample.scalars[sc["name"]]
            wt = "Bool" if isinstance(v, bool) else ("Long" if isinstance(v, int) else "Float")
            wrapped_r = promote_types(wrapped_r, wt)
        elif sc["wrapped"] and not sc["optional"]:
            wrapped_r = promote_types(wrapped_r, "Long")  # default values are integers in our YAML

    def cat(t):
        if t is None:
            return -1
        return 2 if t in DTYPE_GROUPS["floating"] else (0 if t == "Bool" else 1)

    def combine(higher, lower):
        if higher is not None and cat(higher) == 2:
            return higher
        if higher == "Bool" or (lower is not None and cat(lower) == 2):
            return promote_types(higher, lower)
        if higher is not None:
            return higher
        return lower
    common = combine(dim_r, combine(zero_r, wrapped_r))
    if info["promote"] == "none":
        common = DTYPE_NAMES[sample.tensors[info["tensors"][0]].get("dtype") or sample.dtype]
    if info["promote"] == "int_to_float" and common not in DTYPE_GROUPS["floating"]:
        common = "Float"
    if info["promote"] == "always_bool":
        return "Bool", common
    return common, common


# ---------------------------------------------------------------- rendering
class Writer:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.written = []
        self.all = []

    def write(self, rel, content):
        path = os.path.join(self.out_dir, rel)
        self.all.append(path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.exists(path):
            with open(path) as f:
                if f.read() == content:
                    return
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(content)
        os.replace(tmp, path)
        self.written.append(rel)


def line_directives(text, yaml_path, out_path):
    """Formulas are wrapped in `// @@LINE n` ... `// @@END` markers; turn them into #line directives
    so that a compiler error in a formula is reported at derivatives.yaml:n."""
    out = []
    for line in text.split("\n"):
        if line.startswith("// @@LINE "):
            out.append(f'#line {line.split()[2]} "{yaml_path}"')
        elif line == "// @@END":
            out.append(f'#line {len(out) + 2} "{out_path}"')
        else:
            out.append(line)
    return "\n".join(out)


def shard_of(op, n):
    return int(hashlib.md5(op.schema.name.encode()).hexdigest(), 16) % n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", required=True)
    ap.add_argument("--derivatives", default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cuda", action="store_true", help="emit CUDA kernels (else CUDA stubs)")
    ap.add_argument("--tests", action="store_true", help="emit generated op tests")
    ap.add_argument("--list-outputs", action="store_true", help="print the files that would be written")
    ap.add_argument("--golden", default=None, metavar="DIR",
                    help="also write the golden-data program (compiled against libtorch by tools/golden) into DIR")
    ap.add_argument("--quiet", action="store_true", help="no warnings")
    args = ap.parse_args(argv)
    try:
        return generate(args)
    except GenError as e:
        print(str(e), file=sys.stderr)
        return 1


def generate(args):
    ops = parse_ops(args.ops)
    validate(ops)

    tdir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(tdir), trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.globals.update(HEADER=HEADER, view_primitive=view_primitive, sample_seed=sample_seed, params=params, arg_names=arg_names, fn_type=fn_type,
                       dispatch_args=dispatch_args, mutable_args=mutable_args, list_args=list_args, has_options=has_options, inplace_sample_ok=inplace_sample_ok,
                       optional_edge=optional_edge, requires_grad_ptr=requires_grad_ptr, arg_checks=arg_checks, kernel_name=kernel_name,
                       cpp_ret_type=cpp_ret_type, ret_is_ref=ret_is_ref, pw_info=pw_info, CPP_DTYPE=CPP_DTYPE,
                       sample_cpp_value=sample_cpp_value, broadcast=broadcast, result_dtype=result_dtype,
                       DTYPE_NAMES=DTYPE_NAMES, repr=repr, cpp_args=cpp_args,
                       sample_args=sample_args, pw_shape=pw_shape, default_of=default_of,
                       backend_kernel=backend_kernel, backends=load_backends())
    w = Writer(args.out)
    pointwise = [o for o in ops if o.kind == "pointwise"]
    families = sorted({o.family for o in ops})

    def render(tpl, rel, **kw):
        w.write(rel, env.get_template(tpl).render(ops=ops, **kw))

    render("OpIds.h.j2", "include/ATen/core/OpIds.h")
    render("Functions.h.j2", "include/ATen/Functions.h")
    render("TensorMethodDecls.inc.j2", "include/ATen/core/TensorMethodDecls.inc")
    render("TensorMethods.inc.j2", "include/ATen/core/TensorMethods.inc")
    render("NativeFunctions.h.j2", "include/ATen/native/NativeFunctions.h")
    for k in range(N_FUNCTION_SHARDS):
        render("Functions.cpp.j2", f"src/Functions_{k}.cpp", shard=[o for o in ops if shard_of(o, N_FUNCTION_SHARDS) == k])
    render("RegisterCPU.cpp.j2", "src/RegisterCPU.cpp")
    render("OutVariants.cpp.j2", "src/OutVariants.cpp")
    # The PrivateUse1 row: composites, device-generic kernels and CPU fallbacks for an out-of-tree
    # backend (codegen/privateuse1.py, Note [PrivateUse1 fallback]).
    import privateuse1
    privateuse1.render(env, w, ops, shard_of)
    render_backends(env, w, ops, load_backends(), args.tests)
    # The C ABI (include/ember/ember.h): typed table, boxed registry (codegen/c_abi.py).
    import c_abi
    c_abi_problems = c_abi.render(env, w, ops)
    if c_abi_problems and not args.quiet:
        print(f"{c_abi.LIST_PATH}: warning: the C ABI slot list is stale ({len(c_abi_problems)}: "
              f"{c_abi_problems[0]}{', ...' if len(c_abi_problems) > 1 else ''}); run python3 codegen/c_abi.py "
              f"--ops ops.yaml --update (ctest c_abi.op_list fails until then)", file=sys.stderr)
    if args.cuda:
        render("RegisterCUDA.cpp.j2", "src/RegisterCUDA.cpp")
        for fam in sorted({o.family for o in pointwise}):
            render("PointwiseCUDA.cu.j2", f"kernels/cuda/pw_{fam}.cu",
                   fam_ops=[o for o in pointwise if o.family == fam])
    else:
        render("RegisterCUDAStub.cpp.j2", "src/RegisterCUDA.cpp")
    for op in pointwise:
        if op.variant_kind == "functional":
            variants = [o for o in pointwise if (o.base or o) is op]
            render("PointwiseCPU.cpp.j2", f"kernels/cpu/pw_{op.ident}.cpp", op=op, variants=variants)
            # The kernel proper, compiled once per CPU capability level (cmake/EmberCpuCapabilities.cmake).
            render("PointwiseCPUKernel.cpp.j2", f"kernels/cpu/isa/pw_{op.ident}.cpp", op=op)
    # Composite ops get autograd through their parts; their gradients are still compared with
    # libtorch's (golden records), every tensor argument taken as a leaf where it is floating.
    from types import SimpleNamespace
    composite_grads = {
        # (libtorch's losses take class weights as constants: no gradient for `weight`)
        o.full_name: SimpleNamespace(op=o, diff_inputs=[a.name for a in o.schema.args if a.type.is_tensor
                                                        and not (o.family == "loss" and a.name == "weight")],
                                     inplace_of="", twice=False)
        for o in ops
        if o.kind == "composite" and o.variant_kind == "functional" and o.test and o.golden is True
        and o.golden_grad is True
        and o.schema.rets and all(r.type.is_tensor for r in o.schema.rets)
        and not any(a.type.mutable for a in o.schema.args)}
    if args.derivatives:
        import autograd
        derivs = autograd.parse_derivatives(args.derivatives, ops)
        infos, missing = autograd.build(ops, derivs, args.derivatives)
        # Coverage is total: every formula is gradchecked on at least one floating sample.
        for d in derivs.values():
            if d.non_differentiable:
                continue
            op = next(o for o in ops if o.full_name == d.name)
            if op.test and not any(s.dtype in ("float32", "float64", "float16", "bfloat16") for s in op.samples):
                raise GenError(f"{args.derivatives}:{d.line}: {d.name} has no floating sample in ops.yaml to gradcheck")
            # (ops with `test: false` in ops.yaml are gradchecked by hand-written tests)
        n_shards = 4
        dpath = os.path.abspath(args.derivatives)
        for k in range(n_shards):
            rel = f"src/Autograd_{k}.cpp"
            text = env.get_template("Autograd.cpp.j2").render(
                ops=ops, shard=[i for i in infos if shard_of(i.op.base or i.op, n_shards) == k])
            w.write(rel, line_directives(text, dpath, os.path.join(os.path.abspath(args.out), rel)))
        render("RegisterAutograd.cpp.j2", "src/RegisterAutograd.cpp", infos=infos)
        if args.tests:
            # `grad: false` in ops.yaml: no generated gradient tests (hand-written ones instead).
            graded = [i for i in infos if i.node and i.node != "NotImplemented" and i.kind in ("functional", "inplace")
                      and i.op.test and (i.op.base or i.op).grad]
            for fam in sorted({i.op.family for i in graded}):
                render("GradTests.cpp.j2", f"tests/grad_{fam}.cpp", fam_infos=[i for i in graded if i.op.family == fam])
        if missing and not args.quiet:
            print(f"{args.derivatives}: warning: {len(missing)} differentiable ops have no entry (backward through them "
                  f"raises '[op] derivative not implemented'): {', '.join(missing)}", file=sys.stderr)
    # The Python frontend (python/, `import ember`): bindings, parser tables and the stub
    # (codegen/python.py, Note [Python overload order]); after derivatives.yaml, so that an error
    # there is reported as such and not as a Python table naming an op a partial ops.yaml lacks.
    import python
    python.render(env, w, ops)
    if args.tests:
        for fam in families:
            render("OpTests.cpp.j2", f"tests/ops_{fam}.cpp", fam_ops=[o for o in ops if o.family == fam and o.test],
                   composite_grads=composite_grads)
        # The one list of ops with no CUDA kernel: CUDA comparisons may skip only these (and
        # composites over them); the test run prints the list with its count.
        no_cuda = [o.full_name for o in ops if o.kind == "dispatch" and not kernel_name(o, "CUDA")]
        render("CudaGaps.cpp.j2", "tests/cuda_gaps.cpp", no_cuda=no_cuda)

    if args.golden:
        # Every sample of every functional op, run through libtorch by tools/golden. An op opts out
        # with `golden: "<reason>"` in ops.yaml (libtorch lacks it or differs on purpose).
        gw = Writer(args.golden)
        # Gradient records for the samples the gradient tests check (functional ops with a formula).
        grad_infos = {}
        if args.derivatives:
            grad_infos = {i.op.full_name: i for i in infos
                          if i.node and i.node != "NotImplemented" and i.kind == "functional" and i.op.test
                          and i.op.golden_grad is True and i.op.grad}
        grad_infos.update(composite_grads)
        fams = []
        for fam in families:
            fops = [o for o in ops if o.family == fam and o.test and o.variant_kind == "functional" and o.golden is True]
            if fops:
                fams.append(fam)
                gw.write(f"golden_{fam}.cpp", env.get_template("GoldenOps.cpp.j2").render(
                    ops=ops, fam=fam, fam_ops=fops, grad_infos=grad_infos))
        gw.write("golden_main.cpp", env.get_template("GoldenMain.cpp.j2").render(ops=ops, fams=fams))

    if args.list_outputs:
        for p in w.all:
            print(p)
    # Remove stale generated sources (an op deleted from the YAML).
    for sub in ("kernels/cpu", "kernels/cpu/isa", "kernels/cuda", "kernels/meta", "tests"):
        d = os.path.join(args.out, sub)
        if os.path.isdir(d):
            for f in os.listdir(d):
                p = os.path.join(d, f)
                if p not in w.all and not f.endswith(".tmp") and os.path.isfile(p):
                    os.remove(p)
    with open(os.path.join(args.out, "sources.cmake.tmp"), "w") as f:
        f.write("set(EMBER_GEN_CPU_SOURCES\n" + "\n".join(
            f"  {p}" for p in w.all if p.endswith(".cpp") and "/tests/" not in p and "/kernels/cpu/isa/" not in p
            and "/python/" not in p) + ")\n")
        f.write("set(EMBER_GEN_PYTHON_SOURCES\n" + "\n".join(
            f"  {p}" for p in w.all if p.endswith(".cpp") and "/python/" in p) + ")\n")
        f.write("set(EMBER_GEN_CPU_ISA_SOURCES\n" + "\n".join(
            f"  {p}" for p in w.all if p.endswith(".cpp") and "/kernels/cpu/isa/" in p) + ")\n")
        f.write("set(EMBER_GEN_CUDA_SOURCES\n" + "\n".join(f"  {p}" for p in w.all if p.endswith(".cu")) + ")\n")
        f.write("set(EMBER_GEN_TEST_SOURCES\n" + "\n".join(f"  {p}" for p in w.all if "/tests/" in p) + ")\n")
    src_list = os.path.join(args.out, "sources.cmake")
    tmp = src_list + ".tmp"
    if os.path.exists(src_list) and open(src_list).read() == open(tmp).read():
        os.remove(tmp)
    else:
        os.replace(tmp, src_list)
    return 0


def validate(ops):
    """Cross-entry checks: kernel names are identifiers, pointwise dtypes, sample shapes broadcast."""
    import re
    for op in ops:
        where = f"{op.path}:{op.line}"
        if op.kind == "dispatch":
            for k, v in op.dispatch.items():
                if not re.match(r"^[A-Za-z_]\w*$", str(v)):
                    raise GenError(f"{where}: dispatch {k} kernel '{v}' is not a C++ function name")
        if op.kind == "pointwise" and op.variant_kind == "functional":
            for s in op.samples:
                shapes = [s.tensors[n]["shape"] for n in pw_info(op)["tensors"]]
                if broadcast(shapes) is None:
                    raise GenError(f"{op.path}:{s.line}: sample shapes {shapes} do not broadcast")
            if not op.expr.strip():
                raise GenError(f"{where}: empty pointwise expression")


if __name__ == "__main__":
    sys.exit(main())
