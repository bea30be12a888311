#pragma once
// Naive float64 reference implementations used by `ref:` in ops.yaml (one header per family).
// They loop over raw data and never call the op under test.
#include "reference_index.h"
#include "reference_reduce.h"
#include "reference_matmul.h"
