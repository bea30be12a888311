#pragma once
// libtorch's finer-grained header: Ember declares the samplers in torch/data/samplers.h.
#include <torch/data/samplers.h>
