// torch::nn::utils (clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters)
// against hand computation and libtorch 2.15's recorded results, and the structured initialisers
// init::orthogonal_, sparse_ and dirac_ by their defining properties.
#include <catch2/catch.hpp>
#include <torch/torch.h>

#include <cmath>
#include <limits>

namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using torch::Tensor;
namespace U = torch::nn::utils;
namespace I = torch::nn::init;

Tensor param_with_grad(Tensor value, Tensor grad) {
  value.requires_grad_(true);
  value.mutable_grad() = grad;
  return value;
}

}  // namespace

TEST_CASE("clip_grad_norm_: the 2-norm over all gradients, as libtorch", "[nn][utils]") {
  // libtorch 2.15: grads {3,3,3,3} and {4,0,-12}: total sqrt(36 + 160) = 14; each grad scaled by 1 / (14 + 1e-6).
  const auto D = torch::kDouble;
  auto p1 = param_with_grad(torch::ones({2, 2}, D), torch::full({2, 2}, 3.0, D));
  auto p2 = param_with_grad(torch::ones({3}, D), torch::tensor({4.0, 0.0, -12.0}, torch::kDouble));
  auto none = torch::ones({2}, D).requires_grad_(true);  // no gradient: skipped
  const double total = U::clip_grad_norm_({p1, none, p2}, 1.0);
  CHECK(total == Approx(14.0).epsilon(1e-15));  // float64 gradients: exact up to rounding
  CHECK(torch::allclose(p1.grad(), torch::full({2, 2}, 3.0 / (14 + 1e-6), D), 1e-14, 0));
  CHECK(torch::allclose(p2.grad(), torch::tensor({4.0, 0.0, -12.0}, torch::kDouble) / (14 + 1e-6), 1e-14, 0));
  // Below max_norm nothing changes (the factor is clamped at 1).
  auto p3 = param_with_grad(torch::ones({2}, D), torch::tensor({0.3, 0.4}, torch::kDouble));
  CHECK(U::clip_grad_norm_(p3, 1.0) == Approx(0.5));
  CHECK(torch::equal(p3.grad(), torch::tensor({0.3, 0.4}, torch::kDouble)));
  // No gradients at all: 0.
  CHECK(U::clip_grad_norm_(std::vector<Tensor>{torch::ones({2}).requires_grad_(true)}, 1.0) == 0.0);
}

TEST_CASE("clip_grad_norm_: inf, 1 and 0 norms, non-finite totals", "[nn][utils]") {
  auto a = param_with_grad(torch::ones({2}, torch::kDouble), torch::tensor({1.0, -5.0}, torch::kDouble));
  auto b = param_with_grad(torch::ones({2}, torch::kDouble), torch::tensor({2.0, 3.0}, torch::kDouble));
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(U::clip_grad_norm_({a, b}, 2.5, inf) == Approx(5.0));
  CHECK(torch::allclose(a.grad(), torch::tensor({1.0, -5.0}, torch::kDouble) * (2.5 / (5 + 1e-6))));
  a.mutable_grad() = torch::tensor({1.0, -5.0}, torch::kDouble);
  b.mutable_grad() = torch::tensor({2.0, 3.0}, torch::kDouble);
  CHECK(U::clip_grad_norm_({a, b}, 100.0, 1.0) == Approx(11.0));
  CHECK(U::clip_grad_norm_({a, b}, 100.0, 0.0) == 2.0);  // libtorch's C++ frontend counts the gradients
  b.mutable_grad() = torch::tensor({2.0, std::nan("")}, torch::kDouble);
  CHECK_THROWS_WITH(U::clip_grad_norm_({a, b}, 1.0, 2.0, true), StartsWith("[clip_grad_norm_]") && Contains("nan"));
  CHECK(std::isnan(U::clip_grad_norm_({a, b}, 1.0)));  // without the flag it scales anyway (NaN)
}

TEST_CASE("clip_grad_value_ clamps each element", "[nn][utils]") {
  auto a = param_with_grad(torch::ones({4}, torch::kDouble), torch::tensor({-3.0, -0.5, 0.5, 7.0}, torch::kDouble));
  auto none = torch::ones({1}).requires_grad_(true);
  U::clip_grad_value_({a, none}, 1.0);
  CHECK(torch::equal(a.grad(), torch::tensor({-1.0, -0.5, 0.5, 1.0}, torch::kDouble)));
  CHECK(!none.grad().defined());
}

TEST_CASE("parameters_to_vector and vector_to_parameters", "[nn][utils]") {
  auto p1 = torch::ones({2, 2}).requires_grad_(true);
  auto p2 = torch::ones({3}).requires_grad_(true);
  auto t = torch::arange(6, torch::kFloat).reshape({2, 3}).t();  // non-contiguous parameter
  auto vec = U::parameters_to_vector({p1, p2, t});
  CHECK(torch::equal(vec, torch::tensor({1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 0.f, 3.f, 1.f, 4.f, 2.f, 5.f})));
  CHECK(vec.requires_grad());
  vec.sum().backward();
  CHECK(torch::equal(p1.grad(), torch::ones({2, 2})));

  auto src = torch::arange(7, torch::kFloat);
  auto* impl = p1.unsafeGetTensorImpl();
  U::vector_to_parameters(src, {p1, p2});
  CHECK(p1.unsafeGetTensorImpl() == impl);  // the same tensor, now a view of the vector
  CHECK(torch::equal(p1, torch::tensor({0.f, 1.f, 2.f, 3.f}).reshape({2, 2})));
  CHECK(torch::equal(p2, torch::tensor({4.f, 5.f, 6.f})));
  CHECK(p1.requires_grad());
  CHECK(p1.is_leaf());
  src[5] = 50.0;  // shares storage (libtorch's set_data)
  CHECK(p2[1].item<float>() == 50.0f);
  CHECK_THROWS_WITH(U::vector_to_parameters(torch::arange(6, torch::kFloat), {p1, p2}),
                    StartsWith("[vector_to_parameters] expected a vector of 7 elements"));
  CHECK_THROWS_WITH(U::vector_to_parameters(torch::arange(7, torch::kDouble), {p1, p2}),
                    StartsWith("[vector_to_parameters]") && Contains("dtype"));
  CHECK_THROWS_WITH(U::vector_to_parameters(torch::ones({7, 1}), {p1, p2}), StartsWith("[vector_to_parameters]"));
  CHECK_THROWS_WITH(U::parameters_to_vector({}), StartsWith("[parameters_to_vector]"));
}

TEST_CASE("init::orthogonal_: orthonormal rows or columns, times gain", "[nn][init]") {
  torch::manual_seed(3);
  for (auto shape : std::vector<std::vector<int64_t>>{{5, 3}, {3, 5}, {4, 4}, {2, 3, 4}, {1, 6}, {6, 1}}) {
    auto w = torch::empty(shape, torch::kDouble);
    I::orthogonal_(w, 2.0);
    auto f = w.reshape({shape[0], -1}) / 2.0;
    const int64_t rows = f.size(0), cols = f.size(1);
    INFO(rows << "x" << cols);
    // Tall: columns orthonormal; wide: rows orthonormal.
    auto g = rows >= cols ? f.t().matmul(f) : f.matmul(f.t());
    CHECK(torch::allclose(g, torch::eye(std::min(rows, cols), torch::kDouble), 0, 1e-12));
  }
  // float32 and a non-contiguous target; different draws give different matrices.
  auto w = torch::empty({6, 4}).t();
  I::orthogonal_(w);
  CHECK(torch::allclose(w.matmul(w.t()), torch::eye(4), 0, 1e-5));
  auto a = torch::empty({4, 4}), b = torch::empty({4, 4});
  I::orthogonal_(a);
  I::orthogonal_(b);
  CHECK(!torch::allclose(a, b));
  // Haar: the mean of many 1x2 draws is near 0 (a sign bias would show).
  Tensor acc = torch::zeros({1, 2}, torch::kDouble);
  for (int i = 0; i < 400; ++i) acc += I::orthogonal_(torch::empty({1, 2}, torch::kDouble));
  CHECK(acc.abs().max().item<double>() / 400 < 0.15);
  CHECK(I::orthogonal_(torch::empty({0, 3})).numel() == 0);
  CHECK_THROWS_WITH(I::orthogonal_(torch::empty({5})), StartsWith("[orthogonal_] expected a tensor of at least 2 dims"));
}

TEST_CASE("init::sparse_ and dirac_", "[nn][init]") {
  torch::manual_seed(1);
  auto s = torch::empty({5, 40});
  I::sparse_(s, 0.5, 0.02);
  // ceil(0.5 * 5) = 3 zeros per column (libtorch's rule), the rest N(0, 0.02^2).
  CHECK(torch::equal(s.eq(0).sum(0), torch::full({40}, 3, torch::kLong)));
  auto nz = s.masked_select(s.ne(0));
  CHECK(nz.numel() == 80);
  CHECK(nz.std().item<double>() == Approx(0.02).epsilon(0.3));
  auto full = torch::empty({4, 3});
  I::sparse_(full, 0.0);
  CHECK(full.ne(0).all().item<bool>());
  CHECK_THROWS_WITH(I::sparse_(torch::empty({2, 3, 4}), 0.5), StartsWith("[sparse_] expected a 2-d tensor"));
  CHECK_THROWS_WITH(I::sparse_(torch::empty({2, 3}), 1.5), StartsWith("[sparse_] expected sparsity in [0, 1]"));

  // libtorch 2.15: dirac_ on (2, 3, 3) sets [d][d][1] = 1; on (4, 2, 3, 3) min(4, 2) = 2 ones.
  auto d = torch::full({2, 3, 3}, 7.0);
  I::dirac_(d);
  auto expect = torch::zeros({2, 3, 3});
  expect[0][0][1] = 1;
  expect[1][1][1] = 1;
  CHECK(torch::equal(d, expect));
  auto d4 = torch::empty({4, 2, 3, 3});
  I::dirac_(d4);
  CHECK(d4.sum().item<float>() == 2.0f);
  CHECK(d4[1][1][1][1].item<float>() == 1.0f);
  // A dirac conv weight passes the input through.
  auto x = torch::randn({1, 3, 5, 5});
  auto w = torch::empty({3, 3, 3, 3});
  I::dirac_(w);
  CHECK(torch::allclose(torch::conv2d(x, w, {}, {1, 1}, {1, 1}), x));
  CHECK_THROWS_WITH(I::dirac_(torch::empty({2, 3})), StartsWith("[dirac_] expected a 3-, 4- or 5-d tensor"));
}
