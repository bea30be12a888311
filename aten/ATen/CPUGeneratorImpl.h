#pragma once
// libtorch's header for the CPU generator; in Ember it lives in ATen/Generator.h.
#include <ATen/Generator.h>
