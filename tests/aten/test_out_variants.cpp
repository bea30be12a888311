// The generated out= forms of non-pointwise ops (Note [Composite out= variants] in
// ATen/native/OutVariants.h): values against float64 sums written here, the rules on dtype, device,
// shape, strides, aliasing and autograd, and the libtorch spellings (out first, and the _outf form
// with out last). The generated op tests compare every such form with its functional op as well.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include "op_test_util.h"
#include <catch2/catch.hpp>
#include <vector>

namespace {
using Catch::StartsWith;

std::vector<double> values_of(const at::Tensor& t) {
  at::Tensor c = t.to(at::kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// a [n, k] @ b [k, m] in double, element by element, from the tensors' values.
std::vector<double> matmul_ref(const at::Tensor& a, const at::Tensor& b) {
  const int64_t n = a.size(0), k = a.size(1), m = b.size(1);
  std::vector<double> av = values_of(a), bv = values_of(b), r(static_cast<size_t>(n * m), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      for (int64_t p = 0; p < k; ++p) r[static_cast<size_t>(i * m + j)] += av[static_cast<size_t>(i * k + p)] * bv[static_cast<size_t>(p * m + j)];
  return r;
}

void check_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
}
}  // namespace

TEST_CASE("mm_out, cat_out, sum_out write the values into out", "[out_variants]") {
  at::Tensor a = at::arange(12, at::kFloat).reshape({3, 4}) * 0.25 - 1;
  at::Tensor b = at::arange(8, at::kFloat).reshape({4, 2}) - 3;
  at::Tensor out = at::empty({0});
  at::Tensor& r = at::mm_out(out, a, b);
  CHECK(r.is_same(out));
  CHECK(out.sizes().vec() == std::vector<int64_t>{3, 2});
  check_near(values_of(out), matmul_ref(a, b), 1e-6);

  // _outf: the same op with out last
  at::Tensor out2 = at::empty({3, 2});
  at::mm_outf(a, b, out2);
  check_near(values_of(out2), matmul_ref(a, b), 1e-6);

  at::Tensor c = at::empty({0});
  at::cat_out(c, {at::ones({2, 2}), at::zeros({1, 2})}, 0);
  CHECK(values_of(c) == std::vector<double>{1, 1, 1, 1, 0, 0});
  at::Tensor st = at::empty({0});
  at::stack_out(st, {at::ones({2}), at::zeros({2})}, 1);
  CHECK(st.sizes().vec() == std::vector<int64_t>{2, 2});
  CHECK(values_of(st) == std::vector<double>{1, 0, 1, 0});

  at::Tensor s = at::empty({0});
  at::sum_out(s, a, {1}, /*keepdim=*/true);
  CHECK(s.sizes().vec() == std::vector<int64_t>{3, 1});
  std::vector<double> av = values_of(a), want(3, 0.0);
  for (int i = 0; i < 12; ++i) want[static_cast<size_t>(i / 4)] += av[static_cast<size_t>(i)];
  check_near(values_of(s), want, 1e-6);
  // an integer result: argmax writes int64
  at::Tensor idx = at::empty({0}, at::kLong);
  at::argmax_out(idx, a, 1);
  CHECK(values_of(idx) == std::vector<double>{3, 3, 3});
}

TEST_CASE("a composite out= keeps the strides of an out of the right shape and resizes any other", "[out_variants]") {
  at::Tensor a = at::arange(6, at::kFloat).reshape({2, 3}), b = at::arange(6, at::kFloat).reshape({3, 2});
  // transposed storage, right shape: written through its strides
  at::Tensor out = at::empty({2, 2}).t();
  const std::vector<int64_t> strides = out.strides().vec();
  at::mm_out(out, a, b);
  CHECK(out.strides().vec() == strides);
  check_near(values_of(out), matmul_ref(a, b), 0);
  // a non-empty out of another shape takes the result's
  at::Tensor big = at::full({5, 7}, 3.0);
  at::mm_out(big, a, b);
  CHECK(big.sizes().vec() == std::vector<int64_t>{2, 2});
  check_near(values_of(big), matmul_ref(a, b), 0);
  // an empty result
  at::Tensor e = at::full({3}, 1.0);
  at::mm_out(e, at::ones({0, 4}), at::ones({4, 2}));
  CHECK(e.sizes().vec() == std::vector<int64_t>{0, 2});
}

// (libtorch refuses some of these, cat_out(x, {x, x}) among them; the value here is computed
// before out is written, so any aliasing gives the functional result.)
TEST_CASE("a composite out= may be one of its own inputs", "[out_variants]") {
  at::Tensor a = at::arange(9, at::kFloat).reshape({3, 3}) - 4, b = at::arange(9, at::kFloat).reshape({3, 3}).t() * 0.5;
  const std::vector<double> want = matmul_ref(a, b);
  at::mm_out(a, a, b);  // a kernel that wrote a while reading it would see its own partial results
  check_near(values_of(a), want, 1e-6);
  at::Tensor x = at::arange(4, at::kFloat);
  at::cat_out(x, {x, x}, 0);
  CHECK(values_of(x) == std::vector<double>{0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("a composite out= converts to a wider out dtype; one with a dtype argument computes in out's", "[out_variants]") {
  // 2^24 + 1 is not a float: summed in double, the 1s are kept whatever the order
  at::Tensor a = at::tensor(std::vector<float>{16777216.0f, 1.0f, 1.0f});
  at::Tensor d = at::empty({0}, at::kDouble);
  at::sum_out(d, a);
  CHECK(d.scalar_type() == at::kDouble);
  CHECK(values_of(d) == std::vector<double>{16777218.0});
  // an integer sum into int32 stays int32 (the functional one would give int64)
  at::Tensor i32 = at::empty({0}, at::kInt);
  at::cumsum_out(i32, at::tensor(std::vector<int32_t>{1, 2, 3}, at::kInt), 0);
  CHECK(i32.scalar_type() == at::kInt);
  CHECK(values_of(i32) == std::vector<double>{1, 3, 6});
  // no dtype argument: the float product, converted
  at::Tensor m = at::empty({0}, at::kDouble);
  at::mm_out(m, at::full({1, 1}, 0.1f), at::full({1, 1}, 3.0f));
  CHECK(values_of(m) == std::vector<double>{static_cast<double>(0.1f * 3.0f)});
  // cat into a wider dtype
  at::Tensor c = at::empty({0}, at::kDouble);
  at::cat_out(c, {at::ones({1}), at::zeros({1})}, 0);
  CHECK(c.scalar_type() == at::kDouble);
  CHECK(values_of(c) == std::vector<double>{1, 0});
}

TEST_CASE("a composite out= refuses a narrower dtype, an expanded out and inputs that require grad", "[out_variants]") {
  at::Tensor a = at::ones({2, 3}), b = at::ones({3, 2});
  at::Tensor l = at::empty({2, 2}, at::kLong);
  CHECK_THROWS_WITH(at::mm_out(l, a, b),
                    StartsWith("[mm_out] expected an out dtype that the result dtype Float can be cast to; got out dtype Long"));
  at::Tensor bo = at::empty({0}, at::kBool);
  CHECK_THROWS_WITH(at::cat_out(bo, {a, a}, 0), StartsWith("[cat_out] expected an out dtype that the result dtype Float"));
  at::Tensor ex = at::zeros({2, 1}).expand({2, 2});
  CHECK_THROWS_WITH(at::mm_out(ex, a, b), StartsWith("[mm_out]"));
  at::Tensor u;
  CHECK_THROWS_WITH(at::mm_out(u, a, b), StartsWith("[mm_out] expected a defined tensor for argument 'out'"));

  at::Tensor w = at::ones({3, 2}).requires_grad_(true);
  at::Tensor o = at::empty({0});
  CHECK_THROWS_WITH(at::mm_out(o, a, w), StartsWith("[mm_out] expected inputs that do not require grad"));
  CHECK_THROWS_WITH(at::cat_out(o, {a, w.t()}, 0), StartsWith("[cat_out] expected inputs that do not require grad"));
  at::Tensor og = at::empty({2, 2}).requires_grad_(true);
  CHECK_THROWS_WITH(at::mm_out(og, a, b), StartsWith("[mm_out] expected an out tensor that does not require grad"));
  {
    // without grad mode nothing is recorded, so nothing is refused
    at::NoGradGuard no_grad;
    at::mm_out(o, a, w);
    CHECK(values_of(o) == std::vector<double>{3, 3, 3, 3});
    CHECK_FALSE(o.requires_grad());
  }
}

TEST_CASE("a composite out= moves out's version counter once", "[out_variants]") {
  at::Tensor out = at::empty({2, 2});
  const auto v = out._version();
  at::mm_out(out, at::ones({2, 3}), at::ones({3, 2}));
  CHECK(out._version() == v + 1u);
}

TEST_CASE("torch:: spellings of the composite out= forms", "[out_variants]") {
  torch::Tensor a = torch::ones({2, 2}), out = torch::empty({0});
  torch::matmul_out(out, a, a);
  CHECK(values_of(out) == std::vector<double>{2, 2, 2, 2});
  torch::Tensor sel = torch::empty({0});
  torch::index_select_out(sel, torch::arange(6, torch::kFloat).reshape({3, 2}), 0, torch::tensor({2, 0}, torch::kLong));
  CHECK(values_of(sel) == std::vector<double>{4, 5, 0, 1});
}
