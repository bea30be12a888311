// copy_ (with dtype conversion and broadcasting) and fill_ on the CPU.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <cstring>

namespace at::native {

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
