#pragma once
// Internals of the C ABI (include/ember/ember.h) shared by the hand-written part (c_api.cpp) and the
// generated one (build/generated/src/CApi*.cpp): the handle and status types, the boxing helpers
// the generated invokers are written with, and the call wrapper that keeps exceptions inside.
// Not installed.
#include "../../include/ember/ember.h"

#include <ATen/ATen.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

/// One reference to a tensor, owned by the C caller.
struct EmberTensor {
  at::Tensor t;
};

/// One reference to a generator, owned by the C caller; `borrowed` for the default generators'
/// handles (GeneratorDefault), which live as long as the process and which ReleaseGenerator ignores.
struct EmberGenerator {
  at::Generator g;
  bool borrowed = false;
};

/// An error crossing the boundary.
struct EmberStatus {
  int32_t code;
  std::string message;
};

namespace ember::capi {

/// A boxed invoker: reads one EmberValue per schema argument, calls the op, writes its results.
using Invoke = void (*)(const EmberValue* args, EmberValue* results);

/// One slot of the boxed registry (generated, in EmberOps slot order).
struct OpEntry {
  const char* name;    // "add.Tensor"
  const char* schema;  // "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
  const char* op;      // "add": the prefix of error messages
  Invoke invoke;       // null for a removed op
  uint32_t nargs;
  uint32_t nresults;
};
extern const EmberOps kOps;
extern const OpEntry kOpEntries[];
extern const size_t kNumOpEntries;

/// A status (never throws: falls back to a static out-of-memory status).
EmberStatus* make_status(int32_t code, std::string message) noexcept;
/// The status for the exception being handled (call inside a catch block).
EmberStatus* status_from_current_exception(const char* op) noexcept;
/// Runs an entry with exceptions caught; on failure no result is left behind.
EmberStatus* call_entry(const OpEntry& e, const EmberValue* args, size_t nargs, EmberValue* results,
                        size_t capacity, size_t* nresults) noexcept;
/// call_entry for slot `slot` with exactly the entry's result count (typed functions).
EmberStatus* call_slot(size_t slot, const EmberValue* args, size_t nargs, EmberValue* results, size_t nresults) noexcept;

/// Thrown at the boundary for a badly formed argument (EMBER_INVALID_ARGUMENT).
struct ArgumentError : std::exception {
  explicit ArgumentError(std::string m) : msg(std::move(m)) {}
  const char* what() const noexcept override { return msg.c_str(); }
  std::string msg;
};
[[noreturn]] void bad_arg(const char* op, const char* name, const std::string& what);

at::ScalarType to_scalar_type(int64_t dtype, const char* op, const char* name);
EmberDType from_scalar_type(at::ScalarType t);
at::Device to_device(int64_t type, int64_t index, const char* op, const char* name);
at::MemoryFormat to_memory_format(int64_t f, const char* op, const char* name);

/// Typed C parameters -> EmberValue (the typed functions box their arguments this way).
namespace pack {
inline EmberValue make(EmberValueTag tag, int64_t i = 0, double d = 0, const void* p = nullptr, int32_t aux = 0) {
  EmberValue v;
  v.tag = tag;
  v.aux = aux;
  v.i = i;
  v.d = d;
  v.p = p;
  return v;
}
inline EmberValue none() { return make(EMBER_VALUE_NONE); }
inline EmberValue tensor(const EmberTensor* t) { return make(EMBER_VALUE_TENSOR, 0, 0, t); }
inline EmberValue tensor_list(const EmberTensor* const* t, size_t n) {
  return t || n ? make(EMBER_VALUE_TENSOR_LIST, int64_t(n), 0, t) : none();
}
inline EmberValue int_(int64_t x) { return make(EMBER_VALUE_INT, x); }
inline EmberValue int_ptr(const int64_t* x) { return x ? int_(*x) : none(); }
inline EmberValue int_list(const int64_t* x, size_t n) { return x ? make(EMBER_VALUE_INT_LIST, int64_t(n), 0, x) : none(); }
inline EmberValue float_(double x) { return make(EMBER_VALUE_DOUBLE, 0, x); }
inline EmberValue float_ptr(const double* x) { return x ? float_(*x) : none(); }
inline EmberValue float_list(const double* x, size_t n) { return x ? make(EMBER_VALUE_DOUBLE_LIST, int64_t(n), 0, x) : none(); }
inline EmberValue bool_(bool x) { return make(EMBER_VALUE_BOOL, x ? 1 : 0); }
inline EmberValue bool_ptr(const bool* x) { return x ? bool_(*x) : none(); }
inline EmberValue bool_list(const bool* x, size_t n) { return x ? make(EMBER_VALUE_BOOL_LIST, int64_t(n), 0, x) : none(); }
inline EmberValue scalar(const EmberScalar* s) { return s ? *s : none(); }
inline EmberValue dtype(EmberDType x) { return make(EMBER_VALUE_DTYPE, x); }
inline EmberValue dtype_ptr(const EmberDType* x) { return x ? dtype(*x) : none(); }
inline EmberValue layout(EmberLayout x) { return make(EMBER_VALUE_LAYOUT, x); }
inline EmberValue layout_ptr(const EmberLayout* x) { return x ? layout(*x) : none(); }
inline EmberValue memory_format(EmberMemoryFormat x) { return make(EMBER_VALUE_MEMORY_FORMAT, x); }
inline EmberValue memory_format_ptr(const EmberMemoryFormat* x) { return x ? memory_format(*x) : none(); }
inline EmberValue device(const EmberDevice* d) { return d ? make(EMBER_VALUE_DEVICE, d->type, 0, nullptr, d->index) : none(); }
inline EmberValue str(const char* s) { return s ? make(EMBER_VALUE_STRING, 0, 0, s) : none(); }
inline EmberValue generator(const EmberGenerator* g) { return g ? make(EMBER_VALUE_GENERATOR, 0, 0, g) : none(); }
}  // namespace pack

/// EmberValue -> C++ argument (the generated invokers). Each raises "[op] argument 'name' ..." for
/// a value of the wrong tag or a null handle; optional forms give nullopt for NONE.
namespace unbox {
inline bool absent(const EmberValue& v) { return v.tag == EMBER_VALUE_NONE; }
at::Tensor tensor(const EmberValue& v, const char* op, const char* name);
inline at::Tensor mut_tensor(const EmberValue& v, const char* op, const char* name) { return tensor(v, op, name); }
std::optional<at::Tensor> opt_tensor(const EmberValue& v, const char* op, const char* name);
std::vector<at::Tensor> tensor_list(const EmberValue& v, const char* op, const char* name);
c10::List<std::optional<at::Tensor>> opt_tensor_list(const EmberValue& v, const char* op, const char* name);
int64_t int_(const EmberValue& v, const char* op, const char* name);
std::optional<int64_t> opt_int(const EmberValue& v, const char* op, const char* name);
std::vector<int64_t> int_list(const EmberValue& v, const char* op, const char* name);
std::optional<std::vector<int64_t>> opt_int_list(const EmberValue& v, const char* op, const char* name);
double float_(const EmberValue& v, const char* op, const char* name);
std::optional<double> opt_float(const EmberValue& v, const char* op, const char* name);
std::vector<double> float_list(const EmberValue& v, const char* op, const char* name);
bool bool_(const EmberValue& v, const char* op, const char* name);
std::optional<bool> opt_bool(const EmberValue& v, const char* op, const char* name);
std::vector<bool> bool_vector(const EmberValue& v, const char* op, const char* name);
template <size_t N>
std::array<bool, N> bool_array(const EmberValue& v, const char* op, const char* name) {
  std::vector<bool> b = bool_vector(v, op, name);
  if (b.size() != N) bad_arg(op, name, "expected " + std::to_string(N) + " bools, got " + std::to_string(b.size()));
  std::array<bool, N> out{};
  for (size_t k = 0; k < N; ++k) out[k] = b[k];
  return out;
}
at::Scalar scalar(const EmberValue& v, const char* op, const char* name);
std::optional<at::Scalar> opt_scalar(const EmberValue& v, const char* op, const char* name);
at::ScalarType dtype(const EmberValue& v, const char* op, const char* name);
std::optional<at::ScalarType> opt_dtype(const EmberValue& v, const char* op, const char* name);
at::Layout layout(const EmberValue& v, const char* op, const char* name);
std::optional<at::Layout> opt_layout(const EmberValue& v, const char* op, const char* name);
at::Device device(const EmberValue& v, const char* op, const char* name);
std::optional<at::Device> opt_device(const EmberValue& v, const char* op, const char* name);
at::MemoryFormat memory_format(const EmberValue& v, const char* op, const char* name);
std::optional<at::MemoryFormat> opt_memory_format(const EmberValue& v, const char* op, const char* name);
std::string str(const EmberValue& v, const char* op, const char* name);
std::optional<std::string> opt_str(const EmberValue& v, const char* op, const char* name);
std::optional<at::Generator> generator(const EmberValue& v, const char* op, const char* name);
inline std::optional<c10::string_view> view(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  return c10::string_view(*s);
}
at::TensorOptions options(const std::optional<at::ScalarType>& dtype, const std::optional<at::Layout>& layout,
                          const std::optional<at::Device>& device, const std::optional<bool>& pin_memory);
}  // namespace unbox

/// C++ results -> EmberValue (invokers) and EmberValue -> typed C out-parameters.
namespace results {
EmberTensor* new_handle(const at::Tensor& t);  // null for an undefined tensor
void put(EmberValue& r, const at::Tensor& t);
void put(EmberValue& r, const std::vector<at::Tensor>& ts);
void put(EmberValue& r, bool b);
void take(EmberValue& r, EmberTensor** out);
void take(EmberValue& r, EmberTensor*** out, size_t* len);
void take(EmberValue& r, bool* out);
void release(EmberValue& r) noexcept;
}  // namespace results

}  // namespace ember::capi
