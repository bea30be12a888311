#pragma once
// libtorch's header for pickle_save / pickle_load (torch::jit::), the same functions as torch::.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/serialize/pickle.h>

namespace torch::jit {
using torch::pickle_load;
using torch::pickle_save;
}  // namespace torch::jit

EMBER_PUBLIC_END
