// Helpers shared by bench_ops.cpp and bench_nn.cpp: deterministic inputs, result checksums and the
// counters that tools/bench/compare.py reads. Written against the libtorch API only, so the same
// source compiles against Ember and against libtorch.
//
// Note [Benchmark counters]
// Each case sets, once per run and outside the timed loop:
//   c0, s0, c1, s1, ...  checksum of result k (weighted sum in double) and its scale (weighted sum of |x|);
//                        compare.py fails the case when |c_ember - c_libtorch| > tol * s_libtorch for any k
//   tol                  that relative tolerance (float32 rounding, or bfloat16/float16 rounding)
//   target               the target for the ratio Ember / libtorch (0: none)
//   bytes, flops         per iteration: the minimum memory traffic (read each input once, write each output
//                        once) or the floating-point operations; compare.py divides bytes/s by the measured
//                        triad bandwidth or FLOP/s by the measured FMA peak (tools/bench/machine_limits.cpp)
//   read                 1 for a reduction of a 64 MiB input: bytes/s is divided by the measured read
//                        bandwidth of such an array instead (a reduction writes next to nothing)
#pragma once

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bench {

// A float32 tensor of `sizes` whose element i is ((i + 7919 * seed) * A mod m) / (m / 2) - 1, times
// `scale`, with m the smallest power of two >= numel (at least 2^10). Multiplying by an odd A is a
// bijection modulo m, so no two elements are equal (max/argmax and pooling have no ties); every value is
// exact in float32 up to m = 2^24; the sequence looks random enough for timing. Computed in integers in
// this file, so Ember and libtorch get bit-identical inputs (torch::randn differs between the two).
inline torch::Tensor det(std::vector<int64_t> sizes, int64_t seed = 0, double scale = 1.0) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  uint64_t m = 1024;
  while (m < static_cast<uint64_t>(n)) m <<= 1;
  const uint64_t a = 2654435761ull;
  std::vector<float> buf(static_cast<size_t>(n));
  const double half = static_cast<double>(m / 2);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t k = ((static_cast<uint64_t>(i) + 7919ull * static_cast<uint64_t>(seed)) * a) & (m - 1);
    buf[static_cast<size_t>(i)] = static_cast<float>((static_cast<double>(k) / half - 1.0) * scale);
  }
  return torch::from_blob(buf.data(), sizes, torch::kFloat).clone();
}

// An input made once per process under `key` and kept: Google Benchmark calls a case anew for its
// warm-up, each sizing run and the timed run, and making two 16M-element inputs every time took
// longer than the timing itself (exp f32: 1.8 s of wall time per case, 0.35 s of it timed), which
// left no room in the table's 10 minutes to repeat the main job. Read-only: the cases that use it
// never write to it (an in-place op or requires_grad_ would change it for every later call).
template <typename F>
const torch::Tensor& kept(const std::string& key, F&& make) {
  static std::map<std::string, torch::Tensor> cache;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make()).first;
  return it->second;
}

// Checksum of one result: (sum of w_i x_i, sum of w_i |x_i|) in double over the logical (row-major)
// order, with positive weights that depend on the index, so a wrong sign, a permutation or a wrong
// element all move it.
inline std::pair<double, double> checksum(const torch::Tensor& t) {
  torch::NoGradGuard no_grad;
  auto c = t.detach().to(torch::kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  double s = 0, a = 0;
  for (int64_t i = 0, n = c.numel(); i < n; ++i) {
    double w = 1.0 + static_cast<double>((i * 7919) % 13) / 13.0;
    s += w * p[i];
    a += w * std::fabs(p[i]);
  }
  return {s, a};
}

struct Meta {
  double target = 0;  // ratio target from issue #8 (0: none)
  double tol = 1e-5;  // relative tolerance of the checksums
  double bytes = 0;   // per iteration, for the bandwidth fraction
  double flops = 0;   // per iteration, for the FMA-peak fraction
  bool read = false;  // a reduction of a 64 MiB input: its fraction is of the read bandwidth, not the triad
};

// Sets the counters of Note [Benchmark counters]. `results` is called once per process and case (the
// checksums are cached under `key`, unique per case: Google Benchmark calls a case several times while
// it sizes the iteration count, and a checksum of 16M elements is not free).
template <typename F>
void report(benchmark::State& st, const std::string& key, const Meta& m, F&& results) {
  static std::map<std::string, std::vector<std::pair<double, double>>> cache;
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::vector<std::pair<double, double>> sums;
    for (const torch::Tensor& t : results()) sums.push_back(checksum(t));
    it = cache.emplace(key, std::move(sums)).first;
  }
  for (size_t k = 0; k < it->second.size(); ++k) {
    st.counters["c" + std::to_string(k)] = it->second[k].first;
    st.counters["s" + std::to_string(k)] = it->second[k].second;
  }
  st.counters["tol"] = m.tol;
  st.counters["target"] = m.target;
  st.counters["bytes"] = m.bytes;
  st.counters["flops"] = m.flops;
  if (m.read) st.counters["read"] = 1;
}

// Relative tolerance of a checksum for results in `dtype`: a few units of its rounding.
inline double tol_for(torch::ScalarType dtype) {
  if (dtype == torch::kBFloat16) return 1e-2;
  if (dtype == torch::kHalf) return 2e-3;
  return 1e-5;
}

}  // namespace bench
