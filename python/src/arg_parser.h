#pragma once
// The argument parser behind every generated binding (codegen/python.py renders the tables).
//
//   const Param p[] = {{"self", Kind::Tensor, false, false, 0}, {"other", Kind::Scalar, false, false, 0}};
//   const Signature sigs[] = {{p, 2, -1, false, "add(Tensor self, Number other)", &inv_add_Scalar}};
//   const Group g = {"add", sigs, 1, false};
//   PyObject* f(PyObject* self, PyObject* const* args, Py_ssize_t n, PyObject* kw) { return dispatch(g, self, args, n, kw); }
//
// dispatch() matches the vectorcall arguments against each signature in order (type tests only, see
// Note [Python overload order] in codegen/python.py), then calls the first match's invoker with the
// filled slots; invokers convert slots with Args' getters, release the GIL around the op and wrap the
// result. Library errors become Python exceptions (c10::IndexError -> IndexError, ...).
#include <Python.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <tuple>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>

namespace ember::python {

enum class Kind : uint8_t {
  Tensor, OptTensor, TensorList, OptTensorList, Int, OptInt, IntList, OptIntList, Float, OptFloat,
  FloatList, OptFloatList, Bool, OptBool, BoolList, Scalar, OptScalar, Dtype, OptDtype, Layout, OptLayout,
  Device, OptDevice, MemoryFormat, OptMemoryFormat, Str, OptStr, Generator,
  OutTuple,  // `out=` of a several-result op: a tuple or list of exactly list_size tensors
};

/// One schema parameter.
struct Param {
  const char* name;
  Kind kind;
  bool kwonly;
  bool has_default;
  int8_t list_size;  // N of int[N] (a single int is repeated N times), of bool[N] and of OutTuple, else 0
  /// `name` as an interned str, made on first use: keyword names from call sites are interned, so a
  /// pointer test finds them (Note [Python keyword matching]).
  mutable PyObject* key = nullptr;
};

constexpr int kMaxParams = 24;
class Args;

/// One overload: its parameters, where `self` is for a method (-1 for a function), and its invoker.
struct Signature {
  const Param* params;
  uint8_t n;
  int8_t self_index;
  bool varargs_intlist;  // the only positional parameter is an int list: `zeros(2, 3)`
  const char* text;      // "add(Tensor self, Number other)", for TypeErrors
  PyObject* (*invoke)(Args&);
};

/// The overloads of one Python name, in call order.
struct Group {
  const char* name;
  const Signature* sigs;
  uint8_t n;
  bool method;
};

/// Parses and calls; returns a new reference or nullptr with a Python exception set.
PyObject* dispatch(const Group& g, PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

/// `ember._C._noop`: a binding parsed like `add` (add.Tensor's then add.Scalar's signature) whose
/// invoker converts its arguments and returns None at once, so that timing it measures the parsing
/// path alone (tools/bench/py_overhead.py).
PyObject* noop(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

/// Thrown by a getter after it has set a Python exception (value out of range).
struct PythonErrorSet {};

/// The Python types of the hand-written core (python/src/module.cpp sets them at import).
struct Types {
  PyTypeObject* tensor = nullptr;
  PyTypeObject* dtype = nullptr;
  PyTypeObject* device = nullptr;
  PyTypeObject* layout = nullptr;
  PyTypeObject* memory_format = nullptr;
  PyTypeObject* generator = nullptr;
};
extern Types types;

struct PyDtype { at::ScalarType t; };
struct PyDevice { at::Device d; };
struct PyLayout { at::Layout l; };
struct PyMemoryFormat { at::MemoryFormat m; };
struct PyGenerator { at::Generator g; };  // ember.Generator (module.cpp)

bool is_tensor(PyObject* o);
/// A numpy.bool_ (false while NumPy is not loaded). Before NumPy 2.0 it has a (deprecated) __index__,
/// so the checks that take "an object with __index__" as an int refuse it first, as they refuse bool.
bool is_numpy_bool(PyObject* o);
/// The at::Tensor inside an ember.Tensor (no check).
at::Tensor& unpack(PyObject* o);
/// A new ember.Tensor owning `t` (None for an undefined tensor).
PyObject* wrap(at::Tensor t);
PyObject* wrap(std::vector<at::Tensor> ts);
PyObject* wrap(bool v);
PyObject* wrap(int64_t v);
PyObject* wrap(double v);
PyObject* wrap(const at::Scalar& v);
PyObject* wrap(at::ScalarType t);
template <typename Tup, size_t... I>
PyObject* wrap_tuple_impl(Tup& t, std::index_sequence<I...>) {
  PyObject* items[] = {wrap(std::get<I>(t))...};
  PyObject* out = PyTuple_New(sizeof...(I));
  for (size_t k = 0; k < sizeof...(I); ++k) {
    if (!items[k] || !out) {
      for (PyObject* x : items) Py_XDECREF(x);
      Py_XDECREF(out);
      return nullptr;
    }
  }
  for (size_t k = 0; k < sizeof...(I); ++k) PyTuple_SET_ITEM(out, k, items[k]);
  return out;
}
/// A tuple of the op's results (the Python tuple of a multi-return op).
template <typename... T>
PyObject* wrap_tuple(std::tuple<T...> t) {
  return wrap_tuple_impl(t, std::index_sequence_for<T...>{});
}
/// Turns a tuple of results into the namedtuple ember.return_types.<name> with these fields (made
/// once per name and fields); steals `tuple`.
PyObject* named_tuple(PyObject* tuple, const char* name, std::initializer_list<const char*> fields);
PyObject* dtype_object(at::ScalarType t);
PyObject* device_object(const at::Device& d);

/// The TensorOptions of a factory's dtype/layout/device/pin_memory arguments. Built field by field
/// only when one is given: chained copies of the small struct cost more than the factory's parsing.
inline at::TensorOptions options(const std::optional<at::ScalarType>& dtype, const std::optional<at::Layout>& layout,
                                 const std::optional<at::Device>& device, const std::optional<bool>& pin_memory) {
  if (!dtype && !layout && !device && !pin_memory) return at::TensorOptions();
  return at::TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(pin_memory);
}

/// An int list argument as the op takes it (IntArrayRef, or OptionalIntArrayRef for `int[]?`),
/// holding up to 8 ints in place so that a shape or a dim list costs no allocation.
class IntListArg {
 public:
  IntListArg() = default;
  IntListArg(std::initializer_list<int64_t> il) { assign(il.begin(), il.size()); }
  static IntListArg none() { IntListArg r; r.has_ = false; return r; }
  /// Room for n ints (their values written through data()).
  int64_t* resize(size_t n) {
    n_ = n;
    if (n > kInline) { heap_.resize(n); return heap_.data(); }
    return buf_;
  }
  void assign(const int64_t* p, size_t n) { std::copy(p, p + n, resize(n)); }
  const int64_t* data() const { return n_ > kInline ? heap_.data() : buf_; }
  size_t size() const { return n_; }
  bool has_value() const { return has_; }
  operator at::IntArrayRef() const { return at::IntArrayRef(data(), n_); }
  operator at::OptionalIntArrayRef() const {
    if (!has_) return std::nullopt;
    return at::IntArrayRef(data(), n_);
  }

 private:
  static constexpr size_t kInline = 8;
  int64_t buf_[kInline];
  std::vector<int64_t> heap_;
  size_t n_ = 0;
  bool has_ = true;
};

/// Conversions of a Python object to an op's argument type (raise TypeError/ValueError through
/// PythonErrorSet); shared with the hand-written core.
int64_t to_int64(PyObject* o, const char* name);
double to_double(PyObject* o, const char* name);
at::Scalar to_scalar(PyObject* o, const char* name);
at::ScalarType to_dtype(PyObject* o, const char* name);
at::Device to_device(PyObject* o, const char* name);

/// A parse in progress: one borrowed reference per parameter (nullptr: not given). The ints of
/// `zeros(2, 3)` stay where the call put them: their parameter's slot holds kVarargs and `var`/`nvar`
/// point at them.
struct Slots {
  PyObject* s[kMaxParams];
  PyObject* const* var = nullptr;
  Py_ssize_t nvar = 0;
};
/// The slot of an int list given as separate ints (Slots::var); never dereferenced as an object.
extern PyObject* const kVarargs;

/// The arguments of a matched signature: slots hold borrowed references (nullptr: not given).
class Args {
 public:
  Args(const Signature& sig, Slots& slots) : sig_(sig), s_(slots.s), var_(slots.var), nvar_(slots.nvar) {}
  bool present(int i) const { return s_[i] != nullptr; }
  /// The argument's own Python object, as a new reference (in-place and out= results).
  PyObject* same(int i) const { Py_INCREF(s_[i]); return s_[i]; }
  const at::Tensor& undefined() const { static const at::Tensor u; return u; }
  /// A new tuple of an OutTuple argument's own Python objects: taken before the op runs (with the GIL
  /// released, another thread could change a list the caller passed), it keeps the out tensors alive
  /// and is the call's result.
  PyObject* same_items(int i) const;

  const at::Tensor& tensor(int i) const { return unpack(s_[i]); }
  at::Tensor& mut_tensor(int i) const { return unpack(s_[i]); }
  std::optional<at::Tensor> opt_tensor(int i) const;
  std::vector<at::Tensor> tensor_list(int i) const;
  c10::List<std::optional<at::Tensor>> opt_tensor_list(int i) const;
  int64_t int64(int i) const { return to_int64(s_[i], name(i)); }
  std::optional<int64_t> opt_int64(int i) const;
  IntListArg int_list(int i, int size = 0) const;
  IntListArg opt_int_list(int i, int size = 0) const;
  double float64(int i) const { return to_double(s_[i], name(i)); }
  std::optional<double> opt_float64(int i) const;
  std::vector<double> float_list(int i) const;
  bool boolean(int i) const { return s_[i] == Py_True; }
  std::optional<bool> opt_boolean(int i) const;
  template <size_t N>
  std::array<bool, N> bool_array(int i) const {
    std::array<bool, N> out{};
    PyObject* seq = s_[i];
    for (size_t k = 0; k < N; ++k) out[k] = PySequence_Fast_GET_ITEM(seq, k) == Py_True;
    return out;
  }
  at::Scalar scalar(int i) const { return to_scalar(s_[i], name(i)); }
  std::optional<at::Scalar> opt_scalar(int i) const;
  at::ScalarType dtype(int i) const { return to_dtype(s_[i], name(i)); }
  std::optional<at::ScalarType> opt_dtype(int i) const;
  at::Layout layout(int) const { return at::kStrided; }
  std::optional<at::Layout> opt_layout(int i) const;
  at::Device device(int i) const { return to_device(s_[i], name(i)); }
  std::optional<at::Device> opt_device(int i) const;
  at::MemoryFormat memory_format(int i) const;
  std::optional<at::MemoryFormat> opt_memory_format(int i) const;
  std::string str(int i) const;
  std::optional<std::string> opt_str(int i) const;
  std::optional<at::Generator> generator(int i) const;

 private:
  bool none(int i) const { return s_[i] == nullptr || s_[i] == Py_None; }
  const char* name(int i) const { return sig_.params[i].name; }
  const Signature& sig_;
  PyObject** s_;
  PyObject* const* var_;
  Py_ssize_t nvar_;
};

/// An owned reference, released at scope exit unless release()d.
class OwnedRef {
 public:
  explicit OwnedRef(PyObject* p) : p_(p) {}
  ~OwnedRef() { Py_XDECREF(p_); }
  OwnedRef(const OwnedRef&) = delete;
  OwnedRef& operator=(const OwnedRef&) = delete;
  PyObject* get() const { return p_; }
  PyObject* release() {
    PyObject* p = p_;
    p_ = nullptr;
    return p;
  }
 private:
  PyObject* p_;
};

/// Releases the GIL for its scope (reacquired when an op throws, before the exception leaves).
class GilRelease {
 public:
  GilRelease() : state_(PyEval_SaveThread()) {}
  ~GilRelease() { PyEval_RestoreThread(state_); }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;
 private:
  PyThreadState* state_;
};

/// The generated functions or methods, as CPython method definitions (stable addresses).
class MethodTable {
 public:
  void add(const char* name, PyObject* (*fn)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*), const char* doc);
  std::vector<PyMethodDef>& defs() { return defs_; }
 private:
  std::vector<PyMethodDef> defs_;
};

namespace gen::U {
/// An optional string argument as the op takes it (the generated calls spell it U::view, as the C ABI's do).
inline std::optional<c10::string_view> view(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  return c10::string_view(*s);
}
}  // namespace gen::U

/// Translates the exception in flight (c10 errors, PythonErrorSet, std exceptions) into a Python error.
void set_python_error();

}  // namespace ember::python
