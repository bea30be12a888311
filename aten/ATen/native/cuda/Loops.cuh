#pragma once
// gpu_pointwise: runs a functor over a built TensorIter on the current CUDA stream (the CUDA
// counterpart of cpu/Loops.h). Three kernels, chosen per call:
//   1. vectorised: contiguous operands whose addresses are aligned to a whole vector -> each
//      thread moves up to 16 bytes per operand per load/store (the tail goes element by element);
//   2. contiguous: every operand element-strided in one coalesced dim -> typed indexing;
//   3. anything else: an offset calculator turns the linear index into per-operand byte offsets
//      from the iteration's shape and byte strides, passed to the kernel by value.
// Both are grid-stride loops with 64-bit indices, so any numel fits one launch. Inputs are
// converted to opmath (float for Half/BFloat16) before the functor, the result once on store.
//
//   ember::cuda::gpu_pointwise<float, float>(it, [] EMBER_HOST_DEVICE (float a, float b) { return a + b; });
// (extended lambdas need --extended-lambda; the generated kernels use functor structs instead.)
#include <ATen/ATen.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/PointwiseMath.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace ember::cuda {

namespace detail {

constexpr int kThreads = 256;

template <int NT>
struct Pointers {
  char* p[NT];
};

/// The iteration's shape (innermost first) and every operand's byte strides.
template <int NT>
struct StridedLayout {
  int ndim;
  int64_t shape[TensorIter::kMaxDims];
  int64_t strides[NT][TensorIter::kMaxDims];
};

template <typename scalar_t, typename out_t, typename F, size_t... I>
__global__ void contiguous_kernel(int64_t n, Pointers<sizeof...(I) + 1> ptrs, F f, std::index_sequence<I...>) {
  using op_t = c10::opmath_t<scalar_t>;
  out_t* out = reinterpret_cast<out_t*>(ptrs.p[0]);
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    out[i] = static_cast<out_t>(f(static_cast<op_t>(reinterpret_cast<const scalar_t*>(ptrs.p[I + 1])[i])...));
  }
}

template <typename T, int N>
struct alignas(sizeof(T) * N) VecOf {
  T v[N];
};

/// Elements per thread of the vectorised kernel: 16 bytes of the wider of input and output, at
/// most 8 (so a bool output of a float32 op stores 4 bytes at a time).
template <typename scalar_t, typename out_t>
constexpr int vec_width() {
  constexpr size_t wide = sizeof(scalar_t) > sizeof(out_t) ? sizeof(scalar_t) : sizeof(out_t);
  constexpr size_t n = 16 / wide;
  return static_cast<int>(n > 8 ? 8 : (n < 1 ? 1 : n));
}

template <int VEC, typename scalar_t, typename out_t, typename F, size_t... I>
__global__ void vectorized_kernel(int64_t n, Pointers<sizeof...(I) + 1> ptrs, F f, std::index_sequence<I...>) {
  using op_t = c10::opmath_t<scalar_t>;
  using in_vec = VecOf<scalar_t, VEC>;
  using out_vec = VecOf<out_t, VEC>;
  const int64_t nvec = n / VEC;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t i = first; i < nvec; i += step) {
    in_vec in[sizeof...(I) > 0 ? sizeof...(I) : 1];
    ((in[I] = reinterpret_cast<const in_vec*>(ptrs.p[I + 1])[i]), ...);
    out_vec o;
#pragma unroll
    for (int j = 0; j < VEC; ++j) o.v[j] = static_cast<out_t>(f(static_cast<op_t>(in[I].v[j])...));
    reinterpret_cast<out_vec*>(ptrs.p[0])[i] = o;
  }
  out_t* out = reinterpret_cast<out_t*>(ptrs.p[0]);
  for (int64_t i = nvec * VEC + first; i < n; i += step)
    out[i] = static_cast<out_t>(f(static_cast<op_t>(reinterpret_cast<const scalar_t*>(ptrs.p[I + 1])[i])...));
}

template <typename scalar_t, typename out_t, typename F, size_t... I>
__global__ void strided_kernel(int64_t n, Pointers<sizeof...(I) + 1> ptrs, StridedLayout<sizeof...(I) + 1> L, F f,
                               std::index_sequence<I...>) {
  using op_t = c10::opmath_t<scalar_t>;
  constexpr int NT = sizeof...(I) + 1;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[NT];
#pragma unroll
    for (int k = 0; k < NT; ++k) off[k] = 0;
    int64_t r = i;
    for (int d = 0; d < L.ndim; ++d) {
      const int64_t size = L.shape[d];
      const int64_t q = r / size;
      const int64_t c = r - q * size;
      r = q;
#pragma unroll
      for (int k = 0; k < NT; ++k) off[k] += c * L.strides[k][d];
    }
    *reinterpret_cast<out_t*>(ptrs.p[0] + off[0]) =
        static_cast<out_t>(f(static_cast<op_t>(*reinterpret_cast<const scalar_t*>(ptrs.p[I + 1] + off[I + 1]))...));
  }
}

/// Blocks for n elements: enough for every element up to a few waves, then grid-stride.
inline unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  const int64_t cap = static_cast<int64_t>(sm_count()) * 16;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
}

/// Number of tensor inputs the functor takes (0 to 3), probed on its call operator.
template <typename F, typename T>
constexpr int arity() {
  if constexpr (std::is_invocable_v<const F&>) return 0;
  else if constexpr (std::is_invocable_v<const F&, T>) return 1;
  else if constexpr (std::is_invocable_v<const F&, T, T>) return 2;
  else if constexpr (std::is_invocable_v<const F&, T, T, T>) return 3;
  else return 4;
}

template <typename scalar_t, typename out_t, typename F, size_t... I>
void launch(const TensorIter& it, const F& f, std::index_sequence<I...> seq) {
  constexpr int NT = sizeof...(I) + 1;
  const int64_t n = it.numel();
  Pointers<NT> ptrs;
  for (int k = 0; k < NT; ++k) ptrs.p[k] = it.data(k);
  const unsigned grid = grid_for(n);
  cudaStream_t stream = current_stream();
  if (it.is_contiguous()) {
    constexpr int VEC = vec_width<scalar_t, out_t>();
    bool aligned = VEC > 1 && n >= 4 * VEC;
    aligned = aligned && reinterpret_cast<uintptr_t>(ptrs.p[0]) % (sizeof(out_t) * VEC) == 0;
    for (int k = 1; k < NT; ++k) aligned = aligned && reinterpret_cast<uintptr_t>(ptrs.p[k]) % (sizeof(scalar_t) * VEC) == 0;
    if constexpr (VEC > 1) {
      if (aligned) {
        vectorized_kernel<VEC, scalar_t, out_t><<<grid_for(n / VEC), kThreads, 0, stream>>>(n, ptrs, f, seq);
        EMBER_CUDA_KERNEL_LAUNCH_CHECK("pointwise kernel launch");
        return;
      }
    }
    contiguous_kernel<scalar_t, out_t><<<grid, kThreads, 0, stream>>>(n, ptrs, f, seq);
  } else {
    StridedLayout<NT> L;
    L.ndim = it.ndim();
    for (int d = 0; d < L.ndim; ++d) {
      L.shape[d] = it.shape()[d];
      for (int k = 0; k < NT; ++k) L.strides[k][d] = it.strides(k)[d];
    }
    strided_kernel<scalar_t, out_t><<<grid, kThreads, 0, stream>>>(n, ptrs, L, f, seq);
  }
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("pointwise kernel launch");
}

}  // namespace detail

/// Runs `f` elementwise over `it` (inputs of dtype scalar_t, output of dtype out_t) on the current
/// stream of the output's device. Asynchronous: errors inside the kernel surface at the next sync.
template <typename scalar_t, typename out_t, typename F>
void gpu_pointwise(const TensorIter& it, const F& f) {
  constexpr int N = detail::arity<F, c10::opmath_t<scalar_t>>();
  static_assert(N <= 3, "pointwise functors take 0 to 3 tensor inputs");
  EMBER_INTERNAL_ASSERT(it.ntensors() == N + 1, "operand count mismatch: ", it.ntensors(), " vs ", N + 1);
  EMBER_INTERNAL_ASSERT(it.dtype(0) == c10::CppTypeToScalarType<out_t>::value, "output dtype mismatch");
  for (int k = 1; k <= N; ++k)
    EMBER_INTERNAL_ASSERT(it.dtype(k) == c10::CppTypeToScalarType<scalar_t>::value, "input dtype mismatch");
  if (it.numel() == 0) return;
  for (int k = 0; k <= N; ++k)
    EMBER_INTERNAL_ASSERT(it.operand(k).is_cuda(), "gpu_pointwise operand ", k, " is on ", it.operand(k).device());
  DeviceGuard guard(it.output().device().index());
  detail::launch<scalar_t, out_t>(it, f, std::make_index_sequence<N>{});
}

}  // namespace ember::cuda
