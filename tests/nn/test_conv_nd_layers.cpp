// torch::nn::Conv1d/3d, ConvTranspose1d/2d/3d, padding kSame/kValid and the padding modes
// (api/torch/nn/conv.h, api/src/nn_conv.cpp): parameter shapes, libtorch's default init range,
// forward against the functional forms and values recorded from libtorch 2.15, output_size,
// printing (strings recorded from libtorch 2.15) and the errors.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include "nn/reference_util.h"
#include <cmath>
#include <sstream>

namespace nn = torch::nn;
namespace F = torch::nn::functional;

namespace {
using ember_ref::printed;
// The pattern inputs of the libtorch program that recorded the values below.
torch::Tensor pat(std::vector<int64_t> shape, double a, double b) {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return torch::arange(n, torch::kDouble).mul(a).add(b).sin().reshape(shape);
}

// Weighted sum with the pattern weights the recording used.
double wsum(const torch::Tensor& t) { return (t * pat(t.sizes().vec(), 0.7, 0.1)).sum().item<double>(); }

// max |w| never passes the bound and, with enough draws, comes close to it.
void check_bound(const torch::Tensor& t, double bound) {
  CHECK(t.abs().max().item<double>() <= bound);
  if (t.numel() >= 30) CHECK(t.abs().max().item<double>() > 0.8 * bound);
}
}  // namespace

TEST_CASE("nn::Conv1d/3d and ConvTranspose1d/2d/3d: parameters, default init, forward", "[nn][layers][conv]") {
  torch::manual_seed(0);
  nn::Conv1d c1(nn::Conv1dOptions(4, 6, 3).stride(2).padding(1).groups(2));
  CHECK(c1->weight.sizes() == std::vector<int64_t>{6, 2, 3});
  check_bound(c1->weight, 1 / std::sqrt(6.0));
  check_bound(c1->bias, 1 / std::sqrt(6.0));
  auto x1 = torch::randn({2, 4, 9});
  CHECK(torch::equal(c1(x1), torch::conv1d(x1, c1->weight, c1->bias, 2, 1, 1, 2)));
  CHECK(c1(x1[0]).sizes() == std::vector<int64_t>{6, 5});  // unbatched

  nn::Conv3d c3(nn::Conv3dOptions(2, 3, {1, 2, 3}).bias(false));
  CHECK(c3->weight.sizes() == std::vector<int64_t>{3, 2, 1, 2, 3});
  CHECK_FALSE(c3->bias.defined());
  check_bound(c3->weight, 1 / std::sqrt(12.0));
  CHECK(c3(torch::randn({1, 2, 3, 4, 5})).sizes() == std::vector<int64_t>{1, 3, 3, 3, 3});

  // Transposed: weight (in, out / groups, k...), fan_in = out / groups * prod(k) (libtorch's rule
  // applied to this layout: 27 for ConvTranspose2d(2, 3, 3)).
  nn::ConvTranspose2d t2(nn::ConvTranspose2dOptions(2, 3, 3).stride(2));
  CHECK(t2->weight.sizes() == std::vector<int64_t>{2, 3, 3, 3});
  check_bound(t2->weight, 1 / std::sqrt(27.0));
  check_bound(t2->bias, 1 / std::sqrt(27.0));
  auto x2 = torch::randn({1, 2, 3, 3});
  CHECK(t2(x2).sizes() == std::vector<int64_t>{1, 3, 7, 7});
  CHECK(torch::equal(t2(x2), F::conv_transpose2d(x2, t2->weight, F::ConvTranspose2dFuncOptions().bias(t2->bias).stride(2))));
  nn::ConvTranspose1d t1(nn::ConvTranspose1dOptions(4, 6, 3).groups(2).output_padding(1).stride(2).bias(false));
  CHECK(t1->weight.sizes() == std::vector<int64_t>{4, 3, 3});
  CHECK(t1(torch::randn({4, 5})).sizes() == std::vector<int64_t>{6, 12});
  nn::ConvTranspose3d t3(nn::ConvTranspose3dOptions(2, 2, 2).dilation({1, 2, 1}));
  CHECK(t3(torch::randn({1, 2, 2, 2, 2})).sizes() == std::vector<int64_t>{1, 2, 3, 4, 3});

  // The DCGAN generator's layer: ConvTranspose2d then BatchNorm2d, in a Sequential, with gradients.
  nn::Sequential gen(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(16, 8, 4).stride(2).padding(1).bias(false)),
                     nn::BatchNorm2d(8), nn::ReLU());
  auto z = torch::randn({4, 16, 7, 7});
  auto out = gen->forward(z);
  CHECK(out.sizes() == std::vector<int64_t>{4, 8, 14, 14});
  out.sum().backward();
  for (auto& p : gen->parameters()) CHECK(p.grad().defined());

  // clone() copies the parameters into a separate module.
  auto copy = std::dynamic_pointer_cast<nn::ConvTranspose2dImpl>(t2->clone());
  REQUIRE(copy != nullptr);
  CHECK(torch::equal(copy->weight, t2->weight));
  CHECK(copy->weight.data_ptr() != t2->weight.data_ptr());
}

TEST_CASE("nn::ConvTranspose2d forward(input, output_size)", "[nn][layers][conv]") {
  nn::ConvTranspose2d ct(nn::ConvTranspose2dOptions(2, 3, 3).stride(2));
  auto x = torch::randn({1, 2, 3, 3});
  // Sizes from libtorch 2.15: the smallest output is 7, the largest 7 + stride - 1 = 8.
  CHECK(ct->forward(x, std::vector<int64_t>{8, 8}).sizes() == std::vector<int64_t>{1, 3, 8, 8});
  CHECK(ct->forward(x, std::vector<int64_t>{1, 3, 7, 8}).sizes() == std::vector<int64_t>{1, 3, 7, 8});
  CHECK(torch::equal(ct->forward(x, std::vector<int64_t>{7, 8}),
                     F::conv_transpose2d(x, ct->weight, F::ConvTranspose2dFuncOptions().bias(ct->bias).stride(2).output_padding({0, 1}))));
  CHECK(ct->forward(x[0], std::vector<int64_t>{8, 7}).sizes() == std::vector<int64_t>{3, 8, 7});
  CHECK_THROWS_WITH(ct->forward(x, std::vector<int64_t>{9, 8}),
                    Catch::StartsWith("[ConvTranspose2d] expected each output_size between the smallest (7) and largest (8)"));
  CHECK_THROWS_WITH(ct->forward(x, std::vector<int64_t>{8}), Catch::StartsWith("[ConvTranspose2d] expected output_size to have 2 values"));
  nn::ConvTranspose2d reflect(nn::ConvTranspose2dOptions(2, 3, 3).padding_mode(torch::kReflect));
  CHECK_THROWS_WITH(reflect(x), Catch::StartsWith("[ConvTranspose2d] expected padding_mode kZeros"));
}

TEST_CASE("nn::Conv padding kSame/kValid and padding modes match libtorch", "[nn][layers][conv]") {
  // Conv2d(2, 3, 3, padding 1) in double with pattern weights, per padding mode: sum and weighted
  // sum of the output as libtorch 2.15 printed them.
  const double sums[4][2] = {{30.8237819869152, 14.3138837177549},
                             {28.6121125393377, 18.2755546410577},
                             {33.994158682168, 21.2839124908587},
                             {34.0933770021796, 16.9597712679175}};
  const nn::detail::conv_padding_mode_t modes[4] = {torch::kZeros, torch::kReflect, torch::kReplicate, torch::kCircular};
  for (int m = 0; m < 4; ++m) {
    INFO("mode " << m);
    nn::Conv2d c(nn::Conv2dOptions(2, 3, 3).padding(1).padding_mode(modes[m]));
    c->to(torch::kDouble);
    {
      torch::NoGradGuard g;
      c->weight.copy_(pat({3, 2, 3, 3}, 0.11, -0.3));
      c->bias.copy_(pat({3}, 1.3, 0.2));
    }
    auto y = c(pat({1, 2, 4, 5}, 0.37, 0.5));
    CHECK(y.sizes() == std::vector<int64_t>{1, 3, 4, 5});
    CHECK(y.sum().item<double>() == Approx(sums[m][0]).epsilon(1e-10));
    CHECK(wsum(y) == Approx(sums[m][1]).epsilon(1e-10));
  }
  // Conv1d(2, 1, 4) padding kSame (total 3: one left, two right) per mode, unbatched input.
  const std::vector<double> same[4] = {
      {-0.309831016839, -0.821752559275, -1.21435829708, -1.41571737426, -1.39857678435, -0.909895139474, -0.429337654785},
      {-0.579390242589, -0.821752559275, -1.21435829708, -1.41571737426, -1.39857678435, -1.32975969584, -1.25016727183},
      {-0.444314744983, -0.821752559275, -1.21435829708, -1.41571737426, -1.39857678435, -1.27201357665, -1.1153771476},
      {-0.546119878801, -0.821752559275, -1.21435829708, -1.41571737426, -1.39857678435, -0.872159289785, -0.568335696391}};
  for (int m = 0; m < 4; ++m) {
    INFO("same, mode " << m);
    nn::Conv1d c(nn::Conv1dOptions(2, 1, 4).padding(torch::kSame).padding_mode(modes[m]));
    c->to(torch::kDouble);
    {
      torch::NoGradGuard g;
      c->weight.copy_(pat({1, 2, 4}, 0.11, -0.3));
      c->bias.copy_(pat({1}, 1.3, 0.2));
    }
    auto x = pat({2, 7}, 0.37, 0.5).requires_grad_(true);
    auto y = c(x);
    REQUIRE(y.sizes() == std::vector<int64_t>{1, 7});
    for (int64_t i = 0; i < 7; ++i) CHECK(y[0][i].item<double>() == Approx(same[m][static_cast<size_t>(i)]).epsilon(1e-9));
    // The gradient flows through the padding: input positions read twice get both contributions.
    y.sum().backward();
    const auto fd = [&](int64_t ch, int64_t pos) {
      torch::NoGradGuard g;
      auto xp = x.detach().clone(), xm = x.detach().clone();
      xp[ch][pos] += 1e-6;
      xm[ch][pos] -= 1e-6;
      return (c(xp).sum().item<double>() - c(xm).sum().item<double>()) / 2e-6;
    };
    for (int64_t pos : {0, 1, 5, 6}) CHECK(x.grad()[1][pos].item<double>() == Approx(fd(1, pos)).epsilon(1e-6));
  }
  // Conv3d circular with per-dim padding: sum and weighted sum from a float64 script of the
  // textbook formula (input index taken mod the size), written apart from Ember.
  nn::Conv3d c3(nn::Conv3dOptions(2, 2, {2, 3, 2}).padding({1, 0, 1}).padding_mode(torch::kCircular));
  c3->to(torch::kDouble);
  {
    torch::NoGradGuard g;
    c3->weight.copy_(pat({2, 2, 2, 3, 2}, 0.11, -0.3));
    c3->bias.copy_(pat({2}, 1.3, 0.2));
  }
  auto y3 = c3(pat({1, 2, 3, 4, 3}, 0.37, 0.5));
  CHECK(y3.sizes() == std::vector<int64_t>{1, 2, 4, 2, 4});
  CHECK(y3.sum().item<double>() == Approx(41.790468005330936).epsilon(1e-10));
  CHECK(wsum(y3) == Approx(14.094385268768207).epsilon(1e-10));
  // kValid is no padding; F:: takes the same spellings.
  nn::Conv2d valid(nn::Conv2dOptions(2, 3, 3).padding(torch::kValid));
  auto x = torch::randn({1, 2, 5, 6});
  CHECK(valid(x).sizes() == std::vector<int64_t>{1, 3, 3, 4});
  CHECK(torch::equal(F::conv2d(x, valid->weight, F::Conv2dFuncOptions().padding(torch::kSame)),
                     torch::conv2d(x, valid->weight, {}, 1, "same")));
  const auto x1 = x[0].select(2, 0), w1 = valid->weight.select(3, 0);  // (2, 5) unbatched, (3, 2, 3)
  CHECK(torch::equal(F::conv1d(x1, w1, F::Conv1dFuncOptions().padding({1}).stride(2)), torch::conv1d(x1, w1, {}, 2, 1)));
  CHECK(F::conv3d(torch::randn({2, 3, 4, 5}), torch::randn({1, 2, 3, 3, 3}), F::Conv3dFuncOptions().padding(torch::kSame)).sizes() ==
        std::vector<int64_t>{1, 3, 4, 5});
}

TEST_CASE("nn::Conv and ConvTranspose errors", "[nn][layers][conv]") {
  CHECK_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(torch::kSame).stride(2)),
                    Catch::StartsWith("[Conv2d] expected stride 1 with padding kSame"));
  CHECK_THROWS_WITH(nn::Conv1d(nn::Conv1dOptions(3, 4, 3).groups(2)), Catch::StartsWith("[Conv1d] expected groups (2)"));
  CHECK_THROWS_WITH(nn::ConvTranspose3d(nn::ConvTranspose3dOptions(4, 3, 3).groups(2)),
                    Catch::StartsWith("[ConvTranspose3d] expected groups (2)"));
  CHECK_THROWS_WITH(nn::Conv3d(nn::Conv3dOptions(1, 1, {1, 0, 1})), Catch::StartsWith("[Conv3d] expected a positive kernel_size"));
  nn::Conv1d reflect(nn::Conv1dOptions(1, 1, 7).padding(3).padding_mode(torch::kReflect));
  CHECK_THROWS_WITH(reflect(torch::randn({1, 1, 3})), Catch::StartsWith("[Conv1d] expected reflect padding (3, 3) smaller than"));
  nn::Conv1d circular(nn::Conv1dOptions(1, 1, 9).padding(4).padding_mode(torch::kCircular));
  CHECK_THROWS_WITH(circular(torch::randn({1, 1, 3})), Catch::StartsWith("[Conv1d] expected circular padding (4, 4) at most"));
  CHECK_THROWS_WITH(reflect(torch::randn({1, 1, 2, 9})), Catch::StartsWith("[Conv1d] expected a 2-D (unbatched) or 3-D input"));
  nn::Conv1d plain(nn::Conv1dOptions(1, 1, 3));
  CHECK_THROWS_WITH(plain(torch::randn({1, 1, 2, 9})), Catch::StartsWith("[conv1d] expected a 2-D (C, L) or 3-D (N, C, L) input"));
}

TEST_CASE("nn::Conv and ConvTranspose print as libtorch's", "[nn][layers][print]") {
  // Strings recorded from libtorch 2.15.
  CHECK(printed(*nn::Conv1d(nn::Conv1dOptions(3, 4, 3))) == "torch::nn::Conv1d(3, 4, kernel_size=3, stride=1)");
  CHECK(printed(*nn::Conv1d(nn::Conv1dOptions(4, 8, 5).stride(2).padding(1).dilation(3).groups(2).bias(false).padding_mode(
            torch::kReflect))) ==
        "torch::nn::Conv1d(4, 8, kernel_size=5, stride=2, padding=1, dilation=3, groups=2, bias=false, padding_mode=kReflect)");
  CHECK(printed(*nn::Conv2d(nn::Conv2dOptions(3, 4, 3).padding(torch::kSame))) ==
        "torch::nn::Conv2d(3, 4, kernel_size=[3, 3], stride=[1, 1], padding='same')");
  CHECK(printed(*nn::Conv2d(nn::Conv2dOptions(3, 4, 3).padding(torch::kValid).padding_mode(torch::kCircular))) ==
        "torch::nn::Conv2d(3, 4, kernel_size=[3, 3], stride=[1, 1], padding='valid', padding_mode=kCircular)");
  CHECK(printed(*nn::Conv3d(nn::Conv3dOptions(3, 4, {1, 2, 3}).stride({1, 2, 1}).padding(1).padding_mode(torch::kReplicate))) ==
        "torch::nn::Conv3d(3, 4, kernel_size=[1, 2, 3], stride=[1, 2, 1], padding=[1, 1, 1], padding_mode=kReplicate)");
  CHECK(printed(*nn::ConvTranspose1d(nn::ConvTranspose1dOptions(3, 4, 3))) == "torch::nn::ConvTranspose1d(3, 4, kernel_size=3, stride=1)");
  CHECK(printed(*nn::ConvTranspose2d(nn::ConvTranspose2dOptions(128, 64, 4).stride(2).padding(1).bias(false))) ==
        "torch::nn::ConvTranspose2d(128, 64, kernel_size=[4, 4], stride=[2, 2], padding=[1, 1], bias=false)");
  CHECK(printed(*nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 6, {3, 2}).stride({2, 1}).output_padding(1).groups(2).dilation(2))) ==
        "torch::nn::ConvTranspose2d(4, 6, kernel_size=[3, 2], stride=[2, 1], dilation=[2, 2], output_padding=[1, 1], groups=2)");
  CHECK(printed(*nn::ConvTranspose3d(nn::ConvTranspose3dOptions(2, 2, 3).output_padding({0, 1, 0}))) ==
        "torch::nn::ConvTranspose3d(2, 2, kernel_size=[3, 3, 3], stride=[1, 1, 1], output_padding=[0, 1, 0])");
}
