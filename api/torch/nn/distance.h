#pragma once
// Distances between batches of vectors: nn::CosineSimilarity and nn::PairwiseDistance, their
// options (libtorch's fields and defaults) and F::cosine_similarity, F::pairwise_distance.
//   auto d = F::pairwise_distance(a, b, F::PairwiseDistanceFuncOptions().p(1).keepdim(true));
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <ostream>

namespace torch::nn {

/// Options of nn::CosineSimilarity: the dim the vectors lie along and the smallest norm divided by.
struct CosineSimilarityOptions {
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-8;
};

/// Options of nn::PairwiseDistance: the norm's order, the value added to every difference, and
/// whether the reduced dim is kept.
struct PairwiseDistanceOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, keepdim) = false;
};

namespace functional {

using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;

/// The cosine of the angle between x1 and x2 along options.dim() (inputs broadcast).
inline at::Tensor cosine_similarity(const at::Tensor& x1, const at::Tensor& x2,
                                    const CosineSimilarityFuncOptions& options = {}) {
  return at::cosine_similarity(x1, x2, options.dim(), options.eps());
}

/// The p-norm of x1 - x2 + eps over the last dim (inputs broadcast).
inline at::Tensor pairwise_distance(const at::Tensor& x1, const at::Tensor& x2,
                                    const PairwiseDistanceFuncOptions& options = {}) {
  return at::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

}  // namespace functional

/// Cosine similarity of two inputs along a dim (no parameters).
class CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input1, const at::Tensor& input2) {
    return functional::cosine_similarity(input1, input2, options);
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
  }
  CosineSimilarityOptions options;
};
TORCH_MODULE(CosineSimilarity);

/// p-norm distance between two inputs along their last dim (no parameters).
class PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input1, const at::Tensor& input2) {
    return functional::pairwise_distance(input1, input2, options);
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::PairwiseDistance(p=" << options.p() << ", eps=" << options.eps()
           << ", keepdim=" << (options.keepdim() ? "true" : "false") << ")";
  }
  PairwiseDistanceOptions options;
};
TORCH_MODULE(PairwiseDistance);

}  // namespace torch::nn

EMBER_PUBLIC_END
