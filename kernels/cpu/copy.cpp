// copy_ (with dtype conversion and broadcasting) and fill_ on the CPU; copy_'s element loops are in
// kernels/cpu/isa/copy.cpp, one per CPU capability level.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <ATen/MemoryOverlap.h>
#include <cstring>
#include <ATen/native/DispatchStub.h>

namespace at::native {
using copy_kernel_fn = void (*)(const ember::TensorIter&, ScalarType, ScalarType);
EMBER_DEFINE_DISPATCH(copy_kernel_fn, copy_kernel_stub);

Tensor& copy_cpu(Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  if (self.is_same(src)) return self;
  if (!src.is_cpu()) {
    // Device -> host: the source backend does the transfer.
    Tensor host = src.to(kCPU);
    return self.copy_(host);
  }
  EMBER_CHECK(self.is_cpu(), "[copy_] expected a CPU destination; got ", self.device());
  at::check_no_internal_overlap(self, "copy_");
  at::check_no_partial_overlap(self, src, "copy_");
  // Fast path: same dtype, both contiguous, same shape.
  if (self.scalar_type() == src.scalar_type() && self.is_contiguous() && src.is_contiguous() && self.sizes() == src.sizes()) {
    if (self.numel() > 0 && self.const_data_ptr() != src.const_data_ptr()) std::memmove(self._mutable_data_ptr_internal(), src.const_data_ptr(), self.nbytes());
    return self;
  }
  Tensor source = src;
  // A source whose overlap with the destination is unknown (neither is dense) is copied out first.
  if (at::mem_overlap(self, src) != at::MemOverlap::None) source = src.clone();
  ember::TensorIter it;
  it.build_copy(self, source);
  copy_kernel_stub(it, self.scalar_type(), source.scalar_type());
  return self;
}

Tensor& fill_cpu(Tensor& self, const Scalar& value) {
  at::check_no_internal_overlap(self, "fill_");
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
