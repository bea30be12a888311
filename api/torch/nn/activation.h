#pragma once
// More activations (issue #6): options, functionals and modules of ReLU6, PReLU, ELU, SELU, CELU,
// GLU, Mish, Softplus, Softsign, Softmin, Hardtanh, Hardswish, Hardsigmoid, Hardshrink, Softshrink,
// Tanhshrink, Threshold, LogSigmoid, RReLU and Softmax2d, with libtorch's names, defaults and
// printing. The ops are in ops.yaml (pointwise kernels or composites in aten/native/ActivationExtra.cpp).
//   torch::nn::PReLU act(torch::nn::PReLUOptions().num_parameters(16));
//   auto y = F::softplus(x, F::SoftplusFuncOptions().beta(2));
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <torch/arg.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <optional>
#include <ostream>

namespace torch::nn {

struct ReLU6Options {
  /* implicit */ ReLU6Options(bool inplace = false) : inplace_(inplace) {}
  TORCH_ARG(bool, inplace);
};

/// PReLU's learnable slopes: one shared (num_parameters 1) or one per channel, all starting at init.
struct PReLUOptions {
  TORCH_ARG(int64_t, num_parameters) = 1;
  TORCH_ARG(double, init) = 0.25;
};

struct ELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};

struct SELUOptions {
  /* implicit */ SELUOptions(bool inplace = false) : inplace_(inplace) {}
  TORCH_ARG(bool, inplace);
};

struct CELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};

struct GLUOptions {
  /* implicit */ GLUOptions(int64_t dim = -1) : dim_(dim) {}
  TORCH_ARG(int64_t, dim);
};

/// Softplus: log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold.
struct SoftplusOptions {
  TORCH_ARG(double, beta) = 1.0;
  TORCH_ARG(double, threshold) = 20.0;
};

struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}
  TORCH_ARG(int64_t, dim);
};

struct HardtanhOptions {
  TORCH_ARG(double, min_val) = -1.0;
  TORCH_ARG(double, max_val) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};

struct HardshrinkOptions {
  /* implicit */ HardshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}
  TORCH_ARG(double, lambda);
};

struct SoftshrinkOptions {
  /* implicit */ SoftshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}
  TORCH_ARG(double, lambda);
};

/// Threshold: x where x > threshold, value elsewhere.
struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  TORCH_ARG(double, threshold);
  TORCH_ARG(double, value);
  TORCH_ARG(bool, inplace) = false;
};

struct RReLUOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, inplace) = false;
};

namespace functional {

using ReLU6FuncOptions = ReLU6Options;
using ELUFuncOptions = ELUOptions;
using SELUFuncOptions = SELUOptions;
using CELUFuncOptions = CELUOptions;
using GLUFuncOptions = GLUOptions;
using SoftplusFuncOptions = SoftplusOptions;
using HardtanhFuncOptions = HardtanhOptions;
using HardshrinkFuncOptions = HardshrinkOptions;
using SoftshrinkFuncOptions = SoftshrinkOptions;
using ThresholdFuncOptions = ThresholdOptions;

struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<at::ScalarType>, dtype) = std::nullopt;
};

/// rrelu's options: random slopes only when training (default false, as libtorch).
struct RReLUFuncOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};

/// min(max(x, 0), 6).
inline at::Tensor relu6(at::Tensor input, const ReLU6FuncOptions& options = {}) {
  return options.inplace() ? at::hardtanh_(input, 0, 6) : at::relu6(input);
}

/// x for x > 0, weight * x otherwise (weight: one value or one per channel, dim 1).
inline at::Tensor prelu(const at::Tensor& input, const at::Tensor& weight) { return at::prelu(input, weight); }

/// x for x > 0, alpha * (exp(x) - 1) otherwise.
inline at::Tensor elu(at::Tensor input, const ELUFuncOptions& options = {}) {
  return options.inplace() ? at::elu_(input, options.alpha()) : at::elu(input, options.alpha());
}

/// scale * elu(x, alpha) with SELU's fixed alpha and scale.
inline at::Tensor selu(at::Tensor input, const SELUFuncOptions& options = {}) {
  if (!options.inplace()) return at::selu(input);
  return at::elu_(input, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1);
}

/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha must be nonzero.
inline at::Tensor celu(at::Tensor input, const CELUFuncOptions& options = {}) {
  if (!options.inplace()) return at::celu(input, options.alpha());
  EMBER_CHECK(options.alpha() != 0, "[celu] expected a nonzero alpha (the input is divided by it); got 0");
  return at::elu_(input, options.alpha(), 1, 1.0 / options.alpha());
}

/// First half of `dim` times the sigmoid of the second half.
inline at::Tensor glu(const at::Tensor& input, const GLUFuncOptions& options = {}) { return at::glu(input, options.dim()); }

/// x * tanh(softplus(x)).
inline at::Tensor mish(const at::Tensor& input) { return at::mish(input); }

/// log(1 + exp(beta * x)) / beta, linear above the threshold.
inline at::Tensor softplus(const at::Tensor& input, const SoftplusFuncOptions& options = {}) {
  return at::softplus(input, options.beta(), options.threshold());
}

/// x / (1 + |x|).
inline at::Tensor softsign(const at::Tensor& input) { return input / (input.abs() + 1); }

/// softmax(-x) along options.dim().
inline at::Tensor softmin(const at::Tensor& input, const SoftminFuncOptions& options) {
  return at::softmax(at::neg(input), options.dim(), options.dtype());
}

/// x clipped to [min_val, max_val].
inline at::Tensor hardtanh(at::Tensor input, const HardtanhFuncOptions& options = {}) {
  EMBER_CHECK(options.max_val() > options.min_val(), "[hardtanh] expected max_val > min_val; got min_val ",
              options.min_val(), " and max_val ", options.max_val());
  return options.inplace() ? at::hardtanh_(input, options.min_val(), options.max_val())
                           : at::hardtanh(input, options.min_val(), options.max_val());
}

/// x * relu6(x + 3) / 6.
inline at::Tensor hardswish(at::Tensor input, bool inplace = false) {
  return inplace ? at::hardswish_(input) : at::hardswish(input);
}

/// relu6(x + 3) / 6.
inline at::Tensor hardsigmoid(at::Tensor input, bool inplace = false) {
  return inplace ? at::hardsigmoid_(input) : at::hardsigmoid(input);
}

/// 0 where |x| <= lambda, x elsewhere.
inline at::Tensor hardshrink(const at::Tensor& input, const HardshrinkFuncOptions& options = {}) {
  return at::hardshrink(input, options.lambda());
}

/// x moved lambda towards 0, and 0 where |x| <= lambda.
inline at::Tensor softshrink(const at::Tensor& input, const SoftshrinkFuncOptions& options = {}) {
  return at::softshrink(input, options.lambda());
}

/// x - tanh(x).
inline at::Tensor tanhshrink(const at::Tensor& input) { return input - input.tanh(); }

/// x where x > threshold, value elsewhere.
inline at::Tensor threshold(at::Tensor input, const ThresholdFuncOptions& options) {
  return options.inplace() ? at::threshold_(input, options.threshold(), options.value())
                           : at::threshold(input, options.threshold(), options.value());
}

/// log(sigmoid(x)), computed stably.
inline at::Tensor logsigmoid(const at::Tensor& input) { return at::log_sigmoid(input); }

/// Leaky ReLU with a slope drawn from U(lower, upper) per element when training, their mean otherwise.
inline at::Tensor rrelu(at::Tensor input, const RReLUFuncOptions& options = {}) {
  at::Tensor out = at::rrelu(input, options.lower(), options.upper(), options.training());
  return options.inplace() ? input.copy_(out) : out;
}

}  // namespace functional

// ---------------------------------------------------------------- modules

class ReLU6Impl : public Cloneable<ReLU6Impl> {
 public:
  explicit ReLU6Impl(const ReLU6Options& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(at::Tensor input) { return functional::relu6(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  ReLU6Options options;
};
TORCH_MODULE(ReLU6);

/// PReLU with learnable slopes `weight` (num_parameters values, initialised to init).
class PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options_ = {});
  /// Registers a fresh weight filled with options.init().
  void reset() override;
  at::Tensor forward(const at::Tensor& input) { return functional::prelu(input, weight); }
  void pretty_print(std::ostream& stream) const override;
  PReLUOptions options;
  at::Tensor weight;
};
TORCH_MODULE(PReLU);

class ELUImpl : public Cloneable<ELUImpl> {
 public:
  explicit ELUImpl(const ELUOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(at::Tensor input) { return functional::elu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  ELUOptions options;
};
TORCH_MODULE(ELU);

class SELUImpl : public Cloneable<SELUImpl> {
 public:
  explicit SELUImpl(const SELUOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(at::Tensor input) { return functional::selu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  SELUOptions options;
};
TORCH_MODULE(SELU);

class CELUImpl : public Cloneable<CELUImpl> {
 public:
  explicit CELUImpl(const CELUOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(at::Tensor input) { return functional::celu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  CELUOptions options;
};
TORCH_MODULE(CELU);

class GLUImpl : public Cloneable<GLUImpl> {
 public:
  explicit GLUImpl(const GLUOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::glu(input, options); }
  void pretty_print(std::ostream& stream) const override;
  GLUOptions options;
};
TORCH_MODULE(GLU);

class SoftplusImpl : public Cloneable<SoftplusImpl> {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::softplus(input, options); }
  void pretty_print(std::ostream& stream) const override;
  SoftplusOptions options;
};
TORCH_MODULE(Softplus);

class SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  explicit SoftminImpl(int64_t dim) : options(dim) {}
  explicit SoftminImpl(const SoftminOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::softmin(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override;
  SoftminOptions options;
};
TORCH_MODULE(Softmin);

class HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options_ = {}) : options(options_) { reset(); }
  /// Checks max_val > min_val.
  void reset() override;
  at::Tensor forward(at::Tensor input) { return functional::hardtanh(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  HardtanhOptions options;
};
TORCH_MODULE(Hardtanh);

class HardshrinkImpl : public Cloneable<HardshrinkImpl> {
 public:
  explicit HardshrinkImpl(const HardshrinkOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::hardshrink(input, options); }
  void pretty_print(std::ostream& stream) const override;
  HardshrinkOptions options;
};
TORCH_MODULE(Hardshrink);

class SoftshrinkImpl : public Cloneable<SoftshrinkImpl> {
 public:
  explicit SoftshrinkImpl(const SoftshrinkOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::softshrink(input, options); }
  void pretty_print(std::ostream& stream) const override;
  SoftshrinkOptions options;
};
TORCH_MODULE(Softshrink);

class ThresholdImpl : public Cloneable<ThresholdImpl> {
 public:
  ThresholdImpl(double threshold, double value) : options(threshold, value) {}
  explicit ThresholdImpl(const ThresholdOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(at::Tensor input) { return functional::threshold(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  ThresholdOptions options;
};
TORCH_MODULE(Threshold);

/// Random negative slopes in training mode, their mean (lower + upper) / 2 in eval.
class RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  explicit RReLUImpl(const RReLUOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(at::Tensor input) {
    return functional::rrelu(std::move(input), functional::RReLUFuncOptions()
                                                   .lower(options.lower())
                                                   .upper(options.upper())
                                                   .training(is_training())
                                                   .inplace(options.inplace()));
  }
  void pretty_print(std::ostream& stream) const override;
  RReLUOptions options;
};
TORCH_MODULE(RReLU);

/// Softmax over the channels (dim -3) of a (C, H, W) or (N, C, H, W) input.
class Softmax2dImpl : public Cloneable<Softmax2dImpl> {
 public:
  void reset() override {}
  at::Tensor forward(const at::Tensor& input);
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Softmax2d()"; }
};
TORCH_MODULE(Softmax2d);

/// The activations without options: Mish, Softsign, Tanhshrink, LogSigmoid, Hardswish, Hardsigmoid.
#define EMBER_STATELESS_ACTIVATION(Name, fn)                                                   \
  class Name##Impl : public Cloneable<Name##Impl> {                                            \
   public:                                                                                     \
    void reset() override {}                                                                   \
    at::Tensor forward(const at::Tensor& input) { return functional::fn(input); }              \
    void pretty_print(std::ostream& stream) const override { stream << "torch::nn::" #Name "()"; } \
  };                                                                                           \
  TORCH_MODULE(Name);
EMBER_STATELESS_ACTIVATION(Mish, mish)
EMBER_STATELESS_ACTIVATION(Softsign, softsign)
EMBER_STATELESS_ACTIVATION(Tanhshrink, tanhshrink)
EMBER_STATELESS_ACTIVATION(LogSigmoid, logsigmoid)
EMBER_STATELESS_ACTIVATION(Hardswish, hardswish)
EMBER_STATELESS_ACTIVATION(Hardsigmoid, hardsigmoid)
#undef EMBER_STATELESS_ACTIVATION

}  // namespace torch::nn

EMBER_PUBLIC_END
