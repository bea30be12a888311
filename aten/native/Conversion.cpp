// Allocation, resizing, dtype/device conversion, contiguous and clone: device-agnostic code over
// the allocator and copy_.
#include <ATen/native/NativeFunctions.h>
#include <ATen/Utils.h>
#include <c10/util/safe_numerics.h>

namespace at::native {

namespace {
void check_options(const char* op, const TensorOptions& o) {
  EMBER_CHECK(o.layout() == Layout::Strided, "[", op, "] only the strided layout is supported");
  EMBER_CHECK(!o.pinned_memory(), "[", op, "] pinned memory is not supported yet");
}
}  // namespace

Tensor empty_generic(IntArrayRef size, TensorOptions options, std::optional<MemoryFormat> memory_format) {
  check_options("empty", options);
  EMBER_CHECK(!memory_format || *memory_format == MemoryFormat::Contiguous || *memory_format == MemoryFormat::Preserve,
              "[empty] only contiguous memory format is supported");
  for (int64_t s : size) EMBER_CHECK(s >= 0, "[empty] expected non-negative sizes; got ", size);
  Tensor t = make_empty(size, options.scalar_type(), options.device());
  return t;
}

Tensor empty_strided_generic(IntArrayRef size, IntArrayRef stride, TensorOptions options) {
  check_options("empty_strided", options);
  EMBER_CHECK(size.size() == stride.size(), "[empty_strided] size ", size, " and stride ", stride, " must have the same length");
  return make_empty_strided_raw(size, stride, options.scalar_type(), options.device());
}

Tensor& resize_generic(Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK(!memory_format || *memory_format == MemoryFormat::Contiguous, "[resize_] only contiguous memory format is supported");
  c10::checked_numel(size, "resize_");
  TensorImpl* impl = self.unsafeGetTensorImpl();
  const int64_t need = c10::checked_storage_nbytes(size, contiguous_strides(size), impl->storage_offset(), impl->itemsize(),
                                                   "resize_");
  Storage st = impl->storage();
  if (static_cast<size_t>(need) > st.nbytes()) st.resize(static_cast<size_t>(need));
  impl->set_sizes_contiguous(size);
  return self;
}

Tensor _to_copy(const Tensor& self, TensorOptions options, bool non_blocking, std::optional<MemoryFormat> memory_format) {
  ScalarType dt = options.has_dtype() ? options.scalar_type() : self.scalar_type();
  Device dev = options.has_device() ? options.device() : self.device();
  Tensor out = at::empty_like(self, TensorOptions().dtype(dt).device(dev), memory_format.value_or(MemoryFormat::Preserve));
  out.copy_(self, non_blocking);
  return new_tensor_version(std::move(out));
}

namespace {
bool same_device(Device a, Device b) {
  if (a.type() != b.type()) return false;
  return !a.has_index() || !b.has_index() || a.index() == b.index();
}
Tensor to_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device, bool non_blocking, bool copy,
               std::optional<MemoryFormat> mf) {
  bool same = (!dtype || *dtype == self.scalar_type()) && (!device || same_device(*device, self.device()));
  if (same && !copy && (!mf || *mf == MemoryFormat::Preserve || self.is_contiguous())) return self;
  TensorOptions o;
  if (dtype) o = o.dtype(*dtype);
  if (device) o = o.device(*device);
  return at::_to_copy(self, o, non_blocking, mf);
}
}  // namespace

Tensor to_dtype_layout(const Tensor& self, TensorOptions options, bool non_blocking, bool copy, std::optional<MemoryFormat> mf) {
  check_options("to", options);
  return to_impl(self, options.scalar_type_opt(), options.device_opt(), non_blocking, copy, mf);
}
Tensor to_device(const Tensor& self, Device device, ScalarType dtype, bool non_blocking, bool copy, std::optional<MemoryFormat> mf) {
  return to_impl(self, dtype, device, non_blocking, copy, mf);
}
Tensor to_dtype(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy, std::optional<MemoryFormat> mf) {
  return to_impl(self, dtype, std::nullopt, non_blocking, copy, mf);
}
Tensor to_other(const Tensor& self, const Tensor& other, bool non_blocking, bool copy, std::optional<MemoryFormat> mf) {
  return to_impl(self, other.scalar_type(), other.device(), non_blocking, copy, mf);
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  EMBER_CHECK(memory_format == MemoryFormat::Contiguous || memory_format == MemoryFormat::ChannelsLast,
              "[contiguous] only MemoryFormat::Contiguous and ChannelsLast are supported");
  if (memory_format == MemoryFormat::ChannelsLast) {
    EMBER_CHECK(self.dim() == 4, "[contiguous] MemoryFormat::ChannelsLast expects a 4-d tensor; got ", self.dim(), " dims");
    if (self.is_contiguous(MemoryFormat::ChannelsLast)) return self;
    // A dense N, H, W, C buffer seen with NCHW sizes.
    const int64_t C = std::max<int64_t>(self.size(1), 1), H = std::max<int64_t>(self.size(2), 1), W = std::max<int64_t>(self.size(3), 1);
    Tensor out = at::empty_strided(self.sizes(), {H * W * C, 1, W * C, C}, self.options());
    out.copy_(self);
    return out;
  }
  if (self.is_contiguous()) return self;
  return self.clone(MemoryFormat::Contiguous);
}

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK(!memory_format || *memory_format == MemoryFormat::Contiguous || *memory_format == MemoryFormat::Preserve,
              "[clone] only contiguous/preserve memory formats are supported");
  Tensor out = at::empty_like(self, self.options(), memory_format.value_or(MemoryFormat::Preserve));
  out.copy_(self);
  return new_tensor_version(std::move(out));
}

}  // namespace at::native
