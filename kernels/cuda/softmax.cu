// _softmax and _log_softmax on CUDA, with the CPU kernel's arithmetic (kernels/cpu/softmax.cpp):
// the line's maximum ignores NaN (a NaN still turns its line NaN through the sum), exp is taken
// in opmath (float for Half/BFloat16), the sum accumulates in double. Two kernels:
//   - softmax over the last dim: one block per row, shared-memory max and sum;
//   - any other dim: one thread per (outer, inner) line, looping over the softmax dim
//     (neighbouring threads read neighbouring elements).
// half_to_float (float32 result from float16 input) is accepted here, as libtorch's CUDA kernel does.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ReduceUtils.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <algorithm>
#include <limits>

namespace at::native {
namespace {

constexpr int kMaxBlock = 256;

template <typename in_t, typename out_t>
__global__ void softmax_rows_kernel(const in_t* __restrict__ in, out_t* __restrict__ out, int64_t rows, int64_t L, bool log) {
  using op_t = c10::opmath_t<in_t>;
  __shared__ op_t smax[kMaxBlock];
  __shared__ double ssum[kMaxBlock];
  const int tid = threadIdx.x, nt = blockDim.x;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const in_t* x = in + row * L;
    out_t* y = out + row * L;
    op_t mx = -std::numeric_limits<op_t>::infinity();
    for (int64_t i = tid; i < L; i += nt) {
      const op_t v = static_cast<op_t>(x[i]);
      mx = (mx < v) ? v : mx;
    }
    smax[tid] = mx;
    __syncthreads();
    for (int off = nt / 2; off > 0; off >>= 1) {
      if (tid < off) smax[tid] = (smax[tid] < smax[tid + off]) ? smax[tid + off] : smax[tid];
      __syncthreads();
    }
    mx = smax[0];
    double s = 0;
    for (int64_t i = tid; i < L; i += nt) s += static_cast<double>(::exp(static_cast<op_t>(x[i]) - mx));
    ssum[tid] = s;
    __syncthreads();
    for (int off = nt / 2; off > 0; off >>= 1) {
      if (tid < off) ssum[tid] += ssum[tid + off];
      __syncthreads();
    }
    s = ssum[0];
    if (log) {
      const op_t shift = mx + static_cast<op_t>(::log(s));
      for (int64_t i = tid; i < L; i += nt) y[i] = static_cast<out_t>(static_cast<op_t>(x[i]) - shift);
    } else {
      const op_t inv = static_cast<op_t>(1.0 / s);
      for (int64_t i = tid; i < L; i += nt) y[i] = static_cast<out_t>(::exp(static_cast<op_t>(x[i]) - mx) * inv);
    }
    __syncthreads();  // smax/ssum are rewritten for the next row
  }
}

template <typename in_t, typename out_t>
__global__ void softmax_lines_kernel(const in_t* __restrict__ in, out_t* __restrict__ out, int64_t outer, int64_t L,
                                     int64_t inner, bool log) {
  using op_t = c10::opmath_t<in_t>;
  const int64_t lines = outer * inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < lines; t += step) {
    const int64_t o = t / inner, i = t - o * inner;
    const in_t* x = in + o * L * inner + i;
    out_t* y = out + o * L * inner + i;
    op_t mx = -std::numeric_limits<op_t>::infinity();
    for (int64_t k = 0; k < L; ++k) {
      const op_t v = static_cast<op_t>(x[k * inner]);
      mx = (mx < v) ? v : mx;
    }
    double s = 0;
    for (int64_t k = 0; k < L; ++k) s += static_cast<double>(::exp(static_cast<op_t>(x[k * inner]) - mx));
    if (log) {
      const op_t shift = mx + static_cast<op_t>(::log(s));
      for (int64_t k = 0; k < L; ++k) y[k * inner] = static_cast<out_t>(static_cast<op_t>(x[k * inner]) - shift);
    } else {
      const op_t inv = static_cast<op_t>(1.0 / s);
      for (int64_t k = 0; k < L; ++k) y[k * inner] = static_cast<out_t>(::exp(static_cast<op_t>(x[k * inner]) - mx) * inv);
    }
  }
}

Tensor softmax_impl(const char* op, const Tensor& self, int64_t dim, bool half_to_float, bool log) {
  const ScalarType dt = self.scalar_type();
  EMBER_CHECK(isFloatingType(dt), "[", op, "] expected a floating point input; got ", c10::dtypeName(dt),
              " (pass dtype= to compute in a floating dtype)");
  EMBER_CHECK(!half_to_float || dt == kHalf, "[", op, "] expected a float16 input with half_to_float=true; got ",
              c10::dtypeName(dt));
  const int64_t d = maybe_wrap_dim(dim, self.dim(), op);
  const ScalarType out_dt = half_to_float ? kFloat : dt;
  Tensor x = self.contiguous();
  Tensor out = at::empty(x.sizes(), at::TensorOptions().dtype(out_dt).device(self.device()));
  if (x.numel() == 0) return out;
  const reduce::Lines lines = reduce::lines_along(x, d);
  const int64_t outer = lines.outer, L = lines.L, inner = lines.inner;
  ember::cuda::DeviceGuard guard(self.device().index());
  cudaStream_t stream = ember::cuda::current_stream();
  EMBER_DISPATCH_ALL_FLOATING(dt, op, [&] {
    using in_t = scalar_t;
    auto go = [&](auto* o) {
      using out_t = std::remove_pointer_t<decltype(o)>;
      if (inner == 1) {
        int threads = 32;
        while (threads < kMaxBlock && threads < L) threads <<= 1;
        const unsigned grid = static_cast<unsigned>(std::min<int64_t>(outer, 65535));
        softmax_rows_kernel<in_t, out_t><<<grid, threads, 0, stream>>>(x._mutable_data_ptr_internal<in_t>(), o, outer, L, log);
      } else {
        const int64_t lines = outer * inner;
        const int64_t blocks = std::min<int64_t>((lines + kMaxBlock - 1) / kMaxBlock,
                                                 16 * static_cast<int64_t>(ember::cuda::sm_count()));
        softmax_lines_kernel<in_t, out_t><<<static_cast<unsigned>(blocks), kMaxBlock, 0, stream>>>(
            x._mutable_data_ptr_internal<in_t>(), o, outer, L, inner, log);
      }
      EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
    };
    if (out_dt == dt) go(out._mutable_data_ptr_internal<in_t>());
    else go(out._mutable_data_ptr_internal<float>());
  });
  return out;
}

}  // namespace

Tensor softmax_cuda(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_impl("softmax", self, dim, half_to_float, false);
}

Tensor log_softmax_cuda(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_impl("log_softmax", self, dim, half_to_float, true);
}

}  // namespace at::native
