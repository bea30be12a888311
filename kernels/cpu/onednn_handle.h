// oneDNN memory objects take a void* data handle, for the arguments a primitive only reads too.
// Kernels read their inputs through const_data_ptr (which, unlike data_ptr, does not count as a
// write: Note [Storage write generation]) and hand them to oneDNN through onednn_input, the one
// place where that const is dropped; outputs go through _mutable_data_ptr_internal as before.
#pragma once
#include <ATen/ATen.h>

namespace at::native {

/// The data handle of a tensor a oneDNN primitive reads and never writes.
inline void* onednn_input(const Tensor& t) { return const_cast<void*>(t.const_data_ptr()); }

}  // namespace at::native
