#pragma once
// Where a tensor lives: a device type and an index (-1 = "the current one").
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/Exception.h>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace c10 {

// The values are Ember's own (they index the dispatch table's backend rows, see
// c10::DispatchKey); code names the enumerators, as with libtorch, never the numbers.
// Meta tensors carry sizes, strides and a dtype but no data (shape and memory tracing);
// PrivateUse1 is the device of an out-of-tree backend that registers its kernels at load time
// (docs/embedding.md).
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2, PrivateUse1 = 3 };
constexpr int kNumDeviceTypes = 4;
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kMeta = DeviceType::Meta;
constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;
using DeviceIndex = int8_t;

/// A device: `Device(kCUDA, 0)`, `Device("cuda:1")`, or implicitly from a DeviceType.
class Device {
 public:
  Device(DeviceType type, DeviceIndex index = -1) : type_(type), index_(index) {
    EMBER_CHECK(index >= -1, "[Device] device index must be -1 or non-negative; got ", static_cast<int>(index));
    EMBER_CHECK(type != DeviceType::CPU || index <= 0, "[Device] CPU device index must be -1 or 0; got ", static_cast<int>(index));
  }
  /// Parses "cpu", "cuda", "cuda:1", "meta", "privateuseone:0" (or the name given to
  /// c10::register_privateuse1_backend).
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}

  DeviceType type() const { return type_; }
  DeviceIndex index() const { return index_; }
  bool has_index() const { return index_ != -1; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }
  bool is_cuda() const { return type_ == DeviceType::CUDA; }
  bool is_meta() const { return type_ == DeviceType::Meta; }
  bool is_privateuseone() const { return type_ == DeviceType::PrivateUse1; }
  void set_index(DeviceIndex i) { index_ = i; }
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;

 private:
  DeviceType type_;
  DeviceIndex index_ = -1;
};

/// "cpu", "cuda", "meta", or the PrivateUse1 backend's name ("privateuseone" until renamed).
std::string DeviceTypeName(DeviceType t, bool lower_case = true);
std::ostream& operator<<(std::ostream& os, DeviceType t);

/// Names the PrivateUse1 device ("npu" makes Device("npu:0") and prints "npu:0"). Once per
/// process, before the name is used; renaming to a different name raises, as in libtorch.
void register_privateuse1_backend(const std::string& name);
/// The PrivateUse1 device's name: "privateuseone" unless renamed.
std::string get_privateuse1_backend(bool lower_case = true);
std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace c10

namespace at { using c10::Device; using c10::DeviceType; using c10::kCPU; using c10::kCUDA; using c10::kMeta; using c10::kPrivateUse1; }

EMBER_PUBLIC_END
