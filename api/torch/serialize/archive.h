#pragma once
// Both archive classes of torch::serialize.
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>
