// multinomial, written in ATen ops and registered for CPU and CUDA alike; draws come from
// uniform_ on the given generator (the default one when none is given), so a seed fixes them.
//
// Note [multinomial sampling]
// With replacement: each draw u in [0, 1) is placed in the row's normalised cumulative sums by
// searchsorted (side right): the first category whose cumulative sum exceeds u. A zero-probability
// category never has a cumulative sum above its predecessor's, so it is never drawn, and the last
// cumulative sum is exactly 1 after the division, so the search never runs off the end.
// Without replacement: category i gets the key p_i / E_i with E_i ~ Exp(1); the num_samples largest
// keys are a draw without replacement in order (the exponential-race form of sequential sampling).
// Zero-probability categories get key 0 and are taken, lowest index first, only once every positive
// category is used up, as libtorch does.
#include <ATen/native/NativeFunctions.h>
#include <ATen/core/GradMode.h>

namespace at::native {

Tensor multinomial_aten(const Tensor& self, int64_t num_samples, bool replacement, std::optional<Generator> generator) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "[multinomial] expected probabilities of 1 or 2 dims; got ",
              self.dim(), " dims, shape ", self.sizes());
  EMBER_CHECK(self.is_floating_point(), "[multinomial] expected floating-point probabilities; got ",
              c10::dtypeName(self.scalar_type()));
  EMBER_CHECK(num_samples > 0, "[multinomial] expected num_samples > 0; got ", num_samples);
  const int64_t k = self.size(-1);
  EMBER_CHECK(replacement || num_samples <= k, "[multinomial] without replacement num_samples (", num_samples,
              ") must not exceed the number of categories (", k, ")");
  at::NoGradGuard no_grad;
  const Tensor p = self.detach().to(kDouble).reshape({self.dim() == 1 ? 1 : self.size(0), k});
  const int64_t rows = p.size(0);
  const TensorOptions long_opts = self.options().dtype(kLong);
  if (rows == 0) return at::empty({0, num_samples}, long_opts);
  const bool bad = at::logical_or(at::lt(p, 0), at::logical_or(p.isnan(), p.isinf())).any().item<bool>();
  EMBER_CHECK(!bad, "[multinomial] expected finite, non-negative probabilities; got a negative, infinite or NaN entry");
  EMBER_CHECK(!at::le(p.sum(IntArrayRef{1}), 0).any().item<bool>(),
              "[multinomial] expected every row of probabilities to have a positive sum; got a row summing to 0");
  Tensor out;
  if (replacement) {  // Note [multinomial sampling]
    Tensor cdf = at::cumsum(p, 1);
    cdf = cdf / cdf.slice(1, k - 1, k);
    Tensor u = at::empty({rows, num_samples}, p.options()).uniform_(0, 1, generator);
    out = at::searchsorted(cdf, u, false, true, std::nullopt, std::nullopt).clamp_max(k - 1);
  } else {
    Tensor u = at::empty({rows, k}, p.options()).uniform_(0, 1, generator);
    const Tensor wait = u.neg().log1p().neg();  // Exp(1) draws
    const Tensor keys = at::where(at::gt(p, 0), p / wait, at::zeros({}, p.options()));
    out = std::get<1>(at::topk(keys, num_samples, 1, true, true));
  }
  return self.dim() == 1 ? out.reshape({num_samples}) : out;
}

}  // namespace at::native
