// In-place random fills on the CPU: uniform_, normal_, random_.from, bernoulli_ (p a float or a tensor),
// bernoulli, exponential_,
// log_normal_, cauchy_, geometric_.
//
// Note [CPU random streams]
// The CPU generator and every draw below follow libtorch's CPU stream, so a program seeded with
// torch::manual_seed(s) gets libtorch's numbers (values recorded from libtorch in
// tests/aten/test_random.cpp; the recorder is tests/aten/libtorch/record_random.cpp).
// - Engine: MT19937 seeded with the low 32 bits of the seed. random() is one 32-bit output;
//   random64() is two, the first in the high half.
// - Uniform in [0, 1): double takes random64() & (2^53 - 1) times 2^-53; float, half and bfloat16
//   take random() & (2^24 - 1) times 2^-24 as a float. uniform_(from, to) computes
//   fma(u, to - from, from) in double (double) or float (the others), rounds to the dtype, and
//   replaces a result that rounded to `to` by `from`.
// - normal_ on a contiguous tensor of 16 or more elements: every element first gets a uniform
//   (in float for float, half and bfloat16; double for double), then each block of 16 becomes 8
//   Box-Muller pairs (kernels/cpu/box_muller.h). When the size is not a multiple of 16, the last 16
//   elements are drawn again and transformed again, overwriting the tail of the previous block.
//   Half and bfloat16 go block by block through a float buffer. Any other normal_ (fewer than 16
//   elements, or not contiguous) draws element by element: a double Box-Muller from two uniforms
//   u1, u2 (r = sqrt(-2 log1p(-u2)), theta = 2 pi u1), returning r cos(theta) and keeping
//   r sin(theta) in the generator for the next element, even across calls, until the next reseed.
// - random_(from, to): range = to - from; x = (range >= 2^28 ? random64() : random()) % range + from.
// - bernoulli_(p) and dropout's mask: a double uniform per element, 1 when u < p. bernoulli(probs)
//   and bernoulli_(tensor p) draw a double uniform for float64 probabilities and a float one
//   otherwise.
// - exponential_(lambd): -log1p(-u) / lambd from a double uniform, rounded to the dtype.
// - log_normal_(mean, std): exp(mean + std * z) with z the element-by-element double normal above
//   (cached second value included), rounded to the dtype.
// - cauchy_(median, sigma): fma(sigma, tan(pi (u - 1/2)), median) from a double uniform (libtorch's
//   x86 build fuses it, as it does log_normal_'s mean + std * z).
// - geometric_(p): ceil(log(u) / log1p(-p)) from a double uniform, in double; integer dtypes take
//   it as x86 truncates a double (Note [Double to integer as on x86] in ATen/native/IntegerCast.h).
// - Element order: one element after another in the tensor's memory order (dimensions sorted by
//   stride, outermost first), as libtorch's serial loops visit them; a transposed tensor is filled
//   as its storage is laid out. Fills are serial under the generator's mutex, so the same seed gives
//   the same tensor whatever the thread count.
// Where libtorch itself differs by machine: its normal_ on 16+ contiguous float elements uses the
// SIMD step above on x86 builds with AVX2 or AVX-512 (what Ember reproduces); a build or
// ATEN_CPU_CAPABILITY without them uses libm's logf/cosf/sinf and rounds some elements differently.
#include <ATen/TensorIterator.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/IntegerCast.h>
#include <ATen/native/RandomChecks.h>
#include <ATen/native/RandomDraws.h>
#include "box_muller.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <vector>

namespace at::native {
// The float Box-Muller pass, per CPU capability level (kernels/cpu/isa/box_muller.cpp).
using normal_fill_float_fn = void (*)(float*, int64_t, float, float);
EMBER_DEFINE_DISPATCH(normal_fill_float_fn, normal_fill_float_stub);


namespace {

// The float type a dtype's uniform and normal draws are computed in.
template <typename T> using opmath_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// A value converted to T as C++ converts to a builtin type (half and bfloat16 via float).
template <typename T, typename V>
inline T convert(V v) {
  if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) return T(static_cast<float>(v));
  else return static_cast<T>(v);
}

// `self`'s dimensions in memory order (largest stride first, size-1 dimensions ahead of the
// rest): a row-major walk of self.permute(order) visits the storage as libtorch's loops do.
std::vector<int64_t> memory_order(const Tensor& self) {
  std::vector<int64_t> perm(static_cast<size_t>(self.dim()));
  std::iota(perm.begin(), perm.end(), int64_t(0));
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    const bool a_one = self.size(a) == 1, b_one = self.size(b) == 1;
    if (a_one || b_one) return a_one && !b_one;
    return self.stride(a) > self.stride(b);
  });
  return perm;
}

Tensor memory_order_view(const Tensor& self) { return self.permute(memory_order(self)); }

// Runs fill(ptr, n, generator) over `self`'s elements in memory order under the generator's
// lock; a tensor whose memory is not one dense block is filled through a buffer.
template <typename F>
Tensor& fill_serial(Tensor& self, const char* op, const std::optional<Generator>& gen, const F& fill) {
  EMBER_CHECK(self.is_cpu(), "[", op, "] expected a CPU tensor; got self on ", self.device());
  CPUGeneratorImpl* g = detail::cpu_generator(gen, op);
  if (self.numel() == 0) return self;
  Tensor view = self.is_contiguous() ? self : memory_order_view(self);
  const bool direct = view.is_contiguous();
  Tensor dst = direct ? view : at::empty(view.sizes(), view.options());
  {
    std::lock_guard<std::mutex> lock(g->mutex_);
    fill(dst, g);
  }
  if (!direct) view.copy_(dst);
  return self;
}

// The blockwise normal_ of Note [CPU random streams] on a contiguous tensor of n >= 16 elements.
template <typename scalar_t>
void normal_fill(Tensor& self, double mean, double std, CPUGeneratorImpl* g) {
  using acc_t = opmath_t<scalar_t>;
  const acc_t m = static_cast<acc_t>(mean), s = static_cast<acc_t>(std);
  auto draw = [g]() -> acc_t {
    if constexpr (std::is_same_v<acc_t, double>) return uniform_double(g);
    else return uniform_float(g);
  };
  const int64_t n = self.numel();
  scalar_t* p = self._mutable_data_ptr_internal<scalar_t>();
  if constexpr (std::is_same_v<scalar_t, acc_t>) {
    for (int64_t i = 0; i < n; ++i) p[i] = draw();
    const int64_t whole = n - n % 16;
    if constexpr (std::is_same_v<scalar_t, float>) normal_fill_float_stub(p, whole, m, s);
    else for (int64_t i = 0; i < whole; i += 16) box_muller::fill16(p + i, m, s);
    if (n % 16 != 0) {
      for (int64_t i = n - 16; i < n; ++i) p[i] = draw();
      box_muller::fill16(p + n - 16, m, s);
    }
  } else {
    acc_t buf[16];
    auto block = [&](int64_t start) {
      for (auto& b : buf) b = draw();
      box_muller::fill16(buf, m, s);
      for (int j = 0; j < 16; ++j) p[start + j] = convert<scalar_t>(buf[j]);
    };
    for (int64_t i = 0; i + 16 <= n; i += 16) block(i);
    if (n % 16 != 0) block(n - 16);
  }
}

std::string dtype_str(const Tensor& t) { return c10::dtypeName(t.scalar_type()); }

// libtorch moves a float `from`/`to` of random_ to the nearest integers the dtype represents
// inside [from, to): `from` up when from + 1 rounds below it, `to` down when to - 1 rounds to it.
template <typename T>
int64_t representable_from(int64_t from) {
  const double converted = static_cast<double>(convert<T>(from + 1));
  if (!std::isfinite(converted)) return from;  // beyond the dtype: the range check reports it
  const auto rounded = static_cast<int64_t>(converted);
  if (rounded >= from) return from;
  int64_t mag = std::abs(from + 1);
  int bits = 0;
  while (mag >>= 1) ++bits;
  return rounded + (int64_t(1) << (bits - std::numeric_limits<T>::digits + 1));
}
template <typename T>
int64_t representable_to(int64_t to) {
  const double converted = static_cast<double>(convert<T>(to - 1));
  if (!std::isfinite(converted)) return to;
  const auto rounded = static_cast<int64_t>(converted);
  if (rounded < to) return to;
  int64_t mag = std::abs(to - 1);
  int bits = 0;
  while (mag >>= 1) ++bits;
  return rounded - (int64_t(1) << (bits - std::numeric_limits<T>::digits + 1));
}

}  // namespace

Tensor& uniform_cpu(Tensor& self, double from, double to, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[uniform_] expected a floating-point tensor; got self ", dtype_str(self));
  EMBER_CHECK(from <= to, "[uniform_] expected from <= to; got from ", from, ", to ", to);
  EMBER_CHECK(std::isfinite(to - from), "[uniform_] the range to - from must be finite; got from ", from, ", to ", to);
  return fill_serial(self, "uniform_", generator, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "uniform_", [&] {
      using acc_t = opmath_t<scalar_t>;
      const acc_t lo = static_cast<acc_t>(from), hi = static_cast<acc_t>(to), span = hi - lo;
      const scalar_t lo_t = convert<scalar_t>(from), hi_t = convert<scalar_t>(to);
      scalar_t* p = dst._mutable_data_ptr_internal<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) {
        acc_t u;
        if constexpr (std::is_same_v<acc_t, double>) u = uniform_double(g);
        else u = uniform_float(g);
        const scalar_t v = convert<scalar_t>(std::fma(u, span, lo));
        p[i] = static_cast<acc_t>(v) == static_cast<acc_t>(hi_t) ? lo_t : v;  // a value that rounded up to `to` wraps to `from`
      }
    });
  });
}

Tensor& normal_cpu(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[normal_] expected a floating-point tensor; got self ", dtype_str(self));
  EMBER_CHECK(std >= 0.0, "[normal_] expected std >= 0; got std ", std);
  const int64_t n = self.numel();
  if (n >= 16 && self.is_contiguous()) {  // the blockwise path of Note [CPU random streams]
    EMBER_CHECK(self.is_cpu(), "[normal_] expected a CPU tensor; got self on ", self.device());
    CPUGeneratorImpl* g = detail::cpu_generator(generator, "normal_");
    std::lock_guard<std::mutex> lock(g->mutex_);
    EMBER_DISPATCH_ALL_FLOATING(self.scalar_type(), "normal_", [&] { normal_fill<scalar_t>(self, mean, std, g); });
    return self;
  }
  return fill_serial(self, "normal_", generator, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "normal_", [&] {
      scalar_t* p = dst._mutable_data_ptr_internal<scalar_t>();
      for (int64_t i = 0, k = dst.numel(); i < k; ++i) p[i] = convert<scalar_t>(std::fma(normal_double(g), std, mean));
    });
  });
}

// An integer draw as an element: bool is its being nonzero, other dtypes its value converted.
template <typename scalar_t>
inline scalar_t from_integer(int64_t v) {
  if constexpr (std::is_same_v<scalar_t, bool>) return v != 0;
  else if constexpr (std::is_integral_v<scalar_t>) return static_cast<scalar_t>(v);
  else return convert<scalar_t>(static_cast<opmath_t<scalar_t>>(v));
}

Tensor& random_from_cpu(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> generator) {
  const ScalarType dt = self.scalar_type();
  const bool floating = isFloatingType(dt);
  uint64_t range = 0;  // 0 stands for the whole 64-bit range
  if (to) {
    int64_t hi = *to;
    EMBER_CHECK(from < hi, "[random_] expected from < to; got from ", from, ", to ", hi);
    if (floating) {
      EMBER_DISPATCH_ALL_FLOATING(dt, "random_", [&] {
        from = representable_from<scalar_t>(from);
        hi = representable_to<scalar_t>(hi);
      });
      EMBER_CHECK(from < hi, "[random_] expected from < to after rounding to ", c10::dtypeName(dt), "; got from ", from,
                  ", to ", hi);
    }
    range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(from);
  } else if (from != std::numeric_limits<int64_t>::min()) {
    // Without `to`, values run up to the dtype's largest value inclusive (2^digits for floats).
    int64_t last = 0;
    EMBER_DISPATCH_ALL(dt, "random_", [&] {
      if constexpr (std::is_same_v<scalar_t, bool>) last = 1;
      else if constexpr (std::is_integral_v<scalar_t>) last = static_cast<int64_t>(std::numeric_limits<scalar_t>::max());
      else {
        last = int64_t(1) << std::min(std::numeric_limits<scalar_t>::digits, 62);
        from = representable_from<scalar_t>(from);
      }
    });
    EMBER_CHECK(from <= last, "[random_] expected from <= the largest ", c10::dtypeName(dt), " value ", last,
                "; got from ", from);
    range = static_cast<uint64_t>(last) - static_cast<uint64_t>(from) + 1;
  } else {
    EMBER_CHECK(dt == kLong || dt == kDouble || dt == kFloat || dt == kBFloat16,
                "[random_] expected int64, float64, float32 or bfloat16 for the full int64 range; got self ",
                c10::dtypeName(dt));
  }
  return fill_serial(self, "random_", generator, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "random_", [&] {
      scalar_t* p = dst._mutable_data_ptr_internal<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) {
        int64_t v;
        if (range == 0) v = static_cast<int64_t>(g->random64());
        else if (range >= (uint64_t(1) << 28)) v = static_cast<int64_t>(g->random64() % range + static_cast<uint64_t>(from));
        else v = static_cast<int64_t>(g->random() % range + static_cast<uint64_t>(from));
        p[i] = from_integer<scalar_t>(static_cast<int64_t>(v));
      }
    });
  });
}

// random_() with no range: one draw per element, 64 bits for int64 and float64 and 32 bits for the other
// dtypes, reduced modulo (largest value + 1) for integers, modulo 2^digits + 1 for floating dtypes (so
// every value is an integer the dtype holds exactly) and to its lowest bit for bool. These are the draws
// libtorch's random_() takes, so a seeded generator gives the same values and is left in the same state.
Tensor& random_cpu(Tensor& self, std::optional<Generator> generator) {
  return fill_serial(self, "random_", generator, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "random_", [&] {
      scalar_t* p = dst._mutable_data_ptr_internal<scalar_t>();
      constexpr bool wide = std::is_same_v<scalar_t, int64_t> || std::is_same_v<scalar_t, double>;
      uint64_t mod = 0;
      if constexpr (std::is_same_v<scalar_t, bool>) mod = 2;
      else if constexpr (std::is_integral_v<scalar_t>) mod = static_cast<uint64_t>(std::numeric_limits<scalar_t>::max()) + 1;
      else mod = (uint64_t(1) << std::numeric_limits<scalar_t>::digits) + 1;
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) {
        const uint64_t v = (wide ? g->random64() : static_cast<uint64_t>(g->random())) % mod;
        p[i] = from_integer<scalar_t>(static_cast<int64_t>(v));
      }
    });
  });
}

Tensor& bernoulli_float_cpu(Tensor& self, double p, std::optional<Generator> generator) {
  EMBER_CHECK(p >= 0.0 && p <= 1.0, "[bernoulli_] expected 0 <= p <= 1; got p ", p);
  return fill_serial(self, "bernoulli_", generator, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "bernoulli_", [&] {
      scalar_t* out = dst._mutable_data_ptr_internal<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) out[i] = convert<scalar_t>(uniform_double(g) < p ? 1 : 0);
    });
  });
}

namespace {
// The probabilities as a contiguous float64 CPU copy (a copy: they may alias the tensor drawn into),
// each checked to lie in [0, 1] before anything is drawn.
Tensor checked_probs(const Tensor& p, const char* op) {
  Tensor probs = at::empty(p.sizes(), TensorOptions().dtype(kDouble)).copy_(p);
  const double* pp = probs.const_data_ptr<double>();
  for (int64_t i = 0, n = probs.numel(); i < n; ++i)
    EMBER_CHECK(pp[i] >= 0.0 && pp[i] <= 1.0, "[", op, "] expected all probabilities in [0, 1]; got ", pp[i], " at flat index ", i);
  return probs;
}

// Bernoulli draws into `self` against `probs` (float64, contiguous, laid out in the order fill_serial
// visits self's elements): a double uniform per element for float64 probabilities (`exact`), a
// float one otherwise.
Tensor& bernoulli_draws(Tensor& self, const Tensor& probs, bool exact, const char* op, const std::optional<Generator>& gen) {
  const double* pp = probs.const_data_ptr<double>();
  return fill_serial(self, op, gen, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), op, [&] {
      scalar_t* o = dst._mutable_data_ptr_internal<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) {
        const bool hit = exact ? uniform_double(g) < pp[i] : uniform_float(g) < static_cast<float>(pp[i]);
        o[i] = convert<scalar_t>(hit ? 1 : 0);
      }
    });
  });
}
}  // namespace

// bernoulli_(p) with a tensor of probabilities broadcast to self: one draw per element of self in
// its memory order.
Tensor& bernoulli_Tensor_cpu(Tensor& self, const Tensor& p, std::optional<Generator> generator) {
  check_bernoulli_probs_arg(self, p);
  Tensor aligned = checked_probs(p, "bernoulli_").expand(self.sizes());
  if (!self.is_contiguous()) aligned = aligned.permute(memory_order(self));
  return bernoulli_draws(self, aligned.contiguous(), p.scalar_type() == kDouble, "bernoulli_", generator);
}

// bernoulli(probs): a fresh contiguous tensor, so the draws go in the probabilities' row-major order.
Tensor bernoulli_cpu(const Tensor& self, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[bernoulli] expected a floating-point tensor of probabilities; got self ", dtype_str(self));
  Tensor probs = checked_probs(self, "bernoulli");
  Tensor out = at::empty(self.sizes(), self.options());
  bernoulli_draws(out, probs, self.scalar_type() == kDouble, "bernoulli", generator);
  return out;
}

Tensor& exponential_cpu(Tensor& self, double lambd, std::optional<Generator> generator) {
  EMBER_CHECK(self.is_floating_point(), "[exponential_] expected a floating-point tensor; got self ", dtype_str(self));
  EMBER_CHECK(lambd > 0.0, "[exponential_] expected lambd > 0; got lambd ", lambd);
  const double scale = -1.0 / lambd;
  return fill_serial(self, "exponential_", generator, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "exponential_", [&] {
      scalar_t* p = dst._mutable_data_ptr_internal<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) p[i] = convert<scalar_t>(scale * std::log1p(-uniform_double(g)));
    });
  });
}

Tensor& log_normal_cpu(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  check_log_normal_args(self, std);
  return fill_serial(self, "log_normal_", generator, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "log_normal_", [&] {
      scalar_t* p = dst._mutable_data_ptr_internal<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i) p[i] = convert<scalar_t>(std::exp(std::fma(normal_double(g), std, mean)));
    });
  });
}

Tensor& cauchy_cpu(Tensor& self, double median, double sigma, std::optional<Generator> generator) {
  check_cauchy_args(self, sigma);
  constexpr double kPi = 3.14159265358979323846;
  return fill_serial(self, "cauchy_", generator, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL_FLOATING(dst.scalar_type(), "cauchy_", [&] {
      scalar_t* p = dst._mutable_data_ptr_internal<scalar_t>();
      for (int64_t i = 0, n = dst.numel(); i < n; ++i)
        p[i] = convert<scalar_t>(std::fma(sigma, std::tan(kPi * (uniform_double(g) - 0.5)), median));
    });
  });
}

Tensor& geometric_cpu(Tensor& self, double p, std::optional<Generator> generator) {
  check_geometric_args(self, p);
  const double denom = std::log1p(-p);
  return fill_serial(self, "geometric_", generator, [&](Tensor& dst, CPUGeneratorImpl* g) {
    EMBER_DISPATCH_ALL(dst.scalar_type(), "geometric_", [&] {
      if constexpr (!std::is_same_v<scalar_t, bool>) {
        scalar_t* out = dst._mutable_data_ptr_internal<scalar_t>();
        for (int64_t i = 0, n = dst.numel(); i < n; ++i) {
          const double v = std::ceil(std::log(uniform_double(g)) / denom);
          if constexpr (std::is_integral_v<scalar_t>) out[i] = integer_cast<scalar_t>(v);
          else out[i] = convert<scalar_t>(v);
        }
      }
    });
  });
}

}  // namespace at::native
