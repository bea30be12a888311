// ember._C: the hand-written core of the Python frontend (Tensor, dtypes, devices, ember.tensor,
// grad mode) plus every generated function and Tensor method (codegen/python.py). The pure-Python
// package (python/ember/__init__.py) adds the operators and the context managers.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <utility>

#include <ATen/Parallel.h>
#include <ATen/core/GradMode.h>
#include <torch/autograd.h>
#include <torch/cuda.h>
#include <ATen/TensorIndexing.h>

#include "BindingsDecl.h"
#include "arg_parser.h"
#include "bind_areas.h"

namespace nb = nanobind;
using namespace ember::python;

namespace {

// ---------------------------------------------------------------- dtypes, devices, layouts
struct DtypeName { const char* name; at::ScalarType t; };
// The first name of a dtype is its repr; the others are aliases (libtorch's spellings).
const DtypeName kDtypes[] = {
    {"float32", at::kFloat}, {"float", at::kFloat}, {"float64", at::kDouble}, {"double", at::kDouble},
    {"float16", at::kHalf}, {"half", at::kHalf}, {"bfloat16", at::kBFloat16}, {"uint8", at::kByte},
    {"int8", at::kChar}, {"int16", at::kShort}, {"short", at::kShort}, {"int32", at::kInt}, {"int", at::kInt},
    {"int64", at::kLong}, {"long", at::kLong}, {"bool", at::kBool},
};
PyObject* g_dtype_objects[32] = {};

const char* dtype_name(at::ScalarType t) {
  for (const auto& d : kDtypes)
    if (d.t == t) return d.name;
  return "undefined";
}

[[noreturn]] void raise_set() { throw PythonErrorSet{}; }

// ---------------------------------------------------------------- ember.tensor(data)
struct Flat {
  std::vector<int64_t> shape;
  std::vector<double> d;
  std::vector<int64_t> i;
  bool any_float = false, any_int = false, any_bool = false;
};

void infer_shape(PyObject* o, Flat& f) {
  while (PyList_Check(o) || PyTuple_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    f.shape.push_back(n);
    if (n == 0) break;
    o = PySequence_Fast_GET_ITEM(o, 0);
  }
}

void flatten(PyObject* o, size_t depth, Flat& f) {
  if (PyList_Check(o) || PyTuple_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (depth >= f.shape.size() || n != f.shape[depth]) {
      PyErr_Format(PyExc_ValueError, "[tensor] expected a sequence of length %lld at dimension %lld (got %lld)",
                   (long long)(depth < f.shape.size() ? f.shape[depth] : 0), (long long)depth, (long long)n);
      raise_set();
    }
    for (Py_ssize_t k = 0; k < n; ++k) flatten(PySequence_Fast_GET_ITEM(o, k), depth + 1, f);
    return;
  }
  if (depth != f.shape.size()) {
    PyErr_Format(PyExc_ValueError, "[tensor] expected a sequence at dimension %lld, got %s", (long long)depth,
                 Py_TYPE(o)->tp_name);
    raise_set();
  }
  if (PyBool_Check(o)) {
    f.any_bool = true;
    f.d.push_back(o == Py_True);
    f.i.push_back(o == Py_True);
  } else if (PyLong_Check(o)) {
    f.any_int = true;
    int64_t v = to_int64(o, "data");
    f.d.push_back(static_cast<double>(v));
    f.i.push_back(v);
  } else if (PyFloat_Check(o)) {
    f.any_float = true;
    f.d.push_back(PyFloat_AS_DOUBLE(o));
    f.i.push_back(0);
  } else if (is_tensor(o) && unpack(o).numel() == 1) {
    at::Scalar s = unpack(o).item();
    if (s.isFloatingPoint()) f.any_float = true;
    else if (s.isBoolean()) f.any_bool = true;
    else f.any_int = true;
    f.d.push_back(s.toDouble());
    f.i.push_back(s.isFloatingPoint() ? 0 : s.toLong());
  } else {
    PyErr_Format(PyExc_TypeError, "[tensor] cannot make a tensor element from %s", Py_TYPE(o)->tp_name);
    raise_set();
  }
}

at::Tensor make_tensor(nb::handle data, std::optional<at::ScalarType> dtype, std::optional<at::Device> device,
                       bool requires_grad) {
  Flat f;
  infer_shape(data.ptr(), f);
  flatten(data.ptr(), 0, f);
  // Python floats (and an empty list) make a tensor of the default dtype (ember.set_default_dtype).
  at::ScalarType inferred = f.any_float ? c10::get_default_dtype()
                            : f.any_int ? at::kLong
                            : f.any_bool ? at::kBool
                                         : c10::get_default_dtype();
  at::ScalarType want = dtype.value_or(inferred);
  bool via_double = f.any_float || c10::isFloatingType(want);
  at::Tensor t = at::empty(f.shape, at::TensorOptions().dtype(via_double ? at::kDouble : at::kLong));
  if (!f.d.empty()) {
    if (via_double) std::memcpy(t._mutable_data_ptr_internal(), f.d.data(), f.d.size() * sizeof(double));
    else std::memcpy(t._mutable_data_ptr_internal(), f.i.data(), f.i.size() * sizeof(int64_t));
  }
  if (t.scalar_type() != want || (device && *device != t.device())) {
    GilRelease nogil;  // the conversion and the copy to another device
    if (t.scalar_type() != want) t = t.to(want);
    if (device && *device != t.device()) t = t.to(*device);
  }
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

// ---------------------------------------------------------------- tolist / item
PyObject* tolist_rec(const at::Tensor& t, const char* base, int64_t dim, int64_t offset) {
  if (dim == t.dim()) {
    switch (t.scalar_type()) {
      case at::kDouble: return PyFloat_FromDouble(reinterpret_cast<const double*>(base)[offset]);
      case at::kLong: return PyLong_FromLongLong(reinterpret_cast<const int64_t*>(base)[offset]);
      default: return PyBool_FromLong(reinterpret_cast<const bool*>(base)[offset]);
    }
  }
  int64_t n = t.size(dim);
  PyObject* list = PyList_New(n);
  if (!list) return nullptr;
  for (int64_t k = 0; k < n; ++k) {
    PyObject* x = tolist_rec(t, base, dim + 1, offset + k * t.stride(dim));
    if (!x) { Py_DECREF(list); return nullptr; }
    PyList_SET_ITEM(list, k, x);
  }
  return list;
}

nb::object tolist(const at::Tensor& self) {
  at::Tensor t = self.detach();
  at::ScalarType st = t.scalar_type();
  at::ScalarType as = c10::isFloatingType(st) ? at::kDouble : st == at::kBool ? at::kBool : at::kLong;
  if (!t.is_cpu() || st != as) {
    GilRelease nogil;  // the copy to the CPU and the conversion; the list is built with the GIL
    if (!t.is_cpu()) t = t.cpu();
    if (st != as) t = t.to(as);
  }
  PyObject* r = tolist_rec(t, static_cast<const char*>(t.const_data_ptr()) , 0, 0);
  if (!r) raise_set();
  return nb::steal(r);
}

// t.item() without the GIL (a copy from the device, or a wait for the stream, may be long).
at::Scalar item_nogil(const at::Tensor& t) {
  GilRelease nogil;
  return t.item();
}

// ---------------------------------------------------------------- indexing
bool is_ndarray(PyObject* o);
PyObject* g_as_tensor = nullptr;  // ember._C.as_tensor (interop.cpp), set at import; kept for good

// An index as PyTorch reads one; a NumPy array is the tensor sharing its memory (an integer array
// indexes as a LongTensor would, a bool array is a mask).
std::vector<at::indexing::TensorIndex> to_indices(nb::handle index);

// The number in `t[i] = v`: as PyTorch's, a Python bool, int or float, or a NumPy int; a NumPy float or
// bool is a TypeError there (np.float64 is a Python float), unlike a Number argument of an op.
at::Scalar setitem_value(PyObject* v) {
  if (PyBool_Check(v) || PyLong_Check(v) || PyFloat_Check(v)) return to_scalar(v, "value");
  PyObject* i = PyIndex_Check(v) && !is_numpy_bool(v) ? PyNumber_Index(v) : nullptr;
  if (!i) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "[setitem] cannot assign a %s to a tensor element (expected a tensor, a Python "
                 "number or a NumPy int)", Py_TYPE(v)->tp_name);
    raise_set();
  }
  nb::object held = nb::steal(i);
  return to_scalar(i, "value");
}

std::vector<at::indexing::TensorIndex> to_indices(nb::handle index) {
  using at::indexing::TensorIndex;
  std::vector<TensorIndex> out;
  auto one = [&](PyObject* o) {
    if (PyLong_CheckExact(o)) {  // the common case first: x[0]
      out.emplace_back(to_int64(o, "index"));
    } else if (o == Py_None) {
      out.emplace_back(std::nullopt);
    } else if (o == Py_Ellipsis) {
      out.emplace_back(at::indexing::EllipsisIndexType());
    } else if (PyBool_Check(o)) {
      out.emplace_back(o == Py_True);
    } else if (PySlice_Check(o)) {
      auto* s = reinterpret_cast<PySliceObject*>(o);
      auto get = [](PyObject* v) -> std::optional<int64_t> {
        if (v == Py_None) return std::nullopt;
        return to_int64(v, "index");
      };
      out.emplace_back(at::indexing::Slice(get(s->start), get(s->stop), get(s->step)));
    } else if (is_tensor(o)) {
      out.emplace_back(unpack(o));
    } else if (PyList_Check(o)) {
      out.emplace_back(make_tensor(nb::handle(o), std::nullopt, std::nullopt, false));
    } else if (is_ndarray(o)) {
      PyObject* t = PyObject_CallOneArg(g_as_tensor, o);
      if (!t) raise_set();
      nb::object held = nb::steal(t);
      out.emplace_back(unpack(t));
    } else {
      out.emplace_back(to_int64(o, "index"));
    }
  };
  if (PyTuple_Check(index.ptr())) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(index.ptr()); ++k) one(PyTuple_GET_ITEM(index.ptr(), k));
  } else {
    one(index.ptr());
  }
  return out;
}

// ---------------------------------------------------------------- GC (Note [Tensor GC] in autograd.cpp)
int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return traverse_tensor_refs(unpack(self), visit, arg);
}

int tensor_clear(PyObject* self) {
  if (nb::inst_ready(self)) clear_tensor_refs(unpack(self));
  return 0;
}

PyType_Slot g_tensor_slots[] = {
    {Py_tp_traverse, reinterpret_cast<void*>(&tensor_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(&tensor_clear)},
    {0, nullptr},
};

// ---------------------------------------------------------------- operators
// The binary operators are the generated methods of the same meaning, behind an entry that returns
// NotImplemented for a NumPy array operand, so that Python then tries the array's reflected
// operator: NumPy's ufunc computes it and Tensor.__array_wrap__ makes the result an ember.Tensor
// (PyTorch also answers `tensor + ndarray` with a tensor). `t == None` is False, `t != None` True.
bool is_ndarray(PyObject* o) {
  static PyObject* ndarray = nullptr;  // numpy.ndarray, once numpy is loaded (never released)
  if (!ndarray) {
    static PyObject* key = PyUnicode_InternFromString("numpy");  // (kept for good)
    PyObject* np = key ? PyImport_GetModule(key) : nullptr;
    if (!np) {
      PyErr_Clear();
      return false;
    }
    ndarray = PyObject_GetAttrString(np, "ndarray");
    Py_DECREF(np);
    if (!ndarray) {
      PyErr_Clear();
      return false;
    }
  }
  return PyObject_TypeCheck(o, reinterpret_cast<PyTypeObject*>(ndarray));
}

using FastFn = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
enum class OpKind : uint8_t { Plain, Eq, Ne };
struct Operator {
  const char* dunder;
  const char* method;
  OpKind kind;
  FastFn target;
};
// The rows come from codegen/python.py's OPERATORS, which also writes their stubs (Note [Python names
// beyond ops.yaml]).
Operator g_operators[] = {
#include "PythonOperators.inc"
};
constexpr size_t kOperators = sizeof(g_operators) / sizeof(g_operators[0]);

template <size_t I>
PyObject* operator_entry(PyObject* self, PyObject* const* args, Py_ssize_t n, PyObject* kw) {
  const Operator& op = g_operators[I];
  if (n == 1 && !kw && Py_TYPE(args[0]) != types.tensor) {
    if (op.kind != OpKind::Plain && args[0] == Py_None) return PyBool_FromLong(op.kind == OpKind::Ne);
    if (!PyLong_Check(args[0]) && !PyFloat_Check(args[0]) && is_ndarray(args[0])) Py_RETURN_NOTIMPLEMENTED;
  }
  PyObject* r = op.target(self, args, n, kw);
  // As PyTorch: an operand the op does not take (a TypeError) is NotImplemented, so Python tries the
  // other operand's method and then answers as for any two unrelated types (`t == "a"` is False,
  // `t + "a"` "unsupported operand type(s)").
  if (!r && n == 1 && !kw && !is_tensor(args[0]) && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  return r;
}

template <size_t... I>
constexpr std::array<FastFn, sizeof...(I)> operator_entries(std::index_sequence<I...>) {
  return {&operator_entry<I>...};
}

// ---------------------------------------------------------------- ember.Size
// Tensor.shape and size() are ember.Size, the tuple subclass python/ember/__init__.py defines and
// registers here (a plain tuple until then). Made as CPython makes a tuple subclass instance: the
// type's tp_alloc with the item count, then the items.
PyTypeObject* g_size_type = &PyTuple_Type;

nb::object make_size(c10::IntArrayRef sizes) {
  const Py_ssize_t n = static_cast<Py_ssize_t>(sizes.size());
  PyObject* r = g_size_type == &PyTuple_Type ? PyTuple_New(n) : g_size_type->tp_alloc(g_size_type, n);
  if (!r) raise_set();
  nb::object out = nb::steal(r);
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* v = PyLong_FromLongLong(sizes[k]);
    if (!v) raise_set();
    PyTuple_SET_ITEM(r, k, v);
  }
  return out;
}

// ---------------------------------------------------------------- ember.Generator
// A seed as PyTorch takes one: an int in [-2^63, 2^64); a negative one is read as its 64-bit two's
// complement. As in PyTorch, another type is a RuntimeError and an int out of range a ValueError.
uint64_t to_seed(nb::handle o, const char* op) {
  if (PyBool_Check(o.ptr()) || !PyIndex_Check(o.ptr()) || is_numpy_bool(o.ptr())) {
    PyErr_Format(PyExc_RuntimeError, "[%s] expected an int seed; got %s", op, Py_TYPE(o.ptr())->tp_name);
    raise_set();
  }
  nb::object v = nb::steal(PyNumber_Index(o.ptr()));
  if (!v.is_valid()) raise_set();
  int overflow = 0;
  long long s = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow == 0) return static_cast<uint64_t>(s);
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
    if (!PyErr_Occurred()) return u;
    PyErr_Clear();
  }
  PyErr_Format(PyExc_ValueError, "[%s] expected a seed in [-2^63, 2^64); got %S", op, v.ptr());
  raise_set();
}

// 53 random bits from the OS (a seed that survives a round trip through a Python float).
uint64_t nondeterministic_seed() {
  std::random_device rd;
  return ((static_cast<uint64_t>(rd()) << 32) | rd()) & ((uint64_t{1} << 53) - 1);
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const PythonErrorSet&) {
    // the Python error is already set
  } catch (const c10::Error&) {
    set_python_error();
  }
}

}  // namespace

PyObject* ember::python::dtype_object(at::ScalarType t) {
  PyObject* o = g_dtype_objects[static_cast<int>(t) & 31];
  if (!o) Py_RETURN_NONE;
  Py_INCREF(o);
  return o;
}

NB_MODULE(_C, m) {
  m.doc() = "Ember's Python bindings (see python/ember/__init__.py)";
  nb::register_exception_translator(&translate);
  // The dtype objects live as long as the process (dtype_object hands them out).
  nb::set_leak_warnings(false);

  // dtypes: one object per dtype, so that `t.dtype is ember.float32` holds.
  nb::class_<PyDtype>(m, "dtype")
      .def("__repr__", [](const PyDtype& d) { return std::string("ember.") + dtype_name(d.t); })
      .def_prop_ro("is_floating_point", [](const PyDtype& d) { return c10::isFloatingType(d.t); })
      .def_prop_ro("itemsize", [](const PyDtype& d) { return c10::elementSize(d.t); });
  types.dtype = reinterpret_cast<PyTypeObject*>(nb::type<PyDtype>().ptr());
  for (const auto& d : kDtypes) {
    PyObject*& slot = g_dtype_objects[static_cast<int>(d.t) & 31];
    if (!slot) slot = nb::cast(PyDtype{d.t}).release().ptr();
    m.attr(d.name) = nb::borrow(slot);
  }

  nb::class_<PyDevice>(m, "device")
      .def("__init__", [](PyDevice* self, const std::string& spec) { new (self) PyDevice{at::Device(spec)}; })
      .def("__init__", [](PyDevice* self, const std::string& type, int64_t index) {
        new (self) PyDevice{at::Device(type + ":" + std::to_string(index))};
      })
      .def_prop_ro("type", [](const PyDevice& d) {
        std::string s = d.d.str();
        return s.substr(0, s.find(':'));
      })
      .def_prop_ro("index", [](const PyDevice& d) -> std::optional<int64_t> {
        if (d.d.index() < 0) return std::nullopt;
        return d.d.index();
      })
      .def("__str__", [](const PyDevice& d) { return d.d.str(); })
      .def("__repr__", [](const PyDevice& d) {
        std::string s = d.d.str();
        size_t c = s.find(':');
        if (c == std::string::npos) return "device(type='" + s + "')";
        return "device(type='" + s.substr(0, c) + "', index=" + s.substr(c + 1) + ")";
      })
      .def("__eq__", [](const PyDevice& a, nb::handle b) {
        if (!nb::isinstance<PyDevice>(b)) return false;
        return a.d == nb::cast<PyDevice&>(b).d;
      })
      .def("__hash__", [](const PyDevice& d) { return std::hash<std::string>()(d.d.str()); });
  types.device = reinterpret_cast<PyTypeObject*>(nb::type<PyDevice>().ptr());

  nb::class_<PyLayout>(m, "layout").def("__repr__", [](const PyLayout&) { return std::string("ember.strided"); });
  types.layout = reinterpret_cast<PyTypeObject*>(nb::type<PyLayout>().ptr());
  m.attr("strided") = nb::cast(PyLayout{at::kStrided});

  nb::class_<PyMemoryFormat>(m, "memory_format").def("__repr__", [](const PyMemoryFormat& f) {
    switch (f.m) {
      case at::MemoryFormat::Contiguous: return std::string("ember.contiguous_format");
      case at::MemoryFormat::Preserve: return std::string("ember.preserve_format");
      case at::MemoryFormat::ChannelsLast: return std::string("ember.channels_last");
      default: return std::string("ember.channels_last_3d");
    }
  });
  types.memory_format = reinterpret_cast<PyTypeObject*>(nb::type<PyMemoryFormat>().ptr());
  m.attr("contiguous_format") = nb::cast(PyMemoryFormat{at::MemoryFormat::Contiguous});
  m.attr("preserve_format") = nb::cast(PyMemoryFormat{at::MemoryFormat::Preserve});
  m.attr("channels_last") = nb::cast(PyMemoryFormat{at::MemoryFormat::ChannelsLast});
  m.attr("channels_last_3d") = nb::cast(PyMemoryFormat{at::MemoryFormat::ChannelsLast3d});

  m.def("_set_size_type", [](nb::handle type) {
    if (!PyType_Check(type.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type.ptr()), &PyTuple_Type)) {
      PyErr_SetString(PyExc_TypeError, "[_set_size_type] expected a subclass of tuple");
      raise_set();
    }
    Py_INCREF(type.ptr());  // kept for the life of the process
    g_size_type = reinterpret_cast<PyTypeObject*>(type.ptr());
  });

  // ---- ember.Generator: a handle to a CPU random stream (copies of the handle share it).
  nb::class_<PyGenerator>(m, "Generator")
      .def("__init__", [](PyGenerator* self, nb::handle dev) {
        if (!dev.is_none()) {
          at::Device d = to_device(dev.ptr(), "device");
          if (!d.is_cpu()) {
            PyErr_Format(PyExc_RuntimeError, "[Generator] expected device 'cpu'; got '%s' (only CPU generators can "
                         "be made from Python)", d.str().c_str());
            raise_set();
          }
        }
        new (self) PyGenerator{at::make_generator()};
      }, nb::arg("device") = nb::none())
      .def("manual_seed", [](nb::handle self, nb::handle seed) {
        uint64_t s = to_seed(seed, "manual_seed");
        at::Generator& g = nb::cast<PyGenerator&>(self).g;
        std::lock_guard<std::mutex> lock(g.mutex());
        g.set_current_seed(s);
        return nb::borrow(self);
      }, nb::arg("seed"), "Restarts the stream from `seed`; returns the generator.")
      .def("initial_seed", [](const PyGenerator& p) { return p.g.current_seed(); },
           "The seed the stream last started from.")
      .def("seed", [](PyGenerator& p) {
        uint64_t s = nondeterministic_seed();
        std::lock_guard<std::mutex> lock(p.g.mutex());
        p.g.set_current_seed(s);
        return s;
      }, "Restarts the stream from a seed drawn from the OS; returns that seed.")
      .def("get_state", [](const PyGenerator& p) { return p.g.get_state(); },
           "The stream's position as a uint8 tensor (Ember's layout), for set_state().")
      .def("set_state", [](nb::handle self, nb::handle state) {
        if (!is_tensor(state.ptr())) {
          PyErr_Format(PyExc_TypeError, "[Generator.set_state] expected a Tensor; got %s", Py_TYPE(state.ptr())->tp_name);
          raise_set();
        }
        nb::cast<PyGenerator&>(self).g.set_state(unpack(state.ptr()));
        return nb::borrow(self);
      }, nb::arg("new_state"), "Continues the stream from a get_state() tensor; returns the generator.")
      .def_prop_ro("device", [](const PyGenerator&) { return PyDevice{at::Device(at::kCPU)}; })
      .def("__repr__", [](nb::handle self) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "<ember.Generator object at %p>", static_cast<void*>(self.ptr()));
        return std::string(buf);
      });
  types.generator = reinterpret_cast<PyTypeObject*>(nb::type<PyGenerator>().ptr());
  m.attr("default_generator") = nb::cast(PyGenerator{at::detail::getDefaultCPUGenerator()});
  // ember.manual_seed (python/ember/__init__.py): the default CPU generator and every CUDA one.
  m.def("_manual_seed", [](nb::handle seed) { at::manual_seed(to_seed(seed, "manual_seed")); }, nb::arg("seed"));

  // ---- Tensor
  // Weak references and the cyclic GC (Note [Tensor GC]); the repr is Python's
  // (python/ember/_tensor_str.py). No instance __dict__: with one, every method call `t.add(u)`
  // took 25 ns longer on CPython 3.11 (its method-lookup fast path needs a type without one; the GC
  // costs 10-15 ns per new tensor, weak references nothing measurable).
  nb::class_<at::Tensor> tensor(m, "Tensor", nb::type_slots(g_tensor_slots), nb::is_weak_referenceable());
  types.tensor = reinterpret_cast<PyTypeObject*>(nb::type<at::Tensor>().ptr());
  // Python's own messages ("unsupported operand type(s) for +: 'Tensor' and 'str'") print tp_name,
  // which nanobind sets to "ember._C.Tensor" on CPython 3.12+ (the module path included; "Tensor" on
  // 3.11), where PyTorch's say 'Tensor'. The last component, in the same buffer: __name__,
  // __qualname__ and __module__ (repr, pickling) are kept elsewhere and do not change.
  if (const char* dot = std::strrchr(types.tensor->tp_name, '.')) types.tensor->tp_name = dot + 1;
  tensor
      .def_prop_ro("shape", [](const at::Tensor& t) { return make_size(t.sizes()); })
      .def("size", [](const at::Tensor& t, std::optional<int64_t> dim) -> nb::object {
        if (dim) return nb::int_(t.size(*dim));
        return make_size(t.sizes());
      }, nb::arg("dim") = nb::none())
      .def("stride", [](const at::Tensor& t, std::optional<int64_t> dim) -> nb::object {
        if (dim) return nb::int_(t.stride(*dim));
        return nb::tuple(nb::cast(t.strides().vec()));
      }, nb::arg("dim") = nb::none())
      .def("dim", &at::Tensor::dim)
      .def_prop_ro("ndim", &at::Tensor::dim)
      .def("numel", &at::Tensor::numel)
      .def("storage_offset", &at::Tensor::storage_offset)
      .def("element_size", [](const at::Tensor& t) { return t.element_size(); })
      .def_prop_ro("dtype", [](const at::Tensor& t) { return nb::steal(dtype_object(t.scalar_type())); })
      .def_prop_ro("device", [](const at::Tensor& t) { return PyDevice{t.device()}; })
      .def_prop_ro("is_cuda", &at::Tensor::is_cuda)
      .def("is_contiguous", [](const at::Tensor& t) { return t.is_contiguous(); })
      .def("is_floating_point", &at::Tensor::is_floating_point)
      .def("data_ptr", [](const at::Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("item", [](const at::Tensor& t) { return nb::steal(wrap(item_nogil(t))); })
      .def("tolist", &tolist)
      .def("__len__", [](const at::Tensor& t) {
        if (t.dim() == 0) throw c10::TypeError("[len] len() of a 0-d tensor");
        return t.size(0);
      })
      .def("__bool__", [](const at::Tensor& t) {
        if (t.numel() != 1)
          throw c10::Error("[bool] the truth value of a tensor with " + std::to_string(t.numel()) +
                           " elements is ambiguous");
        return item_nogil(t).toBool();
      })
      .def("__float__", [](const at::Tensor& t) { return item_nogil(t).toDouble(); })
      .def("__int__", [](const at::Tensor& t) { return item_nogil(t).toLong(); })
      .def("__index__", [](const at::Tensor& t) {
        if (t.numel() != 1 || !c10::isIntegralType(t.scalar_type(), false))
          throw c10::TypeError("[index] only integer tensors of a single element can be converted to an index");
        return item_nogil(t).toLong();
      })
      // The index and the value are read with the GIL held, the kernels run without it.
      .def("__getitem__", [](const at::Tensor& t, nb::handle index) {
        auto idx = to_indices(index);
        // Ints, slices, None and ... make a view at once (x[0] keeps its speed); a tensor index runs kernels.
        if (std::none_of(idx.begin(), idx.end(), [](const at::indexing::TensorIndex& i) { return i.is_tensor(); }))
          return t.index(idx);
        GilRelease nogil;
        return t.index(idx);
      }, nb::arg("index").none())
      .def("__setitem__", [](at::Tensor& t, nb::handle index, nb::handle value) {
        auto idx = to_indices(index);
        if (is_tensor(value.ptr())) {
          at::Tensor v = unpack(value.ptr());
          GilRelease nogil;
          t.index_put_(idx, v);
        } else {
          at::Scalar v = setitem_value(value.ptr());
          GilRelease nogil;
          t.index_put_(idx, v);
        }
      }, nb::arg("index").none(), nb::arg("value"))
      // autograd
      .def_prop_rw("requires_grad", [](const at::Tensor& t) { return t.requires_grad(); },
                   [](at::Tensor& t, bool v) { t.set_requires_grad(v); })
      .def("requires_grad_", [](nb::handle self, bool v) {
        unpack(self.ptr()).set_requires_grad(v);
        return nb::borrow(self);
      }, nb::arg("requires_grad") = true)
      // (grad and backward: autograd.cpp)
      .def_prop_ro("is_leaf", &at::Tensor::is_leaf)
      .def("retain_grad", &at::Tensor::retain_grad)
      .def("detach", &at::Tensor::detach)
      .def("detach_", [](nb::handle self) {
        unpack(self.ptr()).detach_();
        return nb::borrow(self);
      }, "Makes this tensor a leaf that does not require grad, in place; returns it.");

  // t.data = value (the setter of Tensor.data, python/ember/__init__.py): t's TensorImpl takes value's
  // storage, geometry and dtype, and keeps everything else (its identity, so the Python object, a
  // Parameter's registration and an optimizer's reference stay; requires_grad, .grad, hooks). What
  // nn.Module.to()/to_empty() use to convert parameters in place, as PyTorch's set_data. Only on a
  // tensor without a grad_fn: a graph node's saved metadata describes the old data.
  m.def("_set_data", [](nb::handle self, nb::handle value) {
    if (!is_tensor(self.ptr()) || !is_tensor(value.ptr())) {
      PyErr_Format(PyExc_TypeError, "[data] expected a Tensor as the new data; got %s", Py_TYPE(value.ptr())->tp_name);
      raise_set();
    }
    const at::Tensor& t = unpack(self.ptr());
    const at::Tensor& v = unpack(value.ptr());
    if (!t.defined() || !v.defined()) {
      PyErr_SetString(PyExc_RuntimeError, "[data] expected defined tensors");
      raise_set();
    }
    if (t.grad_fn()) {
      PyErr_SetString(PyExc_RuntimeError, "[data] can be set only on a tensor that no op computed (a leaf); "
                                          "this one has a grad_fn");
      raise_set();
    }
    if (t.requires_grad() && !at::isFloatingType(v.scalar_type())) {
      PyErr_Format(PyExc_RuntimeError, "[data] a tensor that requires grad needs floating-point data; got %s",
                   c10::dtypeName(v.scalar_type()));
      raise_set();
    }
    c10::TensorImpl* impl = t.unsafeGetTensorImpl();
    const c10::TensorImpl* src = v.unsafeGetTensorImpl();
    impl->set_storage(src->storage());
    impl->set_dtype(src->dtype());
    impl->set_storage_offset(src->storage_offset());
    impl->set_sizes_and_strides(src->sizes(), src->strides());
  }, nb::arg("self"), nb::arg("value"));

  // ember.nn.Parameter(data) (Note [Parameter is a Tensor subclass] in python/ember/nn/parameter.py):
  // an instance of `cls`, a Python subclass of Tensor, holding data's detached alias (same storage, a new
  // leaf) with requires_grad set. Made as wrap() makes a Tensor; the subclass's __dict__ and weak
  // references are CPython's (subtype traverse/clear visit the dict, then call tensor_traverse/clear).
  m.def("_make_subclass", [](nb::handle cls, nb::handle data, bool requires_grad) {
    if (!PyType_Check(cls.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), types.tensor)) {
      PyErr_Format(PyExc_TypeError, "[_make_subclass] expected a subclass of ember.Tensor; got %R", cls.ptr());
      raise_set();
    }
    if (!is_tensor(data.ptr())) {
      PyErr_Format(PyExc_TypeError, "[_make_subclass] data must be a Tensor, not %s", Py_TYPE(data.ptr())->tp_name);
      raise_set();
    }
    at::Tensor t = unpack(data.ptr()).detach();
    t.set_requires_grad(requires_grad);
    PyObject* o = nb::detail::nb_inst_alloc(reinterpret_cast<PyTypeObject*>(cls.ptr()));
    new (nb::inst_ptr<at::Tensor>(o)) at::Tensor(std::move(t));
    nb::inst_mark_ready(o);
    return nb::steal(o);
  }, nb::arg("cls"), nb::arg("data"), nb::arg("requires_grad"));
  m.def("tensor", [](nb::handle data, nb::handle dtype, nb::handle device, bool requires_grad) {
    std::optional<at::ScalarType> dt;
    if (!dtype.is_none()) dt = to_dtype(dtype.ptr(), "dtype");
    std::optional<at::Device> dev;
    if (!device.is_none()) dev = to_device(device.ptr(), "device");
    return make_tensor(data, dt, dev, requires_grad);
  }, nb::arg("data"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),
     nb::arg("requires_grad") = false);
  // threads, dtype promotion and CUDA queries (python/ember/__init__.py, python/ember/cuda.py)
  m.def("get_num_threads", [] { return at::get_num_threads(); }, "Intra-op thread count of this thread.");
  m.def("set_num_threads", [](int n) {
    if (n < 1) {
      PyErr_Format(PyExc_ValueError, "[set_num_threads] expected a positive thread count; got %d", n);
      raise_set();
    }
    at::set_num_threads(n);
  }, nb::arg("int"), "Sets the intra-op thread count (of this thread and of threads yet to run parallel work).");
  // The dtype of tensors made from Python floats and of factories without a dtype (c10's, for the
  // whole process, as PyTorch's); ember.get_default_dtype/set_default_dtype (python/ember/__init__.py).
  m.def("_get_default_dtype", [] { return nb::steal(dtype_object(c10::get_default_dtype())); },
        "The floating dtype that factories and Python floats give when no dtype is asked for.");
  m.def("_set_default_dtype", [](nb::handle d) {
    if (!PyObject_TypeCheck(d.ptr(), types.dtype)) {
      PyErr_Format(PyExc_TypeError, "[set_default_dtype] expected an ember.dtype; got %s", Py_TYPE(d.ptr())->tp_name);
      raise_set();
    }
    at::ScalarType t = to_dtype(d.ptr(), "d");
    if (t != at::kFloat && t != at::kDouble && t != at::kHalf && t != at::kBFloat16) {
      PyErr_Format(PyExc_TypeError, "[set_default_dtype] only a floating dtype can be the default; got ember.%s",
                   dtype_name(t));
      raise_set();
    }
    c10::set_default_dtype(t);
  }, nb::arg("d"), "Sets the dtype of get_default_dtype() (float32, float64, float16 or bfloat16).");
  m.def("promote_types", [](nb::handle a, nb::handle b) {
    return nb::steal(dtype_object(c10::promoteTypes(to_dtype(a.ptr(), "type1"), to_dtype(b.ptr(), "type2"))));
  }, nb::arg("type1"), nb::arg("type2"), "The smallest dtype both convert to without losing category.");
  m.def("_cuda_is_available", [] { return ember::cuda::is_available(); });
  m.def("_cuda_device_count", [] { return ember::cuda::device_count(); });
  m.def("_cuda_synchronize", [](int64_t d) {
    nb::gil_scoped_release nogil;
    ember::cuda::synchronize(d);
  });
  m.def("_cuda_empty_cache", [] { ember::cuda::empty_cache(); });
  m.def("_cuda_memory_allocated", [](int64_t d) { return ember::cuda::memory_allocated(d); });
  m.def("_cuda_memory_reserved", [](int64_t d) { return ember::cuda::memory_reserved(d); });
  m.def("is_grad_enabled", [] { return at::GradMode::is_enabled(); });
  m.def("_set_grad_enabled", [](bool v) { at::GradMode::set_enabled(v); });
  m.def("is_inference_mode_enabled", [] { return c10::InferenceMode::is_enabled(); });
  // Inference mode as a (grad, inference) pair the Python context manager saves and restores.
  m.def("_enter_inference_mode", [](bool enabled) {
    nb::tuple prev = nb::make_tuple(ember::dispatch::tls_grad_enabled, ember::dispatch::tls_inference_mode);
    if (enabled) {
      ember::dispatch::tls_grad_enabled = false;
      ember::dispatch::tls_inference_mode = true;
    }
    return prev;
  });
  m.def("_exit_inference_mode", [](bool grad, bool inference) {
    ember::dispatch::tls_grad_enabled = grad;
    ember::dispatch::tls_inference_mode = inference;
  });
  // ember.autograd.grad / backward (python/ember/autograd.py): the engine runs without the GIL.
  m.def("_autograd_grad", [](const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& inputs,
                             const std::vector<at::Tensor>& grad_outputs, std::optional<bool> retain_graph,
                             bool create_graph, bool allow_unused) {
    std::vector<at::Tensor> r;
    {
      nb::gil_scoped_release nogil;
      r = torch::autograd::grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused);
    }
    return nb::steal(wrap(std::move(r)));
  });
  m.def("_autograd_backward", [](const std::vector<at::Tensor>& tensors, const std::vector<at::Tensor>& grad_tensors,
                                 std::optional<bool> retain_graph, bool create_graph,
                                 const std::vector<at::Tensor>& inputs) {
    nb::gil_scoped_release nogil;
    torch::autograd::backward(tensors, grad_tensors, retain_graph, create_graph, inputs);
  });

  // ---- the generated functions and methods (codegen/python.py); hand-written names win.
  static MethodTable functions, methods;
  gen::register_all(functions, methods);
  PyObject* modname = PyUnicode_FromString("ember._C");
  for (PyMethodDef& d : functions.defs()) {
    PyObject* f = PyCFunction_NewEx(&d, nullptr, modname);
    if (!f) throw nb::python_error();
    m.attr(d.ml_name) = nb::steal(f);
  }
  Py_DECREF(modname);
  PyObject* tdict = types.tensor->tp_dict;
  for (PyMethodDef& d : methods.defs()) {
    if (PyDict_GetItemString(tdict, d.ml_name)) continue;
    PyObject* descr = PyDescr_NewMethod(types.tensor, &d);
    if (!descr) throw nb::python_error();
    int rc = PyObject_SetAttrString(reinterpret_cast<PyObject*>(types.tensor), d.ml_name, descr);
    Py_DECREF(descr);
    if (rc != 0) throw nb::python_error();
  }

  static constexpr auto entries = operator_entries(std::make_index_sequence<kOperators>{});
  static PyMethodDef operator_defs[kOperators];
  for (size_t k = 0; k < kOperators; ++k) {
    Operator& op = g_operators[k];
    for (const PyMethodDef& d : methods.defs())
      if (std::strcmp(d.ml_name, op.method) == 0) op.target = reinterpret_cast<FastFn>(reinterpret_cast<void (*)()>(d.ml_meth));
    if (!op.target) throw std::runtime_error(std::string("ember._C: no generated method ") + op.method);
    operator_defs[k] = PyMethodDef{op.dunder, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(entries[k])),
                                   METH_FASTCALL | METH_KEYWORDS, nullptr};
    PyObject* descr = PyDescr_NewMethod(types.tensor, &operator_defs[k]);
    if (!descr) throw nb::python_error();
    int rc = PyObject_SetAttrString(reinterpret_cast<PyObject*>(types.tensor), op.dunder, descr);
    Py_DECREF(descr);
    if (rc != 0) throw nb::python_error();
  }

  bind_autograd(m);
  bind_interop(m);
  g_as_tensor = m.attr("as_tensor").inc_ref().ptr();
}
