// polygamma over its pointwise primitive, and clamp / clip with tensor bounds (issue #6). These
// dispatch to the same body on every backend and take their gradients from derivatives.yaml.
#include <ATen/native/NativeFunctions.h>
#include <ATen/Utils.h>

namespace at::native {

Tensor polygamma_generic(int64_t n, const Tensor& self) {
  EMBER_CHECK(n >= 0, "[polygamma] expected a non-negative order n; got ", n);
  return at::_polygamma(self, Scalar(n));
}


// maximum / minimum propagate NaN from any operand and promote the dtypes, as clamp does.
Tensor clamp_tensor_generic(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  const bool has_min = min.has_value() && min->defined(), has_max = max.has_value() && max->defined();
  EMBER_CHECK(has_min || has_max, "[clamp] expected a min or a max tensor (or both); got neither");
  Tensor r = has_min ? at::maximum(self, *min) : self;
  if (has_max) r = at::minimum(r, *max);
  return r;
}

Tensor clamp_min_tensor_generic(const Tensor& self, const Tensor& min) { return at::maximum(self, min); }

Tensor clamp_max_tensor_generic(const Tensor& self, const Tensor& max) { return at::minimum(self, max); }

Tensor clip_Tensor(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return at::clamp(self, min, max);
}

Tensor& clamp__Tensor(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  // clamp saves its input for the backward: give it a copy, since self is overwritten below.
  Tensor r = at::clamp(self.clone(), min, max);
  EMBER_CHECK(at::can_cast(r.scalar_type(), self.scalar_type()), "[clamp_] expected bounds whose promoted dtype ",
              c10::dtypeName(r.scalar_type()), " can be written into self; got self of dtype ",
              c10::dtypeName(self.scalar_type()));
  EMBER_CHECK(r.sizes() == self.sizes(), "[clamp_] expected bounds that broadcast to self's shape ", self.sizes(),
              "; got a result of shape ", r.sizes());
  self.copy_(r);
  return self;
}

Tensor& clip__Tensor(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return at::clamp_(self, min, max);
}

}  // namespace at::native
