// c10 basics: error helpers, dtype names, devices, scalars, default dtype.
#include <c10/core/Scalar.h>
#include <c10/core/TensorOptions.h>
#include <atomic>
#include <cctype>
#include <mutex>
#include <iomanip>

namespace c10 {

void throw_internal_assert(const char* cond, const char* file, int line, const std::string& msg) {
  throw Error(str("[internal] ", cond, " failed at ", file, ":", line, (msg.empty() ? "" : ": "), msg,
                  " -- this is a bug in Ember; please report it"));
}

const char* toString(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "Byte";
    case ScalarType::Char: return "Char";
    case ScalarType::Short: return "Short";
    case ScalarType::Int: return "Int";
    case ScalarType::Long: return "Long";
    case ScalarType::Half: return "Half";
    case ScalarType::Float: return "Float";
    case ScalarType::Double: return "Double";
    case ScalarType::Bool: return "Bool";
    case ScalarType::BFloat16: return "BFloat16";
    default: return "Undefined";
  }
}

const char* dtypeName(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "uint8";
    case ScalarType::Char: return "int8";
    case ScalarType::Short: return "int16";
    case ScalarType::Int: return "int32";
    case ScalarType::Long: return "int64";
    case ScalarType::Half: return "float16";
    case ScalarType::Float: return "float32";
    case ScalarType::Double: return "float64";
    case ScalarType::Bool: return "bool";
    case ScalarType::BFloat16: return "bfloat16";
    default: return "undefined";
  }
}

namespace {
// Note [PrivateUse1 name]: written once (under the mutex) before any device string uses it;
// read afterwards without a lock through the atomic flag's acquire.
std::mutex g_pu1_mutex;
std::string g_pu1_name = "privateuseone";
}  // namespace

void register_privateuse1_backend(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_pu1_mutex);
  EMBER_CHECK(!name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789") == std::string::npos,
              "[register_privateuse1_backend] expected a lower-case name of letters, digits and '_'; got '", name, "'");
  EMBER_CHECK(name != "cpu" && name != "cuda" && name != "meta",
              "[register_privateuse1_backend] expected a name no built-in device has; got '", name, "'");
  if (g_pu1_name == name) return;
  EMBER_CHECK(g_pu1_name == "privateuseone", "[register_privateuse1_backend] the PrivateUse1 backend is already named '",
              g_pu1_name, "'; got a second name '", name, "'");
  g_pu1_name = name;
}

std::string get_privateuse1_backend(bool lower_case) {
  std::string n;
  {
    std::lock_guard<std::mutex> lock(g_pu1_mutex);
    n = g_pu1_name;
  }
  if (!lower_case) for (auto& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return n;
}

std::string DeviceTypeName(DeviceType t, bool lower_case) {
  switch (t) {
    case DeviceType::CPU: return lower_case ? "cpu" : "CPU";
    case DeviceType::CUDA: return lower_case ? "cuda" : "CUDA";
    case DeviceType::Meta: return lower_case ? "meta" : "META";
    case DeviceType::PrivateUse1: return get_privateuse1_backend(lower_case);
  }
  return "unknown";
}

Device::Device(const std::string& spec) {
  std::string type = spec, idx;
  auto colon = spec.find(':');
  if (colon != std::string::npos) { type = spec.substr(0, colon); idx = spec.substr(colon + 1); }
  if (type == "cpu") type_ = DeviceType::CPU;
  else if (type == "cuda") type_ = DeviceType::CUDA;
  else if (type == "meta") type_ = DeviceType::Meta;
  else if (type == "privateuseone" || type == get_privateuse1_backend()) type_ = DeviceType::PrivateUse1;
  else throw Error(c10::str("[Device] expected a device string like 'cpu', 'cuda', 'cuda:1', 'meta' or '",
                            get_privateuse1_backend(), ":0'; got '", spec, "'"));
  if (!idx.empty()) {
    EMBER_CHECK(!idx.empty() && idx.find_first_not_of("0123456789") == std::string::npos && idx.size() < 4,
                "[Device] invalid device index in '", spec, "'");
    const int i = std::stoi(idx);
    EMBER_CHECK(i <= 127, "[Device] expected a device index below 128; got '", spec, "'");
    index_ = static_cast<DeviceIndex>(i);
    EMBER_CHECK(type_ != DeviceType::CPU || index_ == 0, "[Device] expected device index 0 for a CPU device; got '", spec, "'");
  }
}

std::string Device::str() const {
  std::string s = DeviceTypeName(type_);
  if (index_ >= 0) {
    s += ':';
    s += std::to_string(index_);
  }
  return s;
}
std::ostream& operator<<(std::ostream& os, DeviceType t) { return os << DeviceTypeName(t); }
std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

void Scalar::throw_unrepresentable(ScalarType to) const {
  throw Error(str("[Scalar] expected a value that ", dtypeName(to), " can hold; got ", *this));
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.isFloatingPoint()) return os << s.toDouble();
  if (s.isBoolean()) return os << (s.toBool() ? "true" : "false");
  return os << s.toLong();
}

namespace {
std::atomic<ScalarType> g_default_dtype{ScalarType::Float};
}
ScalarType get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType t) {
  EMBER_CHECK(isFloatingType(t), "[set_default_dtype] expected a floating dtype; got ", dtypeName(t));
  g_default_dtype.store(t);
}

std::ostream& operator<<(std::ostream& os, const TensorOptions& o) {
  return os << "TensorOptions(dtype=" << o.dtype() << ", device=" << o.device()
            << ", requires_grad=" << (o.requires_grad() ? "true" : "false") << ")";
}

}  // namespace c10
