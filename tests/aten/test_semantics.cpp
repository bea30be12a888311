// Regression tests of issue #7 (wrong results): each expected value below was recorded from
// libtorch 2.15 (the PyPI wheel) on the same call, not computed from Ember's own kernels.
#include <ATen/ATen.h>
#include "op_test_util.h"
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <algorithm>
#include <limits>

namespace {
std::vector<double> values_of(const at::Tensor& t) {
  at::Tensor c = t.to(at::kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}
using ember_test::error_of;
at::Tensor longs(std::vector<int64_t> v) { return at::tensor(v, at::kLong); }
}  // namespace

TEST_CASE("clamp with floating bounds promotes an integer tensor", "[semantics]") {
  at::Tensor t = longs({1, 5, 9});
  at::Tensor r = at::clamp(t, 2.5, 7.5);
  CHECK(r.scalar_type() == at::kFloat);
  CHECK(values_of(r) == std::vector<double>{2.5, 5, 7.5});
  r = at::clamp_min(t, 2.5);
  CHECK(r.scalar_type() == at::kFloat);
  CHECK(values_of(r) == std::vector<double>{2.5, 5, 9});
  r = at::clamp_max(t, 2.5);
  CHECK(r.scalar_type() == at::kFloat);
  CHECK(values_of(r) == std::vector<double>{1, 2.5, 2.5});
  // Integer bounds keep the dtype; only one bound given counts.
  r = at::clamp(t, 2, 7);
  CHECK(r.scalar_type() == at::kLong);
  CHECK(values_of(r) == std::vector<double>{2, 5, 7});
  r = at::clamp(t, std::nullopt, 4);
  CHECK(r.scalar_type() == at::kLong);
  // In place the promoted result cannot go back into the integer tensor.
  CHECK_THROWS_AS(t.clamp_(2.5, 7.5), c10::Error);
  CHECK_THROWS_AS(t.clamp_min_(2.5), c10::Error);
  CHECK(values_of(t) == std::vector<double>{1, 5, 9});
}

TEST_CASE("nan_to_num replaces infinities with the storage dtype's finite max", "[semantics]") {
  at::Tensor src = at::tensor(std::vector<double>{NAN, INFINITY, -INFINITY, 1.0});
  CHECK(values_of(at::nan_to_num(src.to(at::kHalf))) == std::vector<double>{0, 65504, -65504, 1});
  CHECK(values_of(at::nan_to_num(src.to(at::kBFloat16))) ==
        std::vector<double>{0, 3.3895313892515355e+38, -3.3895313892515355e+38, 1});
  CHECK(values_of(at::nan_to_num(src.to(at::kFloat))) ==
        std::vector<double>{0, 3.4028234663852886e+38, -3.4028234663852886e+38, 1});
  CHECK(values_of(at::nan_to_num(src)) == std::vector<double>{0, 1.7976931348623157e+308, -1.7976931348623157e+308, 1});
  // An explicit bound past Half's range rounds to inf, as in libtorch.
  auto v = values_of(at::nan_to_num(src.to(at::kHalf), 0.0, 1e10));
  CHECK(std::isinf(v[1]));
  CHECK(v[2] == -65504);
}

TEST_CASE("Half and BFloat16 reductions accumulate in float", "[semantics]") {
  at::Tensor m = at::ones({100000}, at::kHalf).mean();
  CHECK(m.scalar_type() == at::kHalf);
  CHECK(m.item<double>() == 1.0);
  CHECK(at::ones({100000}, at::kBFloat16).mean().item<double>() == 1.0);
  // The sum rounds once, at the end: 100000 in BFloat16 is 99840; 70000 overflows Half.
  CHECK(at::ones({100000}, at::kBFloat16).sum().item<double>() == 99840.0);
  CHECK(std::isinf(at::full({70000}, 1.0, at::kHalf).sum().item<double>()));
  // Along a dim too.
  at::Tensor md = at::ones({3, 100000}, at::kHalf).mean(1);
  CHECK(values_of(md) == std::vector<double>{1, 1, 1});
}

TEST_CASE("integer pow to a negative integer scalar raises", "[semantics]") {
  at::Tensor t = longs({2, 3});
  std::string e = error_of([&] { at::pow(t, -1); });
  CHECK(e.rfind("[pow] expected a non-negative exponent for an integer tensor", 0) == 0);
  CHECK_THROWS_AS(at::pow(t, -2), c10::Error);
  CHECK_THROWS_AS(t.pow_(-1), c10::Error);
  // A tensor exponent does not raise: 1/x truncates (1 and -1 survive).
  CHECK(values_of(at::pow(t, longs({-1, -2}))) == std::vector<double>{0, 0});
  CHECK(values_of(at::pow(longs({1, -1}), longs({-1, -3}))) == std::vector<double>{1, -1});
  // A float exponent promotes instead.
  at::Tensor f = at::pow(longs({2}), 0.5);
  CHECK(f.scalar_type() == at::kFloat);
  CHECK(f.item<double>() == Approx(1.4142135381698608));
  CHECK(values_of(at::pow(t, 0)) == std::vector<double>{1, 1});
}

TEST_CASE("pow takes a Scalar exponent in the computation dtype of half, bfloat16 and integer tensors", "[semantics]") {
  // Raise/no-raise recorded from libtorch 2.15.
  const std::string want = "[pow] expected an exponent that the tensor's dtype can hold";
  CHECK(error_of([&] { at::pow(at::ones({2}, at::kChar), 1000); }).rfind(want, 0) == 0);
  CHECK(error_of([&] { at::pow(at::ones({0}, at::kChar), 1000); }).rfind(want, 0) == 0);  // empty too
  CHECK(error_of([&] { at::pow(at::ones({2}, at::kByte), 300); }).rfind(want, 0) == 0);
  CHECK(error_of([&] { at::pow(at::ones({2}, at::kInt), int64_t{3000000000}); }).rfind(want, 0) == 0);
  CHECK(error_of([&] { at::pow(at::ones({2}, at::kHalf), 70000); }).rfind(want, 0) == 0);
  CHECK(error_of([&] { at::pow(at::ones({0}, at::kHalf), 1e10); }).rfind(want, 0) == 0);
  CHECK(error_of([&] { at::pow(at::ones({2}, at::kBFloat16), 1e300); }).rfind(want, 0) == 0);
  CHECK(error_of([&] { at::ones({2}, at::kHalf).pow_(-70000); }).rfind(want, 0) == 0);
  // These are accepted: float and double take any exponent, a float exponent promotes an integer
  // tensor to float, a bool tensor with an int exponent computes in int64, inf and NaN fit half.
  CHECK(values_of(at::pow(at::ones({2}), 1e300)) == std::vector<double>{1, 1});
  CHECK(values_of(at::pow(at::ones({2}, at::kDouble), 1e300)) == std::vector<double>{1, 1});
  CHECK(values_of(at::pow(at::ones({2}, at::kInt), 3e9)) == std::vector<double>{1, 1});
  CHECK(values_of(at::pow(at::ones({2}, at::kByte), 255)) == std::vector<double>{1, 1});
  CHECK(values_of(at::pow(at::ones({2}, at::kBool), 1000)) == std::vector<double>{1, 1});
  CHECK(values_of(at::pow(at::ones({2}, at::kHalf), std::numeric_limits<double>::infinity())) == std::vector<double>{1, 1});
}

TEST_CASE("casting to bool tests the value in its own type", "[semantics]") {
  CHECK(at::tensor(std::vector<double>{1e-50}).to(at::kBool).item<bool>());
  CHECK(at::tensor(std::vector<float>{1e-40f}).to(at::kBool).item<bool>());  // a float denormal
  CHECK(at::tensor(std::vector<double>{NAN}).to(at::kBool).item<bool>());
  CHECK_FALSE(at::tensor(std::vector<double>{-0.0}).to(at::kBool).item<bool>());
  CHECK(at::tensor(std::vector<int64_t>{int64_t(1) << 40}).to(at::kBool).item<bool>());
  // Strided source goes through the same conversion.
  at::Tensor s = at::tensor(std::vector<double>{1e-300, 0, 1e-320, 0}).slice(0, 0, 4, 2);
  CHECK(values_of(s.to(at::kBool)) == std::vector<double>{1, 1});
}

TEST_CASE("matmul with zero inner or batch dims gives zeros of the right shape", "[semantics]") {
  at::Tensor r = at::matmul(at::ones({3, 0}), at::ones({0, 4}));
  CHECK(r.sizes().vec() == std::vector<int64_t>{3, 4});
  CHECK(values_of(r) == std::vector<double>(12, 0.0));
  r = at::matmul(at::ones({2, 3, 0}), at::ones({2, 0, 5}));
  CHECK(r.sizes().vec() == std::vector<int64_t>{2, 3, 5});
  CHECK(r.abs().sum().item<double>() == 0.0);
  CHECK(at::matmul(at::ones({0, 3, 4}), at::ones({0, 4, 5})).sizes().vec() == std::vector<int64_t>{0, 3, 5});
  CHECK(at::bmm(at::ones({2, 3, 0}), at::ones({2, 0, 4})).abs().sum().item<double>() == 0.0);
  r = at::matmul(at::ones({0}), at::ones({0}));
  CHECK(r.dim() == 0);
  CHECK(r.item<double>() == 0.0);
  CHECK(at::matmul(at::ones({0, 3}), at::ones({3})).sizes().vec() == std::vector<int64_t>{0});
  CHECK(values_of(at::addmm(at::ones({2, 2}), at::ones({2, 0}), at::ones({0, 2}))) == std::vector<double>(4, 1.0));
}

TEST_CASE("clone and to keep the input's memory order", "[semantics]") {
  at::Tensor x = at::arange(24.).view({2, 3, 4}).permute({2, 0, 1});  // strides [1, 12, 4]
  const std::vector<int64_t> xs{1, 12, 4};
  CHECK(x.clone().strides().vec() == xs);
  CHECK(x.clone(at::MemoryFormat::Preserve).strides().vec() == xs);
  CHECK(x.to(at::kDouble).strides().vec() == xs);
  CHECK(x.to(at::kFloat, false, /*copy=*/true).strides().vec() == xs);
  CHECK(x.clone(at::MemoryFormat::Contiguous).is_contiguous());
  CHECK(values_of(x.clone()) == values_of(x));
  // Not dense: a transposed step-slice gets dense strides in its memory order.
  at::Tensor y = at::arange(48.).view({4, 12}).slice(1, 0, 12, 2).t();  // sizes [6, 4], strides [2, 12]
  CHECK(y.clone(at::MemoryFormat::Preserve).strides().vec() == std::vector<int64_t>{1, 6});
  CHECK(y.to(at::kDouble).strides().vec() == std::vector<int64_t>{1, 6});
  CHECK(values_of(y.clone()) == values_of(y));
  // Expanded: stride 0 says nothing about order; the result is row-major.
  at::Tensor z = at::ones({3, 1}).expand({3, 4});
  CHECK(z.clone().strides().vec() == std::vector<int64_t>{4, 1});
  CHECK(z.to(at::kDouble).strides().vec() == std::vector<int64_t>{4, 1});
  // reshape of a non-viewable input still works (it copies into row-major order).
  CHECK(values_of(x.reshape({24})) == values_of(x.contiguous().view({24})));
}

TEST_CASE("view strides follow the runs of the input", "[semantics]") {
  at::Tensor x = at::arange(12.).view({3, 4}).t();
  CHECK_THROWS_WITH(x.view({12}), Catch::StartsWith("[view] expected a shape whose dims each lie within one contiguous run"));
  CHECK(x.view({2, 2, 3}).strides().vec() == std::vector<int64_t>{2, 1, 4});
  at::Tensor t = at::arange(24.).view({2, 3, 4}).transpose(1, 2);
  CHECK_THROWS_AS(t.view({2, 12}), c10::Error);
  CHECK(t.view({2, 2, 2, 3}).strides().vec() == std::vector<int64_t>{12, 2, 1, 4});
  CHECK(at::zeros({2, 3}).view({3, -1}).strides().vec() == std::vector<int64_t>{2, 1});
  // Size-1 dims anywhere, empty tensors, 0-dim.
  at::Tensor u = at::arange(6.).view({2, 1, 3}).slice(2, 0, 3, 1);
  CHECK(values_of(u.view({1, 6, 1})) == values_of(at::arange(6.)));
  CHECK(at::zeros({0, 4}).view({2, 0, 2}).numel() == 0);
  CHECK(at::ones({}).view({1, 1}).sizes().vec() == std::vector<int64_t>{1, 1});
  // (`view({})` picks view(ScalarType) -- a value-initialised dtype, uint8 -- in libtorch as in Ember.)
  CHECK(at::ones({1, 1}).view(at::IntArrayRef{}).dim() == 0);
  // A step-sliced run is still one run.
  at::Tensor s = at::arange(16.).slice(0, 0, 16, 2);
  CHECK(s.view({2, 4}).strides().vec() == std::vector<int64_t>{8, 2});
}

TEST_CASE("wrapped-number operands convert without a range check; other Scalars are checked", "[semantics]") {
  // libtorch 2.15: pow(uint8 2, 1e300) -> float32 inf; add(f32, 1e300) -> inf; mul(f16, 1e300) -> inf;
  // add(f32, f32, alpha=1e300) and fill_(f16, 1e300) raise.
  at::Tensor u = at::full({2}, 2, at::TensorOptions().dtype(at::kByte));
  at::Tensor p = at::pow(u, 1e300);
  CHECK(p.scalar_type() == at::kFloat);
  CHECK(std::isinf(values_of(p)[0]));
  at::Tensor f = at::ones({2});
  CHECK(values_of(at::add(f, 1e300))[0] == INFINITY);
  CHECK(values_of(at::mul(at::ones({2}, at::TensorOptions().dtype(at::kHalf)), 1e300))[0] == INFINITY);
  CHECK_THROWS_AS(at::add(f, f, 1e300), c10::Error);
  CHECK_THROWS_AS(at::ones({2}, at::TensorOptions().dtype(at::kHalf)).fill_(1e300), c10::Error);
  // A wrapped integer wraps to the tensor's integer type (libtorch casts the 0-dim int64 tensor).
  at::Tensor i = at::zeros({1}, at::TensorOptions().dtype(at::kInt));
  CHECK(values_of(at::add(i, int64_t(1) << 32 | 5))[0] == 5);
}

TEST_CASE("reduction dim lists, bool argmax/topk and empty roll behave as libtorch", "[semantics]") {
  at::Tensor s = at::ones({});
  CHECK_THROWS_WITH(s.amax({0, 0}), Catch::StartsWith("[amax] expected each dim at most once"));
  CHECK_THROWS_AS(s.sum({-1, 0}), c10::Error);
  at::Tensor b = at::ones({3}, at::TensorOptions().dtype(at::kBool));
  CHECK_THROWS_WITH(b.argmax(), Catch::StartsWith("[argmax]"));
  CHECK_THROWS_WITH(b.argmin(0), Catch::StartsWith("[argmin]"));
  CHECK_THROWS_WITH(b.topk(1), Catch::StartsWith("[topk]"));
  // roll of an empty tensor is a copy, whatever the dims (libtorch returns before checking them).
  at::Tensor e = at::zeros({0, 4});
  at::Tensor r = e.roll({3}, {-103});
  CHECK(r.sizes().vec() == std::vector<int64_t>{0, 4});
  CHECK_FALSE(r.is_same(e));
}

TEST_CASE("std and var with a plain int reduce over that dim, as libtorch's C++ overloads do", "[semantics]") {
  // x = [[1, 2, 4], [3, 5, 9]]: along dim 1 the unbiased variances are 7/3 and 28/3 (written out
  // by hand); along dim 0 they are 2, 4.5, 12.5.
  at::Tensor x = at::empty({2, 3}, at::kDouble);
  const double v[] = {1, 2, 4, 3, 5, 9};
  std::copy(v, v + 6, x.data_ptr<double>());
  at::Tensor a = x.var(1);
  REQUIRE(a.sizes() == at::IntArrayRef{2});
  CHECK(values_of(a)[0] == Approx(7.0 / 3.0));
  CHECK(values_of(a)[1] == Approx(28.0 / 3.0));
  at::Tensor b = at::var(x, 0);
  REQUIRE(b.sizes() == at::IntArrayRef{3});
  CHECK(values_of(b)[0] == Approx(2.0));
  CHECK(values_of(b)[1] == Approx(4.5));
  CHECK(values_of(b)[2] == Approx(12.5));
  at::Tensor s = x.std(-1);
  REQUIRE(s.sizes() == at::IntArrayRef{2});
  CHECK(values_of(s)[1] == Approx(std::sqrt(28.0 / 3.0)));
  CHECK(values_of(at::std(x, 0))[0] == Approx(std::sqrt(2.0)));
  // A bool is still `unbiased`: a full reduction.
  CHECK(x.var(false).dim() == 0);
  CHECK(x.var(false).item<double>() == Approx(136.0 / 6 - 16.0));
}
