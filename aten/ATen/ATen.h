#pragma once
// Everything of the tensor library: Tensor, the generated at:: operators, indexing, iteration.
#include <ATen/core/Tensor.h>
#include <ATen/core/Reduction.h>
#include <ATen/TensorIndexing.h>
#include <ATen/TensorAccessor.h>
#include <ATen/Generator.h>
#include <ATen/Utils.h>
#include <ATen/Factory.h>
