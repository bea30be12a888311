#pragma once
// torch::nn: modules, layers, functional ops, losses and initialisers (libtorch's C++ frontend).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/enum.h>
#include <torch/ordered_dict.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/init.h>
#include <torch/nn/functional.h>
#include <torch/nn/modules.h>
#include <torch/nn/containers.h>

EMBER_PUBLIC_END
