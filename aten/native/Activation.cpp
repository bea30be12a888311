// Composites that choose between pointwise primitives by a string argument.
#include <ATen/native/NativeFunctions.h>

namespace at::native {

Tensor gelu(const Tensor& self, c10::string_view approximate) {
  if (approximate == "none") return at::_gelu_erf(self);
  if (approximate == "tanh") return at::_gelu_tanh(self);
  throw c10::Error(c10::str("[gelu] approximate must be 'none' or 'tanh'; got '", approximate, "'"));
}

namespace {
void check_integer_divisor(const char* op, const Tensor& self, const Tensor& other) {
  // (a meta divisor has no values to check: Meta kernels compute shapes only)
  if (!other.is_meta() && c10::isIntegralType(at::result_type(self, other), true))
    EMBER_CHECK(!other.eq(0).any().item<bool>(), "[", op, "] integer division by zero");
}
}  // namespace

Tensor div_Tensor_mode(const Tensor& self, const Tensor& other, std::optional<c10::string_view> rounding_mode) {
  if (!rounding_mode) return at::div(self, other);
  if (*rounding_mode == "trunc") { check_integer_divisor("div", self, other); return at::_div_trunc(self, other); }
  if (*rounding_mode == "floor") { check_integer_divisor("div", self, other); return at::_div_floor(self, other); }
  throw c10::Error(c10::str("[div] rounding_mode must be None, 'trunc' or 'floor'; got '", *rounding_mode, "'"));
}

Tensor div_Scalar_mode(const Tensor& self, const Scalar& other, std::optional<c10::string_view> rounding_mode) {
  return div_Tensor_mode(self, scalar_to_tensor(other, self.device()), rounding_mode);
}

Tensor floor_divide(const Tensor& self, const Tensor& other) {
  check_integer_divisor("floor_divide", self, other);
  return at::_div_floor(self, other);
}

}  // namespace at::native
