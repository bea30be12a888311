// The headers nearly every libember source file parses, precompiled once per build
// (target_precompile_headers in CMakeLists.txt): about 1 s of parsing and template instantiation
// that each of ~200 files no longer repeats. Only stable, widely used headers belong here: a change
// to any of them rebuilds the whole library anyway. torch/torch.h does not: a precompiled header
// that large costs more to load (gcc reads it whole) than most files spend parsing what they use.
#pragma once
#include <ATen/ATen.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/Dispatcher.h>
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/cpu/Loops.h>
#include <torch/autograd.h>
