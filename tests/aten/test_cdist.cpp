// cdist: forward and gradients against libtorch 2.15's output for the same calls (recorded with a
// small libtorch program, printed to 4 decimals), and against a float64 loop written here.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

namespace {
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> reals(const at::Tensor& t) {
  at::Tensor d = t.detach().to(at::kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}
void check_close(const at::Tensor& t, const std::vector<double>& want, double tol = 6e-5) {
  const std::vector<double> got = reals(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    if (std::isnan(want[i])) CHECK(std::isnan(got[i]));
    else if (std::isinf(want[i])) CHECK(got[i] == want[i]);
    else CHECK(std::abs(got[i] - want[i]) <= tol);
  }
}

struct Case {
  double p;
  std::vector<double> dist, gx1, gx2;
};
}  // namespace

TEST_CASE("cdist values and gradients match libtorch for p = 0, 0.5, 1, 1.5, 2, 3, inf", "[cdist]") {
  // Row 0 of a equals row 0 of b: the zero-distance gradient (Note [cdist gradient at zero distance]).
  auto a = torch::tensor({{0.0, 1.0, 2.0}, {1.5, -1.0, 0.5}}, at::kDouble);
  auto b = torch::tensor({{0.0, 1.0, 2.0}, {3.0, 0.0, -1.0}, {1.0, 1.0, 1.0}}, at::kDouble);
  auto g = torch::tensor({{1.0, 2.0, -1.0}, {0.5, 1.0, 3.0}}, at::kDouble);
  const std::vector<Case> cases = {  // libtorch
      {0, {0, 3, 2, 3, 3, 3}, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {0.5, {0, 19.9282, 4, 14.9282, 11.8990, 8},
       {-3.1547, 8.9282, 3.1547, 10.7609, -10.8155, -10.7609},
       {-1.5774, 1.3660, 1.5774, 7.9712, -5.4787, -7.9712, -14, 6, 14}},
      {1, {0, 7, 2, 5, 4, 3}, {-1, 2, 1, 2.5, -4.5, -2.5}, {-0.5, 0.5, 0.5, 3, -1, -3, -4, 3, 4}},
      {1.5, {0, 5.0630, 1.5874, 3.4839, 2.7956, 2.3208},
       {-0.7458, 0.8888, 0.7458, 0.9881, -3.7619, -0.9881},
       {-0.3281, 0.3788, 0.3281, 2.2720, -0.2908, -2.2720, -2.1862, 2.7850, 2.1862}},
      {2, {0, 4.3589, 1.4142, 2.9155, 2.3452, 2.1213},
       {-0.6694, 0.4588, 0.6694, 0.3248, -3.5978, -0.3248},
       {-0.2572, 0.3430, 0.2572, 2.0161, -0.0324, -2.0161, -1.4142, 2.8284, 1.4142}},
      {3, {0, 3.8030, 1.2599, 2.4524, 1.9789, 2.0206},
       {-0.6146, 0.1383, 0.6146, -0.2038, -3.5270, 0.2038},
       {-0.1871, 0.3325, 0.1871, 1.8191, 0.1171, -1.8191, -0.8137, 2.9391, 0.8137}},
      {kInf, {0, 3, 1, 2, 1.5, 2}, {-1, 0, 1, -1, -3.5, 1}, {0, 0.5, 0, 3, 0, -3, -1, 3, 1}},
  };
  for (const Case& c : cases) {
    INFO("p = " << c.p);
    auto x1 = a.clone().requires_grad_(), x2 = b.clone().requires_grad_();
    at::Tensor d = at::cdist(x1, x2, c.p);
    CHECK(d.sizes().vec() == std::vector<int64_t>{2, 3});
    check_close(d, c.dist);
    d.backward(g);
    check_close(x1.grad(), c.gx1);
    check_close(x2.grad(), c.gx2);
  }
}

TEST_CASE("cdist on the matrix-product path (p = 2, more than 25 rows) like libtorch", "[cdist]") {
  auto x1 = at::arange(60, at::kDouble).reshape({30, 2}).div(7).requires_grad_();
  auto x2 = x1.detach().slice(0, 0, 3).clone().requires_grad_();
  at::Tensor d = at::cdist(x1, x2);
  d.sum().backward();
  check_close(d.slice(0, 0, 3), {0, 0.4041, 0.8081, 0.4041, 0, 0.4041, 0.8081, 0.4041, 0});  // libtorch
  check_close(x1.grad().slice(0, 0, 3), {-1.4142, -1.4142, 0, 0, 1.4142, 1.4142});
  check_close(x2.grad(), {-20.5061, -20.5061, -19.0919, -19.0919, -17.6777, -17.6777});
  // compute_mode 2 never takes it, and agrees; compute_mode 1 always does.
  check_close(at::cdist(x1.detach(), x2.detach(), 2, 2), reals(d), 1e-6);
  auto s1 = x1.detach().slice(0, 0, 5), s2 = x2.detach();
  check_close(at::cdist(s1, s2, 2, 1), reals(at::cdist(s1, s2, 2, 2)), 1e-6);
}

TEST_CASE("cdist broadcasts batch dims and reads strided inputs (float64 loop reference)", "[cdist]") {
  at::manual_seed(5);
  auto x1 = at::randn({2, 1, 4, 3}, at::kDouble);
  auto x2 = at::randn({5, 3, 2}, at::kDouble).transpose(1, 2);  // [5, 2, 3], not contiguous
  REQUIRE(!x2.is_contiguous());
  for (double p : {1.0, 2.0, 2.5, kInf}) {
    at::Tensor d = at::cdist(x1, x2, p);
    REQUIRE(d.sizes().vec() == std::vector<int64_t>{2, 5, 4, 2});
    const std::vector<double> got = reals(d);
    auto a = x1.contiguous(), b = x2.contiguous();
    const double* pa = a.data_ptr<double>();
    const double* pb = b.data_ptr<double>();
    size_t k = 0;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 5; ++j)
        for (int r = 0; r < 4; ++r)
          for (int s = 0; s < 2; ++s, ++k) {
            double acc = 0;
            for (int m = 0; m < 3; ++m) {
              const double t = std::abs(pa[(i * 4 + r) * 3 + m] - pb[(j * 2 + s) * 3 + m]);
              acc = std::isinf(p) ? std::max(acc, t) : acc + std::pow(t, p);
            }
            const double want = std::isinf(p) ? acc : std::pow(acc, 1.0 / p);
            REQUIRE(std::abs(got[k] - want) < 1e-12);
          }
  }
}

TEST_CASE("cdist with NaN, inf and empty inputs like libtorch", "[cdist]") {
  auto a = torch::tensor({{kNan, 1.0}, {kInf, 0.0}});
  auto b = torch::tensor({{0.0, 1.0}, {kInf, 0.0}});
  check_close(at::cdist(a, b, 2), {kNan, kNan, kInf, kNan});  // libtorch
  check_close(at::cdist(a, b, kInf), {0, 1, kInf, 0});         // libtorch: NaN coordinates skipped
  check_close(at::cdist(a, b, 1), {kNan, kNan, kInf, kNan});
  check_close(at::cdist(a, b, 0), {kNan, kNan, 2, kNan});
  at::Tensor e = at::cdist(at::ones({2, 0}), at::ones({3, 0}));
  CHECK(e.sizes().vec() == std::vector<int64_t>{2, 3});
  check_close(e, {0, 0, 0, 0, 0, 0});
  CHECK(at::cdist(at::ones({0, 2}), at::ones({3, 2})).sizes().vec() == std::vector<int64_t>{0, 3});
  CHECK(at::cdist(at::ones({2, 1, 4, 3}), at::ones({5, 2, 3})).sizes().vec() == std::vector<int64_t>{2, 5, 4, 2});
  CHECK(at::cdist(at::ones({2, 3}), at::ones({2, 3})).scalar_type() == at::kFloat);
}

TEST_CASE("cdist rejects bad arguments", "[cdist]") {
  using Catch::StartsWith;
  CHECK_THROWS_WITH(at::cdist(at::ones({3}), at::ones({2, 3})), StartsWith("[cdist] expected x1 and x2 of at least 2 dims"));
  CHECK_THROWS_WITH(at::cdist(at::ones({2, 3}), at::ones({2, 4})), StartsWith("[cdist] expected x1 and x2 with the same number of columns; got 3 and 4"));
  CHECK_THROWS_WITH(at::cdist(at::ones({2, 3}), at::ones({2, 3}), -1), StartsWith("[cdist] expected p >= 0; got -1"));
  CHECK_THROWS_WITH(at::cdist(at::ones({2, 3}, at::kLong), at::ones({2, 3}, at::kLong)), StartsWith("[cdist] expected floating-point x1 and x2"));
  CHECK_THROWS_WITH(at::cdist(at::ones({2, 3}), at::ones({2, 3}, at::kDouble)), StartsWith("[cdist] expected x1 and x2 of one dtype"));
  CHECK_THROWS_WITH(at::cdist(at::ones({2, 3}), at::ones({2, 3}), 2, 3), StartsWith("[cdist] expected compute_mode None, 0, 1 or 2; got 3"));
  CHECK_THROWS_WITH(at::cdist(at::ones({2, 4, 3}), at::ones({3, 2, 3})), StartsWith("[cdist]"));
}
