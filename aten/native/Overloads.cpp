// libtorch overloads that Python code reaches for and that Ember spells with its other ops:
// round(decimals=), squeeze(dims), sort(stable=), floor_divide by a number and in place, and the
// in-place forms of div with a rounding mode. Composites, so autograd goes through their parts.
#include <ATen/native/NativeFunctions.h>
#include <ATen/Utils.h>
#include <algorithm>
#include <cmath>

namespace at::native {

namespace {
void check_round_dtype(const char* op, const Tensor& self) {
  EMBER_CHECK(at::isFloatingType(self.scalar_type()), "[", op,
              "] expected a floating-point tensor when decimals is given; got ", c10::dtypeName(self.scalar_type()));
}

// A tensor `self` may be overwritten with `r` only if r's dtype casts to self's (int /= float may not).
Tensor& assign_result(const char* op, Tensor& self, const Tensor& r) {
  EMBER_CHECK(at::can_cast(r.scalar_type(), self.scalar_type()), "[", op, "] expected a result that can be written "
              "into self's dtype ", c10::dtypeName(self.scalar_type()), "; the operands promote to ",
              c10::dtypeName(r.scalar_type()));
  EMBER_CHECK(r.sizes() == self.sizes(), "[", op, "] expected an operand that broadcasts to self's shape ",
              self.sizes(), "; got a result of shape ", r.sizes());
  return self.copy_(r);
}
}  // namespace

// Scaled by 10^decimals in the tensor's own dtype, rounded half to even, scaled back (for negative
// decimals: divided by 10^-decimals, rounded, multiplied), as libtorch computes it.
Tensor round_decimals(const Tensor& self, int64_t decimals) {
  check_round_dtype("round", self);
  if (decimals == 0) return at::round(self);
  const double p = std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals));
  return decimals > 0 ? at::round(self * p) / p : at::round(self / p) * p;
}

Tensor& round__decimals(Tensor& self, int64_t decimals) {
  check_round_dtype("round_", self);
  if (decimals == 0) return self.round_();
  const double p = std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals));
  return decimals > 0 ? self.mul_(p).round_().div_(p) : self.div_(p).round_().mul_(p);
}

// Each listed dim of size 1 goes (others stay); dims are checked and wrapped as squeeze.dim's, and
// one named twice is an error. The result is a view of self, also when nothing is removed.
Tensor squeeze_dims(const Tensor& self, IntArrayRef dim) {
  std::vector<int64_t> dims;
  dims.reserve(dim.size());
  for (int64_t d : dim) {
    const int64_t w = maybe_wrap_dim(d, self.dim(), "squeeze");
    for (int64_t seen : dims)
      EMBER_CHECK(seen != w, "[squeeze] expected each dim at most once; dim ", w, " is named twice in ", dim);
    dims.push_back(w);
  }
  std::sort(dims.rbegin(), dims.rend());  // from the last dim, so earlier dims keep their numbers
  Tensor r = at::alias(self);
  if (self.dim() == 0) return r;
  for (int64_t d : dims)
    if (r.size(d) == 1) r = at::squeeze(r, d);
  return r;
}

// Ember's sort keeps equal elements in index order (kernels/cpu/sort.cpp, kernels/cuda/sort.cu),
// so stable=True, False and None sort alike.
std::tuple<Tensor, Tensor> sort_stable(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  (void)stable;
  return at::sort(self, dim, descending);
}

// The number takes part in type promotion as a Python number does (int // 2.5 is a float tensor).
Tensor floor_divide_Scalar(const Tensor& self, const Scalar& other) {
  return at::floor_divide(self, scalar_to_tensor(other, self.device()));
}

Tensor& floor_divide__Tensor(Tensor& self, const Tensor& other) {
  return assign_result("floor_divide_", self, at::floor_divide(self, other));
}

Tensor& floor_divide__Scalar(Tensor& self, const Scalar& other) {
  return assign_result("floor_divide_", self, floor_divide_Scalar(self, other));
}

Tensor& div__Tensor_mode(Tensor& self, const Tensor& other, std::optional<c10::string_view> rounding_mode) {
  return assign_result("div_", self, at::div(self, other, rounding_mode));
}

Tensor& div__Scalar_mode(Tensor& self, const Scalar& other, std::optional<c10::string_view> rounding_mode) {
  return assign_result("div_", self, at::div(self, other, rounding_mode));
}

}  // namespace at::native
