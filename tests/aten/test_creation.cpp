// Factory functions: values, dtype inference, layouts, from_blob and at::tensor.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

namespace {
std::vector<double> values(const at::Tensor& t) {
  at::Tensor d = t.to(at::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}
}  // namespace

TEST_CASE("zeros/ones/full values and dtypes", "[creation]") {
  auto z = torch::zeros({2, 3});
  CHECK(z.sizes().vec() == std::vector<int64_t>{2, 3});
  CHECK(z.scalar_type() == at::kFloat);
  CHECK(values(z) == std::vector<double>(6, 0.0));
  auto o = torch::ones({4}, torch::kInt32);
  CHECK(o.scalar_type() == at::kInt);
  CHECK(values(o) == std::vector<double>(4, 1.0));
  CHECK(torch::ones({}).dim() == 0);
  CHECK(torch::zeros({0, 3}).numel() == 0);

  CHECK(torch::full({2}, 7).scalar_type() == at::kLong);
  CHECK(torch::full({2}, 2.5).scalar_type() == at::kFloat);
  CHECK(torch::full({2}, true).scalar_type() == at::kBool);
  CHECK(torch::full({2}, 1.5, torch::kDouble).scalar_type() == at::kDouble);
  CHECK(values(torch::full({3}, -2.5)) == std::vector<double>(3, -2.5));
  CHECK_THROWS_AS(torch::zeros({-1, 2}), c10::Error);
}

TEST_CASE("arange", "[creation]") {
  auto a = torch::arange(5);
  CHECK(a.scalar_type() == at::kLong);
  CHECK(values(a) == std::vector<double>{0, 1, 2, 3, 4});
  auto b = torch::arange(1, 4);
  CHECK(values(b) == std::vector<double>{1, 2, 3});
  auto c = torch::arange(0, 10, 3);
  CHECK(values(c) == std::vector<double>{0, 3, 6, 9});
  auto d = torch::arange(10, 0, -3);
  CHECK(values(d) == std::vector<double>{10, 7, 4, 1});
  auto e = torch::arange(0.0, 1.0, 0.25);
  CHECK(e.scalar_type() == at::kFloat);
  CHECK(values(e) == std::vector<double>{0, 0.25, 0.5, 0.75});
  CHECK(torch::arange(2.5).numel() == 3);
  CHECK(torch::arange(5, torch::kDouble).scalar_type() == at::kDouble);
  CHECK(torch::arange(3, 3).numel() == 0);
  CHECK_THROWS_WITH(torch::arange(0, 5, 0), Catch::Contains("[arange]") && Catch::Contains("expected a nonzero step"));
  CHECK_THROWS_WITH(torch::arange(5, 0, 1), Catch::Contains("[arange]") && Catch::Contains("of the same sign as step"));
  CHECK_THROWS_AS(torch::arange(0, 5, -1), c10::Error);
}

TEST_CASE("linspace", "[creation]") {
  auto l = torch::linspace(-1, 2, 7);
  CHECK(l.scalar_type() == at::kFloat);
  auto v = values(l);
  REQUIRE(v.size() == 7);
  for (int i = 0; i < 7; ++i) CHECK(v[i] == Approx(-1.0 + 0.5 * i));
  CHECK(v.front() == -1.0);
  CHECK(v.back() == 2.0);
  CHECK(values(torch::linspace(3, 9, 1)) == std::vector<double>{3});
  CHECK(torch::linspace(0, 1, 0).numel() == 0);
  CHECK_THROWS_WITH(torch::linspace(0, 1, -2), Catch::Contains("[linspace]"));
}

TEST_CASE("logspace: integer and reduced dtypes, one step, refusals", "[creation]") {
  // Values printed by libtorch 2.15 for the same calls (the float ones are in tests/golden/ops.golden).
  CHECK(values(torch::logspace(0, 10, 11, 2.0, torch::kLong)) ==
        std::vector<double>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024});
  // 10^3 does not fit int8: stored as libtorch's cast stores it on x86 (1000 mod 256 = 232 = -24).
  CHECK(values(torch::logspace(0, 3, 4, 10, torch::kInt8)) == std::vector<double>{1, 10, 100, -24});
  CHECK(values(torch::logspace(1.5, -1, 6, 2, torch::kHalf)) ==
        std::vector<double>{2.828125, 2.0, 1.4140625, 1.0, 0.70703125, 0.5});
  CHECK(values(torch::logspace(3, 1, 1)) == std::vector<double>{1000});  // one step: base ** start
  CHECK_THROWS_AS(torch::logspace(3, 3, 1, 10, torch::kInt8), c10::Error);  // 1000 is not an int8 (libtorch refuses too)
  CHECK(torch::logspace(0, 1, 0).sizes() == at::IntArrayRef({0}));
  CHECK(torch::logspace(0, 1, 3).scalar_type() == at::kFloat);
  // An integer logspace steps between the ends converted to the dtype: 0.5 -> 0 and 2.9 -> 2.
  CHECK(values(torch::logspace(0.5, 2.9, 3, 10, torch::kInt)) == std::vector<double>{1, 10, 100});
  CHECK_THROWS_WITH(torch::logspace(0, 1, -1), Catch::StartsWith("[logspace] expected a non-negative number of steps; got -1"));
  CHECK_THROWS_WITH(torch::logspace(0, 1, 3, 10, torch::kBool), Catch::StartsWith("[logspace] expected a numeric dtype; got bool"));
}

TEST_CASE("eye", "[creation]") {
  auto e = torch::eye(3);
  CHECK(values(e) == std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  auto r = torch::eye(2, 3, torch::kInt64);
  CHECK(r.scalar_type() == at::kLong);
  CHECK(values(r) == std::vector<double>{1, 0, 0, 0, 1, 0});
  CHECK(torch::eye(0).numel() == 0);
  CHECK_THROWS_WITH(torch::eye(-1), Catch::Contains("[eye]"));
}

TEST_CASE("*_like keep shape, dtype and dense layout", "[creation]") {
  auto base = torch::ones({3, 4}, torch::kDouble).t();  // transposed, dense
  auto e = torch::empty_like(base);
  CHECK(e.sizes() == base.sizes());
  CHECK(e.strides() == base.strides());
  CHECK(e.scalar_type() == at::kDouble);
  auto ec = torch::empty_like(base, {}, at::MemoryFormat::Contiguous);
  CHECK(ec.is_contiguous());
  auto z = torch::zeros_like(base);
  CHECK(values(z) == std::vector<double>(12, 0.0));
  auto o = torch::ones_like(base, torch::kInt32);
  CHECK(o.scalar_type() == at::kInt);
  CHECK(values(o) == std::vector<double>(12, 1.0));
  auto f = torch::full_like(base, 3.5);
  CHECK(f.scalar_type() == at::kDouble);
  CHECK(values(f) == std::vector<double>(12, 3.5));
  // A strided (non-dense) input gives a contiguous result.
  auto s = torch::ones({4, 6}).slice(1, 0, 6, 2);
  CHECK(torch::empty_like(s).is_contiguous());
}

TEST_CASE("zeros clears reused memory for every dtype, small (memset) and large (fill_)", "[creation]") {
  // Note [Small zeros]: the allocator hands back freed blocks, so fill one with ones first; the
  // reference is each element's value read as double, compared with 0 (a wrong zero byte pattern,
  // e.g. -0.0 or a bool 2, would not read as 0 or would differ bitwise below).
  for (auto dt : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kByte, at::kChar, at::kShort, at::kInt,
                  at::kLong, at::kBool}) {
    for (int64_t n : {1, 6, 32768, 32769, 100000}) {
      { auto dirty = torch::full({n}, 1, torch::TensorOptions().dtype(dt)); }
      auto z = torch::zeros({n}, torch::TensorOptions().dtype(dt));
      CHECK(z.scalar_type() == dt);
      CHECK(z._version() == 0);
      auto v = values(z);
      CHECK(std::count(v.begin(), v.end(), 0.0) == n);
      CHECK(!std::signbit(v[static_cast<size_t>(n - 1)]));
    }
  }
  CHECK(torch::zeros({2, 0, 3}).sizes().vec() == std::vector<int64_t>{2, 0, 3});
  CHECK(torch::zeros({}).item<float>() == 0.0f);
}

TEST_CASE("zero_ in place", "[creation]") {
  auto t = torch::ones({2, 3});
  auto v = t._version();
  auto& r = t.zero_();
  CHECK(r.is_same(t));
  CHECK(t._version() > v);
  CHECK(values(t) == std::vector<double>(6, 0.0));
  auto u = torch::ones({4});
  at::zero_(u);
  CHECK(values(u) == std::vector<double>(4, 0.0));
}

TEST_CASE("from_blob wraps memory without copying", "[creation]") {
  float buf[6] = {0, 1, 2, 3, 4, 5};
  auto t = torch::from_blob(buf, {2, 3});
  CHECK(t.data_ptr() == static_cast<void*>(buf));
  CHECK(t.scalar_type() == at::kFloat);
  CHECK(values(t) == std::vector<double>{0, 1, 2, 3, 4, 5});
  buf[4] = 40;
  CHECK(t[1][1].item<float>() == 40.0f);

  auto s = torch::from_blob(buf, {3, 2}, {1, 3});  // transposed view of buf
  CHECK(values(s) == std::vector<double>{0, 3, 1, 40, 2, 5});

  int64_t ibuf[4] = {1, 2, 3, 4};
  auto it = torch::from_blob(ibuf, {4}, torch::kInt64);
  CHECK(it.scalar_type() == at::kLong);
  CHECK(it.sum().item<int64_t>() == 10);

  int calls = 0;
  void* seen = nullptr;
  {
    auto d = torch::from_blob(buf, {6}, [&](void* p) { ++calls; seen = p; });
    auto view = d.slice(0, 1, 3);
    d.reset();
    CHECK(calls == 0);  // the view keeps the storage alive
  }
  CHECK(calls == 1);
  CHECK(seen == static_cast<void*>(buf));
  CHECK_THROWS_AS(torch::from_blob(buf, {2, 3}).resize_({100}), c10::Error);
}

TEST_CASE("tensor from braced lists and vectors", "[creation]") {
  auto a = torch::tensor({1.0, 2.0, 3.5});
  CHECK(a.scalar_type() == at::kFloat);
  CHECK(a.sizes().vec() == std::vector<int64_t>{3});
  CHECK(values(a) == std::vector<double>{1.0, 2.0, 3.5});

  auto b = torch::tensor({{1, 2}, {3, 4}, {5, 6}});
  CHECK(b.scalar_type() == at::kLong);
  CHECK(b.sizes().vec() == std::vector<int64_t>{3, 2});
  CHECK(values(b) == std::vector<double>{1, 2, 3, 4, 5, 6});

  auto c = torch::tensor({true, false});
  CHECK(c.scalar_type() == at::kBool);

  auto d = torch::tensor({1, 2}, torch::kDouble);
  CHECK(d.scalar_type() == at::kDouble);
  CHECK(values(d) == std::vector<double>{1, 2});

  auto s = torch::tensor(2.5);
  CHECK(s.dim() == 0);
  CHECK(s.item<double>() == 2.5);

  std::vector<float> vf{1.5f, -2.f};
  auto v = torch::tensor(vf);
  CHECK(v.scalar_type() == at::kFloat);
  CHECK(values(v) == std::vector<double>{1.5, -2.0});
  vf[0] = 9;  // a copy, not a view
  CHECK(v[0].item<float>() == 1.5f);
  std::vector<int32_t> vi{1, 2, 3};
  CHECK(torch::tensor(vi).scalar_type() == at::kInt);
  CHECK(torch::tensor(at::ArrayRef<double>(std::vector<double>{1, 2})).scalar_type() == at::kDouble);

  CHECK(torch::tensor({}).numel() == 0);
  CHECK_THROWS_WITH(torch::tensor({{1, 2}, {3}}), Catch::Contains("[tensor]"));
}
