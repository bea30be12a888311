#pragma once
// torch::cuda queries. In a build without CUDA, or with no device, is_available() is false.
#include <cstdint>

namespace ember::cuda {
int64_t device_count();
bool is_available();
}  // namespace ember::cuda

namespace torch::cuda {
/// Number of visible CUDA devices.
inline int64_t device_count() { return ember::cuda::device_count(); }
/// True when a CUDA device can be used.
inline bool is_available() { return ember::cuda::is_available(); }
}  // namespace torch::cuda
