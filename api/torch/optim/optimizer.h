#pragma once
// torch::optim::Optimizer: the base of every optimizer, with libtorch's parameter groups, per-parameter
// state and option classes.
//
//   torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
//   opt.zero_grad(); loss.backward(); opt.step();
//   static_cast<torch::optim::SGDOptions&>(opt.param_groups()[0].options()).lr(0.001);  // a schedule
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/core/GradMode.h>
#include <c10/util/Exception.h>
#include <torch/arg.h>
#include <torch/serialize/archive.h>

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torch::optim {
using at::Tensor;

/// Per-parameter optimizer state (momentum buffers, moment estimates); each optimizer derives its own.
class OptimizerParamState {
 public:
  OptimizerParamState() = default;
  OptimizerParamState(const OptimizerParamState&) = default;
  OptimizerParamState& operator=(const OptimizerParamState&) = default;
  OptimizerParamState(OptimizerParamState&&) noexcept = default;
  OptimizerParamState& operator=(OptimizerParamState&&) noexcept = default;
  virtual ~OptimizerParamState() = default;
  /// A deep-enough copy of this state, of the derived type.
  virtual std::unique_ptr<OptimizerParamState> clone() const { return std::make_unique<OptimizerParamState>(*this); }
  /// Writes this state's fields into `archive` (each optimizer's state overrides it; the base raises).
  virtual void serialize(torch::serialize::OutputArchive& archive) const;
  /// Reads the fields that serialize(OutputArchive&) wrote.
  virtual void serialize(torch::serialize::InputArchive& archive);
  /// Calls `fn` on each tensor field (name, tensor; undefined ones too). Optimizer::load uses it to check the
  /// shapes against the parameter and to move the tensors to the parameter's device.
  virtual void for_each_tensor(const std::function<void(const char*, Tensor&)>& fn) { (void)fn; }
};

/// CRTP helper: gives a derived state class its clone().
template <typename Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

class Optimizer;

/// The options of one parameter group (learning rate and the optimizer's hyper-parameters).
class OptimizerOptions {
 public:
  OptimizerOptions() = default;
  OptimizerOptions(const OptimizerOptions&) = default;
  OptimizerOptions& operator=(const OptimizerOptions&) = default;
  OptimizerOptions(OptimizerOptions&&) noexcept = default;
  OptimizerOptions& operator=(OptimizerOptions&&) noexcept = default;
  virtual ~OptimizerOptions() = default;
  /// A copy of these options, of the derived type.
  virtual std::unique_ptr<OptimizerOptions> clone() const { return std::make_unique<OptimizerOptions>(*this); }
  /// The learning rate; option classes without one throw.
  virtual double get_lr() const {
    EMBER_CHECK(false, "[optim] get_lr: these optimizer options have no learning rate (a derived options class must "
                "override get_lr)");
    return 0;
  }
  /// Sets the learning rate; option classes without one throw.
  virtual void set_lr(const double lr) {
    (void)lr;
    EMBER_CHECK(false, "[optim] set_lr: these optimizer options have no learning rate (a derived options class must "
                "override set_lr)");
  }
  /// Writes the options (with the optimizer's name, checked on reading) into `archive`; the base raises.
  virtual void serialize(torch::serialize::OutputArchive& archive) const;
  /// Reads the options that serialize(OutputArchive&) wrote.
  virtual void serialize(torch::serialize::InputArchive& archive);

 protected:
  friend class Optimizer;
  // Note [Group options inherit the optimizer's defaults]
  // A group created with its own options keeps only the fields the user changed from the option class's
  // constructor defaults; every other field takes the optimizer's defaults (libtorch 2.x does the same:
  // `AdamOptions().weight_decay(0.1)` in a group of `Adam(groups, AdamOptions(0.01))` runs with lr 0.01).
  // "Changed" means "differs from a freshly constructed options object", so a field explicitly set to its
  // constructor default is inherited too. Each options class implements this for its own fields.
  virtual void inherit_unset_from(const OptimizerOptions& defaults) { (void)defaults; }

  // Helper for inherit_unset_from: `field` keeps its value if the user changed it, else takes `fallback`.
  template <typename T>
  static void inherit_field(T& field, const T& constructor_default, const T& fallback) {
    if (field == constructor_default) field = fallback;
  }
};

/// CRTP helper: gives a derived options class its clone().
template <typename Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// A list of parameters that share one set of options.
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(const OptimizerParamGroup& other)
      : params_(other.params_), options_(other.has_options() ? other.options_->clone() : nullptr) {}
  OptimizerParamGroup(OptimizerParamGroup&& other) = default;
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup& operator=(const OptimizerParamGroup&) = delete;
  OptimizerParamGroup& operator=(OptimizerParamGroup&& other) noexcept = default;
  ~OptimizerParamGroup() = default;

  /// False for a group built without options (it gets the optimizer's defaults when added).
  bool has_options() const { return options_ != nullptr; }
  /// The group's options; cast to the optimizer's options type to read or change a field.
  OptimizerOptions& options() {
    EMBER_CHECK(has_options(), "[optim] OptimizerParamGroup::options: this group has no options set");
    return *options_;
  }
  const OptimizerOptions& options() const {
    EMBER_CHECK(has_options(), "[optim] OptimizerParamGroup::options: this group has no options set");
    return *options_;
  }
  /// Replaces the group's options.
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  /// The parameters of this group.
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 protected:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

/// The base of all optimizers: parameter groups, per-parameter state and the default options.
class Optimizer {
 public:
  /// Per-parameter state, keyed by the parameter's TensorImpl.
  using StateMap = std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>;
  /// A function that re-evaluates the model and returns the loss (for step(closure)).
  using LossClosure = std::function<Tensor()>;

  // Copying would share parameters but not state; libtorch forbids it too.
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  Optimizer& operator=(Optimizer&&) = default;

  /// An optimizer over the given groups; groups without options use `defaults`.
  explicit Optimizer(const std::vector<OptimizerParamGroup>& param_groups, std::unique_ptr<OptimizerOptions> defaults)
      : defaults_(std::move(defaults)) {
    for (const auto& group : param_groups) add_param_group(group);
  }
  /// An optimizer over one group holding `parameters`.
  explicit Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
      : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))}, std::move(defaults)) {}
  virtual ~Optimizer() = default;

  /// Appends a group; its options start from the defaults (see Note [Group options inherit the optimizer's
  /// defaults]). A parameter may belong to one group only.
  void add_param_group(const OptimizerParamGroup& param_group) {
    std::unique_ptr<OptimizerOptions> options = defaults_->clone();
    if (param_group.has_options()) {
      options = param_group.options().clone();
      options->inherit_unset_from(*defaults_);
    }
    for (const auto& p : param_group.params()) {
      EMBER_CHECK(p.defined(), "[optim] add_param_group: expected defined tensors as parameters, got an undefined one");
      for (const auto& group : param_groups_)
        for (const auto& q : group.params())
          EMBER_CHECK(!q.is_same(p), "[optim] add_param_group: a parameter can belong to only one parameter group; "
                      "this one (sizes ", p.sizes(), ") is already in another group");
    }
    param_groups_.emplace_back(param_group.params(), std::move(options));
  }

  /// Appends parameters to the first group.
  void add_parameters(const std::vector<Tensor>& parameters) {
    EMBER_CHECK(!param_groups_.empty(), "[optim] add_parameters: the optimizer has no parameter group to add to");
    auto& params = param_groups_[0].params();
    params.insert(params.end(), parameters.begin(), parameters.end());
  }

  /// Performs one update of every parameter that has a gradient; with a closure, first re-evaluates the loss
  /// (with grad mode on) and returns it, else returns an undefined tensor.
  virtual Tensor step(LossClosure closure = nullptr) = 0;

  /// Clears the gradients: undefined with set_to_none (the default, as libtorch 2.x), else zero-filled.
  void zero_grad(bool set_to_none = true) {
    for (auto& group : param_groups_) {
      for (auto& p : group.params()) {
        Tensor& g = p.mutable_grad();
        if (!g.defined()) continue;
        g.detach_();  // a grad built with create_graph must not keep its graph alive
        if (set_to_none) g.reset();
        else g.zero_();
      }
    }
  }

  /// The parameters of the first group.
  const std::vector<Tensor>& parameters() const noexcept { return param_groups_.at(0).params(); }
  std::vector<Tensor>& parameters() noexcept { return param_groups_.at(0).params(); }
  /// The number of parameters over all groups.
  size_t size() const noexcept {
    size_t n = 0;
    for (const auto& group : param_groups_) n += group.params().size();
    return n;
  }
  /// The options a group gets when it brings none.
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  /// The parameter groups, in the order they were added.
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// Per-parameter state, keyed by `p.unsafeGetTensorImpl()`; a parameter gets an entry on its first update.
  StateMap& state() noexcept { return state_; }
  const StateMap& state() const noexcept { return state_; }

  /// Writes every group's options and parameter count and the state of each parameter (keyed by its position
  /// over all groups) into `archive` (docs/serialization.md).
  virtual void save(torch::serialize::OutputArchive& archive) const;
  /// Restores what save() wrote into an optimizer over parameters of the same number, grouping and shapes.
  /// Everything is read and checked first, so a mismatch raises c10::Error and leaves the optimizer as it was;
  /// state tensors go to their parameter's device.
  virtual void load(torch::serialize::InputArchive& archive);

 protected:
  /// A fresh state object of this optimizer's state type, for load(); nullptr (the default) means the
  /// optimizer cannot load state.
  virtual std::unique_ptr<OptimizerParamState> make_param_state() const { return nullptr; }

  // Runs the closure of step() with grad mode on (the step itself runs under NoGradGuard).
  static Tensor evaluate_closure(const LossClosure& closure) {
    if (!closure) return Tensor();
    at::AutoGradMode enable_grad(true);
    return closure();
  }
  // The state of `p`, of the optimizer's state type, or nullptr before its first update.
  template <typename S>
  S* find_state(const Tensor& p) {
    auto it = state_.find(p.unsafeGetTensorImpl());
    return it == state_.end() ? nullptr : static_cast<S*>(it->second.get());
  }
  template <typename S>
  S& create_state(const Tensor& p) {
    auto owned = std::make_unique<S>();
    S& s = *owned;
    state_[p.unsafeGetTensorImpl()] = std::move(owned);
    return s;
  }

  std::vector<OptimizerParamGroup> param_groups_;
  StateMap state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

/// Writes `optimizer` into `archive` (optimizer.save(archive)).
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Optimizer& optimizer);
/// Loads `optimizer` from `archive` (optimizer.load(archive)).
serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer);

namespace detail {
// Scalars and names in optimizer archives are stored as 0-dim tensors (float64, int64, bool) and uint8
// vectors; these write them and read them back with a type check.
void write_double(serialize::OutputArchive& archive, const std::string& key, double value);
double read_double(serialize::InputArchive& archive, const std::string& key);
void write_int(serialize::OutputArchive& archive, const std::string& key, int64_t value);
int64_t read_int(serialize::InputArchive& archive, const std::string& key);
void write_bool(serialize::OutputArchive& archive, const std::string& key, bool value);
bool read_bool(serialize::InputArchive& archive, const std::string& key);
void write_betas(serialize::OutputArchive& archive, const std::string& key, const std::tuple<double, double>& betas);
std::tuple<double, double> read_betas(serialize::InputArchive& archive, const std::string& key);
/// Writes `name` under the key "optimizer"; check_optimizer_name raises unless the archive holds `name`.
void write_optimizer_name(serialize::OutputArchive& archive, const std::string& name);
void check_optimizer_name(serialize::InputArchive& archive, const std::string& name);
/// A state tensor: written when defined, read back if present (else left undefined).
void write_optional_tensor(serialize::OutputArchive& archive, const std::string& key, const Tensor& tensor);
void read_optional_tensor(serialize::InputArchive& archive, const std::string& key, Tensor& tensor);
}  // namespace detail

}  // namespace torch::optim

EMBER_PUBLIC_END
