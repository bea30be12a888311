#pragma once
// torch::optim::LRScheduler: the base of learning-rate schedules that rewrite every group's lr on step().
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/optimizer.h>

#include <vector>

namespace torch::optim {

/// Base of learning-rate schedulers. Keeps a reference to the optimizer, which must outlive it.
class LRScheduler {
 public:
  LRScheduler(torch::optim::Optimizer& optimizer) : optimizer_(optimizer) {}
  virtual ~LRScheduler() = default;

  /// Sets each group's lr to get_lrs() and counts the step.
  void step() {
    set_optimizer_lrs(get_lrs());
    ++step_count_;
  }

 protected:
  /// The new learning rate of every parameter group, in group order.
  virtual std::vector<double> get_lrs() = 0;

  /// The learning rates the groups have now.
  std::vector<double> get_current_lrs() const {
    std::vector<double> lrs;
    for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
    return lrs;
  }

  /// How many times step() has run.
  unsigned step_count_{};

 private:
  void set_optimizer_lrs(const std::vector<double>& lrs) {
    auto& groups = optimizer_.param_groups();
    EMBER_CHECK(lrs.size() == groups.size(), "[LRScheduler] step: expected one learning rate per parameter group (",
                groups.size(), "), got ", lrs.size());
    for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  }

  torch::optim::Optimizer& optimizer_;
};

}  // namespace torch::optim

EMBER_PUBLIC_END
