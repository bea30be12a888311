// Regression tests of issue #7 (autograd): views recorded whether or not anything required grad
// when they were made, stale view histories, .data() versions, inference-mode versions, and
// NaN in full max/min backward. Expected values were recorded from libtorch 2.15.
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <thread>

namespace {
std::vector<double> values(const at::Tensor& t) {
  at::Tensor c = t.to(at::kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}
bool same(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}
}  // namespace

TEST_CASE("in-place write of a grad-requiring value into a view of a plain tensor", "[autograd][views]") {
  auto base = torch::zeros({4});
  auto v = base.slice(0, 0, 2);  // made while nothing requires grad
  auto w = torch::ones({2}, torch::requires_grad());
  v.mul_(w);
  CHECK(base.requires_grad());
  REQUIRE(base.grad_fn());
  CHECK(base.grad_fn()->name() == "CopySlices");
  CHECK(v.grad_fn()->name() == "AsStridedBackward0");
  CHECK_FALSE(v.is_leaf());
  base.sum().backward();
  CHECK(values(w.grad()) == std::vector<double>{0, 0});  // d(v*w)/dw = v = 0

  auto base2 = torch::zeros({4});
  auto v2 = base2.slice(0, 0, 2);
  auto w2 = torch::ones({2}, torch::requires_grad());
  v2.add_(w2);
  CHECK(values(base2) == std::vector<double>{1, 1, 0, 0});
  (base2 * torch::arange(4.)).sum().backward();
  CHECK(values(w2.grad()) == std::vector<double>{0, 1});
}

TEST_CASE("two views of one base both modified in place", "[autograd][views]") {
  auto leaf = torch::ones({4}, torch::requires_grad());
  auto base = leaf * 1;
  auto v1 = base.slice(0, 0, 2);
  auto v2 = base.slice(0, 1, 3);
  v1.mul_(2);
  v2.mul_(3);  // v2's recorded history predates v1's write
  CHECK(values(base) == std::vector<double>{2, 6, 3, 1});
  CHECK(v1.grad_fn()->name() == "AsStridedBackward0");
  CHECK(v2.grad_fn()->name() == "AsStridedBackward0");
  CHECK(base.grad_fn()->name() == "CopySlices");
  base.sum().backward();
  CHECK(values(leaf.grad()) == std::vector<double>{2, 6, 3, 1});

  // A view read after its base was modified directly sees the new history.
  auto leaf2 = torch::ones({3}, torch::requires_grad());
  auto b2 = leaf2 * 1;
  auto u = b2.slice(0, 0, 2);
  b2.mul_(5);
  (u * 1).sum().backward();
  CHECK(values(leaf2.grad()) == std::vector<double>{5, 5, 0});
}

TEST_CASE("views made under no_grad cannot take recorded in-place writes", "[autograd][views]") {
  auto a = torch::ones({3}, torch::requires_grad());
  auto b = a * 1;
  torch::Tensor v;
  {
    torch::NoGradGuard g;
    v = b.slice(0, 0, 2);
  }
  auto w = torch::ones({2}, torch::requires_grad());
  CHECK_THROWS_WITH(v.mul_(w), Catch::StartsWith("[mul_] expected a view made with grad mode on"));
  auto plain = torch::zeros({3});
  torch::Tensor pv;
  {
    torch::NoGradGuard g;
    pv = plain.slice(0, 0, 2);
  }
  CHECK_THROWS_AS(pv.mul_(w), c10::Error);
  // Writes that record nothing are fine.
  pv.mul_(2);
  {
    torch::NoGradGuard g;
    v.mul_(w);
  }
  CHECK_FALSE(pv.requires_grad());
}

TEST_CASE(".data() has its own version counter; detach() shares it", "[autograd][versions]") {
  auto w = torch::ones({2}, torch::requires_grad());
  auto y = (w * w).sum();
  auto d = w.data();
  d.mul_(2);  // an optimizer-style update
  CHECK(w._version() == 0);
  CHECK(d._version() == 1);
  CHECK(values(w) == std::vector<double>{2, 2});  // same storage
  y.backward();  // no version error
  CHECK(values(w.grad()) == std::vector<double>{4, 4});  // 2 * w at backward time (libtorch: [4, 4])
  // Views of .data() share its counter.
  d.slice(0, 0, 1).add_(1);
  CHECK(d._version() == 2);
  CHECK(w._version() == 0);

  auto w2 = torch::ones({2}, torch::requires_grad());
  auto y2 = (w2 * w2).sum();
  w2.detach().mul_(2);
  CHECK(w2._version() == 1);
  CHECK_THROWS_WITH(y2.backward(), Catch::Contains("got version 1"));
}

TEST_CASE("in-place writes in InferenceMode still invalidate saved tensors", "[autograd][versions]") {
  auto a = torch::ones({2}, torch::requires_grad());
  auto b = a * 1;
  auto c = (b * b).sum();
  CHECK(b._version() == 0);
  {
    c10::InferenceMode g;
    b.add_(1);
  }
  CHECK(b._version() == 1);
  CHECK_THROWS_WITH(c.backward(), Catch::Contains("an in-place op modified it after it was saved"));
}

TEST_CASE("full max/min backward with NaN sends the gradient to the NaN elements", "[autograd]") {
  const double nan = std::nan("");
  auto a = torch::tensor({1.0, nan, 3.0, nan}, torch::TensorOptions().dtype(torch::kDouble).requires_grad(true));
  a.max().backward();
  CHECK(values(a.grad()) == std::vector<double>{0, 0.5, 0, 0.5});
  a.mutable_grad().reset();
  a.min().backward();
  CHECK(values(a.grad()) == std::vector<double>{0, 0.5, 0, 0.5});
  a.mutable_grad().reset();
  // amax shares among elements equal to the result: NaN compares unequal, so libtorch gives NaN.
  a.amax(0).backward();
  CHECK(same(values(a.grad()), std::vector<double>{nan, nan, nan, nan}));
  a.mutable_grad().reset();
  std::get<0>(a.max(0)).backward();  // by index: the first NaN
  CHECK(values(a.grad()) == std::vector<double>{0, 1, 0, 0});
  auto b = torch::tensor({{1.0, nan, 3.0}, {4.0, 5.0, 6.0}}, torch::TensorOptions().dtype(torch::kDouble).requires_grad(true));
  b.amax(1).sum().backward();
  CHECK(same(values(b.grad()), std::vector<double>{nan, nan, nan, 0, 0, 1}));
  b.mutable_grad().reset();
  b.max().backward();
  CHECK(values(b.grad()) == std::vector<double>{0, 1, 0, 0, 0, 0});
  // Ties without NaN still share evenly.
  auto t = torch::tensor({2.0, 2.0, 1.0}, torch::TensorOptions().dtype(torch::kDouble).requires_grad(true));
  t.max().backward();
  CHECK(values(t.grad()) == std::vector<double>{0.5, 0.5, 0});
}

TEST_CASE("concurrent backward passes through a shared retained subgraph", "[autograd][threads]") {
  auto x = torch::randn({64}, torch::requires_grad());
  auto shared = (x * x).exp().sin();  // nodes with saved inputs and outputs
  std::vector<std::thread> ts;
  std::vector<torch::Tensor> grads(4);
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&, i] {
      for (int k = 0; k < 20; ++k)
        grads[i] = torch::autograd::grad({shared.sum()}, {x}, {}, /*retain_graph=*/true)[0];
    });
  for (auto& t : ts) t.join();
  auto expect = torch::autograd::grad({shared.sum()}, {x}, {}, true)[0];
  for (auto& g : grads) CHECK(values(g) == values(expect));
}
