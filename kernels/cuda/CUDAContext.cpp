// Device queries, the current device, streams (current stream per thread and device, the stream
// pools), events, and error reporting for the CUDA build (the build without CUDA links
// kernels/cuda/no_cuda/NoCuda.cpp instead).
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <atomic>
#include <mutex>
#include <vector>

namespace ember::cuda {

void throw_cuda_error(cudaError_t err, const char* what) {
  // Clears the error if it is not sticky; a sticky one (a kernel fault) stays for every later call.
  (void)cudaGetLastError();
  throw c10::Error(c10::str("[cuda] ", what, ": ", cudaGetErrorString(err)));
}

int64_t device_count() {
  // Asked once: without a driver or device, cudaGetDeviceCount returns an error, which only means
  // "no device" (loading libember must never fail on a machine without a GPU).
  static const int64_t n = [] {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      return int64_t{0};
    }
    return static_cast<int64_t>(count);
  }();
  return n;
}

bool is_available() { return device_count() > 0; }

int current_device() {
  EMBER_CHECK(is_available(), "[cuda] no CUDA device is available");
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void set_device(int device) {
  EMBER_CHECK(device >= 0 && device < device_count(), "[cuda] device index ", device, " out of range (", device_count(),
              " visible devices)");
  EMBER_CUDA_CHECK(cudaSetDevice(device));
}

namespace {

constexpr int kMaxDevices = 64;

// Note [Current streams]
// Each thread has one current stream per device. The table holds the raw handle and the
// CUDAStream id; a zero-initialised entry is the default stream (the legacy stream 0, id 0), so a
// thread that never sets a stream sends everything to the legacy default stream, as before streams
// existed. Pool streams are created once per device and never destroyed (threads may still hold them).
struct TlsStream {
  cudaStream_t stream = nullptr;
  c10::cuda::StreamId id = 0;
};
thread_local TlsStream tls_streams[kMaxDevices] = {};

struct StreamPool {
  std::once_flag once;
  cudaStream_t low[c10::cuda::kStreamsPerPool] = {};
  cudaStream_t high[c10::cuda::kStreamsPerPool] = {};
  std::atomic<uint32_t> next_low{0}, next_high{0};
};

StreamPool& pool(int device) {
  static StreamPool* pools = new StreamPool[kMaxDevices];  // never destroyed: see Note [Current streams]
  return pools[device];
}

void init_pool(StreamPool& p, int device) {
  DeviceGuard guard(device);
  int least = 0, greatest = 0;  // numerically: least urgent (0) and most urgent (negative)
  EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  for (int i = 0; i < c10::cuda::kStreamsPerPool; ++i) {
    EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.low[i], cudaStreamNonBlocking, least));
    EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.high[i], cudaStreamNonBlocking, greatest));
  }
}

// The id a raw handle has on `device`: 0 for the default stream, its pool id, or -1 (external).
c10::cuda::StreamId id_of(cudaStream_t s, int device) {
  if (s == nullptr) return 0;
  StreamPool& p = pool(device);
  for (int i = 0; i < c10::cuda::kStreamsPerPool; ++i) {
    if (p.low[i] == s) return 1 + i;
    if (p.high[i] == s) return 1 + c10::cuda::kStreamsPerPool + i;
  }
  return -1;
}

// A device index for the stream API: -1 means the current device; raises without a device.
int resolve_device(int64_t device, const char* what) {
  EMBER_CHECK(is_available(), "[", what, "] no CUDA device is available");
  const int d = device < 0 ? current_device() : static_cast<int>(device);
  EMBER_CHECK(d < device_count(), "[", what, "] device index ", device, " out of range (", device_count(),
              " visible devices)");
  EMBER_CHECK(d < kMaxDevices, "[", what, "] supports devices 0..", kMaxDevices - 1, "; got ", d);
  return d;
}

}  // namespace

cudaStream_t current_stream() {
  int d = current_device();
  return d < kMaxDevices ? tls_streams[d].stream : nullptr;
}

cudaStream_t set_current_stream(cudaStream_t stream) {
  int d = current_device();
  EMBER_CHECK(d < kMaxDevices, "[cuda] set_current_stream supports devices 0..", kMaxDevices - 1);
  cudaStream_t prev = tls_streams[d].stream;
  tls_streams[d] = TlsStream{stream, id_of(stream, d)};
  return prev;
}

int sm_count() {
  static std::atomic<int> cached[kMaxDevices] = {};
  int d = current_device();
  if (d < kMaxDevices) {
    int n = cached[d].load(std::memory_order_relaxed);
    if (n > 0) return n;
  }
  int n = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d));
  if (d < kMaxDevices) cached[d].store(n, std::memory_order_relaxed);
  return n;
}

void synchronize(int64_t device) {
  EMBER_CHECK(is_available(), "[cuda.synchronize] no CUDA device is available");
  DeviceGuard guard(static_cast<int>(device));
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace ember::cuda

namespace c10::cuda {

using ember::cuda::resolve_device;

DeviceIndex device_count() noexcept { return static_cast<DeviceIndex>(ember::cuda::device_count()); }

DeviceIndex current_device() { return static_cast<DeviceIndex>(ember::cuda::current_device()); }

void set_device(DeviceIndex device) {
  EMBER_CHECK(ember::cuda::is_available(), "[cuda] no CUDA device is available");
  ember::cuda::set_device(device);
}

void device_synchronize() {
  EMBER_CHECK(ember::cuda::is_available(), "[cuda] no CUDA device is available");
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
}

// The legacy default stream (handle 0) means "the default stream of the current device", so
// queries on it run with its device current.
bool CUDAStream::query() const {
  ember::cuda::DeviceGuard guard(device_index_);
  const cudaError_t err = cudaStreamQuery(stream_);
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  ember::cuda::throw_cuda_error(err, "cudaStreamQuery");
}

void CUDAStream::synchronize() const {
  ember::cuda::DeviceGuard guard(device_index_);
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

int CUDAStream::priority() const {
  ember::cuda::DeviceGuard guard(device_index_);
  int p = 0;
  EMBER_CUDA_CHECK(cudaStreamGetPriority(stream_, &p));
  return p;
}

CUDAStream getStreamFromPool(bool isHighPriority, DeviceIndex device) {
  const int d = resolve_device(device, "getStreamFromPool");
  ember::cuda::StreamPool& p = ember::cuda::pool(d);
  std::call_once(p.once, [&] { ember::cuda::init_pool(p, d); });
  const uint32_t k = (isHighPriority ? p.next_high : p.next_low).fetch_add(1, std::memory_order_relaxed) % kStreamsPerPool;
  cudaStream_t s = isHighPriority ? p.high[k] : p.low[k];
  return CUDAStream(s, static_cast<DeviceIndex>(d), 1 + static_cast<StreamId>(k) + (isHighPriority ? kStreamsPerPool : 0));
}

CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index) {
  const int d = resolve_device(device_index, "getStreamFromExternal");
  return CUDAStream(ext_stream, static_cast<DeviceIndex>(d), ember::cuda::id_of(ext_stream, d));
}

CUDAStream getDefaultCUDAStream(DeviceIndex device_index) {
  const int d = resolve_device(device_index, "getDefaultCUDAStream");
  return CUDAStream(nullptr, static_cast<DeviceIndex>(d), 0);
}

CUDAStream getCurrentCUDAStream(DeviceIndex device_index) {
  const int d = resolve_device(device_index, "getCurrentCUDAStream");
  const ember::cuda::TlsStream& t = ember::cuda::tls_streams[d];
  return CUDAStream(t.stream, static_cast<DeviceIndex>(d), t.id);
}

void setCurrentCUDAStream(CUDAStream stream) {
  const int d = resolve_device(stream.device_index(), "setCurrentCUDAStream");
  ember::cuda::tls_streams[d] = ember::cuda::TlsStream{stream.stream(), stream.id()};
}

std::ostream& operator<<(std::ostream& os, const CUDAStream& s) {
  return os << "stream " << s.id() << " on device cuda:" << static_cast<int>(s.device_index());
}

}  // namespace c10::cuda

namespace at::cuda {

void CUDAEvent::create(c10::DeviceIndex device_index) {
  ember::cuda::DeviceGuard guard(device_index);
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags_));
  is_created_ = true;
  device_index_ = device_index;
}

void CUDAEvent::destroy() noexcept {
  // cudaEventDestroy does not need the event's device current; errors (a dead context at exit)
  // are dropped: a destructor must not throw.
  (void)cudaEventDestroy(event_);
  (void)cudaGetLastError();
  is_created_ = false;
  event_ = nullptr;
}

bool CUDAEvent::query() const {
  if (!is_created_) return true;
  const cudaError_t err = cudaEventQuery(event_);
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  ember::cuda::throw_cuda_error(err, "cudaEventQuery");
}

void CUDAEvent::record() { record(c10::cuda::getCurrentCUDAStream()); }

void CUDAEvent::record(const CUDAStream& stream) {
  if (!is_created_) create(stream.device_index());
  EMBER_CHECK(device_index_ == stream.device_index(), "[CUDAEvent] the event belongs to device cuda:",
              static_cast<int>(device_index_), " and cannot be recorded on a stream of device cuda:",
              static_cast<int>(stream.device_index()));
  ember::cuda::DeviceGuard guard(stream.device_index());
  EMBER_CUDA_CHECK(cudaEventRecord(event_, stream.stream()));
  was_recorded_ = true;
}

void CUDAEvent::recordOnce(const CUDAStream& stream) {
  if (!was_recorded_) record(stream);
}

void CUDAEvent::block(const CUDAStream& stream) {
  if (!is_created_) return;
  ember::cuda::DeviceGuard guard(stream.device_index());
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(stream.stream(), event_, 0));
}

void CUDAEvent::synchronize() const {
  if (!is_created_) return;
  EMBER_CUDA_CHECK(cudaEventSynchronize(event_));
}

float CUDAEvent::elapsed_time(const CUDAEvent& other) const {
  EMBER_CHECK(!(flags_ & cudaEventDisableTiming) && !(other.flags_ & cudaEventDisableTiming),
              "[CUDAEvent] elapsed_time needs both events created with timing enabled (flags without "
              "cudaEventDisableTiming); got flags ", flags_, " and ", other.flags_);
  EMBER_CHECK(is_created_ && was_recorded_ && other.is_created_ && other.was_recorded_,
              "[CUDAEvent] elapsed_time needs both events recorded first");
  ember::cuda::DeviceGuard guard(device_index_);
  float ms = 0;
  EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, other.event_));
  return ms;
}

}  // namespace at::cuda
