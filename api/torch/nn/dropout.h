#pragma once
// More dropout (issue #6): Dropout1d and Dropout3d (whole channels of (N, C, L) and (N, C, D, H, W)
// inputs, or their unbatched forms), AlphaDropout and FeatureAlphaDropout (for SELU networks: dropped
// values take SELU's negative saturation, then an affine map restores mean and variance). Masks come
// from the global generator, as dropout's.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <torch/arg.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <ostream>

namespace torch::nn {

using Dropout1dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

namespace functional {

using Dropout1dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;

/// alpha_dropout's options; training defaults to false, as libtorch's.
struct AlphaDropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};
using FeatureAlphaDropoutFuncOptions = AlphaDropoutFuncOptions;

namespace dropout_detail {
/// Channel dropout of an input with `batched_dim` dims (or one fewer, unbatched): one draw per
/// (sample, channel), shared over the remaining dims.
inline at::Tensor channel_dropout(at::Tensor input, const DropoutFuncOptions& options, int64_t batched_dim,
                                  const char* op, const char* shapes) {
  EMBER_CHECK(input.dim() == batched_dim || input.dim() == batched_dim - 1, "[", op, "] expected a ", shapes,
              " input; got shape ", input.sizes());
  const bool unbatched = input.dim() == batched_dim - 1;
  at::Tensor x = unbatched ? input.unsqueeze(0) : input;
  at::Tensor y = options.inplace() ? at::feature_dropout_(x, options.p(), options.training())
                                   : at::feature_dropout(x, options.p(), options.training());
  return unbatched ? (options.inplace() ? input : y.squeeze(0)) : y;
}
}  // namespace dropout_detail

/// Zeroes whole channels of (N, C, L) or (C, L) input in training, scaling the rest by 1 / (1 - p).
inline at::Tensor dropout1d(at::Tensor input, const Dropout1dFuncOptions& options = {}) {
  return dropout_detail::channel_dropout(std::move(input), options, 3, "dropout1d", "2-D (C, L) or 3-D (N, C, L)");
}

/// Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input in training.
inline at::Tensor dropout3d(at::Tensor input, const Dropout3dFuncOptions& options = {}) {
  return dropout_detail::channel_dropout(std::move(input), options, 5, "dropout3d", "4-D (C, D, H, W) or 5-D (N, C, D, H, W)");
}

/// Alpha dropout of each element (identity unless options.training()).
inline at::Tensor alpha_dropout(at::Tensor input, const AlphaDropoutFuncOptions& options = {}) {
  at::Tensor out = at::alpha_dropout(input, options.p(), options.training());
  return options.inplace() ? input.copy_(out) : out;
}

/// Alpha dropout of whole channels (one draw per sample and channel of an (N, C, ...) input).
inline at::Tensor feature_alpha_dropout(at::Tensor input, const FeatureAlphaDropoutFuncOptions& options = {}) {
  at::Tensor out = at::feature_alpha_dropout(input, options.p(), options.training());
  return options.inplace() ? input.copy_(out) : out;
}

}  // namespace functional

namespace dropout_detail {
/// The dropout modules: p checked at construction, training mode from the module, libtorch's printing.
template <typename Derived>
class DropoutModuleBase : public Cloneable<Derived> {
 public:
  explicit DropoutModuleBase(const DropoutOptions& options_, const char* name) : options(options_), name_(name) {
    EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "[", name_, "] expected a probability p in [0, 1]; got ",
                options.p());
  }
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "torch::nn::" << name_ << "(p=" << options.p() << ", inplace=" << options.inplace()
           << ")";
  }
  DropoutOptions options;

 private:
  const char* name_;
};
}  // namespace dropout_detail

class Dropout1dImpl : public dropout_detail::DropoutModuleBase<Dropout1dImpl> {
 public:
  explicit Dropout1dImpl(const Dropout1dOptions& options_ = {}) : DropoutModuleBase(options_, "Dropout1d") {}
  at::Tensor forward(at::Tensor input) {
    return functional::dropout1d(std::move(input), functional::DropoutFuncOptions().p(options.p()).training(
                                                       is_training()).inplace(options.inplace()));
  }
};
TORCH_MODULE(Dropout1d);

class Dropout3dImpl : public dropout_detail::DropoutModuleBase<Dropout3dImpl> {
 public:
  explicit Dropout3dImpl(const Dropout3dOptions& options_ = {}) : DropoutModuleBase(options_, "Dropout3d") {}
  at::Tensor forward(at::Tensor input) {
    return functional::dropout3d(std::move(input), functional::DropoutFuncOptions().p(options.p()).training(
                                                       is_training()).inplace(options.inplace()));
  }
};
TORCH_MODULE(Dropout3d);

class AlphaDropoutImpl : public dropout_detail::DropoutModuleBase<AlphaDropoutImpl> {
 public:
  explicit AlphaDropoutImpl(const AlphaDropoutOptions& options_ = {}) : DropoutModuleBase(options_, "AlphaDropout") {}
  at::Tensor forward(at::Tensor input) {
    return functional::alpha_dropout(std::move(input), functional::AlphaDropoutFuncOptions().p(options.p()).training(
                                                           is_training()).inplace(options.inplace()));
  }
};
TORCH_MODULE(AlphaDropout);

class FeatureAlphaDropoutImpl : public dropout_detail::DropoutModuleBase<FeatureAlphaDropoutImpl> {
 public:
  explicit FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options_ = {})
      : DropoutModuleBase(options_, "FeatureAlphaDropout") {}
  at::Tensor forward(at::Tensor input) {
    return functional::feature_alpha_dropout(
        std::move(input),
        functional::FeatureAlphaDropoutFuncOptions().p(options.p()).training(is_training()).inplace(options.inplace()));
  }
};
TORCH_MODULE(FeatureAlphaDropout);

}  // namespace torch::nn

EMBER_PUBLIC_END
