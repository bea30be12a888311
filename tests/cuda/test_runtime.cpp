// The CUDA runtime (issue #9): streams and their pool, stream and device guards, events, the
// stream-aware caching allocator (counters, splitting and merging, record_stream, out of memory),
// pinned host memory and non-blocking copies. The first test checks that without a device (or
// without CUDA) every entry point either answers "nothing" or raises a clean c10::Error.
#include "op_test_util.h"
#include <ATen/cuda/CUDAContext.h>
#include <torch/cuda.h>
#include <cstdint>
#include <set>
#include <string>
#include <type_traits>
#include "cuda/cuda_test_util.h"

namespace {

// Catch2 v2 has no SKIP: a test without a device warns and returns (as in test_cuda.cpp).
at::Tensor bytes_on_gpu(int64_t n) { return at::empty({n}, at::TensorOptions().dtype(at::kByte).device(kGpu)); }
uintptr_t addr(const at::Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); }

at::Tensor arange_cpu(int64_t n) {
  at::Tensor t = at::empty({n}, at::kFloat);
  for (int64_t i = 0; i < n; ++i) t.data_ptr<float>()[i] = static_cast<float>(i) * 0.5f - 3.0f;
  return t;
}

// Keeps `stream` busy for milliseconds: repeated fills of a 2 GiB tensor (about 0.5 ms each on an H200).
void keep_busy(const c10::cuda::CUDAStream& stream, int rounds) {
  c10::cuda::CUDAStreamGuard g(stream);
  at::Tensor big = at::empty({int64_t{1} << 29}, at::device(kGpu));
  for (int k = 0; k < rounds; ++k) big.fill_(1.0 + k);
}

}  // namespace

TEST_CASE("CUDA runtime without a device: clean errors, zero statistics", "[cuda]") {
  if (torch::cuda::is_available()) {
    SUCCEED("a CUDA device is present");
    return;
  }
  CHECK(c10::cuda::device_count() == 0);
  CHECK_FALSE(at::cuda::is_available());
  CHECK_THROWS_AS(c10::cuda::current_device(), c10::Error);
  CHECK_THROWS_AS(c10::cuda::device_synchronize(), c10::Error);
  CHECK_THROWS_AS(c10::cuda::getCurrentCUDAStream(), c10::Error);
  CHECK_THROWS_AS(c10::cuda::getDefaultCUDAStream(), c10::Error);
  CHECK_THROWS_AS(c10::cuda::getStreamFromPool(), c10::Error);
  CHECK_THROWS_AS(c10::cuda::getStreamFromPool(true, 0), c10::Error);
  CHECK_THROWS_AS(c10::cuda::CUDAGuard(0), c10::Error);
  CHECK_THROWS_AS(c10::cuda::CUDACachingAllocator::get(), c10::Error);
  {
    at::cuda::CUDAEvent ev;  // never created: query is true, synchronize does nothing
    CHECK(ev.query());
    ev.synchronize();
    CHECK_FALSE(ev.isCreated());
    CHECK_THROWS_AS(ev.record(), c10::Error);
  }
  c10::cuda::OptionalCUDAGuard empty_guard;  // an empty guard touches nothing
  CHECK_FALSE(empty_guard.original_device().has_value());

  torch::cuda::empty_cache();
  c10::cuda::CUDACachingAllocator::emptyCache();
  torch::cuda::reset_peak_memory_stats();
  CHECK(torch::cuda::memory_allocated() == 0);
  CHECK(torch::cuda::memory_reserved() == 0);
  const auto stats = torch::cuda::memory_stats();
  CHECK(stats.at("allocated_bytes.all.current") == 0);
  CHECK(stats.at("num_device_alloc") == 0);
  CHECK(ember::cuda::memory_stats().cache_hits == 0);

  at::Tensor t = arange_cpu(8);
  CHECK_FALSE(ember::cuda::is_pinned(t));
  CHECK_FALSE(ember::cuda::is_pinned_ptr(t.data_ptr()));
  CHECK_THROWS_AS(ember::cuda::pin_memory(t), c10::Error);
  CHECK_FALSE(t.is_pinned());                      // the libtorch spellings
  CHECK_THROWS_AS(t.pin_memory(), c10::Error);
  CHECK_THROWS_AS(ember::cuda::empty_pinned({4}), c10::Error);
  CHECK_THROWS_AS(at::cuda::getPinnedMemoryAllocator(), c10::Error);
  at::cuda::CachingHostAllocator_emptyCache();
  CHECK(t.copy_(arange_cpu(8), /*non_blocking=*/true).data_ptr<float>()[1] == -2.5f);  // CPU copies unaffected
}

TEST_CASE("CUDA streams: the pool hands out distinct non-default streams", "[cuda]") {
  if (no_device()) return;
  const c10::cuda::CUDAStream def = c10::cuda::getDefaultCUDAStream();
  CHECK(def.id() == 0);
  CHECK(def.stream() == nullptr);
  CHECK(def.device_index() == c10::cuda::current_device());
  CHECK(def.device() == at::Device(at::kCUDA, c10::cuda::current_device()));

  std::set<cudaStream_t> low, high;
  std::set<c10::cuda::StreamId> ids;
  for (int k = 0; k < c10::cuda::kStreamsPerPool; ++k) {
    c10::cuda::CUDAStream s = c10::cuda::getStreamFromPool();
    c10::cuda::CUDAStream h = c10::cuda::getStreamFromPool(/*isHighPriority=*/true);
    CHECK(s != def);
    CHECK(s.stream() != nullptr);
    low.insert(s.stream());
    high.insert(h.stream());
    ids.insert(s.id());
    ids.insert(h.id());
    CHECK(h.priority() <= s.priority());
  }
  CHECK(low.size() == static_cast<size_t>(c10::cuda::kStreamsPerPool));   // 32 in a row are all different
  CHECK(high.size() == static_cast<size_t>(c10::cuda::kStreamsPerPool));
  CHECK(ids.size() == static_cast<size_t>(2 * c10::cuda::kStreamsPerPool));
  for (cudaStream_t s : low) CHECK(high.count(s) == 0);
  // Round-robin: the next kStreamsPerPool streams are the same set again.
  for (int k = 0; k < c10::cuda::kStreamsPerPool; ++k) CHECK(low.count(c10::cuda::getStreamFromPool().stream()) == 1);

  c10::cuda::CUDAStream s = c10::cuda::getStreamFromPool();
  CHECK(c10::cuda::getStreamFromExternal(s.stream(), s.device_index()) == s);
  s.synchronize();
  CHECK(s.query());
  CHECK_THROWS_AS(c10::cuda::getStreamFromPool(false, static_cast<c10::DeviceIndex>(c10::cuda::device_count())), c10::Error);
}

TEST_CASE("CUDA streams: guards set and restore the current stream and device", "[cuda]") {
  if (no_device()) return;
  const c10::cuda::CUDAStream before = c10::cuda::getCurrentCUDAStream();
  CHECK(before == c10::cuda::getDefaultCUDAStream());  // nothing set on this thread yet
  c10::cuda::CUDAStream a = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream b = c10::cuda::getStreamFromPool(true);
  {
    c10::cuda::CUDAStreamGuard ga(a);
    CHECK(c10::cuda::getCurrentCUDAStream() == a);
    CHECK(ga.original_stream() == before);
    CHECK(ga.current_stream() == a);
    {
      c10::cuda::CUDAStreamGuard gb(b);
      CHECK(c10::cuda::getCurrentCUDAStream() == b);
      CHECK(c10::cuda::getCurrentCUDAStream().id() == b.id());
    }
    CHECK(c10::cuda::getCurrentCUDAStream() == a);
    // Work on a side stream gives the same values as on the default stream.
    at::Tensor x = arange_cpu(1000).to(kGpu);
    at::Tensor y = at::mul(x, 3);
    a.synchronize();
    ember_test::assert_close(y.to(at::kCPU), at::mul(arange_cpu(1000), 3), 0.0);
  }
  CHECK(c10::cuda::getCurrentCUDAStream() == before);
  {
    c10::cuda::OptionalCUDAStreamGuard og;
    og.reset_stream(a);
    CHECK(c10::cuda::getCurrentCUDAStream() == a);
    og.reset();
    CHECK(c10::cuda::getCurrentCUDAStream() == before);
  }
  c10::cuda::setCurrentCUDAStream(b);
  CHECK(c10::cuda::getCurrentCUDAStream() == b);
  c10::cuda::setCurrentCUDAStream(before);
  CHECK(c10::cuda::getCurrentCUDAStream() == before);

  const c10::DeviceIndex dev = c10::cuda::current_device();
  {
    c10::cuda::CUDAGuard g(dev);
    CHECK(g.original_device() == at::Device(at::kCUDA, dev));
    CHECK(c10::cuda::current_device() == dev);
  }
  {
    c10::cuda::OptionalCUDAGuard g{std::optional<c10::DeviceIndex>(dev)};
    CHECK(g.current_device() == std::optional<at::Device>(at::Device(at::kCUDA, dev)));
  }
  CHECK(c10::cuda::current_device() == dev);
  CHECK_THROWS_AS(c10::cuda::CUDAGuard(static_cast<c10::DeviceIndex>(c10::cuda::device_count())), c10::Error);
  CHECK(c10::cuda::current_device() == dev);
}

TEST_CASE("CUDA events: elapsed time, block, query, move-only", "[cuda]") {
  if (no_device()) return;
  static_assert(!std::is_copy_constructible_v<at::cuda::CUDAEvent>);
  static_assert(std::is_nothrow_move_constructible_v<at::cuda::CUDAEvent>);
  c10::cuda::CUDAStream s = c10::cuda::getCurrentCUDAStream();
  at::cuda::CUDAEvent start(cudaEventDefault), stop(cudaEventDefault);
  CHECK_FALSE(start.isCreated());
  CHECK(start.query());
  start.record(s);
  CHECK(start.isCreated());
  keep_busy(s, 4);
  stop.record();
  stop.synchronize();
  CHECK(stop.query());
  const float ms = start.elapsed_time(stop);
  CHECK(ms > 0.0f);

  // Default flags disable timing: elapsed_time raises a [CUDAEvent] error.
  at::cuda::CUDAEvent a, b;
  a.record(s);
  b.record(s);
  b.synchronize();
  CHECK_THROWS_WITH(a.elapsed_time(b), Catch::StartsWith("[CUDAEvent]"));
  at::cuda::CUDAEvent never(cudaEventDefault);
  CHECK_THROWS_WITH(start.elapsed_time(never), Catch::StartsWith("[CUDAEvent]"));

  // Moving transfers the event.
  at::cuda::CUDAEvent moved(std::move(a));
  CHECK(moved.isCreated());
  CHECK_FALSE(a.isCreated());
  at::cuda::CUDAEvent assigned;
  assigned = std::move(moved);
  CHECK(assigned.isCreated());

  // block(): work queued on `consumer` after the block waits for the producer's fill.
  c10::cuda::CUDAStream producer = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream consumer = c10::cuda::getStreamFromPool();
  at::Tensor x = at::empty({1 << 20}, at::device(kGpu));
  x.fill_(0);
  s.synchronize();
  at::cuda::CUDAEvent filled;
  {
    c10::cuda::CUDAStreamGuard g(producer);
    keep_busy(producer, 2);
    x.fill_(7);
    filled.record(producer);
    ember::cuda::record_stream(x, producer);
  }
  filled.block(consumer);
  at::Tensor y;
  {
    c10::cuda::CUDAStreamGuard g(consumer);
    y = at::add(x, 1);
    ember::cuda::record_stream(x, consumer);
  }
  consumer.synchronize();
  ember_test::assert_close(y.to(at::kCPU), at::empty({1 << 20}, at::kFloat).fill_(8), 0.0);
}

TEST_CASE("CUDA caching allocator: a repeated iteration needs no cudaMalloc", "[cuda]") {
  if (no_device()) return;
  c10::cuda::CUDAStreamGuard g(c10::cuda::getStreamFromPool());  // a stream with its own pools
  torch::cuda::empty_cache();
  const std::vector<int64_t> sizes = {1, 100, 512, 4096, 300000, int64_t{1} << 20, (int64_t{3} << 20) + 5,
                                      int64_t{12} << 20, 700};
  auto iteration = [&] {
    std::vector<at::Tensor> live;
    for (int64_t n : sizes) live.push_back(bytes_on_gpu(n));
    live.clear();
  };
  iteration();  // warm-up
  const auto before = torch::cuda::memory_stats();
  iteration();
  const auto after = torch::cuda::memory_stats();
  CHECK(after.at("num_device_alloc") == before.at("num_device_alloc"));
  CHECK(after.at("cache_hits") == before.at("cache_hits") + static_cast<int64_t>(sizes.size()));
  CHECK(after.at("num_allocs") == before.at("num_allocs") + static_cast<int64_t>(sizes.size()));
  CHECK(after.at("reserved_bytes.all.current") == before.at("reserved_bytes.all.current"));
  CHECK(after.at("allocated_bytes.all.current") == before.at("allocated_bytes.all.current"));
  CHECK(after.at("allocated_bytes.all.peak") >= before.at("allocated_bytes.all.current") + (int64_t{16} << 20));
  CHECK(after.at("active.all.current") == before.at("active.all.current"));

  torch::cuda::reset_peak_memory_stats();
  const auto reset = torch::cuda::memory_stats();
  CHECK(reset.at("allocated_bytes.all.peak") == reset.at("allocated_bytes.all.current"));
  CHECK(reset.at("reserved_bytes.all.peak") == reset.at("reserved_bytes.all.current"));

  // Freed segments go back to the driver with empty_cache (each one cudaFree).
  torch::cuda::empty_cache();
  const auto emptied = torch::cuda::memory_stats();
  CHECK(emptied.at("reserved_bytes.all.current") < reset.at("reserved_bytes.all.current"));
  CHECK(emptied.at("num_device_free") > reset.at("num_device_free"));
}

TEST_CASE("CUDA caching allocator: segments are split and freed neighbours merged", "[cuda]") {
  if (no_device()) return;
  c10::cuda::CUDAStreamGuard g(c10::cuda::getStreamFromPool());
  torch::cuda::empty_cache();
  const int64_t kib = 1024, mib = 1024 * 1024;

  SECTION("small pool: 2 MiB segments") {
    const auto s0 = torch::cuda::memory_stats();
    std::vector<at::Tensor> q;
    for (int k = 0; k < 4; ++k) q.push_back(bytes_on_gpu(256 * kib));  // one 2 MiB segment, cut in order
    auto s1 = torch::cuda::memory_stats();
    CHECK(s1.at("num_device_alloc") == s0.at("num_device_alloc") + 1);
    CHECK(s1.at("reserved_bytes.all.current") == s0.at("reserved_bytes.all.current") + 2 * mib);
    for (int k = 0; k < 3; ++k) CHECK(addr(q[k + 1]) == addr(q[k]) + 256 * kib);
    const uintptr_t base1 = addr(q[1]);
    q[1] = at::Tensor();
    q[2] = at::Tensor();  // merged into one free 512 KiB block between q[0] and q[3]
    at::Tensor m = bytes_on_gpu(512 * kib);  // best fit: the merged block, not the 1 MiB tail
    CHECK(addr(m) == base1);
    CHECK(torch::cuda::memory_stats().at("num_device_alloc") == s1.at("num_device_alloc"));

    // 4 x 1 MiB: two per 2 MiB segment.
    std::vector<at::Tensor> ones;
    for (int k = 0; k < 4; ++k) ones.push_back(bytes_on_gpu(mib));
    // The free 1 MiB tail of the first segment takes the first one.
    CHECK(torch::cuda::memory_stats().at("num_device_alloc") == s1.at("num_device_alloc") + 2);
    m = at::Tensor();
    q.clear();
    ones.clear();
    torch::cuda::empty_cache();  // every segment is whole again, so all go back
    CHECK(torch::cuda::memory_stats().at("reserved_bytes.all.current") == s0.at("reserved_bytes.all.current"));
  }

  SECTION("large pool: 20 MiB segments for requests under 10 MiB, exact 2 MiB multiples above") {
    const auto s0 = torch::cuda::memory_stats();
    std::vector<at::Tensor> q;
    for (int k = 0; k < 3; ++k) q.push_back(bytes_on_gpu(2 * mib));
    auto s1 = torch::cuda::memory_stats();
    CHECK(s1.at("num_device_alloc") == s0.at("num_device_alloc") + 1);
    CHECK(s1.at("reserved_bytes.all.current") == s0.at("reserved_bytes.all.current") + 20 * mib);
    CHECK(addr(q[1]) == addr(q[0]) + 2 * mib);
    CHECK(addr(q[2]) == addr(q[1]) + 2 * mib);
    at::Tensor huge = bytes_on_gpu(11 * mib);  // 14 MiB are left in the segment: split, no cudaMalloc
    CHECK(torch::cuda::memory_stats().at("num_device_alloc") == s1.at("num_device_alloc"));
    CHECK(addr(huge) == addr(q[2]) + 2 * mib);
    at::Tensor huger = bytes_on_gpu(15 * mib + 1);  // its own segment of 16 MiB
    CHECK(torch::cuda::memory_stats().at("reserved_bytes.all.current") == s1.at("reserved_bytes.all.current") + 16 * mib);
    q.clear();
    huge = at::Tensor();
    huger = at::Tensor();
    torch::cuda::empty_cache();
    CHECK(torch::cuda::memory_stats().at("reserved_bytes.all.current") == s0.at("reserved_bytes.all.current"));
  }
}

TEST_CASE("CUDA caching allocator: record_stream delays reuse until the other stream is done", "[cuda]") {
  if (no_device()) return;
  c10::cuda::CUDAStream mine = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(true);
  c10::cuda::CUDAStreamGuard g(mine);
  torch::cuda::empty_cache();
  const int64_t mib = 1024 * 1024;

  // Without record_stream the freed block is reused at once on its own stream.
  uintptr_t first = 0;
  {
    at::Tensor x = bytes_on_gpu(mib);
    first = addr(x);
  }
  CHECK(addr(bytes_on_gpu(mib)) == first);

  at::Tensor x = at::empty({mib / 4}, at::device(kGpu));  // 1 MiB of float, allocated on `mine`
  CHECK(addr(x) == first);
  mine.synchronize();
  {
    c10::cuda::CUDAStreamGuard gs(side);
    keep_busy(side, 20);  // about 10 ms of work ahead of the use of x
    x.fill_(5);
  }
  x.record_stream(side);  // the libtorch spelling of ember::cuda::record_stream(x, side)
  x = at::Tensor();  // freed while `side` may still write it
  const bool side_busy = !side.query();
  at::Tensor z = bytes_on_gpu(mib);
  if (side_busy) {
    CHECK(addr(z) != first);  // the block waits for side's event
  } else {
    WARN("the side stream finished before the check; the reuse order was not observable");
  }
  side.synchronize();
  z = at::Tensor();
  CHECK(addr(bytes_on_gpu(mib)) == first);  // after side's work, the block is back in the pool

  // record_stream with the block's own stream, or on a CPU tensor, is harmless / a clean error.
  at::Tensor w = bytes_on_gpu(100);
  ember::cuda::record_stream(w, mine);
  CHECK_THROWS_AS(ember::cuda::record_stream(arange_cpu(3), side), c10::Error);
  c10::cuda::CUDACachingAllocator::recordStream(c10::DataPtr(), side);  // null: ignored
}

TEST_CASE("CUDA caching allocator: out of memory raises c10::OutOfMemoryError and recovers", "[cuda]") {
  if (no_device()) return;
  const auto s0 = torch::cuda::memory_stats();
  const int64_t ten_tb = int64_t{10} * 1000 * 1000 * 1000 * 1000;
  CHECK_THROWS_AS(bytes_on_gpu(ten_tb), c10::OutOfMemoryError);
  try {
    bytes_on_gpu(ten_tb);
    FAIL("expected an out-of-memory error");
  } catch (const c10::OutOfMemoryError& e) {
    const std::string msg = e.what();
    CHECK(msg.rfind("[cuda] out of memory:", 0) == 0);
    CHECK(msg.find("out of memory") != std::string::npos);
    CHECK(msg.find("total") != std::string::npos);
    CHECK(msg.find("free") != std::string::npos);
    CHECK(msg.find("allocated") != std::string::npos);
    CHECK(msg.find("reserved") != std::string::npos);
  }
  const auto s1 = torch::cuda::memory_stats();
  CHECK(s1.at("num_ooms") == s0.at("num_ooms") + 2);
  CHECK(s1.at("num_alloc_retries") >= s0.at("num_alloc_retries") + 2);
  // The process goes on: allocation and kernels still work.
  at::Tensor t = at::empty({1000}, at::device(kGpu)).fill_(2);
  ember_test::assert_close(t.to(at::kCPU), at::empty({1000}, at::kFloat).fill_(2), 0.0);
}

TEST_CASE("CUDA pinned memory and non-blocking copies", "[cuda]") {
  if (no_device()) return;
  const int64_t n = (int64_t{1} << 20) + 3;
  at::Tensor pageable = arange_cpu(n);
  CHECK_FALSE(ember::cuda::is_pinned(pageable));
  at::Tensor pinned = ember::cuda::pin_memory(pageable);
  CHECK(ember::cuda::is_pinned(pinned));
  CHECK(ember::cuda::is_pinned_ptr(pinned.data_ptr()));
  CHECK(ember::cuda::is_pinned(pinned.slice(0, 5, 10)));  // a view of pinned storage
  CHECK(ember::cuda::pin_memory(pinned).is_same(pinned));
  CHECK(pageable.pin_memory().is_pinned());  // the libtorch spellings
  CHECK_FALSE(pageable.is_pinned());
  CHECK_THROWS_AS(pageable.pin_memory(at::Device(at::kCPU)), c10::Error);
  ember_test::assert_close(pinned, pageable, 0.0);
  CHECK_THROWS_AS(ember::cuda::pin_memory(pageable.to(kGpu)), c10::Error);
  CHECK_FALSE(ember::cuda::is_pinned(pageable.to(kGpu)));

  // A transposed tensor keeps its strides; an expanded one becomes contiguous.
  at::Tensor mat = arange_cpu(12).view({3, 4}).t();
  at::Tensor pmat = ember::cuda::pin_memory(mat);
  CHECK(pmat.strides() == mat.strides());
  ember_test::assert_close(pmat, mat, 0.0);
  at::Tensor pexp = ember::cuda::pin_memory(arange_cpu(4).expand({3, 4}));
  CHECK(pexp.is_contiguous());
  ember_test::assert_close(pexp, arange_cpu(4).expand({3, 4}), 0.0);

  c10::cuda::CUDAStream s = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard g(s);
  // Host -> device from pinned memory, non-blocking; then back into pinned memory, non-blocking.
  at::Tensor d = at::empty({n}, at::device(kGpu));
  d.copy_(pinned, /*non_blocking=*/true);
  at::Tensor back = ember::cuda::empty_pinned({n});
  back.copy_(d, /*non_blocking=*/true);
  s.synchronize();
  ember_test::assert_close(back, pageable, 0.0);

  // Non-blocking from pageable memory: staged, and the source may be overwritten right away.
  at::Tensor src = arange_cpu(n);
  at::Tensor d2 = at::empty({n}, at::device(kGpu));
  d2.copy_(src, /*non_blocking=*/true);
  src.fill_(-1);
  s.synchronize();
  ember_test::assert_close(d2.to(at::kCPU), pageable, 0.0);

  // With a dtype change (staged on the device) and into pageable memory (waits).
  at::Tensor dd = pinned.to(kGpu, at::kDouble, /*non_blocking=*/true);
  at::Tensor host = at::empty({n}, at::kDouble);
  host.copy_(dd, /*non_blocking=*/true);
  ember_test::assert_close(host, pageable.to(at::kDouble), 0.0);

  // A freed pinned block whose copies have finished is reused (other cached blocks dropped first).
  torch::cuda::synchronize();
  at::cuda::CachingHostAllocator_emptyCache();
  at::Tensor p1 = ember::cuda::empty_pinned({4096});
  const uintptr_t a1 = addr(p1);
  at::empty({4096}, at::device(kGpu)).copy_(p1, /*non_blocking=*/true);
  p1 = at::Tensor();  // an event is recorded on s now; reuse waits for it
  s.synchronize();
  at::Tensor p2 = ember::cuda::empty_pinned({4096});
  CHECK(addr(p2) == a1);
  CHECK(at::cuda::getPinnedMemoryAllocator() == at::cuda::getCachingHostAllocator());
  p2 = at::Tensor();
  at::cuda::CachingHostAllocator_emptyCache();
}
