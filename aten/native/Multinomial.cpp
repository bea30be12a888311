// multinomial, registered for CPU and CUDA alike. On the CPU it draws as libtorch does, so a seed
// gives libtorch's samples; elsewhere it is written in ATen ops over uniform_.
//
// Note [multinomial sampling]
// CPU, with replacement and more than one sample: per row, the running sums of the probabilities
// (in float for float/half/bfloat16 rows, double for double) are divided by the row total and the
// last is set to 1; each sample draws a double uniform u and takes the first category whose
// running sum is >= u (rows one after another, samples in order).
// CPU, without replacement or a single sample: one exponential draw E per probability
// (exponential_(1) on a tensor shaped like the input, in the input's dtype), keys p / E, and the
// num_samples largest keys in decreasing order (argmax for one sample) -- the exponential race,
// which is sequential sampling without replacement.
// Other devices: with replacement, each uniform draw is placed in the normalised cumulative sums by
// searchsorted; without, keys p_i / E_i with E_i = -log1p(-u_i).
// Zero-probability categories are never drawn with replacement; without replacement they get
// key 0 and are taken, lowest index first, only once every positive category is used up.
#include <ATen/native/NativeFunctions.h>
#include <ATen/core/GradMode.h>
#include <ATen/native/RandomDraws.h>
#include <mutex>
#include <vector>

namespace at::native {

namespace {

// The CPU draws of Note [multinomial sampling]; `self` is checked already.
Tensor multinomial_cpu_draws(const Tensor& self, int64_t num_samples, bool replacement,
                             const std::optional<Generator>& generator) {
  if (!replacement || num_samples == 1) {
    const Tensor p = self.detach();
    const Tensor keys = p / at::empty_like(p).exponential_(1, generator);
    if (num_samples == 1) return keys.argmax(-1, true);
    return std::get<1>(at::topk(keys, num_samples, -1, true, true));
  }
  const int64_t k = self.size(-1);
  const int64_t rows = self.dim() == 1 ? 1 : self.size(0);
  const Tensor p = self.detach().reshape({rows, k}).to(self.scalar_type() == kDouble ? kDouble : kFloat).contiguous();
  Tensor out = at::empty({rows, num_samples}, self.options().dtype(kLong));
  int64_t* o = out._mutable_data_ptr_internal<int64_t>();
  CPUGeneratorImpl* g = detail::cpu_generator(generator, "multinomial");
  std::lock_guard<std::mutex> lock(g->mutex_);
  AT_DISPATCH_FLOATING_TYPES(p.scalar_type(), "multinomial", [&] {
    std::vector<scalar_t> cum(static_cast<size_t>(k));
    for (int64_t r = 0; r < rows; ++r) {
      const scalar_t* row = p.const_data_ptr<scalar_t>() + r * k;
      scalar_t sum = 0;
      for (int64_t j = 0; j < k; ++j) cum[j] = sum += row[j];
      for (auto& c : cum) c /= sum;
      cum[k - 1] = 1;
      for (int64_t s = 0; s < num_samples; ++s) {
        const double u = uniform_double(g);
        int64_t lo = 0, hi = k;  // first j with cum[j] >= u
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo) / 2;
          if (static_cast<double>(cum[mid]) < u) lo = mid + 1;
          else hi = mid;
        }
        o[r * num_samples + s] = lo;
      }
    }
  });
  return self.dim() == 1 ? out.reshape({num_samples}) : out;
}

}  // namespace

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
  if (self.is_cpu()) return multinomial_cpu_draws(self, num_samples, replacement, generator);
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
