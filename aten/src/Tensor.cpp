// Tensor construction helpers and the non-operator Tensor methods.
#include <ATen/ATen.h>
#include <ATen/TensorIterator.h>
#include <c10/util/safe_numerics.h>

namespace at {

Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device) {
  const int64_t n = c10::checked_numel(sizes, "empty");
  int64_t nbytes = 0;
  EMBER_CHECK(!c10::mul_overflows(n, static_cast<int64_t>(c10::elementSize(dtype)), &nbytes), "[empty] expected a byte size that fits in int64; sizes ", sizes,
              " of ", c10::dtypeName(dtype), " overflow it");
  c10::Allocator* alloc = device.is_cpu() ? c10::GetCPUAllocator() : c10::GetAllocator(device.type());
  auto impl = c10::make_intrusive<TensorImpl>(Storage::allocate(static_cast<size_t>(nbytes), alloc), dtype);
  impl->set_sizes_contiguous(sizes);
  return Tensor(std::move(impl));
}

Tensor make_empty_strided_raw(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  const int64_t nbytes = c10::checked_storage_nbytes(sizes, strides, 0, c10::elementSize(dtype), "empty_strided");
  c10::Allocator* alloc = device.is_cpu() ? c10::GetCPUAllocator() : c10::GetAllocator(device.type());
  auto impl = c10::make_intrusive<TensorImpl>(Storage::allocate(static_cast<size_t>(nbytes), alloc), dtype);
  impl->set_sizes_and_strides(sizes, strides);
  return Tensor(std::move(impl));
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  auto impl = c10::make_intrusive<TensorImpl>(base.storage(), base.scalar_type());
  impl->set_sizes_and_strides(sizes, strides);
  impl->set_storage_offset(storage_offset);
  impl->share_version_counter(*base.unsafeGetTensorImpl());
  return Tensor(std::move(impl));
}

Tensor scalar_to_tensor(const Scalar& s, Device device) {
  Tensor t = make_empty({}, s.type(), kCPU);
  if (s.isFloatingPoint()) *t._mutable_data_ptr_internal<double>() = s.toDouble();
  else if (s.isBoolean()) *t._mutable_data_ptr_internal<bool>() = s.toBool();
  else *t._mutable_data_ptr_internal<int64_t>() = s.toLong();
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  if (!device.is_cpu()) {
    t = t.to(device);
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
  }
  return t;
}

std::vector<int64_t> contiguous_strides(IntArrayRef sizes) {
  std::vector<int64_t> st(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    st[i] = s;
    // Saturate: with a zero size elsewhere the product may exceed int64 without being wrong.
    if (c10::mul_overflows(s, std::max<int64_t>(sizes[i], 1), &s)) s = INT64_MAX;
  }
  return st;
}

std::vector<int64_t> dense_strides_like(IntArrayRef sizes, IntArrayRef strides) {
  // Order the dims innermost-first by stride with a stable insertion sort; a size-1 or stride-0
  // dim says nothing about the order and never moves past another (the iteration engine's rule,
  // so an elementwise result and a clone of the same input agree).
  const int64_t nd = static_cast<int64_t>(sizes.size());
  auto key = [&](int64_t d) { return sizes[d] == 1 ? int64_t(0) : strides[d]; };
  std::vector<int64_t> perm(static_cast<size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  for (int64_t i = 1; i < nd; ++i) {
    for (int64_t j = i; j > 0; --j) {
      const int64_t inner = key(perm[j - 1]), outer = key(perm[j]);
      if (inner != 0 && outer != 0 && outer < inner) std::swap(perm[j - 1], perm[j]);
      else break;
    }
  }
  std::vector<int64_t> out(static_cast<size_t>(nd));
  int64_t s = 1;
  for (int64_t d : perm) {
    out[d] = s;
    if (c10::mul_overflows(s, std::max<int64_t>(sizes[d], 1), &s)) s = INT64_MAX;
  }
  return out;
}

bool Tensor::is_contiguous(MemoryFormat fmt) const {
  EMBER_CHECK(fmt == MemoryFormat::Contiguous || fmt == MemoryFormat::Preserve || fmt == MemoryFormat::ChannelsLast,
              "[is_contiguous] only MemoryFormat::Contiguous and ChannelsLast are supported");
  if (fmt != MemoryFormat::ChannelsLast) return impl()->is_contiguous();
  // Dense with C innermost, then W, H, N; the strides of size-1 dims do not matter (libtorch's rule).
  if (dim() != 4) return false;
  int64_t expected = 1;
  for (int64_t d : {1, 3, 2, 0}) {
    if (size(d) == 1) continue;
    if (stride(d) != expected) return false;
    expected *= size(d);
  }
  return true;
}

Scalar Tensor::item() const {
  EMBER_CHECK(numel() == 1, "[item] expected a tensor with exactly 1 element; got ", numel(), " elements");
  EMBER_CHECK(!is_meta(), "[item] expected a tensor with data; got a meta tensor (meta tensors have no data)");
  Tensor c = is_cpu() ? *this : to(kCPU);
  return EMBER_DISPATCH_ALL(scalar_type(), "item", [&]() -> Scalar {
    scalar_t v = *static_cast<const scalar_t*>(c.const_data_ptr());
    if constexpr (std::is_same_v<scalar_t, bool>) return Scalar(v);
    else if constexpr (std::is_integral_v<scalar_t>) return Scalar(static_cast<int64_t>(v));
    else return Scalar(static_cast<double>(v));
  });
}


ScalarType result_type(const Tensor& a, const Tensor& b) { return ember::result_type({&a, &b}, {}); }
ScalarType result_type(const Tensor& a, const Scalar& b) { return ember::result_type({&a}, {b}); }
ScalarType result_type(const Scalar& a, const Tensor& b) { return ember::result_type({&b}, {a}); }
ScalarType result_type(const Scalar& a, const Scalar& b) { return ember::result_type({}, {a, b}); }
ScalarType promote_types(ScalarType a, ScalarType b) { return c10::promoteTypes(a, b); }
bool can_cast(ScalarType from, ScalarType to) { return ember::can_cast(from, to); }
// get_num_threads / set_num_threads live in Parallel.cpp.

}  // namespace at
