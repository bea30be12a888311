// Optimizer checkpoints: Optimizer::save/load and the scalar helpers the optimizers' states and options use.
// The archive layout is described in docs/serialization.md ("Optimizers").
#include <torch/optim/optimizer.h>

#include <ATen/core/GradMode.h>
#include <c10/util/Exception.h>

#include <string>
#include <vector>

namespace torch::optim {
namespace {
constexpr int64_t kOptimizerLayoutVersion = 1;

std::string key_path(const serialize::InputArchive& archive, const std::string& key) {
  return archive.path().empty() ? key : archive.path() + "." + key;
}

// A 0-dim tensor of dtype `dtype` under `key`.
at::Tensor read_scalar(serialize::InputArchive& archive, const std::string& key, c10::ScalarType dtype) {
  at::Tensor t;
  archive.read(key, t);
  EMBER_CHECK(t.defined() && t.dim() == 0 && t.scalar_type() == dtype, "[Optimizer::load] '", key_path(archive, key),
              "' should be a 0-dim ", c10::dtypeName(dtype), " tensor, got ",
              t.defined() ? c10::str(t.sizes(), " ", c10::dtypeName(t.scalar_type())) : std::string("undefined"));
  return t.device().is_cpu() ? t : t.to(c10::Device(c10::kCPU));
}
}  // namespace

void OptimizerParamState::serialize(torch::serialize::OutputArchive&) const {
  EMBER_CHECK(false, "[Optimizer::save] this optimizer's state type does not implement serialize()");
}
void OptimizerParamState::serialize(torch::serialize::InputArchive&) {
  EMBER_CHECK(false, "[Optimizer::load] this optimizer's state type does not implement serialize()");
}
void OptimizerOptions::serialize(torch::serialize::OutputArchive&) const {
  EMBER_CHECK(false, "[Optimizer::save] these optimizer options do not implement serialize()");
}
void OptimizerOptions::serialize(torch::serialize::InputArchive&) {
  EMBER_CHECK(false, "[Optimizer::load] these optimizer options do not implement serialize()");
}

namespace detail {
void write_double(serialize::OutputArchive& archive, const std::string& key, double value) {
  archive.write(key, at::scalar_to_tensor(value).to(at::kDouble));
}
double read_double(serialize::InputArchive& archive, const std::string& key) {
  return *read_scalar(archive, key, at::kDouble).const_data_ptr<double>();
}
void write_int(serialize::OutputArchive& archive, const std::string& key, int64_t value) {
  archive.write(key, at::scalar_to_tensor(value).to(at::kLong));
}
int64_t read_int(serialize::InputArchive& archive, const std::string& key) {
  return *read_scalar(archive, key, at::kLong).const_data_ptr<int64_t>();
}
void write_bool(serialize::OutputArchive& archive, const std::string& key, bool value) {
  archive.write(key, at::scalar_to_tensor(value).to(at::kBool));
}
bool read_bool(serialize::InputArchive& archive, const std::string& key) {
  return *read_scalar(archive, key, at::kBool).const_data_ptr<bool>();
}
void write_betas(serialize::OutputArchive& archive, const std::string& key, const std::tuple<double, double>& betas) {
  archive.write(key, at::tensor({std::get<0>(betas), std::get<1>(betas)}, at::TensorOptions().dtype(at::kDouble)));
}
std::tuple<double, double> read_betas(serialize::InputArchive& archive, const std::string& key) {
  at::Tensor t;
  archive.read(key, t);
  EMBER_CHECK(t.defined() && t.dim() == 1 && t.size(0) == 2 && t.scalar_type() == at::kDouble,
              "[Optimizer::load] '", key_path(archive, key), "' should be a float64 tensor of shape [2]");
  t = t.to(c10::Device(c10::kCPU)).contiguous();
  return {t.const_data_ptr<double>()[0], t.const_data_ptr<double>()[1]};
}
void write_optimizer_name(serialize::OutputArchive& archive, const std::string& name) {
  at::Tensor t = at::empty({static_cast<int64_t>(name.size())}, at::TensorOptions().dtype(at::kByte));
  for (size_t i = 0; i < name.size(); ++i) t._mutable_data_ptr_internal<uint8_t>()[i] = static_cast<uint8_t>(name[i]);
  archive.write("optimizer", t);
}
void check_optimizer_name(serialize::InputArchive& archive, const std::string& name) {
  at::Tensor t;
  archive.read("optimizer", t);
  std::string stored;
  if (t.defined() && t.dim() == 1 && t.scalar_type() == at::kByte) {
    t = t.to(c10::Device(c10::kCPU)).contiguous();
    stored.assign(reinterpret_cast<const char*>(t.const_data_ptr<uint8_t>()), static_cast<size_t>(t.numel()));
  }
  EMBER_CHECK(stored == name, "[Optimizer::load] the archive holds the state of a ",
              stored.empty() ? std::string("(malformed)") : stored, " optimizer, but this optimizer is ", name);
}
void write_optional_tensor(serialize::OutputArchive& archive, const std::string& key, const Tensor& tensor) {
  if (tensor.defined()) archive.write(key, tensor);
}
void read_optional_tensor(serialize::InputArchive& archive, const std::string& key, Tensor& tensor) {
  Tensor t;
  tensor = archive.try_read(key, t) ? t : Tensor();
}
}  // namespace detail

// Layout (see docs/serialization.md): "ember_optimizer" (int64 layout version), "param_groups" {"size",
// "<i>" {"num_params", "options" {...}}}, "state" {"<k>" {...}} where k counts parameters over all groups.
void Optimizer::save(torch::serialize::OutputArchive& archive) const {
  detail::write_int(archive, "ember_optimizer", kOptimizerLayoutVersion);
  serialize::OutputArchive groups;
  detail::write_int(groups, "size", static_cast<int64_t>(param_groups_.size()));
  serialize::OutputArchive states;
  int64_t k = 0;
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    const auto& group = param_groups_[i];
    serialize::OutputArchive g, options;
    detail::write_int(g, "num_params", static_cast<int64_t>(group.params().size()));
    group.options().serialize(options);
    g.write("options", options);
    groups.write(std::to_string(i), g);
    for (const auto& p : group.params()) {
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it != state_.end()) {
        serialize::OutputArchive s;
        it->second->serialize(s);
        states.write(std::to_string(k), s);
      }
      ++k;
    }
  }
  archive.write("param_groups", groups);
  archive.write("state", states);
}

void Optimizer::load(torch::serialize::InputArchive& archive) {
  EMBER_CHECK(make_param_state() != nullptr, "[Optimizer::load] this optimizer does not support loading state");
  const int64_t layout = detail::read_int(archive, "ember_optimizer");
  EMBER_CHECK(layout == kOptimizerLayoutVersion, "[Optimizer::load] unsupported optimizer layout version ", layout,
              " (this Ember reads version ", kOptimizerLayoutVersion, ")");
  serialize::InputArchive groups;
  archive.read("param_groups", groups);
  const int64_t n_groups = detail::read_int(groups, "size");
  EMBER_CHECK(n_groups == static_cast<int64_t>(param_groups_.size()), "[Optimizer::load] the archive has ", n_groups,
              " parameter groups, but this optimizer has ", param_groups_.size());

  // Everything is read into new objects and checked; the optimizer changes only once all of it succeeded.
  std::vector<std::unique_ptr<OptimizerOptions>> new_options;
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    serialize::InputArchive g, options;
    groups.read(std::to_string(i), g);
    const int64_t n = detail::read_int(g, "num_params");
    EMBER_CHECK(n == static_cast<int64_t>(param_groups_[i].params().size()), "[Optimizer::load] parameter group ", i,
                " has ", n, " parameters in the archive, but ", param_groups_[i].params().size(), " in this optimizer");
    g.read("options", options);
    auto o = param_groups_[i].options().clone();
    o->serialize(options);
    new_options.push_back(std::move(o));
  }
  serialize::InputArchive states;
  archive.read("state", states);
  StateMap new_state;
  int64_t k = 0;
  for (const auto& group : param_groups_) {
    for (const auto& p : group.params()) {
      serialize::InputArchive s;
      if (states.try_read(std::to_string(k), s)) {
        auto st = make_param_state();
        st->serialize(s);
        const int64_t index = k;
        st->for_each_tensor([&p, index](const char* name, Tensor& t) {
          if (!t.defined()) return;
          EMBER_CHECK(t.sizes() == p.sizes(), "[Optimizer::load] state '", name, "' of parameter ", index,
                      " has shape ", t.sizes(), " in the archive, but the parameter has shape ", p.sizes());
          // A private copy on the parameter's device: the state is updated in place by step().
          t = t.to(p.device(), t.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
        });
        new_state[p.unsafeGetTensorImpl()] = std::move(st);
      }
      ++k;
    }
  }
  for (size_t i = 0; i < param_groups_.size(); ++i) param_groups_[i].set_options(std::move(new_options[i]));
  state_ = std::move(new_state);
}

serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Optimizer& optimizer) {
  optimizer.save(archive);
  return archive;
}

serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer) {
  optimizer.load(archive);
  return archive;
}

}  // namespace torch::optim
