#pragma once
// Overflow-checked size arithmetic. Every product or sum that turns user-given sizes, strides and
// offsets into an element count or a byte count goes through these, so a hostile shape gives a
// c10::Error naming the op instead of a wrapped-around allocation.
// See Note [Checked size arithmetic] in aten/src/TensorImpl.cpp.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/ArrayRef.h>
#include <cstddef>
#include <cstdint>

namespace c10 {

/// *out = a * b; returns true when the product does not fit in int64.
inline bool mul_overflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }
/// *out = a + b; returns true when the sum does not fit in int64.
inline bool add_overflows(int64_t a, int64_t b, int64_t* out) { return __builtin_add_overflow(a, b, out); }

/// Product of non-negative sizes, left to right; false when a partial product does not fit in
/// 64 bits or the result not in int64 (a zero size makes only the sizes after it harmless).
bool safe_numel(IntArrayRef sizes, int64_t* out);

/// Number of elements of `sizes`; throws `[op] ...` when a size is negative or the product
/// overflows int64.
int64_t checked_numel(IntArrayRef sizes, const char* op);

/// Bytes a strided layout needs from the start of its storage:
/// (offset + 1 + sum((size_i - 1) * stride_i)) * itemsize, or 0 when any size is 0. Throws
/// `[op] ...` on a negative size, stride or offset, or when any step overflows int64.
int64_t checked_storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize,
                               const char* op);

}  // namespace c10

EMBER_PUBLIC_END
