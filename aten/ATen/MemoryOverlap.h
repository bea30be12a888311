#pragma once
// Memory-overlap rules for ops that write (in-place, out=, copy_), as libtorch enforces them:
// an output may not have two elements at one address, and an input may share memory with the
// output only element for element (x.add_(x)), never partly (x[1:].add_(x[:-1])), because the
// result would depend on the order the kernel visits elements.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>

namespace at {

enum class MemOverlap : uint8_t {
  None,     ///< no shared address
  Full,     ///< the same elements at the same addresses (same start, sizes and strides)
  Partial,  ///< some but not all addresses shared
  Unknown,  ///< too costly to decide (neither is dense); callers must stay correct anyway
};

/// How the memory of `a` and `b` overlaps.
MemOverlap mem_overlap(const Tensor& a, const Tensor& b);

/// Throws `[op] ...` when two elements of `t` share an address (a stride 0 over a dim of size > 1).
void check_no_internal_overlap(const Tensor& t, const char* op);

/// Throws `[op] ...` when `input` partially overlaps `out`.
void check_no_partial_overlap(const Tensor& out, const Tensor& input, const char* op);

}  // namespace at

EMBER_PUBLIC_END
