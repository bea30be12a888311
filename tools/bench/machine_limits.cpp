// The machine's own limits, measured in the same run as the benchmarks (tools/bench/run):
//   FMA peak      GFLOP/s of independent fused multiply-adds on registers (2 FLOPs per lane), with
//                 64-byte and 32-byte vectors (the widest the CPU has is the limit; both are printed so
//                 the table shows what the AVX2 build of a kernel could reach)
//   triad         STREAM's a[i] = b[i] + s * c[i] over float64 arrays far larger than any cache,
//                 counted as STREAM does: 24 bytes per element (the write-allocate read is not counted);
//                 on huge pages when THP_MEM_ALLOC_ENABLE=1, as the libraries' tensors then are
//   read          a vectorised sum over a 64 MiB float array (16M floats: the input of the 4096² sum
//                 cases, scanned again and again as they scan theirs), 4 bytes per element: the limit of
//                 a reduction, which reads its input and writes next to nothing. Twice the last-level
//                 cache of this project's hosts, so most of it streams from memory; what a cache keeps
//                 across passes it keeps for the benchmark cases too.
// each at the thread counts given as arguments (default 1 and 2; best of 20 passes). Built with -O3 -march=native and no library.
// Prints one JSON object on stdout.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include <sys/mman.h>

namespace {

using Clock = std::chrono::steady_clock;

typedef float Vec64 __attribute__((vector_size(64)));
typedef float Vec32 __attribute__((vector_size(32)));
template <int Bytes>
struct VecOf;
template <>
struct VecOf<64> {
  using type = Vec64;
};
template <>
struct VecOf<32> {
  using type = Vec32;
};
template <int Bytes>
using Vec = typename VecOf<Bytes>::type;

#if defined(__AVX512F__)
constexpr bool kHave512 = true;
#else
constexpr bool kHave512 = false;  // a 64-byte vector has no register to stay in (the asm below)
#endif

// kAcc independent accumulators hide the FMA latency (4-5 cycles) across two FMA ports. They, mul
// and add must all stay in registers: 16 + 2 fit in AVX-512's 32, but not in AVX2's 16 vector
// registers, where gcc chained three of the sixteen FMAs through one register (a dependency chain:
// the loop ran at ~60% of the core's peak on a Zen 3); 12 + 2 fit there.
constexpr int kAcc = kHave512 ? 16 : 12;
template <int Bytes>
double fma_loop(int64_t iters) {
  if constexpr (Bytes == 64 && !kHave512) {
    return 0 * iters;
  } else {
  Vec<Bytes> acc[kAcc];
  Vec<Bytes> mul, add;
  for (int j = 0; j < kAcc; ++j) acc[j] = Vec<Bytes>{} + 0.001f * static_cast<float>(j);
  mul = Vec<Bytes>{} + 0.9999999f;
  add = Vec<Bytes>{} + 1e-7f;
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kAcc; ++j) acc[j] = acc[j] * mul + add;
    // Keeps the compiler from folding iterations together.
    asm volatile("" : "+v"(mul));
  }
  double s = 0;
  for (int j = 0; j < kAcc; ++j)
    for (int l = 0; l < Bytes / 4; ++l) s += acc[j][l];
  return s;
  }
}

// Runs body(thread index) on `threads` threads at once and returns the wall-clock seconds.
template <typename F>
double timed(int threads, F&& body) {
  auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
  body(0);
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// 0 for 512-bit vectors on a CPU without AVX-512 (the report takes the larger of the two).
template <int Bytes>
double fma_peak_gflops(int threads) {
  if (Bytes == 64 && !kHave512) return 0;
  // Many short passes (~15 ms each), keeping the best: on a shared machine another process taking the core
  // for a while only lowers some passes.
  const int64_t iters = 5'000'000;
  std::vector<double> sink(threads);
  double best = 0;
  for (int rep = 0; rep < 20; ++rep) {
    double secs = timed(threads, [&](int t) { sink[t] += fma_loop<Bytes>(iters); });
    double flops = 2.0 * (Bytes / 4) * kAcc * static_cast<double>(iters) * threads;
    best = std::max(best, flops / secs / 1e9);
  }
  return best;
}

struct Arrays {
  int64_t n;
  double *a, *b, *c;
};

double triad_gbs(const Arrays& x, int threads) {
  double best = 0;
  for (int rep = 0; rep < 20; ++rep) {
    double secs = timed(threads, [&](int t) {
      const int64_t lo = x.n * t / threads, hi = x.n * (t + 1) / threads;
      const double s = 3.0;
      double* __restrict a = x.a;
      const double* __restrict b = x.b;
      const double* __restrict c = x.c;
      for (int64_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
    });
    best = std::max(best, 24.0 * static_cast<double>(x.n) / secs / 1e9);
  }
  return best;
}

// Sums x[0, n) split over `threads` threads with kReadAcc independent vector accumulators.
constexpr int kReadBytes = kHave512 ? 64 : 32;
constexpr int kReadAcc = 8;
double read_gbs(const float* x, int64_t n, int threads) {
  using V = Vec<kReadBytes>;
  constexpr int64_t lanes = kReadBytes / 4, step = lanes * kReadAcc;
  std::vector<double> sink(threads);
  double best = 0;
  for (int rep = 0; rep < 20; ++rep) {
    double secs = timed(threads, [&](int t) {
      int64_t lo = n * t / threads, hi = n * (t + 1) / threads;
      lo -= lo % step;
      hi = t + 1 == threads ? n : hi - hi % step;
      V acc[kReadAcc] = {};
      int64_t i = lo;
      for (; i + step <= hi; i += step) {
#pragma GCC unroll 8
        for (int j = 0; j < kReadAcc; ++j) acc[j] += *reinterpret_cast<const V*>(x + i + j * lanes);
      }
      double s = 0;
      for (; i < hi; ++i) s += x[i];
      for (int j = 0; j < kReadAcc; ++j)
        for (int l = 0; l < lanes; ++l) s += acc[j][l];
      sink[t] += s;
    });
    best = std::max(best, 4.0 * static_cast<double>(n) / secs / 1e9);
  }
  if (sink[0] == -1) std::printf(" ");  // keeps the sums live
  return best;
}

}  // namespace

// Usage: machine_limits [threads...]   (default: 1 2)
int main(int argc, char** argv) {
  std::vector<int> counts;
  for (int i = 1; i < argc; ++i) counts.push_back(std::max(1, std::atoi(argv[i])));
  if (counts.empty()) counts = {1, 2};
  const int most = *std::max_element(counts.begin(), counts.end());
  // 3 arrays of 256 MiB: far past the last-level cache of any CPU this runs on.
  Arrays x{int64_t{1} << 25, nullptr, nullptr, nullptr};
  // With THP_MEM_ALLOC_ENABLE=1 (both libraries then back large tensors with huge pages) the
  // arrays are too, so that the limit is measured under the cases' page policy.
  const char* thp = std::getenv("THP_MEM_ALLOC_ENABLE");
  const bool huge = thp && std::string(thp) == "1";
  const size_t bytes = static_cast<size_t>(x.n) * sizeof(double), page2m = size_t{2} << 20;
  auto make = [&] {
    void* p = std::aligned_alloc(page2m, bytes);  // bytes is a multiple of 2 MiB
    if (!p) std::abort();
#if defined(MADV_HUGEPAGE)
    if (huge) ::madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return std::unique_ptr<double[], void (*)(double*)>(static_cast<double*>(p), [](double* q) { std::free(q); });
  };
  auto a = make(), b = make(), c = make();
  x.a = a.get();
  x.b = b.get();
  x.c = c.get();
  timed(most, [&](int t) {  // first touch from every thread
    for (int64_t i = x.n * t / most; i < x.n * (t + 1) / most; ++i) x.a[i] = 0, x.b[i] = 1, x.c[i] = 2;
  });
  // The read array: 16M floats in the same kind of memory, first touched by the thread that reads it.
  const int64_t rn = int64_t{1} << 24;
  void* rp = std::aligned_alloc(page2m, static_cast<size_t>(rn) * sizeof(float));
  if (!rp) std::abort();
#if defined(MADV_HUGEPAGE)
  if (huge) ::madvise(rp, static_cast<size_t>(rn) * sizeof(float), MADV_HUGEPAGE);
#endif
  std::unique_ptr<float[], void (*)(float*)> r(static_cast<float*>(rp), [](float* q) { std::free(q); });
  timed(most, [&](int t) {
    for (int64_t i = rn * t / most; i < rn * (t + 1) / most; ++i) r[i] = 1.0f + static_cast<float>(i & 7);
  });
  std::string fma, fma512, fma256, triad, read;
  for (int t : counts) {
    const double f512 = fma_peak_gflops<64>(t), f256 = fma_peak_gflops<32>(t), bw = triad_gbs(x, t);
    const double rd = read_gbs(r.get(), rn, t);
    const char* sep = fma.empty() ? "" : ", ";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s\"%d\": %.2f", sep, t, std::max(f512, f256));
    fma += buf;
    std::snprintf(buf, sizeof buf, "%s\"%d\": %.2f", sep, t, f512);
    fma512 += buf;
    std::snprintf(buf, sizeof buf, "%s\"%d\": %.2f", sep, t, f256);
    fma256 += buf;
    std::snprintf(buf, sizeof buf, "%s\"%d\": %.2f", sep, t, bw);
    triad += buf;
    std::snprintf(buf, sizeof buf, "%s\"%d\": %.2f", sep, t, rd);
    read += buf;
  }
  std::printf(
      "{\"fma_gflops\": {%s}, \"fma_gflops_512bit\": {%s}, \"fma_gflops_256bit\": {%s}, \"triad_gbs\": {%s}, "
      "\"read_gbs\": {%s}, \"check\": %g}\n",
      fma.c_str(), fma512.c_str(), fma256.c_str(), triad.c_str(), read.c_str(), x.a[12345]);
  return 0;
}
