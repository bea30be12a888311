// Reduction operators written over other operators (composites): full-tensor overloads, mean,
// the `unbiased` spellings of var/std, std, norm.Scalar, softmax/log_softmax with dtype=.
#include <ATen/native/NativeFunctions.h>
#include <ATen/Utils.h>

namespace at::native {
namespace {
// Number of elements each output of a reduction over `dim` (None or [] = all dims) combines.
int64_t reduced_count(const char* op, const Tensor& self, OptionalIntArrayRef dim) {
  if (!dim.has_value() || dim->empty()) return self.numel();
  int64_t n = 1;
  for (int64_t d : *dim) n *= self.dim() == 0 ? 1 : self.size(maybe_wrap_dim(d, self.dim(), op));
  return n;
}
std::optional<Scalar> correction_of(bool unbiased) { return Scalar(int64_t(unbiased ? 1 : 0)); }
}  // namespace

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  return at::sum(self, OptionalIntArrayRef(), false, dtype);
}

Tensor mean_dim(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType dt = dtype.value_or(self.scalar_type());
  EMBER_CHECK(isFloatingType(dt), "[mean] expected a floating point input or a floating dtype=; got input ",
              c10::dtypeName(self.scalar_type()), dtype ? " with dtype=" : "", dtype ? c10::dtypeName(*dtype) : "");
  // Half/BFloat16 sum and divide in float and round once at the end: a Half sum of 100000 ones is
  // inf, their mean is 1.
  const bool narrow = dt == kHalf || dt == kBFloat16;
  Tensor s = at::sum(self, dim, keepdim, narrow ? kFloat : dt);
  Tensor m = at::div(s, Scalar(static_cast<double>(reduced_count("mean", self, dim))));
  return narrow ? m.to(dt) : m;
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return at::mean(self, OptionalIntArrayRef(), false, dtype);
}

Tensor var(const Tensor& self, bool unbiased) {
  return at::var(self, OptionalIntArrayRef(), correction_of(unbiased), false);
}

Tensor var_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return at::var(self, dim, correction_of(unbiased), keepdim);
}

Tensor std_correction(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  return at::sqrt(at::var(self, dim, correction, keepdim));
}

Tensor std(const Tensor& self, bool unbiased) {
  return at::std(self, OptionalIntArrayRef(), correction_of(unbiased), false);
}

Tensor std_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return at::std(self, dim, correction_of(unbiased), keepdim);
}

Tensor norm_Scalar(const Tensor& self, const Scalar& p) {
  return at::norm(self, std::optional<Scalar>(p), IntArrayRef(), false);
}

Tensor softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor x = dtype && *dtype != self.scalar_type() ? self.to(*dtype) : self;
  EMBER_CHECK(isFloatingType(x.scalar_type()), "[softmax] expected a floating point input or a floating dtype=; got ",
              c10::dtypeName(x.scalar_type()));
  return at::_softmax(x, dim, false);
}

Tensor log_softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor x = dtype && *dtype != self.scalar_type() ? self.to(*dtype) : self;
  EMBER_CHECK(isFloatingType(x.scalar_type()), "[log_softmax] expected a floating point input or a floating dtype=; got ",
              c10::dtypeName(x.scalar_type()));
  return at::_log_softmax(x, dim, false);
}

}  // namespace at::native
