// Linked in builds without CUDA: the CUDA runtime queries answer "no device", the allocator
// statistics are zero, and everything that needs a device raises "[...] Ember was built without CUDA".
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/util/Exception.h>
#include <torch/cuda.h>

namespace {
[[noreturn]] void no_cuda(const char* what) { throw c10::Error(c10::str("[", what, "] Ember was built without CUDA")); }
}  // namespace

namespace ember::cuda {
int64_t device_count() { return 0; }
bool is_available() { return false; }
void synchronize(int64_t) { no_cuda("cuda.synchronize"); }
void empty_cache() {}
size_t memory_allocated(int64_t) { return 0; }
size_t memory_reserved(int64_t) { return 0; }
MemoryStats memory_stats(int64_t) { return MemoryStats{}; }
void reset_peak_memory_stats(int64_t) {}
void record_stream(const at::Tensor&, c10::cuda::CUDAStream) { no_cuda("record_stream"); }
// Without a device there is no CUDA generator to seed (libtorch ignores the call likewise).
void manual_seed(uint64_t) {}
void manual_seed_all(uint64_t) {}
at::Tensor pin_memory(const at::Tensor&) { no_cuda("pin_memory"); }
bool is_pinned(const at::Tensor&) { return false; }
bool is_pinned_ptr(const void*) { return false; }
at::Tensor empty_pinned(at::IntArrayRef, at::ScalarType) { no_cuda("empty_pinned"); }
}  // namespace ember::cuda

namespace c10::cuda {
DeviceIndex device_count() noexcept { return 0; }
DeviceIndex current_device() { no_cuda("cuda"); }
void set_device(DeviceIndex) { no_cuda("cuda"); }
void device_synchronize() { no_cuda("cuda"); }
bool CUDAStream::query() const { no_cuda("CUDAStream"); }
void CUDAStream::synchronize() const { no_cuda("CUDAStream"); }
int CUDAStream::priority() const { no_cuda("CUDAStream"); }
CUDAStream getStreamFromPool(bool, DeviceIndex) { no_cuda("getStreamFromPool"); }
CUDAStream getStreamFromExternal(cudaStream_t, DeviceIndex) { no_cuda("getStreamFromExternal"); }
CUDAStream getDefaultCUDAStream(DeviceIndex) { no_cuda("getDefaultCUDAStream"); }
CUDAStream getCurrentCUDAStream(DeviceIndex) { no_cuda("getCurrentCUDAStream"); }
void setCurrentCUDAStream(CUDAStream) { no_cuda("setCurrentCUDAStream"); }
std::ostream& operator<<(std::ostream& os, const CUDAStream& s) {
  return os << "stream " << s.id() << " on device cuda:" << static_cast<int>(s.device_index());
}
}  // namespace c10::cuda

namespace c10::cuda::CUDACachingAllocator {
c10::Allocator* get() { no_cuda("cuda"); }
void emptyCache() {}
void recordStream(const DataPtr&, CUDAStream) {}
void resetPeakStats(DeviceIndex) {}
}  // namespace c10::cuda::CUDACachingAllocator

namespace at::cuda {
bool CUDAEvent::query() const { return true; }  // never recorded: nothing pending
void CUDAEvent::record() { no_cuda("CUDAEvent"); }
void CUDAEvent::record(const CUDAStream&) { no_cuda("CUDAEvent"); }
void CUDAEvent::recordOnce(const CUDAStream&) { no_cuda("CUDAEvent"); }
void CUDAEvent::block(const CUDAStream&) {}
void CUDAEvent::synchronize() const {}
float CUDAEvent::elapsed_time(const CUDAEvent&) const { no_cuda("CUDAEvent"); }
void CUDAEvent::create(c10::DeviceIndex) { no_cuda("CUDAEvent"); }
void CUDAEvent::destroy() noexcept {}
c10::Allocator* getCachingHostAllocator() { no_cuda("getCachingHostAllocator"); }
bool CachingHostAllocator_recordEvent(void*, void*, c10::cuda::CUDAStream) { return false; }
void CachingHostAllocator_emptyCache() {}
}  // namespace at::cuda

namespace at::cuda::detail {
const Generator& getDefaultCUDAGenerator(int) { no_cuda("cuda generator"); }
Generator createCUDAGenerator(int, uint64_t) { no_cuda("cuda generator"); }
}  // namespace at::cuda::detail
