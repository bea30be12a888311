// Activations that are other activations with fixed or derived parameters (selu, celu, relu6), gated
// or parametric ones (glu, prelu) and the randomised leaky ReLU (rrelu): composites, so autograd
// differentiates through the parts (prelu's weight included) on every device.
#include <ATen/native/NativeFunctions.h>
#include <ATen/core/GradMode.h>
#include <ATen/native/RandomDraws.h>
#include <mutex>
#include <vector>

namespace at::native {

Tensor relu6(const Tensor& self) { return at::hardtanh(self, 0, 6); }

namespace {
// SELU's constants (Klambauer et al., 2017), as libtorch uses them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// u * span rounded on its own, so that adding `from` afterwards is not fused into one rounding
// (libtorch's rrelu loop rounds the product first).
double uniform_product(double u, double span) {
  volatile double product = u * span;
  return product;
}

// rrelu's slopes on the CPU, as libtorch draws them: one double uniform per non-positive element
// only, in row-major order, with the bounds and the slope rounded to the input's float type.
Tensor rrelu_cpu_slopes(const Tensor& self, double lo, double hi, const std::optional<Generator>& generator) {
  NoGradGuard no_grad;
  const Tensor x = self.detach().contiguous();
  Tensor slope = at::ones_like(x);
  CPUGeneratorImpl* g = detail::cpu_generator(generator, "rrelu");
  std::lock_guard<std::mutex> lock(g->mutex_);
  EMBER_DISPATCH_ALL_FLOATING(x.scalar_type(), "rrelu", [&] {
    using acc_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    const double from = static_cast<acc_t>(lo), span = static_cast<double>(static_cast<acc_t>(hi)) - from;
    const scalar_t* in = x.const_data_ptr<scalar_t>();
    scalar_t* out = slope._mutable_data_ptr_internal<scalar_t>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i)
      if (static_cast<acc_t>(in[i]) <= 0)
        out[i] = static_cast<scalar_t>(static_cast<acc_t>(uniform_product(uniform_double(g), span) + from));
  });
  return slope;
}

double celu_input_scale(const Scalar& alpha) {
  const double a = alpha.to<double>();
  EMBER_CHECK(a != 0, "[celu] expected a nonzero alpha (the input is divided by it); got ", a);
  return 1.0 / a;
}
}  // namespace

Tensor selu(const Tensor& self) { return at::elu(self, kSeluAlpha, kSeluScale, 1); }

Tensor celu(const Tensor& self, const Scalar& alpha) { return at::elu(self, alpha, 1, celu_input_scale(alpha)); }

Tensor glu(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[glu] expected an input of at least 1 dim; got a 0-dim tensor");
  EMBER_CHECK(dim >= -self.dim() && dim < self.dim(), "[glu] dim ", dim, " is out of range for an input of ", self.dim(),
              " dims");
  const int64_t d = dim < 0 ? dim + self.dim() : dim;
  const int64_t n = self.size(d);
  EMBER_CHECK(n % 2 == 0, "[glu] expected an even size in dim ", dim, " (it is split in half); got ", n, " for shape ",
              self.sizes());
  return self.narrow(d, 0, n / 2) * at::sigmoid(self.narrow(d, n / 2, n / 2));
}

Tensor prelu(const Tensor& self, const Tensor& weight) {
  EMBER_CHECK(weight.dim() <= 1, "[prelu] expected a 0-D or 1-D weight; got shape ", weight.sizes());
  const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
  const int64_t k = weight.numel();
  EMBER_CHECK(k == 1 || k == channels, "[prelu] expected 1 weight or one per channel (", channels,
              ", dim 1 of the input); got ", k, " for an input of shape ", self.sizes());
  Tensor w = weight;
  if (k == 1) {
    w = weight.reshape({});
  } else {
    std::vector<int64_t> shape(static_cast<size_t>(self.dim() - 1), 1);
    shape[0] = channels;  // (C, 1, ..., 1) lines up with dim 1 of (N, C, ...)
    w = weight.reshape(shape);
  }
  // A slope of 1 or w per element: a NaN or infinite weight does not reach positive elements'
  // gradients (as it would through where(x > 0, x, w * x)).
  return self * at::where(self > 0, at::ones_like(w), w);
}

Tensor rrelu(const Tensor& self, const Scalar& lower, const Scalar& upper, bool training,
             std::optional<Generator> generator) {
  const double lo = lower.to<double>(), hi = upper.to<double>();
  EMBER_CHECK(lo <= hi, "[rrelu] expected lower <= upper; got lower ", lo, " and upper ", hi);
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[rrelu] expected a floating point input; got ", self.scalar_type());
  if (!training) return at::leaky_relu(self, (lo + hi) / 2);
  // Each non-positive element gets its own slope drawn from U(lower, upper).
  if (self.is_cpu()) return self * rrelu_cpu_slopes(self, lo, hi, generator);
  Tensor slope;
  {
    NoGradGuard no_grad;
    slope = at::empty_like(self);
    slope.uniform_(lo, hi, generator);
    slope = at::where(self <= 0, slope, at::ones_like(slope));
  }
  return self * slope;
}

}  // namespace at::native
