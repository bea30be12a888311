// Device queries, the current device and stream, and error reporting for the CUDA build (the
// build without CUDA links kernels/cuda/no_cuda/NoCuda.cpp instead).
#include <ATen/native/cuda/CUDAUtils.h>
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
thread_local cudaStream_t tls_streams[kMaxDevices] = {};
}  // namespace

cudaStream_t current_stream() {
  int d = current_device();
  return d < kMaxDevices ? tls_streams[d] : nullptr;
}

cudaStream_t set_current_stream(cudaStream_t stream) {
  int d = current_device();
  EMBER_CHECK(d < kMaxDevices, "[cuda] set_current_stream supports devices 0..", kMaxDevices - 1);
  cudaStream_t prev = tls_streams[d];
  tls_streams[d] = stream;
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
