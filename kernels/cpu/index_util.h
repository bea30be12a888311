#pragma once
// Shared helpers of the CPU indexing / joining kernels (kernels/cpu/index.cpp, join.cpp): data
// movement by element size (every dtype moves as an unsigned integer of its width), index
// validation that runs before any parallel loop (the checks shared with CUDA are in
// ATen/native/IndexUtils.h), and a strided n-d block copy.
#include <ATen/ATen.h>
#include <ATen/native/IndexUtils.h>
#include <ATen/Utils.h>
#include <ATen/Parallel.h>
#include <c10/util/SmallBuffer.h>
#include <cstdint>
#include <cstring>
#include <vector>

namespace at::native::index_detail {

/// Copies an n-d block of T: dst[i...] = src[i...]; strides in elements (may be negative).
template <typename T>
inline void copy_block(T* dst, const int64_t* dst_st, const T* src, const int64_t* src_st, const int64_t* sizes,
                       int64_t nd) {
  if (nd == 0) { *dst = *src; return; }
  for (int64_t d = 0; d < nd; ++d) if (sizes[d] == 0) return;
  const int64_t n = sizes[nd - 1], ds = dst_st[nd - 1], ss = src_st[nd - 1];
  c10::SmallBuffer<int64_t, 16> ctr(static_cast<size_t>(nd));
  for (;;) {
    if (ds == 1 && ss == 1) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
    else for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
    int64_t d = nd - 2;
    for (; d >= 0; --d) {
      dst += dst_st[d];
      src += src_st[d];
      if (++ctr[d] < sizes[d]) break;
      dst -= dst_st[d] * sizes[d];
      src -= src_st[d] * sizes[d];
      ctr[d] = 0;
    }
    if (d < 0) return;
  }
}

/// Element offset of the row-major linear position `lin` in a tensor with `sizes` / `strides`.
inline int64_t offset_of(int64_t lin, const int64_t* sizes, const int64_t* strides, int64_t nd) {
  int64_t off = 0;
  for (int64_t d = nd - 1; d >= 0; --d) {
    if (sizes[d] == 0) return 0;
    off += (lin % sizes[d]) * strides[d];
    lin /= sizes[d];
  }
  return off;
}

}  // namespace at::native::index_detail
