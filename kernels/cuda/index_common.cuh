#pragma once
// Device-side helpers of the CUDA indexing and joining kernels (index.cu, join.cu): a strided
// offset calculator, element moves by width, atomic accumulation for every dtype, the device
// range check of index tensors, and the flag-scan-compact step of nonzero / masked_select.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/IndexUtils.h>
#include <ATen/native/cuda/Loops.cuh>
#include <cstring>
#include <initializer_list>

namespace at::native::cuda_index {
using index_detail::by_elsize;

constexpr int kMaxDims = 25;
constexpr int kThreads = ::ember::cuda::detail::kThreads;

inline unsigned grid_for(int64_t n) { return ::ember::cuda::detail::grid_for(n); }

/// Row-major shape and NT sets of element strides: offsets(lin) gives each operand's element
/// offset of the linear position `lin`. Passed to kernels by value.
template <int NT>
struct Geo {
  int nd = 0;
  int64_t sizes[kMaxDims];
  int64_t st[NT][kMaxDims];

  __device__ __forceinline__ void offsets(int64_t lin, int64_t* off) const {
#pragma unroll
    for (int k = 0; k < NT; ++k) off[k] = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t s = sizes[d];
      const int64_t q = lin / s;
      const int64_t c = lin - q * s;
      lin = q;
#pragma unroll
      for (int k = 0; k < NT; ++k) off[k] += c * st[k][d];
    }
  }
};

/// A Geo over `sizes` with one stride list per operand (each as long as sizes).
template <int NT>
Geo<NT> make_geo(IntArrayRef sizes, std::initializer_list<IntArrayRef> strides) {
  EMBER_CHECK(static_cast<int64_t>(sizes.size()) <= kMaxDims, "[cuda] indexing kernels support at most ", kMaxDims,
              " dims; got ", sizes.size());
  EMBER_INTERNAL_ASSERT(static_cast<int>(strides.size()) == NT, "stride list count mismatch");
  Geo<NT> g;
  g.nd = static_cast<int>(std::min<size_t>(sizes.size(), kMaxDims));
  for (int d = 0; d < g.nd; ++d) g.sizes[d] = sizes[d];
  const IntArrayRef* s = strides.begin();
  for (int k = 0; k < NT; ++k) {
    EMBER_INTERNAL_ASSERT(s[k].size() == sizes.size(), "stride rank mismatch");
    for (int d = 0; d < g.nd; ++d) g.st[k][d] = s[k][d];
  }
  return g;
}

template <size_t N> struct UintOfWidth;
template <> struct UintOfWidth<1> { using type = uint8_t; };
template <> struct UintOfWidth<2> { using type = uint16_t; };
template <> struct UintOfWidth<4> { using type = uint32_t; };
template <> struct UintOfWidth<8> { using type = uint64_t; };
/// The unsigned integer type as wide as T.
template <typename T>
using uint_for = typename UintOfWidth<sizeof(T)>::type;

/// The bits of a scalar value as the unsigned integer of its width.
template <typename U, typename T>
inline U bits_of(const T& v) {
  static_assert(sizeof(U) == sizeof(T));
  U u;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}

// ---------------------------------------------------------------- atomics
/// dst (op)= x for one element, atomically: dst + x in opmath for numbers, dst || x for bool.
template <typename T>
__device__ __forceinline__ T add_op(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else return static_cast<T>(static_cast<c10::opmath_t<T>>(a) + static_cast<c10::opmath_t<T>>(b));
}

/// 1- and 2-byte types: a compare-and-swap loop on the aligned 32-bit word that holds them.
template <typename T>
__device__ __forceinline__ void atomic_add_narrow(T* addr, T x) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2);
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  unsigned int* word = reinterpret_cast<unsigned int*>(a & ~uintptr_t(3));
  const unsigned int shift = static_cast<unsigned int>(a & 3) * 8;
  const unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const unsigned int cur_bits = (assumed & mask) >> shift;
    T cur;
    if constexpr (sizeof(T) == 1) { const uint8_t b = static_cast<uint8_t>(cur_bits); memcpy(&cur, &b, 1); }
    else { const uint16_t b = static_cast<uint16_t>(cur_bits); memcpy(&cur, &b, 2); }
    const T nv = add_op(cur, x);
    unsigned int nb;
    if constexpr (sizeof(T) == 1) { uint8_t b; memcpy(&b, &nv, 1); nb = b; }
    else { uint16_t b; memcpy(&b, &nv, 2); nb = b; }
    old = atomicCAS(word, assumed, (assumed & ~mask) | (nb << shift));
  } while (assumed != old);
}

template <typename T>
__device__ __forceinline__ void atomic_add(T* addr, T x) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    atomicAdd(addr, x);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    atomicAdd(reinterpret_cast<int*>(addr), static_cast<int>(x));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    // Two's complement: an unsigned add gives the wrapped signed sum.
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(x));
  } else {
    atomic_add_narrow(addr, x);  // int8, uint8, int16, Half, BFloat16, bool
  }
}

// ---------------------------------------------------------------- host <-> device scalars
/// Copies `n` values of T from device memory to the host on the current stream and waits.
template <typename T>
inline void read_back(T* host, const void* dev, size_t n) {
  cudaStream_t stream = ::ember::cuda::current_stream();
  EMBER_CUDA_CHECK(cudaMemcpyAsync(host, dev, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
}

/// A zeroed int32 flag on `device` that kernels set to 1 on a bad index.
inline Tensor make_flag(Device device) { return at::zeros({1}, TensorOptions().dtype(kInt).device(device)); }

inline bool flag_set(const Tensor& flag) {
  int32_t h = 0;
  read_back(&h, flag._mutable_data_ptr_internal(), 1);
  return h != 0;
}

/// True when some value of the contiguous int64 device tensor `idx` is outside [lo, hi).
bool any_out_of_range(const Tensor& idx, int64_t lo, int64_t hi);

/// Range check of a contiguous int64 device index against [0, size): on failure re-runs the
/// CPU check on a host copy, which raises exactly the CPU's error.
inline void check_range(const Tensor& idx, int64_t size, int64_t dim, const char* op) {
  if (idx.numel() == 0) return;
  if (any_out_of_range(idx, 0, size)) {
    index_detail::check_range(idx.to(kCPU).contiguous(), size, dim, op);
    EMBER_INTERNAL_ASSERT(false, "[", op, "] the device found an index out of range that the host did not");
  }
}

/// Positions of the nonzero int64 `flags` (contiguous, on the device): returns the inclusive
/// prefix sum of the flags and sets `count` to their total (one device -> host read).
Tensor inclusive_scan(const Tensor& flags, int64_t& count);

/// `idx` (int64) on `device`, contiguous.
inline Tensor on_device(const Tensor& t, Device device) {
  return (t.device() == device ? t : t.to(device)).contiguous();
}

}  // namespace at::native::cuda_index
