// Memory-overlap classification; see ATen/MemoryOverlap.h.
#include <ATen/MemoryOverlap.h>

namespace at {

MemOverlap mem_overlap(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || a.numel() == 0 || b.numel() == 0 || !a.is_alias_of(b)) return MemOverlap::None;
  c10::TensorImpl* x = a.unsafeGetTensorImpl();
  c10::TensorImpl* y = b.unsafeGetTensorImpl();
  // Byte offsets within the shared storage, not addresses: a meta storage has no data pointer.
  const int64_t xb = x->storage_offset() * static_cast<int64_t>(x->itemsize());
  const int64_t yb = y->storage_offset() * static_cast<int64_t>(y->itemsize());
  if (xb == yb && x->itemsize() == y->itemsize() && x->sizes() == y->sizes() && x->strides() == y->strides())
    return MemOverlap::Full;
  if (!x->is_non_overlapping_and_dense() || !y->is_non_overlapping_and_dense()) return MemOverlap::Unknown;
  // Dense tensors cover one byte range each; the ranges decide.
  const int64_t xe = xb + x->numel() * static_cast<int64_t>(x->itemsize());
  const int64_t ye = yb + y->numel() * static_cast<int64_t>(y->itemsize());
  return (xb < ye && yb < xe) ? MemOverlap::Partial : MemOverlap::None;
}

void check_no_internal_overlap(const Tensor& t, const char* op) {
  if (t.numel() == 0) return;  // nothing is written: no two elements can collide
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK(t.stride(d) != 0 || t.size(d) <= 1, "[", op,
                "] expected an output whose elements have distinct addresses; got sizes ", t.sizes(), " and strides ",
                t.strides(), " (an expanded tensor: clone() it before writing)");
}

void check_no_partial_overlap(const Tensor& out, const Tensor& input, const char* op) {
  EMBER_CHECK(mem_overlap(out, input) != MemOverlap::Partial, "[", op,
              "] expected an input that shares no memory with the output, or exactly the output's elements; got an "
              "input that overlaps part of it (clone() the input first)");
}

}  // namespace at
