#pragma once
// libtorch's header for pickle_save / pickle_load (torch::jit::), the same functions as torch::.
#include <torch/serialize/pickle.h>

namespace torch::jit {
using torch::pickle_load;
using torch::pickle_save;
}  // namespace torch::jit
