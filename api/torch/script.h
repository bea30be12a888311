#pragma once
// libtorch's finer-grained header: Ember has no TorchScript; programs that include this header for the C++ frontend alone build.
#include <torch/torch.h>
