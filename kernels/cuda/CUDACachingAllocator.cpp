// The CUDA caching allocator: cudaMalloc is slow and cudaFree synchronises the device, so memory
// is taken from the driver in segments, cut into blocks, and freed blocks are kept and handed out
// again.
//
// Note [Allocator and streams]
// Every block belongs to the stream that was current when it was allocated, and free blocks are
// pooled per (device, stream): a block freed while a kernel that uses it is still queued can be
// handed out again at once to the same stream, because the next user is ordered after the last
// one. A block is never handed to another stream, which would not be ordered. When a tensor is
// also used on other streams, the user says so with recordStream (libtorch's record_stream); on
// free, an event is recorded on each of those streams, and the block returns to its pool only
// after all of them have completed (polled at the next allocation, waited for before memory goes
// back to the driver).
//
// Note [Block sizes]
// Requests are rounded up to 512 B. Requests up to 1 MiB come from the small pool, whose segments
// are 2 MiB; larger ones from the large pool, whose segments are 20 MiB for requests under
// 10 MiB and the request rounded up to 2 MiB otherwise. A block found for a request (the smallest
// free block of the stream that fits) is split when the rest is worth keeping (>= 512 B in the
// small pool, > 1 MiB in the large one), and a freed block is merged with its free neighbours in
// the same segment, so a segment whose blocks are all free is one block again and can be returned
// by emptyCache. When cudaMalloc runs out of memory, the cached segments of the device are freed
// and the cudaMalloc is retried once; then c10::OutOfMemoryError is raised.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <c10/core/Allocator.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace ember::cuda {
namespace {

constexpr size_t kMinBlockSize = 512;
constexpr size_t kSmallSize = size_t{1} << 20;
constexpr size_t kSmallBuffer = size_t{2} << 20;
constexpr size_t kLargeBuffer = size_t{20} << 20;
constexpr size_t kMinLargeAlloc = size_t{10} << 20;
constexpr size_t kRoundLarge = size_t{2} << 20;
constexpr size_t kMaxRequest = size_t{1} << 60;  // larger requests fail without asking the driver

size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }
size_t round_size(size_t n) { return n < kMinBlockSize ? kMinBlockSize : round_up(n, kMinBlockSize); }
size_t segment_size(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return round_up(size, kRoundLarge);
}

std::string format_bytes(size_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return buf;
}

struct Block;
// Free blocks ordered by (stream, size, address): lower_bound finds the best fit on a stream.
struct BlockLess {
  bool operator()(const Block* a, const Block* b) const;
};
using Pool = std::set<Block*, BlockLess>;

struct StreamUse {
  cudaStream_t stream;
  int device;
  bool operator==(const StreamUse& o) const { return stream == o.stream && device == o.device; }
};

struct Block {
  int device;
  cudaStream_t stream;  // the stream it was allocated on (the segment's stream)
  size_t size;
  void* ptr;
  Pool* pool;           // where it goes when free
  bool allocated = false;
  Block* prev = nullptr;  // neighbours within the segment (null at its ends)
  Block* next = nullptr;
  std::vector<StreamUse> stream_uses;  // other streams it was used on (recordStream)
  int event_count = 0;                 // events to complete before it is free again
  Block(int d, cudaStream_t s, size_t n, void* p, Pool* pl) : device(d), stream(s), size(n), ptr(p), pool(pl) {}
};

bool BlockLess::operator()(const Block* a, const Block* b) const {
  const auto sa = reinterpret_cast<uintptr_t>(a->stream), sb = reinterpret_cast<uintptr_t>(b->stream);
  if (sa != sb) return sa < sb;
  if (a->size != b->size) return a->size < b->size;
  return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
}

struct PendingEvent {
  cudaEvent_t event;
  int event_device;
  Block* block;
};

void bump(int64_t& cur, int64_t& peak, int64_t delta) {
  cur += delta;
  peak = std::max(peak, cur);
}

// One device's pools, events and counters, guarded by its mutex.
class DeviceAllocator {
 public:
  explicit DeviceAllocator(int device) : device_(device) {}

  Block* malloc(size_t nbytes, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    process_events();
    const size_t size = nbytes > kMaxRequest ? nbytes : round_size(nbytes);
    Pool& pool = size <= kSmallSize ? small_ : large_;
    Block* block = take_free(pool, stream, size);
    if (block) {
      ++stats_.cache_hits;
    } else {
      const size_t seg = nbytes > kMaxRequest ? nbytes : segment_size(size);
      void* p = device_malloc(seg, nbytes);
      block = new Block(device_, stream, seg, p, &pool);
      bump(stats_.reserved_bytes, stats_.reserved_bytes_peak, static_cast<int64_t>(seg));
      ++stats_.segments;
    }
    const size_t rest = block->size - size;
    if (&pool == &small_ ? rest >= kMinBlockSize : rest > kSmallSize) {
      auto* r = new Block(device_, stream, rest, static_cast<char*>(block->ptr) + size, &pool);
      r->prev = block;
      r->next = block->next;
      if (r->next) r->next->prev = r;
      block->next = r;
      block->size = size;
      pool.insert(r);
    }
    block->allocated = true;
    ++stats_.num_allocs;
    bump(stats_.allocated_bytes, stats_.allocated_bytes_peak, static_cast<int64_t>(block->size));
    bump(stats_.active_blocks, stats_.active_blocks_peak, 1);
    return block;
  }

  // Called from tensor destructors: never throws. See Note [Allocator and streams].
  void free(Block* block) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    block->allocated = false;
    stats_.allocated_bytes -= static_cast<int64_t>(block->size);
    stats_.active_blocks -= 1;
    for (const StreamUse& use : block->stream_uses) {
      cudaEvent_t ev = record_event(use);
      if (ev) {
        pending_.push_back({ev, use.device, block});
        ++block->event_count;
      } else {
        // No event could be recorded: wait for the stream instead, so reuse stays safe.
        DeviceGuardNoThrow guard(use.device);
        (void)cudaStreamSynchronize(use.stream);
        (void)cudaGetLastError();
      }
    }
    block->stream_uses.clear();
    if (block->event_count == 0) free_block(block);
  }

  void record_stream(Block* block, cudaStream_t stream, int device) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stream == block->stream && device == block->device) return;
    const StreamUse use{stream, device};
    if (std::find(block->stream_uses.begin(), block->stream_uses.end(), use) == block->stream_uses.end())
      block->stream_uses.push_back(use);
  }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mu_);
    release_cached();
  }

  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

  void reset_peaks() {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.allocated_bytes_peak = stats_.allocated_bytes;
    stats_.reserved_bytes_peak = stats_.reserved_bytes;
    stats_.active_blocks_peak = stats_.active_blocks;
  }

 private:
  // Sets a device for a scope without throwing (used where errors must not escape).
  struct DeviceGuardNoThrow {
    int prev = -1;
    explicit DeviceGuardNoThrow(int d) {
      int cur = -1;
      if (cudaGetDevice(&cur) != cudaSuccess) {
        (void)cudaGetLastError();
        cur = -1;
      }
      if (cur == d) return;
      if (cudaSetDevice(d) == cudaSuccess) prev = cur;
      else (void)cudaGetLastError();
    }
    ~DeviceGuardNoThrow() {
      if (prev >= 0) (void)cudaSetDevice(prev);
    }
  };

  Block* take_free(Pool& pool, cudaStream_t stream, size_t size) {
    Block key(device_, stream, size, nullptr, &pool);
    auto it = pool.lower_bound(&key);
    if (it == pool.end() || (*it)->stream != stream) return nullptr;
    Block* b = *it;
    pool.erase(it);
    return b;
  }

  // Puts a block that is free and has no pending events back into its pool, merged with its free neighbours.
  void free_block(Block* block) {
    Pool& pool = *block->pool;
    auto mergeable = [](const Block* n) { return n && !n->allocated && n->event_count == 0; };
    if (Block* p = block->prev; mergeable(p)) {
      pool.erase(p);
      block->ptr = p->ptr;
      block->size += p->size;
      block->prev = p->prev;
      if (block->prev) block->prev->next = block;
      delete p;
    }
    if (Block* n = block->next; mergeable(n)) {
      pool.erase(n);
      block->size += n->size;
      block->next = n->next;
      if (block->next) block->next->prev = block;
      delete n;
    }
    pool.insert(block);
  }

  // An event recorded on `use.stream` now, or null when that failed.
  cudaEvent_t record_event(const StreamUse& use) noexcept {
    DeviceGuardNoThrow guard(use.device);
    cudaEvent_t ev = nullptr;
    if (use.device == device_ && !free_events_.empty()) {
      ev = free_events_.back();
      free_events_.pop_back();
    } else if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    if (cudaEventRecord(ev, use.stream) != cudaSuccess) {
      (void)cudaGetLastError();
      (void)cudaEventDestroy(ev);
      return nullptr;
    }
    return ev;
  }

  void finish_event(const PendingEvent& pe) {
    if (pe.event_device == device_) free_events_.push_back(pe.event);
    else (void)cudaEventDestroy(pe.event);
    if (--pe.block->event_count == 0) free_block(pe.block);
  }

  // Returns the blocks whose events have all completed to their pools.
  void process_events() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      const cudaError_t err = cudaEventQuery(it->event);
      if (err == cudaErrorNotReady) {
        (void)cudaGetLastError();
        ++it;
        continue;
      }
      if (err != cudaSuccess) throw_cuda_error(err, "cudaEventQuery (caching allocator)");
      const PendingEvent pe = *it;
      it = pending_.erase(it);
      finish_event(pe);
    }
  }

  void synchronize_and_free_events() {
    while (!pending_.empty()) {
      const PendingEvent pe = pending_.front();
      pending_.pop_front();
      (void)cudaEventSynchronize(pe.event);
      (void)cudaGetLastError();
      finish_event(pe);
    }
  }

  // Frees every cached segment that is wholly free. cudaFree synchronises the device first, so no
  // queued kernel still uses them.
  void release_cached() {
    synchronize_and_free_events();
    DeviceGuardNoThrow guard(device_);
    for (Pool* pool : {&small_, &large_}) {
      for (auto it = pool->begin(); it != pool->end();) {
        Block* b = *it;
        if (b->prev || b->next) {
          ++it;
          continue;
        }
        (void)cudaFree(b->ptr);
        (void)cudaGetLastError();
        stats_.reserved_bytes -= static_cast<int64_t>(b->size);
        --stats_.segments;
        ++stats_.num_device_free;
        it = pool->erase(it);
        delete b;
      }
    }
  }

  void* device_malloc(size_t size, size_t requested) {
    void* p = nullptr;
    cudaError_t err = size > kMaxRequest ? cudaErrorMemoryAllocation : cudaMalloc(&p, size);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      ++stats_.num_alloc_retries;
      release_cached();
      if (size <= kMaxRequest) err = cudaMalloc(&p, size);
    }
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      ++stats_.num_ooms;
      size_t free_b = 0, total_b = 0;
      if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
      throw c10::OutOfMemoryError(c10::str(
          "[cuda] out of memory: tried to allocate ", format_bytes(requested), " (", requested, " bytes) on device cuda:",
          device_, "; the device has ", format_bytes(total_b), " total and ", format_bytes(free_b), " free; Ember has ",
          format_bytes(static_cast<size_t>(stats_.allocated_bytes)), " allocated and ",
          format_bytes(static_cast<size_t>(stats_.reserved_bytes)), " reserved (allocated plus cached)"));
    }
    EMBER_CUDA_CHECK(err);
    ++stats_.num_device_alloc;
    return p;
  }

  const int device_;
  std::mutex mu_;
  Pool small_, large_;
  std::deque<PendingEvent> pending_;
  std::vector<cudaEvent_t> free_events_;
  MemoryStats stats_;
};

class CachingAllocator final : public c10::Allocator {
 public:
  CachingAllocator() {
    for (int64_t d = 0; d < device_count(); ++d) devices_.push_back(std::make_unique<DeviceAllocator>(static_cast<int>(d)));
  }

  c10::DataPtr allocate(size_t nbytes) override {
    EMBER_CHECK(device_count() > 0, "[cuda] no CUDA device is available to allocate ", nbytes, " bytes on");
    const int dev = current_device();
    const c10::Device device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(dev));
    if (nbytes == 0) return c10::DataPtr(nullptr, nullptr, nullptr, device);
    Block* b = dev_alloc(dev).malloc(nbytes, current_stream());
    return c10::DataPtr(b->ptr, b, &CachingAllocator::deleter, device);
  }

  void copy_data(void* dst, const void* src, size_t n) const override {
    if (n == 0) return;
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, current_stream()));
  }

  DeviceAllocator& dev_alloc(int dev) {
    EMBER_CHECK(dev >= 0 && static_cast<size_t>(dev) < devices_.size(), "[cuda] device index ", dev,
                " out of range (", devices_.size(), " visible devices)");
    return *devices_[dev];
  }
  size_t num_devices() const { return devices_.size(); }

  static void deleter(void* ctx) {
    auto* b = static_cast<Block*>(ctx);
    get().devices_[b->device]->free(b);
  }

  static CachingAllocator& get();

 private:
  std::vector<std::unique_ptr<DeviceAllocator>> devices_;
};

// Never destroyed: tensors freed during static destruction still return their blocks here, and
// cudaFree after the runtime shut down would fail anyway.
CachingAllocator& CachingAllocator::get() {
  static CachingAllocator* a = new CachingAllocator();
  return *a;
}

int resolve(int64_t device) { return device < 0 ? current_device() : static_cast<int>(device); }

// Registered at load time without touching the CUDA runtime (no device query before main: a
// tool such as compute-sanitizer must see CUDA initialised by the program, not by a library's
// constructor). Without a device, allocate() raises "no CUDA device" and loading succeeds.
struct Register {
  Register() { c10::SetAllocator(c10::DeviceType::CUDA, &CachingAllocator::get()); }
};
Register g_register;

}  // namespace

void empty_cache() {
  if (device_count() == 0) return;
  CachingAllocator& a = CachingAllocator::get();
  for (size_t d = 0; d < a.num_devices(); ++d) a.dev_alloc(static_cast<int>(d)).empty_cache();
}
size_t memory_allocated(int64_t device) {
  return device_count() > 0 ? static_cast<size_t>(CachingAllocator::get().dev_alloc(resolve(device)).stats().allocated_bytes) : 0;
}
size_t memory_reserved(int64_t device) {
  return device_count() > 0 ? static_cast<size_t>(CachingAllocator::get().dev_alloc(resolve(device)).stats().reserved_bytes) : 0;
}
MemoryStats memory_stats(int64_t device) {
  return device_count() > 0 ? CachingAllocator::get().dev_alloc(resolve(device)).stats() : MemoryStats{};
}
void reset_peak_memory_stats(int64_t device) {
  if (device_count() > 0) CachingAllocator::get().dev_alloc(resolve(device)).reset_peaks();
}

void record_stream(const at::Tensor& t, c10::cuda::CUDAStream stream) {
  EMBER_CHECK(t.defined(), "[record_stream] expected a defined tensor");
  EMBER_CHECK(t.is_cuda(), "[record_stream] expected a CUDA tensor; got one on ", t.device());
  c10::cuda::CUDACachingAllocator::recordStream(t.storage().unsafeGetStorageImpl()->data_ptr_, stream);
}

}  // namespace ember::cuda

namespace c10::cuda::CUDACachingAllocator {

c10::Allocator* get() {
  EMBER_CHECK(ember::cuda::device_count() > 0, "[cuda] no CUDA device is available");
  return &ember::cuda::CachingAllocator::get();
}

void emptyCache() { ember::cuda::empty_cache(); }

void recordStream(const DataPtr& ptr, CUDAStream stream) {
  // Memory of another allocator (from_blob, an embedder's allocator) has no block to keep.
  if (!ptr.get() || ptr.get_deleter() != &ember::cuda::CachingAllocator::deleter) return;
  auto* b = static_cast<ember::cuda::Block*>(ptr.get_context());
  ember::cuda::CachingAllocator::get().dev_alloc(b->device).record_stream(b, stream.stream(), stream.device_index());
}

void resetPeakStats(DeviceIndex device) { ember::cuda::reset_peak_memory_stats(device); }

}  // namespace c10::cuda::CUDACachingAllocator
