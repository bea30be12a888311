// In-place random fills on CUDA: uniform_, normal_, random_.from, bernoulli_ (p a float or a tensor), bernoulli,
// exponential_,
// log_normal_, cauchy_, geometric_. The
// checks, dtypes and value grids are those of kernels/cpu/random.cpp; the draws come from the
// device's Philox stream instead of the CPU's mt19937 (see Note [Philox element mapping]), so a
// CUDA tensor is reproducible per seed but does not equal the CPU tensor of the same seed.
#include <ATen/TensorIterator.h>
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/IntegerCast.h>
#include <ATen/native/RandomChecks.h>
#include <ATen/native/cuda/Random.cuh>
#include <cmath>
#include <limits>
#include <type_traits>

namespace at::native {
namespace {

using ember::cuda::uniform53;

template <typename T>
constexpr bool kIsReduced = std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>;

// Mantissa bits of each floating dtype: a uniform draw on that grid in [0, 1) never rounds up to 1
// (the CPU kernel's grid).
template <typename T> constexpr int kDigits = std::numeric_limits<T>::digits;
template <> constexpr int kDigits<c10::Half> = 11;
template <> constexpr int kDigits<c10::BFloat16> = 8;

template <typename T>
EMBER_HOST_DEVICE inline T cast_out(double v) {
  if constexpr (kIsReduced<T>) return T(static_cast<float>(v));
  else return static_cast<T>(v);
}

template <typename T>
EMBER_HOST_DEVICE inline double as_double(T v) {
  if constexpr (kIsReduced<T>) return static_cast<double>(static_cast<float>(v));
  else return static_cast<double>(v);
}

// Words per element: 53-bit draws take two.
template <typename T> constexpr int kUniformWords = std::is_same_v<T, double> ? 2 : 1;

template <typename T>
struct UniformFn {
  T* out;
  double from, to, span;
  __device__ void operator()(int64_t first, int count, const uint32_t* w) const {
    for (int k = 0; k < count; ++k) {
      double u;
      if constexpr (std::is_same_v<T, double>) u = uniform53(w[2 * k], w[2 * k + 1]);
      else u = static_cast<double>(w[k] >> (32 - kDigits<T>)) * (1.0 / static_cast<double>(1u << kDigits<T>));
      T v = cast_out<T>(from + span * u);
      // from + span * u can round up to `to`; like the CPU kernel, that draw becomes `from`.
      if (span > 0 && as_double(v) >= to) v = cast_out<T>(from);
      out[first + k] = v;
    }
  }
};

// Box-Muller: each pair of elements takes two uniforms (u1 in (0, 1], u2 in [0, 1)). Exp: log_normal_,
// exp(mean + std z).
template <typename T, bool Exp = false>
struct NormalFn {
  T* out;
  double mean, std;
  __device__ double value(double z) const { return Exp ? ::exp(mean + std * z) : mean + std * z; }
  __device__ void operator()(int64_t first, int count, const uint32_t* w) const {
    for (int p = 0; 2 * p < count; ++p) {
      double z0, z1;
      if constexpr (std::is_same_v<T, double>) {
        const double u1 = 1.0 - uniform53(w[4 * p], w[4 * p + 1]);
        const double u2 = uniform53(w[4 * p + 2], w[4 * p + 3]);
        const double r = ::sqrt(-2.0 * ::log(u1));
        double s, c;
        ::sincospi(2.0 * u2, &s, &c);
        z0 = r * c;
        z1 = r * s;
      } else {
        const float u1 = static_cast<float>((1u << 24) - (w[2 * p] >> 8)) * 0x1.0p-24f;
        const float u2 = static_cast<float>(w[2 * p + 1] >> 8) * 0x1.0p-24f;
        const float r = ::sqrtf(-2.0f * ::logf(u1));
        float s, c;
        ::sincospif(2.0f * u2, &s, &c);
        z0 = static_cast<double>(r * c);
        z1 = static_cast<double>(r * s);
      }
      out[first + 2 * p] = cast_out<T>(value(z0));
      if (2 * p + 1 < count) out[first + 2 * p + 1] = cast_out<T>(value(z1));
    }
  }
};

template <typename T>
EMBER_HOST_DEVICE inline T from_int64(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) return v != 0;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(v);
  else return cast_out<T>(static_cast<double>(v));
}

// from + (bits mod range): 32-bit draws for small ranges (bias below 2^-16), 64-bit otherwise.
template <typename T, int W>
struct RandomFn {
  T* out;
  uint64_t from, range;
  __device__ void operator()(int64_t first, int count, const uint32_t* w) const {
    for (int k = 0; k < count; ++k) {
      uint64_t r;
      if constexpr (W == 1) r = w[k] % static_cast<uint32_t>(range);
      else r = ((static_cast<uint64_t>(w[2 * k]) << 32) | w[2 * k + 1]) % range;
      out[first + k] = from_int64<T>(static_cast<int64_t>(from + r));
    }
  }
};

template <typename T>
struct BernoulliScalarFn {
  T* out;
  double p;
  __device__ void operator()(int64_t first, int count, const uint32_t* w) const {
    for (int k = 0; k < count; ++k) out[first + k] = from_int64<T>(uniform53(w[2 * k], w[2 * k + 1]) < p ? 1 : 0);
  }
};

// -log1p(-u) / lambd from a 53-bit uniform u in [0, 1), rounded to the dtype (the CPU kernel's formula).
template <typename T>
struct ExponentialFn {
  T* out;
  double scale;  // -1 / lambd
  __device__ void operator()(int64_t first, int count, const uint32_t* w) const {
    for (int k = 0; k < count; ++k) out[first + k] = cast_out<T>(scale * ::log1p(-uniform53(w[2 * k], w[2 * k + 1])));
  }
};

// median + sigma tan(pi (u - 1/2)) from a 53-bit uniform (the CPU kernel's formula).
template <typename T>
struct CauchyFn {
  T* out;
  double median, sigma;
  __device__ void operator()(int64_t first, int count, const uint32_t* w) const {
    for (int k = 0; k < count; ++k) out[first + k] = cast_out<T>(median + sigma * ::tan(3.14159265358979323846 * (uniform53(w[2 * k], w[2 * k + 1]) - 0.5)));
  }
};

// ceil(log(u) / log1p(-p)) from a 53-bit uniform; integer dtypes convert as the CPU kernel does.
template <typename T>
struct GeometricFn {
  T* out;
  double denom;  // log1p(-p)
  __device__ void operator()(int64_t first, int count, const uint32_t* w) const {
    for (int k = 0; k < count; ++k) {
      const double v = ::ceil(::log(uniform53(w[2 * k], w[2 * k + 1])) / denom);
      if constexpr (std::is_integral_v<T>) out[first + k] = integer_cast<T>(v);
      else out[first + k] = cast_out<T>(v);
    }
  }
};

template <typename T, typename P = T>
struct BernoulliTensorFn {
  T* out;
  const P* probs;
  __device__ void operator()(int64_t first, int count, const uint32_t* w) const {
    for (int k = 0; k < count; ++k)
      out[first + k] = from_int64<T>(uniform53(w[2 * k], w[2 * k + 1]) < as_double(probs[first + k]) ? 1 : 0);
  }
};

// The smallest flat index whose probability is outside [0, 1] (NaN included).
template <typename T>
__global__ void first_bad_probability_kernel(const T* p, int64_t n, unsigned long long* first_bad) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const double v = as_double(p[i]);
    if (!(v >= 0.0 && v <= 1.0)) atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

// random_'s end of range without `to`: the dtype's largest value, 2^digits + 1 for floats.
template <typename T>
constexpr int64_t default_random_end() {
  if constexpr (std::is_same_v<T, bool>) return 2;
  else if constexpr (std::is_integral_v<T>) return static_cast<int64_t>(std::numeric_limits<T>::max());
  else return (int64_t(1) << std::min(kDigits<T>, 62)) + 1;
}

std::string dtype_str(const Tensor& t) { return c10::dtypeName(t.scalar_type()); }

// Fills `self` through a contiguous buffer (row-major element order):
// fill(dst, state) launches the kernel for the reserved Philox state.
template <typename F>
Tensor& fill_random(Tensor& self, const char* op, const std::optional<Generator>& gen, int words_per_element,
                    const F& fill) {
  EMBER_CHECK(self.is_cuda(), "[", op, "] expected a CUDA tensor; got self on ", self.device());
  const int device = self.device().index();
  ::ember::cuda::DeviceGuard guard(device);
  const int64_t n = self.numel();
  const ember::philox::State s = ::ember::cuda::reserve_philox(gen, device, op, ::ember::cuda::philox_words(n, words_per_element));
  if (n == 0) return self;
  Tensor dst = self.is_contiguous() ? self : at::empty(self.sizes(), self.options());
  fill(dst, s);
  if (!dst.is_same(self)) self.copy_(dst);
  return self;
}

}  // namespace

Tensor& uniform_cuda(Tensor& self, double from, double to, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[uniform_] expected a floating-point tensor; got self ", dtype_str(self));
  EMBER_CHECK(from <= to, "[uniform_] expected from <= to; got from ", from, ", to ", to);
  EMBER_CHECK(std::isfinite(to - from), "[uniform_] the range to - from must be finite; got from ", from, ", to ", to);
  const int W = self.scalar_type() == kDouble ? 2 : 1;
  return fill_random(self, "uniform_", generator, W, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "uniform_", [&] {
      UniformFn<scalar_t> f{dst._mutable_data_ptr_internal<scalar_t>(), from, to, to - from};
      ::ember::cuda::launch_philox_groups<kUniformWords<scalar_t>>(dst.numel(), s, f, "uniform_");
    });
  });
}

Tensor& normal_cuda(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[normal_] expected a floating-point tensor; got self ", dtype_str(self));
  EMBER_CHECK(std >= 0.0, "[normal_] expected std >= 0; got std ", std);
  const int W = self.scalar_type() == kDouble ? 2 : 1;
  return fill_random(self, "normal_", generator, W, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "normal_", [&] {
      NormalFn<scalar_t> f{dst._mutable_data_ptr_internal<scalar_t>(), mean, std};
      ::ember::cuda::launch_philox_groups<kUniformWords<scalar_t>>(dst.numel(), s, f, "normal_");
    });
  });
}

Tensor& random_from_cuda(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> generator) {
  // Without `to`, the range ends at the dtype's largest value (2^digits for floats), as on the CPU.
  int64_t hi;
  if (to) {
    hi = *to;
  } else {
    EMBER_DISPATCH_ALL(self.scalar_type(), "random_", [&] { hi = default_random_end<scalar_t>(); });
  }
  EMBER_CHECK(from < hi, "[random_] expected from < to; got from ", from, ", to ", hi);
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(from);
  const bool narrow = range <= (uint64_t(1) << 16);
  return fill_random(self, "random_", generator, narrow ? 1 : 2, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "random_", [&] {
      if (narrow) {
        RandomFn<scalar_t, 1> f{dst._mutable_data_ptr_internal<scalar_t>(), static_cast<uint64_t>(from), range};
        ::ember::cuda::launch_philox_groups<1>(dst.numel(), s, f, "random_");
      } else {
        RandomFn<scalar_t, 2> f{dst._mutable_data_ptr_internal<scalar_t>(), static_cast<uint64_t>(from), range};
        ::ember::cuda::launch_philox_groups<2>(dst.numel(), s, f, "random_");
      }
    });
  });
}

// random_() with no range: the dtype's range from 0 (2^digits for floats), drawn as random_(0) draws it.
Tensor& random_cuda(Tensor& self, std::optional<Generator> generator) {
  return random_from_cuda(self, 0, std::nullopt, std::move(generator));
}

Tensor& bernoulli_float_cuda(Tensor& self, double p, std::optional<Generator> generator) {
  EMBER_CHECK(p >= 0.0 && p <= 1.0, "[bernoulli_] expected 0 <= p <= 1; got p ", p);
  return fill_random(self, "bernoulli_", generator, 2, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "bernoulli_", [&] {
      BernoulliScalarFn<scalar_t> f{dst._mutable_data_ptr_internal<scalar_t>(), p};
      ::ember::cuda::launch_philox_groups<2>(dst.numel(), s, f, "bernoulli_");
    });
  });
}

Tensor& exponential_cuda(Tensor& self, double lambd, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[exponential_] expected a floating-point tensor; got self ", dtype_str(self));
  EMBER_CHECK(lambd > 0.0, "[exponential_] expected lambd > 0; got lambd ", lambd);
  return fill_random(self, "exponential_", generator, 2, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "exponential_", [&] {
      ExponentialFn<scalar_t> f{dst._mutable_data_ptr_internal<scalar_t>(), -1.0 / lambd};
      ::ember::cuda::launch_philox_groups<2>(dst.numel(), s, f, "exponential_");
    });
  });
}

Tensor& log_normal_cuda(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  check_log_normal_args(self, std);
  const int W = self.scalar_type() == kDouble ? 2 : 1;
  return fill_random(self, "log_normal_", generator, W, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "log_normal_", [&] {
      NormalFn<scalar_t, true> f{dst._mutable_data_ptr_internal<scalar_t>(), mean, std};
      ::ember::cuda::launch_philox_groups<kUniformWords<scalar_t>>(dst.numel(), s, f, "log_normal_");
    });
  });
}

Tensor& cauchy_cuda(Tensor& self, double median, double sigma, std::optional<Generator> generator) {
  check_cauchy_args(self, sigma);
  return fill_random(self, "cauchy_", generator, 2, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "cauchy_", [&] {
      CauchyFn<scalar_t> f{dst._mutable_data_ptr_internal<scalar_t>(), median, sigma};
      ::ember::cuda::launch_philox_groups<2>(dst.numel(), s, f, "cauchy_");
    });
  });
}

Tensor& geometric_cuda(Tensor& self, double p, std::optional<Generator> generator) {
  check_geometric_args(self, p);
  const double denom = std::log1p(-p);
  return fill_random(self, "geometric_", generator, 2, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "geometric_", [&] {
      if constexpr (!std::is_same_v<scalar_t, bool>) {
        GeometricFn<scalar_t> f{dst._mutable_data_ptr_internal<scalar_t>(), denom};
        ::ember::cuda::launch_philox_groups<2>(dst.numel(), s, f, "geometric_");
      }
    });
  });
}

namespace {
// The CPU kernel checks every probability first; here one device pass finds the first bad one.
void check_probs(const Tensor& probs, const char* op) {
  const int64_t n = probs.numel();
  if (n == 0) return;
  cudaStream_t stream = ::ember::cuda::current_stream();
  Tensor flag = at::empty({1}, TensorOptions().dtype(kLong).device(probs.device()));
  unsigned long long first_bad = std::numeric_limits<unsigned long long>::max();
  EMBER_CUDA_CHECK(cudaMemcpyAsync(flag._mutable_data_ptr_internal(), &first_bad, sizeof(first_bad), cudaMemcpyHostToDevice, stream));
  EMBER_DISPATCH_ALL_FLOATING(probs.scalar_type(), op, [&] {
    const int64_t blocks = std::min<int64_t>((n + 255) / 256, static_cast<int64_t>(::ember::cuda::sm_count()) * 8);
    first_bad_probability_kernel<scalar_t><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
        probs.const_data_ptr<scalar_t>(), n, static_cast<unsigned long long*>(flag._mutable_data_ptr_internal()));
    EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
    EMBER_CUDA_CHECK(cudaMemcpyAsync(&first_bad, flag._mutable_data_ptr_internal(), sizeof(first_bad), cudaMemcpyDeviceToHost, stream));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (first_bad != std::numeric_limits<unsigned long long>::max()) {
      scalar_t bad;
      EMBER_CUDA_CHECK(cudaMemcpyAsync(&bad, probs.const_data_ptr<scalar_t>() + first_bad, sizeof(bad), cudaMemcpyDeviceToHost, stream));
      EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
      EMBER_CHECK(false, "[", op, "] expected all probabilities in [0, 1]; got ", as_double(bad), " at flat index ",
                  static_cast<int64_t>(first_bad));
    }
  });
}
}  // namespace

Tensor bernoulli_cuda(const Tensor& self, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[bernoulli] expected a floating-point tensor of probabilities; got self ", dtype_str(self));
  EMBER_CHECK(self.is_cuda(), "[bernoulli] expected a CUDA tensor; got self on ", self.device());
  ::ember::cuda::DeviceGuard guard(self.device().index());
  const Tensor probs = self.contiguous();
  check_probs(probs, "bernoulli");
  Tensor out = at::empty(self.sizes(), self.options());
  fill_random(out, "bernoulli", generator, 2, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "bernoulli", [&] {
      BernoulliTensorFn<scalar_t> f{dst._mutable_data_ptr_internal<scalar_t>(), probs.const_data_ptr<scalar_t>()};
      ::ember::cuda::launch_philox_groups<2>(dst.numel(), s, f, "bernoulli");
    });
  });
  return out;
}

// bernoulli_(p), p broadcast to self: the probabilities as float64 in self's shape, row-major as
// fill_random writes the draws.
Tensor& bernoulli_Tensor_cuda(Tensor& self, const Tensor& p, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_cuda(), "[bernoulli_] expected a CUDA tensor; got self on ", self.device());
  check_bernoulli_probs_arg(self, p);
  ::ember::cuda::DeviceGuard guard(self.device().index());
  const Tensor given = p.to(self.device(), kDouble).contiguous();
  check_probs(given, "bernoulli_");
  const Tensor probs = given.expand(self.sizes()).contiguous();
  return fill_random(self, "bernoulli_", generator, 2, [&](Tensor& dst, ember::philox::State s) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "bernoulli_", [&] {
      BernoulliTensorFn<scalar_t, double> f{dst._mutable_data_ptr_internal<scalar_t>(), probs.const_data_ptr<double>()};
      ::ember::cuda::launch_philox_groups<2>(dst.numel(), s, f, "bernoulli_");
    });
  });
}

}  // namespace at::native
