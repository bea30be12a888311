// The precompiled header of the per-level kernel objects (cmake/EmberCpuCapabilities.cmake): the
// headers every generated pointwise kernel file parses. Built once per level, with that level's
// flags (a precompiled header is only valid for the flags it was built with).
#pragma once
#include <ATen/ATen.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/cpu/Loops.h>
