#pragma once
// CUDA streams as libtorch names them (c10/cuda/CUDAStream.h):
//
//   c10::cuda::CUDAStream s = c10::cuda::getStreamFromPool();   // a non-blocking stream of the pool
//   {
//     c10::cuda::CUDAStreamGuard g(s);   // Ember's kernels and copies of this thread now go to s
//     at::Tensor y = x.mul(2);
//   }                                    // the previous current stream is back
//   s.synchronize();
//
// Each thread has one current stream per device; until it is set, it is the device's default
// stream, the legacy default stream (handle 0), which orders itself against all blocking streams.
// See Note [Allocator and streams] in kernels/cuda/CUDACachingAllocator.cpp for what a block
// allocated on one stream and used on another needs (record_stream).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/Device.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDATypes.h>
#include <cstdint>
#include <ostream>

namespace c10::cuda {

using StreamId = int64_t;

/// Stream pools hold this many streams per device and priority (handed out round-robin).
constexpr int kStreamsPerPool = 32;

/// A CUDA stream on a device: a non-owning handle (streams of the pool live as long as the process).
class CUDAStream {
 public:
  /// Wraps `stream` on `device_index`; `id` 0 is the default stream, pool streams have ids
  /// 1..2*kStreamsPerPool, streams from elsewhere (getStreamFromExternal) ids < 0.
  CUDAStream(cudaStream_t stream, DeviceIndex device_index, StreamId id)
      : stream_(stream), device_index_(device_index), id_(id) {}

  /// The raw handle (0 for the legacy default stream).
  cudaStream_t stream() const { return stream_; }
  operator cudaStream_t() const { return stream_; }
  DeviceType device_type() const { return DeviceType::CUDA; }
  DeviceIndex device_index() const { return device_index_; }
  Device device() const { return Device(DeviceType::CUDA, device_index_); }
  /// Identifies the stream on its device (0: default stream).
  StreamId id() const { return id_; }

  /// True when all work queued on the stream has finished (cudaStreamQuery).
  bool query() const;
  /// Waits for all work queued on the stream (cudaStreamSynchronize).
  void synchronize() const;
  /// The stream's priority (lower is more urgent; 0 is the normal priority).
  int priority() const;

  bool operator==(const CUDAStream& o) const { return stream_ == o.stream_ && device_index_ == o.device_index_; }
  bool operator!=(const CUDAStream& o) const { return !(*this == o); }

 private:
  cudaStream_t stream_;
  DeviceIndex device_index_;
  StreamId id_;
};

/// A stream of the device's pool (-1: current device): one of kStreamsPerPool non-blocking streams,
/// created on first use and handed out round-robin; `isHighPriority` picks the high-priority pool.
CUDAStream getStreamFromPool(bool isHighPriority = false, DeviceIndex device = -1);
/// Wraps a stream created elsewhere (not owned; the caller keeps it alive while it is used).
CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index);
/// The default stream of `device_index` (-1: current device): the legacy default stream.
CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1);
/// This thread's current stream on `device_index` (-1: current device); the default stream until set.
CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
/// Makes `stream` this thread's current stream on the stream's device (the current device is unchanged).
void setCurrentCUDAStream(CUDAStream stream);

/// Prints "stream <id> on device cuda:<index>".
std::ostream& operator<<(std::ostream& os, const CUDAStream& s);

}  // namespace c10::cuda

EMBER_PUBLIC_END
