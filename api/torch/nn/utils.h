#pragma once
// torch::nn::utils: gradient clipping, parameter <-> vector conversion and the recurrent
// sequence helpers (torch::nn::utils::rnn), as libtorch's umbrella header.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/nn/utils/clip_grad.h>
#include <torch/nn/utils/convert_parameters.h>
#include <torch/nn/utils/rnn.h>

EMBER_PUBLIC_END
