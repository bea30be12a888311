#pragma once
// The layers: Linear, Identity, Flatten, Conv1d/2d/3d and ConvTranspose1d/2d/3d (torch/nn/conv.h), MaxPool2d, the activations, Dropout, the containers Sequential and
// ModuleList, and the loss modules. Each `XImpl` is wrapped into the holder `X` by TORCH_MODULE.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/any.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/conv.h>
#include <torch/nn/functional.h>
#include <torch/nn/init.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <ostream>
#include <vector>

namespace torch::nn {

// ---------------------------------------------------------------- Linear, Identity, Flatten

/// y = x W^T + b with W of shape (out, in). Default init (reset_parameters): W ~ kaiming_uniform_
/// with a = sqrt(5), i.e. U(-1/sqrt(in), 1/sqrt(in)), and b ~ U(-1/sqrt(in), 1/sqrt(in)).
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  /// Registers fresh weight and bias and initialises them.
  void reset() override;
  /// Redraws weight and bias from the default distributions.
  void reset_parameters();
  at::Tensor forward(const at::Tensor& input) { return functional::linear(input, weight, bias); }
  void pretty_print(std::ostream& stream) const override;

  LinearOptions options;
  at::Tensor weight;
  at::Tensor bias;  ///< undefined when options.bias() is false
};
TORCH_MODULE(Linear);

/// Returns its input.
class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return input; }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Identity()"; }
};
TORCH_MODULE(Identity);

/// Flattens dims start_dim..end_dim into one (default: all but the batch dim).
class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  void reset() override {}
  explicit FlattenImpl(const FlattenOptions& options_ = {}) : options(options_) {}
  at::Tensor forward(const at::Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
  }
  FlattenOptions options;
};
TORCH_MODULE(Flatten);

// ---------------------------------------------------------------- Conv2d, MaxPool2d

// Conv1d/2d/3d and ConvTranspose1d/2d/3d: torch/nn/conv.h.

/// 2-D max pooling (no parameters).
class MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
 public:
  MaxPool2dImpl(ExpandingArray<2> kernel_size) : MaxPool2dImpl(MaxPool2dOptions(kernel_size)) {}
  explicit MaxPool2dImpl(const MaxPool2dOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::max_pool2d(input, options); }
  /// The pooled values and the flat index of each maximum within its input plane.
  std::tuple<at::Tensor, at::Tensor> forward_with_indices(const at::Tensor& input) {
    return functional::max_pool2d_with_indices(input, options);
  }
  void pretty_print(std::ostream& stream) const override;

  MaxPool2dOptions options;
};
TORCH_MODULE(MaxPool2d);

// ---------------------------------------------------------------- activations

class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  void reset() override {}
  explicit ReLUImpl(const ReLUOptions& options_ = {}) : options(options_) {}
  at::Tensor forward(at::Tensor input) { return functional::relu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
  }
  ReLUOptions options;
};
TORCH_MODULE(ReLU);

class LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
 public:
  void reset() override {}
  explicit LeakyReLUImpl(const LeakyReLUOptions& options_ = {}) : options(options_) {}
  at::Tensor forward(at::Tensor input) { return functional::leaky_relu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::LeakyReLU(negative_slope=" << options.negative_slope()
           << (options.inplace() ? ", inplace=true" : "") << ")";
  }
  LeakyReLUOptions options;
};
TORCH_MODULE(LeakyReLU);

class GELUImpl : public Cloneable<GELUImpl> {
 public:
  void reset() override {}
  explicit GELUImpl(GELUOptions options_ = {}) : options(std::move(options_)) {}
  at::Tensor forward(const at::Tensor& input) { return functional::gelu(input, options); }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::GELU()"; }
  GELUOptions options;
};
TORCH_MODULE(GELU);

class SiLUImpl : public Cloneable<SiLUImpl> {
 public:
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::silu(input); }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::SiLU()"; }
};
TORCH_MODULE(SiLU);

class SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return at::sigmoid(input); }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Sigmoid()"; }
};
TORCH_MODULE(Sigmoid);

class TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return at::tanh(input); }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Tanh()"; }
};
TORCH_MODULE(Tanh);

class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  void reset() override {}
  explicit SoftmaxImpl(int64_t dim) : options(dim) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options_) : options(options_) {}
  at::Tensor forward(const at::Tensor& input) { return at::softmax(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Softmax(dim=" << options.dim() << ")"; }
  SoftmaxOptions options;
};
TORCH_MODULE(Softmax);

class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  void reset() override {}
  explicit LogSoftmaxImpl(int64_t dim) : options(dim) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options_) : options(options_) {}
  at::Tensor forward(const at::Tensor& input) { return at::log_softmax(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::LogSoftmax(dim=" << options.dim() << ")";
  }
  LogSoftmaxOptions options;
};
TORCH_MODULE(LogSoftmax);

/// Zeroes elements with probability p in training mode (scaling the rest by 1/(1-p)); identity in eval.
class DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  void reset() override {}
  explicit DropoutImpl(const DropoutOptions& options_ = {}) : options(options_) {
    EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "[Dropout] expected a probability p in [0, 1]; got ",
                options.p());
  }
  at::Tensor forward(at::Tensor input) {
    return functional::dropout(std::move(input),
                               functional::DropoutFuncOptions().p(options.p()).training(is_training()).inplace(
                                   options.inplace()));
  }
  void pretty_print(std::ostream& stream) const override {
    // std::boolalpha stays set on the stream afterwards, as with libtorch's printing.
    stream << std::boolalpha << "torch::nn::Dropout(p=" << options.p() << ", inplace=" << options.inplace() << ")";
  }
  DropoutOptions options;
};
TORCH_MODULE(Dropout);

/// Zeroes whole channels of an (N, C, H, W) or (C, H, W) input in training (see functional::dropout2d).
class Dropout2dImpl : public Cloneable<Dropout2dImpl> {
 public:
  void reset() override {}
  explicit Dropout2dImpl(const Dropout2dOptions& options_ = {}) : options(options_) {
    EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "[Dropout2d] expected a probability p in [0, 1]; got ",
                options.p());
  }
  at::Tensor forward(at::Tensor input) {
    return functional::dropout2d(std::move(input),
                                 functional::Dropout2dFuncOptions().p(options.p()).training(is_training()).inplace(
                                     options.inplace()));
  }
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "torch::nn::Dropout2d(p=" << options.p() << ", inplace=" << options.inplace() << ")";
  }
  Dropout2dOptions options;
};
TORCH_MODULE(Dropout2d);

// ---------------------------------------------------------------- containers

/// Chains modules: forward(x) runs each in order on the previous output. Submodules are named
/// "0", "1", ... unless constructed from {name, module} pairs.
class SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  void reset() override {}
  /// Clones every module, keeping their names.
  std::shared_ptr<Module> clone(const std::optional<c10::Device>& device = std::nullopt) const override {
    auto copy = std::make_shared<SequentialImpl>();
    const auto names = named_children().keys();
    for (size_t i = 0; i < modules_.size(); ++i) copy->push_back(names[i], modules_[i].clone(device));
    return copy;
  }
  SequentialImpl() = default;
  /// Sequential(Linear(4, 8), ReLU(), Linear(8, 2)).
  template <typename First, typename... Rest,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<First>, SequentialImpl> || sizeof...(Rest) != 0>>
  explicit SequentialImpl(First&& first, Rest&&... rest) {
    push_back(std::forward<First>(first));
    (push_back(std::forward<Rest>(rest)), ...);
  }
  /// Sequential({{"fc", Linear(4, 8)}, {"act", ReLU()}}).
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
    for (const auto& nm : named_modules) push_back(nm.name(), nm.module());
  }
  explicit SequentialImpl(OrderedDict<std::string, AnyModule>&& ordered_dict) {
    for (auto& item : ordered_dict) push_back(item.key(), item.value());
  }

  /// Appends a module (holder, shared_ptr, module value or AnyModule), named by its position.
  template <typename M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  /// Appends a module under `name`.
  template <typename M>
  void push_back(std::string name, M&& module) {
    AnyModule any(std::forward<M>(module));
    register_module(std::move(name), any.ptr());
    modules_.push_back(std::move(any));
  }
  /// Appends every module of another Sequential.
  void extend(const SequentialImpl& other) {
    for (const auto& m : other.modules_) push_back(m);
  }

  /// Runs the modules in order.
  at::Tensor forward(const at::Tensor& input) {
    EMBER_CHECK(!modules_.empty(), "[Sequential] forward() called on an empty Sequential");
    at::Tensor x = modules_.front().forward(input);
    for (size_t i = 1; i < modules_.size(); ++i) x = modules_[i].forward(x);
    return x;
  }

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  std::vector<AnyModule>::iterator begin() { return modules_.begin(); }
  std::vector<AnyModule>::iterator end() { return modules_.end(); }
  std::vector<AnyModule>::const_iterator begin() const { return modules_.begin(); }
  std::vector<AnyModule>::const_iterator end() const { return modules_.end(); }

  /// The module at `index`.
  std::shared_ptr<Module> ptr(size_t index) const { return checked(index).ptr(); }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  /// The module at `index` as `T` (e.g. `seq->at<LinearImpl>(0)`).
  template <typename T>
  T& at(size_t index) const { return checked(index).get<T>(); }
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const { return std::dynamic_pointer_cast<T>(ptr(index)); }

  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Sequential"; }

 private:
  const AnyModule& checked(size_t index) const {
    EMBER_CHECK(index < modules_.size(), "[Sequential] index ", index, " is out of range for ", modules_.size(),
                " modules");
    return modules_[index];
  }
  std::vector<AnyModule> modules_;
};

class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

/// Holds submodules in a list (named "0", "1", ...) without a forward of its own.
class ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  void reset() override {}
  /// Clones every module.
  std::shared_ptr<Module> clone(const std::optional<c10::Device>& device = std::nullopt) const override {
    auto copy = std::make_shared<ModuleListImpl>();
    for (const auto& m : modules_) copy->push_back(m->clone(device));
    return copy;
  }
  ModuleListImpl() = default;
  template <typename First, typename... Rest,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<First>, ModuleListImpl> || sizeof...(Rest) != 0>>
  explicit ModuleListImpl(First&& first, Rest&&... rest) {
    push_back(std::forward<First>(first));
    (push_back(std::forward<Rest>(rest)), ...);
  }

  /// Appends a module (shared_ptr, holder or module value).
  template <typename M>
  void push_back(std::shared_ptr<M> module) {
    register_module(std::to_string(modules_.size()), module);
    modules_.push_back(std::move(module));
  }
  template <typename M>
  void push_back(const ModuleHolder<M>& holder) { push_back(holder.ptr()); }
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  void push_back(M&& module) { push_back(std::make_shared<std::decay_t<M>>(std::forward<M>(module))); }
  void extend(const ModuleListImpl& other) {
    for (const auto& m : other.modules_) push_back(m);
  }

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  std::vector<std::shared_ptr<Module>>::iterator begin() { return modules_.begin(); }
  std::vector<std::shared_ptr<Module>>::iterator end() { return modules_.end(); }
  std::vector<std::shared_ptr<Module>>::const_iterator begin() const { return modules_.begin(); }
  std::vector<std::shared_ptr<Module>>::const_iterator end() const { return modules_.end(); }

  std::shared_ptr<Module> ptr(size_t index) const { return checked(index); }
  std::shared_ptr<Module> operator[](size_t index) const { return checked(index); }
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const { return std::dynamic_pointer_cast<T>(checked(index)); }
  template <typename T>
  T& at(size_t index) const {
    auto* p = dynamic_cast<T*>(checked(index).get());
    EMBER_CHECK(p != nullptr, "[ModuleList] module ", index, " is a ", checked(index)->name(),
                ", not the requested type");
    return *p;
  }

  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::ModuleList"; }

 private:
  const std::shared_ptr<Module>& checked(size_t index) const {
    EMBER_CHECK(index < modules_.size(), "[ModuleList] index ", index, " is out of range for ", modules_.size(),
                " modules");
    return modules_[index];
  }
  std::vector<std::shared_ptr<Module>> modules_;
};
TORCH_MODULE(ModuleList);

// ---------------------------------------------------------------- losses

class CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  explicit CrossEntropyLossImpl(CrossEntropyLossOptions options_ = {}) : options(std::move(options_)) { reset(); }
  /// Registers the class weights (if any) as the buffer "weight" (its own handle, so to() and
  /// clone() move the buffer, not the tensor the options were given).
  void reset() override {
    if (options.weight().defined()) weight = register_buffer("weight", options.weight().detach());
  }
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target) {
    auto opts = options;
    opts.weight(weight);
    return functional::cross_entropy(input, target, opts);
  }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::CrossEntropyLoss()"; }
  CrossEntropyLossOptions options;
  at::Tensor weight;  ///< the registered class weights, or undefined
};
TORCH_MODULE(CrossEntropyLoss);

class NLLLossImpl : public Cloneable<NLLLossImpl> {
 public:
  explicit NLLLossImpl(NLLLossOptions options_ = {}) : options(std::move(options_)) { reset(); }
  /// Registers the class weights (if any) as the buffer "weight" (its own handle, so to() and
  /// clone() move the buffer, not the tensor the options were given).
  void reset() override {
    if (options.weight().defined()) weight = register_buffer("weight", options.weight().detach());
  }
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target) {
    auto opts = options;
    opts.weight(weight);
    return functional::nll_loss(input, target, opts);
  }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::NLLLoss()"; }
  NLLLossOptions options;
  at::Tensor weight;  ///< the registered class weights, or undefined
};
TORCH_MODULE(NLLLoss);

class MSELossImpl : public Cloneable<MSELossImpl> {
 public:
  void reset() override {}
  explicit MSELossImpl(MSELossOptions options_ = {}) : options(std::move(options_)) {}
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target) {
    return functional::mse_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::MSELoss()"; }
  MSELossOptions options;
};
TORCH_MODULE(MSELoss);

class L1LossImpl : public Cloneable<L1LossImpl> {
 public:
  void reset() override {}
  explicit L1LossImpl(L1LossOptions options_ = {}) : options(std::move(options_)) {}
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target) {
    return functional::l1_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::L1Loss()"; }
  L1LossOptions options;
};
TORCH_MODULE(L1Loss);

}  // namespace torch::nn

EMBER_PUBLIC_END
