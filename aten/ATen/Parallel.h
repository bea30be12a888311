#pragma once
// Intra-op parallelism policy shared by the iteration engine and hand-written kernels.
#include <cstdint>
#include <omp.h>

namespace at {
/// Elements of work below which an op runs on one thread (OpenMP fork/join costs more than it saves).
constexpr int64_t kGrainSize = 32768;

/// True when `work` elements split into `tasks` pieces are worth an OpenMP region here (never
/// nested: inside a parallel region the caller runs serially).
inline bool parallel_worthwhile(int64_t work, int64_t tasks) {
  return work >= kGrainSize && tasks > 1 && !omp_in_parallel();
}
}  // namespace at
