// copy_ and fill_ for CUDA tensors. copy_ handles every direction that involves a CUDA tensor:
// host -> device, device -> host (copy_cpu forwards a CUDA source here via src.to(kCPU), and the
// dispatcher sends a CPU destination with a CUDA source here directly) and device -> device.
// Dtype conversion, broadcasting and strided layouts are done by a kernel on the device; a
// transfer only ever moves a dense block of bytes.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/cuda/Loops.cuh>
#include <ATen/MemoryOverlap.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/PinnedMemoryAllocator.h>
#include <c10/cuda/CUDAStream.h>
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

// Note [Non-blocking copies]
// A transfer with the host waits for the current stream unless non_blocking is set. With
// non_blocking, a copy from or into pinned memory is only queued on the current stream, and the
// pinned block is marked as used by that stream, so that the caching host allocator does not hand
// it out again before the copy has run (Note [Pinned blocks and asynchronous copies]). A
// non-blocking copy from pageable memory is first copied into a pinned staging buffer (then the
// caller may reuse its memory at once); a non-blocking copy into pageable memory waits, as the data
// must have arrived when copy_ returns. Device-to-device copies never wait.

void device_transfer(void* dst, const void* src, size_t n) {
  if (n == 0) return;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, ::ember::cuda::current_stream()));
}

// Tells the caching host allocator that the current stream uses `host`'s block (no-op for other memory).
void record_host_use(const Tensor& host) {
  const c10::DataPtr& dp = host.storage().unsafeGetStorageImpl()->data_ptr_;
  at::cuda::CachingHostAllocator_recordEvent(dp.get(), dp.get_context(), c10::cuda::getCurrentCUDAStream());
}

// Device buffer <- a dense CPU tensor's bytes.
void host_to_device(void* dst, const Tensor& host, bool non_blocking) {
  const size_t n = host.nbytes();
  if (n == 0) return;
  cudaStream_t stream = ::ember::cuda::current_stream();
  if (!non_blocking) {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, host._mutable_data_ptr_internal(), n, cudaMemcpyHostToDevice, stream));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  Tensor source = host;
  if (!::ember::cuda::is_pinned(host)) {
    source = ::ember::cuda::empty_pinned({static_cast<int64_t>(n)}, at::kByte);
    std::memcpy(source._mutable_data_ptr_internal(), host._mutable_data_ptr_internal(), n);
  }
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, source._mutable_data_ptr_internal(), n, cudaMemcpyHostToDevice, stream));
  record_host_use(source);
}

// A dense CPU tensor's bytes <- device buffer.
void device_to_host(const Tensor& host, const void* src, bool non_blocking) {
  const size_t n = host.nbytes();
  if (n == 0) return;
  cudaStream_t stream = ::ember::cuda::current_stream();
  EMBER_CUDA_CHECK(cudaMemcpyAsync(host._mutable_data_ptr_internal(), src, n, cudaMemcpyDeviceToHost, stream));
  if (non_blocking && ::ember::cuda::is_pinned(host)) {
    record_host_use(host);
    return;
  }
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
}

Tensor& copy_host_to_device(Tensor& self, const Tensor& src, bool non_blocking) {
  ::ember::cuda::DeviceGuard guard(self.device().index());
  if (dense_same(self, src)) {
    host_to_device(self._mutable_data_ptr_internal(), src, non_blocking);
    return self;
  }
  // Stage the source densely on the device in its own dtype and shape; the kernel converts,
  // broadcasts and scatters into self's layout.
  Tensor host = src.contiguous();
  Tensor staged = at::empty(host.sizes(), TensorOptions().dtype(host.scalar_type()).device(self.device()));
  host_to_device(staged._mutable_data_ptr_internal(), host, non_blocking);
  device_copy(self, staged);
  return self;
}

Tensor& copy_device_to_host(Tensor& self, const Tensor& src, bool non_blocking) {
  ::ember::cuda::DeviceGuard guard(src.device().index());
  if (dense_same(self, src)) {
    device_to_host(self, src._mutable_data_ptr_internal(), non_blocking);
    return self;
  }
  // Convert and broadcast on the device into a dense tensor of self's dtype and shape, transfer
  // that, then let the CPU copy scatter it into self's layout if self is not dense.
  Tensor staged = at::empty(self.sizes(), TensorOptions().dtype(self.scalar_type()).device(src.device()));
  device_copy(staged, src);
  if (self.is_contiguous()) {
    device_to_host(self, staged._mutable_data_ptr_internal(), non_blocking);
  } else {
    Tensor host = at::empty(self.sizes(), TensorOptions().dtype(self.scalar_type()));
    device_to_host(host, staged._mutable_data_ptr_internal(), /*non_blocking=*/false);
    self.copy_(host);
  }
  return self;
}

Tensor& copy_device_to_device(Tensor& self, const Tensor& src) {
  Tensor source = src;
  if (src.device() != self.device()) {
    // Another GPU: bring a dense copy over (peer copy), then convert locally. Each temporary is
    // made with its device current (allocations go to the current device). The peer copy runs on
    // self's current stream, which is not ordered with src's: it first waits for the work queued
    // on src's current stream (which wrote `dense`), and src's stream then waits for the copy, so
    // that `dense` (freed into src's stream pool) and src are not overwritten before it is read.
    const int src_dev = src.device().index(), dst_dev = self.device().index();
    Tensor dense;
    {
      ::ember::cuda::DeviceGuard guard(src_dev);
      dense = src.contiguous();
    }
    ::ember::cuda::DeviceGuard guard(dst_dev);
    Tensor here = at::empty(dense.sizes(), TensorOptions().dtype(dense.scalar_type()).device(self.device()));
    if (dense.nbytes() > 0) {
      const c10::cuda::CUDAStream src_stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(src_dev));
      const c10::cuda::CUDAStream dst_stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(dst_dev));
      at::cuda::CUDAEvent src_ready;
      src_ready.record(src_stream);
      src_ready.block(dst_stream);
      EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(here._mutable_data_ptr_internal(), dst_dev, dense._mutable_data_ptr_internal(), src_dev, dense.nbytes(),
                                           dst_stream.stream()));
      at::cuda::CUDAEvent copied;
      copied.record(dst_stream);
      copied.block(src_stream);
    }
    source = here;
  } else if (at::mem_overlap(self, src) != at::MemOverlap::None) {
    // A source whose overlap with the destination is unknown (neither is dense) is copied out first.
    source = src.clone();
  }
  ::ember::cuda::DeviceGuard guard(self.device().index());
  if (dense_same(self, source)) {
    if (self._mutable_data_ptr_internal() != source._mutable_data_ptr_internal())
      device_transfer(self._mutable_data_ptr_internal(), source._mutable_data_ptr_internal(), self.nbytes());
    return self;
  }
  device_copy(self, source);
  return self;
}

}  // namespace

Tensor& copy_cuda(Tensor& self, const Tensor& src, bool non_blocking) {
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
  else if (self.is_cuda()) copy_host_to_device(self, src, non_blocking);
  else copy_device_to_host(self, src, non_blocking);
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
      EMBER_CUDA_CHECK(cudaMemsetAsync(self._mutable_data_ptr_internal(), 0, self.nbytes(), ::ember::cuda::current_stream()));
      return;
    }
    ember::TensorIter it;
    it.build_raw({&self});
    ::ember::cuda::gpu_pointwise<scalar_t, scalar_t>(it, FillFn<scalar_t>{v});
  });
  return self;
}

}  // namespace at::native
