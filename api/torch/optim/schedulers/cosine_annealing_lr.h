#pragma once
// torch::optim::CosineAnnealingLR: anneals every group's lr from its starting value to eta_min along half a
// cosine period of T_max steps. libtorch 2.15 has no C++ cosine schedule; this follows the closed form of
// PyTorch's torch.optim.lr_scheduler.CosineAnnealingLR (Ember extension).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/schedulers/lr_scheduler.h>

#include <cmath>

namespace torch::optim {

/// After the t-th call of step(): lr = eta_min + (lr_0 - eta_min) * (1 + cos(pi * t / T_max)) / 2, where lr_0 is
/// the group's lr when the scheduler was created. Past T_max the curve continues (the lr rises again).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(torch::optim::Optimizer& optimizer, const unsigned T_max, const double eta_min = 0)
      : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min), base_lrs_(get_current_lrs()) {
    EMBER_CHECK(T_max > 0, "[CosineAnnealingLR] expected T_max > 0, got ", T_max);
  }

 private:
  std::vector<double> get_lrs() override {
    const double pi = std::acos(-1.0);
    const double t = static_cast<double>(step_count_) + 1;  // this step's number, counting from 1
    std::vector<double> lrs = base_lrs_;
    for (double& lr : lrs) lr = eta_min_ + (lr - eta_min_) * (1 + std::cos(pi * t / T_max_)) / 2;
    return lrs;
  }

  const unsigned T_max_;
  const double eta_min_;
  const std::vector<double> base_lrs_;
};

}  // namespace torch::optim

EMBER_PUBLIC_END
