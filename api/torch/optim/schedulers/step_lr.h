#pragma once
// torch::optim::StepLR: multiplies every group's lr by gamma every step_size scheduler steps.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/schedulers/lr_scheduler.h>

namespace torch::optim {

/// Decays the learning rate by `gamma` every `step_size` steps. As libtorch's, the first decay happens on
/// the (step_size + 1)-th call of step(): the count of earlier steps must be a non-zero multiple of step_size.
class StepLR : public LRScheduler {
 public:
  StepLR(torch::optim::Optimizer& optimizer, const unsigned step_size, const double gamma = 0.1)
      : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
    EMBER_CHECK(step_size > 0, "[StepLR] expected step_size > 0, got ", step_size);
  }

 private:
  std::vector<double> get_lrs() override {
    std::vector<double> lrs = get_current_lrs();
    if (step_count_ != 0 && step_count_ % step_size_ == 0)
      for (double& lr : lrs) lr *= gamma_;
    return lrs;
  }

  const unsigned step_size_;
  const double gamma_;
};

}  // namespace torch::optim

EMBER_PUBLIC_END
