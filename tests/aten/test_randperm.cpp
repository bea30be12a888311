#include <ATen/ATen.h>
#include <catch2/catch.hpp>
#include <algorithm>

TEST_CASE("randperm is a reproducible permutation", "[random]") {
  at::manual_seed(3);
  at::Tensor a = at::randperm(1000);
  CHECK(a.scalar_type() == at::kLong);
  std::vector<int64_t> v(a.data_ptr<int64_t>(), a.data_ptr<int64_t>() + 1000);
  std::vector<int64_t> s = v;
  std::sort(s.begin(), s.end());
  for (int64_t i = 0; i < 1000; ++i) REQUIRE(s[i] == i);
  int fixed = 0;
  for (int64_t i = 0; i < 1000; ++i) fixed += v[i] == i;
  CHECK(fixed < 20);  // a random permutation has ~1 fixed point
  at::manual_seed(3);
  at::Tensor b = at::randperm(1000);
  CHECK(std::equal(v.begin(), v.end(), b.data_ptr<int64_t>()));
  CHECK(at::randperm(0).numel() == 0);
  CHECK_THROWS_WITH(at::randperm(-1), Catch::StartsWith("[randperm] expected n >= 0; got -1"));
  CHECK(at::randperm(5, at::kDouble).scalar_type() == at::kDouble);
}
