// Regression tests of issue #7 (memory safety): hostile sizes, strides and offsets give a
// c10::Error naming the op, never a wrapped-around allocation or a write past the storage.
#include <ATen/ATen.h>
#include "op_test_util.h"
#include <catch2/catch.hpp>
#include <c10/util/safe_numerics.h>
#include <string>

namespace {
using ember_test::error_of;
bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
}  // namespace

TEST_CASE("numel overflow is an error, not a wrapped count", "[hardening]") {
  const int64_t big = int64_t(1) << 32;
  // 2^64 elements: the product wraps to 0 in int64.
  std::string e = error_of([&] { at::ones({1}).expand({big, big}); });
  CHECK(starts_with(e, "[view] expected a number of elements that fits in int64"));
  e = error_of([&] { at::empty({int64_t(1) << 62, 8}); });
  CHECK(starts_with(e, "[empty] expected a number of elements that fits in int64"));
  // Fits as a count, not as bytes: 2^62 floats.
  e = error_of([&] { at::empty({int64_t(1) << 31, int64_t(1) << 31}); });
  CHECK(starts_with(e, "[empty] expected a byte size that fits in int64"));
  e = error_of([&] { at::ones({1}).expand({int64_t(1) << 31, int64_t(1) << 31}).contiguous(); });
  CHECK(starts_with(e, "[empty] expected a byte size that fits in int64"));
  // A zero size makes numel 0, but a stride after it must still fit: 8 * 2^62 does not (libtorch
  // 2.15 raises too); with the zero last, every stride is 1.
  CHECK(starts_with(error_of([&] { at::empty({0, int64_t(1) << 62, 8}); }), "[empty] expected contiguous strides"));
  at::Tensor z = at::empty({1, int64_t(1) << 62, 0});
  CHECK(z.numel() == 0);
  CHECK(z.dim() == 3);
  CHECK(at::ones({1}).expand({0, big, big}).numel() == 0);
  CHECK_THROWS_AS(at::empty({5, 3, int64_t(1) << 62, 0}), c10::Error);
  CHECK(starts_with(error_of([&] { at::empty({-1}); }), "[empty] expected non-negative sizes"));
}

TEST_CASE("as_strided and empty_strided check their extent with checked arithmetic", "[hardening]") {
  at::Tensor t = at::zeros({4});
  // (2-1) * 2^62 + 1 elements of 4 bytes: wraps in int64 bytes.
  std::string e = error_of([&] { t.as_strided({2}, {int64_t(1) << 62}); });
  CHECK(starts_with(e, "[as_strided] expected a storage size that fits in int64"));
  e = error_of([&] { t.as_strided({3}, {int64_t(1) << 61}); });  // 2^62 + 1 elements: bytes overflow
  CHECK(starts_with(e, "[as_strided]"));
  e = error_of([&] { t.as_strided({2, 2}, {2, 2}); });  // last element at 4: past the storage
  CHECK(starts_with(e, "[as_strided] expected a view inside the storage of 16 bytes"));
  e = error_of([&] { t.as_strided({1}, {1}, int64_t(1) << 62); });
  CHECK(starts_with(e, "[as_strided]"));
  e = error_of([&] { t.as_strided({2}, {-1}); });
  CHECK(starts_with(e, "[as_strided] expected non-negative strides"));
  e = error_of([&] { t.as_strided({2}, {1}, -1); });
  CHECK(starts_with(e, "[as_strided] expected a non-negative storage offset"));
  // In bounds: the last element exactly at the end, and empty views anywhere.
  CHECK(t.as_strided({2, 2}, {1, 2}).numel() == 4);
  CHECK(t.as_strided({0, 5}, {int64_t(1) << 62, 1}, 100).numel() == 0);
  e = error_of([&] { at::empty_strided({3, 3}, {int64_t(1) << 62, 1}); });
  CHECK(starts_with(e, "[empty_strided] expected a storage size that fits in int64"));
  CHECK(at::empty_strided({2, 3}, {1, 2}).storage().nbytes() == 6 * sizeof(float));
}

TEST_CASE("resize_ checks the grown byte count", "[hardening]") {
  at::Tensor t = at::zeros({2});
  std::string e = error_of([&] { t.resize_({int64_t(1) << 62, 4}); });
  CHECK(starts_with(e, "[resize_] expected a number of elements that fits in int64"));
  e = error_of([&] { t.resize_({int64_t(1) << 62}); });
  CHECK(starts_with(e, "[resize_] expected a storage size that fits in int64"));
  CHECK(t.numel() == 2);  // unchanged after the failed calls
  t.resize_({3, 3});
  CHECK(t.numel() == 9);
  CHECK(t.storage().nbytes() >= 9 * sizeof(float));
}

TEST_CASE("checked helpers", "[hardening]") {
  int64_t n = 0;
  CHECK(c10::safe_numel({INT64_MAX, 1}, &n));
  CHECK(n == INT64_MAX);
  CHECK_FALSE(c10::safe_numel({INT64_MAX, 2}, &n));
  CHECK_FALSE(c10::safe_numel({INT64_MAX, 4, 0}, &n));  // the partial product passes 2^64
  CHECK(c10::safe_numel({0, INT64_MAX, 2}, &n));
  CHECK(n == 0);
  CHECK(c10::checked_storage_nbytes({3, 2}, {2, 1}, 1, 8, "t") == 7 * 8);
  CHECK(c10::checked_storage_nbytes({}, {}, 0, 4, "t") == 4);  // 0-dim: one element
  CHECK_THROWS_AS(c10::checked_storage_nbytes({2}, {INT64_MAX}, 0, 1, "t"), c10::Error);
  CHECK_THROWS_AS(c10::checked_storage_nbytes({2}, {1}, INT64_MAX, 1, "t"), c10::Error);
}

TEST_CASE("tensors of high rank work in index and reduce kernels", "[hardening]") {
  // 40 dims of size 1 or 2: the per-dim counters of the index and reduction helpers once lived
  // in fixed [32] / [64] arrays.
  std::vector<int64_t> sizes(40, 1);
  sizes[0] = 2;
  sizes[39] = 2;
  sizes[20] = 2;
  at::Tensor a = ember_test::iota(sizes, at::kFloat);
  std::vector<int64_t> perm(40);
  for (int64_t i = 0; i < 40; ++i) perm[i] = 39 - i;
  at::Tensor p = a.permute(perm);
  at::Tensor cat = at::cat({p, p}, 0);  // strided block copies over 40 dims
  CHECK(cat.size(0) == 4);
  CHECK(cat.sum().item<double>() == Approx(2 * 28.0));
  // Reduce over many dims at once: every odd dim plus the three non-trivial ones.
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < 40; d += 1) if (d != 5) dims.push_back(d);
  at::Tensor s = p.sum(dims);
  CHECK(s.numel() == 1);
  CHECK(s.item<double>() == Approx(28.0));
}

TEST_CASE("size and stride of a 0-dim tensor raise", "[hardening]") {
  at::Tensor s = at::ones({});
  CHECK_THROWS_AS(s.size(0), c10::IndexError);
  CHECK_THROWS_AS(s.size(-1), c10::IndexError);
  CHECK_THROWS_AS(s.stride(0), c10::IndexError);
  CHECK(starts_with(error_of([&] { s.size(0); }), "[size] expected a tensor with at least one dimension"));
  CHECK(at::zeros({2, 3}).size(-1) == 3);
  CHECK_THROWS_AS(at::zeros({2, 3}).size(2), c10::IndexError);
}

TEST_CASE("scalars that the target dtype cannot hold raise instead of converting with UB", "[hardening]") {
  // libtorch raises for each of these too (values recorded from libtorch 2.15 by tools/difffuzz).
  CHECK_THROWS_WITH(at::empty({2}, at::kChar).fill_(1e300), Catch::StartsWith("[Scalar] expected a value that int8 can hold"));
  CHECK_THROWS_AS(at::empty({2}, at::kLong).fill_(std::nan("")), c10::Error);
  CHECK_THROWS_AS(at::empty({2}, at::kInt).fill_(int64_t(1) << 40), c10::Error);
  CHECK_THROWS_AS(at::empty({2}, at::kFloat).fill_(1e300), c10::Error);
  CHECK_THROWS_AS(at::empty({2}, at::kHalf).fill_(70000.0), c10::Error);
  CHECK_THROWS_AS(at::Scalar(std::nan("")).toLong(), c10::Error);
  CHECK_THROWS_AS(at::Scalar(9.3e18).toLong(), c10::Error);
  CHECK_THROWS_AS(at::clamp(at::tensor(std::vector<int64_t>{1, 2}), 1e300), c10::Error);  // promoted to float32
  // What fits converts: infinities and NaN into floating types, rounding to the largest finite
  // value, negative values into uint8 (wrapping, as libtorch).
  CHECK(std::isinf(at::empty({1}, at::kFloat).fill_(INFINITY).item<double>()));
  CHECK(std::isnan(at::empty({1}, at::kHalf).fill_(std::nan("")).item<double>()));
  CHECK(at::empty({1}, at::kHalf).fill_(65519.0).item<double>() == 65504.0);
  CHECK_THROWS_AS(at::empty({1}, at::kHalf).fill_(65520.0), c10::Error);
  CHECK(at::empty({1}, at::kByte).fill_(-1).item<int64_t>() == 255);   // an integer wraps
  CHECK_THROWS_AS(at::empty({1}, at::kByte).fill_(-4.0), c10::Error);   // a floating value does not
  CHECK_THROWS_WITH(at::arange(0.0, 1.0, INFINITY), Catch::StartsWith("[arange] expected finite start, end and step"));
  CHECK(at::Scalar(-9.2e18).toLong() == int64_t(-9200000000000000000LL));
  CHECK(at::empty({1}, at::kDouble).fill_(1e300).item<double>() == 1e300);
}

TEST_CASE("negative strides are rejected even when a size is zero", "[hardening]") {
  at::Tensor t = at::zeros({8});
  CHECK_THROWS_WITH(t.as_strided({0, 2}, {1, -1}), Catch::StartsWith("[as_strided] expected non-negative strides"));
  CHECK(t.as_strided({0, 2}, {1, 1}).numel() == 0);
}

TEST_CASE("float to integer copies are defined for NaN and out-of-range values", "[hardening]") {
  // x86 libtorch gives the instruction's "integer indefinite" value; uint8 wraps through int64.
  at::Tensor f = at::tensor(std::vector<double>{-15.7, 300.5, std::nan(""), 1e30, -1e30, 2.9});
  CHECK(ember_test::to_double_vec(f.to(at::kByte)) == std::vector<double>{241, 44, 0, 0, 0, 2});
  CHECK(ember_test::to_double_vec(f.to(at::kChar)) == std::vector<double>{-15, 44, 0, 0, 0, 2});
  CHECK(ember_test::to_double_vec(f.to(at::kInt)) ==
        std::vector<double>{-15, 300, INT32_MIN, INT32_MIN, INT32_MIN, 2});
  at::Tensor l = f.to(at::kLong);
  CHECK(l[2].item<int64_t>() == INT64_MIN);
  CHECK(l[3].item<int64_t>() == INT64_MIN);
  CHECK(l[0].item<int64_t>() == -15);
}

TEST_CASE("a broadcast shape whose count overflows raises", "[hardening]") {
  // Each input is empty (and valid); their broadcast shape's partial product passes 2^64.
  at::Tensor c = at::ones({1}).expand({int64_t(1) << 62, 1, 1});  // a view: 2^62 elements, no storage
  CHECK_THROWS_WITH(at::add(at::zeros({4, 1, 1, 0}), c), Catch::Contains("expected a broadcast shape whose number of elements fits in int64"));
}

TEST_CASE("chunk of an empty dim bounds the number of pieces", "[hardening]") {
  at::Tensor e = at::zeros({0, 2});
  CHECK(at::chunk(e, 3, 0).size() == 3);
  CHECK_THROWS_WITH(at::chunk(e, int64_t(1) << 40, 0), Catch::StartsWith("[chunk] expected at most 16777216 chunks"));
  CHECK(at::chunk(at::zeros({5}), INT64_MAX, 0).size() == 5);  // ceil(5 / huge) without overflow
}

TEST_CASE("integer addmm rejects alpha/beta it cannot hold", "[hardening]") {
  at::Tensor a = at::ones({2, 2}, at::kLong);
  CHECK_THROWS_WITH(at::addmm(a, a, a, std::nan(""), 1), Catch::StartsWith("[Scalar] expected a value that int64 can hold"));
  CHECK(at::addmm(a, a, a, 2, 3).sum().item<int64_t>() == 4 * (2 + 3 * 2));
}

// Differences tools/difffuzz found against libtorch 2.15 (raise or not as libtorch does).
TEST_CASE("difffuzz: strides that overflow, crops past the input, 0-dim index_select, linspace endpoints", "[hardening]") {
  // A stride that does not fit raises even when a zero size makes numel 0; the product past the
  // first dim is no stride.
  const int64_t huge = 7493989779944505343LL;
  CHECK(starts_with(error_of([&] { at::empty({0, huge, 2}); }), "[empty] expected contiguous strides that fit in int64"));
  CHECK(starts_with(error_of([&] { at::empty({0, 0, 16, huge, 1}); }), "[empty] expected contiguous strides"));
  CHECK(at::empty({huge, 0}).sizes().vec() == std::vector<int64_t>{huge, 0});
  CHECK(at::empty({2, huge, 0}).numel() == 0);
  // constant_pad_nd: a crop that removes more than the dim holds raises, even when the other side
  // pads back; a pure crop never converts the value (uint8 with inf is fine then).
  at::Tensor x = at::zeros({2, 3});
  CHECK(starts_with(error_of([&] { at::constant_pad_nd(x, {-4, 5}); }), "[constant_pad_nd] expected the negative padding"));
  CHECK(at::constant_pad_nd(x, {-3, 0}).sizes().vec() == std::vector<int64_t>{2, 0});
  at::Tensor u = at::zeros({2, 3}, at::kByte);
  CHECK(at::constant_pad_nd(u, {-1, 0}, INFINITY).sizes().vec() == std::vector<int64_t>{2, 2});
  CHECK(starts_with(error_of([&] { at::constant_pad_nd(u, {1, 0}, INFINITY); }), "[Scalar] expected a value that uint8"));
  // index_select of a 0-dim input takes exactly one index.
  at::Tensor s = at::full({}, 5.0);
  CHECK(at::index_select(s, 0, at::zeros({1}, at::kLong)).item<double>() == 5);
  CHECK(starts_with(error_of([&] { at::index_select(s, 0, at::zeros({2}, at::kLong)); }), "[index_select] expected exactly one index"));
  CHECK(starts_with(error_of([&] { at::index_select(s, 0, at::zeros({0}, at::kLong)); }), "[index_select] expected exactly one index"));
  // Floating addmm/baddbmm below double: alpha and beta must be float values (not when the
  // result is empty; float64 takes any).
  at::Tensor h = at::ones({2, 2}, at::kHalf), f = at::ones({2, 2});
  CHECK(starts_with(error_of([&] { at::addmm(h, h, h, 1, 1e300); }), "[Scalar] expected a value that float32 can hold"));
  CHECK(starts_with(error_of([&] { at::addmm(f, f, f, 1e39, 1); }), "[Scalar] expected a value that float32 can hold"));
  CHECK(starts_with(error_of([&] { at::baddbmm(f.unsqueeze(0), f.unsqueeze(0), f.unsqueeze(0), 1, 1e300); }), "[Scalar]"));
  CHECK(at::addmm(at::ones({0, 2}, at::kHalf), at::ones({0, 2}, at::kHalf), h, 1, 1e300).numel() == 0);
  CHECK(std::isinf(at::addmm(f.to(at::kDouble), f.to(at::kDouble), f.to(at::kDouble), 1, 1e300).select(0, 0).select(0, 0).item<double>()) == false);
  // scatter_ with a 0-dim index needs one src element.
  at::Tensor t5 = at::zeros({5}, at::kDouble);
  CHECK(starts_with(error_of([&] { t5.scatter_(0, at::zeros({}, at::kLong), at::empty({0}, at::kDouble)); }),
                    "[scatter_] expected a src with at least the index's one element"));
  // one_hot of an empty input needs a positive num_classes.
  at::Tensor e = at::empty({2, 0}, at::kLong);
  CHECK(starts_with(error_of([&] { at::one_hot(e, 0); }), "[one_hot] expected a positive num_classes for an empty input"));
  CHECK(starts_with(error_of([&] { at::one_hot(e, -1); }), "[one_hot] expected a positive num_classes for an empty input"));
  CHECK(at::one_hot(e, 3).sizes().vec() == std::vector<int64_t>{2, 0, 3});
  // linspace's endpoints must be values of the result dtype; arange's need not.
  CHECK(starts_with(error_of([&] { at::linspace(1e300, 1, 3); }), "[Scalar] expected a value that float32 can hold"));
  CHECK(starts_with(error_of([&] { at::linspace(1, 1e300, 3); }), "[Scalar] expected a value that float32 can hold"));
  CHECK(at::linspace(1, 1e300, 3, at::kDouble).size(0) == 3);
  CHECK(at::linspace(0, 1e300, 1).item<float>() == 0);  // one step never reaches `end`
  CHECK(at::linspace(1e300, 0, 0).numel() == 0);
  CHECK(starts_with(error_of([&] { at::linspace(1e300, 0, 1); }), "[Scalar] expected a value that float32 can hold"));
  CHECK(starts_with(error_of([&] { at::linspace(0, 1e10, 2, at::kInt); }), "[Scalar] expected a value that int32 can hold"));
  CHECK(at::arange(-1e300, 0, 1e299).size(0) == 10);
}
