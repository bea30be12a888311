#pragma once
// libtorch's finer-grained header: Ember declares the transforms in torch/data/transforms.h.
#include <torch/data/transforms.h>
