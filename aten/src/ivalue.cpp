// c10::IValue and the List/Dict handles it holds (see ATen/core/ivalue.h).
#include <ATen/core/ivalue.h>

#include <c10/util/Exception.h>

#include <functional>

namespace c10 {
namespace {
const char* kind_name(size_t index) {
  static const char* names[] = {"None",       "Tensor",     "Double",      "Int",         "Bool", "String",
                                "IntList",    "TensorList", "GenericList", "GenericDict", "Tuple"};
  return index < sizeof(names) / sizeof(names[0]) ? names[index] : "?";
}
}  // namespace

IValue::IValue(std::shared_ptr<ivalue::Tuple> t) {
  EMBER_CHECK(t != nullptr, "[IValue] expected a tuple; got a null pointer");
  v_ = std::move(t);
}

IValue::IValue(const at::Scalar& s) {
  if (s.isFloatingPoint()) v_ = s.toDouble();
  else if (s.isBoolean()) v_ = s.toBool();
  else v_ = static_cast<int64_t>(s.toLong());
}

std::string IValue::tagKind() const { return kind_name(v_.index()); }

#define EMBER_IVALUE_GET(T, kind)                                                                        \
  EMBER_CHECK(std::holds_alternative<T>(v_), "[IValue] expected " kind "; got ", kind_name(v_.index())); \
  return std::get<T>(v_)

const at::Tensor& IValue::toTensor() const { EMBER_IVALUE_GET(at::Tensor, "Tensor"); }
double IValue::toDouble() const { EMBER_IVALUE_GET(double, "Double"); }
int64_t IValue::toInt() const { EMBER_IVALUE_GET(int64_t, "Int"); }
bool IValue::toBool() const { EMBER_IVALUE_GET(bool, "Bool"); }
const std::string& IValue::toStringRef() const { EMBER_IVALUE_GET(std::string, "String"); }
std::vector<int64_t> IValue::toIntVector() const { EMBER_IVALUE_GET(std::vector<int64_t>, "IntList"); }
std::vector<at::Tensor> IValue::toTensorVector() const { EMBER_IVALUE_GET(std::vector<at::Tensor>, "TensorList"); }
impl::GenericDict IValue::toGenericDict() const { EMBER_IVALUE_GET(impl::GenericDict, "GenericDict"); }
std::shared_ptr<ivalue::Tuple> IValue::toTuple() const { EMBER_IVALUE_GET(std::shared_ptr<ivalue::Tuple>, "Tuple"); }
#undef EMBER_IVALUE_GET

const ivalue::Tuple& IValue::toTupleRef() const {
  EMBER_CHECK(isTuple(), "[IValue] expected Tuple; got ", kind_name(v_.index()));
  return *std::get<std::shared_ptr<ivalue::Tuple>>(v_);
}

impl::GenericList IValue::toList() const {
  if (const auto* l = std::get_if<impl::GenericList>(&v_)) return *l;
  impl::GenericList out;
  if (const auto* ints = std::get_if<std::vector<int64_t>>(&v_)) {
    for (int64_t i : *ints) out.push_back(i);
    return out;
  }
  if (const auto* ts = std::get_if<std::vector<at::Tensor>>(&v_)) {
    for (const auto& t : *ts) out.push_back(t);
    return out;
  }
  EMBER_CHECK(false, "[IValue] expected a list; got ", kind_name(v_.index()));
  return out;
}

namespace detail {
size_t DictKeyHash::operator()(const IValue& v) const {
  if (v.isString()) return std::hash<std::string>()(v.toStringRef());
  if (v.isInt()) return std::hash<int64_t>()(v.toInt());
  if (v.isBool()) return std::hash<bool>()(v.toBool());
  if (v.isDouble()) return std::hash<double>()(v.toDouble() == 0.0 ? 0.0 : v.toDouble());
  if (v.isTensor()) return std::hash<const void*>()(v.toTensor().unsafeGetTensorImpl());
  EMBER_CHECK(v.isNone(), "[Dict] keys must be None, bool, int, double, string or Tensor; got ", v.tagKind());
  return 0;
}

bool DictKeyEqual::operator()(const IValue& a, const IValue& b) const {
  if (a.tagKind() != b.tagKind()) return false;
  if (a.isString()) return a.toStringRef() == b.toStringRef();
  if (a.isInt()) return a.toInt() == b.toInt();
  if (a.isBool()) return a.toBool() == b.toBool();
  if (a.isDouble()) return a.toDouble() == b.toDouble();
  if (a.isTensor()) return a.toTensor().unsafeGetTensorImpl() == b.toTensor().unsafeGetTensorImpl();
  return a.isNone();
}

void list_index_error(size_t i, size_t size) {
  EMBER_CHECK(false, "[List] index ", i, " is out of range for a list of ", size, " elements");
  __builtin_unreachable();
}

void dict_key_error(const IValue& key) {
  if (key.isString()) EMBER_CHECK(false, "[Dict] key '", key.toStringRef(), "' is not in the dict");
  if (key.isInt()) EMBER_CHECK(false, "[Dict] key ", key.toInt(), " is not in the dict");
  EMBER_CHECK(false, "[Dict] key of type ", key.tagKind(), " is not in the dict");
  __builtin_unreachable();
}
}  // namespace detail

}  // namespace c10
