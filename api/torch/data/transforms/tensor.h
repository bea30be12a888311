#pragma once
// libtorch's finer-grained header: Ember declares the transforms in torch/data/transforms.h.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/data/transforms.h>

EMBER_PUBLIC_END
