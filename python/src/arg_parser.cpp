// The argument parser of the generated bindings: matching (type tests against a signature, no
// conversion), conversion getters, result wrapping and error translation. The rules are listed in
// Note [Python overload order] (codegen/python.py).
#include "arg_parser.h"

#include <cstring>
#include <new>

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace ember::python {

Types types;

bool is_tensor(PyObject* o) { return Py_TYPE(o) == types.tensor || PyType_IsSubtype(Py_TYPE(o), types.tensor); }

namespace {

bool is_instance(PyObject* o, PyTypeObject* t) { return t && (Py_TYPE(o) == t || PyType_IsSubtype(Py_TYPE(o), t)); }

bool is_zero_dim(PyObject* o) { return is_tensor(o) && unpack(o).defined() && unpack(o).dim() == 0; }

bool is_int_dtype(at::ScalarType t) { return c10::isIntegralType(t, /*includeBool=*/false); }

// numpy.<name> once NumPy is loaded (looked up until then, never imported here; kept for good). Only
// the slow paths of the checks below ask: Python numbers and tensors are answered first.
PyTypeObject* numpy_type(const char* name, PyTypeObject*& cache) {
  if (cache) return cache;
  static PyObject* key = PyUnicode_InternFromString("numpy");
  PyObject* np = key ? PyImport_GetModule(key) : nullptr;
  if (np) {
    PyObject* t = PyObject_GetAttrString(np, name);
    Py_DECREF(np);
    if (t && PyType_Check(t)) cache = reinterpret_cast<PyTypeObject*>(t);
    else Py_XDECREF(t);
  }
  if (!cache) PyErr_Clear();
  return cache;
}

// NumPy's floating scalars (float16, float32, float64, longdouble) and numpy.bool_: PyTorch takes them
// for a float or Number parameter (np.float64 is a Python float anyway; NumPy's ints have __index__).
bool is_numpy_floating(PyObject* o) {
  static PyTypeObject* t = nullptr;
  return numpy_type("floating", t) && PyObject_TypeCheck(o, t);
}

// int: a Python int (not bool), an object with __index__ (NumPy integers) or a 0-dim integer tensor.
// numpy.bool_ is refused as bool is, whatever the NumPy: before 2.0 it still has a (deprecated) __index__.
bool is_int(PyObject* o) {
  if (PyBool_Check(o)) return false;
  if (PyLong_CheckExact(o) || PyLong_Check(o)) return true;
  if (is_tensor(o)) return is_zero_dim(o) && is_int_dtype(unpack(o).scalar_type());
  return PyIndex_Check(o) && !is_numpy_bool(o);
}

// float: int or float (not bool), a 0-dim tensor that is not bool.
bool is_float(PyObject* o) {
  if (PyBool_Check(o)) return false;
  if (PyFloat_Check(o) || PyLong_Check(o)) return true;
  if (is_tensor(o)) return is_zero_dim(o) && unpack(o).scalar_type() != at::kBool;
  return (PyIndex_Check(o) && !is_numpy_bool(o)) || is_numpy_floating(o);
}

// Scalar: bool, int, float, or a 0-dim tensor.
bool is_scalar(PyObject* o) {
  if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o)) return true;
  if (is_tensor(o)) return is_zero_dim(o);
  return PyIndex_Check(o) || is_numpy_floating(o) || is_numpy_bool(o);
}

bool is_seq(PyObject* o) { return PyList_Check(o) || PyTuple_Check(o); }

template <typename F>
bool all_items(PyObject* seq, F&& pred) {
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t k = 0; k < n; ++k)
    if (!pred(PySequence_Fast_GET_ITEM(seq, k))) return false;
  return true;
}

const char* type_name(PyObject* o) {
  if (is_tensor(o)) return "Tensor";
  return Py_TYPE(o)->tp_name;
}

bool optional_kind(Kind k) {
  switch (k) {
    case Kind::OptTensor: case Kind::OptInt: case Kind::OptIntList: case Kind::OptFloat: case Kind::OptFloatList:
    case Kind::OptBool: case Kind::OptScalar: case Kind::OptDtype: case Kind::OptLayout: case Kind::OptDevice:
    case Kind::OptMemoryFormat: case Kind::OptStr: case Kind::Generator:
      return true;
    default:
      return false;
  }
}

// Whether `o` may fill parameter `p` (a type test; conversion comes after the overload is chosen).
bool accepts(const Param& p, PyObject* o) {
  if (o == Py_None) return optional_kind(p.kind);
  switch (p.kind) {
    case Kind::Tensor: case Kind::OptTensor: return is_tensor(o);
    case Kind::TensorList: return is_seq(o) && all_items(o, is_tensor);
    case Kind::OptTensorList: return is_seq(o) && all_items(o, [](PyObject* x) { return x == Py_None || is_tensor(x); });
    case Kind::Int: case Kind::OptInt: return is_int(o);
    case Kind::IntList: case Kind::OptIntList:
      if (p.list_size > 0 && is_int(o)) return true;  // int[N] takes a single int
      return is_seq(o) && all_items(o, is_int);
    case Kind::Float: case Kind::OptFloat: return is_float(o);
    case Kind::FloatList: case Kind::OptFloatList: return is_seq(o) && all_items(o, is_float);
    case Kind::Bool: case Kind::OptBool: return PyBool_Check(o);
    case Kind::BoolList:
      return is_seq(o) && PySequence_Fast_GET_SIZE(o) == p.list_size && all_items(o, [](PyObject* x) { return PyBool_Check(x) != 0; });
    case Kind::Scalar: case Kind::OptScalar: return is_scalar(o);
    case Kind::Dtype: case Kind::OptDtype:
      return is_instance(o, types.dtype) || o == (PyObject*)&PyFloat_Type || o == (PyObject*)&PyLong_Type ||
             o == (PyObject*)&PyBool_Type;
    case Kind::Layout: case Kind::OptLayout: return is_instance(o, types.layout);
    case Kind::Device: case Kind::OptDevice:
      return is_instance(o, types.device) || PyUnicode_Check(o) || (PyLong_Check(o) && !PyBool_Check(o));
    case Kind::MemoryFormat: case Kind::OptMemoryFormat: return is_instance(o, types.memory_format);
    case Kind::Str: case Kind::OptStr: return PyUnicode_Check(o);
    case Kind::Generator: return is_instance(o, types.generator);
    case Kind::OutTuple: return is_seq(o) && PySequence_Fast_GET_SIZE(o) == p.list_size && all_items(o, is_tensor);
  }
  return false;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Tensor: case Kind::OptTensor: return "Tensor";
    case Kind::TensorList: return "tuple of Tensors";
    case Kind::OptTensorList: return "tuple of Tensors or None";
    case Kind::Int: case Kind::OptInt: return "int";
    case Kind::IntList: case Kind::OptIntList: return "tuple of ints";
    case Kind::Float: case Kind::OptFloat: return "float";
    case Kind::FloatList: case Kind::OptFloatList: return "tuple of floats";
    case Kind::Bool: case Kind::OptBool: return "bool";
    case Kind::BoolList: return "tuple of bools";
    case Kind::OutTuple: return "tuple of Tensors";
    case Kind::Scalar: case Kind::OptScalar: return "Number";
    case Kind::Dtype: case Kind::OptDtype: return "dtype";
    case Kind::Layout: case Kind::OptLayout: return "layout";
    case Kind::Device: case Kind::OptDevice: return "Device";
    case Kind::MemoryFormat: case Kind::OptMemoryFormat: return "memory_format";
    case Kind::Str: case Kind::OptStr: return "str";
    case Kind::Generator: return "Generator";
  }
  return "?";
}

// Note [Python keyword matching]
// Keyword names reach a vectorcall binding as the str objects of the caller's code, which CPython
// interns; each Param keeps its own name interned (Param::key), so a pointer test finds the
// parameter. Only a name that is no parameter's pointer (a str built at run time, `**kwargs` of
// computed keys, or a wrong name) goes through the string comparison.
PyObject* param_key(const Param& p) {
  if (!p.key) {
    p.key = PyUnicode_InternFromString(p.name);
    if (!p.key) throw PythonErrorSet{};
  }
  return p.key;
}

int find_keyword(const Group& g, const Signature& sig, PyObject* key) {
  for (int i = 0; i < sig.n; ++i)
    if (param_key(sig.params[i]) == key && !(g.method && i == sig.self_index)) return i;
  for (int i = 0; i < sig.n; ++i)
    if (!(g.method && i == sig.self_index) && PyUnicode_CompareWithASCIIString(key, sig.params[i].name) == 0) return i;
  return -1;
}

bool accepts_slot(const Param& p, PyObject* o, const Slots& sl) {
  if (o != kVarargs) return accepts(p, o);
  for (Py_ssize_t k = 0; k < sl.nvar; ++k)
    if (!is_int(sl.var[k])) return false;
  return true;
}

// Fills slots from self/positional/keyword arguments; on a mismatch returns false and says why.
bool match(const Group& g, const Signature& sig, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
           PyObject* kwnames, Slots& sl, std::string* why) {
  PyObject** slots = sl.s;
  for (int i = 0; i < sig.n; ++i) slots[i] = nullptr;
  sl.var = nullptr;
  sl.nvar = 0;
  if (g.method) slots[sig.self_index] = self;
  PyObject* const* kwvalues = args + nargs;  // vectorcall: keyword values follow the positional ones
  Py_ssize_t pos = 0;
  // `zeros(2, 3)`: ints given one by one fill the only positional parameter, an int list (a single
  // int too, unless the parameter is an int[N], which takes one int as N copies anyway).
  int first = g.method && sig.self_index == 0 ? 1 : 0;
  if (sig.varargs_intlist && nargs >= 1 && is_int(args[0]) && (nargs > 1 || !(sig.params[first].list_size > 0))) {
    slots[first] = kVarargs;
    sl.var = args;
    sl.nvar = nargs;
    pos = nargs;
  }
  for (int i = 0; i < sig.n && pos < nargs; ++i) {
    if (i == sig.self_index && g.method) continue;
    if (sig.params[i].kwonly) break;
    slots[i] = args[pos++];
  }
  if (pos < nargs) {
    if (why) *why = "takes fewer positional arguments than the " + std::to_string(nargs) + " given";
    return false;
  }
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int found = find_keyword(g, sig, key);
    if (found < 0) {
      if (why) *why = std::string("got an unexpected keyword argument '") + PyUnicode_AsUTF8(key) + "'";
      return false;
    }
    if (slots[found]) {
      if (why) *why = std::string("got multiple values for argument '") + sig.params[found].name + "'";
      return false;
    }
    slots[found] = kwvalues[k];
  }
  for (int i = 0; i < sig.n; ++i) {
    const Param& p = sig.params[i];
    if (!slots[i]) {
      if (p.has_default) continue;
      if (why) *why = std::string("missing required argument '") + p.name + "'";
      return false;
    }
    if (!accepts_slot(p, slots[i], sl)) {
      if (why) {
        const char* got = slots[i] == kVarargs ? "separate ints that are not all int" : type_name(slots[i]);
        *why = std::string("argument '") + p.name + "' must be " + kind_name(p.kind) + ", not " + got;
      }
      return false;
    }
  }
  return true;
}

// _noop's signatures: add.Tensor's and add.Scalar's, in their call order.
PyObject* noop_tensor(Args& a) {
  [[maybe_unused]] const at::Tensor& self = a.tensor(0);
  [[maybe_unused]] const at::Tensor& other = a.tensor(1);
  [[maybe_unused]] at::Scalar alpha = a.present(2) ? a.scalar(2) : at::Scalar(1);
  Py_RETURN_NONE;
}
PyObject* noop_scalar(Args& a) {
  [[maybe_unused]] const at::Tensor& self = a.tensor(0);
  [[maybe_unused]] at::Scalar other = a.scalar(1);
  [[maybe_unused]] at::Scalar alpha = a.present(2) ? a.scalar(2) : at::Scalar(1);
  Py_RETURN_NONE;
}
const Param noop_p0[] = {{"self", Kind::Tensor, false, false, 0}, {"other", Kind::Tensor, false, false, 0},
                         {"alpha", Kind::Scalar, true, true, 0}};
const Param noop_p1[] = {{"self", Kind::Tensor, false, false, 0}, {"other", Kind::Scalar, false, false, 0},
                         {"alpha", Kind::Scalar, false, true, 0}};
const Signature noop_sigs[] = {
    {noop_p0, 3, -1, false, "_noop(Tensor input, Tensor other, *, Number alpha=1)", &noop_tensor},
    {noop_p1, 3, -1, false, "_noop(Tensor input, Number other, Number alpha=1)", &noop_scalar},
};
const Group noop_group = {"_noop", noop_sigs, 2, false};

}  // namespace

bool is_numpy_bool(PyObject* o) {
  static PyTypeObject* t = nullptr;
  return numpy_type("bool_", t) && PyObject_TypeCheck(o, t);
}

namespace {
PyObject g_varargs_marker;  // only its address is used
}  // namespace
PyObject* const kVarargs = &g_varargs_marker;

PyObject* noop(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return dispatch(noop_group, self, args, nargs, kwnames);
}

PyObject* dispatch(const Group& g, PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  nargs = PyVectorcall_NARGS(nargs);
  Slots slots;
  try {
    for (int k = 0; k < g.n; ++k) {
      if (match(g, g.sigs[k], self, args, nargs, kwnames, slots, nullptr)) {
        Args a(g.sigs[k], slots);
        return g.sigs[k].invoke(a);
      }
    }
    // No overload matched: say why (one overload) or list them all.
    std::string msg = std::string(g.name) + "() received an invalid combination of arguments";
    if (g.n == 1) {
      std::string why;
      match(g, g.sigs[0], self, args, nargs, kwnames, slots, &why);
      msg = std::string(g.name) + "(): " + why + "; accepted signature:\n  " + g.sigs[0].text;
    } else {
      msg += "; got (";
      for (Py_ssize_t k = 0; k < nargs; ++k) msg += std::string(k ? ", " : "") + type_name(args[k]);
      Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
      for (Py_ssize_t k = 0; k < nkw; ++k)
        msg += std::string(nargs + k ? ", " : "") + PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k)) + "=" +
               type_name(args[nargs + k]);
      msg += "), accepted signatures:";
      for (int k = 0; k < g.n; ++k) {
        std::string why;
        match(g, g.sigs[k], self, args, nargs, kwnames, slots, &why);
        msg += std::string("\n  ") + g.sigs[k].text + "  (" + why + ")";
      }
    }
    PyErr_SetString(PyExc_TypeError, msg.c_str());
    return nullptr;
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

void set_python_error() {
  try {
    throw;
  } catch (const PythonErrorSet&) {
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const c10::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const c10::ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const c10::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const c10::NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const c10::Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

// ---------------------------------------------------------------- conversions
namespace {
[[noreturn]] void raise(PyObject* type, const std::string& msg) {
  PyErr_SetString(type, msg.c_str());
  throw PythonErrorSet{};
}
}  // namespace

int64_t to_int64(PyObject* o, const char* name) {
  if (is_tensor(o)) return unpack(o).item().toLong();
  int overflow = 0;
  long long v;
  if (PyLong_Check(o)) {
    v = PyLong_AsLongLongAndOverflow(o, &overflow);
  } else {
    PyObject* i = PyNumber_Index(o);
    if (!i) throw PythonErrorSet{};
    v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
  }
  if (overflow) raise(PyExc_OverflowError, std::string("argument '") + name + "' does not fit in a 64-bit int");
  if (v == -1 && PyErr_Occurred()) throw PythonErrorSet{};
  return v;
}

double to_double(PyObject* o, const char* name) {
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
  if (is_tensor(o)) return unpack(o).item().toDouble();
  double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) throw PythonErrorSet{};
  (void)name;
  return v;
}

at::Scalar to_scalar(PyObject* o, const char* name) {
  if (PyBool_Check(o)) return at::Scalar(o == Py_True);
  if (PyFloat_Check(o)) return at::Scalar(PyFloat_AS_DOUBLE(o));
  if (is_tensor(o)) return unpack(o).item();
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) return at::Scalar(PyLong_AsDouble(o));  // beyond int64: a double, as libtorch does
    return at::Scalar(static_cast<int64_t>(v));
  }
  if (is_numpy_floating(o) || is_numpy_bool(o)) {  // (a NumPy bool is the number 0.0 or 1.0 here, as in PyTorch)
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) throw PythonErrorSet{};
    return at::Scalar(v);
  }
  return at::Scalar(to_int64(o, name));
}

at::ScalarType to_dtype(PyObject* o, const char*) {
  if (o == (PyObject*)&PyFloat_Type) return at::kDouble;
  if (o == (PyObject*)&PyLong_Type) return at::kLong;
  if (o == (PyObject*)&PyBool_Type) return at::kBool;
  return nb::inst_ptr<PyDtype>(o)->t;
}

at::Device to_device(PyObject* o, const char* name) {
  if (is_instance(o, types.device)) return nb::inst_ptr<PyDevice>(o)->d;
  if (PyUnicode_Check(o)) return at::Device(std::string(PyUnicode_AsUTF8(o)));
  int64_t i = to_int64(o, name);
  if (i < 0) raise(PyExc_ValueError, std::string("argument '") + name + "': a device index must not be negative");
  return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(i));
}

at::Tensor& unpack(PyObject* o) { return *nb::inst_ptr<at::Tensor>(o); }

// A new instance of the Tensor type holding `t`, made directly (nb::cast would first look the
// temporary's address up among live instances, and the C++ type up among bound types).
PyObject* wrap(at::Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  PyObject* o = nb::detail::nb_inst_alloc(types.tensor);  // raises nb::python_error when out of memory
  new (nb::inst_ptr<at::Tensor>(o)) at::Tensor(std::move(t));
  nb::inst_mark_ready(o);
  return o;
}
PyObject* wrap(std::vector<at::Tensor> ts) {
  PyObject* out = PyTuple_New(static_cast<Py_ssize_t>(ts.size()));
  if (!out) return nullptr;
  for (size_t k = 0; k < ts.size(); ++k) {
    PyObject* x = wrap(std::move(ts[k]));
    if (!x) { Py_DECREF(out); return nullptr; }
    PyTuple_SET_ITEM(out, static_cast<Py_ssize_t>(k), x);
  }
  return out;
}
PyObject* named_tuple(PyObject* tuple, const char* name, std::initializer_list<const char*> fields) {
  if (!tuple) return nullptr;
  static std::vector<std::pair<std::string, PyObject*>> made;  // (name|fields, type); never freed
  std::string key = name;
  for (const char* f : fields) key += std::string("|") + f;
  PyObject* type = nullptr;
  for (auto& [k, t] : made)
    if (k == key) { type = t; break; }
  if (!type) {
    PyObject* collections = PyImport_ImportModule("collections");
    if (!collections) { Py_DECREF(tuple); return nullptr; }
    PyObject* names = PyTuple_New(static_cast<Py_ssize_t>(fields.size()));
    Py_ssize_t k = 0;
    for (const char* f : fields) PyTuple_SET_ITEM(names, k++, PyUnicode_FromString(f));
    type = PyObject_CallMethod(collections, "namedtuple", "sO", name, names);
    Py_DECREF(collections);
    Py_DECREF(names);
    PyObject* module = PyUnicode_FromString("ember.return_types");
    int rc = type && module ? PyObject_SetAttrString(type, "__module__", module) : -1;
    Py_XDECREF(module);
    if (rc != 0) {
      Py_XDECREF(type);
      Py_DECREF(tuple);
      return nullptr;
    }
    made.emplace_back(key, type);
  }
  PyObject* r = PyObject_Call(type, tuple, nullptr);
  Py_DECREF(tuple);
  return r;
}

PyObject* wrap(bool v) { return PyBool_FromLong(v); }
PyObject* wrap(int64_t v) { return PyLong_FromLongLong(v); }
PyObject* wrap(double v) { return PyFloat_FromDouble(v); }
PyObject* wrap(const at::Scalar& v) {
  if (v.isBoolean()) return PyBool_FromLong(v.toBool());
  if (v.isFloatingPoint()) return PyFloat_FromDouble(v.toDouble());
  return PyLong_FromLongLong(v.toLong());
}
PyObject* wrap(at::ScalarType t) { return dtype_object(t); }


// ---------------------------------------------------------------- Args getters
PyObject* Args::same_items(int i) const {
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(s_[i]);
  PyObject* t = PyTuple_New(n);
  if (!t) return nullptr;
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* x = PySequence_Fast_GET_ITEM(s_[i], k);
    Py_INCREF(x);
    PyTuple_SET_ITEM(t, k, x);
  }
  return t;
}
std::optional<at::Tensor> Args::opt_tensor(int i) const {
  if (none(i)) return std::nullopt;
  return unpack(s_[i]);
}
std::vector<at::Tensor> Args::tensor_list(int i) const {
  std::vector<at::Tensor> out;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(s_[i]);
  out.reserve(n);
  for (Py_ssize_t k = 0; k < n; ++k) out.push_back(unpack(PySequence_Fast_GET_ITEM(s_[i], k)));
  return out;
}
c10::List<std::optional<at::Tensor>> Args::opt_tensor_list(int i) const {
  c10::List<std::optional<at::Tensor>> out;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(s_[i]);
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* x = PySequence_Fast_GET_ITEM(s_[i], k);
    out.push_back(x == Py_None ? std::optional<at::Tensor>() : std::optional<at::Tensor>(unpack(x)));
  }
  return out;
}
std::optional<int64_t> Args::opt_int64(int i) const {
  if (none(i)) return std::nullopt;
  return int64(i);
}
IntListArg Args::int_list(int i, int size) const {
  PyObject* o = s_[i];
  IntListArg out;
  if (o == kVarargs) {
    int64_t* p = out.resize(static_cast<size_t>(nvar_));
    for (Py_ssize_t k = 0; k < nvar_; ++k) p[k] = to_int64(var_[k], name(i));
  } else if (!is_seq(o)) {
    int64_t v = to_int64(o, name(i));
    std::fill_n(out.resize(size > 0 ? size : 1), size > 0 ? size : 1, v);
  } else {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    int64_t* p = out.resize(static_cast<size_t>(n));
    for (Py_ssize_t k = 0; k < n; ++k) p[k] = to_int64(PySequence_Fast_GET_ITEM(o, k), name(i));
  }
  return out;
}
IntListArg Args::opt_int_list(int i, int size) const {
  if (none(i)) return IntListArg::none();
  return int_list(i, size);
}
std::optional<double> Args::opt_float64(int i) const {
  if (none(i)) return std::nullopt;
  return float64(i);
}
std::vector<double> Args::float_list(int i) const {
  Py_ssize_t n = PySequence_Fast_GET_SIZE(s_[i]);
  std::vector<double> out(n);
  for (Py_ssize_t k = 0; k < n; ++k) out[k] = to_double(PySequence_Fast_GET_ITEM(s_[i], k), name(i));
  return out;
}
std::optional<bool> Args::opt_boolean(int i) const {
  if (none(i)) return std::nullopt;
  return s_[i] == Py_True;
}
std::optional<at::Scalar> Args::opt_scalar(int i) const {
  if (none(i)) return std::nullopt;
  return scalar(i);
}
std::optional<at::ScalarType> Args::opt_dtype(int i) const {
  if (none(i)) return std::nullopt;
  return dtype(i);
}
std::optional<at::Layout> Args::opt_layout(int i) const {
  if (none(i)) return std::nullopt;
  return at::kStrided;
}
std::optional<at::Device> Args::opt_device(int i) const {
  if (none(i)) return std::nullopt;
  return device(i);
}
at::MemoryFormat Args::memory_format(int i) const { return nb::inst_ptr<PyMemoryFormat>(s_[i])->m; }
std::optional<at::MemoryFormat> Args::opt_memory_format(int i) const {
  if (none(i)) return std::nullopt;
  return memory_format(i);
}
std::string Args::str(int i) const {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s_[i], &n);
  if (!p) throw PythonErrorSet{};
  return std::string(p, n);
}
std::optional<std::string> Args::opt_str(int i) const {
  if (none(i)) return std::nullopt;
  return str(i);
}
std::optional<at::Generator> Args::generator(int i) const {
  if (none(i)) return std::nullopt;
  return nb::inst_ptr<PyGenerator>(s_[i])->g;
}

void MethodTable::add(const char* name, PyObject* (*fn)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*),
                      const char* doc) {
  PyMethodDef d{};
  d.ml_name = name;
  d.ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn));
  d.ml_flags = METH_FASTCALL | METH_KEYWORDS;
  d.ml_doc = doc;
  defs_.push_back(d);
}

}  // namespace ember::python
