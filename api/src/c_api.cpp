// Ember's stable C ABI (include/ember/ember.h): the hand-written part of the table (tensors,
// autograd, boxed calls, files) and the boxing helpers the generated op functions use
// (build/generated/src/CApiOps_<k>.cpp, CApiTable.cpp; codegen/c_abi.py). See docs/embedding.md.
//
// Note [No exception crosses the C ABI]
// Every function of the table is noexcept in effect: its body runs inside `guard`, which turns a
// c10::Error into an EMBER_ERROR status carrying Ember's "[op] ..." message, a bad handle or a
// wrongly tagged value found here into EMBER_INVALID_ARGUMENT "[op] argument 'x' ...",
// std::bad_alloc into EMBER_OUT_OF_MEMORY, and anything else into EMBER_INTERNAL. Making the
// status itself may fail for lack of memory: then a static status is returned, which
// ReleaseStatus recognises and does not free. Functions that return no status (releases, queries
// of static data) catch and drop.
#include "c_api_impl.h"

#include <ATen/DLConvertor.h>
#include <ATen/Factory.h>
#include <ATen/Functions.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDAFunctions.h>
#include <ATen/core/GradMode.h>
#include <torch/safetensors.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string_view>
#include <unordered_map>

namespace ember::capi {
namespace {

EmberStatus kOutOfMemoryStatus{EMBER_OUT_OF_MEMORY, "[ember] out of memory (while reporting an error)"};

std::string prefixed(const char* op, const std::string& msg) {
  // Ember's own messages already start with "[op] "; anything else gets this call's name.
  if (!msg.empty() && msg[0] == '[') return msg;
  return std::string("[") + op + "] " + msg;
}

template <class F>
EmberStatus* guard(const char* op, F&& f) noexcept {
  try {
    f();
    return nullptr;
  } catch (...) {
    return status_from_current_exception(op);
  }
}

const EmberTensor* need(const EmberTensor* t, const char* op, const char* name) {
  if (!t) bad_arg(op, name, "is a null tensor handle");
  if (!t->t.defined()) bad_arg(op, name, "is an undefined tensor");
  return t;
}

template <class T>
void need_out(T* p, const char* op, const char* name) {
  if (!p) bad_arg(op, name, "is a null output pointer");
}

}  // namespace

// ---------------------------------------------------------------- status
EmberStatus* make_status(int32_t code, std::string message) noexcept {
  try {
    return new EmberStatus{code, std::move(message)};
  } catch (...) {
    return &kOutOfMemoryStatus;
  }
}

EmberStatus* status_from_current_exception(const char* op) noexcept {
  try {
    throw;
  } catch (const ArgumentError& e) {
    return make_status(EMBER_INVALID_ARGUMENT, e.msg);
  } catch (const c10::OutOfMemoryError& e) {
    return make_status(EMBER_OUT_OF_MEMORY, prefixed(op, e.msg()));
  } catch (const c10::Error& e) {
    return make_status(EMBER_ERROR, prefixed(op, e.msg()));
  } catch (const std::bad_alloc&) {
    return make_status(EMBER_OUT_OF_MEMORY, std::string("[") + op + "] out of memory");
  } catch (const std::exception& e) {
    try {
      return make_status(EMBER_INTERNAL, prefixed(op, e.what()));
    } catch (...) {
      return &kOutOfMemoryStatus;
    }
  } catch (...) {
    return make_status(EMBER_INTERNAL, std::string("[") + op + "] unknown exception (a bug in Ember)");
  }
}

void bad_arg(const char* op, const char* name, const std::string& what) {
  throw ArgumentError(std::string("[") + op + "] argument '" + name + "' " + what);
}

// ---------------------------------------------------------------- enums
at::ScalarType to_scalar_type(int64_t d, const char* op, const char* name) {
  switch (d) {
    case EMBER_UINT8: return at::kByte;
    case EMBER_INT8: return at::kChar;
    case EMBER_INT16: return at::kShort;
    case EMBER_INT32: return at::kInt;
    case EMBER_INT64: return at::kLong;
    case EMBER_FLOAT16: return at::kHalf;
    case EMBER_FLOAT32: return at::kFloat;
    case EMBER_FLOAT64: return at::kDouble;
    case EMBER_BOOL: return at::kBool;
    case EMBER_BFLOAT16: return at::kBFloat16;
  }
  bad_arg(op, name, "is not an EmberDType (got " + std::to_string(d) + ")");
}

EmberDType from_scalar_type(at::ScalarType t) {
  switch (t) {
    case at::kByte: return EMBER_UINT8;
    case at::kChar: return EMBER_INT8;
    case at::kShort: return EMBER_INT16;
    case at::kInt: return EMBER_INT32;
    case at::kLong: return EMBER_INT64;
    case at::kHalf: return EMBER_FLOAT16;
    case at::kFloat: return EMBER_FLOAT32;
    case at::kDouble: return EMBER_FLOAT64;
    case at::kBool: return EMBER_BOOL;
    case at::kBFloat16: return EMBER_BFLOAT16;
    default: break;
  }
  throw ArgumentError("[ember] tensor of a dtype the C ABI does not know");
}

at::Device to_device(int64_t type, int64_t index, const char* op, const char* name) {
  if (index < -1 || index > 127) bad_arg(op, name, "has device index " + std::to_string(index) + " (-1..127)");
  if (type == EMBER_DEVICE_CPU) return at::Device(at::kCPU, static_cast<c10::DeviceIndex>(index));
  if (type == EMBER_DEVICE_CUDA) return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(index));
  if (type == EMBER_DEVICE_META) return at::Device(at::kMeta, static_cast<c10::DeviceIndex>(index));
  bad_arg(op, name, "has device type " + std::to_string(type) + " (EMBER_DEVICE_CPU, EMBER_DEVICE_CUDA or EMBER_DEVICE_META)");
}

at::MemoryFormat to_memory_format(int64_t f, const char* op, const char* name) {
  switch (f) {
    case EMBER_MEMORY_FORMAT_CONTIGUOUS: return at::MemoryFormat::Contiguous;
    case EMBER_MEMORY_FORMAT_PRESERVE: return at::MemoryFormat::Preserve;
    case EMBER_MEMORY_FORMAT_CHANNELS_LAST: return at::MemoryFormat::ChannelsLast;
    case EMBER_MEMORY_FORMAT_CHANNELS_LAST_3D: return at::MemoryFormat::ChannelsLast3d;
  }
  bad_arg(op, name, "is not an EmberMemoryFormat (got " + std::to_string(f) + ")");
}

// ---------------------------------------------------------------- unboxing
namespace unbox {
namespace {
const char* tag_name(EmberValueTag t) {
  switch (t) {
    case EMBER_VALUE_NONE: return "NONE";
    case EMBER_VALUE_TENSOR: return "TENSOR";
    case EMBER_VALUE_INT: return "INT";
    case EMBER_VALUE_DOUBLE: return "DOUBLE";
    case EMBER_VALUE_BOOL: return "BOOL";
    case EMBER_VALUE_DTYPE: return "DTYPE";
    case EMBER_VALUE_LAYOUT: return "LAYOUT";
    case EMBER_VALUE_DEVICE: return "DEVICE";
    case EMBER_VALUE_MEMORY_FORMAT: return "MEMORY_FORMAT";
    case EMBER_VALUE_STRING: return "STRING";
    case EMBER_VALUE_INT_LIST: return "INT_LIST";
    case EMBER_VALUE_DOUBLE_LIST: return "DOUBLE_LIST";
    case EMBER_VALUE_BOOL_LIST: return "BOOL_LIST";
    case EMBER_VALUE_TENSOR_LIST: return "TENSOR_LIST";
    case EMBER_VALUE_GENERATOR: return "GENERATOR";
  }
  return "an unknown tag";
}
[[noreturn]] void wrong(const EmberValue& v, const char* op, const char* name, const char* want) {
  if (v.tag == EMBER_VALUE_NONE) bad_arg(op, name, std::string("is required (expected ") + want + ", got NONE)");
  bad_arg(op, name, std::string("expected ") + want + ", got " + tag_name(v.tag) + " (tag " + std::to_string(v.tag) + ")");
}
void need_tag(const EmberValue& v, EmberValueTag t, const char* op, const char* name, const char* want) {
  if (v.tag != t) wrong(v, op, name, want);
}
template <class T>
const T* list_data(const EmberValue& v, const char* op, const char* name) {
  if (v.i < 0) bad_arg(op, name, "has a negative length " + std::to_string(v.i));
  if (v.i > 0 && !v.p) bad_arg(op, name, "is a null array of length " + std::to_string(v.i));
  return static_cast<const T*>(v.p);
}
}  // namespace

at::Tensor tensor(const EmberValue& v, const char* op, const char* name) {
  need_tag(v, EMBER_VALUE_TENSOR, op, name, "TENSOR");
  return need(static_cast<const EmberTensor*>(v.p), op, name)->t;
}
std::optional<at::Tensor> opt_tensor(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE || (v.tag == EMBER_VALUE_TENSOR && !v.p)) return std::nullopt;
  return tensor(v, op, name);
}
std::vector<at::Tensor> tensor_list(const EmberValue& v, const char* op, const char* name) {
  std::vector<at::Tensor> out;
  if (v.tag == EMBER_VALUE_NONE) return out;
  need_tag(v, EMBER_VALUE_TENSOR_LIST, op, name, "TENSOR_LIST");
  auto* d = list_data<const EmberTensor*>(v, op, name);
  out.reserve(size_t(v.i));
  for (int64_t k = 0; k < v.i; ++k) {
    std::string elem = std::string(name) + "[" + std::to_string(k) + "]";
    out.push_back(need(d[k], op, elem.c_str())->t);
  }
  return out;
}
c10::List<std::optional<at::Tensor>> opt_tensor_list(const EmberValue& v, const char* op, const char* name) {
  c10::List<std::optional<at::Tensor>> out;
  if (v.tag == EMBER_VALUE_NONE) return out;
  need_tag(v, EMBER_VALUE_TENSOR_LIST, op, name, "TENSOR_LIST");
  auto* d = list_data<const EmberTensor*>(v, op, name);
  for (int64_t k = 0; k < v.i; ++k) {
    if (d[k] && d[k]->t.defined()) out.push_back(d[k]->t);
    else out.push_back(std::nullopt);
  }
  return out;
}
int64_t int_(const EmberValue& v, const char* op, const char* name) {
  need_tag(v, EMBER_VALUE_INT, op, name, "INT");
  return v.i;
}
std::optional<int64_t> opt_int(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return int_(v, op, name);
}
std::vector<int64_t> int_list(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return {};
  // A single INT stands for a list of it (as `int[2] stride=1` does in a schema).
  if (v.tag == EMBER_VALUE_INT) return {v.i};
  need_tag(v, EMBER_VALUE_INT_LIST, op, name, "INT_LIST");
  auto* d = list_data<int64_t>(v, op, name);
  return std::vector<int64_t>(d, d + v.i);
}
std::optional<std::vector<int64_t>> opt_int_list(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return int_list(v, op, name);
}
double float_(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_INT) return double(v.i);
  need_tag(v, EMBER_VALUE_DOUBLE, op, name, "DOUBLE");
  return v.d;
}
std::optional<double> opt_float(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return float_(v, op, name);
}
std::vector<double> float_list(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return {};
  need_tag(v, EMBER_VALUE_DOUBLE_LIST, op, name, "DOUBLE_LIST");
  auto* d = list_data<double>(v, op, name);
  return std::vector<double>(d, d + v.i);
}
bool bool_(const EmberValue& v, const char* op, const char* name) {
  need_tag(v, EMBER_VALUE_BOOL, op, name, "BOOL");
  return v.i != 0;
}
std::optional<bool> opt_bool(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return bool_(v, op, name);
}
std::vector<bool> bool_vector(const EmberValue& v, const char* op, const char* name) {
  need_tag(v, EMBER_VALUE_BOOL_LIST, op, name, "BOOL_LIST");
  auto* d = list_data<bool>(v, op, name);
  return std::vector<bool>(d, d + v.i);
}
at::Scalar scalar(const EmberValue& v, const char* op, const char* name) {
  switch (v.tag) {
    case EMBER_VALUE_INT: return at::Scalar(v.i);
    case EMBER_VALUE_DOUBLE: return at::Scalar(v.d);
    case EMBER_VALUE_BOOL: return at::Scalar(v.i != 0);
    default: wrong(v, op, name, "a scalar (INT, DOUBLE or BOOL)");
  }
}
std::optional<at::Scalar> opt_scalar(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return scalar(v, op, name);
}
at::ScalarType dtype(const EmberValue& v, const char* op, const char* name) {
  need_tag(v, EMBER_VALUE_DTYPE, op, name, "DTYPE");
  return to_scalar_type(v.i, op, name);
}
std::optional<at::ScalarType> opt_dtype(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return dtype(v, op, name);
}
at::Layout layout(const EmberValue& v, const char* op, const char* name) {
  need_tag(v, EMBER_VALUE_LAYOUT, op, name, "LAYOUT");
  if (v.i != EMBER_LAYOUT_STRIDED) bad_arg(op, name, "is not an EmberLayout (got " + std::to_string(v.i) + ")");
  return at::kStrided;
}
std::optional<at::Layout> opt_layout(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return layout(v, op, name);
}
at::Device device(const EmberValue& v, const char* op, const char* name) {
  need_tag(v, EMBER_VALUE_DEVICE, op, name, "DEVICE");
  return to_device(v.i, v.aux, op, name);
}
std::optional<at::Device> opt_device(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return device(v, op, name);
}
at::MemoryFormat memory_format(const EmberValue& v, const char* op, const char* name) {
  need_tag(v, EMBER_VALUE_MEMORY_FORMAT, op, name, "MEMORY_FORMAT");
  return to_memory_format(v.i, op, name);
}
std::optional<at::MemoryFormat> opt_memory_format(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return memory_format(v, op, name);
}
std::string str(const EmberValue& v, const char* op, const char* name) {
  need_tag(v, EMBER_VALUE_STRING, op, name, "STRING");
  if (!v.p) bad_arg(op, name, "is a null string");
  return std::string(static_cast<const char*>(v.p));
}
std::optional<std::string> opt_str(const EmberValue& v, const char* op, const char* name) {
  if (v.tag == EMBER_VALUE_NONE) return std::nullopt;
  return str(v, op, name);
}
std::optional<at::Generator> generator(const EmberValue& v, const char* op, const char* name) {
  // NONE or a null GENERATOR: the op's default generator. Every Generator argument is optional.
  if (v.tag == EMBER_VALUE_NONE || (v.tag == EMBER_VALUE_GENERATOR && !v.p)) return std::nullopt;
  need_tag(v, EMBER_VALUE_GENERATOR, op, name, "GENERATOR");
  const auto* g = static_cast<const EmberGenerator*>(v.p);
  if (!g->g.defined()) bad_arg(op, name, "is an undefined generator");
  return g->g;
}
at::TensorOptions options(const std::optional<at::ScalarType>& dtype, const std::optional<at::Layout>& layout,
                          const std::optional<at::Device>& device, const std::optional<bool>& pin_memory) {
  return at::TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(pin_memory);
}
}  // namespace unbox

// ---------------------------------------------------------------- results
namespace results {
EmberTensor* new_handle(const at::Tensor& t) {
  if (!t.defined()) return nullptr;
  return new EmberTensor{t};
}
void put(EmberValue& r, const at::Tensor& t) {
  r = pack::make(EMBER_VALUE_TENSOR, 0, 0, new_handle(t));
}
void put(EmberValue& r, const std::vector<at::Tensor>& ts) {
  auto** arr = static_cast<EmberTensor**>(std::calloc(ts.empty() ? 1 : ts.size(), sizeof(EmberTensor*)));
  if (!arr) throw std::bad_alloc();
  r = pack::make(EMBER_VALUE_TENSOR_LIST, 0, 0, arr);  // count grows as handles are made: release() frees them
  for (const at::Tensor& t : ts) {
    arr[r.i] = new_handle(t);
    ++r.i;
  }
}
void put(EmberValue& r, bool b) { r = pack::bool_(b); }
void take(EmberValue& r, EmberTensor** out) {
  if (out) {
    *out = const_cast<EmberTensor*>(static_cast<const EmberTensor*>(r.p));
    r = pack::none();
  } else {
    release(r);
  }
}
void take(EmberValue& r, EmberTensor*** out, size_t* len) {
  if (out) {
    *out = static_cast<EmberTensor**>(const_cast<void*>(r.p));
    if (len) *len = size_t(r.i);
    r = pack::none();
  } else {
    release(r);
  }
}
void take(EmberValue& r, bool* out) {
  if (out) *out = r.i != 0;
  r = pack::none();
}
void release(EmberValue& r) noexcept {
  if (r.tag == EMBER_VALUE_TENSOR) {
    delete const_cast<EmberTensor*>(static_cast<const EmberTensor*>(r.p));
  } else if (r.tag == EMBER_VALUE_TENSOR_LIST) {
    auto** arr = static_cast<EmberTensor**>(const_cast<void*>(r.p));
    for (int64_t k = 0; arr && k < r.i; ++k) delete arr[k];
    std::free(arr);
  }
  r = pack::none();
}
}  // namespace results

// ---------------------------------------------------------------- calls
EmberStatus* call_entry(const OpEntry& e, const EmberValue* args, size_t nargs, EmberValue* res, size_t capacity,
                        size_t* nresults) noexcept {
  EmberStatus* st = guard(e.op, [&] {
    if (!e.invoke) throw ArgumentError(std::string("[") + e.name + "] was removed from ops.yaml; its slot is kept empty");
    if (nargs != e.nargs)
      throw ArgumentError(std::string("[") + e.op + "] " + e.name + " takes " + std::to_string(e.nargs) +
                          " arguments (" + e.schema + "), got " + std::to_string(nargs));
    if (e.nargs && !args) throw ArgumentError(std::string("[") + e.op + "] null argument array");
    if (capacity < e.nresults || (e.nresults && !res))
      throw ArgumentError(std::string("[") + e.op + "] " + e.name + " has " + std::to_string(e.nresults) +
                          " results; the results array holds " + std::to_string(res ? capacity : 0));
    for (uint32_t k = 0; k < e.nresults; ++k) res[k] = pack::none();
    try {
      e.invoke(args, res);
    } catch (...) {
      for (uint32_t k = 0; k < e.nresults; ++k) results::release(res[k]);
      throw;
    }
  });
  if (nresults) *nresults = st ? 0 : e.nresults;
  return st;
}

EmberStatus* call_slot(size_t slot, const EmberValue* args, size_t nargs, EmberValue* res, size_t nresults) noexcept {
  return call_entry(kOpEntries[slot], args, nargs, res, nresults, nullptr);
}

namespace {

// ---------------------------------------------------------------- the hand-written table
const char* VersionString() { return "0.1.0"; }

const char* StatusMessage(const EmberStatus* s) { return s ? s->message.c_str() : ""; }
int32_t StatusCode(const EmberStatus* s) { return s ? s->code : EMBER_OK; }
void ReleaseStatus(EmberStatus* s) {
  if (s != &kOutOfMemoryStatus) delete s;
}

std::vector<int64_t> shape_of(const int64_t* sizes, size_t ndim, const char* op, const char* name) {
  if (ndim && !sizes) bad_arg(op, name, "is a null array of length " + std::to_string(ndim));
  return std::vector<int64_t>(sizes, sizes + ndim);
}

at::TensorOptions options_of(EmberDType dtype, const EmberDevice* device, const char* op) {
  at::TensorOptions o = at::TensorOptions().dtype(to_scalar_type(dtype, op, "dtype"));
  if (device) o = o.device(to_device(device->type, device->index, op, "device"));
  return o;
}

void set_out(EmberTensor** out, const at::Tensor& t) { *out = results::new_handle(t); }

EmberStatus* TensorEmpty(const int64_t* sizes, size_t ndim, EmberDType dtype, const EmberDevice* device, EmberTensor** out) {
  return guard("TensorEmpty", [&] {
    need_out(out, "TensorEmpty", "out");
    auto shape = shape_of(sizes, ndim, "TensorEmpty", "sizes");
    set_out(out, at::empty(shape, options_of(dtype, device, "TensorEmpty")));
  });
}

EmberStatus* TensorZeros(const int64_t* sizes, size_t ndim, EmberDType dtype, const EmberDevice* device, EmberTensor** out) {
  return guard("TensorZeros", [&] {
    need_out(out, "TensorZeros", "out");
    auto shape = shape_of(sizes, ndim, "TensorZeros", "sizes");
    set_out(out, at::zeros(shape, options_of(dtype, device, "TensorZeros")));
  });
}

EmberStatus* TensorFromBuffer(void* data, const int64_t* sizes, size_t ndim, const int64_t* strides, EmberDType dtype,
                              const EmberDevice* device, EmberDeleter deleter, void* ctx, EmberTensor** out) {
  return guard("TensorFromBuffer", [&] {
    const char* op = "TensorFromBuffer";
    need_out(out, op, "out");
    auto shape = shape_of(sizes, ndim, op, "sizes");
    at::TensorOptions o = options_of(dtype, device, op);
    std::optional<std::vector<int64_t>> st;
    if (strides) st = std::vector<int64_t>(strides, strides + ndim);
    // Everything that can fail runs before the storage takes the deleter (Note: on failure the
    // caller keeps its memory). from_blob's own checks run first on a deleter-less tensor.
    at::Tensor probe = st ? at::from_blob(data, shape, *st, o) : at::from_blob(data, shape, o);
    (void)probe;
    // The handle is made before the tensor owns the memory, so the last step cannot fail.
    auto* h = new EmberTensor{};
    if (!deleter) {
      h->t = std::move(probe);
    } else {
      try {
        std::function<void(void*)> d = [deleter, ctx](void* p) { deleter(p, ctx); };
        h->t = st ? at::from_blob(data, shape, *st, d, o) : at::from_blob(data, shape, d, o);
      } catch (...) {
        delete h;
        throw;
      }
    }
    *out = h;
  });
}

EmberStatus* TensorRetain(const EmberTensor* t, EmberTensor** out) {
  return guard("TensorRetain", [&] {
    need(t, "TensorRetain", "tensor");
    need_out(out, "TensorRetain", "out");
    set_out(out, t->t);
  });
}

void ReleaseTensor(EmberTensor* t) {
  try {
    delete t;
  } catch (...) {
    // A deleter that threw: nothing to report to (Note [No exception crosses the C ABI]).
  }
}

void ReleaseTensorArray(EmberTensor** ts, size_t n) {
  if (!ts) return;
  for (size_t k = 0; k < n; ++k) ReleaseTensor(ts[k]);
  std::free(ts);
}

EmberStatus* TensorDType(const EmberTensor* t, EmberDType* out) {
  return guard("TensorDType", [&] {
    need(t, "TensorDType", "tensor");
    need_out(out, "TensorDType", "out");
    *out = from_scalar_type(t->t.scalar_type());
  });
}

EmberStatus* TensorDim(const EmberTensor* t, size_t* out) {
  return guard("TensorDim", [&] {
    need(t, "TensorDim", "tensor");
    need_out(out, "TensorDim", "out");
    *out = size_t(t->t.dim());
  });
}

EmberStatus* TensorShape(const EmberTensor* t, int64_t* sizes, size_t capacity, size_t* ndim) {
  return guard("TensorShape", [&] {
    need(t, "TensorShape", "tensor");
    need_out(ndim, "TensorShape", "ndim");
    if (capacity && !sizes) bad_arg("TensorShape", "sizes", "is null with capacity " + std::to_string(capacity));
    size_t n = size_t(t->t.dim());
    for (size_t k = 0; k < n && k < capacity; ++k) sizes[k] = t->t.size(int64_t(k));
    *ndim = n;
  });
}

EmberStatus* TensorStrides(const EmberTensor* t, int64_t* strides, size_t capacity, size_t* ndim) {
  return guard("TensorStrides", [&] {
    need(t, "TensorStrides", "tensor");
    need_out(ndim, "TensorStrides", "ndim");
    if (capacity && !strides) bad_arg("TensorStrides", "strides", "is null with capacity " + std::to_string(capacity));
    size_t n = size_t(t->t.dim());
    for (size_t k = 0; k < n && k < capacity; ++k) strides[k] = t->t.stride(int64_t(k));
    *ndim = n;
  });
}

EmberStatus* TensorNumel(const EmberTensor* t, int64_t* out) {
  return guard("TensorNumel", [&] {
    need(t, "TensorNumel", "tensor");
    need_out(out, "TensorNumel", "out");
    *out = t->t.numel();
  });
}

EmberStatus* TensorDevice(const EmberTensor* t, EmberDevice* out) {
  return guard("TensorDevice", [&] {
    need(t, "TensorDevice", "tensor");
    need_out(out, "TensorDevice", "out");
    at::Device d = t->t.device();
    out->type = d.is_cuda() ? EMBER_DEVICE_CUDA : d.is_meta() ? EMBER_DEVICE_META : EMBER_DEVICE_CPU;
    out->index = d.index();
  });
}

EmberStatus* TensorData(const EmberTensor* t, void** out) {
  return guard("TensorData", [&] {
    need(t, "TensorData", "tensor");
    need_out(out, "TensorData", "out");
    *out = t->t.data_ptr();
  });
}

EmberStatus* TensorContiguous(const EmberTensor* t, EmberTensor** out) {
  return guard("contiguous", [&] {
    need(t, "contiguous", "tensor");
    need_out(out, "contiguous", "out");
    set_out(out, t->t.contiguous());
  });
}

EmberStatus* TensorClone(const EmberTensor* t, EmberTensor** out) {
  return guard("clone", [&] {
    need(t, "clone", "tensor");
    need_out(out, "clone", "out");
    set_out(out, t->t.clone());
  });
}

EmberStatus* TensorTo(const EmberTensor* t, EmberDType dtype, EmberTensor** out) {
  return guard("to", [&] {
    need(t, "to", "tensor");
    need_out(out, "to", "out");
    set_out(out, t->t.to(to_scalar_type(dtype, "to", "dtype")));
  });
}

EmberStatus* TensorToDevice(const EmberTensor* t, const EmberDevice* device, EmberTensor** out) {
  return guard("to", [&] {
    need(t, "to", "tensor");
    need_out(out, "to", "out");
    if (!device) bad_arg("to", "device", "is a null pointer");
    set_out(out, t->t.to(to_device(device->type, device->index, "to", "device")));
  });
}

EmberStatus* TensorSetRequiresGrad(EmberTensor* t, bool requires_grad) {
  return guard("set_requires_grad", [&] {
    need(t, "set_requires_grad", "tensor");
    t->t.set_requires_grad(requires_grad);
  });
}

EmberStatus* TensorRequiresGrad(const EmberTensor* t, bool* out) {
  return guard("requires_grad", [&] {
    need(t, "requires_grad", "tensor");
    need_out(out, "requires_grad", "out");
    *out = t->t.requires_grad();
  });
}

EmberStatus* TensorGrad(const EmberTensor* t, EmberTensor** out) {
  return guard("grad", [&] {
    need(t, "grad", "tensor");
    need_out(out, "grad", "out");
    set_out(out, t->t.grad());
  });
}

EmberStatus* Backward(const EmberTensor* t, const EmberTensor* gradient, bool retain_graph) {
  return guard("backward", [&] {
    need(t, "backward", "tensor");
    at::Tensor g;
    if (gradient) g = need(gradient, "backward", "gradient")->t;
    t->t.backward(g, retain_graph);
  });
}

EmberStatus* SetGradEnabled(bool enabled, bool* previous) {
  if (previous) *previous = at::GradMode::is_enabled();
  at::GradMode::set_enabled(enabled);
  return nullptr;
}

bool IsGradEnabled() { return at::GradMode::is_enabled(); }

// Boxed registry lookups.
const std::unordered_map<std::string_view, size_t>& op_index() {
  static const auto* m = [] {
    auto* r = new std::unordered_map<std::string_view, size_t>();
    for (size_t k = 0; k < kNumOpEntries; ++k) r->emplace(kOpEntries[k].name, k);
    return r;
  }();
  return *m;
}

size_t OpCount() { return kNumOpEntries; }

EmberStatus* OpFind(const char* name, size_t* index) {
  EmberStatus* st = guard("OpFind", [&] {
    if (!name) bad_arg("OpFind", "name", "is a null string");
    need_out(index, "OpFind", "index");
  });
  if (st) return st;
  try {
    auto it = op_index().find(name);
    if (it == op_index().end())
      return make_status(EMBER_NOT_FOUND, std::string("[OpFind] no op overload named '") + name +
                                              "' (names look like add.Tensor, relu, add_.Tensor, add.Tensor_out)");
    *index = it->second;
    return nullptr;
  } catch (...) {
    return status_from_current_exception("OpFind");
  }
}

const char* OpSchema(size_t index) { return index < kNumOpEntries ? kOpEntries[index].schema : nullptr; }

EmberStatus* CallOpIndex(size_t index, const EmberValue* args, size_t nargs, EmberValue* res, size_t capacity,
                         size_t* nresults) {
  if (index >= kNumOpEntries) {
    if (nresults) *nresults = 0;
    return make_status(EMBER_NOT_FOUND, "[CallOpIndex] op index " + std::to_string(index) + " out of range (" +
                                            std::to_string(kNumOpEntries) + " ops)");
  }
  return call_entry(kOpEntries[index], args, nargs, res, capacity, nresults);
}

EmberStatus* CallOp(const char* name, const EmberValue* args, size_t nargs, EmberValue* res, size_t capacity,
                    size_t* nresults) {
  size_t index = 0;
  if (nresults) *nresults = 0;
  if (EmberStatus* st = OpFind(name, &index)) return st;
  return CallOpIndex(index, args, nargs, res, capacity, nresults);
}

void ReleaseValues(EmberValue* values, size_t n) {
  for (size_t k = 0; values && k < n; ++k) results::release(values[k]);
}

EmberStatus* SaveTensors(const char* path, const char* const* names, const EmberTensor* const* tensors, size_t n) {
  return guard("SaveTensors", [&] {
    if (!path) bad_arg("SaveTensors", "path", "is a null string");
    if (n && (!names || !tensors)) bad_arg("SaveTensors", names ? "tensors" : "names", "is a null array");
    std::vector<std::pair<std::string, at::Tensor>> items;
    for (size_t k = 0; k < n; ++k) {
      std::string which = "names[" + std::to_string(k) + "]";
      if (!names[k]) bad_arg("SaveTensors", which.c_str(), "is a null string");
      which = "tensors[" + std::to_string(k) + "]";
      items.emplace_back(names[k], need(tensors[k], "SaveTensors", which.c_str())->t);
    }
    torch::safetensors::save(items, path);
  });
}

void ReleaseNames(char** names, size_t n) {
  if (!names) return;
  for (size_t k = 0; k < n; ++k) std::free(names[k]);
  std::free(names);
}

EmberStatus* LoadTensors(const char* path, char*** names, EmberTensor*** tensors, size_t* count) {
  return guard("LoadTensors", [&] {
    if (!path) bad_arg("LoadTensors", "path", "is a null string");
    need_out(names, "LoadTensors", "names");
    need_out(tensors, "LoadTensors", "tensors");
    need_out(count, "LoadTensors", "count");
    torch::safetensors::TensorDict d = torch::safetensors::load(path);
    size_t n = d.size();
    char** nm = static_cast<char**>(std::calloc(n ? n : 1, sizeof(char*)));
    auto** ts = static_cast<EmberTensor**>(std::calloc(n ? n : 1, sizeof(EmberTensor*)));
    size_t k = 0;
    try {
      if (!nm || !ts) throw std::bad_alloc();
      for (const auto& item : d) {
        nm[k] = static_cast<char*>(std::malloc(item.key().size() + 1));
        if (!nm[k]) throw std::bad_alloc();
        std::memcpy(nm[k], item.key().c_str(), item.key().size() + 1);
        ts[k] = results::new_handle(item.value());
        ++k;
      }
    } catch (...) {
      ReleaseNames(nm, nm ? n : 0);  // calloc'ed: entries not reached are null
      ReleaseTensorArray(ts, ts ? n : 0);
      throw;
    }
    *names = nm;
    *tensors = ts;
    *count = n;
  });
}

// ---------------------------------------------------------------- DLPack (version 2)
// Export and import are at::toDLPack* / at::fromDLPack* (Note [DLPack ownership] in
// aten/src/DLConvertor.cpp); here only the boundary: null pointers, and the handle made before
// the import takes ownership, so that a failure after it cannot leave the producer's wrapper
// consumed while a status says it was not.
EmberStatus* TensorToDLPackVersioned(const EmberTensor* t, DLManagedTensorVersioned** out) {
  return guard("toDLPack", [&] {
    need(t, "toDLPack", "tensor");
    need_out(out, "toDLPack", "out");
    *out = at::toDLPackVersioned(t->t);
  });
}

EmberStatus* TensorToDLPack(const EmberTensor* t, DLManagedTensor** out) {
  return guard("toDLPack", [&] {
    need(t, "toDLPack", "tensor");
    need_out(out, "toDLPack", "out");
    *out = at::toDLPack(t->t);
  });
}

template <class Managed, class Import>
void import_dlpack(Managed* src, EmberTensor** out, const char* what, Import import) {
  if (!src) bad_arg("fromDLPack", "src", std::string("is a null ") + what + " pointer");
  need_out(out, "fromDLPack", "out");
  auto* h = new EmberTensor{};
  try {
    h->t = import(src);  // owns src from its last step on (which cannot fail)
  } catch (...) {
    delete h;
    throw;
  }
  *out = h;
}

EmberStatus* TensorFromDLPackVersioned(DLManagedTensorVersioned* src, EmberTensor** out) {
  return guard("fromDLPack", [&] {
    import_dlpack(src, out, "DLManagedTensorVersioned", [](DLManagedTensorVersioned* m) { return at::fromDLPackVersioned(m); });
  });
}

EmberStatus* TensorFromDLPack(DLManagedTensor* src, EmberTensor** out) {
  return guard("fromDLPack", [&] {
    import_dlpack(src, out, "DLManagedTensor", [](DLManagedTensor* m) { return at::fromDLPack(m); });
  });
}

// ---------------------------------------------------------------- generators (version 2)
const EmberGenerator* need_gen(const EmberGenerator* g, const char* op, const char* name) {
  if (!g) bad_arg(op, name, "is a null generator handle");
  if (!g->g.defined()) bad_arg(op, name, "is an undefined generator");
  return g;
}

// The generator's device: CPU (device NULL) or CUDA; raises for meta.
at::Device generator_device(const EmberDevice* device, const char* op) {
  if (!device) return at::Device(at::kCPU);
  at::Device d = to_device(device->type, device->index, op, "device");
  if (d.is_meta()) bad_arg(op, "device", "is the meta device, which has no generator");
  return d;
}

EmberStatus* GeneratorCreate(uint64_t seed, const EmberDevice* device, EmberGenerator** out) {
  return guard("GeneratorCreate", [&] {
    need_out(out, "GeneratorCreate", "out");
    at::Device d = generator_device(device, "GeneratorCreate");
    auto h = std::make_unique<EmberGenerator>();
    h->g = d.is_cpu() ? at::detail::createCPUGenerator(seed) : at::cuda::detail::createCUDAGenerator(d.index(), seed);
    *out = h.release();
  });
}

EmberStatus* GeneratorDefault(const EmberDevice* device, EmberGenerator** out) {
  return guard("GeneratorDefault", [&] {
    need_out(out, "GeneratorDefault", "out");
    at::Device d = generator_device(device, "GeneratorDefault");
    // One borrowed handle per default generator, made on first use and never freed.
    static std::mutex m;
    static EmberGenerator* cpu = nullptr;
    static std::array<EmberGenerator*, 128> cuda{};
    if (d.is_cpu()) {
      std::lock_guard<std::mutex> lock(m);
      if (!cpu) cpu = new EmberGenerator{at::detail::getDefaultCPUGenerator(), true};
      *out = cpu;
      return;
    }
    const at::Generator& g = at::cuda::detail::getDefaultCUDAGenerator(d.index());  // raises without a device
    const int index = d.has_index() ? d.index() : c10::cuda::current_device();
    if (index < 0 || index >= int(cuda.size())) bad_arg("GeneratorDefault", "device", "has an index past 127");
    std::lock_guard<std::mutex> lock(m);
    if (!cuda[size_t(index)]) cuda[size_t(index)] = new EmberGenerator{g, true};
    *out = cuda[size_t(index)];
  });
}

EmberStatus* GeneratorClone(const EmberGenerator* g, EmberGenerator** out) {
  return guard("GeneratorClone", [&] {
    need_gen(g, "GeneratorClone", "generator");
    need_out(out, "GeneratorClone", "out");
    auto h = std::make_unique<EmberGenerator>();
    h->g = g->g.clone();  // CPU generators; raises for others
    *out = h.release();
  });
}

EmberStatus* GeneratorManualSeed(EmberGenerator* g, uint64_t seed) {
  return guard("GeneratorManualSeed", [&] {
    need_gen(g, "GeneratorManualSeed", "generator");
    std::lock_guard<std::mutex> lock(g->g.mutex());  // ops may be drawing from it
    g->g.set_current_seed(seed);
  });
}

EmberStatus* GeneratorInitialSeed(const EmberGenerator* g, uint64_t* out) {
  return guard("GeneratorInitialSeed", [&] {
    need_gen(g, "GeneratorInitialSeed", "generator");
    need_out(out, "GeneratorInitialSeed", "out");
    std::lock_guard<std::mutex> lock(g->g.mutex());
    *out = g->g.current_seed();
  });
}

EmberStatus* GeneratorGetState(const EmberGenerator* g, EmberTensor** out) {
  return guard("GeneratorGetState", [&] {
    need_gen(g, "GeneratorGetState", "generator");
    need_out(out, "GeneratorGetState", "out");
    set_out(out, g->g.get_state());  // takes the generator's lock itself
  });
}

EmberStatus* GeneratorSetState(EmberGenerator* g, const EmberTensor* state) {
  return guard("GeneratorSetState", [&] {
    need_gen(g, "GeneratorSetState", "generator");
    need(state, "GeneratorSetState", "state");
    g->g.set_state(state->t);  // takes the generator's lock itself
  });
}

void ReleaseGenerator(EmberGenerator* g) {
  if (g && !g->borrowed) delete g;
}

const EmberApi kApi = {
    EMBER_API_VERSION,
    0,
    &kOps,
    &VersionString,
    &StatusMessage,
    &StatusCode,
    &ReleaseStatus,
    &TensorEmpty,
    &TensorZeros,
    &TensorFromBuffer,
    &TensorRetain,
    &ReleaseTensor,
    &ReleaseTensorArray,
    &TensorDType,
    &TensorDim,
    &TensorShape,
    &TensorStrides,
    &TensorNumel,
    &TensorDevice,
    &TensorData,
    &TensorContiguous,
    &TensorClone,
    &TensorTo,
    &TensorToDevice,
    &TensorSetRequiresGrad,
    &TensorRequiresGrad,
    &TensorGrad,
    &Backward,
    &SetGradEnabled,
    &IsGradEnabled,
    &OpCount,
    &OpFind,
    &OpSchema,
    &CallOp,
    &CallOpIndex,
    &ReleaseValues,
    &SaveTensors,
    &LoadTensors,
    &ReleaseNames,
    // version 2
    &TensorToDLPackVersioned,
    &TensorToDLPack,
    &TensorFromDLPackVersioned,
    &TensorFromDLPack,
    &GeneratorCreate,
    &GeneratorDefault,
    &GeneratorClone,
    &GeneratorManualSeed,
    &GeneratorInitialSeed,
    &GeneratorGetState,
    &GeneratorSetState,
    &ReleaseGenerator,
};

}  // namespace
}  // namespace ember::capi

extern "C" EMBER_C_EXPORT const EmberApi* EmberGetApi(uint32_t version) {
  if (version == 0 || version > EMBER_API_VERSION) return nullptr;
  return &ember::capi::kApi;
}
