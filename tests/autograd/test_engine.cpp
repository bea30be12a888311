// Hand-written tests of the autograd engine and API.
#include <torch/torch.h>
#include <catch2/catch.hpp>

namespace {
double v(const at::Tensor& t, std::vector<int64_t> idx = {}) {
  at::Tensor x = t;
  for (auto i : idx) x = x.select(0, i);
  return x.item<double>();
}
}  // namespace

TEST_CASE("backward through a small graph", "[autograd]") {
  auto x = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  CHECK(x.requires_grad());
  CHECK(x.is_leaf());
  auto y = (x * x + x * 2.0).sum();  // dy/dx = 2x + 2
  CHECK(!y.is_leaf());
  REQUIRE(y.grad_fn() != nullptr);
  CHECK(y.grad_fn()->name() == "SumBackward0");
  y.backward();
  REQUIRE(x.grad().defined());
  CHECK(v(x.grad(), {0}) == 4);
  CHECK(v(x.grad(), {2}) == 8);
  // Accumulates across backward calls.
  auto z = (x * 3.0).sum();
  z.backward();
  CHECK(v(x.grad(), {1}) == 9);
}

TEST_CASE("broadcast gradients are reduced to the input shape", "[autograd]") {
  auto a = torch::ones({3, 1}, torch::requires_grad());
  auto b = torch::ones({4}, torch::requires_grad());
  (a * b).sum().backward();
  CHECK(a.grad().sizes() == at::IntArrayRef({3, 1}));
  CHECK(v(a.grad(), {0, 0}) == 4);
  CHECK(b.grad().sizes() == at::IntArrayRef({4}));
  CHECK(v(b.grad(), {0}) == 3);
}

TEST_CASE("retain_graph and the second-backward error", "[autograd]") {
  auto x = torch::tensor({2.0}, torch::requires_grad());
  auto y = (x * x).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  CHECK(v(x.grad(), {0}) == 8);
  auto z = (x * x).sum();
  z.backward();
  CHECK_THROWS_WITH(z.backward(), Catch::Contains("saved tensors were freed by an earlier backward()"));
}

TEST_CASE("autograd::grad and create_graph give second derivatives", "[autograd]") {
  auto x = torch::tensor({3.0}, torch::requires_grad());
  auto y = (x * x * x).sum();  // y' = 3x^2 = 27, y'' = 6x = 18
  auto g = torch::autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  CHECK(v(g[0], {0}) == 27);
  CHECK(!x.grad().defined());
  auto gg = torch::autograd::grad({g[0].sum()}, {x});
  CHECK(v(gg[0], {0}) == 18);
}

TEST_CASE("no_grad records nothing", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad());
  {
    torch::NoGradGuard g;
    auto y = x * 2.0;
    CHECK(!y.requires_grad());
    CHECK(y.grad_fn() == nullptr);
  }
  auto y = x * 2.0;
  CHECK(y.requires_grad());
}

TEST_CASE("in-place on a leaf that requires grad raises; saved tensors modified in place raise", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad());
  CHECK_THROWS_WITH(x.mul_(2.0), Catch::StartsWith("[mul_] expected a tensor that is not a leaf requiring grad"));
  auto a = x * 1.0;
  auto b = a * a;  // saves a
  a.add_(1.0);
  CHECK_THROWS_WITH(b.sum().backward(), Catch::Contains("an in-place op modified it after it was saved") &&
                                            Catch::Contains("MulBackward0") && Catch::Contains("at version 0, the version it had when saved; got version 1"));
}

TEST_CASE("derivative not implemented", "[autograd]") {
  // Generated wrappers give ops without a formula this node; build one by hand to check the message.
  auto x = torch::ones({2}, torch::requires_grad());
  auto y = x * 2.0;
  auto node = std::make_shared<torch::autograd::NotImplemented>("frobnicate");
  node->add_next_edge(torch::autograd::gradient_edge(y));
  auto z = y.detach() + 0.0;
  torch::autograd::set_history(z, node);
  CHECK(z.grad_fn()->name() == "torch::autograd::NotImplemented");
  CHECK_THROWS_WITH(z.sum().backward(), Catch::Contains("[frobnicate] derivative not implemented"));
}

TEST_CASE("InferenceMode records nothing but still bumps versions", "[autograd]") {
  auto x = torch::ones({3}, torch::requires_grad());
  auto buf = torch::zeros({3});
  uint32_t v0 = buf._version();
  {
    c10::InferenceMode guard;
    CHECK(c10::InferenceMode::is_enabled());
    auto y = x * 2.0;
    CHECK(!y.requires_grad());
    buf.add_(1.0);
  }
  CHECK(buf._version() == v0 + 1);  // libtorch bumps normal tensors in inference mode too
  CHECK(!c10::InferenceMode::is_enabled());
  buf.add_(1.0);
  CHECK(buf._version() == v0 + 2);
  CHECK((x * 2.0).requires_grad());
}

TEST_CASE("in-place on a view gives the right gradient (CopySlices)", "[autograd]") {
  auto leaf = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::requires_grad());
  auto x = leaf * 1.0;             // non-leaf
  auto v = x.slice(0, 1, 3);       // view of x: elements 1, 2
  v.mul_(leaf.slice(0, 0, 2));     // x[1:3] *= leaf[0:2]
  CHECK(x.grad_fn()->name() == "CopySlices");
  (x * x).sum().backward();
  // x = [l0, l1*l0, l2*l1, l3]; d/dl of sum(x^2):
  // l0: 2*l0 + 2*(l1*l0)*l1 = 2 + 8 = 10; l1: 2*(l1 l0) l0 + 2*(l2 l1) l2 = 4 + 36 = 40
  // l2: 2*(l2 l1)*l1 = 24; l3: 2*l3 = 8
  auto g = leaf.grad();
  CHECK(g.select(0, 0).item<double>() == Approx(10));
  CHECK(g.select(0, 1).item<double>() == Approx(40));
  CHECK(g.select(0, 2).item<double>() == Approx(24));
  CHECK(g.select(0, 3).item<double>() == Approx(8));
  auto w = leaf.slice(0, 0, 2);
  CHECK_THROWS_WITH(w.mul_(2.0), Catch::Contains("expected an in-place target that is not a view of a leaf requiring grad"));
}

// grad_fn()->name() as libtorch 2.15 prints it for the same expressions (recorded with the same
// program compiled against libtorch). Ops Ember still writes as plain composites of others
// (avg_pool2d, pixel_shuffle, repeat, ...) show their last part's node and are not listed.
TEST_CASE("backward node names follow libtorch's", "[autograd]") {
  auto a = torch::rand({3, 4}, torch::requires_grad());
  auto b = torch::rand({3, 4}, torch::requires_grad());
  auto m = torch::rand({4, 5}, torch::requires_grad());
  auto img = torch::rand({2, 3, 8, 8}, torch::requires_grad());
  auto w = torch::rand({4, 3, 3, 3}, torch::requires_grad());
  auto tgt = torch::tensor({0, 1, 2}, torch::kLong);
  const std::vector<std::pair<std::string, at::Tensor>> cases = {
      {"AddBackward0", a + b}, {"AddBackward1", a + 1}, {"MulBackward0", a * b}, {"MulBackward1", a * 2},
      {"DivBackward0", a / b}, {"DivBackward1", a / 2}, {"SubBackward1", a - 1},
      {"PowBackward0", a.pow(2)}, {"PowBackward1", a.pow(b)}, {"ClampBackward1", a.clamp(0.1, 0.5)},
      {"Log1PBackward0", a.log1p()}, {"Expm1Backward0", a.expm1()}, {"Atan2Backward0", torch::atan2(a, b)},
      {"SumBackward0", a.sum()}, {"MaxBackward1", a.max()}, {"MaxBackward0", std::get<0>(a.max(1))},
      {"StdBackward0", a.std()}, {"VarBackward0", a.var()}, {"NormBackward0", a.norm()},
      {"LogsumexpBackward0", a.logsumexp(1)}, {"MmBackward0", a.mm(m)}, {"TransposeBackward0", a.transpose(0, 1)},
      {"ViewBackward0", a.view({12})}, {"SelectBackward0", a.select(0, 1)}, {"IndexBackward0", a.index({tgt})},
      {"CatBackward0", torch::cat({a, b})}, {"SoftmaxBackward0", a.softmax(1)}, {"LogSoftmaxBackward0", a.log_softmax(1)},
      {"ConvolutionBackward0", torch::conv2d(img, w)},
      {"MaxPool2DWithIndicesBackward0", torch::max_pool2d(img, 2)},
      {"NativeBatchNormBackward0", torch::batch_norm(img, {}, {}, {}, {}, true, 0.1, 1e-5, false)},
      {"GeluBackward0", torch::gelu(a)}, {"WhereBackward0", torch::where(a > 0.5, a, b)},
      {"EmbeddingBackward0", torch::embedding(m, tgt)}, {"CumsumBackward0", a.cumsum(1)},
      {"GatherBackward0", a.gather(1, tgt.view({3, 1}))}, {"TopkBackward0", std::get<0>(a.topk(2))},
      {"SortBackward0", std::get<0>(a.sort())},
      {"MeanBackward0", a.mean()}, {"MeanBackward1", a.mean(1)}, {"TBackward0", a.t()}, {"CloneBackward0", a.clone()},
      {"ToCopyBackward0", a.to(torch::kDouble)}, {"StackBackward0", torch::stack({a, b})},
      {"MseLossBackward0", torch::mse_loss(a, b)}, {"MeanBackward0", torch::l1_loss(a, b)},
      {"ClampBackward0", torch::clamp(a, b, b + 1)}, {"ClampMinBackward1", torch::clamp_min(a, b)},
      {"DigammaBackward0", a.digamma()}, {"I0Backward0", a.i0()}, {"PolygammaBackward0", torch::polygamma(1, a)},
      {"SpecialI1Backward0", torch::special::i1(a)}, {"SpecialI0EBackward0", torch::special::i0e(a)},
      {"SpecialNdtrBackward0", torch::special::ndtr(a)}, {"LgammaBackward0", a.lgamma()},
      {"NllLossBackward0", torch::nll_loss(a.log_softmax(1), tgt)},
      {"NllLossBackward0", torch::nn::functional::cross_entropy(a, tgt)},
      {"NativeLayerNormBackward0", torch::layer_norm(img, {8})},
      {"BinaryCrossEntropyBackward0", torch::binary_cross_entropy(a, b)},
      {"BinaryCrossEntropyWithLogitsBackward0", torch::binary_cross_entropy_with_logits(a, b)},
      {"NativeGroupNormBackward0", torch::group_norm(img, 1)}, {"SmoothL1LossBackward0", torch::smooth_l1_loss(a, b)},
      {"HuberLossBackward0", torch::huber_loss(a, b)}, {"MeanBackward0", torch::kl_div(a, b)}};
  for (const auto& [want, t] : cases) {
    INFO(want);
    REQUIRE(t.grad_fn() != nullptr);
    CHECK(t.grad_fn()->name() == want);
  }
}

TEST_CASE("a leaf's .grad takes the leaf's layout (libtorch's gradient layout contract)", "[autograd]") {
  // Note [Gradient layout contract]: the leaf's strides when it is non-overlapping and dense,
  // contiguous otherwise, whatever layout the incoming gradient has; the values are unchanged.
  torch::manual_seed(3);
  // A channels-last leaf whose gradient arrives NCHW (through contiguous()).
  at::Tensor x = torch::randn({2, 3, 4, 5}).contiguous(at::MemoryFormat::ChannelsLast).requires_grad_(true);
  const at::Tensor w = torch::randn({2, 3, 4, 5});
  (x.contiguous() * w).sum().backward();
  CHECK(x.grad().strides().vec() == x.strides().vec());
  CHECK(x.grad().equal(w));
  // A transposed leaf (dense, not contiguous): the same transposed strides.
  at::Tensor t = torch::randn({3, 4}).t().requires_grad_(true);
  const at::Tensor y = torch::randn({4, 3});
  (t * y).sum().backward();
  CHECK(t.grad().strides().vec() == std::vector<int64_t>{1, 4});
  CHECK(t.grad().equal(y));
  // An overlapping leaf (expanded): a contiguous gradient.
  at::Tensor e = torch::randn({3, 1}).expand({3, 4}).requires_grad_(true);
  (e * y.t()).sum().backward();
  CHECK(e.grad().is_contiguous());
  CHECK(e.grad().equal(y.t()));
  // A contiguous leaf keeps a contiguous gradient; a gradient already in the leaf's layout is kept.
  at::Tensor c = torch::randn({2, 3}).requires_grad_(true);
  (c * 2).sum().backward();
  CHECK(c.grad().is_contiguous());
  CHECK(c.grad().equal(torch::full({2, 3}, 2.0f)));
  // create_graph: the copy into the leaf's layout stays differentiable. y = sum(x^2): x.grad =
  // 2x, then the backward of sum(x.grad) adds 2.
  at::Tensor z = torch::randn({1, 2, 3, 3}).contiguous(at::MemoryFormat::ChannelsLast).requires_grad_(true);
  (z.contiguous() * z.contiguous()).sum().backward({}, /*retain_graph=*/true, /*create_graph=*/true);
  REQUIRE(z.grad().defined());
  CHECK(z.grad().strides().vec() == z.strides().vec());
  CHECK(z.grad().requires_grad());
  CHECK(z.grad().allclose(2 * z.detach()));
  const at::Tensor first = z.grad().detach().clone();
  z.grad().sum().backward();
  CHECK(z.grad().allclose(first + 2));
  // z.grad's graph reaches z's AccumulateGrad, which holds z: the cycle that create_graph=true
  // backward into a leaf makes in libtorch too. Dropping the gradient breaks it.
  z.mutable_grad().reset();
}
