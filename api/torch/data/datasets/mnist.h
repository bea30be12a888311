#pragma once
// libtorch's finer-grained header: Ember declares datasets::MNIST in torch/data/datasets.h.
#include <torch/data/datasets.h>
