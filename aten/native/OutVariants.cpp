// The two helpers behind the generated out= forms of non-pointwise ops (Note [Composite out=
// variants] in ATen/native/OutVariants.h).
#include <ATen/native/OutVariants.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/Utils.h>
#include <ATen/core/GradMode.h>

namespace at::native {
void check_out_records_no_history(const char* op, bool inputs_require_grad) {
  EMBER_CHECK(!inputs_require_grad, "[", op, "] expected inputs that do not require grad (out= variants record no history); "
              "got an input that requires grad (call it under torch::NoGradGuard, or use the functional form)");
}

void write_out(const char* op, const Tensor& result, Tensor& out) {
  EMBER_CHECK(out.device() == result.device(), "[", op, "] expected out on ", result.device(), " (the result's device); got out on ",
              out.device());
  EMBER_CHECK(can_cast(result.scalar_type(), out.scalar_type()), "[", op, "] expected an out dtype that the result dtype ",
              result.scalar_type(), " can be cast to; got out dtype ", out.scalar_type());
  EMBER_CHECK(!(GradMode::is_enabled() && out.requires_grad()), "[", op,
              "] expected an out tensor that does not require grad (out= variants record no history); got one that does");
  // as given, before any resize (as the pointwise out= forms check it): an expanded out is refused
  check_no_internal_overlap(out, op);
  if (out.sizes() != result.sizes()) out.resize_(result.sizes());
  out.copy_(result);
}

}  // namespace at::native
