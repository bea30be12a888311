// In-place random fills on the CPU: uniform_, normal_, random_.from, bernoulli_, bernoulli.
//
// Note [Serial random fills]
// Every fill draws from the generator serially, in the row-major order of the tensor's elements,
// holding the generator's mutex for the whole fill. The same seed therefore gives the same tensor
// whatever the thread count or the tensor's memory layout (a non-contiguous tensor is filled
// through a contiguous buffer). Determinism is worth more than a parallel fill here.
#include <ATen/native/NativeFunctions.h>
#include <ATen/Generator.h>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>

namespace at::native {

namespace {

const Generator& pick_generator(const std::optional<Generator>& gen) {
  return (gen.has_value() && gen->defined()) ? *gen : detail::getDefaultCPUGenerator();
}

// Runs fill(ptr, n, engine) on a contiguous buffer for `self` under the generator's lock, and
// copies back when `self` is not contiguous.
template <typename F>
Tensor& fill_random(Tensor& self, const char* op, const std::optional<Generator>& gen, const F& fill) {
  EMBER_CHECK(self.is_cpu(), "[", op, "] expected a CPU tensor; got self on ", self.device());
  const Generator& g = pick_generator(gen);
  Tensor dst = self.is_contiguous() ? self : at::empty(self.sizes(), self.options());
  {
    std::lock_guard<std::mutex> lock(g.mutex());
    fill(dst, g.get());
  }
  if (!dst.is_same(self)) self.copy_(dst);
  return self;
}

// Mantissa bits of each floating dtype: a uniform draw on that grid in [0, 1) never rounds up to 1.
template <typename T> constexpr int kDigits = std::numeric_limits<T>::digits;
template <> constexpr int kDigits<c10::Half> = 11;
template <> constexpr int kDigits<c10::BFloat16> = 8;

template <typename T>
inline double uniform01(GeneratorImpl* g) {
  constexpr int d = kDigits<T>;
  return static_cast<double>(g->random64() >> (64 - d)) * std::ldexp(1.0, -d);
}

template <typename T>
inline T cast_float(double v) {
  if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) return static_cast<T>(static_cast<float>(v));
  else return static_cast<T>(v);
}

std::string dtype_str(const Tensor& t) { return c10::dtypeName(t.scalar_type()); }
}  // namespace

Tensor& uniform_cpu(Tensor& self, double from, double to, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[uniform_] expected a floating-point tensor; got self ", dtype_str(self));
  EMBER_CHECK(from <= to, "[uniform_] expected from <= to; got from ", from, ", to ", to);
  EMBER_CHECK(std::isfinite(to - from), "[uniform_] the range to - from must be finite; got from ", from, ", to ", to);
  return fill_random(self, "uniform_", generator, [&](Tensor& dst, GeneratorImpl* g) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "uniform_", [&] {
      scalar_t* p = dst.data_ptr<scalar_t>();
      const double span = to - from;
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) {
        scalar_t v = cast_float<scalar_t>(from + span * uniform01<scalar_t>(g));
        // from + span * u can round up to `to` (rarely, when span is not a power of two); mapping
        // that case to `from` keeps the result in [from, to).
        if (span > 0 && static_cast<double>(v) >= to) v = cast_float<scalar_t>(from);
        p[i] = v;
      }
    });
  });
}

Tensor& normal_cpu(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[normal_] expected a floating-point tensor; got self ", dtype_str(self));
  EMBER_CHECK(std >= 0.0, "[normal_] expected std >= 0; got std ", std);
  return fill_random(self, "normal_", generator, [&](Tensor& dst, GeneratorImpl* g) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "normal_", [&] {
      scalar_t* p = dst.data_ptr<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) p[i] = cast_float<scalar_t>(mean + std * g->normal());
    });
  });
}

Tensor& random_from_cpu(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> generator) {
  // Without `to`, the range ends at the dtype's largest value (2^digits for floats, as libtorch).
  int64_t hi;
  if (to) {
    hi = *to;
  } else {
    EMBER_DISPATCH_ALL(self.scalar_type(), "random_", [&] {
      if constexpr (std::is_same_v<scalar_t, bool>) hi = 2;
      else if constexpr (std::is_integral_v<scalar_t>) hi = static_cast<int64_t>(std::numeric_limits<scalar_t>::max());
      else hi = (int64_t(1) << std::min(kDigits<scalar_t>, 62)) + 1;
    });
  }
  EMBER_CHECK(from < hi, "[random_] expected from < to; got from ", from, ", to ", hi);
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(from);
  return fill_random(self, "random_", generator, [&](Tensor& dst, GeneratorImpl* g) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "random_", [&] {
      scalar_t* p = dst.data_ptr<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) {
        const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(from) + g->random64() % range);
        if constexpr (std::is_same_v<scalar_t, bool>) p[i] = v != 0;
        else if constexpr (std::is_integral_v<scalar_t>) p[i] = static_cast<scalar_t>(v);
        else p[i] = cast_float<scalar_t>(static_cast<double>(v));
      }
    });
  });
}

Tensor& bernoulli_float_cpu(Tensor& self, double p, std::optional<Generator> generator) {
  EMBER_CHECK(p >= 0.0 && p <= 1.0, "[bernoulli_] expected 0 <= p <= 1; got p ", p);
  return fill_random(self, "bernoulli_", generator, [&](Tensor& dst, GeneratorImpl* g) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "bernoulli_", [&] {
      scalar_t* out = dst.data_ptr<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) {
        const bool hit = g->uniform() < p;
        if constexpr (std::is_same_v<scalar_t, bool>) out[i] = hit;
        else out[i] = cast_float<scalar_t>(hit ? 1.0 : 0.0);
      }
    });
  });
}

Tensor bernoulli_cpu(const Tensor& self, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[bernoulli] expected a floating-point tensor of probabilities; got self ", dtype_str(self));
  Tensor probs = self.to(kDouble).contiguous();
  const double* pp = probs.data_ptr<double>();
  for (int64_t i = 0, n = probs.numel(); i < n; ++i)
    EMBER_CHECK(pp[i] >= 0.0 && pp[i] <= 1.0, "[bernoulli] expected all probabilities in [0, 1]; got ", pp[i], " at flat index ", i);
  Tensor out = at::empty(self.sizes(), self.options());
  fill_random(out, "bernoulli", generator, [&](Tensor& dst, GeneratorImpl* g) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "bernoulli", [&] {
      scalar_t* o = dst.data_ptr<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) o[i] = cast_float<scalar_t>(g->uniform() < pp[i] ? 1.0 : 0.0);
    });
  });
  return out;
}

}  // namespace at::native
