// randperm on CUDA: a random 64-bit Philox key per position, then a radix sort of (key, index)
// pairs; the sorted indices are the permutation. Checks and dtypes as kernels/cpu/randperm.cpp.
// (Two equal keys -- about n^2 / 2^65 expected -- keep their index order; the bias is negligible.)
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/cuda/Random.cuh>
#include <cub/device/device_radix_sort.cuh>

namespace at::native {
namespace {

struct PermKeysFn {
  uint64_t* keys;
  int64_t* index;
  __device__ void operator()(int64_t first, int count, const uint32_t* w) const {
    for (int k = 0; k < count; ++k) {
      keys[first + k] = (static_cast<uint64_t>(w[2 * k]) << 32) | w[2 * k + 1];
      index[first + k] = first + k;
    }
  }
};

}  // namespace

Tensor randperm_cuda(int64_t n, std::optional<Generator> generator, TensorOptions options) {
  EMBER_CHECK(n >= 0, "[randperm] expected n >= 0; got ", n);
  ScalarType dt = options.has_dtype() ? options.scalar_type() : kLong;
  EMBER_CHECK(dt == kLong || dt == kInt || c10::isFloatingType(dt), "[randperm] expected an integer or floating dtype; got ",
              c10::dtypeName(dt));
  const TensorOptions longs = TensorOptions().dtype(kLong).device(options.device());
  Tensor out = at::empty({n}, longs);
  const int device = out.device().index();
  ::ember::cuda::DeviceGuard guard(device);
  const ember::philox::State s = ::ember::cuda::reserve_philox(generator, device, "randperm", ::ember::cuda::philox_words(n, 2));
  if (n > 0) {
    Tensor keys = at::empty({2, n}, longs);  // row 0: keys in, row 1: keys sorted (discarded)
    Tensor index = at::empty({n}, longs);
    uint64_t* keys_in = static_cast<uint64_t*>(keys._mutable_data_ptr_internal());
    uint64_t* keys_out = keys_in + n;
    int64_t* index_in = index._mutable_data_ptr_internal<int64_t>();
    ::ember::cuda::launch_philox_groups<2>(n, s, PermKeysFn{keys_in, index_in}, "randperm");
    cudaStream_t stream = ::ember::cuda::current_stream();
    size_t temp_bytes = 0;
    EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, index_in,
                                                     out._mutable_data_ptr_internal<int64_t>(), n, 0, 64, stream));
    Tensor temp = at::empty({static_cast<int64_t>(std::max<size_t>(temp_bytes, 1))}, TensorOptions().dtype(kByte).device(out.device()));
    EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp._mutable_data_ptr_internal(), temp_bytes, keys_in, keys_out, index_in,
                                                     out._mutable_data_ptr_internal<int64_t>(), n, 0, 64, stream));
  }
  if (dt != kLong) out = out.to(dt);
  return out;
}

}  // namespace at::native
