// The caching allocator of pinned (page-locked) host memory, and pin_memory / is_pinned.
//
// Note [Pinned blocks and asynchronous copies]
// cudaHostAlloc and cudaFreeHost are slow (they map pages for the device and synchronise), so
// freed pinned blocks are kept, by size rounded up to a power of two. An asynchronous copy may still
// read or write a block when its tensor is freed; copies therefore tell the allocator which streams
// used a block (CachingHostAllocator_recordEvent), and on free an event is recorded on each of those
// streams. The block is handed out again only after all of them have completed (polled at the next
// allocation), as the device allocator does for recordStream (Note [Allocator and streams]).
#include <ATen/ATen.h>
#include <ATen/Utils.h>
#include <ATen/cuda/PinnedMemoryAllocator.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <c10/util/safe_numerics.h>
#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

namespace ember::cuda {
namespace {

struct HostStreamUse {
  cudaStream_t stream;
  int device;
  bool operator==(const HostStreamUse& o) const { return stream == o.stream && device == o.device; }
};

struct HostBlock {
  size_t size;
  void* ptr;
  bool allocated = false;
  int event_count = 0;
  std::vector<HostStreamUse> uses;
};

struct HostBlockLess {
  bool operator()(const HostBlock* a, const HostBlock* b) const {
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};

struct HostPending {
  cudaEvent_t event;
  HostBlock* block;
};

size_t host_block_size(size_t n) {
  size_t s = 512;
  while (s < n && s <= (size_t{1} << 62)) s <<= 1;
  return s < n ? n : s;
}

class CachingHostAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    const c10::Device cpu(c10::DeviceType::CPU);
    if (nbytes == 0) return c10::DataPtr(nullptr, nullptr, nullptr, cpu);
    std::lock_guard<std::mutex> lock(mu_);
    process_events();
    const size_t size = host_block_size(nbytes);
    HostBlock key{size, nullptr};
    auto it = free_.lower_bound(&key);
    HostBlock* b = nullptr;
    // Only a block of the same size class: handing out a larger cached block would leave it pinned
    // for a small tensor while the next large request pins fresh memory again.
    if (it != free_.end() && (*it)->size == size) {
      b = *it;
      free_.erase(it);
    } else {
      b = new HostBlock{size, host_alloc(size)};
      blocks_.emplace(b->ptr, b);
    }
    b->allocated = true;
    return c10::DataPtr(b->ptr, b, &CachingHostAllocator::deleter, cpu);
  }

  void copy_data(void* dst, const void* src, size_t n) const override {
    if (n) std::memcpy(dst, src, n);
  }

  // False when `ptr`/`ctx` is not a live block of this allocator.
  bool record(void* ptr, void* ctx, cudaStream_t stream, int device) {
    std::lock_guard<std::mutex> lock(mu_);
    auto found = blocks_.find(ptr);
    if (found == blocks_.end() || found->second != ctx || !found->second->allocated) return false;
    HostBlock* b = found->second;
    const HostStreamUse use{stream, device};
    if (std::find(b->uses.begin(), b->uses.end(), use) == b->uses.end()) b->uses.push_back(use);
    return true;
  }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mu_);
    process_events();
    release_free();
  }

  static void deleter(void* ctx) { get().free(static_cast<HostBlock*>(ctx)); }
  static CachingHostAllocator& get() {
    static auto* a = new CachingHostAllocator();  // never destroyed, like the device allocator
    return *a;
  }

 private:
  // Called from tensor destructors: never throws.
  void free(HostBlock* b) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    b->allocated = false;
    for (const HostStreamUse& use : b->uses) {
      int prev = -1;
      if (cudaGetDevice(&prev) != cudaSuccess) prev = -1;
      if (prev != use.device) (void)cudaSetDevice(use.device);
      cudaEvent_t ev = nullptr;
      bool ok = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) == cudaSuccess &&
                cudaEventRecord(ev, use.stream) == cudaSuccess;
      if (ok) {
        pending_.push_back({ev, b});
        ++b->event_count;
      } else {
        (void)cudaGetLastError();
        if (ev) (void)cudaEventDestroy(ev);
        (void)cudaStreamSynchronize(use.stream);  // no event: wait instead, so reuse stays safe
        (void)cudaGetLastError();
      }
      if (prev >= 0 && prev != use.device) (void)cudaSetDevice(prev);
    }
    b->uses.clear();
    if (b->event_count == 0) free_.insert(b);
  }

  void process_events() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      const cudaError_t err = cudaEventQuery(it->event);
      if (err == cudaErrorNotReady) {
        (void)cudaGetLastError();
        ++it;
        continue;
      }
      if (err != cudaSuccess) throw_cuda_error(err, "cudaEventQuery (pinned host allocator)");
      HostBlock* b = it->block;
      (void)cudaEventDestroy(it->event);
      it = pending_.erase(it);
      if (--b->event_count == 0) free_.insert(b);
    }
  }

  void release_free() {
    for (HostBlock* b : free_) {
      (void)cudaFreeHost(b->ptr);
      (void)cudaGetLastError();
      blocks_.erase(b->ptr);
      delete b;
    }
    free_.clear();
  }

  void* host_alloc(size_t size) {
    void* p = nullptr;
    cudaError_t err = cudaHostAlloc(&p, size, cudaHostAllocDefault);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      release_free();
      err = cudaHostAlloc(&p, size, cudaHostAllocDefault);
    }
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw c10::OutOfMemoryError(c10::str("[cuda] out of memory: tried to allocate ", size,
                                           " bytes of pinned host memory (cudaHostAlloc failed)"));
    }
    EMBER_CUDA_CHECK(err);
    return p;
  }

  std::mutex mu_;
  std::set<HostBlock*, HostBlockLess> free_;
  std::deque<HostPending> pending_;
  std::unordered_map<void*, HostBlock*> blocks_;  // every block by address, for record()
};

c10::Allocator* host_allocator(const char* what) {
  EMBER_CHECK(is_available(), "[", what, "] no CUDA device is available (pinned memory needs one)");
  return &CachingHostAllocator::get();
}

}  // namespace

bool is_pinned_ptr(const void* ptr) {
  if (!ptr || !is_available()) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

bool is_pinned(const at::Tensor& t) {
  if (!t.defined() || !t.device().is_cpu() || !t.storage().defined()) return false;
  const c10::DataPtr& dp = t.storage().unsafeGetStorageImpl()->data_ptr_;
  if (dp.get_deleter() == &CachingHostAllocator::deleter) return true;
  return is_pinned_ptr(dp.get());
}

at::Tensor empty_pinned(at::IntArrayRef sizes, at::ScalarType dtype) {
  c10::Allocator* alloc = host_allocator("empty_pinned");
  for (int64_t s : sizes) EMBER_CHECK(s >= 0, "[empty_pinned] expected non-negative sizes; got ", sizes);
  const int64_t nbytes = c10::checked_storage_nbytes(sizes, at::contiguous_strides(sizes), 0, c10::elementSize(dtype),
                                                     "empty_pinned");
  auto impl = c10::make_intrusive<at::TensorImpl>(c10::Storage::allocate(static_cast<size_t>(nbytes), alloc), dtype);
  impl->set_sizes_contiguous(sizes);
  return at::Tensor(std::move(impl));
}

at::Tensor pin_memory(const at::Tensor& t) {
  EMBER_CHECK(t.defined(), "[pin_memory] expected a defined tensor");
  EMBER_CHECK(t.device().is_cpu(), "[pin_memory] expected a CPU tensor; got one on ", t.device());
  host_allocator("pin_memory");
  if (is_pinned(t)) return t;
  // A dense layout (also a transposed one) is kept, as libtorch keeps strides; other layouts
  // (overlapping or with gaps) become contiguous.
  at::Tensor out;
  if (t.is_non_overlapping_and_dense() && !t.is_contiguous()) {
    const int64_t nbytes = c10::checked_storage_nbytes(t.sizes(), t.strides(), 0, t.element_size(), "pin_memory");
    auto impl = c10::make_intrusive<at::TensorImpl>(
        c10::Storage::allocate(static_cast<size_t>(nbytes), &CachingHostAllocator::get()), t.scalar_type());
    impl->set_sizes_and_strides(t.sizes(), t.strides());
    out = at::Tensor(std::move(impl));
  } else {
    out = empty_pinned(t.sizes(), t.scalar_type());
  }
  out.copy_(t);
  return out;
}

}  // namespace ember::cuda

namespace at::cuda {

c10::Allocator* getCachingHostAllocator() { return ember::cuda::host_allocator("getCachingHostAllocator"); }

bool CachingHostAllocator_recordEvent(void* ptr, void* ctx, c10::cuda::CUDAStream stream) {
  if (!ptr || !ctx || !ember::cuda::is_available()) return false;
  return ember::cuda::CachingHostAllocator::get().record(ptr, ctx, stream.stream(), stream.device_index());
}

void CachingHostAllocator_emptyCache() {
  if (ember::cuda::is_available()) ember::cuda::CachingHostAllocator::get().empty_cache();
}

}  // namespace at::cuda
