// nn::Embedding, nn::EmbeddingBag and their functionals (torch/nn/embedding.h).
#include <torch/nn/embedding.h>
#include <torch/nn/init.h>
#include <ATen/core/GradMode.h>
#include <ostream>

namespace torch::nn {
namespace {

// padding_idx as the ops take it: in [0, rows), negative values counted from the end.
std::optional<int64_t> normalized_padding_idx(const char* op, std::optional<int64_t> padding_idx, int64_t rows) {
  if (!padding_idx.has_value()) return std::nullopt;
  EMBER_CHECK(*padding_idx < rows && *padding_idx >= -rows, "[", op, "] expected padding_idx in [", -rows, ", ", rows,
              ") (within num_embeddings); got ", *padding_idx);
  return *padding_idx < 0 ? *padding_idx + rows : *padding_idx;
}

// max_norm: every row the input looks up whose norm_type-norm exceeds max_norm is scaled in place,
// outside autograd, to max_norm / (norm + 1e-7) times itself (libtorch's embedding_renorm_; the
// weight's version moves, so a graph that saved the old rows notices).
void renorm_looked_up_rows(const char* op, const at::Tensor& weight, const at::Tensor& input,
                           const std::optional<double>& max_norm, double norm_type) {
  if (!max_norm.has_value()) return;
  EMBER_CHECK(*max_norm >= 0, "[", op, "] expected max_norm >= 0; got ", *max_norm);
  EMBER_CHECK(input.scalar_type() == at::kLong || input.scalar_type() == at::kInt, "[", op,
              "] expected int64 or int32 indices; got ", c10::dtypeName(input.scalar_type()));
  if (input.numel() == 0) return;
  at::NoGradGuard no_grad;
  const at::Tensor rows = std::get<0>(at::_unique(input.reshape({-1}).to(at::kLong), /*sorted=*/true));
  // Out-of-range indices: the lookup itself reports them.
  if (rows[0].item<int64_t>() < 0 || rows[-1].item<int64_t>() >= weight.size(0)) return;
  const at::Tensor picked = weight.index_select(0, rows);
  const at::Tensor norms = at::norm(picked, at::Scalar(norm_type), {1}, /*keepdim=*/true);
  const at::Tensor scale = at::where(at::gt(norms, *max_norm), *max_norm / (norms + 1e-7), at::ones_like(norms));
  at::Tensor w = weight;
  w.index_put_(c10::List<std::optional<at::Tensor>>({std::optional<at::Tensor>(rows)}), picked * scale);
}

int64_t bag_mode(const EmbeddingBagMode& mode) {
  if (std::holds_alternative<enumtype::kSum>(mode)) return 0;
  if (std::holds_alternative<enumtype::kMean>(mode)) return 1;
  return 2;
}

void init_table(at::Tensor& weight, const std::optional<int64_t>& padding_idx) {
  init::normal_(weight);
  if (padding_idx.has_value()) {
    at::NoGradGuard no_grad;
    weight.select(0, *padding_idx).fill_(0);
  }
}

}  // namespace

namespace functional {

at::Tensor embedding(const at::Tensor& input, const at::Tensor& weight, const EmbeddingFuncOptions& options) {
  EMBER_CHECK(weight.defined() && weight.dim() == 2, "[embedding] expected a 2-D weight (num_embeddings, embedding_dim)");
  const auto pad = normalized_padding_idx("embedding", options.padding_idx(), weight.size(0));
  renorm_looked_up_rows("embedding", weight, input, options.max_norm(), options.norm_type());
  return at::embedding(weight, input, pad.value_or(-1), options.scale_grad_by_freq(), options.sparse());
}

at::Tensor embedding_bag(const at::Tensor& input, const at::Tensor& weight, const EmbeddingBagFuncOptions& options) {
  const char* op = "embedding_bag";
  EMBER_CHECK(weight.defined() && weight.dim() == 2, "[", op, "] expected a 2-D weight (num_embeddings, embedding_dim)");
  EMBER_CHECK(input.defined() && (input.dim() == 1 || input.dim() == 2), "[", op,
              "] expected a 1-D (with offsets) or 2-D (one bag per row) input; got ", input.defined() ? input.dim() : -1, "-D");
  at::Tensor indices = input, offsets = options.offsets(), psw = options.per_sample_weights();
  if (psw.defined())
    EMBER_CHECK(psw.sizes() == input.sizes(), "[", op, "] expected per_sample_weights of the input's shape ", input.sizes(),
                "; got ", psw.sizes());
  if (input.dim() == 2) {
    EMBER_CHECK(!offsets.defined(), "[", op, "] expected no offsets with a 2-D input (each row is a bag); got offsets of shape ",
                offsets.sizes());
    offsets = at::arange(0, input.numel(), input.size(1), at::TensorOptions().dtype(at::kLong).device(input.device()));
    if (input.size(1) == 0) offsets = at::zeros({input.size(0)}, at::TensorOptions().dtype(at::kLong).device(input.device()));
    indices = input.reshape({-1});
    if (psw.defined()) psw = psw.reshape({-1});
  } else {
    EMBER_CHECK(offsets.defined() && offsets.dim() == 1, "[", op, "] expected 1-D offsets with a 1-D input");
  }
  const auto pad = normalized_padding_idx(op, options.padding_idx(), weight.size(0));
  renorm_looked_up_rows(op, weight, indices, options.max_norm(), options.norm_type());
  auto out = at::embedding_bag(weight, indices, offsets, options.scale_grad_by_freq(), bag_mode(options.mode()),
                               options.sparse(), psw.defined() ? std::optional<at::Tensor>(psw) : std::nullopt,
                               options.include_last_offset(), pad);
  return std::get<0>(out);
}

}  // namespace functional

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options_) : options(std::move(options_)) { reset(); }

void EmbeddingImpl::reset() {
  const int64_t rows = options.num_embeddings(), cols = options.embedding_dim();
  EMBER_CHECK(rows >= 0 && cols >= 0, "[Embedding] expected non-negative num_embeddings and embedding_dim; got ", rows, " and ",
              cols);
  options.padding_idx(normalized_padding_idx("Embedding", options.padding_idx(), rows));
  if (options._weight().defined()) {
    EMBER_CHECK(options._weight().sizes() == at::IntArrayRef({rows, cols}), "[Embedding] expected _weight of shape [", rows, ", ",
                cols, "] (num_embeddings, embedding_dim); got ", options._weight().sizes());
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", at::empty({rows, cols}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() { init_table(weight, options.padding_idx()); }

at::Tensor EmbeddingImpl::forward(const at::Tensor& indices) {
  return functional::embedding(indices, weight,
                               functional::EmbeddingFuncOptions()
                                   .padding_idx(options.padding_idx())
                                   .max_norm(options.max_norm())
                                   .norm_type(options.norm_type())
                                   .scale_grad_by_freq(options.scale_grad_by_freq())
                                   .sparse(options.sparse()));
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Embedding(num_embeddings=" << options.num_embeddings() << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx().has_value()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.max_norm().has_value()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=" << std::boolalpha << options.scale_grad_by_freq();
  if (options.sparse()) stream << ", sparse=" << std::boolalpha << options.sparse();
  stream << ")";
}

Embedding Embedding::from_pretrained(const at::Tensor& embeddings, const EmbeddingFromPretrainedOptions& options) {
  EMBER_CHECK(embeddings.defined() && embeddings.dim() == 2, "[Embedding::from_pretrained] expected a 2-D embeddings tensor");
  Embedding e(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                  ._weight(embeddings)
                  .padding_idx(options.padding_idx())
                  .max_norm(options.max_norm())
                  .norm_type(options.norm_type())
                  .scale_grad_by_freq(options.scale_grad_by_freq())
                  .sparse(options.sparse()));
  e->weight.set_requires_grad(!options.freeze());
  return e;
}

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions options_) : options(std::move(options_)) { reset(); }

void EmbeddingBagImpl::reset() {
  const int64_t rows = options.num_embeddings(), cols = options.embedding_dim();
  EMBER_CHECK(rows >= 0 && cols >= 0, "[EmbeddingBag] expected non-negative num_embeddings and embedding_dim; got ", rows,
              " and ", cols);
  options.padding_idx(normalized_padding_idx("EmbeddingBag", options.padding_idx(), rows));
  if (options._weight().defined()) {
    EMBER_CHECK(options._weight().sizes() == at::IntArrayRef({rows, cols}), "[EmbeddingBag] expected _weight of shape [", rows,
                ", ", cols, "] (num_embeddings, embedding_dim); got ", options._weight().sizes());
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", at::empty({rows, cols}));
    reset_parameters();
  }
}

void EmbeddingBagImpl::reset_parameters() { init_table(weight, options.padding_idx()); }

at::Tensor EmbeddingBagImpl::forward(const at::Tensor& input, const at::Tensor& offsets, const at::Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

void EmbeddingBagImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.max_norm().has_value()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=" << std::boolalpha << options.scale_grad_by_freq();
  if (options.sparse()) stream << ", sparse=" << std::boolalpha << options.sparse();
  if (!std::holds_alternative<enumtype::kMean>(options.mode()))
    stream << ", mode=" << torch::enumtype::get_enum_name(options.mode());
  if (options.include_last_offset()) stream << ", include_last_offset=" << std::boolalpha << options.include_last_offset();
  if (options.padding_idx().has_value()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

EmbeddingBag EmbeddingBag::from_pretrained(const at::Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options) {
  EMBER_CHECK(embeddings.defined() && embeddings.dim() == 2, "[EmbeddingBag::from_pretrained] expected a 2-D embeddings tensor");
  EmbeddingBag e(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                     ._weight(embeddings)
                     .max_norm(options.max_norm())
                     .norm_type(options.norm_type())
                     .scale_grad_by_freq(options.scale_grad_by_freq())
                     .mode(options.mode())
                     .sparse(options.sparse())
                     .include_last_offset(options.include_last_offset())
                     .padding_idx(options.padding_idx()));
  e->weight.set_requires_grad(!options.freeze());
  return e;
}

}  // namespace torch::nn
