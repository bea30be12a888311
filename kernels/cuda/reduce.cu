// Reductions and scans on CUDA: sum, prod, amax/amin, max/min (values and indices),
// argmax/argmin, var, norm, logsumexp, all/any, cumsum/cumprod. The host side (which dims reduce,
// the coalesced layout, result dtypes, checks) is shared with the CPU kernels
// (aten/ATen/native/ReduceUtils.h); the accumulator semantics are the CPU's: float sums, products,
// moments, norms and log-sum-exp accumulate in double (norm terms and roots in the opmath type), integers wrap in 64 bits, max/min let NaN
// win, and the index ops return the first extreme element (the first NaN if any).
//
// Note [CUDA reduce kernel]
// One generic kernel serves every reduction. A block handles a group of outputs; within an output
// several "reduction lanes" stride over its reduced elements, and a shared-memory tree merges the
// lanes. Two thread layouts, picked from the geometry:
//   - lanes along x: the reduced run is contiguous (sum over the last dim), so neighbouring
//     threads read neighbouring elements of one output;
//   - outputs along x: the innermost kept dim is contiguous and the reduced dims are not (sum over
//     dim 0), so neighbouring threads read neighbouring outputs' elements.
// With too few outputs to fill the device, the reduced range is also split across blocks
// (gridDim.y): each writes a partial accumulator, and a second kernel merges the partials of each
// output in order and writes the result. Merges of index-returning ops break ties by the smaller
// index, so the result does not depend on how the work was split.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ReduceUtils.h>
#include <ATen/native/cuda/CUDAUtils.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace at::native {
namespace {

using reduce::Geom;

template <typename T>
constexpr bool kIsReduced = std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>;

// ---------------------------------------------------------------- element conversions (as the CPU)
template <typename A, typename T>
__device__ __forceinline__ A to_acc(T v) {
  if constexpr (kIsReduced<T>) return static_cast<A>(static_cast<float>(v));
  else if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) return static_cast<A>(static_cast<int64_t>(v));
  else return static_cast<A>(v);
}
template <typename T, typename A>
__device__ __forceinline__ T from_acc(A a) {
  if constexpr (kIsReduced<T>) return T(static_cast<float>(a));
  else if constexpr (std::is_same_v<T, bool>) return a != A(0);
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<A>) return static_cast<T>(static_cast<int64_t>(a));
  else return static_cast<T>(a);
}
template <typename T>
__device__ __forceinline__ bool d_isnan(T v) {
  if constexpr (std::is_floating_point_v<T>) return ::isnan(v);
  else return false;
}

// ---------------------------------------------------------------- layout on the device
constexpr int kMaxDims = 25;

struct DevGeom {
  int nk = 0, nr = 0;
  int64_t M = 0, N = 0;
  int64_t ks[kMaxDims], kst[kMaxDims];  // kept dims, innermost last
  int64_t rs[kMaxDims], rst[kMaxDims];  // reduced dims, innermost last
};

DevGeom to_device_geom(const Geom& g) {
  EMBER_CHECK(g.ks.size() <= kMaxDims && g.rs.size() <= kMaxDims, "[reduce] expected at most ", kMaxDims,
              " non-mergeable dims on CUDA; got ", g.ks.size(), " kept and ", g.rs.size(), " reduced");
  DevGeom d;
  d.nk = static_cast<int>(g.ks.size());
  d.nr = static_cast<int>(g.rs.size());
  d.M = g.M;
  d.N = g.N;
  for (int i = 0; i < d.nk; ++i) { d.ks[i] = g.ks[i]; d.kst[i] = g.kst[i]; }
  for (int i = 0; i < d.nr; ++i) { d.rs[i] = g.rs[i]; d.rst[i] = g.rst[i]; }
  return d;
}

__device__ __forceinline__ int64_t unravel(int64_t i, int n, const int64_t* sizes, const int64_t* strides) {
  if (n == 1) return i * strides[0];
  int64_t off = 0;
  for (int d = n - 1; d >= 0; --d) {
    const int64_t q = i / sizes[d];
    off += (i - q * sizes[d]) * strides[d];
    i = q;
  }
  return off;
}

// ---------------------------------------------------------------- the ops (init/step/merge/write)
template <typename In, typename Acc, typename Out>
struct SumOp {
  using in_t = In;
  using acc_t = Acc;
  Out* out;
  __device__ Acc init() const { return Acc(0); }
  __device__ void step(Acc& a, In v, int64_t) const { a += to_acc<Acc>(v); }
  __device__ void merge(Acc& a, const Acc& b) const { a += b; }
  __device__ void write(int64_t m, const Acc& a) const { out[m] = from_acc<Out>(a); }
};

template <typename In, typename Acc, typename Out>
struct ProdOp {
  using in_t = In;
  using acc_t = Acc;
  Out* out;
  __device__ Acc init() const { return Acc(1); }
  __device__ void step(Acc& a, In v, int64_t) const { a *= to_acc<Acc>(v); }
  __device__ void merge(Acc& a, const Acc& b) const { a *= b; }
  __device__ void write(int64_t m, const Acc& a) const { out[m] = from_acc<Out>(a); }
};

template <typename V, bool IsMax>
__device__ __forceinline__ V extreme_init() {
  if constexpr (std::is_floating_point_v<V>)
    return IsMax ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::infinity();
  else return IsMax ? std::numeric_limits<V>::lowest() : std::numeric_limits<V>::max();
}

// max (IsMax) or min of the values; NaN wins.
template <typename In, bool IsMax>
struct ExtremeOp {
  using in_t = In;
  using acc_t = c10::opmath_t<In>;
  In* out;
  __device__ acc_t init() const { return extreme_init<acc_t, IsMax>(); }
  __device__ static bool better(acc_t v, acc_t a) { return IsMax ? (v > a) : (v < a); }
  __device__ void step(acc_t& a, In x, int64_t) const {
    const acc_t v = static_cast<acc_t>(x);
    if (better(v, a) || d_isnan(v)) a = v;
  }
  __device__ void merge(acc_t& a, const acc_t& b) const {
    if (!d_isnan(a) && (better(b, a) || d_isnan(b))) a = b;
  }
  __device__ void write(int64_t m, const acc_t& a) const { out[m] = from_acc<In>(a); }
};

template <typename V>
struct ValIdx {
  V v;
  int64_t i;
};

// max/min with the index of the first extreme element (the first NaN if any): b replaces a when
// it is better, or equal with a smaller index.
template <typename In, bool IsMax>
struct ArgOp {
  using in_t = In;
  using val_t = c10::opmath_t<In>;
  using acc_t = ValIdx<val_t>;
  In* values;  // null for argmax/argmin
  int64_t* indices;
  __device__ acc_t init() const { return {extreme_init<val_t, IsMax>(), std::numeric_limits<int64_t>::max()}; }
  __device__ static bool wins(const acc_t& b, const acc_t& a) {
    const bool an = d_isnan(a.v), bn = d_isnan(b.v);
    if (an || bn) return bn && (!an || b.i < a.i);
    if (IsMax ? (b.v > a.v) : (b.v < a.v)) return true;
    return b.v == a.v && b.i < a.i;
  }
  __device__ void step(acc_t& a, In x, int64_t r) const {
    const acc_t b{static_cast<val_t>(x), r};
    if (wins(b, a)) a = b;
  }
  __device__ void merge(acc_t& a, const acc_t& b) const {
    if (wins(b, a)) a = b;
  }
  __device__ void write(int64_t m, const acc_t& a) const {
    if (values) values[m] = from_acc<In>(a.v);
    indices[m] = a.i;
  }
};

template <typename In, typename Out, bool IsAll>
struct LogicalOp {
  using in_t = In;
  using acc_t = bool;
  Out* out;
  __device__ bool init() const { return IsAll; }
  __device__ void step(bool& a, In v, int64_t) const {
    const bool nz = static_cast<c10::opmath_t<In>>(v) != c10::opmath_t<In>(0);
    a = IsAll ? (a && nz) : (a || nz);
  }
  __device__ void merge(bool& a, const bool& b) const { a = IsAll ? (a && b) : (a || b); }
  __device__ void write(int64_t m, const bool& a) const { out[m] = static_cast<Out>(a); }
};

// Welford steps, Chan merges; all in double.
struct Moments {
  double n, mean, m2;
};
template <typename In>
struct VarOp {
  using in_t = In;
  using acc_t = Moments;
  In* out;
  double correction;
  bool take_sqrt;  // std: the square root in double, before rounding to In
  __device__ Moments init() const { return {0, 0, 0}; }
  __device__ void step(Moments& a, In x, int64_t) const {
    const double v = to_acc<double>(x);
    a.n += 1;
    const double d = v - a.mean;
    a.mean += d / a.n;
    a.m2 += d * (v - a.mean);
  }
  __device__ void merge(Moments& a, const Moments& b) const {
    if (b.n == 0) return;
    if (a.n == 0) { a = b; return; }
    const double n = a.n + b.n, d = b.mean - a.mean;
    a.mean += d * (b.n / n);
    a.m2 += b.m2 + d * d * (a.n * b.n / n);
    a.n = n;
  }
  __device__ void write(int64_t m, const Moments& a) const {
    const double dof = a.n - correction;
    const double v = a.m2 / (0.0 < dof ? dof : 0.0);
    out[m] = from_acc<In>(take_sqrt ? ::sqrt(v) : v);
  }
};

enum class NormKind { Zero, One, Two, Inf, NegInf, General };
// As on the CPU: each term in the opmath type (float for float/Half/BFloat16), the sum in double,
// rounded to the opmath type before the root (a float32 sum of squares past the range is inf).
template <typename In, NormKind K>
struct NormOp {
  using in_t = In;
  using acc_t = double;
  using op_t = c10::opmath_t<In>;
  In* out;
  op_t p;
  __device__ double init() const { return K == NormKind::NegInf ? std::numeric_limits<double>::infinity() : 0.0; }
  __device__ void step(double& a, In x, int64_t) const {
    if constexpr (K == NormKind::Inf || K == NormKind::NegInf) {
      const double v = ::fabs(to_acc<double>(x));
      if ((K == NormKind::Inf ? v > a : v < a) || ::isnan(v)) a = v;
    } else {
      const op_t v = ::fabs(to_acc<op_t>(x));
      if constexpr (K == NormKind::Zero) a += (v != 0) ? 1.0 : 0.0;
      else if constexpr (K == NormKind::One) a += v;
      else if constexpr (K == NormKind::Two) a += static_cast<double>(v * v);
      else a += static_cast<double>(::pow(v, p));
    }
  }
  __device__ void merge(double& a, const double& b) const {
    if constexpr (K == NormKind::Inf) { if (!::isnan(a) && (b > a || ::isnan(b))) a = b; }
    else if constexpr (K == NormKind::NegInf) { if (!::isnan(a) && (b < a || ::isnan(b))) a = b; }
    else a += b;
  }
  __device__ void write(int64_t m, const double& a) const {
    const op_t s = static_cast<op_t>(a);
    op_t r = s;
    if constexpr (K == NormKind::Two) r = ::sqrt(s);
    else if constexpr (K == NormKind::General) r = ::pow(s, op_t(1) / p);
    out[m] = from_acc<In>(r);
  }
};

// Streaming log-sum-exp: (running max, sum of ::exp(x - max)).
struct Lse {
  double mx, s;
};
template <typename In>
struct LseOp {
  using in_t = In;
  using acc_t = Lse;
  In* out;
  __device__ Lse init() const { return {-std::numeric_limits<double>::infinity(), 0.0}; }
  __device__ static void add(Lse& a, double mx, double s) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (::isnan(a.mx)) return;
    if (::isnan(mx)) { a.mx = mx; return; }
    if (mx == -inf || a.mx == inf) return;
    if (a.mx == -inf || mx == inf) { a.mx = mx; a.s = s; return; }
    if (mx > a.mx) {
      a.s = a.s * ::exp(a.mx - mx) + s;
      a.mx = mx;
    } else {
      a.s += s * ::exp(mx - a.mx);
    }
  }
  __device__ void step(Lse& a, In x, int64_t) const { add(a, to_acc<double>(x), 1.0); }
  __device__ void merge(Lse& a, const Lse& b) const { add(a, b.mx, b.s); }
  __device__ void write(int64_t m, const Lse& a) const {
    double r = a.mx;
    if (::isfinite(a.mx)) r = a.mx + ::log(a.s);
    out[m] = from_acc<In>(r);
  }
};

// ---------------------------------------------------------------- kernels (Note [CUDA reduce kernel])
constexpr int kBlock = 256;

template <typename Op>
__global__ void reduce_kernel(const typename Op::in_t* __restrict__ data, DevGeom g, Op op, int64_t chunk,
                              typename Op::acc_t* partial, bool outputs_along_x) {
  using acc_t = typename Op::acc_t;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  acc_t* s = reinterpret_cast<acc_t*>(smem_raw);
  const int out_lane = outputs_along_x ? threadIdx.x : threadIdx.y;
  const int red_lane = outputs_along_x ? threadIdx.y : threadIdx.x;
  const int n_out = outputs_along_x ? blockDim.x : blockDim.y;
  const int n_red = outputs_along_x ? blockDim.y : blockDim.x;
  const int64_t m = static_cast<int64_t>(blockIdx.x) * n_out + out_lane;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * chunk;
  const int64_t r1 = r0 + chunk < g.N ? r0 + chunk : g.N;
  acc_t a = op.init();
  if (m < g.M) {
    const typename Op::in_t* base = data + unravel(m, g.nk, g.ks, g.kst);
    if (g.nr == 0) {
      if (r0 + red_lane < r1) op.step(a, base[0], r0 + red_lane);
    } else {
      for (int64_t r = r0 + red_lane; r < r1; r += n_red) op.step(a, base[unravel(r, g.nr, g.rs, g.rst)], r);
    }
  }
  const int slot = out_lane * n_red + red_lane;
  s[slot] = a;
  __syncthreads();
  for (int off = n_red / 2; off > 0; off >>= 1) {
    if (red_lane < off) {
      acc_t x = s[slot];
      op.merge(x, s[slot + off]);
      s[slot] = x;
    }
    __syncthreads();
  }
  if (red_lane == 0 && m < g.M) {
    if (partial) partial[static_cast<int64_t>(blockIdx.y) * g.M + m] = s[slot];
    else op.write(m, s[slot]);
  }
}

// Merges the G partial accumulators of each output in order (G == 0: the identity) and writes it.
template <typename Op>
__global__ void finalize_kernel(const typename Op::acc_t* partial, int64_t M, int64_t G, Op op) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t m = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; m < M; m += step) {
    typename Op::acc_t a = op.init();
    for (int64_t k = 0; k < G; ++k) op.merge(a, partial[k * M + m]);
    op.write(m, a);
  }
}

int pow2_at_least(int64_t n, int cap) {
  int p = 1;
  while (p < cap && p < n) p <<= 1;
  return p;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

template <typename Op>
void run_reduce(const Geom& g, const Tensor& input, const Op& op) {
  using acc_t = typename Op::acc_t;
  using in_t = typename Op::in_t;
  if (g.M == 0) return;
  ember::cuda::DeviceGuard guard(input.device().index());
  cudaStream_t stream = ember::cuda::current_stream();
  auto finalize_grid = [&](int64_t M) {
    return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(ceil_div(M, kBlock), 65535)));
  };
  if (g.N == 0) {
    // Nothing to reduce (the input may have no storage): every output is the identity.
    finalize_kernel<Op><<<finalize_grid(g.M), kBlock, 0, stream>>>(nullptr, g.M, 0, op);
    EMBER_CUDA_KERNEL_LAUNCH_CHECK("reduce");
    return;
  }
  const DevGeom dg = to_device_geom(g);
  const bool inner_contig = !g.rs.empty() && g.rst.back() == 1;
  const bool outputs_along_x = !inner_contig && !g.ks.empty() && g.kst.back() == 1;
  int n_out, n_red;
  if (outputs_along_x) {
    n_out = pow2_at_least(g.M, 32);
    n_red = kBlock / n_out;
  } else {
    n_red = pow2_at_least(g.N, kBlock);
    n_out = kBlock / n_red;
  }
  const int64_t gx = ceil_div(g.M, n_out);
  EMBER_CHECK(gx <= std::numeric_limits<int32_t>::max(), "[reduce] expected fewer than 2^31 output blocks on CUDA; got ", gx);
  // Split the reduced range across blocks when the outputs alone cannot fill the device.
  int64_t G = 1;
  const int64_t target = 4 * static_cast<int64_t>(ember::cuda::sm_count());
  if (gx < target && g.N > 16 * static_cast<int64_t>(n_red))
    G = std::min<int64_t>({ceil_div(target, gx), ceil_div(g.N, 16 * static_cast<int64_t>(n_red)), 65535});
  const int64_t chunk = ceil_div(g.N, G);
  G = ceil_div(g.N, chunk);
  const dim3 block = outputs_along_x ? dim3(n_out, n_red) : dim3(n_red, n_out);
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(G));
  const size_t smem = sizeof(acc_t) * kBlock;
  const in_t* data = static_cast<const in_t*>(input.const_data_ptr());
  if (G == 1) {
    reduce_kernel<Op><<<grid, block, smem, stream>>>(data, dg, op, chunk, nullptr, outputs_along_x);
    EMBER_CUDA_KERNEL_LAUNCH_CHECK("reduce");
    return;
  }
  // Partial accumulators in a device workspace from the caching allocator.
  Tensor ws = at::empty({static_cast<int64_t>(G * g.M * sizeof(acc_t))},
                        at::TensorOptions().dtype(kByte).device(input.device()));
  acc_t* partial = static_cast<acc_t*>(ws._mutable_data_ptr_internal());
  reduce_kernel<Op><<<grid, block, smem, stream>>>(data, dg, op, chunk, partial, outputs_along_x);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("reduce");
  finalize_kernel<Op><<<finalize_grid(g.M), kBlock, 0, stream>>>(partial, g.M, G, op);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("reduce");
}

// ---------------------------------------------------------------- entry helpers
template <template <typename, typename, typename> class OpT>
Tensor sum_like(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim,
                std::optional<ScalarType> dtype) {
  const ScalarType out_dt = reduce::sum_dtype(self, dtype);
  // The CPU reduces floats in the result dtype and integers as they are, wrapping in 64 bits.
  // Converting an integer input to the integer result first gives the same bits (wrapping sums
  // and products commute with truncation); a bool result reads its input as bool first, as
  // libtorch's does (sum([1, -1]) is true), then reduces it as int64.
  Tensor x = self;
  if (out_dt == kBool) {
    x = x.to(kBool).to(kLong);
  } else if (x.scalar_type() != out_dt) {
    x = x.to(out_dt);
  }
  const Geom g = reduce::make_geom(x, mask, false);
  Tensor out = reduce::new_out(g, out_dt, self.device());
  if (out_dt == kBool) {
    run_reduce(g, x, OpT<int64_t, uint64_t, bool>{out._mutable_data_ptr_internal<bool>()});
  } else if (isFloatingType(out_dt)) {
    EMBER_DISPATCH_ALL_FLOATING(out_dt, op, [&] { run_reduce(g, x, OpT<scalar_t, double, scalar_t>{out._mutable_data_ptr_internal<scalar_t>()}); });
  } else {
    AT_DISPATCH_INTEGRAL_TYPES(out_dt, op, [&] { run_reduce(g, x, OpT<scalar_t, uint64_t, scalar_t>{out._mutable_data_ptr_internal<scalar_t>()}); });
  }
  return reduce::shape_out(out, g, keepdim);
}

template <bool IsMax>
Tensor extreme(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim) {
  const Geom g = reduce::make_geom(self, mask, false);
  EMBER_CHECK(g.N > 0 || g.M == 0, "[", op, "] expected a non-empty reduction: the reduced dims of input ", self.sizes(),
              " have zero elements and the reduction has no identity");
  Tensor out = reduce::new_out(g, self.scalar_type(), self.device());
  EMBER_DISPATCH_ALL(self.scalar_type(), op, [&] { run_reduce(g, self, ExtremeOp<scalar_t, IsMax>{out._mutable_data_ptr_internal<scalar_t>()}); });
  return reduce::shape_out(out, g, keepdim);
}

template <bool IsMax>
std::tuple<Tensor, Tensor> arg_extreme(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim,
                                       bool with_values) {
  const Geom g = reduce::make_geom(self, mask, true);
  EMBER_CHECK(g.N > 0, "[", op, "] expected a non-empty reduction: the reduced dims of input ", self.sizes(),
              " have zero elements");
  Tensor idx = reduce::new_out(g, kLong, self.device());
  Tensor vals = with_values ? reduce::new_out(g, self.scalar_type(), self.device()) : Tensor();
  EMBER_DISPATCH_ALL(self.scalar_type(), op, [&] {
    run_reduce(g, self, ArgOp<scalar_t, IsMax>{with_values ? vals._mutable_data_ptr_internal<scalar_t>() : nullptr, idx._mutable_data_ptr_internal<int64_t>()});
  });
  return {with_values ? reduce::shape_out(vals, g, keepdim) : vals, reduce::shape_out(idx, g, keepdim)};
}

template <bool IsAll>
Tensor logical(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim) {
  const Geom g = reduce::make_geom(self, mask, false);
  // uint8 input keeps uint8 (as libtorch); every other dtype gives bool.
  const ScalarType out_dt = self.scalar_type() == kByte ? kByte : kBool;
  Tensor out = reduce::new_out(g, out_dt, self.device());
  EMBER_DISPATCH_ALL(self.scalar_type(), op, [&] {
    if (out_dt == kByte) run_reduce(g, self, LogicalOp<scalar_t, uint8_t, IsAll>{out._mutable_data_ptr_internal<uint8_t>()});
    else run_reduce(g, self, LogicalOp<scalar_t, bool, IsAll>{out._mutable_data_ptr_internal<bool>()});
  });
  return reduce::shape_out(out, g, keepdim);
}

void check_floating(const char* op, const Tensor& self) {
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[", op, "] expected a floating point input; got ",
              c10::dtypeName(self.scalar_type()));
}

}  // namespace

// ---------------------------------------------------------------- reductions
Tensor sum_dim_cuda(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like<SumOp>("sum", self, reduce::dim_mask("sum", self.dim(), dim), keepdim, dtype);
}

Tensor prod_cuda(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like<ProdOp>("prod", self, reduce::dim_mask("prod", self.dim(), std::nullopt), false, dtype);
}

Tensor prod_dim_cuda(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like<ProdOp>("prod", self, reduce::one_dim_mask("prod", self.dim(), dim), keepdim, dtype);
}

Tensor max_cuda(const Tensor& self) {
  EMBER_CHECK(self.numel() > 0, "[max] expected a non-empty input to reduce over all elements; got sizes ", self.sizes(),
              " (pass dim= to reduce one dimension)");
  return extreme<true>("max", self, reduce::dim_mask("max", self.dim(), std::nullopt), false);
}

Tensor min_cuda(const Tensor& self) {
  EMBER_CHECK(self.numel() > 0, "[min] expected a non-empty input to reduce over all elements; got sizes ", self.sizes(),
              " (pass dim= to reduce one dimension)");
  return extreme<false>("min", self, reduce::dim_mask("min", self.dim(), std::nullopt), false);
}

std::tuple<Tensor, Tensor> max_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_extreme<true>("max", self, reduce::one_dim_mask("max", self.dim(), dim), keepdim, true);
}

std::tuple<Tensor, Tensor> min_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_extreme<false>("min", self, reduce::one_dim_mask("min", self.dim(), dim), keepdim, true);
}

Tensor amax_cuda(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme<true>("amax", self, reduce::dim_mask("amax", self.dim(), dim), keepdim);
}

Tensor amin_cuda(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme<false>("amin", self, reduce::dim_mask("amin", self.dim(), dim), keepdim);
}

Tensor argmax_cuda(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CHECK(self.scalar_type() != kBool, "[argmax] expected a numeric tensor; got Bool");
  auto mask = dim ? reduce::one_dim_mask("argmax", self.dim(), *dim) : reduce::dim_mask("argmax", self.dim(), std::nullopt);
  return std::get<1>(arg_extreme<true>("argmax", self, mask, keepdim, false));
}

Tensor argmin_cuda(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CHECK(self.scalar_type() != kBool, "[argmin] expected a numeric tensor; got Bool");
  auto mask = dim ? reduce::one_dim_mask("argmin", self.dim(), *dim) : reduce::dim_mask("argmin", self.dim(), std::nullopt);
  return std::get<1>(arg_extreme<false>("argmin", self, mask, keepdim, false));
}

namespace {
// var (take_sqrt false) or std of the reduced slices.
Tensor moments_cuda(const char* op, const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                    bool keepdim, bool take_sqrt) {
  check_floating(op, self);
  const double c = correction ? correction->toDouble() : 1.0;
  const Geom g = reduce::make_geom(self, reduce::dim_mask(op, self.dim(), dim), false);
  Tensor out = reduce::new_out(g, self.scalar_type(), self.device());
  EMBER_DISPATCH_ALL_FLOATING(self.scalar_type(), op, [&] {
    run_reduce(g, self, VarOp<scalar_t>{out._mutable_data_ptr_internal<scalar_t>(), c, take_sqrt});
  });
  return reduce::shape_out(out, g, keepdim);
}
}  // namespace

Tensor var_correction_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  return moments_cuda("var", self, dim, correction, keepdim, false);
}

Tensor std_correction_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  return moments_cuda("std", self, dim, correction, keepdim, true);
}

Tensor norm_cuda(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  check_floating("norm", self);
  const double pv = p ? p->toDouble() : 2.0;
  EMBER_CHECK(!std::isnan(pv), "[norm] expected a non-NaN order p; got ", pv);
  const Geom g = reduce::make_geom(self, reduce::dim_mask("norm", self.dim(), dim), false);
  Tensor out = reduce::new_out(g, self.scalar_type(), self.device());
  EMBER_DISPATCH_ALL_FLOATING(self.scalar_type(), "norm", [&] {
    using in_t = scalar_t;
    in_t* o = out._mutable_data_ptr_internal<in_t>();
    if (pv == 0) run_reduce(g, self, NormOp<in_t, NormKind::Zero>{o, static_cast<c10::opmath_t<in_t>>(pv)});
    else if (pv == 1) run_reduce(g, self, NormOp<in_t, NormKind::One>{o, static_cast<c10::opmath_t<in_t>>(pv)});
    else if (pv == 2) run_reduce(g, self, NormOp<in_t, NormKind::Two>{o, static_cast<c10::opmath_t<in_t>>(pv)});
    else if (std::isinf(pv) && pv > 0) run_reduce(g, self, NormOp<in_t, NormKind::Inf>{o, static_cast<c10::opmath_t<in_t>>(pv)});
    else if (std::isinf(pv)) run_reduce(g, self, NormOp<in_t, NormKind::NegInf>{o, static_cast<c10::opmath_t<in_t>>(pv)});
    else run_reduce(g, self, NormOp<in_t, NormKind::General>{o, static_cast<c10::opmath_t<in_t>>(pv)});
  });
  return reduce::shape_out(out, g, keepdim);
}

Tensor logsumexp_cuda(const Tensor& self, IntArrayRef dim, bool keepdim) {
  // Integer inputs compute in the default float dtype (as on the CPU).
  Tensor x = isFloatingType(self.scalar_type()) ? self : self.to(kFloat);
  const Geom g = reduce::make_geom(x, reduce::dim_mask("logsumexp", x.dim(), dim), false);
  Tensor out = reduce::new_out(g, x.scalar_type(), x.device());
  EMBER_DISPATCH_ALL_FLOATING(x.scalar_type(), "logsumexp", [&] { run_reduce(g, x, LseOp<scalar_t>{out._mutable_data_ptr_internal<scalar_t>()}); });
  return reduce::shape_out(out, g, keepdim);
}

Tensor all_cuda(const Tensor& self) { return logical<true>("all", self, reduce::dim_mask("all", self.dim(), std::nullopt), false); }
Tensor any_cuda(const Tensor& self) { return logical<false>("any", self, reduce::dim_mask("any", self.dim(), std::nullopt), false); }
Tensor all_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  return logical<true>("all", self, reduce::one_dim_mask("all", self.dim(), dim), keepdim);
}
Tensor any_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  return logical<false>("any", self, reduce::one_dim_mask("any", self.dim(), dim), keepdim);
}

// ---------------------------------------------------------------- scans
namespace {

// Lines of a contiguous [outer, L, inner] block, scanned along L.
//   inner == 1: one block per line; each tile of kBlock * kPerThread elements is scanned by the
//     threads (kPerThread each, then an inclusive scan of the per-thread totals in shared memory)
//     and carried into the next tile.
//   inner > 1: one thread per (outer, inner) line, looping over L (neighbouring threads read
//     neighbouring elements).
template <typename T, typename Acc, bool IsProd>
__device__ __forceinline__ Acc scan_op(Acc a, Acc b) {
  if constexpr (IsProd) return a * b;
  else return a + b;
}

template <typename T, typename Acc, bool IsProd>
__global__ void scan_strided_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t outer, int64_t L, int64_t inner) {
  const int64_t lines = outer * inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < lines; t += step) {
    const int64_t o = t / inner, i = t - o * inner;
    const T* src = in + o * L * inner + i;
    T* dst = out + o * L * inner + i;
    Acc a = Acc(IsProd ? 1 : 0);
    for (int64_t k = 0; k < L; ++k) {
      a = scan_op<T, Acc, IsProd>(a, to_acc<Acc>(src[k * inner]));
      dst[k * inner] = from_acc<T>(a);
    }
  }
}

constexpr int kPerThread = 4;

template <typename T, typename Acc, bool IsProd>
__global__ void scan_rows_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows, int64_t L) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Acc* s = reinterpret_cast<Acc*>(smem_raw);
  const Acc identity = Acc(IsProd ? 1 : 0);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* src = in + row * L;
    T* dst = out + row * L;
    Acc carry = identity;
    constexpr int64_t tile = static_cast<int64_t>(kBlock) * kPerThread;
    for (int64_t t0 = 0; t0 < L; t0 += tile) {
      const int64_t i0 = t0 + static_cast<int64_t>(threadIdx.x) * kPerThread;
      Acc v[kPerThread];
      Acc local = identity;
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const Acc x = i0 + k < L ? to_acc<Acc>(src[i0 + k]) : identity;
        local = scan_op<T, Acc, IsProd>(local, x);
        v[k] = local;
      }
      // Inclusive scan of the per-thread totals (Hillis-Steele over kBlock entries).
      s[threadIdx.x] = local;
      __syncthreads();
      for (int off = 1; off < kBlock; off <<= 1) {
        const Acc other = threadIdx.x >= off ? s[threadIdx.x - off] : identity;
        __syncthreads();
        s[threadIdx.x] = scan_op<T, Acc, IsProd>(other, s[threadIdx.x]);
        __syncthreads();
      }
      const Acc before = scan_op<T, Acc, IsProd>(carry, threadIdx.x > 0 ? s[threadIdx.x - 1] : identity);
#pragma unroll
      for (int k = 0; k < kPerThread; ++k)
        if (i0 + k < L) dst[i0 + k] = from_acc<T>(scan_op<T, Acc, IsProd>(before, v[k]));
      carry = scan_op<T, Acc, IsProd>(carry, s[kBlock - 1]);
      __syncthreads();
    }
  }
}

template <bool IsProd>
Tensor scan(const char* op, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const int64_t d = maybe_wrap_dim(dim, self.dim(), op);
  const ScalarType out_dt = reduce::sum_dtype(self, dtype);
  Tensor x = (self.scalar_type() == out_dt ? self : self.to(out_dt)).contiguous();
  Tensor out = at::empty(x.sizes(), at::TensorOptions().dtype(out_dt).device(self.device()));
  if (x.numel() == 0) return out;
  const reduce::Lines lines = reduce::lines_along(x, d);
  const int64_t outer = lines.outer, L = lines.L, inner = lines.inner;
  ember::cuda::DeviceGuard guard(self.device().index());
  cudaStream_t stream = ember::cuda::current_stream();
  EMBER_DISPATCH_ALL(out_dt, op, [&] {
    using T = scalar_t;
    // Floats accumulate in double, integers and bool in wrapping 64 bits (as the CPU).
    using Acc = std::conditional_t<std::is_floating_point_v<T> || kIsReduced<T>, double, uint64_t>;
    const T* src = x.const_data_ptr<T>();
    T* dst = out._mutable_data_ptr_internal<T>();
    if (inner == 1 && L > 64) {
      const unsigned grid = static_cast<unsigned>(std::min<int64_t>(outer, 65535));
      scan_rows_kernel<T, Acc, IsProd><<<grid, kBlock, sizeof(Acc) * kBlock, stream>>>(src, dst, outer, L);
    } else {
      const int64_t lines = outer * inner;
      const unsigned grid = static_cast<unsigned>(
          std::max<int64_t>(1, std::min<int64_t>(ceil_div(lines, kBlock), 16 * static_cast<int64_t>(ember::cuda::sm_count()))));
      scan_strided_kernel<T, Acc, IsProd><<<grid, kBlock, 0, stream>>>(src, dst, outer, L, inner);
    }
    EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
  });
  return out;
}

}  // namespace

Tensor cumsum_cuda(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return scan<false>("cumsum", self, dim, dtype); }
Tensor cumprod_cuda(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return scan<true>("cumprod", self, dim, dtype); }

}  // namespace at::native
