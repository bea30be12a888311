#pragma once
// libtorch's finer-grained header: Ember declares the dataset bases in torch/data/datasets.h.
#include <torch/data/datasets.h>
