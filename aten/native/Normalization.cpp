// Normalisation layers' ops: the batch-statistics primitive _native_batch_norm_legit.no_stats
// (batch_norm_train_aten, registered for CPU and CUDA alike: it is written in ATen ops, with CPU
// passes for the common case, Note [Batch norm passes on the CPU], and its derivative is a
// derivatives.yaml formula) and the composites native_batch_norm, batch_norm, layer_norm,
// group_norm and instance_norm.
#include <ATen/native/NativeFunctions.h>
#include <ATen/core/GradMode.h>
#include <ATen/native/cpu/BatchNorm.h>
#include <cmath>
#include <vector>

namespace at::native {
namespace {

Tensor defined_or_empty(const std::optional<Tensor>& t) { return t.has_value() ? *t : Tensor(); }

// The dims a per-channel statistic reduces: all but dim 1.
std::vector<int64_t> non_channel_dims(int64_t dim) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < dim; ++d) dims.push_back(d);
  return dims;
}

// (1, C, 1, ..., 1): a per-channel vector viewed so that it broadcasts over an input of `dim` dims.
std::vector<int64_t> channel_shape(int64_t channels, int64_t dim) {
  std::vector<int64_t> shape(static_cast<size_t>(dim), 1);
  shape[1] = channels;
  return shape;
}

void check_per_channel(const Tensor& t, int64_t channels, const char* op, const char* name) {
  EMBER_CHECK(!t.defined() || (t.dim() == 1 && t.numel() == channels), "[", op, "] expected ", name,
              " of shape [", channels, "] (one value per channel); got ", t.sizes());
}

// running = (1 - momentum) * running + momentum * batch, in place (no autograd history).
void update_running(const Tensor& running, const Tensor& batch, double momentum) {
  if (!running.defined()) return;
  at::NoGradGuard no_grad;
  running.mul_(1.0 - momentum).add_(batch.detach().to(running.scalar_type()), momentum);
}

const std::vector<int64_t> first{0}, last{2};  // dims of (N, C) and (N, groups or C, rest)

// n / (n - 1): the factor from the biased to the unbiased variance.
double unbiased_factor(int64_t n) { return static_cast<double>(n) / static_cast<double>(n - 1); }

// Note [Batch norm passes on the CPU]
// On the CPU a contiguous (or 4-d channels-last: Note [Channels-last batch norm] in
// kernels/cpu/isa/batch_norm.cpp) float or double input (the common case) skips the composed reductions
// (mean, then var: several passes over the whole input and full-size temporaries): its per-channel
// statistics come from at::native::cpu::batch_norm_stats (double sums, each channel read twice
// while it is in cache), the output from one pass x * scale + shift, the running variance from
// the same statistics, and the backward from two passes per channel (batch_norm_backward in
// autograd/derivative_helpers.cpp). Other devices, layouts and dtypes, and the double backward,
// keep the composed ops.
bool batch_norm_cpu_passes(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (!cpu::batch_norm_supported(input)) return false;
  for (const Tensor* t : {&weight, &bias})
    if (t->defined() && (!t->is_cpu() || t->scalar_type() != input.scalar_type())) return false;
  return true;
}

// Note [Batch norm statistics for the running variance]
// In training, native_batch_norm updates running_var from the unbiased variance, which the
// primitive (_native_batch_norm_legit) does not return: it returns 1 / sqrt(var + eps), from which
// var cannot be recovered when it is far below eps. The primitive's CPU passes therefore leave the
// biased variances they computed here, with the input they came from (its TensorImpl and version),
// and native_batch_norm takes them when they belong to the same, unchanged input instead of reading
// the input once more (a whole extra pass: 10-15% of a channels-last 8x64x56^2 fwd+bwd). One entry
// per thread, taken once.
struct BatchStats {
  const void* input = nullptr;
  uint32_t version = 0;
  std::vector<double> var;
};
thread_local BatchStats last_batch_stats;

// A per-channel vector of doubles as a tensor of `like`'s dtype and device.
Tensor per_channel(const std::vector<double>& v, const Tensor& like) {
  Tensor d = at::empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kDouble));
  std::copy(v.begin(), v.end(), d._mutable_data_ptr_internal<double>());
  return d.to(like.options());
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> batch_norm_train_aten(const Tensor& input, const std::optional<Tensor>& weight_opt,
                                                         const std::optional<Tensor>& bias_opt, bool training,
                                                         double /*momentum*/, double eps) {
  const Tensor weight = defined_or_empty(weight_opt), bias = defined_or_empty(bias_opt);
  EMBER_CHECK(training, "[_native_batch_norm_legit] expected training=true (without running stats only the batch ",
              "statistics can normalise); got training=false");
  EMBER_CHECK(input.dim() >= 2, "[_native_batch_norm_legit] expected an input of at least 2 dims (N, C, ...); got shape ",
              input.sizes());
  EMBER_CHECK(input.is_floating_point(), "[_native_batch_norm_legit] expected a floating-point input; got ",
              input.scalar_type());
  const int64_t channels = input.size(1);
  check_per_channel(weight, channels, "_native_batch_norm_legit", "weight");
  check_per_channel(bias, channels, "_native_batch_norm_legit", "bias");
  if (batch_norm_cpu_passes(input, weight, bias)) {
    // See Note [Batch norm passes on the CPU].
    std::vector<double> m, v;
    cpu::batch_norm_stats(input, m, v);
    last_batch_stats = {input.unsafeGetTensorImpl(), input._version(), v};  // Note [Batch norm statistics for the running variance]
    for (double& x : v) x = 1.0 / std::sqrt(x + eps);
    const Tensor mean = per_channel(m, input), invstd = per_channel(v, input);
    const Tensor scale = weight.defined() ? invstd * weight : invstd;
    const Tensor shift = bias.defined() ? bias - mean * scale : -(mean * scale);
    return {cpu::batch_norm_apply(input, scale, shift), mean, invstd};
  }
  const auto dims = non_channel_dims(input.dim());
  const Tensor mean = input.mean(dims);
  const Tensor invstd = at::var(input, dims, /*unbiased=*/false).add(eps).rsqrt();
  // out = (x - mean) * invstd * weight + bias = x * scale + shift: one pass over the input.
  const Tensor scale = weight.defined() ? invstd * weight : invstd;
  const Tensor shift = bias.defined() ? bias - mean * scale : -(mean * scale);
  const auto shape = channel_shape(channels, input.dim());
  return {at::addcmul(shift.reshape(shape), input, scale.reshape(shape)), mean, invstd};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight_opt,
                                                     const std::optional<Tensor>& bias_opt,
                                                     const std::optional<Tensor>& running_mean_opt,
                                                     const std::optional<Tensor>& running_var_opt, bool training,
                                                     double momentum, double eps) {
  const Tensor weight = defined_or_empty(weight_opt), bias = defined_or_empty(bias_opt);
  const Tensor running_mean = defined_or_empty(running_mean_opt), running_var = defined_or_empty(running_var_opt);
  EMBER_CHECK(input.dim() >= 2, "[native_batch_norm] expected an input of at least 2 dims (N, C, ...); got shape ",
              input.sizes());
  const int64_t channels = input.size(1);
  check_per_channel(running_mean, channels, "native_batch_norm", "running_mean");
  check_per_channel(running_var, channels, "native_batch_norm", "running_var");
  if (training) {
    last_batch_stats = BatchStats{};  // only what the call below leaves counts
    auto r = at::_native_batch_norm_legit(input, weight_opt, bias_opt, true, momentum, eps);
    // The running stats are not inputs of the primitive (their in-place update would invalidate
    // what its backward saved); they move here. The unbiased variance is computed from the input
    // again rather than recovered from the saved 1 / sqrt(var + eps): when the variance is far
    // below eps that recovery loses most of its digits (libtorch updates from the variance itself).
    if (running_mean.defined()) update_running(running_mean, std::get<1>(r), momentum);
    if (running_var.defined()) {
      at::NoGradGuard no_grad;
      if (batch_norm_cpu_passes(input, weight, bias)) {
        std::vector<double> m, v;
        BatchStats& last = last_batch_stats;  // Note [Batch norm statistics for the running variance]
        if (last.input == input.unsafeGetTensorImpl() && last.version == input._version() &&
            static_cast<int64_t>(last.var.size()) == channels)
          v = std::move(last.var);
        else
          cpu::batch_norm_stats(input, m, v);
        last = BatchStats{};
        const double factor = unbiased_factor(input.numel() / channels);
        for (double& x : v) x *= factor;
        update_running(running_var, per_channel(v, input), momentum);
      } else {
        update_running(running_var, at::var(input.detach(), non_channel_dims(input.dim()), /*unbiased=*/true), momentum);
      }
    }
    return r;
  }
  EMBER_CHECK(running_mean.defined() && running_var.defined(),
              "[native_batch_norm] expected running_mean and running_var in evaluation mode (training=false); got ",
              running_mean.defined() ? "running_mean only" : running_var.defined() ? "running_var only" : "neither");
  check_per_channel(weight, channels, "native_batch_norm", "weight");
  check_per_channel(bias, channels, "native_batch_norm", "bias");
  // The running stats are constants here (no gradient flows to them, as in libtorch).
  const Tensor mean = running_mean.detach().to(input.scalar_type());
  const Tensor invstd = running_var.detach().to(input.scalar_type()).add(eps).rsqrt();
  const Tensor scale = weight.defined() ? invstd * weight : invstd;
  const Tensor shift = bias.defined() ? bias - mean * scale : -(mean * scale);
  const auto shape = channel_shape(channels, input.dim());
  return {at::addcmul(shift.reshape(shape), input, scale.reshape(shape)), at::empty({0}, input.options()),
          at::empty({0}, input.options())};
}

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool /*cudnn_enabled*/) {
  return std::get<0>(at::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

// layer_norm is native_layer_norm's first output: one backward node (NativeLayerNormBackward0, as
// libtorch) whose formula reuses the saved statistics (derivative_helpers.cpp layer_norm_backward).
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight_opt,
                  const std::optional<Tensor>& bias_opt, double eps, bool /*cudnn_enable*/) {
  return std::get<0>(at::native_layer_norm(input, normalized_shape, weight_opt, bias_opt, eps));
}

// The output, and the mean and 1 / sqrt(var + eps) of each normalised slice (keepdim shape).
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_generic(const Tensor& input, IntArrayRef normalized_shape,
                                                             const std::optional<Tensor>& weight_opt,
                                                             const std::optional<Tensor>& bias_opt, double eps) {
  const Tensor weight = defined_or_empty(weight_opt), bias = defined_or_empty(bias_opt);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(k >= 1, "[layer_norm] expected a normalized_shape of at least one dim; got []");
  EMBER_CHECK(input.dim() >= k && input.sizes().slice(static_cast<size_t>(input.dim() - k)) == normalized_shape,
              "[layer_norm] expected an input whose trailing dims are normalized_shape ", normalized_shape,
              "; got shape ", input.sizes());
  EMBER_CHECK(!weight.defined() || weight.sizes() == normalized_shape, "[layer_norm] expected weight of shape ",
              normalized_shape, "; got ", weight.sizes());
  EMBER_CHECK(!bias.defined() || bias.sizes() == normalized_shape, "[layer_norm] expected bias of shape ",
              normalized_shape, "; got ", bias.sizes());
  std::vector<int64_t> dims;
  for (int64_t d = input.dim() - k; d < input.dim(); ++d) dims.push_back(d);
  // An empty normalised slice has mean 0 (libtorch's) and a NaN rstd.
  int64_t slice = 1;
  for (int64_t d : normalized_shape) slice *= d;
  const bool empty_slice = slice == 0;
  const Tensor mean = empty_slice ? at::zeros_like(input.sum(dims, /*keepdim=*/true)) : input.mean(dims, /*keepdim=*/true);
  const Tensor rstd = at::var(input, dims, /*unbiased=*/false, /*keepdim=*/true).add(eps).rsqrt();
  Tensor out = (input - mean) * rstd;
  if (weight.defined()) out = out * weight;
  if (bias.defined()) out = out + bias;
  return {out, mean, rstd};
}

// group_norm is native_group_norm's first output (NativeGroupNormBackward0, as libtorch); the
// statistics are per (sample, group), shape [N, groups].
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight_opt,
                  const std::optional<Tensor>& bias_opt, double eps, bool /*cudnn_enabled*/) {
  EMBER_CHECK(input.dim() >= 2, "[group_norm] expected an input of at least 2 dims (N, C, ...); got shape ",
              input.sizes());
  const int64_t n = input.size(0), channels = input.size(1);
  const int64_t hxw = input.numel() / std::max<int64_t>(n * channels, 1);
  return std::get<0>(at::native_group_norm(input, weight_opt, bias_opt, n, channels, hxw, num_groups, eps));
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm_generic(const Tensor& input, const std::optional<Tensor>& weight_opt,
                                                             const std::optional<Tensor>& bias_opt, int64_t n,
                                                             int64_t channels, int64_t hxw, int64_t num_groups,
                                                             double eps) {
  const Tensor weight = defined_or_empty(weight_opt), bias = defined_or_empty(bias_opt);
  EMBER_CHECK(input.dim() >= 2, "[group_norm] expected an input of at least 2 dims (N, C, ...); got shape ",
              input.sizes());
  EMBER_CHECK(input.size(0) == n && input.size(1) == channels && n * channels * hxw == input.numel(),
              "[native_group_norm] expected N, C and HxW that describe the input; got N ", n, ", C ", channels,
              ", HxW ", hxw, " for shape ", input.sizes());
  EMBER_CHECK(num_groups > 0 && channels % num_groups == 0, "[group_norm] expected num_groups > 0 dividing the ",
              channels, " channels; got num_groups ", num_groups);
  check_per_channel(weight, channels, "group_norm", "weight");
  check_per_channel(bias, channels, "group_norm", "bias");
  const int64_t group_size = input.numel() / std::max<int64_t>(n * num_groups, 1);
  const Tensor x = input.reshape({n, num_groups, group_size});
  const Tensor mean = x.mean(last, /*keepdim=*/true);
  const Tensor rstd = at::var(x, last, /*unbiased=*/false, /*keepdim=*/true).add(eps).rsqrt();
  Tensor out = ((x - mean) * rstd).reshape(input.sizes());
  const auto shape = channel_shape(channels, input.dim());
  if (weight.defined()) out = out * weight.reshape(shape);
  if (bias.defined()) out = out + bias.reshape(shape);
  return {out, mean.reshape({n, num_groups}), rstd.reshape({n, num_groups})};
}

Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight_opt, const std::optional<Tensor>& bias_opt,
                     const std::optional<Tensor>& running_mean_opt, const std::optional<Tensor>& running_var_opt,
                     bool use_input_stats, double momentum, double eps, bool /*cudnn_enabled*/) {
  const Tensor weight = defined_or_empty(weight_opt), bias = defined_or_empty(bias_opt);
  const Tensor running_mean = defined_or_empty(running_mean_opt), running_var = defined_or_empty(running_var_opt);
  EMBER_CHECK(input.dim() >= 2, "[instance_norm] expected an input of at least 2 dims (N, C, ...); got shape ",
              input.sizes());
  const int64_t n = input.size(0), channels = input.size(1);
  check_per_channel(weight, channels, "instance_norm", "weight");
  check_per_channel(bias, channels, "instance_norm", "bias");
  check_per_channel(running_mean, channels, "instance_norm", "running_mean");
  check_per_channel(running_var, channels, "instance_norm", "running_var");
  if (!use_input_stats) {
    EMBER_CHECK(running_mean.defined() && running_var.defined(),
                "[instance_norm] expected running_mean and running_var when use_input_stats is false; got ",
                running_mean.defined() ? "running_mean only" : running_var.defined() ? "running_var only" : "neither");
    return at::batch_norm(input, weight_opt, bias_opt, running_mean_opt, running_var_opt, false, momentum, eps, false);
  }
  // Each (sample, channel) is one instance: its statistics run over the remaining elements.
  const int64_t per_instance = input.numel() / std::max<int64_t>(n * channels, 1);
  const Tensor x = input.reshape({n, channels, per_instance});
  const Tensor mean = x.mean(last, /*keepdim=*/true);
  const Tensor var = at::var(x, last, /*unbiased=*/false, /*keepdim=*/true);
  // The running stats move towards the batch average of the per-instance statistics.
  update_running(running_mean, mean.reshape({n, channels}).mean(first), momentum);
  if (running_var.defined())
    update_running(running_var, (var.reshape({n, channels}) * unbiased_factor(per_instance)).mean(first), momentum);
  Tensor out = ((x - mean) * var.add(eps).rsqrt()).reshape(input.sizes());
  const auto shape = channel_shape(channels, input.dim());
  if (weight.defined()) out = out * weight.reshape(shape);
  if (bias.defined()) out = out + bias.reshape(shape);
  return out;
}

}  // namespace at::native
