#pragma once
// torch::optim::ReduceLROnPlateauScheduler: lowers every group's lr by `factor` when a metric stops improving
// for more than `patience` steps.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/optimizer.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <vector>

namespace torch::optim {

/// Reduces the learning rate when a metric (passed to step()) has stopped improving, as libtorch's.
/// Note [ReduceLROnPlateau quirks kept from libtorch 2.15]: programs must get libtorch's schedule, so two of its
/// behaviours are kept on purpose: in `max` mode the starting "worst" value is the smallest positive float (a
/// first metric <= 0 counts as no improvement), and `max` with `abs` thresholds counts `metric > best * threshold`
/// as an improvement (not `best + threshold`).
class ReduceLROnPlateauScheduler {
 public:
  enum SchedulerMode { min, max };
  enum ThresholdMode { rel, abs };

  /// `min_lr`: empty (no floor) or one floor per parameter group. A reduction smaller than `eps` is skipped.
  ReduceLROnPlateauScheduler(Optimizer& optimizer, SchedulerMode mode = min, float factor = 0.1, int patience = 10,
                             double threshold = 1e-4, ThresholdMode threshold_mode = rel, int cooldown = 0,
                             const std::vector<float>& min_lr = std::vector<float>(), double eps = 1e-8,
                             bool verbose = false)
      : optimizer_(optimizer), mode_(mode), factor_(factor), patience_(patience), threshold_(threshold),
        threshold_mode_(threshold_mode), cooldown_(cooldown), eps_(eps), verbose_(verbose) {
    const size_t groups = optimizer.param_groups().size();
    EMBER_CHECK(factor < 1.0, "[ReduceLROnPlateauScheduler] expected factor < 1.0, got ", factor);
    EMBER_CHECK(min_lr.empty() || min_lr.size() == groups, "[ReduceLROnPlateauScheduler] expected min_lr to be "
                "empty or hold one value per parameter group (", groups, "), got ", min_lr.size(), " values");
    min_lrs_ = min_lr.empty() ? std::vector<float>(groups, 0.0f) : min_lr;
    // See Note [ReduceLROnPlateau quirks kept from libtorch 2.15].
    mode_worse_ = mode == min ? std::numeric_limits<float>::max() : std::numeric_limits<float>::min();
    reset();
  }
  virtual ~ReduceLROnPlateauScheduler() = default;

  /// Records this step's metric and reduces the learning rates if it has not improved for too long.
  void step(float metric) {
    ++last_epoch_;
    if (is_better(metric)) {
      best_ = metric;
      num_bad_epochs_ = 0;
    } else {
      ++num_bad_epochs_;
    }
    if (cooldown_counter_ > 0) {
      --cooldown_counter_;
      num_bad_epochs_ = 0;  // bad steps during a cooldown do not count
    }
    if (num_bad_epochs_ > patience_) {
      reduce_lr(last_epoch_);
      cooldown_counter_ = cooldown_;
      num_bad_epochs_ = 0;
    }
  }

 private:
  void reset() {
    best_ = mode_worse_;
    cooldown_counter_ = 0;
    num_bad_epochs_ = 0;
  }

  bool is_better(float a) const {
    const double best = best_;
    if (mode_ == min) return threshold_mode_ == rel ? a < best * (1.0 - threshold_) : a < best - threshold_;
    // See Note [ReduceLROnPlateau quirks kept from libtorch 2.15] for the `abs` branch.
    return threshold_mode_ == rel ? a > best * (threshold_ + 1.0) : a > best * threshold_;
  }

  void reduce_lr(int epoch) {
    auto& groups = optimizer_.param_groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].options().get_lr();
      const double new_lr = std::max(old_lr * factor_, static_cast<double>(min_lrs_[i]));
      if (old_lr - new_lr > eps_) {
        groups[i].options().set_lr(new_lr);
        if (verbose_) std::printf("ReduceLROnPlateau: step %d, group %zu lr %.6g -> %.6g\n", epoch, i, old_lr, new_lr);
      }
    }
  }

  Optimizer& optimizer_;
  SchedulerMode mode_;
  float mode_worse_{};
  float factor_;
  int patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int cooldown_;
  int cooldown_counter_{};
  std::vector<float> min_lrs_;
  double eps_;
  float best_{};
  bool verbose_;
  int last_epoch_{};
  int num_bad_epochs_{};
};

}  // namespace torch::optim

EMBER_PUBLIC_END
