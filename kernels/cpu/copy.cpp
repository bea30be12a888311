// copy_ (with dtype conversion and broadcasting) and fill_ on the CPU.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <cstring>

namespace at::native {
namespace {
// Same-dtype copy where one side walks memory against the other (a transpose): copy 32x32 tiles
// so both the reads and the writes stay in cache. dim 0 is the inner (fast) one of the iteration.
template <typename T>
void tiled_copy_2d(char* dst, const char* src, int64_t n0, int64_t n1, const int64_t* ds, const int64_t* ss) {
  constexpr int64_t B = 32;
  const int64_t t0 = (n0 + B - 1) / B, t1 = (n1 + B - 1) / B;
#pragma omp parallel for if (n0 * n1 > 65536)
  for (int64_t t = 0; t < t0 * t1; ++t) {
    const int64_t b1 = (t / t0) * B, b0 = (t % t0) * B;
    const int64_t e1 = std::min(b1 + B, n1), e0 = std::min(b0 + B, n0);
    for (int64_t j1 = b1; j1 < e1; ++j1)
      for (int64_t j0 = b0; j0 < e0; ++j0)
        *reinterpret_cast<T*>(dst + j0 * ds[0] + j1 * ds[1]) = *reinterpret_cast<const T*>(src + j0 * ss[0] + j1 * ss[1]);
  }
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
}  // namespace

Tensor& copy_cpu(Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  if (self.is_same(src)) return self;
  if (!src.is_cpu()) {
    // Device -> host: the source backend does the transfer.
    Tensor host = src.to(kCPU);
    return self.copy_(host);
  }
  EMBER_CHECK(self.is_cpu(), "[copy_] expected a CPU destination; got ", self.device());
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK(self.stride(d) != 0 || self.size(d) <= 1, "[copy_] unsupported operation: more than one element of the "
                "written-to tensor refers to a single memory location");
  // Fast path: same dtype, both contiguous, same shape.
  if (self.scalar_type() == src.scalar_type() && self.is_contiguous() && src.is_contiguous() && self.sizes() == src.sizes()) {
    if (self.numel() > 0 && self.data_ptr() != src.data_ptr()) std::memmove(self.data_ptr(), src.data_ptr(), self.nbytes());
    return self;
  }
  Tensor source = src;
  // A source overlapping the destination is copied out first.
  if (src.is_alias_of(self)) source = src.clone();
  ember::TensorIter it;
  it.build_copy(self, source);
  if (try_tiled_copy(it, self.element_size())) return self;
  EMBER_DISPATCH_ALL(self.scalar_type(), "copy_", [&] {
    using dst_t = scalar_t;
    EMBER_DISPATCH_ALL(source.scalar_type(), "copy_", [&] {
      using src_t = scalar_t;
      it.for_each([](char** data, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          src_t v = *reinterpret_cast<const src_t*>(data[1] + i * s[1]);
          dst_t* o = reinterpret_cast<dst_t*>(data[0] + i * s[0]);
          if constexpr (std::is_same_v<dst_t, bool>) *o = static_cast<float>(v) != 0.0f;
          else if constexpr (std::is_same_v<src_t, c10::Half> || std::is_same_v<src_t, c10::BFloat16>) *o = static_cast<dst_t>(static_cast<float>(v));
          else *o = static_cast<dst_t>(v);
        }
      });
    });
  });
  return self;
}

Tensor& fill_cpu(Tensor& self, const Scalar& value) {
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK(self.stride(d) != 0 || self.size(d) <= 1, "[fill_] unsupported operation: more than one element of the "
                "written-to tensor refers to a single memory location");
  EMBER_DISPATCH_ALL(self.scalar_type(), "fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    ember::TensorIter it;
    it.build_raw({&self});
    it.for_each([v](char** data, const int64_t* s, int64_t n) {
      if (s[0] == static_cast<int64_t>(sizeof(scalar_t))) {
        scalar_t* p = reinterpret_cast<scalar_t*>(data[0]);
        for (int64_t i = 0; i < n; ++i) p[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<scalar_t*>(data[0] + i * s[0]) = v;
      }
    });
  });
  return self;
}

}  // namespace at::native
