#pragma once
// libtorch's finer-grained header: Ember declares MapDataset in torch/data/datasets.h.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/data/datasets.h>

EMBER_PUBLIC_END
