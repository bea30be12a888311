// The entry points of the kernels in kernels/cpu/isa/reduce.cpp, which is compiled once per CPU
// capability level (Note [CPU capability levels]): each forwards to the level in use.
#include <ATen/native/cpu/ReduceKernels.h>
#include <cmath>

namespace at::native {
EMBER_DEFINE_DISPATCH(decltype(&::at::native::sum_dim_cpu), sum_dim_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::prod_cpu), prod_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::prod_dim_cpu), prod_dim_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::max_cpu), max_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::min_cpu), min_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::max_dim_cpu), max_dim_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::min_dim_cpu), min_dim_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::amax_cpu), amax_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::amin_cpu), amin_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::argmax_cpu), argmax_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::argmin_cpu), argmin_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::var_correction_cpu), var_correction_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::std_correction_cpu), std_correction_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::norm_cpu), norm_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::logsumexp_cpu), logsumexp_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::all_cpu), all_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::any_cpu), any_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::all_dim_cpu), all_dim_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::any_dim_cpu), any_dim_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::cumsum_cpu), cumsum_cpu_stub);
EMBER_DEFINE_DISPATCH(decltype(&::at::native::cumprod_cpu), cumprod_cpu_stub);

Tensor sum_dim_cpu(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) { return sum_dim_cpu_stub(self, dim, keepdim, dtype); }
Tensor prod_cpu(const Tensor& self, std::optional<ScalarType> dtype) { return prod_cpu_stub(self, dtype); }
Tensor prod_dim_cpu(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) { return prod_dim_cpu_stub(self, dim, keepdim, dtype); }
Tensor max_cpu(const Tensor& self) { return max_cpu_stub(self); }
Tensor min_cpu(const Tensor& self) { return min_cpu_stub(self); }
std::tuple<Tensor, Tensor> max_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) { return max_dim_cpu_stub(self, dim, keepdim); }
std::tuple<Tensor, Tensor> min_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) { return min_dim_cpu_stub(self, dim, keepdim); }
Tensor amax_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) { return amax_cpu_stub(self, dim, keepdim); }
Tensor amin_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) { return amin_cpu_stub(self, dim, keepdim); }
Tensor argmax_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) { return argmax_cpu_stub(self, dim, keepdim); }
Tensor argmin_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) { return argmin_cpu_stub(self, dim, keepdim); }
Tensor var_correction_cpu(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) { return var_correction_cpu_stub(self, dim, correction, keepdim); }
Tensor std_correction_cpu(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) { return std_correction_cpu_stub(self, dim, correction, keepdim); }
Tensor norm_cpu(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  // Checked here, in baseline code: c10::str's instantiation for this message, made in a per-level
  // file, was once merged by the linker from the AVX-512 object (cpu_level.baseline_isa).
  EMBER_CHECK(!p || !std::isnan(p->toDouble()), "[norm] expected a non-NaN order p; got ", p->toDouble());
  return norm_cpu_stub(self, p, dim, keepdim);
}
Tensor logsumexp_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) { return logsumexp_cpu_stub(self, dim, keepdim); }
Tensor all_cpu(const Tensor& self) { return all_cpu_stub(self); }
Tensor any_cpu(const Tensor& self) { return any_cpu_stub(self); }
Tensor all_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) { return all_dim_cpu_stub(self, dim, keepdim); }
Tensor any_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) { return any_dim_cpu_stub(self, dim, keepdim); }
Tensor cumsum_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return cumsum_cpu_stub(self, dim, dtype); }
Tensor cumprod_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return cumprod_cpu_stub(self, dim, dtype); }

}  // namespace at::native
