#pragma once
// Both archive classes of torch::serialize.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

EMBER_PUBLIC_END
