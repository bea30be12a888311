#pragma once
// Lookup tables for unary pointwise ops on Half and BFloat16 (ops.yaml `lut16: true`).
//
// Note [16-bit lookup tables]
// A unary op on a 16-bit dtype has only 65,536 possible inputs. For an op whose float routine
// is expensive (gelu: ~110 instructions per vector) a large tensor is cheaper as a gather,
// out[i] = table[bits(in[i])], than as widen-compute-narrow. The table is filled once per
// (op, dtype, CPU level), on first use, by running the op's own functor through the same
// cpu_pointwise vector loop (detail::vec_loop) over all 65,536 bit patterns, so an entry is
// exactly the bits the direct path gives for that input: results do not depend on which path a
// call takes (Note [One vector-math source]; tests/aten/test_lut16.cpp checks every pattern).
// The generated kernel (codegen/templates/PointwiseCPUKernel.cpp.j2) keeps the table in a
// function-local static of its per-level run function (so each level fills its own, with its
// own vector code; C++ makes that initialisation thread-safe) and takes the table path only
// from kLut16MinNumel elements: below, filling it (~65,536 evaluations, ~0.1 ms) would cost
// more than the call. Tables cost 128 KiB each, allocated only for the (op, dtype) pairs used.
#include <ATen/native/cpu/Loops.h>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace ember {
inline namespace EMBER_VEC_NS {  // Note [Vec levels in one library] in Vec.h

/// From this many elements a `lut16` op on Half/BFloat16 reads its table (Note [16-bit lookup tables]).
inline constexpr int64_t kLut16MinNumel = int64_t{1} << 16;

/// The table of unary functor `f` on storage type T (Half or BFloat16): entry b is the bits of
/// f applied to the T whose bits are b, computed by the path cpu_pointwise takes for f.
template <typename T, typename F>
std::unique_ptr<uint16_t[]> lut16_make(const F& f) {
  static_assert(sizeof(T) == 2, "lut16 tables are for 16-bit storage types");
  constexpr int64_t kN = 65536;
  std::unique_ptr<uint16_t[]> in(new uint16_t[kN]), table(new uint16_t[kN]);
  for (int64_t b = 0; b < kN; ++b) in[b] = static_cast<uint16_t>(b);
  char* data[2] = {reinterpret_cast<char*>(table.get()), reinterpret_cast<char*>(in.get())};
  const int64_t strides[2] = {2, 2};
  using Seq = std::index_sequence<0>;
  // The same choice as cpu_pointwise's for a contiguous chunk.
  if constexpr (detail::kHasVec<T> && detail::VecInvocable<F, T, Seq>::value) {
    detail::vec_loop<T>(data, strides, kN, f, Seq{});
  } else {
    detail::contiguous_loop<T, T>(data, kN, f, Seq{});
  }
  return table;
}

/// out[i] = table[bits(in[i])] over a built unary TensorIter whose operands are 16 bits wide.
// static: with external linkage, the TensorIter::invoke instance made for the lambda below would
// be a weak default-visibility symbol (gcc does not let -fvisibility=hidden, nor a hidden attribute
// on this function, constrain a member template of an exported class), i.e. per-level code exported
// from the library once per level (Note [Exported symbols]).
static inline void lut16_apply(const TensorIter& it, const uint16_t* __restrict__ table) {
  EMBER_INTERNAL_ASSERT(it.ntensors() == 2, "lut16 is for unary ops");
  it.for_each([table](char** data, const int64_t* s, int64_t n) {
    if (s[0] == 2 && s[1] == 2) {
      // (No __restrict__: an in-place call writes the element it has just read.)
      uint16_t* out = reinterpret_cast<uint16_t*>(data[0]);
      const uint16_t* in = reinterpret_cast<const uint16_t*>(data[1]);
      for (int64_t i = 0; i < n; ++i) out[i] = table[in[i]];
      return;
    }
    char* out = data[0];
    const char* in = data[1];
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<uint16_t*>(out + i * s[0]) = table[*reinterpret_cast<const uint16_t*>(in + i * s[1])];
  });
}

}  // namespace EMBER_VEC_NS
}  // namespace ember
