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
