#pragma once
// The libtorch-compatible entry point: `#include <torch/torch.h>` and use torch::.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <torch/cuda.h>
#include <ATen/core/GradMode.h>
#include <torch/autograd.h>
#include <torch/special.h>
#include <torch/nn.h>
#include <torch/nn/normalization.h>
#include <torch/nn/pooling.h>
#include <torch/nn/pooling_extra.h>
#include <torch/nn/activation.h>
#include <torch/nn/dropout.h>
#include <torch/nn/loss.h>
#include <torch/nn/embedding.h>
#include <torch/nn/fold.h>
#include <torch/nn/distance.h>
#include <torch/nn/linear.h>
#include <torch/nn/padding.h>
#include <torch/nn/upsampling.h>
#include <torch/nn/rnn.h>
#include <torch/nn/attention.h>
#include <torch/nn/transformer.h>
#include <torch/nn/utils.h>
#include <torch/data.h>

#include <torch/types.h>

namespace torch {
using c10::Device;
using c10::DeviceType;
using c10::TensorOptions;
using c10::ScalarType;
using c10::Layout;
namespace indexing = at::indexing;
}  // namespace torch
#include <torch/optim.h>
#include <torch/serialize.h>

EMBER_PUBLIC_END
