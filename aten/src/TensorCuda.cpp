// The Tensor methods that reach the CUDA runtime (cpu()/cuda(), pinned host memory, record_stream). They exist in
// every build: without CUDA the functions they forward to raise a clean "[op] ..." error.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/PinnedMemoryAllocator.h>

namespace at {

Tensor Tensor::cpu() const { return to(c10::Device(c10::kCPU), scalar_type()); }

Tensor Tensor::cuda() const { return to(c10::Device(c10::kCUDA), scalar_type()); }

Tensor Tensor::pin_memory(std::optional<c10::Device> device) const {
  EMBER_CHECK(!device || device->is_cuda(), "[pin_memory] expected a CUDA device to pin for; got ", *device);
  return ember::cuda::pin_memory(*this);
}

bool Tensor::is_pinned(std::optional<c10::Device> device) const {
  EMBER_CHECK(!device || device->is_cuda(), "[is_pinned] expected a CUDA device; got ", *device);
  return ember::cuda::is_pinned(*this);
}

void Tensor::record_stream(const c10::cuda::CUDAStream& stream) const { ember::cuda::record_stream(*this, stream); }

}  // namespace at
