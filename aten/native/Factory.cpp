// Factory operators (zeros, ones, full, arange, linspace, logspace, eye, *_like, zero_) and the random
// factories (rand, randn, randint, randperm, normal, rand_like, randn_like, randint_like). Device-agnostic: everything is
// at::empty + fill_ / a view, or (arange, linspace) a CPU fill copied to the target device.
// Also the hand-written from_blob and at::tensor of <ATen/Factory.h>.
#include <ATen/native/NativeFunctions.h>
#include <ATen/Factory.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/IntegerCast.h>
#include <ATen/Utils.h>
#include <c10/util/safe_numerics.h>
#include <cmath>
#include <cstring>

namespace at::native {

namespace {

// Note [Factory results on other devices]
// arange and linspace compute their values on the host and copy them over in one transfer: a
// device kernel for a fill that runs once per program is not worth its code.
Tensor to_target(Tensor cpu, const TensorOptions& options) {
  if (options.device().is_cpu()) return cpu;
  return cpu.to(options.device());
}

TensorOptions host(ScalarType dt) { return TensorOptions().dtype(dt).device(kCPU); }

bool scalar_is_integral(const Scalar& s) { return s.isIntegral(/*includeBool=*/true); }

// Writes f(i) into each element of a contiguous CPU tensor, computed in double (or int64).
template <typename F>
void fill_indexed(Tensor& t, const F& f) {
  EMBER_DISPATCH_ALL(t.scalar_type(), "arange", [&] {
    scalar_t* p = t._mutable_data_ptr_internal<scalar_t>();
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) {
      auto v = f(i);
      if constexpr (std::is_same_v<scalar_t, bool>) p[i] = v != 0;
      else if constexpr (std::is_same_v<scalar_t, c10::Half> || std::is_same_v<scalar_t, c10::BFloat16>)
        p[i] = static_cast<scalar_t>(static_cast<float>(v));
      else p[i] = static_cast<scalar_t>(v);
    }
  });
}
// logspace's end - start as libtorch takes it: in the dtype (rounded for the floating ones, wrapping
// for int32 and int64), in int for the narrower integers (which promote).
template <typename T>
double logspace_span(T a, T b) {
  if constexpr (std::is_integral_v<T> && sizeof(T) >= 4) {
    using U = std::make_unsigned_t<T>;
    return static_cast<double>(static_cast<T>(static_cast<U>(static_cast<U>(b) - static_cast<U>(a))));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<double>(b) - static_cast<double>(a);
  } else {
    return static_cast<double>(static_cast<T>(b - a));
  }
}
}  // namespace

// Note [Small zeros]
// A small CPU result is cleared with memset (the zero of every Ember dtype is all-zero bytes): for a
// few elements, fill_'s dispatch and iterator set-up cost more than the allocation (zeros(2, 3) from
// Python: 0.27 -> 0.1 us of C++). Large ones keep fill_, which splits the work across threads.
Tensor zeros(IntArrayRef size, TensorOptions options) {
  Tensor t = at::empty(size, options);
  constexpr int64_t kSmall = 32768;
  if (t.is_cpu() && t.numel() <= kSmall) {
    if (t.numel() > 0) std::memset(t._mutable_data_ptr_internal(), 0, t.nbytes());
    return new_tensor_version(t);
  }
  return new_tensor_version(t.zero_());
}

Tensor ones(IntArrayRef size, TensorOptions options) { return new_tensor_version(at::empty(size, options).fill_(1)); }

Tensor full(IntArrayRef size, const Scalar& fill_value, TensorOptions options) {
  if (!options.has_dtype()) {
    // Like libtorch: the dtype follows the fill value's kind.
    ScalarType dt = fill_value.isBoolean() ? kBool : fill_value.isIntegral(false) ? kLong : get_default_dtype();
    options = options.dtype(dt);
  }
  return new_tensor_version(at::empty(size, options).fill_(fill_value));
}

Tensor arange_start_step(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions options) {
  const bool all_int = scalar_is_integral(start) && scalar_is_integral(end) && scalar_is_integral(step);
  ScalarType dt = options.has_dtype() ? options.scalar_type() : (all_int ? kLong : get_default_dtype());
  const double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e) && std::isfinite(st), "[arange] expected finite start, end and step; got start ",
              s, ", end ", e, ", step ", st);
  EMBER_CHECK(st != 0, "[arange] expected a nonzero step; got start ", s, ", end ", e, ", step ", st);
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "[arange] expected end - start to be zero or of the same sign as step; got start ",
              s, ", end ", e, ", step ", st);
  int64_t n;
  if (all_int) {
    // Exact integer arithmetic: ceil((end - start) / step) without rounding through double.
    int64_t a = start.toLong(), b = end.toLong(), c = step.toLong();
    int64_t span = b - a;
    n = span / c + ((span % c) != 0 ? 1 : 0);
  } else {
    double nd = std::ceil((e - s) / st);
    EMBER_CHECK(nd >= 0 && nd < 9.2e18, "[arange] invalid number of elements ", nd, " for start ", s, ", end ", e, ", step ", st);
    n = static_cast<int64_t>(nd);
  }
  Tensor out = at::empty({n}, host(dt));
  if (all_int && c10::isIntegralType(dt, false)) {
    const int64_t a = start.toLong(), c = step.toLong();
    fill_indexed(out, [&](int64_t i) { return a + i * c; });
  } else {
    fill_indexed(out, [&](int64_t i) { return s + static_cast<double>(i) * st; });
  }
  return to_target(out, options);
}

Tensor arange(const Scalar& end, TensorOptions options) { return at::arange(0, end, 1, options); }

Tensor arange_start(const Scalar& start, const Scalar& end, TensorOptions options) { return at::arange(start, end, 1, options); }

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options) {
  EMBER_CHECK(steps >= 0, "[linspace] expected a non-negative number of steps; got ", steps);
  ScalarType dt = options.has_dtype() ? options.scalar_type() : get_default_dtype();
  // The endpoints in use must be values of the result dtype (libtorch converts them checked, too):
  // start once there is a step, end once there are two.
  EMBER_DISPATCH_ALL(dt, "linspace", [&] {
    if (steps >= 1) (void)start.to<scalar_t>();
    if (steps >= 2) (void)end.to<scalar_t>();
  });
  Tensor out = at::empty({steps}, host(dt));
  const double a = start.toDouble(), b = end.toDouble();
  if (steps == 1) {
    fill_indexed(out, [&](int64_t) { return a; });
  } else if (steps > 1) {
    const double step = (b - a) / static_cast<double>(steps - 1);
    const int64_t half = steps / 2;
    // Symmetric evaluation: the second half counts back from `end`, so both endpoints are exact.
    fill_indexed(out, [&](int64_t i) { return i < half ? a + step * static_cast<double>(i) : b - step * static_cast<double>(steps - 1 - i); });
  }
  return to_target(out, options);
}

// base ** (the linspace exponent), each exponent computed as linspace's symmetric evaluation from
// start and end first converted to the result dtype (an integer logspace steps between integer
// ends, a float one by the float difference of its ends), the power taken in double (an integer dtype's base rounded
// to float first) and stored as libtorch stores it (Note [Double to integer as on x86]).
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, TensorOptions options) {
  EMBER_CHECK(steps >= 0, "[logspace] expected a non-negative number of steps; got ", steps);
  ScalarType dt = options.has_dtype() ? options.scalar_type() : get_default_dtype();
  EMBER_CHECK(dt != kBool, "[logspace] expected a numeric dtype; got bool");
  Tensor out = at::empty({steps}, host(dt));
  // One step: base ** start, stored as fill_ stores a value (checked against the dtype's range).
  if (steps == 1) return to_target(out.fill_(std::pow(base, start.toDouble())), options);
  EMBER_DISPATCH_ALL(dt, "logspace", [&] {
    if constexpr (!std::is_same_v<scalar_t, bool>) {
      constexpr bool integral = std::is_integral_v<scalar_t>;
      if (steps == 0) return;
      const scalar_t a_t = start.to<scalar_t>(), b_t = end.to<scalar_t>();
      const double a = static_cast<double>(a_t), b = static_cast<double>(b_t);
      const double bs = integral ? static_cast<double>(static_cast<float>(base)) : base;
      const double span = logspace_span(a_t, b_t);
      const double step = span / static_cast<double>(steps - 1);
      const int64_t half = steps / 2;
      scalar_t* p = out._mutable_data_ptr_internal<scalar_t>();
      for (int64_t i = 0; i < steps; ++i) {
        const double e = i < half ? a + step * static_cast<double>(i) : b - step * static_cast<double>(steps - 1 - i);
        const double v = std::pow(bs, e);
        if constexpr (integral) p[i] = integer_cast<scalar_t>(v);
        else if constexpr (std::is_same_v<scalar_t, c10::Half> || std::is_same_v<scalar_t, c10::BFloat16>)
          p[i] = static_cast<scalar_t>(static_cast<float>(v));
        else p[i] = static_cast<scalar_t>(v);
      }
    }
  });
  return to_target(out, options);
}

Tensor eye_m(int64_t n, int64_t m, TensorOptions options) {
  EMBER_CHECK(n >= 0, "[eye] expected n >= 0; got ", n);
  EMBER_CHECK(m >= 0, "[eye] expected m >= 0; got ", m);
  Tensor out = at::zeros({n, m}, options);
  if (n > 0 && m > 0) out.diagonal().fill_(1);
  return new_tensor_version(std::move(out));
}

Tensor eye(int64_t n, TensorOptions options) { return at::eye(n, n, options); }

Tensor empty_like(const Tensor& self, TensorOptions options, std::optional<MemoryFormat> memory_format) {
  MemoryFormat mf = memory_format.value_or(options.memory_format_opt().value_or(MemoryFormat::Preserve));
  EMBER_CHECK(mf == MemoryFormat::Preserve || mf == MemoryFormat::Contiguous, "[empty_like] only the preserve and contiguous ",
              "memory formats are supported");
  TensorOptions o = TensorOptions()
                        .dtype(options.has_dtype() ? options.scalar_type() : self.scalar_type())
                        .device(options.has_device() ? options.device() : self.device());
  // Preserve keeps a dense tensor's strides, and gives any other tensor dense strides in its
  // memory order (a transposed slice gives a transposed result; an expanded one a contiguous one).
  if (mf == MemoryFormat::Contiguous || self.is_contiguous()) return at::empty(self.sizes(), o);
  if (self.is_non_overlapping_and_dense()) return at::empty_strided(self.sizes(), self.strides(), o);
  return at::empty_strided(self.sizes(), dense_strides_like(self.sizes(), self.strides()), o);
}

Tensor zeros_like(const Tensor& self, TensorOptions options, std::optional<MemoryFormat> memory_format) {
  return new_tensor_version(at::empty_like(self, options, memory_format).zero_());
}

Tensor ones_like(const Tensor& self, TensorOptions options, std::optional<MemoryFormat> memory_format) {
  return new_tensor_version(at::empty_like(self, options, memory_format).fill_(1));
}

Tensor full_like(const Tensor& self, const Scalar& fill_value, TensorOptions options, std::optional<MemoryFormat> memory_format) {
  return new_tensor_version(at::empty_like(self, options, memory_format).fill_(fill_value));
}

Tensor& zero_(Tensor& self) { return self.fill_(0); }

// ---------------------------------------------------------------- random factories
Tensor rand_generator(IntArrayRef size, std::optional<Generator> generator, TensorOptions options) {
  return new_tensor_version(at::empty(size, options).uniform_(0, 1, generator));
}
Tensor rand(IntArrayRef size, TensorOptions options) { return at::rand(size, std::nullopt, options); }

Tensor randn_generator(IntArrayRef size, std::optional<Generator> generator, TensorOptions options) {
  return new_tensor_version(at::empty(size, options).normal_(0, 1, generator));
}
Tensor randn(IntArrayRef size, TensorOptions options) { return at::randn(size, std::nullopt, options); }

Tensor randint_low_generator(int64_t low, int64_t high, IntArrayRef size, std::optional<Generator> generator, TensorOptions options) {
  EMBER_CHECK(low < high, "[randint] expected low < high; got low ", low, ", high ", high);
  if (!options.has_dtype()) options = options.dtype(kLong);  // libtorch's randint default
  return new_tensor_version(at::empty(size, options).random_(low, high, generator));
}
Tensor randint_low(int64_t low, int64_t high, IntArrayRef size, TensorOptions options) {
  return at::randint(low, high, size, std::nullopt, options);
}
Tensor randint_generator(int64_t high, IntArrayRef size, std::optional<Generator> generator, TensorOptions options) {
  return at::randint(0, high, size, generator, options);
}
Tensor randint(int64_t high, IntArrayRef size, TensorOptions options) { return at::randint(0, high, size, std::nullopt, options); }

Tensor rand_like_generator(const Tensor& self, std::optional<Generator> generator, TensorOptions options,
                           std::optional<MemoryFormat> memory_format) {
  return new_tensor_version(at::empty_like(self, options, memory_format).uniform_(0, 1, generator));
}
Tensor rand_like(const Tensor& self, TensorOptions options, std::optional<MemoryFormat> memory_format) {
  return at::rand_like(self, std::nullopt, options, memory_format);
}
Tensor randn_like_generator(const Tensor& self, std::optional<Generator> generator, TensorOptions options,
                            std::optional<MemoryFormat> memory_format) {
  return new_tensor_version(at::empty_like(self, options, memory_format).normal_(0, 1, generator));
}
Tensor randn_like(const Tensor& self, TensorOptions options, std::optional<MemoryFormat> memory_format) {
  return at::randn_like(self, std::nullopt, options, memory_format);
}

// randint_like: integers in [low, high) shaped like self, in self's dtype unless one is given.
Tensor randint_like_low_generator_dtype(const Tensor& self, int64_t low, int64_t high, std::optional<Generator> generator,
                                       TensorOptions options, std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK(low < high, "[randint_like] expected low < high; got low ", low, ", high ", high);
  return new_tensor_version(at::empty_like(self, options, memory_format).random_(low, high, generator));
}
Tensor randint_like_low_dtype(const Tensor& self, int64_t low, int64_t high, TensorOptions options,
                              std::optional<MemoryFormat> memory_format) {
  return at::randint_like(self, low, high, std::nullopt, options, memory_format);
}
Tensor randint_like_generator(const Tensor& self, int64_t high, std::optional<Generator> generator, TensorOptions options,
                             std::optional<MemoryFormat> memory_format) {
  return at::randint_like(self, 0, high, generator, options, memory_format);
}
Tensor randint_like(const Tensor& self, int64_t high, TensorOptions options, std::optional<MemoryFormat> memory_format) {
  return at::randint_like(self, 0, high, std::nullopt, options, memory_format);
}

Tensor randperm(int64_t n, TensorOptions options) { return at::randperm(n, std::nullopt, options); }

// ---------------------------------------------------------------- normal with tensor parameters
// Note [normal with tensor parameters]
// As libtorch: the result is drawn as one normal_ fill of a fresh contiguous tensor (so a seed gives
// libtorch's values) and then shifted and scaled: normal(mean, s) = normal_(0, s) + mean, and with a
// tensor std, normal_(0, 1) * std + mean. The draws do not depend on mean and std, so their
// gradients are zero (derivatives.yaml), and mean and std broadcast against each other.
// The out= forms are the generated ones (Note [Composite out= variants]): the functional result
// copied into out. With an out of the result's dtype that is libtorch's numbers; libtorch draws into
// out itself, so an out of another dtype gets values of the same distribution but not libtorch's.
namespace {
void check_std_tensor(const Tensor& std) {
  EMBER_CHECK(std.is_floating_point(), "[normal] expected a floating-point std; got ", c10::dtypeName(std.scalar_type()));
  if (std.numel() == 0 || std.is_meta()) return;
  const double lowest = std.min().item<double>();
  EMBER_CHECK(lowest >= 0.0, "[normal] expected every element of std to be >= 0; got ", lowest);
}
void check_mean_tensor(const Tensor& mean) {
  EMBER_CHECK(mean.is_floating_point(), "[normal] expected a floating-point mean; got ", c10::dtypeName(mean.scalar_type()));
}
}  // namespace

Tensor normal_Tensor_float(const Tensor& mean, double std, std::optional<Generator> generator) {
  check_mean_tensor(mean);
  EMBER_CHECK(std >= 0.0, "[normal] expected std >= 0; got ", std);
  Tensor out = at::empty(mean.sizes(), mean.options());
  out.normal_(0, std, generator);
  return out.add_(mean);
}

Tensor normal_float_Tensor(double mean, const Tensor& std, std::optional<Generator> generator) {
  check_std_tensor(std);
  Tensor out = at::empty(std.sizes(), std.options());
  out.normal_(0, 1, generator);
  return out.mul_(std).add_(at::full({}, mean, out.options()));  // the mean rounded to the dtype, as libtorch
}

Tensor normal_Tensor_Tensor(const Tensor& mean, const Tensor& std, std::optional<Generator> generator) {
  check_mean_tensor(mean);
  check_std_tensor(std);
  EMBER_CHECK(mean.device() == std.device(), "[normal] expected mean and std on one device; got ", mean.device(), " and ",
              std.device());
  Tensor out = at::empty(ember::broadcast_shapes("normal", mean.sizes(), std.sizes()), mean.options());
  out.normal_(0, 1, generator);
  return out.mul_(std).add_(mean);
}

Tensor normal_float_float(double mean, double std, IntArrayRef size, std::optional<Generator> generator, TensorOptions options) {
  return new_tensor_version(at::empty(size, options).normal_(mean, std, generator));
}

}  // namespace at::native

// ---------------------------------------------------------------- from_blob, at::tensor
namespace at {

namespace {
struct BlobDeleterCtx {
  std::function<void(void*)> deleter;
  void* data;
};
void call_blob_deleter(void* ctx) {
  auto* c = static_cast<BlobDeleterCtx*>(ctx);
  c->deleter(c->data);
  delete c;
}

Tensor wrap_blob(void* data, IntArrayRef sizes, IntArrayRef strides, c10::DataPtr ptr, const TensorOptions& options) {
  EMBER_CHECK(sizes.size() == strides.size(), "[from_blob] sizes ", sizes, " and strides ", strides, " must have the same length");
  const ScalarType dt = options.scalar_type();
  const int64_t nbytes = c10::checked_storage_nbytes(sizes, strides, 0, c10::elementSize(dt), "from_blob");
  EMBER_CHECK(data != nullptr || nbytes == 0, "[from_blob] expected a non-null data pointer for sizes ", sizes);
  EMBER_CHECK(options.layout() == Layout::Strided, "[from_blob] only the strided layout is supported");
  auto storage = c10::make_intrusive<c10::StorageImpl>(static_cast<size_t>(nbytes), std::move(ptr),
                                                       options.device().is_cpu() ? c10::GetCPUAllocator() : nullptr, /*resizable=*/false);
  auto impl = c10::make_intrusive<TensorImpl>(Storage(std::move(storage)), dt);
  impl->set_sizes_and_strides(sizes, strides);
  Tensor t(std::move(impl));
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}
}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const std::function<void(void*)>& deleter,
                 const TensorOptions& options) {
  c10::DataPtr ptr = deleter ? c10::DataPtr(data, new BlobDeleterCtx{deleter, data}, &call_blob_deleter, options.device())
                             : c10::DataPtr(data, options.device());
  return wrap_blob(data, sizes, strides, std::move(ptr), options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter, const TensorOptions& options) {
  return from_blob(data, sizes, contiguous_strides(sizes), deleter, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  return wrap_blob(data, sizes, strides, c10::DataPtr(data, options.device()), options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return from_blob(data, sizes, contiguous_strides(sizes), options);
}

// ---- TensorDataContainer
TensorDataContainer::TensorDataContainer() : sizes_{0}, type_(get_default_dtype()) {}

TensorDataContainer::TensorDataContainer(std::initializer_list<TensorDataContainer> init) {
  if (init.size() == 0) {  // {}: an empty 1-D tensor of the default dtype
    sizes_ = {0};
    type_ = get_default_dtype();
    return;
  }
  const TensorDataContainer& first = *init.begin();
  IntArrayRef inner = first.sizes();
  sizes_ = {static_cast<int64_t>(init.size())};
  sizes_.insert(sizes_.end(), inner.begin(), inner.end());
  type_ = first.scalar_type();
  for (const auto& c : init) {
    EMBER_CHECK(c.sizes() == inner, "[tensor] expected all sub-lists to have sizes ", inner, "; got ", c.sizes());
    type_ = c10::promoteTypes(type_, c.scalar_type());
    c.append_values(values_);
  }
}

void TensorDataContainer::append_values(std::vector<Scalar>& out) const {
  if (!tensor_.defined()) {
    out.insert(out.end(), values_.begin(), values_.end());
    return;
  }
  Tensor t = tensor_.contiguous();
  EMBER_DISPATCH_ALL(t.scalar_type(), "tensor", [&] {
    const scalar_t* p = t.const_data_ptr<scalar_t>();
    for (int64_t i = 0; i < t.numel(); ++i) out.emplace_back(p[i]);
  });
}

Tensor TensorDataContainer::to_tensor(const TensorOptions& options) const {
  if (tensor_.defined()) {
    ScalarType dt = options.has_dtype() ? options.scalar_type() : tensor_.scalar_type();
    return tensor_.to(options.device(), dt, /*non_blocking=*/false, /*copy=*/true);
  }
  ScalarType dt = options.has_dtype() ? options.scalar_type() : type_;
  Tensor out = make_empty(sizes_, dt, kCPU);
  EMBER_DISPATCH_ALL(dt, "tensor", [&] {
    scalar_t* p = out._mutable_data_ptr_internal<scalar_t>();
    for (size_t i = 0; i < values_.size(); ++i) p[i] = values_[i].to<scalar_t>();
  });
  if (!options.device().is_cpu()) out = out.to(options.device());
  return out;
}

Tensor tensor(const TensorDataContainer& data, const TensorOptions& options) {
  Tensor t = data.to_tensor(options.requires_grad(false));
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

}  // namespace at
