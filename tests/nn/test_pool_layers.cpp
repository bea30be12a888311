// Average pooling: at::avg_pool2d / at::adaptive_avg_pool2d against float64 loops written here
// from the definitions (window clipped to the padded input or to the input, adaptive windows
// [floor(i * in / out), ceil((i + 1) * in / out))), values and printing recorded from libtorch
// 2.15, options and defaults, gradients, and the errors.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include "nn/reference_util.h"
#include <cstdint>
#include <optional>
#include <sstream>
#include <vector>

namespace nn = torch::nn;
namespace F = torch::nn::functional;

namespace {
using ember_ref::printed;
struct AvgSpec {
  int64_t kh, kw, sh, sw, ph, pw;
  bool ceil_mode = false, count_include_pad = true;
  std::optional<int64_t> divisor;
};

// One dimension's output length: floor or ceil of (in + 2p - k) / s, plus one; a ceil_mode window
// that would start past the input and its left padding is dropped.
int64_t out_len(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode) {
  const int64_t span = in + 2 * p - k;
  int64_t n = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (n - 1) * s >= in + p) n -= 1;
  return n;
}

// Float64 average pooling of an (N, C, H, W) tensor, one window at a time.
torch::Tensor ref_avg(const torch::Tensor& x, const AvgSpec& a) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t OH = out_len(H, a.kh, a.sh, a.ph, a.ceil_mode), OW = out_len(W, a.kw, a.sw, a.pw, a.ceil_mode);
  auto xa = x.to(torch::kDouble).contiguous();
  const double* xp = xa.data_ptr<double>();
  auto y = torch::zeros({N, C, OH, OW}, torch::kDouble);
  double* yp = y.data_ptr<double>();
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j) {
        double sum = 0;
        int64_t inside = 0, padded_cells = 0;
        for (int64_t u = 0; u < a.kh; ++u)
          for (int64_t v = 0; v < a.kw; ++v) {
            const int64_t h = i * a.sh - a.ph + u, w = j * a.sw - a.pw + v;
            // A cell of the padded input (ceil_mode windows may reach past it).
            if (h < H + a.ph && w < W + a.pw) ++padded_cells;
            if (h < 0 || h >= H || w < 0 || w >= W) continue;
            sum += xp[(nc * H + h) * W + w];
            ++inside;
          }
        const double d = a.divisor ? double(*a.divisor) : double(a.count_include_pad ? padded_cells : inside);
        yp[(nc * OH + i) * OW + j] = sum / d;
      }
  return y;
}

// Float64 adaptive average pooling of an (N, C, H, W) tensor.
torch::Tensor ref_adaptive(const torch::Tensor& x, int64_t OH, int64_t OW) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  auto xa = x.to(torch::kDouble).contiguous();
  const double* xp = xa.data_ptr<double>();
  auto y = torch::zeros({N, C, OH, OW}, torch::kDouble);
  double* yp = y.data_ptr<double>();
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j) {
        const int64_t h0 = i * H / OH, h1 = ((i + 1) * H + OH - 1) / OH;
        const int64_t w0 = j * W / OW, w1 = ((j + 1) * W + OW - 1) / OW;
        double sum = 0;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) sum += xp[(nc * H + h) * W + w];
        yp[(nc * OH + i) * OW + j] = sum / double((h1 - h0) * (w1 - w0));
      }
  return y;
}

// The same values over NHWC memory.
torch::Tensor channels_last(const torch::Tensor& x) { return x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}); }

torch::Tensor at_avg(const torch::Tensor& x, const AvgSpec& a) {
  return at::avg_pool2d(x, {a.kh, a.kw}, {a.sh, a.sw}, {a.ph, a.pw}, a.ceil_mode, a.count_include_pad, a.divisor);
}
}  // namespace

TEST_CASE("avg_pool2d matches a float64 loop over its geometries", "[nn][pool][avg_pool2d]") {
  torch::manual_seed(3);
  const std::vector<std::pair<std::vector<int64_t>, AvgSpec>> cases = {
      {{2, 3, 6, 6}, {2, 2, 2, 2, 0, 0}},
      {{1, 2, 7, 7}, {3, 3, 2, 2, 1, 1}},
      {{1, 2, 7, 6}, {3, 2, 2, 2, 1, 1, true}},
      {{1, 2, 5, 5}, {2, 2, 2, 2, 1, 1, true}},                // ceil_mode's last window would start in the right padding
      {{1, 2, 6, 8}, {3, 3, 2, 2, 1, 1, true, false}},
      {{2, 2, 5, 5}, {3, 3, 2, 2, 1, 1, false, false}},
      {{1, 3, 5, 5}, {2, 2, 1, 1, 0, 0, false, true, 3}},
      {{1, 2, 9, 8}, {4, 3, 3, 2, 2, 1, true, true, -2}},
      {{2, 1, 4, 9}, {1, 3, 1, 3, 0, 1, false, false}},
  };
  for (const auto& c : cases) {
    const auto& a = c.second;
    auto x = torch::randn(c.first, torch::kDouble);
    auto y = at_avg(x, a);
    auto r = ref_avg(x, a);
    INFO("input " << x.sizes() << " kernel " << a.kh << "x" << a.kw << " stride " << a.sh << "x" << a.sw << " pad " << a.ph
                  << "x" << a.pw << " ceil " << a.ceil_mode << " count_include_pad " << a.count_include_pad);
    REQUIRE(y.sizes() == r.sizes());
    CHECK(torch::allclose(y, r, 1e-12, 1e-12));
    // float32 and a channels_last input give the same values.
    auto yf = at_avg(channels_last(x.to(torch::kFloat)), a);
    CHECK(torch::allclose(yf.to(torch::kDouble), r, 1e-5, 1e-6));
  }
  // Unbatched (C, H, W) input.
  auto x3 = torch::randn({3, 5, 6}, torch::kDouble);
  AvgSpec a{3, 3, 2, 2, 1, 1, true, false};
  auto y3 = at_avg(x3, a);
  CHECK(y3.sizes() == std::vector<int64_t>{3, 3, 4});
  CHECK(torch::allclose(y3, ref_avg(x3.unsqueeze(0), a).squeeze(0), 1e-12, 1e-12));
}

TEST_CASE("avg_pool2d: values and gradient", "[nn][pool][avg_pool2d]") {
  // Recorded from libtorch 2.15: x = sin(arange(210)) as (2, 3, 5, 7) doubles, kernel 3, stride 2,
  // padding 1, ceil_mode, count_include_pad=false.
  auto x = torch::arange(2 * 3 * 5 * 7, torch::kDouble).reshape({2, 3, 5, 7}).sin();
  auto y = F::avg_pool2d(x, F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false));
  CHECK(y.sizes() == std::vector<int64_t>{2, 3, 3, 4});
  CHECK(y[1][2][2][3].item<double>() == Approx(0.58751568202606941).epsilon(1e-12));
  CHECK(y.sum().item<double>() == Approx(0.83038470771544226).epsilon(1e-12));
  // The gradient of the sum: each input position gets 1 / divisor from every window holding it.
  AvgSpec a{3, 3, 2, 2, 1, 1, false, true};
  auto xg = torch::randn({1, 2, 5, 6}, torch::kDouble).requires_grad_(true);
  at_avg(xg, a).sum().backward();
  auto expect = torch::zeros({1, 2, 5, 6}, torch::kDouble);
  for (int64_t h = 0; h < 5; ++h)
    for (int64_t w = 0; w < 6; ++w) {
      double g = 0;
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          const int64_t h0 = 2 * i - 1, w0 = 2 * j - 1;
          if (h >= h0 && h < h0 + 3 && w >= w0 && w < w0 + 3) g += 1.0 / 9.0;  // every window has 9 padded cells
        }
      expect[0][0][h][w] = g;
      expect[0][1][h][w] = g;
    }
  CHECK(torch::allclose(xg.grad(), expect, 1e-12, 1e-12));
}

TEST_CASE("adaptive_avg_pool2d matches a float64 loop", "[nn][pool][adaptive_avg_pool2d]") {
  torch::manual_seed(4);
  const std::vector<std::vector<int64_t>> cases = {
      {2, 3, 7, 5, 3, 2}, {1, 2, 8, 6, 4, 3}, {2, 3, 5, 5, 1, 1}, {1, 2, 6, 5, 4, 4}, {1, 1, 3, 9, 7, 2}, {2, 2, 6, 6, 6, 6}};
  for (const auto& c : cases) {
    auto x = torch::randn({c[0], c[1], c[2], c[3]}, torch::kDouble);
    INFO("input " << x.sizes() << " output " << c[4] << "x" << c[5]);
    auto y = at::adaptive_avg_pool2d(x, {c[4], c[5]});
    auto r = ref_adaptive(x, c[4], c[5]);
    REQUIRE(y.sizes() == r.sizes());
    CHECK(torch::allclose(y, r, 1e-12, 1e-12));
    auto yf = at::adaptive_avg_pool2d(channels_last(x.to(torch::kFloat)), {c[4], c[5]});
    CHECK(torch::allclose(yf.to(torch::kDouble), r, 1e-5, 1e-6));
  }
  // Recorded from libtorch 2.15 (same x as the avg_pool2d values above).
  auto x = torch::arange(2 * 3 * 5 * 7, torch::kDouble).reshape({2, 3, 5, 7}).sin();
  auto z = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({3, 4}));
  CHECK(z[1][2][1][2].item<double>() == Approx(-0.56726015848843037).epsilon(1e-12));
  CHECK(z.sum().item<double>() == Approx(0.83038470771544204).epsilon(1e-12));
  // An unset output element keeps the input's size (libtorch: [2, 3, 2, 7]); a zero gives an empty result.
  CHECK(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({2, std::nullopt})).sizes() == std::vector<int64_t>{2, 3, 2, 7});
  CHECK(at::adaptive_avg_pool2d(x, {0, 3}).sizes() == std::vector<int64_t>{2, 3, 0, 3});
  // Unbatched input and the gradient of the mean over everything (each position weighs equally).
  auto x3 = torch::randn({2, 4, 6}, torch::kDouble).requires_grad_(true);
  auto y3 = at::adaptive_avg_pool2d(x3, {2, 3});
  CHECK(torch::allclose(y3, ref_adaptive(x3.detach().unsqueeze(0), 2, 3).squeeze(0), 1e-12, 1e-12));
  y3.sum().backward();
  CHECK(torch::allclose(x3.grad(), torch::full({2, 4, 6}, 1.0 / 4.0, torch::kDouble), 1e-12, 1e-12));
}

TEST_CASE("nn::AvgPool2d and AdaptiveAvgPool2d: options, forward, printing", "[nn][layers][pool][print]") {
  // Defaults (libtorch 2.15): stride = kernel_size, padding 0, ceil_mode false, count_include_pad
  // true, no divisor_override.
  auto o = nn::AvgPool2dOptions(3);
  CHECK(*o.stride() == std::array<int64_t, 2>{3, 3});
  CHECK(*o.padding() == std::array<int64_t, 2>{0, 0});
  CHECK(!o.ceil_mode());
  CHECK(o.count_include_pad());
  CHECK(!o.divisor_override().has_value());
  nn::AvgPool2d pool(nn::AvgPool2dOptions({3, 2}).stride({2, 1}).padding(1).ceil_mode(true).count_include_pad(false).divisor_override(5));
  auto x = torch::randn({2, 3, 7, 6});
  AvgSpec a{3, 2, 2, 1, 1, 1, true, false, 5};
  CHECK(torch::allclose(pool(x).to(torch::kDouble), ref_avg(x, a), 1e-5, 1e-6));
  CHECK(pool->parameters().empty());
  nn::AdaptiveAvgPool2d gap(1);
  auto g = gap(x);
  CHECK(g.sizes() == std::vector<int64_t>{2, 3, 1, 1});
  CHECK(torch::allclose(g.flatten(1), x.mean({2, 3}), 1e-5, 1e-6));
  // Printing recorded from libtorch 2.15.
  CHECK(printed(*nn::AvgPool2d(2)) == "torch::nn::AvgPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0])");
  CHECK(printed(*pool) == "torch::nn::AvgPool2d(kernel_size=[3, 2], stride=[2, 1], padding=[1, 1])");
  CHECK(printed(*nn::AdaptiveAvgPool2d(3)) == "torch::nn::AdaptiveAvgPool2d(output_size=[3, 3])");
  CHECK(printed(*nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({2, 4}))) ==
        "torch::nn::AdaptiveAvgPool2d(output_size=[2, 4])");
  CHECK(printed(*nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({2, std::nullopt}))) ==
        "torch::nn::AdaptiveAvgPool2d(output_size=[2, None])");
}

TEST_CASE("avg_pool2d and adaptive_avg_pool2d errors", "[nn][pool][errors]") {
  using Catch::Matchers::Contains;
  auto x = torch::randn({2, 3, 5, 7});
  // libtorch: "pad should be at most half of effective kernel size".
  CHECK_THROWS_WITH(at::avg_pool2d(x, {3, 3}, {1, 1}, {2, 2}), Contains("[avg_pool2d]") && Contains("half the kernel"));
  // libtorch: "divisor must be not zero".
  CHECK_THROWS_WITH(at::avg_pool2d(x, {2, 2}, {1, 1}, {0, 0}, false, true, 0),
                    Contains("[avg_pool2d]") && Contains("divisor_override"));
  // libtorch: "Output size is too small".
  CHECK_THROWS_WITH(at::avg_pool2d(torch::zeros({1, 1, 2, 2}), {3, 3}), Contains("[avg_pool2d]") && Contains("output size"));
  CHECK_THROWS_WITH(at::avg_pool2d(torch::zeros({5, 5}), {2, 2}), Contains("[avg_pool2d]") && Contains("3-D"));
  CHECK_THROWS_WITH(at::avg_pool2d(x, {2, 2}, {0, 1}), Contains("[avg_pool2d]") && Contains("stride"));
  CHECK_THROWS_WITH(at::avg_pool2d(x, {2, 2, 2}), Contains("[avg_pool2d]") && Contains("kernel_size"));
  // Hostile sizes raise instead of wrapping around.
  const int64_t big = int64_t(1) << 62;
  CHECK_THROWS_WITH(at::avg_pool2d(x, {big, big}, {1, 1}, {big / 2, big / 2}), Contains("[avg_pool2d]"));
  CHECK_THROWS_WITH(at::avg_pool2d(x, {INT64_MAX, 2}), Contains("[avg_pool2d]"));
  // libtorch: "Expected 3D or 4D tensor".
  CHECK_THROWS_WITH(at::adaptive_avg_pool2d(torch::zeros({5, 5}), {2, 2}), Contains("[adaptive_avg_pool2d]") && Contains("3-D"));
  // libtorch: "elements of output_size must be greater than or equal to 0".
  CHECK_THROWS_WITH(at::adaptive_avg_pool2d(x, {-1, 3}), Contains("[adaptive_avg_pool2d]") && Contains("non-negative"));
  CHECK_THROWS_WITH(at::adaptive_avg_pool2d(torch::zeros({2, 0, 4, 4}), {2, 2}), Contains("[adaptive_avg_pool2d]"));
  // libtorch's mean rejects integer inputs of adaptive_avg_pool2d too.
  CHECK_THROWS_WITH(at::adaptive_avg_pool2d(torch::zeros({1, 2, 2, 2}, torch::kLong), {1, 1}),
                    Contains("[adaptive_avg_pool2d]"));
}

TEST_CASE("avg_pool2d on int64 divides with truncation", "[nn][pool][avg_pool2d]") {
  // Recorded from libtorch 2.15 (its CPU kernel takes int64: integer sums, truncating division).
  auto x = ((torch::arange(30, torch::kLong) * 7).remainder(11) - 5).reshape({1, 1, 5, 6});
  auto y = at::avg_pool2d(x * 10, {3, 3}, {2, 2}, {1, 1}, false, false);
  CHECK(y.scalar_type() == torch::kLong);
  CHECK(torch::equal(y.flatten(), torch::tensor({2, 6, 0, 0, 1, -5, -2, 1, -5}, torch::kLong)));
  auto z = at::avg_pool2d(x, {2, 2}, {2, 2}, {0, 0}, true, true, 3);
  CHECK(torch::equal(z.flatten(), torch::tensor({0, 0, -2, -1, 2, 0, 1, 0, 1}, torch::kLong)));
}
