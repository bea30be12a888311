#pragma once
// Embedding tables: nn::Embedding and nn::EmbeddingBag, their options (libtorch's), and
// F::embedding / F::embedding_bag over at::embedding and at::embedding_bag
// (aten/native/Embedding.cpp).
//   torch::nn::Embedding emb(torch::nn::EmbeddingOptions(1000, 64).padding_idx(0));
//   auto bags = torch::nn::EmbeddingBag(torch::nn::EmbeddingBagOptions(1000, 64).mode(torch::kSum));
// max_norm renormalises the looked-up rows of the weight in place (outside autograd) before the lookup.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/enum.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <optional>
#include <ostream>
#include <variant>

namespace torch::nn {

/// Options of nn::Embedding: table size and row width; padding_idx rows get no gradient (and
/// start at zero); negative padding_idx counts from the end.
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCH_ARG(int64_t, num_embeddings);
  TORCH_ARG(int64_t, embedding_dim);
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;
  /// A given (num_embeddings, embedding_dim) table used as the weight instead of a fresh one.
  TORCH_ARG(at::Tensor, _weight) = at::Tensor();
};

/// Options of Embedding::from_pretrained (freeze: the weight does not require grad).
struct EmbeddingFromPretrainedOptions {
  TORCH_ARG(bool, freeze) = true;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;
};

typedef std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax> EmbeddingBagMode;

/// Options of nn::EmbeddingBag (mode kMean by default).
struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCH_ARG(int64_t, num_embeddings);
  TORCH_ARG(int64_t, embedding_dim);
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = torch::kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(at::Tensor, _weight) = at::Tensor();
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// Options of EmbeddingBag::from_pretrained.
struct EmbeddingBagFromPretrainedOptions {
  TORCH_ARG(bool, freeze) = true;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = torch::kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {

/// Options of F::embedding.
struct EmbeddingFuncOptions {
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;
};

/// Options of F::embedding_bag (offsets required for 1-D input, absent for 2-D input).
struct EmbeddingBagFuncOptions {
  TORCH_ARG(at::Tensor, offsets) = at::Tensor();
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = torch::kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(at::Tensor, per_sample_weights) = at::Tensor();
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// Rows of `weight` looked up by the integer tensor `input`: shape input.sizes() + [embedding_dim].
at::Tensor embedding(const at::Tensor& input, const at::Tensor& weight, const EmbeddingFuncOptions& options = {});

/// Sums, averages or maxes bags of rows: 1-D input with offsets (bag starts), or 2-D input (one bag per row).
at::Tensor embedding_bag(const at::Tensor& input, const at::Tensor& weight, const EmbeddingBagFuncOptions& options = {});

}  // namespace functional

/// A lookup table of num_embeddings rows of embedding_dim values. Default init: N(0, 1), with the
/// padding_idx row zeroed.
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options_);
  /// Registers the weight (options._weight when given, else a fresh N(0, 1) draw).
  void reset() override;
  /// Redraws the weight from N(0, 1) and zeroes the padding_idx row.
  void reset_parameters();
  at::Tensor forward(const at::Tensor& indices);
  void pretty_print(std::ostream& stream) const override;

  EmbeddingOptions options;
  at::Tensor weight;
};

/// A torch::nn::Embedding holder, with from_pretrained.
class Embedding : public torch::nn::ModuleHolder<EmbeddingImpl> {
 public:
  using torch::nn::ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  /// An Embedding whose weight is `embeddings` (2-D); with freeze (default) it is not trained.
  static Embedding from_pretrained(const at::Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

/// Bags of lookups reduced to one row each (sum, mean or max). Default init: N(0, 1), with the
/// padding_idx row zeroed.
class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options_);
  void reset() override;
  /// Redraws the weight from N(0, 1) and zeroes the padding_idx row.
  void reset_parameters();
  /// input 1-D with offsets, or 2-D (offsets undefined); per_sample_weights only with kSum.
  at::Tensor forward(const at::Tensor& input, const at::Tensor& offsets = {}, const at::Tensor& per_sample_weights = {});
  void pretty_print(std::ostream& stream) const override;

  EmbeddingBagOptions options;
  at::Tensor weight;
};

/// A torch::nn::EmbeddingBag holder, with from_pretrained.
class EmbeddingBag : public torch::nn::ModuleHolder<EmbeddingBagImpl> {
 public:
  using torch::nn::ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  /// An EmbeddingBag whose weight is `embeddings` (2-D); with freeze (default) it is not trained.
  static EmbeddingBag from_pretrained(const at::Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace torch::nn

EMBER_PUBLIC_END
