#pragma once
// The per-level kernel behind softmax_cpu / log_softmax_cpu (kernels/cpu/isa/softmax.cpp):
// (op name, a floating CPU input, the wrapped dim, log).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/native/DispatchStub.h>

namespace at::native {
using softmax_fn = Tensor (*)(const char*, const Tensor&, int64_t, bool);
EMBER_DECLARE_DISPATCH(softmax_fn, softmax_stub);
}  // namespace at::native

EMBER_PUBLIC_END
