// ember._C: the hand-written core of the Python frontend (Tensor, dtypes, devices, ember.tensor,
// grad mode) plus every generated function and Tensor method (codegen/python.py). The pure-Python
// package (python/ember/__init__.py) adds the operators and the context managers.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <sstream>

#include <ATen/core/GradMode.h>
#include <torch/autograd.h>
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
  at::ScalarType inferred = f.any_float ? at::kFloat : f.any_int ? at::kLong : f.any_bool ? at::kBool : at::kFloat;
  at::ScalarType want = dtype.value_or(inferred);
  bool via_double = f.any_float || c10::isFloatingType(want);
  at::Tensor t = at::empty(f.shape, at::TensorOptions().dtype(via_double ? at::kDouble : at::kLong));
  if (!f.d.empty()) {
    if (via_double) std::memcpy(t.data_ptr(), f.d.data(), f.d.size() * sizeof(double));
    else std::memcpy(t.data_ptr(), f.i.data(), f.i.size() * sizeof(int64_t));
  }
  if (t.scalar_type() != want) t = t.to(want);
  if (device && *device != t.device()) t = t.to(*device);
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
  if (!t.is_cpu()) t = t.cpu();
  at::ScalarType st = t.scalar_type();
  at::ScalarType as = c10::isFloatingType(st) ? at::kDouble : st == at::kBool ? at::kBool : at::kLong;
  if (st != as) t = t.to(as);
  PyObject* r = tolist_rec(t, static_cast<const char*>(t.const_data_ptr()) , 0, 0);
  if (!r) raise_set();
  return nb::steal(r);
}

// ---------------------------------------------------------------- indexing
std::vector<at::indexing::TensorIndex> to_indices(nb::handle index) {
  using at::indexing::TensorIndex;
  std::vector<TensorIndex> out;
  auto one = [&](PyObject* o) {
    if (o == Py_None) {
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

  // ---- Tensor
  nb::class_<at::Tensor> tensor(m, "Tensor");
  types.tensor = reinterpret_cast<PyTypeObject*>(nb::type<at::Tensor>().ptr());
  tensor
      .def("__repr__", [](const at::Tensor& t) {
        std::ostringstream os;
        os << t;  // the C++ printer (libtorch's format); TODO(#11): PyTorch's Python repr
        return os.str();
      })
      .def_prop_ro("shape", [](const at::Tensor& t) { return nb::tuple(nb::cast(t.sizes().vec())); })
      .def("size", [](const at::Tensor& t, std::optional<int64_t> dim) -> nb::object {
        if (dim) return nb::int_(t.size(*dim));
        return nb::tuple(nb::cast(t.sizes().vec()));
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
      .def("data_ptr", [](const at::Tensor& t) { return reinterpret_cast<uintptr_t>(t.const_data_ptr()); })
      .def("item", [](const at::Tensor& t) { return nb::steal(wrap(t.item())); })
      .def("tolist", &tolist)
      .def("__len__", [](const at::Tensor& t) {
        if (t.dim() == 0) throw c10::TypeError("[len] len() of a 0-d tensor");
        return t.size(0);
      })
      .def("__bool__", [](const at::Tensor& t) {
        if (t.numel() != 1)
          throw c10::Error("[bool] the truth value of a tensor with " + std::to_string(t.numel()) +
                           " elements is ambiguous");
        return t.item().toBool();
      })
      .def("__float__", [](const at::Tensor& t) { return t.item().toDouble(); })
      .def("__int__", [](const at::Tensor& t) { return t.item().toLong(); })
      .def("__index__", [](const at::Tensor& t) {
        if (t.numel() != 1 || !c10::isIntegralType(t.scalar_type(), false))
          throw c10::TypeError("[index] only integer tensors of a single element can be converted to an index");
        return t.item().toLong();
      })
      .def("__getitem__", [](const at::Tensor& t, nb::handle index) {
        auto idx = to_indices(index);
        return t.index(idx);
      }, nb::arg("index").none())
      .def("__setitem__", [](at::Tensor& t, nb::handle index, nb::handle value) {
        auto idx = to_indices(index);
        if (is_tensor(value.ptr())) t.index_put_(idx, unpack(value.ptr()));
        else t.index_put_(idx, to_scalar(value.ptr(), "value"));
      }, nb::arg("index").none(), nb::arg("value"))
      // autograd
      .def_prop_rw("requires_grad", [](const at::Tensor& t) { return t.requires_grad(); },
                   [](at::Tensor& t, bool v) { t.set_requires_grad(v); })
      .def("requires_grad_", [](nb::handle self, bool v) {
        unpack(self.ptr()).set_requires_grad(v);
        return nb::borrow(self);
      }, nb::arg("requires_grad") = true)
      .def_prop_rw("grad", [](const at::Tensor& t) { return nb::steal(wrap(t.grad())); },
                   [](at::Tensor& t, nb::handle g) {
                     if (g.is_none()) t.mutable_grad().reset();
                     else t.mutable_grad() = unpack(g.ptr());
                   }, nb::arg("grad").none())
      .def_prop_ro("is_leaf", &at::Tensor::is_leaf)
      .def("retain_grad", &at::Tensor::retain_grad)
      .def("detach", &at::Tensor::detach)
      .def("backward", [](const at::Tensor& t, std::optional<at::Tensor> gradient, std::optional<bool> retain_graph,
                          bool create_graph) {
        nb::gil_scoped_release nogil;
        t.backward(gradient.value_or(at::Tensor()), retain_graph, create_graph);
      }, nb::arg("gradient") = nb::none(), nb::arg("retain_graph") = nb::none(), nb::arg("create_graph") = false);

  m.def("tensor", [](nb::handle data, nb::handle dtype, nb::handle device, bool requires_grad) {
    std::optional<at::ScalarType> dt;
    if (!dtype.is_none()) dt = to_dtype(dtype.ptr(), "dtype");
    std::optional<at::Device> dev;
    if (!device.is_none()) dev = to_device(device.ptr(), "device");
    return make_tensor(data, dt, dev, requires_grad);
  }, nb::arg("data"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),
     nb::arg("requires_grad") = false);
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

  bind_autograd(m);
  bind_interop(m);
}
