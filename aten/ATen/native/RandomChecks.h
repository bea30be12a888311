#pragma once
// The argument checks the CPU, CUDA and Meta kernels of the newer random fills share (log_normal_,
// cauchy_, geometric_, bernoulli_ with tensor p), so the three backends refuse the same inputs with
// the same message.
#include <ATen/TensorIterator.h>
#include <c10/util/Exception.h>

namespace at::native {

inline void check_log_normal_args(const Tensor& self, double std) {
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[log_normal_] expected a floating-point tensor; got self ",
              c10::dtypeName(self.scalar_type()));
  EMBER_CHECK(std > 0.0, "[log_normal_] expected std > 0; got std ", std);
}

inline void check_cauchy_args(const Tensor& self, double sigma) {
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[cauchy_] expected a floating-point tensor; got self ",
              c10::dtypeName(self.scalar_type()));
  EMBER_CHECK(sigma > 0.0, "[cauchy_] expected sigma > 0; got sigma ", sigma);
}

inline void check_geometric_args(const Tensor& self, double p) {
  EMBER_CHECK(self.scalar_type() != kBool, "[geometric_] expected a numeric tensor; got self bool");
  EMBER_CHECK(p > 0.0 && p < 1.0, "[geometric_] expected 0 < p < 1; got p ", p);
}

/// bernoulli_(p) with tensor p: floating probabilities that broadcast to self's shape.
inline void check_bernoulli_probs_arg(const Tensor& self, const Tensor& p) {
  EMBER_CHECK(isFloatingType(p.scalar_type()), "[bernoulli_] expected a floating-point tensor of probabilities p; got ",
              c10::dtypeName(p.scalar_type()));
  EMBER_CHECK(ember::broadcast_shapes("bernoulli_", self.sizes(), p.sizes()) == self.sizes().vec(),
              "[bernoulli_] expected p to broadcast to self's shape ", self.sizes(), "; got p of shape ", p.sizes());
}

}  // namespace at::native
