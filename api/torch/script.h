#pragma once
// libtorch's finer-grained header: Ember has no TorchScript; programs that include this header for the C++ frontend alone build.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/torch.h>

EMBER_PUBLIC_END
