#pragma once
// Where a tensor lives: a device type and an index (-1 = "the current one").
#include <c10/util/Exception.h>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace c10 {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
using DeviceIndex = int8_t;

/// A device: `Device(kCUDA, 0)`, `Device("cuda:1")`, or implicitly from a DeviceType.
class Device {
 public:
  Device(DeviceType type, DeviceIndex index = -1) : type_(type), index_(index) {
    EMBER_CHECK(index >= -1, "[Device] device index must be -1 or non-negative; got ", static_cast<int>(index));
    EMBER_CHECK(type != DeviceType::CPU || index <= 0, "[Device] CPU device index must be -1 or 0; got ", static_cast<int>(index));
  }
  /// Parses "cpu", "cuda", "cuda:1".
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}

  DeviceType type() const { return type_; }
  DeviceIndex index() const { return index_; }
  bool has_index() const { return index_ != -1; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }
  bool is_cuda() const { return type_ == DeviceType::CUDA; }
  void set_index(DeviceIndex i) { index_ = i; }
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;

 private:
  DeviceType type_;
  DeviceIndex index_ = -1;
};

std::ostream& operator<<(std::ostream& os, DeviceType t);
std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace c10

namespace at { using c10::Device; using c10::DeviceType; using c10::kCPU; using c10::kCUDA; }
