// 1-D pooling and adaptive max pooling (aten/native/PoolingExtra.cpp, api/torch/nn/pooling_extra.h):
// values, indices and gradients against libtorch 2.15's (tests/nn/libtorch/record_losses.cpp),
// ties and NaN, the gradient reaching only each window's maximum, errors, modules and printing.
#include "reference_util.h"
#include <torch/nn/pooling_extra.h>

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using namespace ember_ref;

namespace {
// libtorch 2.15's output (tests/nn/libtorch/record_losses.cpp).
const Table kRef1d = {
#include "reference_losses.inc"
};
}  // namespace

TEST_CASE("max/avg/adaptive 1-D pooling and adaptive max 2-D pooling match libtorch", "[nn][pool]") {
  auto x = leaf(fill({1, 2, 9}, 9));
  auto [v, i] = F::max_pool1d_with_indices(x, F::MaxPool1dFuncOptions(3).stride(2).padding(1).ceil_mode(true));
  check_grad(kRef1d, "maxpool1d", v, {{"x", x}});
  check(kRef1d, "maxpool1d.idx", i);
  CHECK(i.scalar_type() == torch::kLong);
  check_grad(kRef1d, "maxpool1d.dil", F::max_pool1d(x, F::MaxPool1dFuncOptions(2).stride(1).dilation(3)), {{"x", x}});
  check_grad(kRef1d, "avgpool1d",
             F::avg_pool1d(x, F::AvgPool1dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false)), {{"x", x}});
  check_grad(kRef1d, "adaptiveavg1d", F::adaptive_avg_pool1d(x, F::AdaptiveAvgPool1dFuncOptions(4)), {{"x", x}});
  auto [av, ai] = F::adaptive_max_pool1d_with_indices(x, F::AdaptiveMaxPool1dFuncOptions(4));
  check_grad(kRef1d, "adaptivemax1d", av, {{"x", x}});
  check(kRef1d, "adaptivemax1d.idx", ai);
  auto x2 = leaf(fill({1, 2, 5, 7}, 10));
  auto [mv, mi] = F::adaptive_max_pool2d_with_indices(x2, F::AdaptiveMaxPool2dFuncOptions({3, 4}));
  check_grad(kRef1d, "adaptivemax2d", mv, {{"x", x2}});
  check(kRef1d, "adaptivemax2d.idx", mi);
  // Output larger than the input: overlapping windows, the gradient adds up where they share a maximum.
  auto [uv, ui] = F::adaptive_max_pool2d_with_indices(x2, F::AdaptiveMaxPool2dFuncOptions({7, 9}));
  check_grad(kRef1d, "adaptivemax2d.up", uv, {{"x", x2}});
  check(kRef1d, "adaptivemax2d.up.idx", ui);
}

TEST_CASE("adaptive max pooling: first maximum of a tie, NaN wins, unset sizes, unbatched, float32", "[nn][pool]") {
  // libtorch 2.15: windows [0, 3) and [2, 5) of {1, 3, 3, 2, 3} give 3 at 1 and 3 at 2.
  auto [v, i] = at::adaptive_max_pool2d(torch::tensor({1.0, 3.0, 3.0, 2.0, 3.0}).reshape({1, 1, 5}), {1, 2});
  CHECK(at::equal(i, torch::tensor({1, 2}, torch::kLong).reshape({1, 1, 2})));
  // libtorch 2.15: {1, NaN, 3, NaN, 0} gives NaN, NaN at 1 and 3.
  auto [nv, ni] = at::adaptive_max_pool2d(torch::tensor({1.0, NAN, 3.0, NAN, 0.0}).reshape({1, 1, 5}), {1, 2});
  CHECK(nv.isnan().all().item<bool>());
  CHECK(at::equal(ni, torch::tensor({1, 3}, torch::kLong).reshape({1, 1, 2})));
  const auto x = fill({2, 3, 6, 5}, 2).to(torch::kFloat);
  nn::AdaptiveMaxPool2d keep_w(nn::AdaptiveMaxPool2dOptions({2, std::nullopt}));
  CHECK(keep_w(x).sizes() == torch::IntArrayRef({2, 3, 2, 5}));
  CHECK(at::equal(keep_w(x), std::get<0>(x.reshape({2, 3, 2, 3, 5}).max(3))));
  CHECK(at::equal(nn::AdaptiveMaxPool2d(1)(x[0]), x[0].amax({1, 2}, true)));
  auto [ov, oi] = at::adaptive_max_pool2d(x, {0, 3});
  CHECK(ov.sizes() == torch::IntArrayRef({2, 3, 0, 3}));
  // A max_pool1d window of ties reports its first position (libtorch 2.15: 1 1 2 4).
  auto [pv, pi] = at::max_pool1d_with_indices(torch::tensor({1.0, 3.0, 3.0, 2.0, 3.0}).reshape({1, 5}), {2}, {1});
  CHECK(at::equal(pi, torch::tensor({1, 1, 2, 4}, torch::kLong).reshape({1, 4})));
}

TEST_CASE("pooling errors start with the op", "[nn][pool]") {
  const auto x = fill({2, 3, 8}, 1);
  CHECK_THAT(error_of([&] { at::max_pool1d(x.unsqueeze(0), {2}); }), Catch::StartsWith("[max_pool1d] expected a 2-D (C, L) or 3-D (N, C, L)"));
  CHECK_THAT(error_of([&] { at::max_pool1d(x, {0}); }), Catch::StartsWith("[max_pool1d] expected a positive kernel_size"));
  CHECK_THAT(error_of([&] { at::max_pool1d(x, {2}, {2}, {2}); }), Catch::StartsWith("[max_pool1d] expected padding between 0 and half"));
  CHECK_THAT(error_of([&] { at::max_pool1d(x, {2, 2}); }), Catch::StartsWith("[max_pool1d] expected kernel_size to have 1 value"));
  CHECK_THAT(error_of([&] { at::max_pool1d(x, {5}, {1}, {0}, {2}); }), Catch::StartsWith("[max_pool1d] the padded input"));
  CHECK_THAT(error_of([&] { at::avg_pool1d(x, {3}, {0}); }), Catch::StartsWith("[avg_pool1d] expected a positive stride"));
  CHECK_THAT(error_of([&] { at::adaptive_avg_pool1d(x, {-1}); }), Catch::StartsWith("[adaptive_avg_pool1d] expected a non-negative"));
  CHECK_THAT(error_of([&] { at::adaptive_max_pool2d(x[0], {2, 2}); }), Catch::StartsWith("[adaptive_max_pool2d] expected a 3-D"));
  CHECK_THAT(error_of([&] { at::adaptive_max_pool2d(torch::ones({1, 0, 2}), {1, 1}); }),
             Catch::StartsWith("[adaptive_max_pool2d] expected an input with non-zero channel and spatial sizes"));
  CHECK_THAT(error_of([&] { at::adaptive_max_pool2d(x.to(torch::kLong).unsqueeze(0), {1, 1}); }),
             Catch::StartsWith("[adaptive_max_pool2d] expected a floating point input"));
  CHECK_THAT(error_of([&] { at::adaptive_max_pool1d(x, {2, 2}); }), Catch::StartsWith("[adaptive_max_pool1d] expected output_size to have 1 value"));
}

TEST_CASE("pooling modules print as libtorch 2.15 and forward the functionals", "[nn][pool]") {
  CHECK(printed(*nn::MaxPool1d(3)) == "torch::nn::MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=false)");
  CHECK(printed(*nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2).padding(1).dilation(2).ceil_mode(true))) ==
        "torch::nn::MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=true)");
  CHECK(printed(*nn::AvgPool1d(3)) == "torch::nn::AvgPool1d(kernel_size=3, stride=3, padding=0)");
  CHECK(printed(*nn::AvgPool1d(nn::AvgPool1dOptions(3).stride(2).padding(1))) == "torch::nn::AvgPool1d(kernel_size=3, stride=2, padding=1)");
  CHECK(printed(*nn::AdaptiveMaxPool1d(3)) == "torch::nn::AdaptiveMaxPool1d(output_size=3)");
  CHECK(printed(*nn::AdaptiveMaxPool2d(3)) == "torch::nn::AdaptiveMaxPool2d(output_size=[3, 3])");
  CHECK(printed(*nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions({2, std::nullopt}))) ==
        "torch::nn::AdaptiveMaxPool2d(output_size=[2, None])");
  CHECK(printed(*nn::AdaptiveAvgPool1d(5)) == "torch::nn::AdaptiveAvgPool1d(output_size=5)");
  const auto x = fill({2, 3, 8}, 3);
  CHECK(at::equal(nn::MaxPool1d(2)(x), at::max_pool1d(x, {2})));
  CHECK(at::equal(std::get<1>(nn::MaxPool1d(2)->forward_with_indices(x)), std::get<1>(at::max_pool1d_with_indices(x, {2}))));
  CHECK(at::equal(nn::AvgPool1d(2)(x), at::avg_pool1d(x, {2})));
  CHECK(at::equal(nn::AdaptiveAvgPool1d(3)(x), at::adaptive_avg_pool1d(x, {3})));
  CHECK(at::equal(nn::AdaptiveMaxPool1d(3)(x), std::get<0>(at::adaptive_max_pool1d(x, {3}))));
  CHECK(at::equal(nn::AdaptiveMaxPool1d(3)(x[0]), std::get<0>(at::adaptive_max_pool1d(x, {3}))[0]));
  CHECK(at::equal(nn::MaxPool1d(2)(x[0]), at::max_pool1d(x, {2})[0]));
}
