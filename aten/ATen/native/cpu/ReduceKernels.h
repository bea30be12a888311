#pragma once
// The per-level kernels behind the CPU reductions and scans (sum_dim_cpu ... cumprod_cpu below):
// kernels/cpu/isa/reduce.cpp, compiled once per CPU capability level; the entry points, which
// forward to the level in use, are in kernels/cpu/reduce.cpp.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/native/DispatchStub.h>
#include <ATen/native/NativeFunctions.h>

namespace at::native {
EMBER_DECLARE_DISPATCH(decltype(&::at::native::sum_dim_cpu), sum_dim_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::prod_cpu), prod_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::prod_dim_cpu), prod_dim_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::max_cpu), max_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::min_cpu), min_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::max_dim_cpu), max_dim_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::min_dim_cpu), min_dim_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::amax_cpu), amax_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::amin_cpu), amin_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::argmax_cpu), argmax_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::argmin_cpu), argmin_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::var_correction_cpu), var_correction_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::std_correction_cpu), std_correction_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::norm_cpu), norm_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::logsumexp_cpu), logsumexp_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::all_cpu), all_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::any_cpu), any_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::all_dim_cpu), all_dim_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::any_dim_cpu), any_dim_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::cumsum_cpu), cumsum_cpu_stub);
EMBER_DECLARE_DISPATCH(decltype(&::at::native::cumprod_cpu), cumprod_cpu_stub);
}  // namespace at::native

EMBER_PUBLIC_END
