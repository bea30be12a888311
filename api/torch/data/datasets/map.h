#pragma once
// libtorch's finer-grained header: Ember declares MapDataset in torch/data/datasets.h.
#include <torch/data/datasets.h>
