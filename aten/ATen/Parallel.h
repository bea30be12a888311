#pragma once
// Intra-op parallelism: libtorch's at::parallel_for / at::parallel_reduce and thread-count calls.
//
//   // Scale a float buffer on up to get_num_threads() threads, each given at least one grain:
//   at::parallel_for(0, n, at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
//     for (int64_t i = begin; i < end; ++i) p[i] *= 2;
//   });
//
// The body sees raw pointers only: worker threads do not inherit the caller's grad mode or other
// thread-local state. See Note [Intra-op threads] in aten/src/Parallel.cpp for the policy.
// This header needs no OpenMP flags in the code that includes it.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace at {

/// ceil(x / y) for x >= 0, y > 0.
inline int64_t divup(int64_t x, int64_t y) { return x / y + (x % y != 0); }

/// Sets up this thread's intra-op thread count from the process-wide one (set_num_threads' last
/// value, else OMP_NUM_THREADS or the core count). Called lazily; calling it again is harmless.
void init_num_threads();
/// Sets the intra-op thread count of this thread and of every thread that has not yet run
/// parallel work (libtorch's rule: threads already started keep their own count).
void set_num_threads(int n);
/// Intra-op thread count of this thread.
int get_num_threads();
/// Index of this thread within the parallel region it runs in; 0 outside any region.
int get_thread_num();
/// True on a thread that is running a chunk of at::parallel_for / parallel_reduce (or an OpenMP region).
bool in_parallel_region();
/// Inter-op thread count (Ember runs no inter-op pool; the value is kept for libtorch code that reads it).
size_t get_num_interop_threads();
/// Sets the inter-op thread count; allowed once, before any inter-op work, as in libtorch.
void set_num_interop_threads(int n);

namespace internal {
/// Elements of work below which an op runs on the calling thread (libtorch's value).
constexpr int64_t GRAIN_SIZE = 32768;

using ChunkFn = void (*)(const void* ctx, int64_t chunk);
/// How many chunks a range of n > 0 iterations is split into: 1 inside a parallel region or with
/// one thread, else min(get_num_threads(), ceil(n / grain)) (grain 0: one chunk per thread), then
/// reduced so that every chunk is non-empty.
int64_t num_chunks(int64_t n, int64_t grain);
/// Runs fn(ctx, c) for every c in [0, chunks), spread over at most `chunks` threads; every thread
/// is in a parallel region meanwhile. The first exception thrown is rethrown here.
void run_chunks(int64_t chunks, ChunkFn fn, const void* ctx);
/// Sets the intra-op thread count of this thread only (threads started later are not affected):
/// what the data loader's workers use, so that their count never leaks to other threads.
void set_thread_num_threads(int n);

/// Grain, in tasks, for a parallel_for over `tasks` similar tasks that together touch about `work`
/// elements: one chunk then holds about GRAIN_SIZE elements of work.
inline int64_t grain_for_tasks(int64_t work, int64_t tasks) {
  if (tasks <= 0 || work <= 0) return std::max<int64_t>(tasks, 1);
  return std::max<int64_t>(1, GRAIN_SIZE / std::max<int64_t>(1, work / tasks));
}

template <class F>
void call_chunk(const void* ctx, int64_t c) { (*static_cast<const F*>(ctx))(c); }
}  // namespace internal

/// Calls f(b, e) on consecutive sub-ranges covering [begin, end) exactly once, on up to
/// min(get_num_threads(), ceil((end - begin) / grain_size)) threads. Ranges of at most one grain,
/// and calls made inside a parallel region, run f(begin, end) on the calling thread. An exception
/// thrown by f is rethrown here after every thread has finished.
template <class F>
inline void parallel_for(const int64_t begin, const int64_t end, const int64_t grain_size, const F& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  if (n <= grain_size) {  // the small-op path: no call into the thread runtime at all
    f(begin, end);
    return;
  }
  const int64_t chunks = internal::num_chunks(n, grain_size);
  if (chunks == 1) {
    f(begin, end);
    return;
  }
  const int64_t size = divup(n, chunks);
  const auto chunk = [&](int64_t c) {
    const int64_t b = begin + c * size;
    f(b, std::min(end, b + size));
  };
  internal::run_chunks(chunks, &internal::call_chunk<decltype(chunk)>, &chunk);
}

/// Reduces [begin, end): f(b, e, ident) reduces one chunk, sf(x, y) combines two partial results,
/// in chunk order starting from ident (sf(ident, x) must be x). The chunks are those of
/// parallel_for, so the result depends on get_num_threads() only, never on the load.
template <class scalar_t, class F, class SF>
inline scalar_t parallel_reduce(const int64_t begin, const int64_t end, const int64_t grain_size,
                                const scalar_t ident, const F& f, const SF& sf) {
  if (begin >= end) return ident;
  const int64_t n = end - begin;
  const int64_t chunks = n <= grain_size ? 1 : internal::num_chunks(n, grain_size);
  if (chunks == 1) return f(begin, end, ident);
  const int64_t size = divup(n, chunks);
  struct Slot { scalar_t value; };  // not std::vector<bool>: chunks write their slots concurrently
  std::vector<Slot> partial(static_cast<size_t>(chunks), Slot{ident});
  const auto chunk = [&](int64_t c) {
    const int64_t b = begin + c * size;
    partial[static_cast<size_t>(c)].value = f(b, std::min(end, b + size), ident);
  };
  internal::run_chunks(chunks, &internal::call_chunk<decltype(chunk)>, &chunk);
  scalar_t result = ident;
  for (const Slot& p : partial) result = sf(result, p.value);
  return result;
}

// Ember's earlier spellings, still used by kernels that a pending change moves (TODO #8: remove
// once every region goes through parallel_for).
constexpr int64_t kGrainSize = internal::GRAIN_SIZE;
inline bool parallel_worthwhile(int64_t work, int64_t tasks) {
  return work >= kGrainSize && tasks > 1 && !in_parallel_region();
}

}  // namespace at

EMBER_PUBLIC_END
