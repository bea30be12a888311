// Matrix products on CUDA: mm, bmm, addmm, baddbmm, dot. The checks, result shapes and the
// beta/alpha rules are the CPU kernels' (ATen/native/MatmulUtils.h, kernels/cpu/matmul.cpp).
//
// Every product funnels into gemm(): out[b] = alpha * A[b] @ B[b] + beta * out[b] over 3-D
// operands. Floating dtypes go to cuBLAS (Note [cuBLAS operand layout], Note [cuBLAS precision]);
// integer dtypes, which cuBLAS cannot multiply with the CPU's wrap-around results, and products
// too large for cuBLAS's int arguments take a tiled shared-memory kernel. dot is a two-pass
// reduction that accumulates like the CPU (double, or int64 for integers).
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/MatmulUtils.h>
#include <ATen/native/cuda/CUDABlas.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <ATen/Context.h>
#include <algorithm>
#include <climits>
#include <type_traits>

namespace at::native {
namespace {

// ---------------------------------------------------------------- operand layout
// Note [cuBLAS operand layout]
// cuBLAS is column-major. A row-major out [M, N] (ldc = N) read column-major is out^T [N, M], and
// out^T = B^T @ A^T, so cuBLAS computes the N x M product with B as its first operand. Read
// column-major with ld = its row stride, a row-major operand is its own transpose: it goes in
// untransposed (CUBLAS_OP_N). A column-major operand (a transposed view: stride 1 between rows)
// goes in with CUBLAS_OP_T and ld = its column stride. Any other layout (step-sliced inner dim,
// stride 0 inside a matrix) is made contiguous first. Size-1 dims take the stride that makes
// the layout valid, as on the CPU. A batch of one, or batch stride 0 (expanded), is passed as
// stride 0: cuBLAS then reads the same matrix for every batch.
struct Layout {
  bool ok = false;          // usable without a copy
  bool transposed = false;  // column-major storage: CUBLAS_OP_T
  int64_t ld = 0;           // leading dimension, in elements
  int64_t batch_stride = 0;
};

Layout layout_of(const Tensor& t) {  // t: [batch, rows, cols]
  const int64_t rows = t.size(1), cols = t.size(2);
  int64_t sr = t.stride(1), sc = t.stride(2);
  if (cols == 1) sc = 1;
  if (rows == 1) sr = (sc == 1) ? std::max<int64_t>(cols, 1) : 1;
  Layout l;
  l.batch_stride = t.size(0) == 1 ? 0 : t.stride(0);
  if (sc == 1 && sr >= std::max<int64_t>(cols, 1)) {
    l.ok = true;
    l.ld = sr;
  } else if (sr == 1 && sc >= std::max<int64_t>(rows, 1)) {
    l.ok = true;
    l.transposed = true;
    l.ld = sc;
  }
  return l;
}

constexpr int64_t kIntMax = INT_MAX;

// ---------------------------------------------------------------- cuBLAS path
// Note [cuBLAS precision]
// float32 computes in float32 (CUBLAS_COMPUTE_32F, no TF32) unless
// at::globalContext().allowTF32CuBLAS() is set, as libtorch. float16 and bfloat16 compute in
// float32 on tensor cores and round once into the output; cuBLAS may reduce partial sums in the
// 16-bit type unless allow{FP16,BF16}ReductionCuBLAS() says otherwise. float64 computes in
// float64. alpha and beta are passed in the compute type (float for all but float64), like the
// CPU's oneDNN path.
void cublas_gemm(const Tensor& out, const Tensor& a, const Layout& la, const Tensor& b, const Layout& lb, double alpha,
                 double beta) {
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const ScalarType st = out.scalar_type();
  cudaDataType_t dt = CUDA_R_32F;
  cublasComputeType_t ct = CUBLAS_COMPUTE_32F;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  auto& ctx = at::globalContext();
  switch (st) {
    case kFloat:
      if (ctx.allowTF32CuBLAS()) ct = CUBLAS_COMPUTE_32F_FAST_TF32;
      break;
    case kDouble:
      dt = CUDA_R_64F;
      ct = CUBLAS_COMPUTE_64F;
      break;
    case kHalf:
      dt = CUDA_R_16F;
      if (ctx.allowFP16ReductionCuBLAS() != CuBLASReductionOption::AllowReducedPrecisionWithSplitK)
        math = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
      break;
    case kBFloat16:
      dt = CUDA_R_16BF;
      if (ctx.allowBF16ReductionCuBLAS() != CuBLASReductionOption::AllowReducedPrecisionWithSplitK)
        math = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
      break;
    default:
      EMBER_INTERNAL_ASSERT(false, "cublas_gemm called for dtype ", c10::dtypeName(st));
  }
  const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  const double alpha_d = alpha, beta_d = beta;
  const void* palpha = st == kDouble ? static_cast<const void*>(&alpha_d) : static_cast<const void*>(&alpha_f);
  const void* pbeta = st == kDouble ? static_cast<const void*>(&beta_d) : static_cast<const void*>(&beta_f);

  const ember::cuda::blas::Api& blas = ember::cuda::blas::api("matmul");
  cublasHandle_t handle = ember::cuda::cublas_handle();
  EMBER_CUBLAS_CHECK(blas.SetMathMode(handle, math));
  // See Note [cuBLAS operand layout]: cuBLAS's (m, n, k) = (N, M, K), first operand b.
  const cublasOperation_t op_b = lb.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = la.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int m = static_cast<int>(N), n = static_cast<int>(M), k = static_cast<int>(K);
  const int ldb = static_cast<int>(lb.ld), lda = static_cast<int>(la.ld), ldc = static_cast<int>(N);
  const char* pa = static_cast<const char*>(a.const_data_ptr());
  const char* pb = static_cast<const char*>(b.const_data_ptr());
  char* pc = static_cast<char*>(out._mutable_data_ptr_internal());
  if (B == 1) {
    EMBER_CUBLAS_CHECK(blas.GemmEx(handle, op_b, op_a, m, n, k, palpha, pb, dt, ldb, pa, dt, lda, pbeta, pc, dt, ldc, ct,
                                    CUBLAS_GEMM_DEFAULT));
    return;
  }
  const int64_t item = static_cast<int64_t>(out.itemsize());
  const int64_t out_batch_stride = M * N;
  for (int64_t b0 = 0; b0 < B; b0 += kIntMax) {  // batchCount is an int
    const int count = static_cast<int>(std::min<int64_t>(B - b0, kIntMax));
    EMBER_CUBLAS_CHECK(blas.GemmStridedBatchedEx(
        handle, op_b, op_a, m, n, k, palpha, pb + b0 * lb.batch_stride * item, dt, ldb, static_cast<long long>(lb.batch_stride),
        pa + b0 * la.batch_stride * item, dt, lda, static_cast<long long>(la.batch_stride), pbeta, pc + b0 * out_batch_stride * item,
        dt, ldc, static_cast<long long>(out_batch_stride), count, ct, CUBLAS_GEMM_DEFAULT));
  }
}

// ---------------------------------------------------------------- tiled kernel
// Integer products accumulate in 64 bits and wrap, as the CPU's int64 accumulator does (built
// with -fwrapv): unsigned arithmetic gives the same bits without relying on signed overflow in
// device code, and the final narrowing keeps the low bits (C++20 conversion). Floating products
// that reach this kernel (sizes past cuBLAS's int arguments) accumulate in float, or double for
// float64.
template <typename scalar_t>
using tile_acc_t = std::conditional_t<std::is_integral_v<scalar_t>, uint64_t,
                                      std::conditional_t<std::is_same_v<scalar_t, double>, double, float>>;

template <typename acc_t, typename scalar_t>
__device__ __forceinline__ acc_t to_acc(scalar_t v) {
  if constexpr (std::is_integral_v<scalar_t>) {
    return static_cast<acc_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<acc_t>(static_cast<c10::opmath_t<scalar_t>>(v));
  }
}

template <typename scalar_t, typename acc_t>
__device__ __forceinline__ scalar_t from_acc(acc_t v) {
  if constexpr (std::is_integral_v<scalar_t>) {
    return static_cast<scalar_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<scalar_t>(static_cast<c10::opmath_t<scalar_t>>(v));
  }
}

constexpr int kTile = 16;

template <typename scalar_t, typename acc_t>
struct TileArgs {
  const scalar_t* a;
  const scalar_t* b;
  scalar_t* c;  // contiguous [B, M, N]
  int64_t B, M, N, K;
  int64_t asb, asr, asc;  // element strides; asb 0 for a shared matrix
  int64_t bsb, bsr, bsc;
  acc_t alpha, beta;
  bool read_c;  // beta != 0
};

// Block (kTile, kTile) computes a kTile x kTile tile of out; grid.x walks column tiles, grid.y
// (row tiles) and grid.z (batches) loop when there are more than the grid's limit of 65535. The
// loops depend only on blockIdx, so every thread of a block reaches the same barriers.
template <typename scalar_t, typename acc_t>
__global__ void tiled_gemm_kernel(TileArgs<scalar_t, acc_t> p) {
  __shared__ acc_t As[kTile][kTile + 1];
  __shared__ acc_t Bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  for (int64_t bz = blockIdx.z; bz < p.B; bz += gridDim.z) {
    const scalar_t* a = p.a + bz * p.asb;
    const scalar_t* b = p.b + bz * p.bsb;
    for (int64_t rt = blockIdx.y; rt * kTile < p.M; rt += gridDim.y) {
      const int64_t row = rt * kTile + ty;
      acc_t acc = acc_t(0);
      for (int64_t k0 = 0; k0 < p.K; k0 += kTile) {
        const int64_t ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < p.M && ka < p.K) ? to_acc<acc_t>(a[row * p.asr + ka * p.asc]) : acc_t(0);
        Bs[ty][tx] = (kb < p.K && col < p.N) ? to_acc<acc_t>(b[kb * p.bsr + col * p.bsc]) : acc_t(0);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTile; ++kk) acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
      }
      if (row < p.M && col < p.N) {
        scalar_t* c = p.c + (bz * p.M + row) * p.N + col;
        acc_t v = p.alpha * acc;
        if (p.read_c) v += p.beta * to_acc<acc_t>(*c);
        *c = from_acc<scalar_t, acc_t>(v);
      }
    }
  }
}

template <typename scalar_t>
void tiled_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha_d, double beta_d) {
  using acc_t = tile_acc_t<scalar_t>;
  // Integer alpha/beta go through Scalar, as in the CPU loop: NaN or out-of-range values raise
  // instead of converting undefinedly. Floating ones convert like cuBLAS's.
  acc_t alpha, beta;
  if constexpr (std::is_integral_v<scalar_t>) {
    alpha = static_cast<acc_t>(c10::Scalar(alpha_d).to<int64_t>());
    beta = static_cast<acc_t>(c10::Scalar(beta_d).to<int64_t>());
  } else {
    alpha = static_cast<acc_t>(alpha_d);
    beta = static_cast<acc_t>(beta_d);
  }
  TileArgs<scalar_t, acc_t> p;
  p.a = static_cast<const scalar_t*>(a.const_data_ptr());
  p.b = static_cast<const scalar_t*>(b.const_data_ptr());
  p.c = static_cast<scalar_t*>(out._mutable_data_ptr_internal());
  p.B = out.size(0);
  p.M = out.size(1);
  p.N = out.size(2);
  p.K = a.size(2);
  p.asb = a.size(0) == 1 ? 0 : a.stride(0);
  p.asr = a.stride(1);
  p.asc = a.stride(2);
  p.bsb = b.size(0) == 1 ? 0 : b.stride(0);
  p.bsr = b.stride(1);
  p.bsc = b.stride(2);
  p.alpha = alpha;
  p.beta = beta;
  p.read_c = beta_d != 0.0;
  const int64_t col_tiles = (p.N + kTile - 1) / kTile, row_tiles = (p.M + kTile - 1) / kTile;
  EMBER_CHECK(col_tiles <= kIntMax, "[mm] expected at most ", kIntMax * kTile, " columns; got ", p.N);
  const dim3 grid(static_cast<unsigned>(col_tiles), static_cast<unsigned>(std::min<int64_t>(row_tiles, 65535)),
                  static_cast<unsigned>(std::min<int64_t>(p.B, 65535)));
  tiled_gemm_kernel<scalar_t, acc_t><<<grid, dim3(kTile, kTile), 0, ember::cuda::current_stream()>>>(p);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("mm");
}

// ---------------------------------------------------------------- gemm
bool fits_cublas(const Tensor& out, int64_t K, const Layout& la, const Layout& lb) {
  return out.size(1) <= kIntMax && out.size(2) <= kIntMax && K <= kIntMax && la.ld <= kIntMax && lb.ld <= kIntMax;
}

// out[b] = alpha * a[b] @ b[b] + beta * out[b]: out is a fresh contiguous [B, M, N] (read only
// when beta != 0), a is [Ba, M, K], b is [Bb, K, N] with Ba, Bb in {1, B} or batch stride 0.
// The same steps as the CPU's gemm, so empty products give the same results.
void gemm(const Tensor& out, const Tensor& a3, const Tensor& b3, double alpha, double beta) {
  EMBER_INTERNAL_ASSERT(out.is_contiguous(), "gemm expects a contiguous output");
  if (out.numel() == 0) return;
  const int64_t K = a3.size(2);
  if (K == 0) {
    matmul_utils::scale_empty_sum(out, beta);
    return;
  }
  Tensor a = a3, b = b3;
  Layout la = layout_of(a), lb = layout_of(b);
  if (!la.ok) { a = a.contiguous(); la = layout_of(a); }
  if (!lb.ok) { b = b.contiguous(); lb = layout_of(b); }
  const ScalarType st = out.scalar_type();
  if (isFloatingType(st) && fits_cublas(out, K, la, lb)) {
    cublas_gemm(out, a, la, b, lb, alpha, beta);
    return;
  }
  EMBER_DISPATCH_ALL(st, "mm", [&] {
    if constexpr (std::is_same_v<scalar_t, bool>) {
      EMBER_INTERNAL_ASSERT(false, "bool reached the CUDA gemm");  // check_operands rejects it
    } else {
      tiled_gemm<scalar_t>(out, a, b, alpha, beta);
    }
  });
}

// ---------------------------------------------------------------- dot
// Pass 1: each block sums a grid-stride slice into partial[blockIdx.x]; pass 2: one block sums the
// partials in a fixed order and rounds like the CPU (double -> float -> 16-bit for Half/BFloat16).
// The result does not depend on timing (no atomics).
constexpr int kDotThreads = 256;

template <typename scalar_t>
using dot_acc_t = std::conditional_t<std::is_integral_v<scalar_t>, uint64_t, double>;

template <typename acc_t>
__device__ __forceinline__ acc_t block_sum(acc_t v, acc_t* buf) {
  const int tid = threadIdx.x;
  buf[tid] = v;
  __syncthreads();
  for (int s = kDotThreads / 2; s > 0; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  return buf[0];
}

template <typename scalar_t, typename acc_t>
__global__ void dot_partial_kernel(const scalar_t* a, int64_t sa, const scalar_t* b, int64_t sb, int64_t n, acc_t* partial) {
  __shared__ acc_t buf[kDotThreads];
  acc_t acc = acc_t(0);
  const int64_t step = static_cast<int64_t>(gridDim.x) * kDotThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kDotThreads + threadIdx.x; i < n; i += step)
    acc += to_acc<acc_t>(a[i * sa]) * to_acc<acc_t>(b[i * sb]);
  acc = block_sum(acc, buf);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

template <typename scalar_t, typename acc_t>
__global__ void dot_final_kernel(const acc_t* partial, int64_t parts, scalar_t* out) {
  __shared__ acc_t buf[kDotThreads];
  acc_t acc = acc_t(0);
  for (int64_t i = threadIdx.x; i < parts; i += kDotThreads) acc += partial[i];
  acc = block_sum(acc, buf);
  if (threadIdx.x == 0) {
    if constexpr (std::is_integral_v<scalar_t>) {
      *out = static_cast<scalar_t>(static_cast<int64_t>(acc));
    } else if constexpr (std::is_same_v<scalar_t, double>) {
      *out = acc;
    } else {
      *out = static_cast<scalar_t>(static_cast<float>(acc));
    }
  }
}

template <typename scalar_t>
void dot_impl(const Tensor& out, const Tensor& self, const Tensor& tensor) {
  using acc_t = dot_acc_t<scalar_t>;
  const int64_t n = self.size(0);
  const int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>({(n + kDotThreads - 1) / kDotThreads, int64_t{ember::cuda::sm_count()} * 4, int64_t{1024}}));
  // acc_t is double or uint64_t: an 8-byte dtype holds the partials.
  Tensor partial = at::empty({blocks}, out.options().dtype(std::is_integral_v<acc_t> ? kLong : kDouble));
  acc_t* pp = static_cast<acc_t*>(partial._mutable_data_ptr_internal());
  cudaStream_t stream = ember::cuda::current_stream();
  dot_partial_kernel<scalar_t, acc_t><<<static_cast<unsigned>(blocks), kDotThreads, 0, stream>>>(
      static_cast<const scalar_t*>(self.const_data_ptr()), self.stride(0), static_cast<const scalar_t*>(tensor.const_data_ptr()), tensor.stride(0), n,
      pp);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("dot");
  dot_final_kernel<scalar_t, acc_t><<<1, kDotThreads, 0, stream>>>(pp, blocks, static_cast<scalar_t*>(out._mutable_data_ptr_internal()));
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("dot");
}

}  // namespace

// ---------------------------------------------------------------- kernels
Tensor mm_cuda(const Tensor& self, const Tensor& mat2) {
  std::vector<int64_t> shape = matmul_utils::check_mm(self, mat2, kCUDA);
  ember::cuda::DeviceGuard guard(self.device().index());
  Tensor out = at::empty(shape, self.options());
  gemm(out.unsqueeze(0), self.unsqueeze(0), mat2.unsqueeze(0), 1.0, 0.0);
  return out;
}

Tensor bmm_cuda(const Tensor& self, const Tensor& mat2) {
  std::vector<int64_t> shape = matmul_utils::check_bmm(self, mat2, kCUDA);
  ember::cuda::DeviceGuard guard(self.device().index());
  Tensor out = at::empty(shape, self.options());
  gemm(out, self, mat2, 1.0, 0.0);
  return out;
}

Tensor addmm_cuda(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  std::vector<int64_t> shape = matmul_utils::check_addmm(self, mat1, mat2, kCUDA);
  ember::cuda::DeviceGuard guard(mat1.device().index());
  Tensor out = at::empty(shape, mat1.options());
  matmul_utils::init_with(out, self, beta);
  gemm(out.unsqueeze(0), mat1.unsqueeze(0), mat2.unsqueeze(0), alpha.toDouble(), beta.toDouble());
  return out;
}

Tensor baddbmm_cuda(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  std::vector<int64_t> shape = matmul_utils::check_baddbmm(self, batch1, batch2, kCUDA);
  ember::cuda::DeviceGuard guard(batch1.device().index());
  Tensor out = at::empty(shape, batch1.options());
  matmul_utils::init_with(out, self, beta);
  gemm(out, batch1, batch2, alpha.toDouble(), beta.toDouble());
  return out;
}

Tensor dot_cuda(const Tensor& self, const Tensor& tensor) {
  matmul_utils::check_dot(self, tensor, kCUDA);
  ember::cuda::DeviceGuard guard(self.device().index());
  Tensor out = at::empty({}, self.options());
  EMBER_DISPATCH_ALL(self.scalar_type(), "dot", [&] { dot_impl<scalar_t>(out, self, tensor); });
  return out;
}

}  // namespace at::native
