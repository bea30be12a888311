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

void write_outs(const char* op, ArrayRef<const char*> names, ArrayRef<Tensor> results, ArrayRef<Tensor*> outs) {
  EMBER_CHECK(results.size() == outs.size() && names.size() == outs.size(), "[", op, "] expected one out tensor per result (",
              results.size(), "); got ", outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    const Tensor& r = results[i];
    Tensor& o = *outs[i];
    if (!r.defined()) continue;
    EMBER_CHECK(o.defined(), "[", op, "] expected a defined tensor for out argument '", names[i], "'; got an undefined one");
    EMBER_CHECK(o.device() == r.device(), "[", op, "] expected out argument '", names[i], "' on ", r.device(),
                " (the result's device); got it on ", o.device());
    EMBER_CHECK(o.scalar_type() == r.scalar_type(), "[", op, "] expected out argument '", names[i], "' of dtype ",
                r.scalar_type(), " (its result's); got dtype ", o.scalar_type());
    EMBER_CHECK(!(GradMode::is_enabled() && o.requires_grad()), "[", op, "] expected out argument '", names[i],
                "' not to require grad (out= variants record no history); got one that does");
    check_no_internal_overlap(o, op);
    for (size_t j = 0; j < i; ++j) {
      const Tensor& p = *outs[j];
      if (!p.defined() || !results[j].defined()) continue;
      // Same tensor, or views of one storage that overlap now or may after a resize.
      const bool shared = o.unsafeGetTensorImpl() == p.unsafeGetTensorImpl() ||
                          (o.is_alias_of(p) && (mem_overlap(o, p) != MemOverlap::None || o.sizes() != r.sizes() ||
                                                p.sizes() != results[j].sizes()));
      EMBER_CHECK(!shared, "[", op, "] expected out arguments that do not share memory; got '", names[j], "' and '", names[i],
                  "' sharing it");
    }
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!results[i].defined()) continue;
    Tensor& o = *outs[i];
    if (o.sizes() != results[i].sizes()) o.resize_(results[i].sizes());
    o.copy_(results[i]);
  }
}

}  // namespace at::native
