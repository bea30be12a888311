// Issue #6: the in-place composites and new_empty of the libtorch frontend (the generated op tests
// cover the functional forms against libtorch's records), written as a libtorch program would be.
#include <torch/torch.h>
#include "op_test_util.h"
#include <catch2/catch.hpp>

namespace {
bool fe_same(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() && at::equal(a, b);
}
}  // namespace

TEST_CASE("frontend in-place composites equal their functional forms", "[frontend]") {
  torch::Tensor x = torch::linspace(-2.5, 2.5, 12).reshape({3, 4});
  torch::Tensor y = x.clone();
  CHECK(fe_same(y.square_(), torch::square(x)));
  y = x.clone();
  torch::square_(y);
  CHECK(fe_same(y, x.square()));
  y = x.clone();
  CHECK(fe_same(y.clip_(-0.5, 0.5), torch::clip(x, -0.5, 0.5)));
  CHECK(fe_same(y, x.clamp(-0.5, 0.5)));
  y = x.clone();
  CHECK(fe_same(y.fix_(), torch::trunc(x)));

  torch::Tensor index = torch::tensor({2, 0, 2}, torch::kLong);
  torch::Tensor source = torch::ones({3, 4});
  y = x.clone();
  y.index_add_(0, index, source, 2);
  CHECK(fe_same(y, torch::index_add(x, 0, index, source, 2)));
  CHECK(y[2][0].item<double>() == Approx(x[2][0].item<double>() + 4));
  CHECK(y[1][0].item<double>() == x[1][0].item<double>());

  y = x.clone();
  y.index_fill_(1, torch::tensor({-1, 0}, torch::kLong), -7.0);
  CHECK(fe_same(y, x.index_fill(1, torch::tensor({3, 0}, torch::kLong), -7.0)));
  CHECK(y[1][3].item<double>() == -7.0);
  y = x.clone();
  y.index_fill_(0, torch::tensor({1}, torch::kLong), torch::tensor(3.0));
  CHECK(fe_same(y, x.index_fill(0, torch::tensor({1}, torch::kLong), torch::tensor(3.0))));
  CHECK(torch::all(y[1] == 3).item<bool>());
  // An index past the end is an IndexError, as for libtorch.
  CHECK_THROWS_AS(x.index_fill(0, torch::tensor({3}, torch::kLong), 1.0), c10::IndexError);
}

TEST_CASE("frontend in-place composites record autograd history", "[frontend]") {
  torch::Tensor a = torch::randn({3, 4}, torch::kDouble).requires_grad_(true);
  torch::Tensor b = a.clone();
  b.index_fill_(1, torch::tensor({0, 2}, torch::kLong), 0.0);
  b.square_();
  b.sum().backward();
  torch::Tensor expected = 2 * a.detach();
  expected.index_fill_(1, torch::tensor({0, 2}, torch::kLong), 0.0);
  CHECK(torch::allclose(a.grad(), expected));
}

TEST_CASE("new_empty and the new_* factories take self's options unless given", "[frontend]") {
  torch::Tensor t = torch::zeros({2}, torch::kDouble);
  torch::Tensor e = t.new_empty({3, 5});
  CHECK(e.sizes() == torch::IntArrayRef({3, 5}));
  CHECK(e.scalar_type() == torch::kDouble);
  CHECK(e.device() == t.device());
  CHECK(t.new_empty({4}, torch::kInt).scalar_type() == torch::kInt);
  CHECK(t.new_zeros({2, 2}).scalar_type() == torch::kDouble);
  CHECK(t.new_ones({2}, torch::TensorOptions().dtype(torch::kLong)).sum().item<int64_t>() == 2);
  CHECK(t.new_full({3}, 7).sum().item<double>() == 21.0);
}

TEST_CASE("frontend errors start with the op's name", "[frontend]") {
  torch::Tensor x = torch::ones({3, 4});
  CHECK(ember_test::error_of([&] { torch::movedim(x, {0, 0}, {0, 1}); }).rfind("[movedim] expected", 0) == 0);
  CHECK(ember_test::error_of([&] { torch::rot90(x, 1, {0, 0}); }).rfind("[rot90] expected", 0) == 0);
  CHECK(ember_test::error_of([&] { torch::meshgrid({x}, "ji"); }).rfind("[meshgrid] expected", 0) == 0);
  CHECK(ember_test::error_of([&] { x.kthvalue(5, 1); }).rfind("[kthvalue] expected", 0) == 0);
  CHECK(ember_test::error_of([&] { torch::cross(torch::ones({2, 4}), torch::ones({2, 4})); }).rfind("[cross] expected", 0) == 0);
  CHECK(ember_test::error_of([&] { x.unflatten(1, {3, -1}); }).rfind("[unflatten] expected", 0) == 0);
  CHECK(ember_test::error_of([&] { torch::nanmean(torch::ones({2}, torch::kLong)); }).rfind("[nanmean] expected", 0) == 0);
}

// Values below are libtorch 2.15's (recorded by running the same calls in torch 2.15.0).
TEST_CASE("overloads: floor_divide_ and div_ with a rounding mode, in place", "[frontend]") {
  torch::Tensor a = torch::tensor({7, -7, 9}, torch::kLong);
  a.floor_divide_(2);
  CHECK(fe_same(a, torch::tensor({3, -4, 4}, torch::kLong)));
  a = torch::tensor({7, -7, 9}, torch::kLong);
  a.floor_divide_(torch::tensor({2, 2, -4}, torch::kInt));
  CHECK(fe_same(a, torch::tensor({3, -4, -3}, torch::kLong)));
  // int64 // 2.5 promotes to float32, which may not be written into the int64 tensor
  a = torch::tensor({7, -7, 9}, torch::kLong);
  CHECK(ember_test::error_of([&] { a.floor_divide_(2.5); }).rfind("[floor_divide_] expected", 0) == 0);
  CHECK(fe_same(a, torch::tensor({7, -7, 9}, torch::kLong)));  // untouched
  CHECK(ember_test::error_of([&] { a.floor_divide_(0); }).rfind("[floor_divide] integer division by zero", 0) == 0);
  // the number promotes as a wrapped number: int64 // 2.5 is float32, float16 stays float16
  CHECK(fe_same(torch::floor_divide(torch::tensor({7, -7, 9}, torch::kLong), 2.5), torch::tensor({2.f, -3.f, 3.f})));
  CHECK(torch::floor_divide(torch::ones({2}, torch::kHalf), 2.5).scalar_type() == torch::kHalf);
  CHECK(torch::floor_divide(torch::ones({2}, torch::kInt), 2).scalar_type() == torch::kInt);
  torch::Tensor f = torch::tensor({7.0, -7.0, 0.0});
  f.floor_divide_(0);
  CHECK(f[0].item<float>() == INFINITY);
  CHECK(f[1].item<float>() == -INFINITY);
  CHECK(std::isnan(f[2].item<float>()));
  // floating floor division is Python's (and libtorch's) float //, not floor(a / b): 1.0 // 0.1 is 9
  // (1.0 / 0.1 rounds to 10), inf // x is NaN, -5 // inf is -1, a zero quotient keeps the sign of a / b
  torch::Tensor num = torch::tensor({1.0, -1.0, INFINITY, 5.0, -5.0, -0.0, 0.0}, torch::kDouble);
  torch::Tensor den = torch::tensor({0.1, 0.1, 0.75, INFINITY, INFINITY, 3.0, -3.0}, torch::kDouble);
  for (torch::Tensor q : {torch::floor_divide(num, den), torch::div(num, den, "floor"),
                          torch::floor_divide(num.to(torch::kFloat), den.to(torch::kFloat)).to(torch::kDouble)}) {
    CHECK(q[0].item<double>() == 9.0);
    CHECK(q[1].item<double>() == -10.0);
    CHECK(std::isnan(q[2].item<double>()));
    CHECK(q[3].item<double>() == 0.0);
    CHECK(q[4].item<double>() == -1.0);
    CHECK((q[5].item<double>() == 0.0 && std::signbit(q[5].item<double>())));
    CHECK((q[6].item<double>() == 0.0 && std::signbit(q[6].item<double>())));
  }

  torch::Tensor d = torch::tensor({7.0, -7.0, 9.0});
  d.div_(2, "floor");
  CHECK(fe_same(d, torch::tensor({3.f, -4.f, 4.f})));
  d = torch::tensor({7, -7, 9}, torch::kLong);
  d.div_(2, "trunc");
  CHECK(fe_same(d, torch::tensor({3, -3, 4}, torch::kLong)));
  d = torch::tensor({7, -7, 9}, torch::kLong);
  CHECK(ember_test::error_of([&] { d.div_(2, std::nullopt); }).rfind("[div_] expected", 0) == 0);
  d = torch::tensor({-7.5, 7.5});
  d.div_(torch::tensor({2.0, -2.0}), "trunc");
  CHECK(fe_same(d, torch::tensor({-3.f, -3.f})));
}

TEST_CASE("overloads: round with decimals, squeeze of several dims, sort(stable)", "[frontend]") {
  // half to even at every scale: 1.25 -> 1.2, 250 -> 200, 350 -> 400 (libtorch: the same)
  torch::Tensor x = torch::tensor({2.5, -0.5, 1.25, 1e30, INFINITY, NAN, -0.0});
  torch::Tensor r = torch::round(x, 1);
  const std::vector<float> want = {2.5f, -0.5f, 1.2f, 1e30f};
  for (size_t i = 0; i < want.size(); ++i) CHECK(r[static_cast<int64_t>(i)].item<float>() == want[i]);
  CHECK(std::isinf(r[4].item<float>()));
  CHECK(std::isnan(r[5].item<float>()));
  CHECK((r[6].item<float>() == 0 && std::signbit(r[6].item<float>())));
  CHECK(fe_same(torch::round(torch::tensor({1234.5, 250., 350.}), -2), torch::tensor({1200.f, 200.f, 400.f})));
  torch::Tensor y = torch::tensor({0.125, 0.135}, torch::kDouble);
  y.round_(2);
  CHECK(fe_same(y, torch::tensor({0.12, 0.14}, torch::kDouble)));
  CHECK(ember_test::error_of([&] { torch::round(torch::ones({2}, torch::kLong), 1); }).rfind("[round] expected", 0) == 0);
  // no gradient through rounding: zeros, as libtorch
  torch::Tensor g = torch::tensor({1.0, 2.0}, torch::kDouble).requires_grad_(true);
  torch::round(g * 3.3, 1).sum().backward();
  CHECK(fe_same(g.grad(), torch::zeros({2}, torch::kDouble)));

  torch::Tensor z = torch::zeros({3, 1, 4, 1});
  CHECK(z.squeeze(torch::IntArrayRef{1, 3}).sizes() == torch::IntArrayRef({3, 4}));
  CHECK(z.squeeze(torch::IntArrayRef{0, -1}).sizes() == torch::IntArrayRef({3, 1, 4}));
  torch::Tensor same = z.squeeze(torch::IntArrayRef{});
  CHECK(same.sizes() == z.sizes());
  CHECK(same.is_alias_of(z));
  CHECK(ember_test::error_of([&] { z.squeeze(torch::IntArrayRef{1, 1}); }).rfind("[squeeze] expected", 0) == 0);
  CHECK_THROWS_AS(z.squeeze(torch::IntArrayRef{1, 4}), c10::IndexError);
  CHECK(torch::zeros({}).squeeze(torch::IntArrayRef{-1}).dim() == 0);
  // a view: writes go through
  torch::Tensor v = z.squeeze(torch::IntArrayRef{1, 3});
  v[2][3].fill_(5.0);
  CHECK(z[2][0][3][0].item<float>() == 5.0f);

  auto [vals, idx] = torch::sort(torch::tensor({2, 1, 2, 1, 0}, torch::kLong), /*stable=*/true, 0, /*descending=*/true);
  CHECK(fe_same(vals, torch::tensor({2, 2, 1, 1, 0}, torch::kLong)));
  CHECK(fe_same(idx, torch::tensor({0, 2, 1, 3, 4}, torch::kLong)));
}
