#pragma once
// libtorch's header for the CPU generator; in Ember it lives in ATen/Generator.h.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/Generator.h>

EMBER_PUBLIC_END
