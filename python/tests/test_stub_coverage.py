"""Issue #11: type stubs for every function and method. Everything a type checker sees of ember comes from
python/ember/__init__.py and what it imports: ember/_C.pyi (written by codegen/python.py: the ops.yaml
bindings, PyTorch's alias names, the operators module.cpp installs, and the hand-written Tensor attributes
of codegen/templates/PythonStubTensor.pyi.j2) and ember/_aliases.py (generated too). These tests fail when
a public attribute of ember.Tensor or of the ember module is declared in none of them, and check the
generator's tables (Note [Python names beyond ops.yaml]) against what is installed."""
import ast
import os
import re
import subprocess
import sys
import types

import pytest

import ember

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PKG = os.path.dirname(ember.__file__)

# Dunders of `object` whose meaning a Tensor keeps (a stub need not restate them).
OBJECT_PROTOCOL = {"__class__", "__delattr__", "__dir__", "__doc__", "__getattribute__", "__getstate__", "__init__",
                   "__init_subclass__", "__new__", "__reduce__", "__reduce_ex__", "__repr__", "__setattr__",
                   "__sizeof__", "__str__", "__subclasshook__", "__format__", "__module__", "__dict__",
                   "__weakref__"}


def _parse(name):
    with open(os.path.join(PKG, name)) as f:
        return ast.parse(f.read())


def _declared(body):
    """Names a stub or module body binds at its top level (defs, classes, assignments, imports)."""
    names = set()
    for n in body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            names.add(n.target.id)
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Name):
                        names.add(x.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in n.names if a.name != "*")
    return names


def _stub_tensor_names():
    cls = next(n for n in _parse("_C.pyi").body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    return _declared(cls.body)


def _exported(tree):
    """What `from <module> import *` binds, as a type checker reads it: __all__, else the public names."""
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets):
            return {e.value for e in n.value.elts}
    return {x for x in _declared(tree.body) if not x.startswith("_")}


def _module_names():
    """The names a type checker sees bound in `ember` (python/ember/__init__.py and its star imports)."""
    tree = _parse("__init__.py")
    names = _declared(tree.body)
    for n in tree.body:
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            assert n.level == 1, ast.dump(n)
            src = n.module + (".pyi" if n.module == "_C" else ".py")
            names |= _exported(_parse(src))
    return names


def test_every_tensor_attribute_is_declared_in_the_stub():
    declared = _stub_tensor_names()
    own = set(vars(ember.Tensor))
    missing = sorted(n for n in dir(ember.Tensor) if n not in declared and not n.startswith("_")
                     or n.startswith("__") and n in own and n not in declared and n not in OBJECT_PROTOCOL)
    assert missing == []


def test_every_module_attribute_is_declared():
    declared = _module_names()
    missing = sorted(n for n in dir(ember) if not n.startswith("_") and n not in declared
                     and not isinstance(getattr(ember, n), types.ModuleType))
    assert missing == []


def test_the_stub_declares_no_attribute_that_is_missing():
    # the other direction: a declared Tensor attribute exists (a renamed or dropped method leaves no stale stub)
    stale = sorted(n for n in _stub_tensor_names() if not hasattr(ember.Tensor, n))
    assert stale == []
    c = _parse("_C.pyi")
    public = {n for n in _declared(c.body) if not n.startswith("_")} - {"Number", "Device", "Any", "Callable", "Dict",
                                                                       "Iterator", "List", "Optional", "Sequence",
                                                                       "Tuple", "Union", "overload"}
    assert sorted(n for n in public if not hasattr(ember, n)) == []


def _codegen():
    sys.path.insert(0, os.path.join(ROOT, "codegen"))
    try:
        import python as pygen
    finally:
        sys.path.pop(0)
    return pygen


def test_aliases_are_the_op_of_the_other_name():
    pygen = _codegen()
    methods = ember._aliases.METHODS
    # every alias is installed, as a function and as a method (the ops of ALIASES all have both)
    assert set(ember._aliases.__all__) == set(pygen.ALIASES)
    assert {m.rstrip("_") for m in methods} == set(pygen.ALIASES)
    for alias in ember._aliases.__all__:
        assert getattr(ember, alias) is getattr(ember._C, pygen.ALIASES[alias]), alias
    for alias, op in methods.items():
        assert op == pygen.ALIASES[alias.rstrip("_")] + ("_" if alias.endswith("_") else ""), alias
        assert ember.Tensor.__dict__[alias] is ember.Tensor.__dict__[op], alias
    assert ember.tensor([1.0, 4.0]).divide(2).tolist() == [0.5, 2.0]
    # the stub declares each alias method with its op's overloads
    cls = next(n for n in _parse("_C.pyi").body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    sigs = {}
    for n in cls.body:
        if isinstance(n, ast.FunctionDef):
            sigs.setdefault(n.name, []).append(ast.dump(n.args))
    for alias, op in ember._aliases.METHODS.items():
        assert sigs[alias] == sigs[op], alias


def test_operator_table_is_module_cpp_s():
    """module.cpp installs codegen/python.py's OPERATORS: either it includes the generated rows
    (PythonOperators.inc) or its own g_operators rows are the same, in the same order."""
    pygen = _codegen()
    with open(os.path.join(ROOT, "python", "src", "module.cpp")) as f:
        src = f.read()
    if '#include "PythonOperators.inc"' not in src:
        table = src[src.index("Operator g_operators[] = {"):]
        table = table[:table.index("};")]
        rows = re.findall(r'\{"(\w+)", "(\w+)", OpKind::(\w+), nullptr\}', table)
        assert rows == list(pygen.OPERATORS)
    for dunder, method, kind in pygen.OPERATORS:
        entry = ember.Tensor.__dict__[dunder]
        if dunder in pygen.NUMBER_WRAPPED:  # python/ember/__init__.py wraps these in Python
            assert isinstance(entry, types.FunctionType), dunder
        else:
            assert type(entry).__name__ == "method_descriptor", dunder


def test_operators_behave_as_their_stub_says():
    a = ember.tensor([1, 2, 3])
    f = ember.tensor([1.0, 2.0, 4.0])
    assert (a + 1).tolist() == [2, 3, 4] and (1 + a).tolist() == [2, 3, 4]
    assert (a & 1).tolist() == [1, 0, 1] and (1 | a).tolist() == [1, 3, 3]
    assert (2 ** a).tolist() == [2, 4, 8] and (8 / f).tolist() == [8.0, 4.0, 2.0]
    assert (a == None) is False and (a != None) is True  # noqa: E711
    assert (a == 2).tolist() == [False, True, False]
    b = a.clone()
    b += 1
    b ^= 1
    assert b.tolist() == [3, 2, 5]


# Typical calls (run by test_typical_calls_run too, so they are right at run time as well).
GOOD = """import ember
x: float = float(ember.ones(2).add(1).sum().item())
t = ember.ones(2, 3)
u: ember.Tensor = ((t + 1) * 2 - 1 / t) @ ember.ones((2, 3)).T
v: ember.Tensor = ember.absolute(t).arccos_().float().cpu().view(3, 2).view([6])
w: bool = bool((t == 1).all()) and t.is_cpu and not -t.mT.contiguous() is t
n: int = t.size(0) + t.shape[1] + t.ndim + len(t.split([1, 2], 1))
d: ember.dtype = t.dtype if t.dtype == ember.float32 else ember.float
"""


def test_typical_calls_run():
    exec(compile(GOOD, "good.py", "exec"), {})


def _mypy():
    try:
        import mypy  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "mypy"]


@pytest.mark.skipif(_mypy() is None, reason="mypy is not installed")
def test_mypy_reads_the_stub(tmp_path):
    """mypy type-checks a snippet against the package (ember's own files unchecked: --follow-imports=silent),
    and finds a wrong call."""
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    bad = tmp_path / "bad.py"
    bad.write_text("import ember\nember.ones(2).add('a')\n")
    env = dict(os.environ, MYPYPATH=os.path.dirname(PKG))
    cmd = _mypy() + ["--follow-imports=silent", "--no-error-summary", "--cache-dir", str(tmp_path / "cache")]
    r = subprocess.run(cmd + [str(good)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(cmd + [str(bad)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 1 and "add" in r.stdout, r.stdout + r.stderr
