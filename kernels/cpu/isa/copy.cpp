// The element loops of copy_ on the CPU (dtype conversion, transposing tiles), compiled once per
// CPU capability level (Note [CPU capability levels]); copy_cpu in kernels/cpu/copy.cpp builds the
// iteration and calls them.
#include <ATen/native/DispatchStub.h>
#include <ATen/TensorIterator.h>
#include <c10/util/convert.h>
#include <algorithm>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace at::native {
using copy_kernel_fn = void (*)(const ember::TensorIter&, ScalarType, ScalarType);
EMBER_DECLARE_DISPATCH(copy_kernel_fn, copy_kernel_stub);

namespace EMBER_CPU_NS {  // Note [CPU capability levels]
namespace {
#if defined(__AVX2__)
// 8x8 transpose of 32-bit elements: src rows are contiguous along dim 1, dst rows along dim 0.
inline void transpose8x8_32(const char* src, int64_t src_row, char* dst, int64_t dst_row) {
  __m256 r0 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 0 * src_row));
  __m256 r1 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 1 * src_row));
  __m256 r2 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 2 * src_row));
  __m256 r3 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 3 * src_row));
  __m256 r4 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 4 * src_row));
  __m256 r5 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 5 * src_row));
  __m256 r6 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 6 * src_row));
  __m256 r7 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 7 * src_row));
  __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(reinterpret_cast<float*>(dst + 0 * dst_row), _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(reinterpret_cast<float*>(dst + 1 * dst_row), _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(reinterpret_cast<float*>(dst + 2 * dst_row), _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(reinterpret_cast<float*>(dst + 3 * dst_row), _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(reinterpret_cast<float*>(dst + 4 * dst_row), _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(reinterpret_cast<float*>(dst + 5 * dst_row), _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(reinterpret_cast<float*>(dst + 6 * dst_row), _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(reinterpret_cast<float*>(dst + 7 * dst_row), _mm256_permute2f128_ps(u3, u7, 0x31));
}
#endif

// Same-dtype copy where one side walks memory against the other (a transpose): copy 32x32 tiles
// so both the reads and the writes stay in cache. dim 0 is the inner (fast) one of the iteration.
template <typename T>
void tiled_copy_2d(char* dst, const char* src, int64_t n0, int64_t n1, const int64_t* ds, const int64_t* ss) {
  constexpr int64_t B = 32;
  const int64_t t0 = (n0 + B - 1) / B, t1 = (n1 + B - 1) / B;
  at::parallel_for(0, t0 * t1, at::internal::grain_for_tasks(n0 * n1, t0 * t1), [&](int64_t tb, int64_t te) {
  for (int64_t t = tb; t < te; ++t) {
    const int64_t b1 = (t / t0) * B, b0 = (t % t0) * B;
    const int64_t e1 = std::min(b1 + B, n1), e0 = std::min(b0 + B, n0);
#if defined(__AVX2__)
    // dst contiguous along dim 0 and src along dim 1 (a transpose of 4-byte elements): 8x8 SIMD tiles.
    if constexpr (sizeof(T) == 4) {
      if (ds[0] == 4 && ss[1] == 4 && e0 - b0 == B && e1 - b1 == B) {
        for (int64_t j1 = b1; j1 < e1; j1 += 8)
          for (int64_t j0 = b0; j0 < e0; j0 += 8)
            transpose8x8_32(src + j0 * ss[0] + j1 * 4, ss[0], dst + j0 * 4 + j1 * ds[1], ds[1]);
        continue;
      }
    }
#endif
    for (int64_t j1 = b1; j1 < e1; ++j1)
      for (int64_t j0 = b0; j0 < e0; ++j0)
        *reinterpret_cast<T*>(dst + j0 * ds[0] + j1 * ds[1]) = *reinterpret_cast<const T*>(src + j0 * ss[0] + j1 * ss[1]);
  }
  });
}

bool try_tiled_copy(const ember::TensorIter& it, size_t es) {
  if (it.ndim() != 2 || it.dtype(0) != it.dtype(1)) return false;
  const int64_t* ds = it.strides(0);
  const int64_t* ss = it.strides(1);
  const int64_t e = static_cast<int64_t>(es);
  // One side is contiguous along dim 0, the other along dim 1.
  if (!((ds[0] == e && ss[1] == e) || (ss[0] == e && ds[1] == e))) return false;
  const int64_t n0 = it.shape()[0], n1 = it.shape()[1];
  if (n0 < 8 || n1 < 8) return false;
  switch (es) {
    case 1: tiled_copy_2d<uint8_t>(it.data(0), it.data(1), n0, n1, ds, ss); return true;
    case 2: tiled_copy_2d<uint16_t>(it.data(0), it.data(1), n0, n1, ds, ss); return true;
    case 4: tiled_copy_2d<uint32_t>(it.data(0), it.data(1), n0, n1, ds, ss); return true;
    case 8: tiled_copy_2d<uint64_t>(it.data(0), it.data(1), n0, n1, ds, ss); return true;
    default: return false;
  }
}

void copy_kernel(const ember::TensorIter& it, ScalarType dst_type, ScalarType src_type) {
  if (try_tiled_copy(it, c10::elementSize(dst_type))) return;
  EMBER_DISPATCH_ALL(dst_type, "copy_", [&] {
    using dst_t = scalar_t;
    EMBER_DISPATCH_ALL(src_type, "copy_", [&] {
      using src_t = scalar_t;
      it.for_each([](char** data, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          src_t v = *reinterpret_cast<const src_t*>(data[1] + i * s[1]);
          dst_t* o = reinterpret_cast<dst_t*>(data[0] + i * s[0]);
          // To bool: compare in the source's own type (through float only for Half/BFloat16), so
          // a double 1e-50 is true.
          if constexpr (std::is_same_v<dst_t, bool>) *o = static_cast<c10::opmath_t<src_t>>(v) != c10::opmath_t<src_t>(0);
          else if constexpr (std::is_integral_v<dst_t> && !std::is_integral_v<src_t>)
            *o = c10::float_to_int<dst_t>(static_cast<double>(static_cast<c10::opmath_t<src_t>>(v)));
          else if constexpr (std::is_same_v<src_t, c10::Half> || std::is_same_v<src_t, c10::BFloat16>) *o = static_cast<dst_t>(static_cast<float>(v));
          else *o = static_cast<dst_t>(v);
        }
      });
    });
  });
}

}  // namespace

EMBER_REGISTER_DISPATCH(copy_kernel_stub, &copy_kernel);

}  // namespace EMBER_CPU_NS
}  // namespace at::native
