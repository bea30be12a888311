// copy_ and fill_ for CUDA tensors. copy_ handles every direction that involves a CUDA tensor:
// host -> device, device -> host (copy_cpu forwards a CUDA source here via src.to(kCPU), and the
// dispatcher sends a CPU destination with a CUDA source here directly) and device -> device.
// Dtype conversion, broadcasting and strided layouts are done by a kernel on the device; a
// transfer only ever moves a dense block of bytes.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/cuda/Loops.cuh>
#include <ATen/MemoryOverlap.h>
#include <cstring>

namespace at::native {
namespace {

// Converts through opmath on load (Half/BFloat16 -> float) and static_cast on store; a bool
// destination gets (value != 0) from the cast, like the CPU copy.
struct CastFn {
  template <typename V>
  EMBER_HOST_DEVICE V operator()(V v) const { return v; }
};

template <typename T>
struct FillFn {
  T value;
  EMBER_HOST_DEVICE T operator()() const { return value; }
};

bool dense_same(const Tensor& a, const Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() && a.is_contiguous() && b.is_contiguous();
}

// dst <- src on one device, any dtypes/layouts, src broadcasting to dst.
void device_copy(const Tensor& dst, const Tensor& src) {
  ember::TensorIter it;
  it.build_copy(dst, src);
  EMBER_DISPATCH_ALL(dst.scalar_type(), "copy_", [&] {
    using dst_t = scalar_t;
    EMBER_DISPATCH_ALL(src.scalar_type(), "copy_", [&] {
      ::ember::cuda::gpu_pointwise<scalar_t, dst_t>(it, CastFn{});
    });
  });
}

// Moves n bytes between dense buffers on the current stream. A transfer with the host waits for
// completion: host buffers are pageable (empty rejects pin_memory), and the caller may free or
// reuse them as soon as copy_ returns, so non_blocking cannot be honoured yet.
void transfer(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  if (n == 0) return;
  cudaStream_t stream = ::ember::cuda::current_stream();
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, kind, stream));
  if (kind != cudaMemcpyDeviceToDevice) EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
}

Tensor& copy_host_to_device(Tensor& self, const Tensor& src) {
  ::ember::cuda::DeviceGuard guard(self.device().index());
  if (dense_same(self, src)) {
    transfer(self.data_ptr(), src.data_ptr(), self.nbytes(), cudaMemcpyHostToDevice);
    return self;
  }
  // Stage the source densely on the device in its own dtype and shape; the kernel converts,
  // broadcasts and scatters into self's layout.
  Tensor host = src.contiguous();
  Tensor staged = at::empty(host.sizes(), TensorOptions().dtype(host.scalar_type()).device(self.device()));
  transfer(staged.data_ptr(), host.data_ptr(), host.nbytes(), cudaMemcpyHostToDevice);
  device_copy(self, staged);
  return self;
}

Tensor& copy_device_to_host(Tensor& self, const Tensor& src) {
  ::ember::cuda::DeviceGuard guard(src.device().index());
  if (dense_same(self, src)) {
    transfer(self.data_ptr(), src.data_ptr(), self.nbytes(), cudaMemcpyDeviceToHost);
    return self;
  }
  // Convert and broadcast on the device into a dense tensor of self's dtype and shape, transfer
  // that, then let the CPU copy scatter it into self's layout if self is not dense.
  Tensor staged = at::empty(self.sizes(), TensorOptions().dtype(self.scalar_type()).device(src.device()));
  device_copy(staged, src);
  if (self.is_contiguous()) {
    transfer(self.data_ptr(), staged.data_ptr(), staged.nbytes(), cudaMemcpyDeviceToHost);
  } else {
    Tensor host = at::empty(self.sizes(), TensorOptions().dtype(self.scalar_type()));
    transfer(host.data_ptr(), staged.data_ptr(), staged.nbytes(), cudaMemcpyDeviceToHost);
    self.copy_(host);
  }
  return self;
}

Tensor& copy_device_to_device(Tensor& self, const Tensor& src) {
  Tensor source = src;
  if (src.device() != self.device()) {
    // Another GPU: bring a dense copy over (peer copy), then convert locally.
    Tensor dense = src.contiguous();
    Tensor here = at::empty(dense.sizes(), TensorOptions().dtype(dense.scalar_type()).device(self.device()));
    if (dense.nbytes() > 0) {
      ::ember::cuda::DeviceGuard guard(self.device().index());
      EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(here.data_ptr(), self.device().index(), dense.data_ptr(),
                                           dense.device().index(), dense.nbytes(), ::ember::cuda::current_stream()));
    }
    source = here;
  } else if (at::mem_overlap(self, src) != at::MemOverlap::None) {
    // A source whose overlap with the destination is unknown (neither is dense) is copied out first.
    source = src.clone();
  }
  ::ember::cuda::DeviceGuard guard(self.device().index());
  if (dense_same(self, source)) {
    if (self.data_ptr() != source.data_ptr())
      transfer(self.data_ptr(), source.data_ptr(), self.nbytes(), cudaMemcpyDeviceToDevice);
    return self;
  }
  device_copy(self, source);
  return self;
}

}  // namespace

Tensor& copy_cuda(Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;  // see transfer()
  EMBER_CHECK(src.defined(), "[copy_] source tensor is undefined");
  if (self.is_same(src)) return self;
  EMBER_CHECK(self.is_cuda() || src.is_cuda(), "[copy_] expected a CUDA tensor; got ", self.device(), " and ",
              src.device());
  EMBER_CHECK(src.sizes() == self.sizes() || ember::broadcast_shapes("copy_", self.sizes(), src.sizes()) == self.sizes().vec(),
              "[copy_] source of shape ", src.sizes(), " does not broadcast to destination of shape ", self.sizes());
  at::check_no_internal_overlap(self, "copy_");
  at::check_no_partial_overlap(self, src, "copy_");
  if (self.numel() == 0) return self;
  if (self.is_cuda() && src.is_cuda()) copy_device_to_device(self, src);
  else if (self.is_cuda()) copy_host_to_device(self, src);
  else copy_device_to_host(self, src);
  return self;
}

Tensor& fill_cuda(Tensor& self, const Scalar& value) {
  at::check_no_internal_overlap(self, "fill_");
  EMBER_CHECK(self.is_cuda(), "[fill_] expected a CUDA tensor; got ", self.device());
  if (self.numel() == 0) return self;
  ::ember::cuda::DeviceGuard guard(self.device().index());
  EMBER_DISPATCH_ALL(self.scalar_type(), "fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    // All-zero bits (0, +0.0, false) on a dense tensor: a memset.
    unsigned char bytes[sizeof(scalar_t)];
    std::memcpy(bytes, &v, sizeof(scalar_t));
    bool zero = true;
    for (unsigned char b : bytes) zero = zero && b == 0;
    if (zero && self.is_contiguous()) {
      EMBER_CUDA_CHECK(cudaMemsetAsync(self.data_ptr(), 0, self.nbytes(), ::ember::cuda::current_stream()));
      return;
    }
    ember::TensorIter it;
    it.build_raw({&self});
    ::ember::cuda::gpu_pointwise<scalar_t, scalar_t>(it, FillFn<scalar_t>{v});
  });
  return self;
}

}  // namespace at::native
