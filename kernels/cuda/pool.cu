// 2-D and 3-D max pooling on CUDA: max_pool2d_with_indices, max_pool3d_with_indices and their
// backwards, with the CPU kernel's semantics (kernels/cpu/pool.cpp; Note [Max pooling and NaN]): the
// window's last NaN wins, else its first maximum; a window with no tap inside the input gives the
// lowest value and index -1. As on the CPU, one geometry with three spatial slots (depth, height,
// width; 2-D pooling has depth 1) serves both, and indices are flat positions (t * H + h) * W + w in
// the input plane.
//
// The forward runs one thread per output element. The backward gathers rather than scatters: one
// thread per input element visits, in row-major order, the output windows that can contain it and
// adds the gradient of each whose index names it. That order is the order in which the CPU
// kernel adds them, so results match it bit for bit and do not depend on scheduling (no atomics).
// Indices other than those the forward produced (pointing outside their window) are not seen by
// the gather; libtorch's CUDA kernel behaves the same way.
#include <ATen/native/ConvUtils.h>
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

namespace at::native {

namespace {

using conv_utils::MaxPoolGeometry;
using conv_utils::Pool2dGeometry;

constexpr int kThreads = 256;

// Plain-old-data copy of the geometry for the kernels (slot 0 depth, 1 height, 2 width).
struct Geom {
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
};

Geom to_geom(const MaxPoolGeometry& g) {
  Geom r{};
  for (int i = 0; i < 3; ++i) {
    r.in[i] = g.in[i], r.out[i] = g.out[i], r.k[i] = g.k[i], r.s[i] = g.s[i], r.p[i] = g.p[i], r.d[i] = g.d[i];
  }
  return r;
}

__device__ inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }

template <typename acc_t>
__device__ bool is_nan(acc_t v) {
  if constexpr (std::is_floating_point_v<acc_t>) return v != v;
  else return false;
}

// The taps of output position o's window along slot i: from lo (the first tap inside the input)
// while < hi, stepping by the dilation; empty when lo >= hi.
__device__ inline void window_taps(const Geom& g, int i, int64_t o, int64_t& lo, int64_t& hi) {
  lo = o * g.s[i] - g.p[i];
  hi = imin(lo + (g.k[i] - 1) * g.d[i] + 1, g.in[i]);
  if (lo < 0) lo += ((-lo + g.d[i] - 1) / g.d[i]) * g.d[i];
}

template <typename T, typename acc_t>
__global__ void max_pool_forward_kernel(Geom g, const T* __restrict__ x, T* __restrict__ y, int64_t* __restrict__ ind,
                                        acc_t lowest, int64_t total) {
  const int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2], H = g.in[1], W = g.in[2];
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t ow = i % OW, oh = (i / OW) % OH, od = (i / (OW * OH)) % OD, p = i / (OW * OH * OD);
    const T* xp = x + p * g.in[0] * H * W;
    int64_t t0, t1, h0, h1, w0, w1;
    window_taps(g, 0, od, t0, t1);
    window_taps(g, 1, oh, h0, h1);
    window_taps(g, 2, ow, w0, w1);
    int64_t best = (t0 * H + h0) * W + w0;
    acc_t bestv = lowest;
    for (int64_t t = t0; t < t1; t += g.d[0])
      for (int64_t h = h0; h < h1; h += g.d[1])
        for (int64_t w = w0; w < w1; w += g.d[2]) {
          const int64_t pos = (t * H + h) * W + w;
          const acc_t v = static_cast<acc_t>(xp[pos]);
          if (v > bestv || is_nan(v)) {
            bestv = v;
            best = pos;
          }
        }
    const bool empty = t0 >= t1 || h0 >= h1 || w0 >= w1;
    y[i] = empty ? static_cast<T>(bestv) : xp[best];
    ind[i] = empty ? -1 : best;
  }
}

// First output index along one dim whose window [o * s - p, o * s - p + (k - 1) * d] reaches `pos`.
__device__ int64_t first_window(int64_t pos, int64_t k, int64_t s, int64_t p, int64_t d) {
  const int64_t lo = pos + p - (k - 1) * d;  // o * s >= lo
  return lo <= 0 ? 0 : (lo + s - 1) / s;
}

template <typename T, typename acc_t>
__global__ void max_pool_backward_kernel(Geom g, const T* __restrict__ gy, const int64_t* __restrict__ ind, T* __restrict__ gx,
                                         int64_t total) {
  const int64_t D = g.in[0], H = g.in[1], W = g.in[2], OD = g.out[0], OH = g.out[1], OW = g.out[2];
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t w = i % W, h = (i / W) % H, t = (i / (W * H)) % D, p = i / (W * H * D);
    const int64_t me = (t * H + h) * W + w;
    const int64_t od0 = first_window(t, g.k[0], g.s[0], g.p[0], g.d[0]), od1 = imin((t + g.p[0]) / g.s[0] + 1, OD);
    const int64_t oh0 = first_window(h, g.k[1], g.s[1], g.p[1], g.d[1]), oh1 = imin((h + g.p[1]) / g.s[1] + 1, OH);
    const int64_t ow0 = first_window(w, g.k[2], g.s[2], g.p[2], g.d[2]), ow1 = imin((w + g.p[2]) / g.s[2] + 1, OW);
    const int64_t base = p * OD * OH * OW;
    T acc = static_cast<T>(0);
    for (int64_t od = od0; od < od1; ++od)
      for (int64_t oh = oh0; oh < oh1; ++oh)
        for (int64_t ow = ow0; ow < ow1; ++ow) {
          const int64_t o = base + (od * OH + oh) * OW + ow;
          // Added in the element type, one term at a time, as the CPU kernel does.
          if (ind[o] == me) acc = static_cast<T>(static_cast<acc_t>(acc) + static_cast<acc_t>(gy[o]));
        }
    gx[i] = acc;
  }
}

unsigned blocks_for(int64_t total) {
  const int64_t want = (total + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(want, 64 * static_cast<int64_t>(ember::cuda::sm_count()))));
}


template <typename T>
using acc_of = std::conditional_t<std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>, float, T>;

}  // namespace

namespace {

std::tuple<Tensor, Tensor> run_max_pool(const char* op, const Tensor& self, const MaxPoolGeometry& g,
                                        const std::vector<int64_t>& shape) {
  EMBER_CHECK(self.is_cuda(), "[", op, "] expected a CUDA tensor; got one on ", self.device());
  ember::cuda::DeviceGuard guard(self.device().index());
  const Tensor x = self.contiguous();
  Tensor y = at::empty(shape, self.options());
  Tensor ind = at::empty(shape, self.options().dtype(kLong));
  const int64_t total = y.numel();
  if (total == 0) return {y, ind};
  cudaStream_t stream = ember::cuda::current_stream();
  AT_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, x.scalar_type(), op, [&] {
    if constexpr (!std::is_same_v<scalar_t, bool>) {
      using acc_t = acc_of<scalar_t>;
      const acc_t lowest = std::numeric_limits<acc_t>::has_infinity ? -std::numeric_limits<acc_t>::infinity()
                                                                    : std::numeric_limits<acc_t>::lowest();
      max_pool_forward_kernel<scalar_t, acc_t><<<blocks_for(total), kThreads, 0, stream>>>(
          to_geom(g), x._mutable_data_ptr_internal<scalar_t>(), y._mutable_data_ptr_internal<scalar_t>(), ind._mutable_data_ptr_internal<int64_t>(), lowest, total);
      EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
    }
  });
  return {y, ind};
}

Tensor run_max_pool_backward(const char* op, const Tensor& grad_output, const Tensor& self, const Tensor& indices,
                             const MaxPoolGeometry& g) {
  EMBER_CHECK(self.is_cuda() && grad_output.device() == self.device() && indices.device() == self.device(), "[", op,
              "] expected grad_output, self and indices on one CUDA device; got ", grad_output.device(), ", ", self.device(), ", ",
              indices.device());
  ember::cuda::DeviceGuard guard(self.device().index());
  const Tensor gy = grad_output.contiguous(), ind = indices.contiguous();
  Tensor gx = at::empty(self.sizes(), self.options());
  const int64_t total = gx.numel();
  if (total == 0) return gx;
  cudaStream_t stream = ember::cuda::current_stream();
  AT_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, self.scalar_type(), op, [&] {
    if constexpr (!std::is_same_v<scalar_t, bool>) {
      max_pool_backward_kernel<scalar_t, acc_of<scalar_t>><<<blocks_for(total), kThreads, 0, stream>>>(
          to_geom(g), gy._mutable_data_ptr_internal<scalar_t>(), ind._mutable_data_ptr_internal<int64_t>(), gx._mutable_data_ptr_internal<scalar_t>(), total);
      EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
    }
  });
  return gx;
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d_with_indices";
  const Pool2dGeometry g = conv_utils::check_max_pool2d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  auto [y, ind] = run_max_pool(op, self, conv_utils::as_max_pool_geometry(g), conv_utils::pooled_shape(self, g));
  // A channels-last input gives channels-last results, as on the CPU (Note [Channels-last pooling]
  // in kernels/cpu/pool.cpp) and in libtorch; the kernel itself runs on NCHW.
  if (self.dim() == 4 && conv_utils::suggests_channels_last(self))
    return {y.contiguous(MemoryFormat::ChannelsLast), ind.contiguous(MemoryFormat::ChannelsLast)};
  return {y, ind};
}

Tensor max_pool2d_with_indices_backward_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                             const Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const Pool2dGeometry g = conv_utils::check_max_pool2d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  conv_utils::check_max_pool2d_backward(op, grad_output, self, indices, g);
  const Tensor gx = run_max_pool_backward(op, grad_output, self, indices, conv_utils::as_max_pool_geometry(g));
  return self.dim() == 4 && conv_utils::suggests_channels_last(self) ? gx.contiguous(MemoryFormat::ChannelsLast) : gx;
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool3d_with_indices";
  const MaxPoolGeometry g = conv_utils::check_max_pool3d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  return run_max_pool(op, self, g, conv_utils::pooled_shape(self, g));
}

Tensor max_pool3d_with_indices_backward_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                             const Tensor& indices) {
  const char* op = "max_pool3d_with_indices_backward";
  const MaxPoolGeometry g = conv_utils::check_max_pool3d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  conv_utils::check_max_pool3d_backward(op, grad_output, self, indices, g);
  return run_max_pool_backward(op, grad_output, self, indices, g);
}

}  // namespace at::native
