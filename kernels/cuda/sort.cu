// sort and topk on CUDA. The sort dim is moved last and made contiguous; every row is then a
// segment of a stable segmented radix sort (CUB) of (key, position-in-row) pairs, and the values
// are gathered from the input by the sorted positions, so -0.0 and NaN payloads come out as they
// went in. The order is kernels/cpu/sort.cpp's: NaN above everything, -0.0 equal to 0.0, equal
// values in their original order -- for descending too (see Note [Sort keys]). topk is a sort in
// the requested direction and the first k of each row, which breaks ties as the CPU does.
//
// Note [Sort keys]
// Each element becomes an unsigned integer of its width whose unsigned order is the CPU
// comparator's order: integers flip the sign bit; floats map NaN (any payload) to the largest
// key, +-0 to the key of +0, and otherwise set the sign bit of positives and invert negatives.
// Descending sorts invert the key, so that one stable ascending sort gives descending order
// with ties still in index order.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/SortUtils.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <ATen/Utils.h>
#include <cub/device/device_segmented_sort.cuh>
#include <algorithm>
#include <limits>
#include <type_traits>

namespace at::native {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  const int64_t cap = static_cast<int64_t>(::ember::cuda::sm_count()) * 16;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
}

// The unsigned key type of each dtype and its encoding (Note [Sort keys]).
template <typename T> struct SortKey;

template <typename U>
EMBER_HOST_DEVICE inline U float_key(U bits) {
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  return (bits & sign) ? U(~bits) : U(bits | sign);
}

template <typename U>
EMBER_HOST_DEVICE inline U float_key_checked(U bits, U inf_bits) {
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  const U mag = bits & U(~sign);
  if (mag > inf_bits) return std::numeric_limits<U>::max();  // NaN
  if (mag == 0) return sign;                                  // +0 and -0
  return float_key<U>(bits);
}

template <> struct SortKey<bool> {
  using U = uint8_t;
  static EMBER_HOST_DEVICE U encode(bool v) { return v ? 1 : 0; }
};
template <> struct SortKey<uint8_t> {
  using U = uint8_t;
  static EMBER_HOST_DEVICE U encode(uint8_t v) { return v; }
};
template <> struct SortKey<int8_t> {
  using U = uint8_t;
  static EMBER_HOST_DEVICE U encode(int8_t v) { return static_cast<U>(static_cast<U>(v) ^ 0x80u); }
};
template <> struct SortKey<int16_t> {
  using U = uint16_t;
  static EMBER_HOST_DEVICE U encode(int16_t v) { return static_cast<U>(static_cast<U>(v) ^ 0x8000u); }
};
template <> struct SortKey<int32_t> {
  using U = uint32_t;
  static EMBER_HOST_DEVICE U encode(int32_t v) { return static_cast<U>(v) ^ 0x80000000u; }
};
template <> struct SortKey<int64_t> {
  using U = uint64_t;
  static EMBER_HOST_DEVICE U encode(int64_t v) { return static_cast<U>(v) ^ 0x8000000000000000ull; }
};
template <> struct SortKey<c10::Half> {
  using U = uint16_t;
  static EMBER_HOST_DEVICE U encode(c10::Half v) { return float_key_checked<U>(v.x, 0x7C00u); }
};
template <> struct SortKey<c10::BFloat16> {
  using U = uint16_t;
  static EMBER_HOST_DEVICE U encode(c10::BFloat16 v) { return float_key_checked<U>(v.x, 0x7F80u); }
};
template <> struct SortKey<float> {
  using U = uint32_t;
  static EMBER_HOST_DEVICE U encode(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof(b));
    return float_key_checked<U>(b, 0x7F800000u);
  }
};
template <> struct SortKey<double> {
  using U = uint64_t;
  static EMBER_HOST_DEVICE U encode(double v) {
    uint64_t b;
    memcpy(&b, &v, sizeof(b));
    return float_key_checked<U>(b, 0x7FF0000000000000ull);
  }
};

// keys[i] = key of in[i] (inverted when descending), pos[i] = i's position in its row.
template <typename T, typename I>
__global__ void make_keys_kernel(const T* in, typename SortKey<T>::U* keys, I* pos, int64_t n, int64_t L, bool descending) {
  using U = typename SortKey<T>::U;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const U k = SortKey<T>::encode(in[i]);
    keys[i] = descending ? U(~k) : k;
    pos[i] = static_cast<I>(i % L);
  }
}

__global__ void row_offsets_kernel(int64_t* off, int64_t rows, int64_t L) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r <= rows; r += step) off[r] = r * L;
}

// values[i] = in[row(i), pos[i]], indices[i] = pos[i].
template <typename T, typename I>
__global__ void gather_kernel(const T* in, const I* pos, T* values, int64_t* indices, int64_t n, int64_t L) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t j = static_cast<int64_t>(pos[i]);
    values[i] = in[i - i % L + j];
    indices[i] = j;
  }
}

// Sorts every row of the contiguous (n / L) x L buffer `in` into the contiguous `values` /
// `indices` buffers of the same shape.
template <typename T, typename I>
void sort_rows(const Tensor& in, int64_t L, bool descending, Tensor& values, Tensor& indices) {
  using U = typename SortKey<T>::U;
  const int64_t n = in.numel();
  const int64_t rows = n / L;
  const TensorOptions bytes = TensorOptions().dtype(kByte).device(in.device());
  cudaStream_t stream = ::ember::cuda::current_stream();
  // One scratch allocation: keys in/out, positions in/out, row offsets.
  auto round_up = [](int64_t b) { return (b + 255) / 256 * 256; };
  const int64_t key_bytes = round_up(n * static_cast<int64_t>(sizeof(U)));
  const int64_t pos_bytes = round_up(n * static_cast<int64_t>(sizeof(I)));
  const int64_t off_bytes = round_up((rows + 1) * static_cast<int64_t>(sizeof(int64_t)));
  Tensor scratch = at::empty({2 * key_bytes + 2 * pos_bytes + off_bytes}, bytes);
  char* base = static_cast<char*>(scratch._mutable_data_ptr_internal());
  U* keys_in = reinterpret_cast<U*>(base);
  U* keys_out = reinterpret_cast<U*>(base + key_bytes);
  I* pos_in = reinterpret_cast<I*>(base + 2 * key_bytes);
  I* pos_out = reinterpret_cast<I*>(base + 2 * key_bytes + pos_bytes);
  int64_t* off = reinterpret_cast<int64_t*>(base + 2 * key_bytes + 2 * pos_bytes);

  make_keys_kernel<T, I><<<grid_for(n), kThreads, 0, stream>>>(static_cast<const T*>(in.const_data_ptr()), keys_in, pos_in, n, L,
                                                               descending);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("sort");
  row_offsets_kernel<<<grid_for(rows + 1), kThreads, 0, stream>>>(off, rows, L);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("sort");

  size_t temp_bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(nullptr, temp_bytes, keys_in, keys_out, pos_in, pos_out, n,
                                                             rows, off, off + 1, stream));
  Tensor temp = at::empty({static_cast<int64_t>(std::max<size_t>(temp_bytes, 1))}, bytes);
  EMBER_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(temp._mutable_data_ptr_internal(), temp_bytes, keys_in, keys_out, pos_in, pos_out,
                                                             n, rows, off, off + 1, stream));

  gather_kernel<T, I><<<grid_for(n), kThreads, 0, stream>>>(static_cast<const T*>(in.const_data_ptr()), pos_out,
                                                            static_cast<T*>(values._mutable_data_ptr_internal()), indices._mutable_data_ptr_internal<int64_t>(), n, L);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("sort");
}

// Sorts `self` (non-empty, at least 1-d) along `d` into the contiguous `values` / `indices`.
void sort_along(const Tensor& self, int64_t d, bool descending, Tensor& values, Tensor& indices) {
  ::ember::cuda::DeviceGuard guard(self.device().index());
  const int64_t last = self.dim() - 1;
  const int64_t L = self.size(d);
  const bool moved = d != last;
  const Tensor in = (moved ? self.transpose(d, last) : self).contiguous();
  Tensor vals = moved ? at::empty(in.sizes(), in.options()) : values;
  Tensor inds = moved ? at::empty(in.sizes(), indices.options()) : indices;
  EMBER_DISPATCH_ALL(self.scalar_type(), "sort", [&] {
    // Positions in a row fit int32 unless the row is longer than 2^31 - 1.
    if (L <= std::numeric_limits<int32_t>::max()) sort_rows<scalar_t, int32_t>(in, L, descending, vals, inds);
    else sort_rows<scalar_t, int64_t>(in, L, descending, vals, inds);
  });
  if (moved) {
    values.copy_(vals.transpose(d, last));
    indices.copy_(inds.transpose(d, last));
  }
}

}  // namespace

std::tuple<Tensor, Tensor> sort_cuda(const Tensor& self, int64_t dim, bool descending) {
  EMBER_CHECK(self.is_cuda(), "[sort] expected a CUDA tensor; got one on ", self.device());
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "sort");
  Tensor values = at::empty(self.sizes(), TensorOptions().dtype(self.scalar_type()).device(self.device()));
  Tensor indices = at::empty(self.sizes(), TensorOptions().dtype(kLong).device(self.device()));
  if (self.numel() == 0) return {values, indices};
  if (self.dim() == 0) {
    values.copy_(self);
    indices.fill_(0);
    return {values, indices};
  }
  sort_along(self, d, descending, values, indices);
  return {values, indices};
}

std::tuple<Tensor, Tensor> topk_cuda(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // the selected elements always come out sorted, which sorted=false also allows
  EMBER_CHECK(self.is_cuda(), "[topk] expected a CUDA tensor; got one on ", self.device());
  const auto shape = sort_utils::topk_shape(self, k, dim);
  const int64_t d = shape.first;
  const std::vector<int64_t>& osizes = shape.second;
  Tensor values = at::empty(osizes, TensorOptions().dtype(self.scalar_type()).device(self.device()));
  Tensor indices = at::empty(osizes, TensorOptions().dtype(kLong).device(self.device()));
  if (values.numel() == 0) return {values, indices};
  if (self.dim() == 0) {
    values.copy_(self);
    indices.fill_(0);
    return {values, indices};
  }
  if (k == (self.dim() == 0 ? 1 : self.size(d))) {  // the whole dim
    sort_along(self, d, largest, values, indices);
    return {values, indices};
  }
  // A full stable sort in the requested direction; its first k per row are the CPU's choice.
  Tensor all_values = at::empty(self.sizes(), values.options());
  Tensor all_indices = at::empty(self.sizes(), indices.options());
  sort_along(self, d, largest, all_values, all_indices);
  values.copy_(all_values.narrow(d, 0, k));
  indices.copy_(all_indices.narrow(d, 0, k));
  return {values, indices};
}

}  // namespace at::native
