// searchsorted on CUDA: one thread per value, each running the binary search of
// ATen/native/SearchUtils.h (Note [searchsorted comparisons]); the host-side checks are the CPU's.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/SearchUtils.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <ATen/native/cuda/Loops.cuh>

namespace at::native {
namespace {

template <typename T, typename C, typename I>
__global__ void search_kernel(const T* seq, const int64_t* order, const T* vals, I* out, int64_t n, int64_t len,
                              int64_t per_line, bool right) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t base = per_line == 0 ? 0 : (i / per_line) * len;
    out[i] = static_cast<I>(search_utils::place<T, C>(seq + base, order ? order + base : nullptr, len,
                                                      static_cast<C>(vals[i]), right));
  }
}

}  // namespace

Tensor searchsorted_cuda(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                         std::optional<c10::string_view> side, const std::optional<Tensor>& sorter) {
  const search_utils::Plan p = search_utils::prepare(sorted_sequence, self, out_int32, right, side, sorter, "searchsorted");
  const int64_t n = p.out.numel();
  if (n == 0) return p.out;
  ::ember::cuda::DeviceGuard guard(p.out.device().index());
  const int64_t* order = p.sorter.defined() ? p.sorter.const_data_ptr<int64_t>() : nullptr;
  const unsigned grid = ::ember::cuda::detail::grid_for(n);
  constexpr int threads = ::ember::cuda::detail::kThreads;
  cudaStream_t stream = ::ember::cuda::current_stream();
  AT_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, p.seq.scalar_type(), "searchsorted", [&] {
    using C = c10::opmath_t<scalar_t>;
    const scalar_t* seq = p.seq.const_data_ptr<scalar_t>();
    const scalar_t* vals = p.vals.const_data_ptr<scalar_t>();
    if (out_int32)
      search_kernel<scalar_t, C, int32_t><<<grid, threads, 0, stream>>>(seq, order, vals, p.out._mutable_data_ptr_internal<int32_t>(), n,
                                                                         p.len, p.per_line, p.right);
    else
      search_kernel<scalar_t, C, int64_t><<<grid, threads, 0, stream>>>(seq, order, vals, p.out._mutable_data_ptr_internal<int64_t>(), n,
                                                                         p.len, p.per_line, p.right);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("searchsorted");
  return p.out;
}

}  // namespace at::native
