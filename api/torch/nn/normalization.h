#pragma once
// The normalisation layers: BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm and GroupNorm, their
// options (libtorch's names, fields and defaults) and the functional forms F::batch_norm,
// F::instance_norm, F::layer_norm and F::group_norm. The ops behind them: aten/native/Normalization.cpp.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <ATen/ATen.h>
#include <torch/arg.h>
#include <optional>
#include <ostream>
#include <vector>

namespace torch::nn {

// ---------------------------------------------------------------- options

/// Options of BatchNorm1d/2d/3d. momentum = std::nullopt makes the running stats a cumulative
/// average (factor 1 / num_batches_tracked).
struct BatchNormOptions {
  /* implicit */ BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;
  TORCH_ARG(bool, affine) = true;
  TORCH_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

/// Options of InstanceNorm1d/2d/3d (no affine parameters and no running stats by default).
struct InstanceNormOptions {
  /* implicit */ InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(bool, affine) = false;
  TORCH_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

/// Options of LayerNorm: the trailing shape normalised over.
struct LayerNormOptions {
  /* implicit */ LayerNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, elementwise_affine) = true;
};

/// Options of GroupNorm: num_channels split into num_groups groups.
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(int64_t, num_channels);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, affine) = true;
};

namespace functional {

struct BatchNormFuncOptions {
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(at::Tensor, bias) = {};
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};

struct InstanceNormFuncOptions {
  TORCH_ARG(at::Tensor, running_mean) = {};
  TORCH_ARG(at::Tensor, running_var) = {};
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(at::Tensor, bias) = {};
  TORCH_ARG(bool, use_input_stats) = true;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};

struct LayerNormFuncOptions {
  /* implicit */ LayerNormFuncOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(at::Tensor, bias) = {};
  TORCH_ARG(double, eps) = 1e-5;
};

struct GroupNormFuncOptions {
  /* implicit */ GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(at::Tensor, weight) = {};
  TORCH_ARG(at::Tensor, bias) = {};
  TORCH_ARG(double, eps) = 1e-5;
};

// ---------------------------------------------------------------- functional forms

namespace detail {
inline std::optional<at::Tensor> opt(const at::Tensor& t) {
  return t.defined() ? std::optional<at::Tensor>(t) : std::nullopt;
}
}  // namespace detail

/// Normalises each channel (dim 1) of `input` (N, C, ...): with the batch statistics in training
/// (updating defined running stats in place with `momentum`), with the running stats otherwise.
/// Training needs more than one value per channel.
at::Tensor batch_norm(const at::Tensor& input, const at::Tensor& running_mean, const at::Tensor& running_var,
                      const BatchNormFuncOptions& options = {});

/// Normalises each (sample, channel) of `input` (N, C, ...) over its remaining dims (or with the
/// running stats when use_input_stats is false).
inline at::Tensor instance_norm(const at::Tensor& input, const InstanceNormFuncOptions& options = {}) {
  return at::instance_norm(input, detail::opt(options.weight()), detail::opt(options.bias()),
                           detail::opt(options.running_mean()), detail::opt(options.running_var()),
                           options.use_input_stats(), options.momentum(), options.eps(), false);
}

/// Normalises over the trailing dims options.normalized_shape(), then weight * x + bias.
inline at::Tensor layer_norm(const at::Tensor& input, const LayerNormFuncOptions& options) {
  return at::layer_norm(input, options.normalized_shape(), detail::opt(options.weight()), detail::opt(options.bias()),
                        options.eps(), false);
}

/// Normalises each group of channels of each sample, then applies per-channel weight and bias.
inline at::Tensor group_norm(const at::Tensor& input, const GroupNormFuncOptions& options) {
  return at::group_norm(input, options.num_groups(), detail::opt(options.weight()), detail::opt(options.bias()),
                        options.eps(), false);
}

}  // namespace functional

// ---------------------------------------------------------------- modules

namespace detail {
/// Checks the rank of a normalisation layer's input: `lo` or `hi` dims.
void check_norm_input_dim(const at::Tensor& input, int64_t lo, int64_t hi, const char* layer);
}  // namespace detail

/// Shared state of BatchNorm{D}d: weight (ones) and bias (zeros) when affine; the buffers
/// running_mean (zeros), running_var (ones) and num_batches_tracked (int64 0) when
/// track_running_stats. Undefined otherwise.
template <size_t D, typename Derived>
class BatchNormImplBase : public Cloneable<Derived> {
 public:
  explicit BatchNormImplBase(const BatchNormOptions& options_) : options(options_) {
    EMBER_CHECK(options.num_features() > 0, "[BatchNorm", D, "d] expected num_features > 0; got ",
                options.num_features());
    reset();
  }

  /// Registers fresh parameters and buffers and initialises them.
  void reset() override {
    const int64_t c = options.num_features();
    if (options.affine()) {
      weight = this->register_parameter("weight", at::empty({c}));
      bias = this->register_parameter("bias", at::empty({c}));
    } else {
      weight = this->register_parameter("weight", at::Tensor(), /*requires_grad=*/false);
      bias = this->register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
    }
    if (options.track_running_stats()) {
      running_mean = this->register_buffer("running_mean", at::zeros({c}));
      running_var = this->register_buffer("running_var", at::ones({c}));
      num_batches_tracked = this->register_buffer("num_batches_tracked", at::zeros({}, at::kLong));
    } else {
      running_mean = this->register_buffer("running_mean", at::Tensor());
      running_var = this->register_buffer("running_var", at::Tensor());
      num_batches_tracked = this->register_buffer("num_batches_tracked", at::Tensor());
    }
    reset_parameters();
  }

  /// Running mean 0, running variance 1, no batches tracked.
  void reset_running_stats() {
    if (!options.track_running_stats()) return;
    at::NoGradGuard no_grad;
    running_mean.zero_();
    running_var.fill_(1);
    num_batches_tracked.zero_();
  }

  /// reset_running_stats(), weight 1 and bias 0.
  void reset_parameters() {
    reset_running_stats();
    if (!options.affine()) return;
    at::NoGradGuard no_grad;
    weight.fill_(1);
    bias.zero_();
  }

  /// Batch statistics in training (and always when running stats are not tracked), the running
  /// stats in eval. Each training step counts one batch; momentum nullopt averages all batches.
  at::Tensor forward(const at::Tensor& input) {
    static_cast<Derived*>(this)->check_input_dim(input);
    double factor = options.momentum().value_or(0.0);
    const bool training = this->is_training();
    if (training && options.track_running_stats()) {
      at::NoGradGuard no_grad;
      num_batches_tracked.add_(1);
      if (!options.momentum()) factor = 1.0 / static_cast<double>(num_batches_tracked.template item<int64_t>());
    }
    return functional::batch_norm(input, running_mean, running_var,
                                  functional::BatchNormFuncOptions()
                                      .weight(weight)
                                      .bias(bias)
                                      .training(training || !options.track_running_stats())
                                      .momentum(factor)
                                      .eps(options.eps()));
  }

  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "torch::nn::BatchNorm" << D << "d(" << options.num_features() << ", eps=" << options.eps()
           << ", momentum=";
    if (options.momentum())
      stream << *options.momentum();
    else
      stream << "None";
    stream << ", affine=" << options.affine() << ", track_running_stats=" << options.track_running_stats() << ")";
  }

  BatchNormOptions options;
  at::Tensor weight;               ///< (num_features), undefined unless affine
  at::Tensor bias;                 ///< (num_features), undefined unless affine
  at::Tensor running_mean;         ///< (num_features), undefined unless track_running_stats
  at::Tensor running_var;          ///< (num_features), undefined unless track_running_stats
  at::Tensor num_batches_tracked;  ///< int64 scalar, undefined unless track_running_stats
};

/// Batch normalisation of (N, C) or (N, C, L) inputs.
class BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
 public:
  explicit BatchNorm1dImpl(const BatchNormOptions& options_) : BatchNormImplBase(options_) {}
  void check_input_dim(const at::Tensor& input) const { detail::check_norm_input_dim(input, 2, 3, "BatchNorm1d"); }
};
TORCH_MODULE(BatchNorm1d);

/// Batch normalisation of (N, C, H, W) inputs.
class BatchNorm2dImpl : public BatchNormImplBase<2, BatchNorm2dImpl> {
 public:
  explicit BatchNorm2dImpl(const BatchNormOptions& options_) : BatchNormImplBase(options_) {}
  void check_input_dim(const at::Tensor& input) const { detail::check_norm_input_dim(input, 4, 4, "BatchNorm2d"); }
};
TORCH_MODULE(BatchNorm2d);

/// Batch normalisation of (N, C, D, H, W) inputs.
class BatchNorm3dImpl : public BatchNormImplBase<3, BatchNorm3dImpl> {
 public:
  explicit BatchNorm3dImpl(const BatchNormOptions& options_) : BatchNormImplBase(options_) {}
  void check_input_dim(const at::Tensor& input) const { detail::check_norm_input_dim(input, 5, 5, "BatchNorm3d"); }
};
TORCH_MODULE(BatchNorm3d);

/// Shared state of InstanceNorm{D}d: weight/bias when affine, running_mean/running_var/
/// num_batches_tracked when track_running_stats (as BatchNorm; num_batches_tracked is not counted).
/// Takes batched (N, C, *spatial) or unbatched (C, *spatial) input with D spatial dims.
template <size_t D, typename Derived>
class InstanceNormImpl : public Cloneable<Derived> {
 public:
  explicit InstanceNormImpl(const InstanceNormOptions& options_) : options(options_) {
    EMBER_CHECK(options.num_features() > 0, "[InstanceNorm", D, "d] expected num_features > 0; got ",
                options.num_features());
    reset();
  }

  void reset() override {
    const int64_t c = options.num_features();
    if (options.affine()) {
      weight = this->register_parameter("weight", at::empty({c}));
      bias = this->register_parameter("bias", at::empty({c}));
    } else {
      weight = this->register_parameter("weight", at::Tensor(), /*requires_grad=*/false);
      bias = this->register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
    }
    if (options.track_running_stats()) {
      running_mean = this->register_buffer("running_mean", at::zeros({c}));
      running_var = this->register_buffer("running_var", at::ones({c}));
      num_batches_tracked = this->register_buffer("num_batches_tracked", at::zeros({}, at::kLong));
    } else {
      running_mean = this->register_buffer("running_mean", at::Tensor());
      running_var = this->register_buffer("running_var", at::Tensor());
      num_batches_tracked = this->register_buffer("num_batches_tracked", at::Tensor());
    }
    reset_parameters();
  }

  /// Running mean 0, running variance 1, no batches tracked.
  void reset_running_stats() {
    if (!options.track_running_stats()) return;
    at::NoGradGuard no_grad;
    running_mean.zero_();
    running_var.fill_(1);
    num_batches_tracked.zero_();
  }

  /// reset_running_stats(), weight 1 and bias 0.
  void reset_parameters() {
    reset_running_stats();
    if (!options.affine()) return;
    at::NoGradGuard no_grad;
    weight.fill_(1);
    bias.zero_();
  }

  /// Per-instance statistics in training (and always when running stats are not tracked), the
  /// running stats in eval.
  at::Tensor forward(const at::Tensor& input) {
    const int64_t d = static_cast<int64_t>(D);
    detail::check_norm_input_dim(input, d + 1, d + 2, name_for_errors());
    const bool unbatched = input.dim() == d + 1;
    const at::Tensor x = unbatched ? input.unsqueeze(0) : input;
    at::Tensor y = functional::instance_norm(x, functional::InstanceNormFuncOptions()
                                                    .running_mean(running_mean)
                                                    .running_var(running_var)
                                                    .weight(weight)
                                                    .bias(bias)
                                                    .use_input_stats(this->is_training() || !options.track_running_stats())
                                                    .momentum(options.momentum())
                                                    .eps(options.eps()));
    return unbatched ? y.squeeze(0) : y;
  }

  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "torch::nn::InstanceNorm" << D << "d(" << options.num_features()
           << ", eps=" << options.eps() << ", momentum=" << options.momentum() << ", affine=" << options.affine()
           << ", track_running_stats=" << options.track_running_stats() << ")";
  }

  InstanceNormOptions options;
  at::Tensor weight;               ///< (num_features), undefined unless affine
  at::Tensor bias;                 ///< (num_features), undefined unless affine
  at::Tensor running_mean;         ///< (num_features), undefined unless track_running_stats
  at::Tensor running_var;          ///< (num_features), undefined unless track_running_stats
  at::Tensor num_batches_tracked;  ///< int64 scalar, undefined unless track_running_stats

 private:
  static const char* name_for_errors() {
    return D == 1 ? "InstanceNorm1d" : D == 2 ? "InstanceNorm2d" : "InstanceNorm3d";
  }
};

/// Instance normalisation of (N, C, L) or (C, L) inputs.
class InstanceNorm1dImpl : public InstanceNormImpl<1, InstanceNorm1dImpl> {
 public:
  using InstanceNormImpl::InstanceNormImpl;
};
TORCH_MODULE(InstanceNorm1d);

/// Instance normalisation of (N, C, H, W) or (C, H, W) inputs.
class InstanceNorm2dImpl : public InstanceNormImpl<2, InstanceNorm2dImpl> {
 public:
  using InstanceNormImpl::InstanceNormImpl;
};
TORCH_MODULE(InstanceNorm2d);

/// Instance normalisation of (N, C, D, H, W) or (C, D, H, W) inputs.
class InstanceNorm3dImpl : public InstanceNormImpl<3, InstanceNorm3dImpl> {
 public:
  using InstanceNormImpl::InstanceNormImpl;
};
TORCH_MODULE(InstanceNorm3d);

/// Layer normalisation over the trailing dims options.normalized_shape(); weight (ones) and bias
/// (zeros) of that shape when elementwise_affine.
class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape) : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(LayerNormOptions options);
  void reset() override;
  /// weight 1, bias 0.
  void reset_parameters();
  at::Tensor forward(const at::Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  LayerNormOptions options;
  at::Tensor weight;  ///< normalized_shape, undefined unless elementwise_affine
  at::Tensor bias;    ///< normalized_shape, undefined unless elementwise_affine
};
TORCH_MODULE(LayerNorm);

/// Group normalisation: the channels of (N, C, ...) split into num_groups groups, each (sample,
/// group) normalised; per-channel weight (ones) and bias (zeros) when affine.
class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  /// weight 1, bias 0.
  void reset_parameters();
  at::Tensor forward(const at::Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  GroupNormOptions options;
  at::Tensor weight;  ///< (num_channels), undefined unless affine
  at::Tensor bias;    ///< (num_channels), undefined unless affine
};
TORCH_MODULE(GroupNorm);

}  // namespace torch::nn

EMBER_PUBLIC_END
