#pragma once
// Shared by the CUDA tests: the device they run on, and the clean skip on a machine without one.
#include <ATen/ATen.h>
#include <catch2/catch.hpp>
#include <torch/cuda.h>

/// True (with a warning in the report) when no CUDA device is present: the test returns early.
inline bool no_device() {
  if (torch::cuda::is_available()) return false;
  WARN("no CUDA device: skipped");
  return true;
}

inline const at::Device kGpu(at::kCUDA, 0);
