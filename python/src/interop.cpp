// Interop of ember._C with other array libraries and with PyTorch checkpoints (see bind_areas.h):
//
//   DLPack   Tensor.__dlpack__ / __dlpack_device__, ember.from_dlpack, ember.to_dlpack (capsules
//            "dltensor_versioned" for DLPack 1.x consumers, "dltensor" for older ones)
//   NumPy    the buffer protocol on Tensor (CPU, zero-copy), Tensor.numpy / __array__,
//            ember.from_numpy, and ember.tensor / as_tensor / asarray taking arrays
//   pickle   _pickle_save / _pickle_load: Python objects <-> c10::IValue <-> torch::pickle_save's
//            bytes (python/ember/serialization.py adds files and map_location)
//   safetensors  _safetensors_* (python/ember/safetensors.py)
//
// Note [Interop ownership]
// Export: a capsule owns the DLManagedTensor(Versioned) that at::toDLPack made (it holds a Tensor
// handle, so the storage lives while the capsule or its consumer does). A consumer renames the
// capsule to "used_dltensor[_versioned]" when it takes the pointer; the capsule's destructor calls
// the deleter only while the name is unchanged, so the deleter runs exactly once either way.
// Import (from_dlpack): the capsule is renamed only after at::fromDLPack* succeeded, i.e. after the
// tensor's storage owns the producer's deleter; on an error the capsule keeps it.
// The buffer protocol and from_numpy: a Py_buffer export holds a Tensor handle (the storage cannot
// go away under a memoryview or an ndarray), and a tensor made from an ndarray holds the array's
// Py_buffer, released under the GIL when the storage is freed.
#include "bind_areas.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <string>
#include <vector>

#include <ATen/DLConvertor.h>
#include <torch/cuda.h>
#include <torch/safetensors.h>
#include <torch/serialize/pickle.h>
#include <torch/serialize/pickle_parameters.h>

#include "arg_parser.h"

namespace nb = nanobind;

namespace ember::python {
namespace {

[[noreturn]] void raise(PyObject* type, const std::string& msg) {
  PyErr_SetString(type, msg.c_str());
  throw PythonErrorSet{};
}

std::string tname(nb::handle o) { return Py_TYPE(o.ptr())->tp_name; }

// str(o) and repr(o) as C++ strings.
std::string py_str(nb::handle o) {
  PyObject* s = PyObject_Str(o.ptr());
  if (!s) throw PythonErrorSet{};
  const char* u = PyUnicode_AsUTF8(s);
  std::string out = u ? u : "";
  Py_DECREF(s);
  if (!u) throw PythonErrorSet{};
  return out;
}
std::string py_repr(nb::handle o) {
  PyObject* s = PyObject_Repr(o.ptr());
  if (!s) throw PythonErrorSet{};
  nb::object r = nb::steal(s);
  return py_str(r);
}

std::string device_str(const at::Device& d) { return d.str(); }

// NumPy, if the program has imported it (an ndarray cannot exist otherwise).
PyObject* numpy_if_loaded() {
  PyObject* mods = PyImport_GetModuleDict();
  return PyDict_GetItemString(mods, "numpy");  // borrowed
}

bool is_ndarray(nb::handle o) {
  PyObject* np = numpy_if_loaded();
  if (!np) return false;
  nb::object nd = nb::getattr(np, "ndarray", nb::none());
  return !nd.is_none() && PyObject_IsInstance(o.ptr(), nd.ptr()) == 1;
}

bool is_numpy_scalar(nb::handle o) {
  PyObject* np = numpy_if_loaded();
  if (!np) return false;
  nb::object g = nb::getattr(np, "generic", nb::none());
  return !g.is_none() && PyObject_IsInstance(o.ptr(), g.ptr()) == 1;
}

nb::module_ numpy_module(const char* op) {
  PyObject* np = PyImport_ImportModule("numpy");
  if (!np) {
    PyErr_Clear();
    raise(PyExc_ModuleNotFoundError, std::string("[") + op + "] NumPy is not installed");
  }
  return nb::steal<nb::module_>(np);
}

// ---------------------------------------------------------------- DLPack

template <class Managed>
void capsule_destructor(PyObject* cap) {
  using Traits = at::DLPackTraits<Managed>;
  if (!PyCapsule_IsValid(cap, Traits::capsule)) return;  // consumed: the consumer owns the tensor
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  auto* m = static_cast<Managed*>(PyCapsule_GetPointer(cap, Traits::capsule));
  if (m && m->deleter) m->deleter(m);
  PyErr_Restore(type, value, tb);
}

nb::object make_capsule(const at::Tensor& t, bool versioned, bool copied) {
  if (versioned) {
    DLManagedTensorVersioned* m = at::toDLPackVersioned(t);
    if (copied) m->flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
    PyObject* cap = PyCapsule_New(m, "dltensor_versioned", &capsule_destructor<DLManagedTensorVersioned>);
    if (!cap) {
      m->deleter(m);
      throw PythonErrorSet{};
    }
    return nb::steal(cap);
  }
  DLManagedTensor* m = at::toDLPack(t);
  PyObject* cap = PyCapsule_New(m, "dltensor", &capsule_destructor<DLManagedTensor>);
  if (!cap) {
    m->deleter(m);
    throw PythonErrorSet{};
  }
  return nb::steal(cap);
}

std::optional<DLDevice> to_dl_device(nb::handle o) {
  if (o.is_none()) return std::nullopt;
  if (!PyTuple_Check(o.ptr()) || PyTuple_GET_SIZE(o.ptr()) != 2)
    raise(PyExc_TypeError, "[__dlpack__] dl_device must be a (device_type, device_id) tuple or None, got " +
                               tname(o));
  int64_t type = to_int64(PyTuple_GET_ITEM(o.ptr(), 0), "dl_device");
  int64_t id = to_int64(PyTuple_GET_ITEM(o.ptr(), 1), "dl_device");
  return DLDevice{static_cast<DLDeviceType>(type), static_cast<int32_t>(id)};
}

nb::tuple dlpack_device(const at::Tensor& t) {
  DLDevice d = at::torchDeviceToDLDevice(t.device());
  return nb::make_tuple(static_cast<int>(d.device_type), static_cast<int>(d.device_id));
}

// Tensor.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)
nb::object tensor_dlpack(const at::Tensor& self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                         nb::handle copy) {
  if (self.requires_grad())
    raise(PyExc_BufferError, "[__dlpack__] the tensor requires grad, which DLPack cannot carry; export "
                             "tensor.detach() instead");
  if (!stream.is_none() && !PyLong_CheckExact(stream.ptr()))
    raise(PyExc_TypeError, "[__dlpack__] stream must be an int or None, got " + tname(stream));
  bool versioned = false;
  if (!max_version.is_none()) {
    if (!PyTuple_Check(max_version.ptr()) || PyTuple_GET_SIZE(max_version.ptr()) != 2)
      raise(PyExc_TypeError, "[__dlpack__] max_version must be a (major, minor) tuple or None, got " +
                                 tname(max_version));
    versioned = to_int64(PyTuple_GET_ITEM(max_version.ptr(), 0), "max_version") >= 1;
  }
  std::optional<bool> want_copy;
  if (!copy.is_none()) {
    if (!PyBool_Check(copy.ptr())) raise(PyExc_TypeError, "[__dlpack__] copy must be a bool or None");
    want_copy = copy.ptr() == Py_True;
  }
  std::optional<DLDevice> dev = to_dl_device(dl_device);
  // The exception types PyTorch raises (data/torch_interop.json): NotImplementedError for a device
  // Ember cannot reach, ValueError for a move across devices that copy=False forbids.
  if (dev) {
    at::Device target = at::kCPU;
    try {
      target = at::dlDeviceToTorchDevice(dev->device_type, static_cast<c10::DeviceIndex>(dev->device_id));
    } catch (const c10::Error& e) {
      raise(PyExc_NotImplementedError, std::string("[__dlpack__] ") + e.what());
    }
    const bool same = target.type() == self.device().type() && (target.is_cpu() || target.index() == self.device().index());
    if (!same && want_copy == false)
      raise(PyExc_ValueError, "[__dlpack__] the tensor is on " + device_str(self.device()) + ", so exporting it to " +
                                  device_str(target) + " needs a copy, but copy=False");
  }
  at::Tensor out = at::maybeCopyTensor(self, dev, want_copy);
  const bool copied = out.unsafeGetTensorImpl() != self.unsafeGetTensorImpl();
  // A CUDA producer makes its pending work visible to the consumer's stream (-1: the consumer
  // asked for no synchronisation). Ember queues its kernels on the device's default stream, so a
  // device-wide synchronisation is the conservative order.
  if (out.is_cuda() && !(PyLong_CheckExact(stream.ptr()) && PyLong_AsLongLong(stream.ptr()) == -1)) {
    nb::gil_scoped_release nogil;
    torch::cuda::synchronize(out.device().index());
  }
  return make_capsule(out, versioned, copied);
}

// The tensor a capsule describes; the capsule is marked used once the tensor owns the memory.
at::Tensor from_capsule(nb::handle cap) {
  PyObject* c = cap.ptr();
  if (PyCapsule_IsValid(c, "dltensor_versioned")) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, "dltensor_versioned"));
    at::Tensor t = at::fromDLPackVersioned(m);
    if (PyCapsule_SetName(c, "used_dltensor_versioned") != 0) throw PythonErrorSet{};
    return t;
  }
  if (PyCapsule_IsValid(c, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
    at::Tensor t = at::fromDLPack(m);
    if (PyCapsule_SetName(c, "used_dltensor") != 0) throw PythonErrorSet{};
    return t;
  }
  // RuntimeError, as PyTorch raises for these.
  if (PyCapsule_CheckExact(c)) {
    const char* name = PyCapsule_GetName(c);
    std::string n = name ? name : "";
    if (n == "used_dltensor" || n == "used_dltensor_versioned")
      raise(PyExc_RuntimeError, "[from_dlpack] this DLPack capsule was already consumed (a capsule can be "
                              "imported once; call __dlpack__ again for another)");
    raise(PyExc_RuntimeError, "[from_dlpack] expected a capsule named 'dltensor' or 'dltensor_versioned', got '" +
                                n + "'");
  }
  raise(PyExc_RuntimeError, "[from_dlpack] expected an object with __dlpack__ or a DLPack capsule, got " +
                             tname(cap));
}

// ember.from_dlpack(ext, *, device=None, copy=None)
at::Tensor from_dlpack(nb::handle ext, nb::handle device, nb::handle copy) {
  if (!copy.is_none() && !PyBool_Check(copy.ptr())) raise(PyExc_TypeError, "[from_dlpack] copy must be a bool or None");
  if (!nb::hasattr(ext, "__dlpack__")) {
    if (!device.is_none() || !copy.is_none())
      raise(PyExc_ValueError, "[from_dlpack] device= and copy= need an object with __dlpack__, not a capsule");
    return from_capsule(ext);
  }
  nb::tuple src = nb::borrow<nb::tuple>(ext.attr("__dlpack_device__")());
  if (nb::len(src) != 2) raise(PyExc_ValueError, "[from_dlpack] __dlpack_device__() must return a 2-tuple");
  DLDevice src_dev{static_cast<DLDeviceType>(nb::cast<int64_t>(src[0])), static_cast<int32_t>(nb::cast<int64_t>(src[1]))};
  std::optional<at::Device> target;
  bool cross_device = false;
  nb::dict kwargs;
  kwargs["max_version"] = nb::make_tuple(DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
  if (!copy.is_none()) kwargs["copy"] = copy;
  if (!device.is_none()) {
    target = to_device(device.ptr(), "device");
    DLDevice t = at::torchDeviceToDLDevice(*target);
    cross_device = t.device_type != src_dev.device_type || t.device_id != src_dev.device_id;
    if (cross_device && copy.ptr() == Py_False)
      raise(PyExc_ValueError, "[from_dlpack] moving the tensor to " + device_str(*target) +
                                  " needs a copy, but copy=False");
    if (!cross_device) kwargs["dl_device"] = nb::make_tuple(static_cast<int>(t.device_type), static_cast<int>(t.device_id));
  }
  // CUDA producers take the consumer's stream: 1 is CUDA's legacy default stream, which Ember uses.
  if (src_dev.device_type == kDLCUDA || src_dev.device_type == kDLCUDAManaged) kwargs["stream"] = 1;
  nb::object fn = ext.attr("__dlpack__");
  PyObject* cap = PyObject_Call(fn.ptr(), nb::tuple().ptr(), kwargs.ptr());
  bool producer_copied = !copy.is_none();
  if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) {
    // A producer older than DLPack 1.0's keywords (max_version, dl_device, copy).
    PyErr_Clear();
    nb::dict old;
    if (kwargs.contains("stream")) old["stream"] = kwargs["stream"];
    cap = PyObject_Call(fn.ptr(), nb::tuple().ptr(), old.ptr());
    producer_copied = false;
  }
  if (!cap) throw PythonErrorSet{};
  nb::object capsule = nb::steal(cap);
  at::Tensor t = from_capsule(capsule);
  nb::gil_scoped_release nogil;
  if (cross_device) return t.to(*target, t.scalar_type(), false, /*copy=*/true);
  if (copy.ptr() == Py_True && !producer_copied) return t.clone();
  return t;
}

// ---------------------------------------------------------------- buffer protocol

// The struct-module format of a dtype, or nullptr (bfloat16 has none).
const char* buffer_format(at::ScalarType t) {
  switch (t) {
    case at::kBool: return "?";
    case at::kByte: return "B";
    case at::kChar: return "b";
    case at::kShort: return "h";
    case at::kInt: return "i";
    case at::kLong: return "q";
    case at::kHalf: return "e";
    case at::kFloat: return "f";
    case at::kDouble: return "d";
    default: return nullptr;
  }
}

struct BufferExport {
  at::Tensor tensor;
  std::vector<Py_ssize_t> shape, strides;
};

// A valid address for an empty tensor's buffer (consumers may reject a null buf).
alignas(16) char g_empty[16];

bool f_contiguous(const at::Tensor& t) {
  int64_t expected = 1;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) == 1) continue;
    if (t.size(d) == 0) return true;
    if (t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

int tensor_getbuffer(PyObject* self, Py_buffer* view, int flags) {
  view->obj = nullptr;
  try {
    const at::Tensor& t = unpack(self);
    if (!t.defined()) raise(PyExc_BufferError, "[buffer] the tensor is undefined");
    if (!t.is_cpu())
      raise(PyExc_BufferError, "[buffer] only CPU tensors export a buffer; this one is on " + device_str(t.device()) +
                                   " (copy it with tensor.cpu())");
    if (t.requires_grad())
      raise(PyExc_BufferError, "[buffer] the tensor requires grad; export tensor.detach() instead");
    const char* fmt = buffer_format(t.scalar_type());
    if (!fmt)
      raise(PyExc_BufferError, std::string("[buffer] ") + c10::toString(t.scalar_type()) +
                                   " has no buffer format; convert the tensor first (e.g. tensor.float())");
    const bool c_contig = t.is_contiguous();
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c_contig)
      raise(PyExc_BufferError, "[buffer] the consumer asked for a buffer without strides, but the tensor is not "
                               "contiguous (use tensor.contiguous())");
    if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c_contig)
      raise(PyExc_BufferError, "[buffer] a C-contiguous buffer was requested, but the tensor is not contiguous");
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !f_contiguous(t))
      raise(PyExc_BufferError, "[buffer] a Fortran-contiguous buffer was requested, but the tensor is not one");
    if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c_contig && !f_contiguous(t))
      raise(PyExc_BufferError, "[buffer] a contiguous buffer was requested, but the tensor is not contiguous");
    auto* info = new BufferExport{t, {}, {}};
    const int64_t item = t.element_size();
    for (int64_t d = 0; d < t.dim(); ++d) {
      info->shape.push_back(static_cast<Py_ssize_t>(t.size(d)));
      info->strides.push_back(static_cast<Py_ssize_t>(t.stride(d) * item));
    }
    void* data = t.numel() == 0 || !t.data_ptr() ? static_cast<void*>(g_empty) : t.data_ptr();
    view->buf = data;
    view->obj = self;
    Py_INCREF(self);
    view->len = static_cast<Py_ssize_t>(t.numel() * item);
    view->itemsize = static_cast<Py_ssize_t>(item);
    view->readonly = 0;
    view->ndim = static_cast<int>(t.dim());
    view->format = (flags & PyBUF_FORMAT) ? const_cast<char*>(fmt) : nullptr;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND && t.dim() ? info->shape.data() : nullptr;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES && t.dim() ? info->strides.data() : nullptr;
    view->suboffsets = nullptr;
    view->internal = info;
    return 0;
  } catch (const PythonErrorSet&) {
  } catch (...) {
    set_python_error();
  }
  view->obj = nullptr;
  return -1;
}

void tensor_releasebuffer(PyObject*, Py_buffer* view) { delete static_cast<BufferExport*>(view->internal); }

// ---------------------------------------------------------------- NumPy

// Tensor.numpy(*, force=False): an ndarray sharing the tensor's memory.
nb::object tensor_numpy(nb::handle self, bool force) {
  at::Tensor t = unpack(self.ptr());
  nb::handle src = self;
  nb::object holder;
  if (t.requires_grad() && !force)
    raise(PyExc_RuntimeError, "[numpy] the tensor requires grad, so NumPy cannot share it; use "
                              "tensor.detach().numpy()");
  if (!t.is_cpu() && !force)
    raise(PyExc_TypeError, "[numpy] the tensor is on " + device_str(t.device()) +
                               ", and NumPy arrays live in host memory; copy it with tensor.cpu() first");
  if (t.scalar_type() == at::kBFloat16)
    raise(PyExc_TypeError, "[numpy] NumPy has no bfloat16 dtype; convert the tensor first (e.g. "
                           "tensor.float().numpy())");
  if (force && (t.requires_grad() || !t.is_cpu())) {
    at::Tensor u = t.detach();
    if (!u.is_cpu()) u = u.cpu();
    holder = nb::steal(wrap(std::move(u)));
    src = holder;
  }
  nb::module_ np = numpy_module("numpy");
  PyObject* mv = PyMemoryView_FromObject(src.ptr());
  if (!mv) throw PythonErrorSet{};
  nb::object view = nb::steal(mv);
  return np.attr("asarray")(view);
}

// Tensor.__array__(dtype=None, copy=None): NumPy 2's protocol.
nb::object tensor_array(nb::handle self, nb::handle dtype, nb::handle copy) {
  nb::object a = tensor_numpy(self, false);
  if (!dtype.is_none()) {
    nb::module_ np = numpy_module("__array__");
    nb::object want = np.attr("dtype")(dtype);
    if (!want.equal(a.attr("dtype"))) {
      if (copy.ptr() == Py_False)
        raise(PyExc_ValueError, "[__array__] converting " + py_str((a.attr("dtype"))) + " to " +
                                    py_str((want)) + " needs a copy, but copy=False");
      return a.attr("astype")(want);
    }
  }
  if (copy.ptr() == Py_True) return a.attr("copy")();
  return a;
}

// The Ember dtype of a buffer's format, or raise.
at::ScalarType dtype_of_format(const char* fmt, Py_ssize_t itemsize, nb::handle array) {
  std::string f = fmt ? fmt : "B";
  bool big_endian = false;
  if (!f.empty() && (f[0] == '@' || f[0] == '=' || f[0] == '<' || f[0] == '>' || f[0] == '!')) {
    big_endian = f[0] == '>' || f[0] == '!';
    f = f.substr(1);
  }
  std::string dt = py_str((array.attr("dtype")));
  if (big_endian)
    raise(PyExc_TypeError, "[from_numpy] the array's dtype " + dt + " is big-endian; convert it to native byte "
                           "order first (a.astype(a.dtype.newbyteorder('=')))");
  if (f.size() == 1) {
    switch (f[0]) {
      case '?': return at::kBool;
      case 'e': return at::kHalf;
      case 'f': return at::kFloat;
      case 'd': return at::kDouble;
      case 'b': case 'h': case 'i': case 'l': case 'q':
        switch (itemsize) {
          case 1: return at::kChar;
          case 2: return at::kShort;
          case 4: return at::kInt;
          case 8: return at::kLong;
        }
        break;
      case 'B':
        if (itemsize == 1) return at::kByte;
        break;
    }
  }
  raise(PyExc_TypeError, "[from_numpy] NumPy's " + dt + " has no Ember dtype (supported: float64, float32, "
                         "float16, int64, int32, int16, int8, uint8 and bool)");
}

struct HeldBuffer {
  Py_buffer view;
};

void release_held_buffer(void* ctx) {
  auto* h = static_cast<HeldBuffer*>(ctx);
  if (Py_IsInitialized()) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release(&h->view);
    PyGILState_Release(g);
  }
  delete h;
}

// ember.from_numpy(a): a tensor sharing the ndarray's memory (the array stays alive with it).
at::Tensor from_numpy(nb::handle a, bool warn_readonly = true) {
  if (!is_ndarray(a)) raise(PyExc_TypeError, "[from_numpy] expected a numpy.ndarray, got " + tname(a));
  auto* h = new HeldBuffer;
  if (PyObject_GetBuffer(a.ptr(), &h->view, PyBUF_RECORDS_RO) != 0) {
    delete h;
    // Arrays without a buffer format (object, datetime, structured ...): name the dtype.
    PyErr_Clear();
    std::string dt = py_str((a.attr("dtype")));
    raise(PyExc_TypeError, "[from_numpy] NumPy's " + dt + " has no Ember dtype (supported: float64, float32, "
                           "float16, int64, int32, int16, int8, uint8 and bool)");
  }
  try {
    Py_buffer& v = h->view;
    at::ScalarType st = dtype_of_format(v.format, v.itemsize, a);
    std::vector<int64_t> sizes, strides;
    for (int d = 0; d < v.ndim; ++d) {
      sizes.push_back(v.shape[d]);
      Py_ssize_t s = v.strides[d];
      if (s < 0)
        raise(PyExc_ValueError, "[from_numpy] the array has a negative stride, which Ember tensors cannot "
                                "express; pass a.copy() (or np.ascontiguousarray(a))");
      if (s % v.itemsize != 0)
        raise(PyExc_ValueError, "[from_numpy] the array's strides are not multiples of its element size; pass "
                                "a.copy()");
      strides.push_back(s / v.itemsize);
    }
    if (v.readonly && warn_readonly) {
      if (PyErr_WarnEx(PyExc_UserWarning,
                       "[from_numpy] the NumPy array is read-only, but the tensor shares its memory and can "
                       "write to it; copy the array first if it must not change",
                       1) != 0)
        throw PythonErrorSet{};
    }
    at::Tensor t = at::from_blob(v.buf, sizes, strides, [h](void*) { release_held_buffer(h); },
                                 at::TensorOptions().dtype(st));
    return t;
  } catch (...) {
    PyBuffer_Release(&h->view);
    delete h;
    throw;
  }
}

// ---------------------------------------------------------------- ember.tensor / as_tensor / asarray

PyObject* g_core_tensor = nullptr;  // module.cpp's ember.tensor: numbers and nested lists (kept for good)

struct Target {
  std::optional<at::ScalarType> dtype;
  std::optional<at::Device> device;
};

Target parse_target(nb::handle dtype, nb::handle device) {
  Target t;
  if (!dtype.is_none()) t.dtype = to_dtype(dtype.ptr(), "dtype");
  if (!device.is_none()) t.device = to_device(device.ptr(), "device");
  return t;
}

bool needs_conversion(const at::Tensor& t, const Target& w) {
  if (w.dtype && *w.dtype != t.scalar_type()) return true;
  if (w.device) {
    const at::Device& d = *w.device;
    if (d.type() != t.device().type()) return true;
    if (!d.is_cpu() && d.has_index() && d.index() != t.device().index()) return true;
  }
  return false;
}

// A contiguous copy of `t` (or `t` converted, which is a copy) with the target dtype and device.
at::Tensor copy_to(const at::Tensor& t, const Target& w, bool requires_grad) {
  at::Tensor out;
  {
    nb::gil_scoped_release nogil;
    out = t.detach().to(w.device.value_or(t.device()), w.dtype.value_or(t.scalar_type()), false,
                        /*copy=*/true, at::MemoryFormat::Contiguous);
  }
  if (requires_grad) out.set_requires_grad(true);
  return out;
}

// An ndarray (or NumPy scalar) as a tensor sharing its memory where the layout allows (negative
// strides and big-endian data are copied first, or refused with `no_copy`); `fresh` tells whether
// the result owns memory no one else sees.
at::Tensor tensor_of_array(nb::handle data, bool no_copy, bool* fresh) {
  nb::module_ np = numpy_module("tensor");
  nb::object arr = np.attr("asarray")(data);
  *fresh = !arr.is(data);
  if (py_str((arr.attr("dtype").attr("byteorder"))) == ">") {
    if (no_copy) raise(PyExc_ValueError, "[asarray] the array is big-endian, so it cannot be shared without a copy");
    arr = arr.attr("astype")(arr.attr("dtype").attr("newbyteorder")("="));
    *fresh = true;
  }
  bool negative = false;
  for (nb::handle s : nb::borrow<nb::tuple>(arr.attr("strides")))
    if (nb::cast<int64_t>(s) < 0) negative = true;
  if (negative) {
    if (no_copy)
      raise(PyExc_ValueError, "[asarray] the array has a negative stride, so it cannot be shared without a copy");
    arr = np.attr("ascontiguousarray")(arr);
    *fresh = true;
  }
  return from_numpy(arr, /*warn_readonly=*/false);
}

// ember.tensor(data, *, dtype=None, device=None, requires_grad=False): always a copy.
nb::object tensor_any(nb::handle data, nb::handle dtype, nb::handle device, bool requires_grad) {
  PyObject* o = data.ptr();
  const bool plain = PyList_Check(o) || PyTuple_Check(o) || PyLong_CheckExact(o) || PyBool_Check(o) ||
                     PyFloat_CheckExact(o);
  if (!plain) {  // (NumPy scalars are none of these exact types)
    Target w = parse_target(dtype, device);
    if (is_tensor(o)) {
      if (PyErr_WarnEx(PyExc_UserWarning,
                       "[tensor] ember.tensor(t) copies t; t.clone().detach() says so (and "
                       "t.clone().detach().requires_grad_(True) for a new leaf)",
                       1) != 0)
        throw PythonErrorSet{};
      return nb::steal(wrap(copy_to(unpack(o), w, requires_grad)));
    }
    if (is_ndarray(data) || is_numpy_scalar(data)) {
      bool fresh = false;
      at::Tensor t = tensor_of_array(data, false, &fresh);
      if (fresh && !needs_conversion(t, w) && t.is_contiguous()) {
        if (requires_grad) t.set_requires_grad(true);
        return nb::steal(wrap(std::move(t)));
      }
      return nb::steal(wrap(copy_to(t, w, requires_grad)));
    }
    if (!PyType_Check(o) && nb::hasattr(data, "__dlpack__"))
      return nb::steal(wrap(copy_to(from_dlpack(data, nb::none(), nb::none()), w, requires_grad)));
  }
  static PyObject* kwnames = Py_BuildValue("(sss)", "dtype", "device", "requires_grad");  // kept for good
  PyObject* args[] = {data.ptr(), dtype.ptr(), device.ptr(), requires_grad ? Py_True : Py_False};
  PyObject* r = PyObject_Vectorcall(g_core_tensor, args, 1, kwnames);
  if (r) return nb::steal(r);
  // Sequences holding arrays, tensors or NumPy scalars: NumPy gathers them (an object array means it
  // could not, and the first error stands).
  if ((PyList_Check(o) || PyTuple_Check(o)) && PyErr_ExceptionMatches(PyExc_TypeError) && numpy_if_loaded()) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject* arr = PyObject_CallMethod(numpy_if_loaded(), "array", "O", o);
    // Only arrays of numbers and bools: NumPy makes an array of str or bytes from ['a'] too, and that
    // conversion's error would replace ember.tensor's own ("[tensor] cannot make a tensor element ...").
    std::string kind = arr ? py_str((nb::handle(arr).attr("dtype").attr("kind"))) : std::string();
    if (arr && (kind == "b" || kind == "i" || kind == "u" || kind == "f")) {
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(tb);
      nb::object a = nb::steal(arr);
      return tensor_any(a, dtype, device, requires_grad);
    }
    Py_XDECREF(arr);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
  }
  throw PythonErrorSet{};
}

// ember.as_tensor(data, dtype=None, device=None): shares memory with tensors and arrays when it can.
nb::object as_tensor(nb::handle data, nb::handle dtype, nb::handle device) {
  Target w = parse_target(dtype, device);
  at::Tensor t;
  if (is_tensor(data.ptr())) {
    t = unpack(data.ptr());
    if (!needs_conversion(t, w)) return nb::borrow(data);
    return nb::steal(wrap(t.to(w.device.value_or(t.device()), w.dtype.value_or(t.scalar_type()))));
  }
  if (is_ndarray(data) || is_numpy_scalar(data)) {
    bool fresh = false;
    t = tensor_of_array(data, false, &fresh);
  } else if (!PyType_Check(data.ptr()) && nb::hasattr(data, "__dlpack__")) {
    t = from_dlpack(data, nb::none(), nb::none());
  } else {
    return tensor_any(data, dtype, device, false);
  }
  if (needs_conversion(t, w)) t = t.to(w.device.value_or(t.device()), w.dtype.value_or(t.scalar_type()));
  return nb::steal(wrap(std::move(t)));
}

at::Tensor frombuffer(nb::handle buffer, nb::handle dtype, int64_t count, int64_t offset, bool requires_grad);

// ember.asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False): shares the memory of
// tensors, arrays, DLPack objects and buffers unless a copy is asked for or a conversion needs one.
nb::object asarray(nb::handle obj, nb::handle dtype, nb::handle device, nb::handle copy, bool requires_grad) {
  if (!copy.is_none() && !PyBool_Check(copy.ptr())) raise(PyExc_TypeError, "[asarray] copy must be a bool or None");
  const bool force = copy.ptr() == Py_True, never = copy.ptr() == Py_False;
  Target w = parse_target(dtype, device);
  at::Tensor t;
  bool shared = true;
  if (is_tensor(obj.ptr())) {
    t = unpack(obj.ptr());
  } else if (is_ndarray(obj) || is_numpy_scalar(obj)) {
    bool fresh = false;
    t = tensor_of_array(obj, never, &fresh);
    shared = !fresh;
  } else if (!PyType_Check(obj.ptr()) && nb::hasattr(obj, "__dlpack__")) {
    t = from_dlpack(obj, nb::none(), never ? nb::handle(Py_False) : nb::none());
  } else if (PyObject_CheckBuffer(obj.ptr())) {
    // Other buffers are bytes, read as elements of `dtype` (uint8 when none is given, as PyTorch does).
    nb::object dt = dtype.is_none() ? nb::steal(dtype_object(at::kByte)) : nb::borrow(dtype);
    t = frombuffer(obj, dt, -1, 0, false);
  } else {
    if (never) raise(PyExc_ValueError, "[asarray] building a tensor from a " + tname(obj) +
                                           " needs a copy, but copy=False");
    nb::object r = tensor_any(obj, dtype, device, requires_grad);
    return r;
  }
  const bool convert = needs_conversion(t, w);
  if (never && convert)
    raise(PyExc_ValueError, "[asarray] converting the tensor to the requested dtype/device needs a copy, but copy=False");
  if ((force && shared) || convert) {
    at::Tensor out;
    {
      nb::gil_scoped_release nogil;
      out = t.detach().to(w.device.value_or(t.device()), w.dtype.value_or(t.scalar_type()), false, /*copy=*/true);
    }
    if (requires_grad) out.set_requires_grad(true);
    return nb::steal(wrap(std::move(out)));
  }
  if (requires_grad && !t.requires_grad()) {
    t = t.detach();
    t.set_requires_grad(true);
    return nb::steal(wrap(std::move(t)));
  }
  if (is_tensor(obj.ptr())) return nb::borrow(obj);
  return nb::steal(wrap(std::move(t)));
}

// ember.frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False): a 1-D tensor over the
// bytes of any buffer object, sharing them (the object stays alive with the tensor).
at::Tensor frombuffer(nb::handle buffer, nb::handle dtype, int64_t count, int64_t offset, bool requires_grad) {
  at::ScalarType st = to_dtype(dtype.ptr(), "dtype");
  auto* h = new HeldBuffer;
  bool readonly = false;
  if (PyObject_GetBuffer(buffer.ptr(), &h->view, PyBUF_WRITABLE) != 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(buffer.ptr(), &h->view, PyBUF_SIMPLE) != 0) {
      delete h;
      PyErr_Clear();
      raise(PyExc_TypeError, "[frombuffer] expected an object with the buffer protocol, got " + tname(buffer));
    }
    readonly = true;
  }
  try {
    const int64_t len = h->view.len, item = static_cast<int64_t>(c10::elementSize(st));
    if (len == 0 || count == 0)
      raise(PyExc_ValueError, "[frombuffer] the buffer (" + std::to_string(len) + " bytes) and count (" +
                                  std::to_string(count) + ") must both be non-zero");
    if (offset < 0 || offset >= len)
      raise(PyExc_ValueError, "[frombuffer] offset " + std::to_string(offset) + " is outside the buffer's " +
                                  std::to_string(len) + " bytes");
    if (count < 0) {
      if (count != -1) raise(PyExc_ValueError, "[frombuffer] count must be positive or -1 (all elements)");
      if ((len - offset) % item != 0)
        raise(PyExc_ValueError, "[frombuffer] the " + std::to_string(len - offset) + " bytes after offset " +
                                    std::to_string(offset) + " are not a whole number of " + std::to_string(item) +
                                    "-byte elements");
      count = (len - offset) / item;
    } else if (count > (len - offset) / item) {
      raise(PyExc_ValueError, "[frombuffer] " + std::to_string(count) + " elements of " + std::to_string(item) +
                                  " bytes do not fit in the " + std::to_string(len - offset) +
                                  " bytes after offset " + std::to_string(offset));
    }
    if (readonly && PyErr_WarnEx(PyExc_UserWarning,
                                 "[frombuffer] the buffer is read-only, but the tensor shares its memory and "
                                 "can write to it; copy the buffer first if it must not change",
                                 1) != 0)
      throw PythonErrorSet{};
    void* data = static_cast<char*>(h->view.buf) + offset;
    at::Tensor t = at::from_blob(data, {count}, [h](void*) { release_held_buffer(h); }, at::TensorOptions().dtype(st));
    if (requires_grad) t.set_requires_grad(true);
    return t;
  } catch (...) {
    PyBuffer_Release(&h->view);
    delete h;
    throw;
  }
}

// Tensor.__array_wrap__(array, context=None, return_scalar=False): NumPy's ufuncs applied to tensors
// return tensors (sharing the result array); results Ember has no dtype for stay arrays.
nb::object tensor_array_wrap(nb::handle, nb::handle array, nb::handle, nb::handle) {
  if (!is_ndarray(array)) return nb::borrow(array);
  try {
    bool fresh = false;
    return nb::steal(wrap(tensor_of_array(array, false, &fresh)));
  } catch (const PythonErrorSet&) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw;
    PyErr_Clear();
    return nb::borrow(array);
  }
}

// Deep copies and Python pickling (python/ember/serialization.py): a storage's identity, a clone of a
// whole storage as a 1-D tensor of `t`'s dtype, and `t`'s view of such a clone.
uintptr_t storage_key(const at::Tensor& t) { return reinterpret_cast<uintptr_t>(t.storage().unsafeGetStorageImpl()); }

at::Tensor storage_clone(const at::Tensor& t) {
  const int64_t item = t.element_size();
  const int64_t n = static_cast<int64_t>(t.storage().nbytes()) / item;
  at::Tensor whole = t.detach().as_strided({n}, {1}, 0);
  nb::gil_scoped_release nogil;
  return whole.clone();
}

at::Tensor storage_view(const at::Tensor& whole, const at::Tensor& t) {
  return whole.as_strided(t.sizes(), t.strides(), t.storage_offset());
}

// ---------------------------------------------------------------- pickle (ember.save / ember.load)

constexpr int kMaxDepth = 1000;

// The tensors of a save that are nn.Parameter instances (written as Parameters), and of a load that
// the file stores as Parameters (given back as ember.nn.Parameter).
using SavedParams = std::vector<const c10::TensorImpl*>;

c10::IValue to_ivalue(PyObject* o, int depth, SavedParams& params);

nb::object parameter_class() { return nb::module_::import_("ember.nn.parameter").attr("Parameter"); }

struct LoadedParams {
  std::vector<at::Tensor> tensors;  // as pickle_load reports them
  std::vector<nb::object> made;     // the ember.nn.Parameter of each, once made (one object per parameter)
};

c10::IValue key_to_ivalue(PyObject* k, int depth, SavedParams& params) {
  if (k == Py_None || PyBool_Check(k) || PyLong_Check(k) || PyFloat_Check(k) || PyUnicode_Check(k))
    return to_ivalue(k, depth, params);
  raise(PyExc_TypeError, "[save] dict keys must be str, int, float, bool or None, got " + tname(k));
}

c10::IValue to_ivalue(PyObject* o, int depth, SavedParams& params) {
  if (depth > kMaxDepth)
    raise(PyExc_ValueError, "[save] the object is nested more than 1000 deep (or contains itself)");
  if (o == Py_None) return c10::IValue();
  if (PyBool_Check(o)) return c10::IValue(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) raise(PyExc_OverflowError, "[save] the int " + py_repr(o) +
                                                 " does not fit in 64 bits");
    if (v == -1 && PyErr_Occurred()) throw PythonErrorSet{};
    return c10::IValue(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(o)) return c10::IValue(PyFloat_AS_DOUBLE(o));
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (!s) throw PythonErrorSet{};
    return c10::IValue(std::string(s, static_cast<size_t>(n)));
  }
  if (is_tensor(o)) {
    const at::Tensor& t = unpack(o);
    if (!t.defined()) return c10::IValue();
    if (Py_TYPE(o) != types.tensor) {
      const int is_param = PyObject_IsInstance(o, parameter_class().ptr());
      if (is_param < 0) throw PythonErrorSet{};
      if (is_param) params.push_back(t.unsafeGetTensorImpl());
    }
    return c10::IValue(t);
  }
  if (PyTuple_Check(o)) {
    std::vector<c10::IValue> items;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(o); ++k) items.push_back(to_ivalue(PyTuple_GET_ITEM(o, k), depth + 1, params));
    return c10::IValue(c10::ivalue::Tuple::create(std::move(items)));
  }
  if (PyList_Check(o)) {
    c10::impl::GenericList l;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(o); ++k) l.push_back(to_ivalue(PyList_GET_ITEM(o, k), depth + 1, params));
    return c10::IValue(l);
  }
  if (PyDict_Check(o)) {
    c10::impl::GenericDict d;
    // items(): an OrderedDict's order is its own, not the underlying dict's.
    nb::object items = nb::borrow(o).attr("items")();
    for (nb::handle kv : items) {
      PyObject* k = PyTuple_GET_ITEM(kv.ptr(), 0);
      d.insert_or_assign(key_to_ivalue(k, depth + 1, params), to_ivalue(PyTuple_GET_ITEM(kv.ptr(), 1), depth + 1, params));
    }
    return c10::IValue(d);
  }
  std::string hint;
  if (PyObject_HasAttrString(o, "state_dict")) hint = "; save its state_dict() instead";
  raise(PyExc_TypeError, "[save] cannot save a " + tname(o) +
                             ": Ember writes tensors, None, bool, int, float, str and lists, tuples and dicts of "
                             "them" + hint);
}

PyObject* to_python(const c10::IValue& v, LoadedParams& params) {
  if (v.isNone()) Py_RETURN_NONE;
  if (v.isBool()) return PyBool_FromLong(v.toBool());
  if (v.isInt()) return PyLong_FromLongLong(v.toInt());
  if (v.isDouble()) return PyFloat_FromDouble(v.toDouble());
  if (v.isString()) {
    const std::string& s = v.toStringRef();
    return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogatepass");
  }
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    for (size_t k = 0; k < params.tensors.size(); ++k) {
      if (params.tensors[k].unsafeGetTensorImpl() != t.unsafeGetTensorImpl()) continue;
      if (!params.made[k]) {
        nb::object data = nb::steal(wrap(t));
        if (!data) return nullptr;
        params.made[k] = parameter_class()(data, t.requires_grad());
      }
      return params.made[k].inc_ref().ptr();
    }
    return wrap(t);
  }
  if (v.isTuple()) {
    const auto& e = v.toTupleRef().elements();
    nb::object t = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(e.size())));
    if (!t) return nullptr;
    for (size_t k = 0; k < e.size(); ++k) {
      PyObject* x = to_python(e[k], params);
      if (!x) return nullptr;
      PyTuple_SET_ITEM(t.ptr(), static_cast<Py_ssize_t>(k), x);
    }
    return t.release().ptr();
  }
  if (v.isList()) {
    c10::impl::GenericList l = v.toList();
    nb::object out = nb::steal(PyList_New(static_cast<Py_ssize_t>(l.size())));
    if (!out) return nullptr;
    for (size_t k = 0; k < l.size(); ++k) {
      PyObject* x = to_python(l.get(k), params);
      if (!x) return nullptr;
      PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(k), x);
    }
    return out.release().ptr();
  }
  if (v.isGenericDict()) {
    nb::object out = nb::steal(PyDict_New());
    if (!out) return nullptr;
    for (const auto& e : v.toGenericDict()) {
      nb::object k = nb::steal(to_python(e.key(), params));
      if (!k) return nullptr;
      nb::object x = nb::steal(to_python(e.value(), params));
      if (!x) return nullptr;
      if (PyDict_SetItem(out.ptr(), k.ptr(), x.ptr()) != 0) return nullptr;
    }
    return out.release().ptr();
  }
  PyErr_SetString(PyExc_RuntimeError, ("[load] a loaded value of kind " + v.tagKind() + " has no Python form").c_str());
  return nullptr;
}

nb::bytes pickle_save(nb::handle obj) {
  SavedParams params;
  c10::IValue v = to_ivalue(obj.ptr(), 0, params);
  std::vector<char> data;
  {
    nb::gil_scoped_release nogil;
    data = torch::pickle_save(v, params);
  }
  return nb::bytes(data.data(), data.size());
}

nb::object pickle_load(nb::handle data) {
  Py_buffer view;
  if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0) throw PythonErrorSet{};
  std::vector<char> bytes(static_cast<const char*>(view.buf), static_cast<const char*>(view.buf) + view.len);
  PyBuffer_Release(&view);
  c10::IValue v;
  LoadedParams params;
  {
    nb::gil_scoped_release nogil;
    v = torch::pickle_load(bytes, &params.tensors);
  }
  params.made.resize(params.tensors.size());
  PyObject* r = to_python(v, params);
  if (!r) throw PythonErrorSet{};
  return nb::steal(r);
}

// ---------------------------------------------------------------- safetensors

std::vector<std::pair<std::string, at::Tensor>> named_tensors(nb::handle tensors) {
  if (!PyDict_Check(tensors.ptr()))
    raise(PyExc_TypeError, "[safetensors] expected a dict of str to Tensor, got " + tname(tensors));
  std::vector<std::pair<std::string, at::Tensor>> out;
  nb::object items = nb::borrow(tensors).attr("items")();
  for (nb::handle kv : items) {
    PyObject* k = PyTuple_GET_ITEM(kv.ptr(), 0);
    PyObject* v = PyTuple_GET_ITEM(kv.ptr(), 1);
    if (!PyUnicode_Check(k)) raise(PyExc_TypeError, "[safetensors] tensor names must be str, got " + tname(k));
    if (!is_tensor(v))
      raise(PyExc_TypeError, "[safetensors] '" + std::string(PyUnicode_AsUTF8(k)) + "' is a " + tname(v) +
                                 ", not a Tensor");
    out.emplace_back(PyUnicode_AsUTF8(k), unpack(v).detach());
  }
  return out;
}

torch::safetensors::Metadata metadata_of(nb::handle md) {
  torch::safetensors::Metadata out;
  if (md.is_none()) return out;
  if (!PyDict_Check(md.ptr())) raise(PyExc_TypeError, "[safetensors] metadata must be a dict of str to str");
  for (nb::handle kv : nb::borrow(md).attr("items")()) {
    PyObject* k = PyTuple_GET_ITEM(kv.ptr(), 0);
    PyObject* v = PyTuple_GET_ITEM(kv.ptr(), 1);
    if (!PyUnicode_Check(k) || !PyUnicode_Check(v))
      raise(PyExc_TypeError, "[safetensors] metadata must map str to str");
    out[PyUnicode_AsUTF8(k)] = PyUnicode_AsUTF8(v);
  }
  return out;
}

nb::tuple loaded(const torch::safetensors::TensorDict& tensors, const torch::safetensors::Metadata& md) {
  nb::dict d, m;
  for (const auto& it : tensors) d[nb::str(it.key().c_str())] = nb::steal(wrap(it.value()));
  for (const auto& [k, v] : md) m[nb::str(k.c_str())] = nb::str(v.c_str());
  return nb::make_tuple(d, m);
}

}  // namespace

void bind_interop(nb::module_& m) {
  nb::handle tp = nb::type<at::Tensor>();
  auto* tensor_type = reinterpret_cast<PyTypeObject*>(tp.ptr());
  // The buffer protocol, set on the heap type nanobind made (every heap type has its own
  // PyBufferProcs); Python subclasses made later inherit it.
  tensor_type->tp_as_buffer->bf_getbuffer = &tensor_getbuffer;
  tensor_type->tp_as_buffer->bf_releasebuffer = &tensor_releasebuffer;
  PyType_Modified(tensor_type);

  nb::cpp_function_def(&tensor_dlpack, nb::scope(tp), nb::name("__dlpack__"), nb::is_method(), nb::kw_only(),
                       nb::arg("stream").none() = nb::none(), nb::arg("max_version").none() = nb::none(),
                       nb::arg("dl_device").none() = nb::none(), nb::arg("copy").none() = nb::none(),
                       "A DLPack capsule sharing the tensor's memory (versioned when max_version >= (1, 0)).");
  nb::cpp_function_def([](const at::Tensor& t) { return dlpack_device(t); }, nb::scope(tp),
                       nb::name("__dlpack_device__"), nb::is_method(), "(DLPack device type, device index)");
  nb::cpp_function_def(&tensor_numpy, nb::scope(tp), nb::name("numpy"), nb::is_method(), nb::kw_only(),
                       nb::arg("force") = false,
                       "A NumPy array sharing the tensor's memory (CPU tensors; force=True detaches and copies "
                       "to the CPU first).");
  nb::cpp_function_def(&tensor_array, nb::scope(tp), nb::name("__array__"), nb::is_method(),
                       nb::arg("dtype").none() = nb::none(), nb::arg("copy").none() = nb::none());

  m.def("from_dlpack", &from_dlpack, nb::arg("ext_tensor").none(), nb::kw_only(), nb::arg("device").none() = nb::none(),
        nb::arg("copy").none() = nb::none(),
        "A tensor sharing the memory of an object with __dlpack__ (or of a DLPack capsule).");
  m.def("to_dlpack", [](const at::Tensor& t) { return make_capsule(t, false, false); }, nb::arg("tensor"),
        "A legacy DLPack capsule ('dltensor') sharing the tensor's memory.");
  m.def("from_numpy", [](nb::handle a) { return from_numpy(a); }, nb::arg("ndarray"),
        "A tensor sharing the memory of a NumPy array, which it keeps alive.");

  // ember.tensor: arrays, tensors and DLPack objects here, numbers and lists in module.cpp's (kept
  // for good: g_core_tensor is never released). Deleted first, or nanobind would chain the two as
  // overloads of one function.
  g_core_tensor = m.attr("tensor").ptr();
  Py_INCREF(g_core_tensor);
  nb::delattr(m, "tensor");
  m.def("tensor", &tensor_any, nb::arg("data").none(), nb::kw_only(), nb::arg("dtype").none() = nb::none(),
        nb::arg("device").none() = nb::none(), nb::arg("requires_grad") = false,
        "A new tensor holding a copy of data (numbers, nested lists, NumPy arrays, tensors, DLPack objects).");
  m.def("as_tensor", &as_tensor, nb::arg("data").none(), nb::arg("dtype").none() = nb::none(),
        nb::arg("device").none() = nb::none(), "data as a tensor, sharing memory with tensors and arrays when it can.");
  m.def("asarray", &asarray, nb::arg("obj").none(), nb::kw_only(), nb::arg("dtype").none() = nb::none(),
        nb::arg("device").none() = nb::none(), nb::arg("copy").none() = nb::none(), nb::arg("requires_grad") = false);

  m.def("frombuffer", &frombuffer, nb::arg("buffer"), nb::kw_only(), nb::arg("dtype"), nb::arg("count") = -1,
        nb::arg("offset") = 0, nb::arg("requires_grad") = false,
        "A 1-D tensor sharing the bytes of a buffer object (which it keeps alive).");
  nb::cpp_function_def(&tensor_array_wrap, nb::scope(tp), nb::name("__array_wrap__"), nb::is_method(),
                       nb::arg("array"), nb::arg("context").none() = nb::none(),
                       nb::arg("return_scalar").none() = nb::none());
  m.def("_storage_key", [](const at::Tensor& t) { return storage_key(t); });
  m.def("_storage_clone", [](const at::Tensor& t) { return storage_clone(t); });
  m.def("_storage_view", [](const at::Tensor& whole, const at::Tensor& t) { return storage_view(whole, t); });

  m.def("_pickle_save", &pickle_save, nb::arg("obj").none());
  m.def("_pickle_load", &pickle_load, nb::arg("data"));

  m.def("_safetensors_save", [](nb::handle tensors, nb::handle metadata) {
    auto named = named_tensors(tensors);
    auto md = metadata_of(metadata);
    std::string bytes;
    {
      nb::gil_scoped_release nogil;
      bytes = torch::safetensors::save_to_buffer(named, md);
    }
    return nb::bytes(bytes.data(), bytes.size());
  }, nb::arg("tensors"), nb::arg("metadata").none());
  m.def("_safetensors_save_file", [](nb::handle tensors, const std::string& path, nb::handle metadata) {
    auto named = named_tensors(tensors);
    auto md = metadata_of(metadata);
    nb::gil_scoped_release nogil;
    torch::safetensors::save(named, path, md);
  }, nb::arg("tensors"), nb::arg("path"), nb::arg("metadata").none());
  m.def("_safetensors_load", [](nb::handle data) {
    Py_buffer view;
    if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0) throw PythonErrorSet{};
    torch::safetensors::Metadata md;
    torch::safetensors::TensorDict d;
    try {
      nb::gil_scoped_release nogil;
      d = torch::safetensors::load_from_buffer(view.buf, static_cast<size_t>(view.len), &md);
    } catch (...) {
      PyBuffer_Release(&view);
      throw;
    }
    PyBuffer_Release(&view);
    return loaded(d, md);
  });
  m.def("_safetensors_load_file", [](const std::string& path) {
    torch::safetensors::Metadata md;
    torch::safetensors::TensorDict d;
    {
      nb::gil_scoped_release nogil;
      d = torch::safetensors::load(path, &md);
    }
    return loaded(d, md);
  });
  m.def("_safetensors_load_metadata", [](const std::string& path) {
    torch::safetensors::Metadata md;
    {
      nb::gil_scoped_release nogil;
      md = torch::safetensors::load_metadata(path);
    }
    nb::dict out;
    for (const auto& [k, v] : md) out[nb::str(k.c_str())] = nb::str(v.c_str());
    return out;
  });
}

}  // namespace ember::python
