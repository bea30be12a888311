// torch::nn::Conv2d and MaxPool2d: options (ExpandingArray spellings), parameter shapes and names,
// libtorch's default init range, forward against a direct float64 convolution written here, and
// the printing (strings recorded from libtorch 2.15).
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include "nn/reference_util.h"
#include <cmath>
#include <sstream>

namespace nn = torch::nn;

namespace {
using ember_ref::printed;
// Direct float64 2-D convolution (stride, padding, no dilation, one group).
torch::Tensor ref_conv(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b, int64_t s, int64_t p) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3), O = w.size(0), K = w.size(2);
  const int64_t OH = (H + 2 * p - K) / s + 1, OW = (W + 2 * p - K) / s + 1;
  auto xa = x.to(torch::kDouble).contiguous(), wa = w.to(torch::kDouble).contiguous(), ba = b.to(torch::kDouble).contiguous();
  const double *xp = xa.data_ptr<double>(), *wp = wa.data_ptr<double>(), *bp = ba.data_ptr<double>();
  auto y = torch::zeros({N, O, OH, OW}, torch::kDouble);
  double* yp = y.data_ptr<double>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          double acc = bp[o];
          for (int64_t c = 0; c < C; ++c)
            for (int64_t u = 0; u < K; ++u)
              for (int64_t v = 0; v < K; ++v) {
                const int64_t h = i * s - p + u, ww = j * s - p + v;
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                acc += xp[((n * C + c) * H + h) * W + ww] * wp[((o * C + c) * K + u) * K + v];
              }
          yp[((n * O + o) * OH + i) * OW + j] = acc;
        }
  return y;
}
}  // namespace

TEST_CASE("nn::Conv2d: parameters, default init, forward", "[nn][layers][conv]") {
  torch::manual_seed(0);
  nn::Conv2d conv(nn::Conv2dOptions(3, 4, 3).stride(2).padding(1));
  CHECK(conv->weight.sizes() == std::vector<int64_t>{4, 3, 3, 3});
  CHECK(conv->bias.sizes() == std::vector<int64_t>{4});
  CHECK(conv->named_parameters().keys() == std::vector<std::string>{"weight", "bias"});
  // kaiming_uniform_(a = sqrt(5)) on fan_in = 3 * 3 * 3: bound 1/sqrt(27) for weight and bias.
  const double bound = 1 / std::sqrt(27.0);
  CHECK(conv->weight.abs().max().item<double>() <= bound);
  CHECK(conv->weight.abs().max().item<double>() > 0.9 * bound);
  CHECK(conv->bias.abs().max().item<double>() <= bound);
  auto x = torch::randn({2, 3, 7, 6});
  auto y = conv(x);
  CHECK(y.sizes() == std::vector<int64_t>{2, 4, 4, 3});
  CHECK(torch::allclose(y.to(torch::kDouble), ref_conv(x, conv->weight.detach(), conv->bias.detach(), 2, 1), 1e-5, 1e-5));
  y.sum().backward();
  CHECK(conv->weight.grad().sizes() == conv->weight.sizes());
  CHECK(conv->bias.grad().sizes() == conv->bias.sizes());

  nn::Conv2d grouped(nn::Conv2dOptions(4, 8, {3, 2}).groups(2).bias(false));
  CHECK(grouped->weight.sizes() == std::vector<int64_t>{8, 2, 3, 2});
  CHECK_FALSE(grouped->bias.defined());
  CHECK(grouped->named_parameters().keys() == std::vector<std::string>{"weight"});
  CHECK(grouped(torch::randn({1, 4, 5, 5})).sizes() == std::vector<int64_t>{1, 8, 3, 4});

  CHECK_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(3, 4, {3, 3, 3})), Catch::StartsWith("[ExpandingArray] expected 2 values"));
  CHECK_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)), Catch::StartsWith("[Conv2d] expected groups (2)"));
}

TEST_CASE("nn::MaxPool2d and functional pooling", "[nn][layers][pool]") {
  // One plane 4x4 of distinct values: each 2x2 window's maximum is its bottom-right element.
  auto x = torch::arange(16, torch::kFloat).reshape({1, 1, 4, 4});
  nn::MaxPool2d pool(2);
  CHECK(pool->options.stride()->at(0) == 2);  // the stride defaults to the kernel size
  auto y = pool(x);
  CHECK(torch::equal(y, torch::tensor({5.0f, 7.0f, 13.0f, 15.0f}).reshape({1, 1, 2, 2})));
  auto [v, i] = pool->forward_with_indices(x);
  CHECK(torch::equal(i, torch::tensor({5, 7, 13, 15}, torch::kLong).reshape({1, 1, 2, 2})));
  namespace F = torch::nn::functional;
  auto z = F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(1).padding(1));
  CHECK(z.sizes() == std::vector<int64_t>{1, 1, 4, 4});
  CHECK(z[0][0][0][0].item<float>() == 5.0f);
  auto w = torch::ones({2, 1, 3, 3});
  auto c = F::conv2d(x, w, F::Conv2dFuncOptions().padding(1).bias(torch::tensor({0.5f, -1.0f})));
  CHECK(c.sizes() == std::vector<int64_t>{1, 2, 4, 4});
  CHECK(c[0][0][0][0].item<float>() == 0.5f + 0 + 1 + 4 + 5);
  CHECK(c[0][1][1][1].item<float>() == -1.0f + (0 + 1 + 2 + 4 + 5 + 6 + 8 + 9 + 10));
}

TEST_CASE("nn::Conv2d and MaxPool2d print as libtorch's", "[nn][layers][print]") {
  CHECK(printed(*nn::Conv2d(nn::Conv2dOptions(1, 10, 5))) == "torch::nn::Conv2d(1, 10, kernel_size=[5, 5], stride=[1, 1])");
  CHECK(printed(*nn::Conv2d(nn::Conv2dOptions(4, 8, {3, 2}).stride({2, 1}).padding(1).dilation(2).groups(2).bias(false))) ==
        "torch::nn::Conv2d(4, 8, kernel_size=[3, 2], stride=[2, 1], padding=[1, 1], dilation=[2, 2], groups=2, bias=false)");
  CHECK(printed(*nn::MaxPool2d(2)) ==
        "torch::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], ceil_mode=false)");
  CHECK(printed(*nn::MaxPool2d(nn::MaxPool2dOptions({3, 2}).stride(1).padding(1).ceil_mode(true))) ==
        "torch::nn::MaxPool2d(kernel_size=[3, 2], stride=[1, 1], padding=[1, 1], dilation=[1, 1], ceil_mode=true)");
}
