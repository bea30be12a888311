// libtorch overloads that C++ and Python code reaches for and that Ember spells with its other ops:
// round(decimals=), squeeze(dims), sort(stable=), floor_divide by a number and in place, the
// in-place forms of div with a rounding mode, a number first (pow(2, t), remainder, bitwise),
// max/min of two tensors, where(condition), fill_/narrow with a tensor, split by sizes, in-place
// clamp by tensors, scatter with a reduction, bernoulli(p), random_(to). Composites, so autograd goes
// through their parts.
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

// ---------------------------------------------------------------- a number first
// The number becomes a wrapped 0-dim tensor: in type promotion it yields to the tensor's dtype within
// its category (pow(2, int32) is int32, pow(2.5, int64) the default float dtype), as in libtorch.
Tensor pow_Scalar(const Scalar& self, const Tensor& exponent) {
  // The base converted to the result's dtype first, so that the gradient's log(base) is taken at that
  // precision (an integer base's log would come out in the default float dtype: float64 gradients off by 1e-9).
  return at::pow(scalar_to_tensor(self, exponent.device()).to(at::result_type(self, exponent)), exponent);
}
Tensor remainder_Scalar_Tensor(const Scalar& self, const Tensor& other) {
  return at::remainder(scalar_to_tensor(self, other.device()), other);
}
Tensor bitwise_and_Scalar_Tensor(const Scalar& self, const Tensor& other) {
  return at::bitwise_and(scalar_to_tensor(self, other.device()), other);
}
Tensor bitwise_or_Scalar_Tensor(const Scalar& self, const Tensor& other) {
  return at::bitwise_or(scalar_to_tensor(self, other.device()), other);
}
Tensor bitwise_xor_Scalar_Tensor(const Scalar& self, const Tensor& other) {
  return at::bitwise_xor(scalar_to_tensor(self, other.device()), other);
}

// ---------------------------------------------------------------- two-tensor max/min, where(condition)
// max(a, b) / min(a, b): elementwise, NaN-propagating (maximum / minimum).
Tensor max_other(const Tensor& self, const Tensor& other) { return at::maximum(self, other); }
Tensor min_other(const Tensor& self, const Tensor& other) { return at::minimum(self, other); }

// One index tensor per dimension (of a 0-dim condition: one, as for its 1-element view), each a view
// of nonzero's [count, ndim] result.
std::vector<Tensor> where(const Tensor& condition) {
  const Tensor c = condition.dim() == 0 ? condition.unsqueeze(0) : condition;
  return at::nonzero(c).unbind(1);
}

// ---------------------------------------------------------------- tensor-valued arguments
Tensor& fill__Tensor(Tensor& self, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "[fill_] expected a 0-dim value tensor; got one with ", value.dim(), " dimension(s), shape ",
              value.sizes());
  // copy_ broadcasts the value and gives it the gradient (summed); a value that is an element of self
  // (x.fill_(x[0])) is copied out first, as copy_ refuses a source that overlaps its destination.
  return self.copy_(value.is_alias_of(self) ? value.clone() : value);
}

Tensor narrow_Tensor(const Tensor& self, int64_t dim, const Tensor& start, int64_t length) {
  EMBER_CHECK(start.dim() == 0 && at::isIntegralType(start.scalar_type(), /*includeBool=*/false), "[narrow] expected start to be ",
              "a 0-dim integer tensor; got a ", start.dim(), "-dim tensor of dtype ", c10::dtypeName(start.scalar_type()));
  return at::narrow(self, dim, start.item<int64_t>(), length);
}

Tensor& clamp_min__Tensor(Tensor& self, const Tensor& min) {
  return assign_result("clamp_min_", self, at::clamp_min(self, min));
}
Tensor& clamp_max__Tensor(Tensor& self, const Tensor& max) {
  return assign_result("clamp_max_", self, at::clamp_max(self, max));
}

std::vector<Tensor> split_sizes(const Tensor& self, IntArrayRef split_size, int64_t dim) {
  return at::split_with_sizes(self, split_size, dim);
}

// ---------------------------------------------------------------- scatter with a reduction
namespace {
// scatter's reduce names as scatter_reduce's (self always included).
const char* scatter_reduction(c10::string_view reduce) {
  if (reduce == "add") return "sum";
  if (reduce == "multiply") return "prod";
  EMBER_CHECK(false, "[scatter] expected reduce to be 'add' or 'multiply'; got '", std::string(reduce), "'");
  return nullptr;
}
Tensor filled_like_index(const Tensor& self, const Tensor& index, const Scalar& value) {
  return at::full(index.sizes(), value, self.options());
}
}  // namespace

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, c10::string_view reduce) {
  return at::scatter_reduce(self, dim, index, src, scatter_reduction(reduce), /*include_self=*/true);
}
Tensor scatter_value_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, c10::string_view reduce) {
  return at::scatter_reduce(self, dim, index, filled_like_index(self, index, value), scatter_reduction(reduce), true);
}
Tensor& scatter__reduce(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, c10::string_view reduce) {
  return self.scatter_reduce_(dim, index, src, scatter_reduction(reduce), /*include_self=*/true);
}
Tensor& scatter__value_reduce(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, c10::string_view reduce) {
  return self.scatter_reduce_(dim, index, filled_like_index(self, index, value), scatter_reduction(reduce), true);
}

// ---------------------------------------------------------------- random
// bernoulli(p): a fresh tensor like self of independent draws, 1 with probability p.
Tensor bernoulli_p(const Tensor& self, double p, std::optional<Generator> generator) {
  return at::empty_like(self).bernoulli_(p, generator);
}
// random_(to): [0, to), as random_(0, to).
Tensor& random__to(Tensor& self, int64_t to, std::optional<Generator> generator) { return self.random_(0, to, generator); }

}  // namespace at::native
