// DLPack export and import (<ATen/DLConvertor.h>).
#include <ATen/DLConvertor.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/safe_numerics.h>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace at {

// Note [DLPack ownership]
// Export: toDLPack allocates one block holding a Tensor handle to the source, copies of its sizes
// and strides (the arrays DLTensor points at) and the DLManagedTensor itself; manager_ctx points at
// the block and the deleter frees it, which drops the handle — so the storage lives exactly as long
// as the receiver holds the wrapper, whatever happens to the caller's tensors meanwhile. The
// DLTensor points at the first element (byte_offset 0), as libtorch's export does.
//
// Import: fromDLPack builds a storage over the producer's memory whose DataPtr deleter calls the
// producer's deleter (or the caller's replacement), so it runs exactly once, when the last tensor
// sharing that storage goes away. The storage starts at DLTensor::data and the tensor's storage
// offset is byte_offset in elements (libtorch's reading too: a byte_offset that is not a whole
// number of elements is refused). Every check, and every allocation, runs before the storage owns
// the memory (the tensor is built over a non-owning DataPtr, which the owning one replaces as the
// last, non-throwing step): an error leaves the wrapper untouched and owned by the caller. A
// versioned wrapper marked READ_ONLY is copied instead (Ember tensors cannot refuse writes;
// libtorch shares the memory and ignores the flag), after which the producer's deleter runs at
// once. The copy flag DLPACK_FLAG_BITMASK_IS_COPIED needs nothing from a consumer and is ignored.

namespace {

template <class Managed>
struct ExportBlock {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  Managed managed{};
};

template <class Managed>
void delete_export_block(Managed* self) {
  delete static_cast<ExportBlock<Managed>*>(self->manager_ctx);
}

void describe(const Tensor& t, DLTensor& out, int64_t* shape, int64_t* strides) {
  out.data = t.data_ptr();
  out.device = torchDeviceToDLDevice(t.device());
  out.ndim = static_cast<int32_t>(t.dim());
  out.dtype = getDLDataType(t);
  out.shape = shape;
  out.strides = strides;
  out.byte_offset = 0;
}

template <class Managed>
Managed* export_tensor(const Tensor& src, const char* op) {
  EMBER_CHECK(src.defined(), "[", op, "] expected a defined tensor; got an undefined one");
  auto block = std::make_unique<ExportBlock<Managed>>();
  block->tensor = src;
  const size_t n = static_cast<size_t>(src.dim());
  block->shape.reserve(n ? n : 1);  // reserved, so data() is never null, also for a 0-dim tensor
  block->strides.reserve(n ? n : 1);
  block->shape.assign(src.sizes().begin(), src.sizes().end());
  block->strides.assign(src.strides().begin(), src.strides().end());
  describe(src, block->managed.dl_tensor, block->shape.data(), block->strides.data());
  block->managed.manager_ctx = block.get();
  block->managed.deleter = &delete_export_block<Managed>;
  return &block.release()->managed;
}

// Calls the producer's own deleter with its wrapper.
template <class Managed>
void call_producer_deleter(void* ctx) {
  auto* m = static_cast<Managed*>(ctx);
  if (m->deleter) m->deleter(m);
}

// The caller's replacement deleter, called with the producer's data pointer (libtorch's argument).
struct ReplacementDeleter {
  std::function<void(void*)> fn;
  void* data;
};
void call_replacement_deleter(void* ctx) {
  std::unique_ptr<ReplacementDeleter> d(static_cast<ReplacementDeleter*>(ctx));
  d->fn(d->data);
}

// What a DLTensor describes, checked, before anything owns it.
struct ImportPlan {
  ScalarType dtype;
  Device device{kCPU};
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;   // in elements
  int64_t nbytes = 0;   // storage bytes from data
};

ImportPlan plan_import(const DLTensor& dl) {
  ImportPlan p;
  p.dtype = toScalarType(dl.dtype);
  EMBER_CHECK(dl.device.device_id >= 0 && dl.device.device_id <= 127, "[fromDLPack] expected a device_id in [0, 127]; got ",
              dl.device.device_id);
  p.device = dlDeviceToTorchDevice(dl.device.device_type, static_cast<c10::DeviceIndex>(dl.device.device_id), dl.data);
  if (p.device.is_cuda()) {
    const int count = c10::cuda::device_count();
    EMBER_CHECK(dl.device.device_id < count, "[fromDLPack] the tensor is on CUDA device ", dl.device.device_id, " but ",
                count, " CUDA device(s) are available to Ember");
  }
  EMBER_CHECK(dl.ndim >= 0, "[fromDLPack] expected ndim >= 0; got ", dl.ndim);
  EMBER_CHECK(dl.ndim == 0 || dl.shape != nullptr, "[fromDLPack] expected a shape array for ndim ", dl.ndim, "; got NULL");
  p.sizes.assign(dl.shape, dl.shape + dl.ndim);
  for (int64_t s : p.sizes) EMBER_CHECK(s >= 0, "[fromDLPack] expected non-negative sizes; got ", IntArrayRef(p.sizes));
  if (dl.strides) {
    p.strides.assign(dl.strides, dl.strides + dl.ndim);
    for (int64_t s : p.strides)
      EMBER_CHECK(s >= 0, "[fromDLPack] expected non-negative strides (Ember has no negative strides); got ",
                  IntArrayRef(p.strides));
  } else {  // NULL strides: compact row-major
    p.strides.assign(p.sizes.size(), 1);
    for (int64_t i = static_cast<int64_t>(p.sizes.size()) - 2; i >= 0; --i)
      p.strides[i] = p.strides[i + 1] * std::max<int64_t>(p.sizes[i + 1], 1);
  }
  const size_t item = c10::elementSize(p.dtype);
  EMBER_CHECK(dl.byte_offset % item == 0 && dl.byte_offset / item <= static_cast<uint64_t>(INT64_MAX),
              "[fromDLPack] expected a byte_offset that is a multiple of the element size (", item, "); got ", dl.byte_offset);
  p.offset = static_cast<int64_t>(dl.byte_offset / item);
  p.nbytes = c10::checked_storage_nbytes(p.sizes, p.strides, p.offset, item, "fromDLPack");
  EMBER_CHECK(dl.data != nullptr || p.nbytes == 0, "[fromDLPack] expected a data pointer for shape ", IntArrayRef(p.sizes),
              "; got NULL");
  return p;
}

Tensor make_tensor(const ImportPlan& p, c10::DataPtr data) {
  auto storage = c10::make_intrusive<c10::StorageImpl>(static_cast<size_t>(p.nbytes), std::move(data),
                                                       p.device.is_cpu() ? c10::GetCPUAllocator() : nullptr,
                                                       /*resizable=*/false);
  auto impl = c10::make_intrusive<TensorImpl>(Storage(std::move(storage)), p.dtype);
  impl->set_sizes_and_strides(p.sizes, p.strides);
  impl->set_storage_offset(p.offset);
  return Tensor(std::move(impl));
}

template <class Managed>
Tensor import_tensor(Managed* src, std::function<void(void*)> deleter, bool read_only) {
  const DLTensor& dl = src->dl_tensor;
  const ImportPlan plan = plan_import(dl);
  if (read_only) {
    // Copy while the producer still owns the memory, then release it (Note [DLPack ownership]).
    Tensor copy = make_tensor(plan, c10::DataPtr(dl.data, plan.device)).clone();
    if (deleter) deleter(dl.data);
    else if (src->deleter) src->deleter(src);
    return copy;
  }
  // The tensor is built over a non-owning pointer first; ownership is the last step, which cannot
  // throw: a failure (out of memory) before it leaves src owned by the caller, deleter not called.
  Tensor t = make_tensor(plan, c10::DataPtr(dl.data, plan.device));
  std::unique_ptr<ReplacementDeleter> replacement;
  if (deleter) replacement.reset(new ReplacementDeleter{std::move(deleter), dl.data});
  c10::DataPtr ptr = replacement ? c10::DataPtr(dl.data, replacement.release(), &call_replacement_deleter, plan.device)
                     : src->deleter ? c10::DataPtr(dl.data, src, &call_producer_deleter<Managed>, plan.device)
                                    : c10::DataPtr(dl.data, plan.device);
  t.storage().unsafeGetStorageImpl()->data_ptr_ = std::move(ptr);  // noexcept: the old one has no deleter
  return t;
}

}  // namespace

ScalarType toScalarType(const DLDataType& dtype) {
  EMBER_CHECK(dtype.lanes == 1, "[fromDLPack] expected lanes == 1 (Ember has no vector element types); got lanes ",
              dtype.lanes, " for type code ", static_cast<int>(dtype.code), ", ", static_cast<int>(dtype.bits), " bits");
  const int bits = dtype.bits;
  switch (dtype.code) {
    case kDLInt:
      if (bits == 8) return kChar;
      if (bits == 16) return kShort;
      if (bits == 32) return kInt;
      if (bits == 64) return kLong;
      break;
    case kDLUInt:
      if (bits == 8) return kByte;
      break;
    case kDLFloat:
      if (bits == 16) return kHalf;
      if (bits == 32) return kFloat;
      if (bits == 64) return kDouble;
      break;
    case kDLBfloat:
      if (bits == 16) return kBFloat16;
      break;
    case kDLBool:
      if (bits == 8) return kBool;
      break;
    case kDLComplex:
      EMBER_CHECK(false, "[fromDLPack] complex elements (type code 5, ", bits, " bits) are not supported: Ember has no complex dtypes");
      break;
    default:
      break;
  }
  EMBER_CHECK(false, "[fromDLPack] unsupported DLPack element type: code ", static_cast<int>(dtype.code), ", ", bits,
              " bits (Ember has int8/16/32/64, uint8, float16/32/64, bfloat16 and 8-bit bool)");
  return ScalarType::Undefined;
}

DLDataType getDLDataType(const Tensor& t) {
  DLDataType d{};
  d.lanes = 1;
  d.bits = static_cast<uint8_t>(c10::elementSize(t.scalar_type()) * 8);
  switch (t.scalar_type()) {
    case kByte: d.code = kDLUInt; break;
    case kChar: case kShort: case kInt: case kLong: d.code = kDLInt; break;
    case kHalf: case kFloat: case kDouble: d.code = kDLFloat; break;
    case kBFloat16: d.code = kDLBfloat; break;
    case kBool: d.code = kDLBool; break;
    default:
      EMBER_CHECK(false, "[toDLPack] dtype ", t.scalar_type(), " has no DLPack element type");
  }
  return d;
}

DLDevice torchDeviceToDLDevice(at::Device device) {
  DLDevice d{};
  if (device.is_cuda()) {
    d.device_type = kDLCUDA;
    d.device_id = device.has_index() ? device.index() : c10::cuda::current_device();
  } else {
    EMBER_CHECK(device.is_cpu(), "[toDLPack] device ", device, " has no DLPack device type");
    d.device_type = kDLCPU;
    d.device_id = 0;
  }
  return d;
}

DLDevice getDLContext(const Tensor& tensor, const int64_t& device_id) {
  DLDevice d = torchDeviceToDLDevice(tensor.device());
  d.device_id = static_cast<int32_t>(device_id);
  return d;
}

Device dlDeviceToTorchDevice(DLDeviceType type, c10::DeviceIndex index, void* /*data*/) {
  switch (type) {
    case kDLCPU:
    case kDLCUDAHost:
      return Device(kCPU);
    case kDLCUDA:
    case kDLCUDAManaged:
      EMBER_CHECK(index >= 0, "[fromDLPack] expected a CUDA device index >= 0; got ", static_cast<int>(index));
      return Device(kCUDA, index);
    default:
      EMBER_CHECK(false, "[fromDLPack] unsupported DLPack device type ", static_cast<int>(type),
                  " (Ember reads kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13)");
  }
  return Device(kCPU);
}

DLManagedTensor* toDLPack(const Tensor& src) { return export_tensor<DLManagedTensor>(src, "toDLPack"); }

DLManagedTensorVersioned* toDLPackVersioned(const Tensor& src) {
  auto* m = export_tensor<DLManagedTensorVersioned>(src, "toDLPack");
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  m->flags = 0;
  return m;
}

DLManagedTensorVersioned* toDLPackVersionedReadOnly(const Tensor& src) {
  auto* m = toDLPackVersioned(src);
  m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  return m;
}

void toDLPackNonOwning(const Tensor& src, DLTensor* out, bool /*read_only*/) {
  EMBER_CHECK(src.defined(), "[toDLPack] expected a defined tensor; got an undefined one");
  EMBER_CHECK(out != nullptr, "[toDLPack] expected a DLTensor to fill; got NULL");
  describe(src, *out, const_cast<int64_t*>(src.sizes().data()), const_cast<int64_t*>(src.strides().data()));
}

Tensor fromDLPack(DLManagedTensor* src, std::function<void(void*)> deleter) {
  EMBER_CHECK(src != nullptr, "[fromDLPack] expected a DLManagedTensor; got NULL");
  return import_tensor(src, std::move(deleter), /*read_only=*/false);
}

Tensor fromDLPackVersioned(DLManagedTensorVersioned* src, std::function<void(void*)> deleter) {
  EMBER_CHECK(src != nullptr, "[fromDLPack] expected a DLManagedTensorVersioned; got NULL");
  EMBER_CHECK(src->version.major == DLPACK_MAJOR_VERSION, "[fromDLPack] expected DLPack major version ",
              DLPACK_MAJOR_VERSION, "; got ", src->version.major, ".", src->version.minor,
              " (its layout may differ, so nothing else of it was read)");
  return import_tensor(src, std::move(deleter), (src->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
}

Tensor maybeCopyTensor(const Tensor& data, std::optional<DLDevice> optional_dl_device, std::optional<bool> copy) {
  EMBER_CHECK(data.defined(), "[toDLPack] expected a defined tensor; got an undefined one");
  if (optional_dl_device) {
    const Device target = dlDeviceToTorchDevice(optional_dl_device->device_type,
                                                static_cast<c10::DeviceIndex>(optional_dl_device->device_id));
    const bool same = target.type() == data.device().type() &&
                      (target.is_cpu() || target.index() == data.device().index());
    if (!same) {
      EMBER_CHECK(copy.value_or(true), "[toDLPack] the tensor is on ", data.device(), " but ", target,
                  " was requested with copy=false");
      return data.to(target, data.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
    }
  }
  return copy.value_or(false) ? data.clone() : data;
}

}  // namespace at
