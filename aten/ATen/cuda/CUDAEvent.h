#pragma once
// CUDA events as libtorch names them (ATen/cuda/CUDAEvent.h):
//
//   at::cuda::CUDAEvent start(cudaEventDefault), stop(cudaEventDefault);   // timing enabled
//   start.record(stream); run(); stop.record(stream);
//   stop.synchronize();
//   float ms = start.elapsed_time(stop);
//
//   at::cuda::CUDAEvent done;            // cudaEventDisableTiming: cheaper, for ordering only
//   done.record(producer); done.block(consumer);   // consumer waits for producer's work so far
//
// The event is created on first record(), on the recording stream's device, and destroyed with
// the object; it is move-only. Recording on another device than the first recording raises.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDATypes.h>
#include <utility>

namespace at::cuda {

using c10::cuda::CUDAStream;

class CUDAEvent {
 public:
  /// Flags as cudaEventCreateWithFlags takes them; the default disables timing.
  CUDAEvent() noexcept = default;
  explicit CUDAEvent(unsigned int flags) noexcept : flags_(flags) {}
  ~CUDAEvent() { if (is_created_) destroy(); }

  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  CUDAEvent(CUDAEvent&& o) noexcept { take(o); }
  CUDAEvent& operator=(CUDAEvent&& o) noexcept {
    if (this != &o) {
      if (is_created_) destroy();
      take(o);
    }
    return *this;
  }

  operator cudaEvent_t() const { return event_; }
  /// The raw event (null until the first record()).
  cudaEvent_t event() const { return event_; }
  bool isCreated() const { return is_created_; }
  /// The device of the first recording (-1 before it).
  c10::DeviceIndex device_index() const { return device_index_; }
  /// The flags the event is (or will be) created with.
  unsigned int flags() const { return flags_; }

  /// True when the work captured by the last record() has finished (also before any record()).
  bool query() const;
  /// Captures the work queued so far on `stream` (the current stream when omitted).
  void record();
  void record(const CUDAStream& stream);
  /// Records on `stream` only if the event was never recorded.
  void recordOnce(const CUDAStream& stream);
  /// Makes future work on `stream` wait until the captured work has finished (no host wait);
  /// does nothing before the first record().
  void block(const CUDAStream& stream);
  /// Blocks the host until the captured work has finished (no-op before the first record()).
  void synchronize() const;
  /// Milliseconds from this event to `other`; both must be created with timing (flags without
  /// cudaEventDisableTiming), recorded, and `other` completed.
  float elapsed_time(const CUDAEvent& other) const;

  bool operator<(const CUDAEvent& o) const { return event_ < o.event_; }

 private:
  void create(c10::DeviceIndex device_index);
  void destroy() noexcept;
  void take(CUDAEvent& o) noexcept {
    flags_ = o.flags_;
    is_created_ = std::exchange(o.is_created_, false);
    was_recorded_ = std::exchange(o.was_recorded_, false);
    device_index_ = std::exchange(o.device_index_, c10::DeviceIndex(-1));
    event_ = std::exchange(o.event_, nullptr);
  }

  unsigned int flags_ = cudaEventDisableTiming;
  bool is_created_ = false;
  bool was_recorded_ = false;
  c10::DeviceIndex device_index_ = -1;
  cudaEvent_t event_ = nullptr;
};

}  // namespace at::cuda

EMBER_PUBLIC_END
