#pragma once
// torch::optim: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS) and learning-rate schedulers (StepLR,
// ReduceLROnPlateauScheduler, CosineAnnealingLR), with libtorch's names and options.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/optim/optimizer.h>
#include <torch/optim/sgd.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/lbfgs.h>
#include <torch/optim/schedulers/lr_scheduler.h>
#include <torch/optim/schedulers/step_lr.h>
#include <torch/optim/schedulers/reduce_on_plateau_scheduler.h>
#include <torch/optim/schedulers/cosine_annealing_lr.h>

EMBER_PUBLIC_END
