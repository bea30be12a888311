// Intra-op thread policy behind ATen/Parallel.h.
//
// Note [Intra-op threads]
// OpenMP with explicit sizing, no pool of our own:
// - A region of n iterations gets min(get_num_threads(), ceil(n / grain)) chunks; an op below one
//   grain never reaches this file (parallel_for compares n with the grain inline).
// - A region started on a thread that is already running a chunk runs inline, on that thread.
//   A thread_local flag says so; omp_in_parallel() is asked too, for OpenMP regions that are not
//   ours (oneDNN's, or kernels that still use a pragma), but only once a region is worth having.
// - The thread count is per thread, as OpenMP's nthreads ICV is: set_num_threads sets this
//   thread's count and the process-wide default, which threads pick up on their first parallel
//   work (libtorch's rule, checked against libtorch 2.x). The count is mirrored into the ICV so
//   that oneDNN, which sizes its own OpenMP regions from it, agrees with us.
// - Oversubscription: the threads busy in regions are counted process-wide. A region that starts
//   while others run gets at most max(default count, its thread's count) minus the busy ones, and
//   at least its own thread; backward passes run concurrently from several threads then share the
//   cores instead of each bringing a full team. The chunks never depend on that number (a thread
//   runs chunks tid, tid + team, ...), so neither do the results.
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <atomic>
#include <exception>
#include <omp.h>

namespace at {
namespace {

std::atomic<int> g_num_threads{0};  // set_num_threads' last value; 0: never called
std::atomic<int> g_busy{0};         // threads running regions, callers included
constexpr int kInteropNotSet = 0;
std::atomic<int> g_num_interop_threads{kInteropNotSet};

thread_local int t_num_threads = 0;  // 0: this thread has not been set up yet
thread_local bool t_in_region = false;
thread_local int t_thread_num = 0;

// OpenMP's own default (OMP_NUM_THREADS, else the CPUs this process may run on), read once.
int default_num_threads() {
  static const int n = std::max(1, omp_get_max_threads());
  return n;
}

void set_this_thread(int n) {
  t_num_threads = n;
  omp_set_num_threads(n);
}

// Marks this thread as running chunk work of a region for its lifetime.
class RegionScope {
 public:
  explicit RegionScope(int thread_num) : in_region_(t_in_region), thread_num_(t_thread_num) {
    t_in_region = true;
    t_thread_num = thread_num;
  }
  ~RegionScope() {
    t_in_region = in_region_;
    t_thread_num = thread_num_;
  }
  RegionScope(const RegionScope&) = delete;
  RegionScope& operator=(const RegionScope&) = delete;

 private:
  bool in_region_;
  int thread_num_;
};

}  // namespace

void init_num_threads() {
  (void)default_num_threads();  // read before the first omp_set_num_threads can change what it sees
  const int n = g_num_threads.load(std::memory_order_relaxed);
  set_this_thread(n > 0 ? n : default_num_threads());
}

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "[set_num_threads] expected a positive number of threads; got ", n);
  (void)default_num_threads();
  g_num_threads.store(n, std::memory_order_relaxed);
  set_this_thread(n);
}

int get_num_threads() {
  if (t_num_threads == 0) init_num_threads();
  return t_num_threads;
}

int get_thread_num() { return t_thread_num; }

bool in_parallel_region() { return t_in_region || omp_in_parallel(); }

size_t get_num_interop_threads() {
  const int n = g_num_interop_threads.load(std::memory_order_relaxed);
  return static_cast<size_t>(n > 0 ? n : default_num_threads());
}

void set_num_interop_threads(int n) {
  EMBER_CHECK(n > 0, "[set_num_interop_threads] expected a positive number of threads; got ", n);
  int expected = kInteropNotSet;
  EMBER_CHECK(g_num_interop_threads.compare_exchange_strong(expected, n),
              "[set_num_interop_threads] expected a first call (the count is fixed once set, as in libtorch); it was already set to ",
              expected, ", asked for ", n);
}

namespace internal {

void set_thread_num_threads(int n) {
  EMBER_CHECK(n > 0, "[set_num_threads] expected a positive number of threads; got ", n);
  set_this_thread(n);
}

int64_t num_chunks(int64_t n, int64_t grain) {
  EMBER_CHECK(grain >= 0, "[parallel_for] expected grain_size >= 0; got ", grain);
  if (n <= 1 || t_in_region) return 1;
  const int64_t threads = get_num_threads();
  if (threads == 1 || omp_in_parallel()) return 1;
  const int64_t want = grain == 0 ? threads : std::min(threads, divup(n, grain));
  return divup(n, divup(n, want));  // drop chunks that the rounding of the size would leave empty
}

void run_chunks(int64_t chunks, ChunkFn fn, const void* ctx) {
  if (chunks <= 0) return;
  const int want = static_cast<int>(std::min<int64_t>(chunks, get_num_threads()));
  const int limit = std::max(default_num_threads(), get_num_threads());
  int busy = g_busy.load(std::memory_order_relaxed), take = 1;
  do {
    take = std::clamp(limit - busy, 1, std::max(want, 1));
  } while (!g_busy.compare_exchange_weak(busy, busy + take, std::memory_order_relaxed));

  std::atomic<bool> failed{false};
  std::exception_ptr error;
  const auto work = [&](int tid, int team) {
    RegionScope scope(tid);
    for (int64_t c = tid; c < chunks && !failed.load(std::memory_order_relaxed); c += team) {
      try {
        fn(ctx, c);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
  };
  if (take == 1) {
    work(0, 1);
  } else {
#pragma omp parallel num_threads(take)
    work(omp_get_thread_num(), omp_get_num_threads());
  }
  g_busy.fetch_sub(take, std::memory_order_relaxed);
  if (error) std::rethrow_exception(error);
}

}  // namespace internal
}  // namespace at
