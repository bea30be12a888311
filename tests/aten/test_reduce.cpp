// Hand-written tests for the reduction family: error paths, NaN/inf semantics, result dtypes,
// large inputs that take the parallel and blocked paths, and numerical accuracy.
#include "op_test_util.h"
#include <cmath>
#include <limits>

namespace {

at::Tensor from_vec(const std::vector<double>& v, std::vector<int64_t> shape, at::ScalarType dt = at::kFloat) {
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(at::kDouble));
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t.to(dt);
}

at::Tensor rand_input(std::vector<int64_t> shape, at::ScalarType dt = at::kFloat, double lo = -2, double hi = 2, int seed = 7) {
  ember_test::Rng rng(seed);
  return ember_test::make_input(shape, dt, "contiguous", lo, hi, rng);
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("reduce: result dtypes follow libtorch", "[reduce]") {
  at::Tensor i32 = rand_input({3, 4}, at::kInt);
  CHECK(at::sum(i32).scalar_type() == at::kLong);
  CHECK(at::sum(i32, {1}).scalar_type() == at::kLong);
  CHECK(at::sum(rand_input({3}, at::kBool)).scalar_type() == at::kLong);
  CHECK(at::prod(i32).scalar_type() == at::kLong);
  CHECK(at::sum(i32, at::kDouble).scalar_type() == at::kDouble);
  CHECK(at::sum(rand_input({3, 4}, at::kHalf), {0}).scalar_type() == at::kHalf);
  CHECK(at::cumsum(i32, 0).scalar_type() == at::kLong);
  CHECK(at::mean(i32, at::kFloat).scalar_type() == at::kFloat);
  CHECK(at::all(i32).scalar_type() == at::kBool);
  CHECK(at::any(rand_input({3}, at::kByte, 0, 3)).scalar_type() == at::kByte);
  CHECK(at::argmax(rand_input({3, 4})).scalar_type() == at::kLong);
  CHECK(std::get<1>(at::max(rand_input({3, 4}), 1)).scalar_type() == at::kLong);
  CHECK_THROWS_WITH(at::_softmax(rand_input({3, 4}, at::kHalf), 1, true),
                    Catch::StartsWith("[softmax] expected half_to_float=false on the CPU"));  // as libtorch
  CHECK(at::softmax(rand_input({3, 4}, at::kHalf), 1, at::kFloat).scalar_type() == at::kFloat);
  CHECK(at::logsumexp(i32, {1}).scalar_type() == at::kFloat);
}

TEST_CASE("reduce: sums and products into a narrower integer or bool dtype", "[reduce]") {
  // Values recorded from libtorch 2.15: the result wraps modulo 2^bits; a bool result reads each
  // element as bool first (so 1 + -1 is true, not 0).
  CHECK(at::sum(from_vec({100, 100, 100}, {3}, at::kChar), at::kChar).item<int64_t>() == 44);
  CHECK(at::sum(from_vec({300, 300}, {2}, at::kInt), at::kByte).item<int64_t>() == 88);
  CHECK(at::prod(from_vec({300, 300}, {2}, at::kInt), at::kByte).item<int64_t>() == 144);
  CHECK(at::sum(from_vec({1, -1}, {2}, at::kInt), at::kBool).item<bool>());
  CHECK(at::sum(from_vec({1, -1}, {1, 2}, at::kInt), {1}, false, at::kBool).item<bool>());
  CHECK(at::sum(from_vec({0.5, -0.5}, {2}), at::kBool).item<bool>());
  CHECK(at::prod(from_vec({2, 128}, {2}, at::kInt), at::kBool).item<bool>());
  CHECK_FALSE(at::prod(from_vec({2, 0}, {2}, at::kInt), at::kBool).item<bool>());
  CHECK(at::sum(from_vec({300, 300}, {2}, at::kInt), at::kByte).scalar_type() == at::kByte);
}

TEST_CASE("reduce: shapes with keepdim, negative and multiple dims", "[reduce]") {
  at::Tensor x = rand_input({2, 3, 4, 5});
  CHECK(at::sum(x, {1, -1}).sizes().vec() == std::vector<int64_t>{2, 4});
  CHECK(at::sum(x, {1, -1}, true).sizes().vec() == std::vector<int64_t>{2, 1, 4, 1});
  CHECK(at::sum(x).dim() == 0);
  CHECK(at::amax(x, {}, true).sizes().vec() == std::vector<int64_t>{1, 1, 1, 1});
  CHECK(at::argmax(x, std::nullopt, true).sizes().vec() == std::vector<int64_t>{1, 1, 1, 1});
  CHECK(at::var(x, std::vector<int64_t>{0, 2}, std::optional<at::Scalar>(), true).sizes().vec() == std::vector<int64_t>{1, 3, 1, 5});
  CHECK(std::get<0>(at::topk(x, 2, 1)).sizes().vec() == std::vector<int64_t>{2, 2, 4, 5});
  CHECK(x.sum(1).sizes().vec() == std::vector<int64_t>{2, 4, 5});
}

TEST_CASE("reduce: error paths", "[reduce]") {
  at::Tensor x = rand_input({3, 4});
  CHECK_THROWS_WITH(at::sum(x, {1, -1}), Catch::Contains("[sum]") && Catch::Contains("more than once"));
  CHECK_THROWS_AS(at::sum(x, {2}), c10::Error);
  CHECK_THROWS_WITH(at::mean(rand_input({3}, at::kLong)), Catch::Contains("[mean]") && Catch::Contains("floating"));
  CHECK_THROWS_WITH(at::max(rand_input({0, 3})), Catch::Contains("[max]"));
  CHECK_THROWS_WITH(at::min(rand_input({0})), Catch::Contains("[min]"));
  CHECK_THROWS_WITH(at::max(rand_input({3, 0}), 1), Catch::Contains("[max]") && Catch::Contains("non-empty"));
  CHECK_THROWS_WITH(at::argmax(rand_input({0, 3})), Catch::Contains("[argmax]"));
  CHECK_THROWS_WITH(at::amax(rand_input({3, 0}), {1}), Catch::Contains("[amax]"));
  CHECK_THROWS_WITH(at::topk(x, 5), Catch::Contains("[topk]") && Catch::Contains("k"));
  CHECK_THROWS_WITH(at::topk(x, -1), Catch::Contains("[topk]"));
  CHECK_THROWS_AS(at::sort(x, 2), c10::Error);
  CHECK_THROWS_AS(at::cumsum(x, -3), c10::Error);
  CHECK_THROWS_WITH(at::softmax(rand_input({3}, at::kLong), 0), Catch::Contains("[softmax]"));
  CHECK_THROWS_WITH(at::var(rand_input({3}, at::kInt), std::vector<int64_t>{0}, std::optional<at::Scalar>(), false),
                    Catch::Contains("[var]") && Catch::Contains("floating"));
  CHECK_THROWS_WITH(at::norm(rand_input({3}, at::kLong), 2), Catch::Contains("[norm]"));
}

TEST_CASE("reduce: NaN propagates through max/min/argmax and sorts last", "[reduce]") {
  at::Tensor x = from_vec({1, kNaN, 5, 2, 7, 3, kNaN, 0, 9}, {3, 3});
  auto [v, i] = at::max(x, 1);
  auto vv = ember_test::to_double_vec(v), iv = ember_test::to_double_vec(i);
  CHECK(std::isnan(vv[0]));
  CHECK(iv[0] == 1);
  CHECK(vv[1] == 7);
  CHECK(iv[1] == 1);
  CHECK(std::isnan(vv[2]));
  CHECK(iv[2] == 0);
  CHECK(std::isnan(at::max(x).item<double>()));
  CHECK(std::isnan(at::amin(x, {0}).select(0, 0).item<double>()));
  CHECK(at::argmax(x).item<int64_t>() == 1);
  CHECK(at::argmin(x).item<int64_t>() == 1);
  auto sv = ember_test::to_double_vec(std::get<0>(at::sort(from_vec({3, kNaN, -1, 2}, {4}))));
  CHECK(sv[0] == -1);
  CHECK(sv[2] == 3);
  CHECK(std::isnan(sv[3]));
  auto sd = at::sort(from_vec({3, kNaN, -1, 2}, {4}), 0, true);
  CHECK(std::isnan(ember_test::to_double_vec(std::get<0>(sd))[0]));
  CHECK(ember_test::to_double_vec(std::get<1>(sd)) == std::vector<double>{1, 0, 3, 2});
  auto tk = at::topk(from_vec({3, kNaN, -1, 2}, {4}), 2);
  CHECK(ember_test::to_double_vec(std::get<1>(tk)) == std::vector<double>{1, 0});
}

TEST_CASE("reduce: ties pick the first index; sort is stable", "[reduce]") {
  at::Tensor x = from_vec({2, 5, 5, 1, 1, 5}, {6});
  CHECK(at::argmax(x).item<int64_t>() == 1);
  CHECK(at::argmin(x).item<int64_t>() == 3);
  CHECK(ember_test::to_double_vec(std::get<1>(at::sort(x))) == std::vector<double>{3, 4, 0, 1, 2, 5});
  CHECK(ember_test::to_double_vec(std::get<1>(at::sort(x, 0, true))) == std::vector<double>{1, 2, 5, 0, 3, 4});
  at::Tensor all_neg_inf = from_vec({-kInf, -kInf, -kInf}, {3});
  CHECK(at::argmax(all_neg_inf).item<int64_t>() == 0);
}

TEST_CASE("reduce: norm orders inf, -inf, 0", "[reduce]") {
  at::Tensor x = from_vec({3, -4, 0, 1}, {4});
  CHECK(at::norm(x, kInf).item<double>() == 4);
  CHECK(at::norm(x, -kInf).item<double>() == 0);
  CHECK(at::norm(x, 0).item<double>() == 3);
  CHECK(at::norm(x, 1).item<double>() == 8);
  CHECK(at::norm(x).item<double>() == Approx(std::sqrt(26.0)));
  at::Tensor y = from_vec({3, -4, 1, 2}, {2, 2});
  CHECK(ember_test::to_double_vec(at::norm(y, std::optional<at::Scalar>(kInf), {1}, false)) == std::vector<double>{4, 2});
}

// Values recorded from libtorch 2.15 (CPU): std takes the square root of the double variance
// before rounding to float32; float32 norms accumulate in float32 (a sum of squares past the float
// range is inf, squares below it flush to 0); std's gradient is 0 on a slice of equal values.
TEST_CASE("reduce: std rounds once; float32 norms overflow and underflow like libtorch", "[reduce]") {
  at::Tensor big = from_vec({1e20, -1e20, 3e19}, {3});
  CHECK(at::std(big, true).item<float>() == 1.01488917e+20f);
  CHECK(at::var(big, true).item<float>() == static_cast<float>(kInf));
  at::Tensor h = from_vec({3e19, 4e19}, {2});
  CHECK(at::norm(h).item<double>() == kInf);
  CHECK(at::norm(h, 3).item<double>() == kInf);
  CHECK(at::norm(from_vec({3e38, 3e38}, {2}), 1).item<double>() == kInf);
  CHECK(ember_test::to_double_vec(at::norm(h.view({1, 2}), std::optional<at::Scalar>(2), {1}, false)) ==
        std::vector<double>{kInf});
  CHECK(at::norm(from_vec({1e-30, 1e-30}, {2})).item<double>() == 0);
  // float64 holds both.
  CHECK(at::norm(h.to(at::kDouble)).item<double>() == Approx(5e19));
  CHECK(at::norm(from_vec({1e-30, 1e-30}, {2}, at::kDouble)).item<double>() == Approx(std::sqrt(2.0) * 1e-30));

  at::Tensor c = from_vec({2, 2, 2}, {3}).requires_grad_(true);
  at::std(c, true).backward();
  CHECK(ember_test::to_double_vec(c.grad()) == std::vector<double>{0, 0, 0});
  at::Tensor c2 = from_vec({2, 2, 1, 3}, {2, 2}).requires_grad_(true);
  at::std(c2, std::vector<int64_t>{1}, true, false).sum().backward();
  auto g = ember_test::to_double_vec(c2.grad());
  CHECK(g[0] == 0);
  CHECK(g[1] == 0);
  CHECK(g[2] == Approx(-0.70710678));
  CHECK(g[3] == Approx(0.70710678));
}

TEST_CASE("reduce: all/any and logsumexp edge cases", "[reduce]") {
  CHECK(at::all(rand_input({0})).item<bool>());
  CHECK_FALSE(at::any(rand_input({0})).item<bool>());
  CHECK(at::any(from_vec({0, 0, kNaN}, {3})).item<bool>());
  CHECK_FALSE(at::all(from_vec({1, 0, 1}, {3})).item<bool>());
  at::Tensor l = at::logsumexp(from_vec({-kInf, -kInf, 1000, 1000}, {2, 2}), {1}, false);
  auto lv = ember_test::to_double_vec(l);
  CHECK(lv[0] == -kInf);
  CHECK(lv[1] == Approx(1000 + std::log(2.0)));
  CHECK(at::logsumexp(from_vec({kInf, 1}, {2}), {0}, false).item<double>() == kInf);
  CHECK(std::isnan(at::logsumexp(from_vec({kInf, kNaN}, {2}), {0}, false).item<double>()));
  CHECK(at::logsumexp(rand_input({0, 3}), {0}, false).select(0, 1).item<double>() == -kInf);
}

TEST_CASE("reduce: sums of empty dims are 0, products 1, mean NaN", "[reduce]") {
  at::Tensor e = rand_input({0, 3});
  CHECK(ember_test::to_double_vec(at::sum(e, {0})) == std::vector<double>{0, 0, 0});
  CHECK(ember_test::to_double_vec(at::prod(e, 0)) == std::vector<double>{1, 1, 1});
  CHECK(std::isnan(at::mean(e).item<double>()));
  CHECK(at::sum(e, {1}).sizes().vec() == std::vector<int64_t>{0});
}

TEST_CASE("reduce: float32 sums accumulate in double", "[reduce]") {
  const int64_t n = 1 << 22;
  at::Tensor x = at::empty({n}, at::TensorOptions().dtype(at::kFloat));
  x.fill_(0.1);
  const double want = static_cast<double>(0.1f) * n;
  CHECK(std::fabs(at::sum(x).item<double>() - want) / want < 1e-6);
  CHECK(std::fabs(at::cumsum(x, 0).select(0, n - 1).item<double>() - want) / want < 1e-6);
  // var of a large offset: naive sum-of-squares would lose every digit.
  at::Tensor y = rand_input({100000}, at::kDouble, 1e8, 1e8 + 1);
  const double v = at::var(y, std::vector<int64_t>{0}, std::optional<at::Scalar>(1), false).item<double>();
  const double vr = ember_test::ref::var(y, std::vector<int64_t>{0}, std::optional<at::Scalar>(1), false).item<double>();
  CHECK(v == Approx(vr).epsilon(1e-6));
}

// Large inputs exercise every loop of the reduction engine (inner, outer, strided, split across
// threads) against the naive references.
TEST_CASE("reduce: large inputs take the parallel paths", "[reduce]") {
  struct Case { std::vector<int64_t> shape; std::vector<int64_t> dims; bool transpose; };
  std::vector<Case> cases = {
      {{300, 700}, {1}, false},      // inner contiguous, many outputs
      {{300, 700}, {0}, false},      // outer blocks
      {{4, 100000}, {1}, false},     // few outputs: split across threads
      {{100000, 3}, {0}, false},     // few outputs, strided
      {{200000, 16}, {0}, false},    // outer with split reduction
      {{40, 50, 60}, {0, 2}, false}, // multiple strided dims
      {{300, 700}, {1}, true},       // transposed input
      {{500, 400}, {}, false},       // all dims
      // Note [Outer reduction blocks]: rows wider than one block (16384 double sums, fewer for
      // wider accumulators such as var's) are cut into equal blocks, a multiple of the threads.
      {{5, 40000}, {0}, false},       // 3 blocks (4 with 2 threads)
      {{3, 16400}, {0}, false},       // just past one block
      {{2, 7, 16390}, {1}, false},    // blocks of several output rows
      {{9, 12000}, {0}, false},       // one block of sums, 3 of var's moments
  };
  for (auto& c : cases) {
    at::Tensor x = rand_input(c.shape);
    if (c.transpose) x = rand_input({c.shape[1], c.shape[0]}).t();
    at::Tensor xd = x.to(at::kDouble).contiguous();
    INFO("shape " << x.sizes() << " dims " << at::IntArrayRef(c.dims));
    ember_test::assert_close(at::sum(x, c.dims), ember_test::ref::sum(xd, c.dims, false), 1e-5);
    ember_test::assert_close(at::amax(x, c.dims), ember_test::ref::amax(xd, c.dims, false), 0);
    ember_test::assert_close(at::var(x, c.dims, std::optional<at::Scalar>(1), false),
                             ember_test::ref::var(xd, c.dims, std::optional<at::Scalar>(1), false), 1e-5);
    ember_test::assert_close(at::logsumexp(x, c.dims), ember_test::ref::logsumexp(xd, c.dims, false), 1e-5);
    ember_test::assert_close(at::norm(x, std::optional<at::Scalar>(3), c.dims, false),
                             ember_test::ref::norm(xd, 3, c.dims, false), 1e-5);
    if (c.dims.size() == 1) {
      auto [v, i] = at::max(x, c.dims[0]);
      ember_test::assert_close(v, ember_test::ref::amax(xd, c.dims, false), 0);
      ember_test::assert_close(at::argmax(x, c.dims[0]), i, 0);
      ember_test::assert_close(at::cumsum(x, c.dims[0]), ember_test::ref::cumsum(xd, c.dims[0]), 1e-5);
      ember_test::assert_close(at::softmax(x, c.dims[0]), ember_test::ref::softmax(xd, c.dims[0], false), 1e-5);
      ember_test::assert_close(at::log_softmax(x, c.dims[0]), ember_test::ref::softmax(xd, c.dims[0], true), 1e-5);
    }
  }
}

TEST_CASE("reduce: large sort and topk agree with each other", "[reduce]") {
  at::Tensor x = rand_input({64, 2000});
  auto [sv, si] = at::sort(x, 1, true);
  auto [tv, ti] = at::topk(x, 10, 1);
  ember_test::assert_close(tv, sv.narrow(1, 0, 10), 0);
  ember_test::assert_close(ti, si.narrow(1, 0, 10), 0);
  auto v = ember_test::to_double_vec(sv.select(0, 3));
  CHECK(std::is_sorted(v.rbegin(), v.rend()));
  auto [sv0, si0] = at::sort(x.t(), 0);
  ember_test::assert_close(sv0.t(), std::get<0>(at::sort(x, 1)), 0);
}
