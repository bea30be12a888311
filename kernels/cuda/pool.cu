// 2-D max pooling on CUDA: max_pool2d_with_indices and its backward, with the CPU kernel's
// semantics (kernels/cpu/pool.cpp; Note [Max pooling and NaN]): the window's last NaN wins, else
// its first maximum; a window with no tap inside the input gives the lowest value and index -1.
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

namespace at::native {

namespace {

using conv_utils::Pool2dGeometry;

constexpr int kThreads = 256;

// Plain-old-data copy of the geometry for the kernels.
struct Geom {
  int64_t planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw;
};

Geom to_geom(const Pool2dGeometry& g) {
  return {g.planes, g.H, g.W, g.OH, g.OW, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
}

__device__ inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }

template <typename acc_t>
__device__ bool is_nan(acc_t v) {
  if constexpr (std::is_floating_point_v<acc_t>) return v != v;
  else return false;
}

template <typename T, typename acc_t>
__global__ void max_pool_forward_kernel(Geom g, const T* __restrict__ x, T* __restrict__ y, int64_t* __restrict__ ind,
                                        acc_t lowest, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.OW, oh = (i / g.OW) % g.OH, p = i / (g.OW * g.OH);
    const T* xp = x + p * g.H * g.W;
    int64_t h0 = oh * g.sh - g.ph;
    const int64_t h1 = imin(h0 + (g.kh - 1) * g.dh + 1, g.H);
    if (h0 < 0) h0 += ((-h0 + g.dh - 1) / g.dh) * g.dh;
    int64_t w0 = ow * g.sw - g.pw;
    const int64_t w1 = imin(w0 + (g.kw - 1) * g.dw + 1, g.W);
    if (w0 < 0) w0 += ((-w0 + g.dw - 1) / g.dw) * g.dw;
    int64_t best = h0 * g.W + w0;
    acc_t bestv = lowest;
    for (int64_t h = h0; h < h1; h += g.dh) {
      for (int64_t w = w0; w < w1; w += g.dw) {
        const acc_t v = static_cast<acc_t>(xp[h * g.W + w]);
        if (v > bestv || is_nan(v)) {
          bestv = v;
          best = h * g.W + w;
        }
      }
    }
    const bool empty = h0 >= h1 || w0 >= w1;
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
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t w = i % g.W, h = (i / g.W) % g.H, p = i / (g.W * g.H);
    const int64_t me = h * g.W + w;
    const int64_t oh0 = first_window(h, g.kh, g.sh, g.ph, g.dh), oh1 = imin((h + g.ph) / g.sh + 1, g.OH);
    const int64_t ow0 = first_window(w, g.kw, g.sw, g.pw, g.dw), ow1 = imin((w + g.pw) / g.sw + 1, g.OW);
    const int64_t base = p * g.OH * g.OW;
    T acc = static_cast<T>(0);
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        const int64_t o = base + oh * g.OW + ow;
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

std::tuple<Tensor, Tensor> max_pool2d_with_indices_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d_with_indices";
  const Pool2dGeometry g = conv_utils::check_max_pool2d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  EMBER_CHECK(self.is_cuda(), "[", op, "] expected a CUDA tensor; got one on ", self.device());
  ember::cuda::DeviceGuard guard(self.device().index());
  const Tensor x = self.contiguous();
  const auto shape = conv_utils::pooled_shape(self, g);
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
          to_geom(g), x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), ind.data_ptr<int64_t>(), lowest, total);
      EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
    }
  });
  return {y, ind};
}

Tensor max_pool2d_with_indices_backward_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                             const Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const Pool2dGeometry g = conv_utils::check_max_pool2d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  EMBER_CHECK(self.is_cuda() && grad_output.device() == self.device() && indices.device() == self.device(), "[", op,
              "] expected grad_output, self and indices on one CUDA device; got ", grad_output.device(), ", ", self.device(), ", ",
              indices.device());
  conv_utils::check_max_pool2d_backward(op, grad_output, self, indices, g);
  ember::cuda::DeviceGuard guard(self.device().index());
  const Tensor gy = grad_output.contiguous(), ind = indices.contiguous();
  Tensor gx = at::empty(self.sizes(), self.options());
  const int64_t total = gx.numel();
  if (total == 0) return gx;
  cudaStream_t stream = ember::cuda::current_stream();
  AT_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, self.scalar_type(), op, [&] {
    if constexpr (!std::is_same_v<scalar_t, bool>) {
      max_pool_backward_kernel<scalar_t, acc_of<scalar_t>><<<blocks_for(total), kThreads, 0, stream>>>(
          to_geom(g), gy.data_ptr<scalar_t>(), ind.data_ptr<int64_t>(), gx.data_ptr<scalar_t>(), total);
      EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
    }
  });
  return gx;
}

}  // namespace at::native
