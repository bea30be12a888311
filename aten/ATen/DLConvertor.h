#pragma once
// Zero-copy exchange of tensors with other array libraries through DLPack (libtorch's
// <ATen/DLConvertor.h> names and signatures):
//   DLManagedTensorVersioned* m = at::toDLPackVersioned(t);   // hand m to the other library;
//                                                             // it calls m->deleter(m) when done
//   at::Tensor u = at::fromDLPackVersioned(theirs);           // shares their memory; their deleter
//                                                             // runs when u's storage is freed
// Ownership, read-only tensors and errors: Note [DLPack ownership] in aten/src/DLConvertor.cpp
// and docs/embedding.md.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/dlpack.h>
#include <functional>
#include <optional>

namespace at {

/// The Ember dtype of a DLPack element type; raises "[fromDLPack] ..." for types Ember lacks
/// (complex, float8/6/4, opaque handles) and for lanes != 1.
ScalarType toScalarType(const DLDataType& dtype);

/// Exports `src` without copying: the result's DLTensor points at src's elements (byte_offset 0,
/// src's sizes and strides in elements) and keeps src's storage alive until its deleter is called,
/// which the receiver must do exactly once.
DLManagedTensor* toDLPack(const Tensor& src);
/// toDLPack in the DLPack 1.x wrapper: version {1, DLPACK_MINOR_VERSION}, flags 0.
DLManagedTensorVersioned* toDLPackVersioned(const Tensor& src);
/// toDLPackVersioned with DLPACK_FLAG_BITMASK_READ_ONLY set: the receiver promises not to write.
DLManagedTensorVersioned* toDLPackVersionedReadOnly(const Tensor& src);
/// Fills `out` to describe src's elements without taking ownership: out->shape and out->strides
/// point into src's own size and stride arrays, so `out` is valid only while src lives unchanged.
/// `read_only` is accepted for libtorch compatibility; a bare DLTensor has no flags to carry it.
void toDLPackNonOwning(const Tensor& src, DLTensor* out, bool read_only = false);

/// Wraps the memory `src` describes as a tensor without copying. Ember takes ownership of src:
/// when the tensor's storage is freed, src->deleter(src) runs once — or, when `deleter` is given,
/// deleter(src->dl_tensor.data) runs instead and src->deleter is never called. On an error nothing
/// is called and the caller still owns src.
Tensor fromDLPack(DLManagedTensor* src, std::function<void(void*)> deleter = {});
/// fromDLPack for the 1.x wrapper. Refuses a major version other than DLPACK_MAJOR_VERSION. A
/// READ_ONLY tensor is copied into Ember-owned memory on its device and released at once, so
/// writes to the result never reach the producer (Ember tensors have no read-only mode).
Tensor fromDLPackVersioned(DLManagedTensorVersioned* src, std::function<void(void*)> deleter = {});

/// The DLPack element type of t's dtype (every Ember dtype has one).
DLDataType getDLDataType(const Tensor& t);
/// The DLDevice of t's device type, with `device_id` as its index.
DLDevice getDLContext(const Tensor& tensor, const int64_t& device_id);

/// Returns `data` itself, or a copy when `copy` is true or `optional_dl_device` names another
/// device than data's (a copy to that device); raises "[toDLPack] ..." when a copy is needed but
/// `copy` is false.
Tensor maybeCopyTensor(const Tensor& data, std::optional<DLDevice> optional_dl_device, std::optional<bool> copy);

/// The DLDevice of an Ember device: kDLCPU with id 0, or kDLCUDA with the device's index.
DLDevice torchDeviceToDLDevice(at::Device device);
/// The Ember device of a DLPack device: kDLCPU and kDLCUDAHost (host memory) are the CPU,
/// kDLCUDA and kDLCUDAManaged CUDA device `index`; others raise "[fromDLPack] ...". `data` is
/// unused (libtorch's signature).
Device dlDeviceToTorchDevice(DLDeviceType type, c10::DeviceIndex index, void* data = nullptr);

/// Per wrapper type: the Python capsule names DLPack's protocol gives it and its conversions.
template <class T>
struct DLPackTraits {};

template <>
struct DLPackTraits<DLManagedTensor> {
  inline static constexpr const char* capsule = "dltensor";
  inline static constexpr const char* used = "used_dltensor";
  inline static auto toDLPack = at::toDLPack;
  inline static auto fromDLPack = at::fromDLPack;
};

template <>
struct DLPackTraits<DLManagedTensorVersioned> {
  inline static constexpr const char* capsule = "dltensor_versioned";
  inline static constexpr const char* used = "used_dltensor_versioned";
  inline static auto toDLPack = at::toDLPackVersioned;
  inline static auto fromDLPack = at::fromDLPackVersioned;
};

}  // namespace at

EMBER_PUBLIC_END
