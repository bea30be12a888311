// Meta tensors: storage without data, and the Meta kernels of the ops that move or fill data
// (copy_, fill_, the random fills), which check their arguments as the CPU kernels do and then do
// nothing. See "Meta tensors" in docs/embedding.md.
//
// Note [Meta storage]: a meta tensor's storage records its size in bytes (so a traced model's
// memory can be summed) but holds a null data pointer; the Meta allocator allocates nothing.
// Nothing can read a meta tensor's elements: every op has a Meta kernel that only computes the
// result's sizes, strides and dtype, and the ways out of the Meta backend (copy_ into a tensor of
// another device, item()) raise.
#include <ATen/native/NativeFunctions.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/RandomChecks.h>
#include <c10/core/Allocator.h>

namespace at::native {
namespace {

struct MetaAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t) override { return c10::DataPtr(nullptr, c10::Device(c10::kMeta)); }
  void copy_data(void*, const void*, size_t) const override {}
};

MetaAllocator g_meta_allocator;
// The allocator table is constant-initialised; registering from a static initialiser is enough
// (no tensor can be made before the library has loaded).
const bool g_meta_allocator_registered = [] {
  c10::SetAllocator(c10::kMeta, &g_meta_allocator);
  return true;
}();

}  // namespace

Tensor& copy_meta(Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  EMBER_CHECK(self.is_meta(), "[copy_] expected a source with data to copy to ", self.device(),
              "; got a meta tensor of sizes ", src.sizes(), " (meta tensors have no data)");
  EMBER_CHECK(src.sizes() == self.sizes() || ember::broadcast_shapes("copy_", self.sizes(), src.sizes()) == self.sizes().vec(),
              "[copy_] source of shape ", src.sizes(), " does not broadcast to destination of shape ", self.sizes());
  if (self.is_same(src)) return self;
  at::check_no_internal_overlap(self, "copy_");
  return self;
}

Tensor& fill_meta(Tensor& self, const Scalar& value) {
  (void)value;
  at::check_no_internal_overlap(self, "fill_");
  return self;
}

// Random fills: the argument checks of the CPU kernels that need no data, then nothing (Note
// [Meta storage]); the generator is not advanced.
Tensor& uniform_meta(Tensor& self, double from, double to, std::optional<Generator> generator) {
  (void)generator;
  EMBER_CHECK(from <= to, "[uniform_] expected from <= to; got from=", from, " and to=", to);
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[uniform_] expected a floating point tensor; got ",
              c10::dtypeName(self.scalar_type()));
  return self;
}

Tensor& normal_meta(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  (void)mean, (void)generator;
  EMBER_CHECK(std >= 0.0, "[normal_] expected std >= 0; got ", std);
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[normal_] expected a floating point tensor; got ",
              c10::dtypeName(self.scalar_type()));
  return self;
}

Tensor& random_from_meta(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> generator) {
  (void)generator;
  EMBER_CHECK(!to || from < *to, "[random_] expected from < to; got from=", from, " and to=", *to);
  return self;
}

Tensor& random_meta(Tensor& self, std::optional<Generator> generator) {
  (void)generator;
  return self;
}

Tensor& bernoulli_float_meta(Tensor& self, double p, std::optional<Generator> generator) {
  (void)generator;
  EMBER_CHECK(p >= 0.0 && p <= 1.0, "[bernoulli_] expected 0 <= p <= 1; got ", p);
  return self;
}

Tensor bernoulli_meta(const Tensor& self, std::optional<Generator> generator) {
  (void)generator;
  return at::empty_like(self);
}

Tensor& exponential_meta(Tensor& self, double lambd, std::optional<Generator> generator) {
  (void)generator;
  EMBER_CHECK(lambd > 0.0, "[exponential_] expected lambd > 0; got ", lambd);
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[exponential_] expected a floating point tensor; got ",
              c10::dtypeName(self.scalar_type()));
  return self;
}

Tensor& bernoulli_Tensor_meta(Tensor& self, const Tensor& p, std::optional<Generator> generator) {
  (void)generator;
  check_bernoulli_probs_arg(self, p);
  return self;
}

Tensor& log_normal_meta(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  (void)generator;
  (void)mean;
  check_log_normal_args(self, std);
  return self;
}

Tensor& cauchy_meta(Tensor& self, double median, double sigma, std::optional<Generator> generator) {
  (void)generator;
  (void)median;
  check_cauchy_args(self, sigma);
  return self;
}

Tensor& geometric_meta(Tensor& self, double p, std::optional<Generator> generator) {
  (void)generator;
  check_geometric_args(self, p);
  return self;
}

Tensor randperm_meta(int64_t n, std::optional<Generator> generator, TensorOptions options) {
  (void)generator;
  EMBER_CHECK(n >= 0, "[randperm] expected n >= 0; got ", n);
  return at::empty({n}, options.has_dtype() ? options : options.dtype(kLong));
}

Tensor multinomial_meta(const Tensor& self, int64_t num_samples, bool replacement, std::optional<Generator> generator) {
  (void)generator;
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "[multinomial] expected probabilities of 1 or 2 dims; got ", self.dim());
  EMBER_CHECK(self.is_floating_point(), "[multinomial] expected floating-point probabilities; got ",
              c10::dtypeName(self.scalar_type()));
  EMBER_CHECK(num_samples > 0, "[multinomial] expected num_samples > 0; got ", num_samples);
  EMBER_CHECK(replacement || num_samples <= self.size(-1), "[multinomial] expected num_samples (", num_samples,
              ") <= the number of categories (", self.size(-1), ") without replacement");
  std::vector<int64_t> shape = self.sizes().vec();
  shape.back() = num_samples;
  return at::empty(shape, self.options().dtype(kLong));
}

}  // namespace at::native
