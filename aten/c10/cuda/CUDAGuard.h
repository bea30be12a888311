#pragma once
// Scoped device and stream switches (libtorch's c10/cuda/CUDAGuard.h):
//
//   { c10::cuda::CUDAGuard g(1); ... }                 // device 1 is current inside the scope
//   { c10::cuda::CUDAStreamGuard g(stream); ... }      // stream's device and stream are current
//
// The destructors restore what was current before, and never throw.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <optional>

namespace c10::cuda {

/// Makes a device current for a scope; a negative index leaves the current device as it is.
class CUDAGuard {
 public:
  explicit CUDAGuard() = delete;
  explicit CUDAGuard(DeviceIndex device_index) : original_(c10::cuda::current_device()), current_(original_) {
    set_index(device_index);
  }
  explicit CUDAGuard(Device device) : CUDAGuard(checked_index(device)) {}
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  ~CUDAGuard() {
    if (current_ == original_) return;
    try { c10::cuda::set_device(original_); } catch (...) {}  // a destructor must not throw
  }

  /// Switches to another device; the destructor still restores the original one.
  void set_index(DeviceIndex device_index) {
    if (device_index < 0 || device_index == current_) return;
    c10::cuda::set_device(device_index);
    current_ = device_index;
  }
  void set_device(Device device) { set_index(checked_index(device)); }
  void reset_device(Device device) { set_device(device); }
  /// The device that was current when the guard was made.
  Device original_device() const { return Device(DeviceType::CUDA, original_); }
  /// The device the guard last made current.
  Device current_device() const { return Device(DeviceType::CUDA, current_); }

 private:
  static DeviceIndex checked_index(Device d) {
    EMBER_CHECK(d.is_cuda(), "[CUDAGuard] expected a CUDA device; got ", d);
    return d.index();
  }
  DeviceIndex original_;
  DeviceIndex current_;
};

/// A CUDAGuard that may be empty: constructed from nullopt (or a CPU device index of -1) it does nothing.
class OptionalCUDAGuard {
 public:
  explicit OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(std::optional<Device> device_opt) {
    if (device_opt) set_device(*device_opt);
  }
  explicit OptionalCUDAGuard(std::optional<DeviceIndex> device_index_opt) {
    if (device_index_opt) set_index(*device_index_opt);
  }
  OptionalCUDAGuard(const OptionalCUDAGuard&) = delete;
  OptionalCUDAGuard& operator=(const OptionalCUDAGuard&) = delete;

  void set_device(Device device) {
    EMBER_CHECK(device.is_cuda(), "[OptionalCUDAGuard] expected a CUDA device; got ", device);
    set_index(device.index());
  }
  void reset_device(Device device) { set_device(device); }
  void set_index(DeviceIndex device_index) {
    if (guard_) guard_->set_index(device_index);
    else guard_.emplace(device_index);
  }
  /// The device current when the guard was first set (nullopt while empty).
  std::optional<Device> original_device() const {
    return guard_ ? std::optional<Device>(guard_->original_device()) : std::nullopt;
  }
  std::optional<Device> current_device() const {
    return guard_ ? std::optional<Device>(guard_->current_device()) : std::nullopt;
  }
  /// Restores the original device now and empties the guard.
  void reset() { guard_.reset(); }

 private:
  std::optional<CUDAGuard> guard_;
};

/// Makes a stream's device current and the stream current on it for a scope; restores both.
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard() = delete;
  explicit CUDAStreamGuard(CUDAStream stream)
      : original_device_(c10::cuda::current_device()),
        original_stream_(getCurrentCUDAStream(stream.device_index())),
        current_stream_(stream) {
    if (stream.device_index() != original_device_) c10::cuda::set_device(stream.device_index());
    setCurrentCUDAStream(stream);
  }
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  ~CUDAStreamGuard() {
    try {
      restore();
    } catch (...) {}  // a destructor must not throw
  }

  /// Restores the original stream and device, then makes `stream` (and its device) current.
  void reset_stream(CUDAStream stream) {
    restore();
    original_stream_ = getCurrentCUDAStream(stream.device_index());
    if (stream.device_index() != original_device_) c10::cuda::set_device(stream.device_index());
    setCurrentCUDAStream(stream);
    current_stream_ = stream;
  }
  /// The stream that was current on the guarded stream's device before the guard.
  CUDAStream original_stream() const { return original_stream_; }
  /// The stream the guard made current.
  CUDAStream current_stream() const { return current_stream_; }
  Device current_device() const { return current_stream_.device(); }
  Device original_device() const { return Device(DeviceType::CUDA, original_device_); }

 private:
  void restore() {
    setCurrentCUDAStream(original_stream_);
    if (current_stream_.device_index() != original_device_) c10::cuda::set_device(original_device_);
  }
  DeviceIndex original_device_;
  CUDAStream original_stream_;
  CUDAStream current_stream_;
};

/// A CUDAStreamGuard that may be empty.
class OptionalCUDAStreamGuard {
 public:
  explicit OptionalCUDAStreamGuard() = default;
  explicit OptionalCUDAStreamGuard(CUDAStream stream) { guard_.emplace(stream); }
  explicit OptionalCUDAStreamGuard(std::optional<CUDAStream> stream_opt) {
    if (stream_opt) guard_.emplace(*stream_opt);
  }
  OptionalCUDAStreamGuard(const OptionalCUDAStreamGuard&) = delete;
  OptionalCUDAStreamGuard& operator=(const OptionalCUDAStreamGuard&) = delete;

  void reset_stream(CUDAStream stream) {
    if (guard_) guard_->reset_stream(stream);
    else guard_.emplace(stream);
  }
  std::optional<CUDAStream> original_stream() const {
    return guard_ ? std::optional<CUDAStream>(guard_->original_stream()) : std::nullopt;
  }
  std::optional<CUDAStream> current_stream() const {
    return guard_ ? std::optional<CUDAStream>(guard_->current_stream()) : std::nullopt;
  }
  /// Restores the original stream and device now and empties the guard.
  void reset() { guard_.reset(); }

 private:
  std::optional<CUDAStreamGuard> guard_;
};

}  // namespace c10::cuda

EMBER_PUBLIC_END
