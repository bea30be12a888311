#pragma once
// Process-wide numeric settings of the CUDA matrix products and convolutions, with libtorch's names:
//
//   at::globalContext().setAllowTF32CuBLAS(true);   // float32 matmuls may use TF32 tensor cores
//   at::globalContext().setAllowTF32CuDNN(false);   // float32 convolutions stay in float32
//
// Read by kernels/cuda/matmul.cu and kernels/cuda/conv.cpp on every call; safe to change from any
// thread.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <atomic>
#include <cstdint>

namespace at {

/// Whether cuBLAS may reduce float16/bfloat16 products in the reduced type (libtorch's enum).
enum class CuBLASReductionOption : uint8_t {
  AllowReducedPrecisionWithSplitK = 0,
  DisallowReducedPrecisionAllowSplitK = 1,
  DisallowReducedPrecisionDisallowSplitK = 2,
};

/// The global settings object; get it with at::globalContext().
class Context {
 public:
  /// TF32 for float32 cuBLAS products (default false, as libtorch).
  bool allowTF32CuBLAS() const { return allow_tf32_cublas_.load(std::memory_order_relaxed); }
  void setAllowTF32CuBLAS(bool b) { allow_tf32_cublas_.store(b, std::memory_order_relaxed); }
  /// Reduced-precision reductions inside float16 products (default: allowed, as libtorch).
  CuBLASReductionOption allowFP16ReductionCuBLAS() const { return fp16_reduction_.load(std::memory_order_relaxed); }
  void setAllowFP16ReductionCuBLAS(bool allow_reduced_precision, bool allow_splitk = true) {
    fp16_reduction_.store(option(allow_reduced_precision, allow_splitk), std::memory_order_relaxed);
  }
  /// Reduced-precision reductions inside bfloat16 products (default: allowed, as libtorch).
  CuBLASReductionOption allowBF16ReductionCuBLAS() const { return bf16_reduction_.load(std::memory_order_relaxed); }
  void setAllowBF16ReductionCuBLAS(bool allow_reduced_precision, bool allow_splitk = true) {
    bf16_reduction_.store(option(allow_reduced_precision, allow_splitk), std::memory_order_relaxed);
  }
  /// TF32 for float32 cuDNN convolutions (default true, as libtorch).
  bool allowTF32CuDNN() const { return allow_tf32_cudnn_.load(std::memory_order_relaxed); }
  void setAllowTF32CuDNN(bool b) { allow_tf32_cudnn_.store(b, std::memory_order_relaxed); }
  /// Only deterministic cuDNN convolution algorithms (default false, as libtorch).
  bool deterministicCuDNN() const { return deterministic_cudnn_.load(std::memory_order_relaxed); }
  void setDeterministicCuDNN(bool b) { deterministic_cudnn_.store(b, std::memory_order_relaxed); }
  /// Time the candidate cuDNN algorithms on first use of a shape instead of taking cuDNN's
  /// heuristic choice (default false, as libtorch).
  bool benchmarkCuDNN() const { return benchmark_cudnn_.load(std::memory_order_relaxed); }
  void setBenchmarkCuDNN(bool b) { benchmark_cudnn_.store(b, std::memory_order_relaxed); }

 private:
  static CuBLASReductionOption option(bool reduced, bool splitk) {
    if (reduced) return CuBLASReductionOption::AllowReducedPrecisionWithSplitK;
    return splitk ? CuBLASReductionOption::DisallowReducedPrecisionAllowSplitK
                  : CuBLASReductionOption::DisallowReducedPrecisionDisallowSplitK;
  }
  std::atomic<bool> allow_tf32_cublas_{false};
  std::atomic<bool> allow_tf32_cudnn_{true};
  std::atomic<bool> deterministic_cudnn_{false};
  std::atomic<bool> benchmark_cudnn_{false};
  std::atomic<CuBLASReductionOption> fp16_reduction_{CuBLASReductionOption::AllowReducedPrecisionWithSplitK};
  std::atomic<CuBLASReductionOption> bf16_reduction_{CuBLASReductionOption::AllowReducedPrecisionWithSplitK};
};

/// The one Context of the process.
Context& globalContext();

}  // namespace at

EMBER_PUBLIC_END
