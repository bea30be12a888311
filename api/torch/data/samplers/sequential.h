#pragma once
// libtorch's finer-grained header: Ember declares the samplers in torch/data/samplers.h.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/data/samplers.h>

EMBER_PUBLIC_END
