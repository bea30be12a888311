#pragma once
// Shared pieces of the CUDA random kernels: picking the generator of a call and reserving its
// Philox counters, and one grid-stride kernel that hands each group of four consecutive elements
// its random words.
//
// Note [Philox element mapping]
// Element i of a fill (in the row-major order of the filled tensor) belongs to group g = i / 4.
// With W words per element, group g owns the Philox blocks g*W .. g*W+W-1 of the call's
// (seed, offset) stream, i.e. 4*W words, element i taking words (i % 4)*W .. (i % 4)*W+W-1
// (Box-Muller pairs take two elements' words at once). Nothing depends on the grid, so a seed
// gives the same tensor on every GPU and launch configuration; a call reserves 4*W*ceil(n/4) words.
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <algorithm>
#include <mutex>
#include <optional>

namespace ember::cuda {

/// Reserves `words` Philox words for op `op` filling a tensor on `device`: from `gen` when given
/// (it must be a CUDA generator), else the device's default generator.
inline philox::State reserve_philox(const std::optional<at::Generator>& gen, int device, const char* op,
                                    uint64_t words) {
  at::Generator g = (gen.has_value() && gen->defined()) ? *gen : at::cuda::detail::getDefaultCUDAGenerator(device);
  auto* impl = dynamic_cast<at::CUDAGeneratorImpl*>(g.get());
  EMBER_CHECK(impl != nullptr, "[", op, "] expected a CUDA generator for a tensor on cuda:", device,
              "; got a CPU generator (make one with at::cuda::detail::createCUDAGenerator)");
  std::lock_guard<std::mutex> lock(g.mutex());
  return impl->reserve(words);
}

namespace detail {

constexpr int kRandomThreads = 256;

/// Runs f(first, count, words) for every group of four elements of an n-element fill: `words`
/// holds the group's 4*W words (Note [Philox element mapping]), `count` is 4 except at the end.
template <int W, typename F>
__global__ void philox_groups_kernel(int64_t n, philox::State s, F f) {
  const int64_t groups = (n + 3) / 4;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < groups; g += step) {
    uint32_t w[4 * W];
#pragma unroll
    for (int j = 0; j < W; ++j) {
      const philox::Block b = philox::block(s.seed, s.offset, static_cast<uint64_t>(g) * W + j);
#pragma unroll
      for (int k = 0; k < 4; ++k) w[4 * j + k] = b.x[k];
    }
    const int64_t first = g * 4;
    f(first, static_cast<int>(n - first < 4 ? n - first : 4), w);
  }
}

}  // namespace detail

/// Words an n-element fill with W words per element reserves.
inline uint64_t philox_words(int64_t n, int W) { return static_cast<uint64_t>((n + 3) / 4) * 4 * W; }

/// Launches f over the groups of an n-element fill (see philox_groups_kernel) on the current stream.
template <int W, typename F>
void launch_philox_groups(int64_t n, philox::State s, const F& f, const char* op) {
  if (n == 0) return;
  const int64_t groups = (n + 3) / 4;
  const int64_t blocks = (groups + detail::kRandomThreads - 1) / detail::kRandomThreads;
  const int64_t cap = static_cast<int64_t>(sm_count()) * 8;
  const unsigned grid = static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
  detail::philox_groups_kernel<W><<<grid, detail::kRandomThreads, 0, current_stream()>>>(n, s, f);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
}

/// A uniform double in [0, 1) from the top 53 bits of two words.
EMBER_HOST_DEVICE inline double uniform53(uint32_t hi, uint32_t lo) {
  const uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<double>(v >> 11) * 0x1.0p-53;
}

}  // namespace ember::cuda
