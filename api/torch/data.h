#pragma once
// torch::data: datasets, transforms, samplers and the (multi-threaded) DataLoader of libtorch's C++ frontend.
// See docs/data.md.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/data/example.h>
#include <torch/data/datasets.h>
#include <torch/data/transforms.h>
#include <torch/data/samplers.h>
#include <torch/data/dataloader.h>

namespace torch::data {
using datasets::BatchDataset;  // libtorch also names the two dataset bases in torch::data
using datasets::Dataset;
}  // namespace torch::data

EMBER_PUBLIC_END
