#pragma once
// nn::Bilinear (y = x1^T A x2 + b per output feature, over at::bilinear) and nn::Unflatten, with
// libtorch's BilinearOptions / UnflattenOptions and F::bilinear.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <ostream>
#include <vector>

namespace torch::nn {

/// Options of nn::Bilinear.
struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  TORCH_ARG(int64_t, in1_features);
  TORCH_ARG(int64_t, in2_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};

/// Options of nn::Unflatten: dim `dim` is split into `sizes`.
struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::vector<int64_t>, sizes);
};

namespace functional {
/// y[..., o] = input1 weight[o] input2 (+ bias[o]); weight is (out, in1, in2).
inline at::Tensor bilinear(const at::Tensor& input1, const at::Tensor& input2, const at::Tensor& weight,
                           const at::Tensor& bias = {}) {
  return at::bilinear(input1, input2, weight, bias.defined() ? std::optional<at::Tensor>(bias) : std::nullopt);
}
}  // namespace functional

/// A bilinear map of two inputs. Default init: weight and bias ~ U(-1/sqrt(in1), 1/sqrt(in1)).
class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options_);
  void reset() override;
  /// Redraws weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features)).
  void reset_parameters();
  at::Tensor forward(const at::Tensor& input1, const at::Tensor& input2) {
    return functional::bilinear(input1, input2, weight, bias);
  }
  void pretty_print(std::ostream& stream) const override;

  BilinearOptions options;
  at::Tensor weight;
  at::Tensor bias;  ///< undefined when options.bias() is false
};
TORCH_MODULE(Bilinear);

/// Splits one dim into several (no parameters); -1 in sizes is inferred.
class UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(UnflattenOptions options_) : options(std::move(options_)) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  UnflattenOptions options;
};
TORCH_MODULE(Unflatten);

}  // namespace torch::nn

EMBER_PUBLIC_END
