#pragma once
// Device-level queries of c10::cuda (libtorch's c10/cuda/CUDAFunctions.h). Every function raises
// c10::Error "[cuda] ..." when Ember was built without CUDA or no device is present.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/core/Device.h>

namespace c10::cuda {
/// Number of visible devices (0 without CUDA or without a driver); never throws.
DeviceIndex device_count() noexcept;
/// The current device of this thread.
DeviceIndex current_device();
/// Makes `device` current for this thread; raises for an index out of range.
void set_device(DeviceIndex device);
/// Waits until every stream of the current device has finished its work (cudaDeviceSynchronize).
void device_synchronize();
}  // namespace c10::cuda

EMBER_PUBLIC_END
