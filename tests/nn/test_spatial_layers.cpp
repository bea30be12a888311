// Padding, resizing and block layers: F::pad and the padding modules against float64 references
// built here from flips and slices, F::interpolate / nn::Upsample against values and gradients
// recorded from libtorch 2.15 (and finite differences), F::unfold / F::fold against conv2d and
// the adjoint identity, pixel (un)shuffle against an index loop, Bilinear against a float64 loop,
// Unflatten, printing (libtorch's strings) and the errors.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include "nn/reference_util.h"
#include <torch/csrc/autograd/gradcheck.h>
#include <sstream>
#include <vector>

namespace nn = torch::nn;
namespace F = torch::nn::functional;

namespace {
using ember_ref::printed;
// The deterministic input the libtorch reference program used: (i * step + off) mod 3 - 1.
torch::Tensor ramp(std::vector<int64_t> s, double step = 0.25, double off = -1.5) {
  int64_t n = 1;
  for (auto v : s) n *= v;
  return torch::arange(n, torch::kDouble).mul(step).add(off).remainder(3.0).sub(1.0).to(torch::kFloat).reshape(s);
}

torch::Tensor values(std::vector<int64_t> shape, std::vector<double> v) { return torch::tensor(v, torch::kDouble).reshape(shape); }

void require_close(const torch::Tensor& got, const torch::Tensor& want, double tol = 1e-5) {
  REQUIRE(got.sizes() == want.sizes());
  INFO("got " << got << "\nwant " << want);
  REQUIRE(torch::allclose(got.detach().to(torch::kDouble), want.to(torch::kDouble), tol, tol));
}

// One dim padded by slicing and flipping (no index tables): reflect mirrors without the edge,
// replicate repeats the edge, circular wraps.
torch::Tensor pad_dim(const torch::Tensor& x, int64_t d, int64_t before, int64_t after, const std::string& mode) {
  const int64_t n = x.size(d);
  std::vector<torch::Tensor> parts;
  if (mode == "reflect") {
    if (before > 0) parts.push_back(x.narrow(d, 1, before).flip({d}));
    parts.push_back(x);
    if (after > 0) parts.push_back(x.narrow(d, n - 1 - after, after).flip({d}));
  } else if (mode == "replicate") {
    if (before > 0) parts.push_back(x.narrow(d, 0, 1).repeat_interleave(before, d));
    parts.push_back(x);
    if (after > 0) parts.push_back(x.narrow(d, n - 1, 1).repeat_interleave(after, d));
  } else {
    if (before > 0) parts.push_back(x.narrow(d, n - before, before));
    parts.push_back(x);
    if (after > 0) parts.push_back(x.narrow(d, 0, after));
  }
  return torch::cat(parts, d);
}

torch::Tensor ref_pad(torch::Tensor x, std::vector<int64_t> pad, const std::string& mode) {
  x = x.to(torch::kDouble);
  for (size_t i = 0; i < pad.size() / 2; ++i) x = pad_dim(x, x.dim() - 1 - int64_t(i), pad[2 * i], pad[2 * i + 1], mode);
  return x;
}
}  // namespace

TEST_CASE("F::pad and the padding layers against slice-and-flip references", "[nn][padding]") {
  const auto x4 = ramp({2, 3, 4, 5});
  const auto x5 = ramp({1, 2, 3, 4, 3});
  const auto x3 = ramp({2, 3, 6});
  for (const std::string mode : {"reflect", "replicate", "circular"}) {
    F::PadFuncOptions::mode_t m = torch::kReflect;
    if (mode == "replicate") m = torch::kReplicate;
    if (mode == "circular") m = torch::kCircular;
    INFO(mode);
    require_close(F::pad(x3, F::PadFuncOptions({3, 2}).mode(m)), ref_pad(x3, {3, 2}, mode), 0);
    require_close(F::pad(x4, F::PadFuncOptions({1, 3, 2, 0}).mode(m)), ref_pad(x4, {1, 3, 2, 0}, mode), 0);
    require_close(F::pad(x5, F::PadFuncOptions({2, 1, 0, 3, 1, 2}).mode(m)), ref_pad(x5, {2, 1, 0, 3, 1, 2}, mode), 0);
    // Unbatched and non-contiguous inputs.
    require_close(F::pad(x4[0].transpose(1, 2), F::PadFuncOptions({2, 2, 1, 1}).mode(m)),
                  ref_pad(x4[0].transpose(1, 2), {2, 2, 1, 1}, mode), 0);
  }
  require_close(F::pad(x4, F::PadFuncOptions({1, 2, 0, 1}).value(2.5)),
                torch::constant_pad_nd(x4, {1, 2, 0, 1}, 2.5).to(torch::kDouble), 0);
  // The layers.
  require_close(nn::ReflectionPad1d(nn::ReflectionPad1dOptions({2, 1}))(x3), ref_pad(x3, {2, 1}, "reflect"), 0);
  require_close(nn::ReflectionPad2d(1)(x4), ref_pad(x4, {1, 1, 1, 1}, "reflect"), 0);
  require_close(nn::ReflectionPad3d(nn::ReflectionPad3dOptions({1, 0, 2, 1, 0, 2}))(x5), ref_pad(x5, {1, 0, 2, 1, 0, 2}, "reflect"), 0);
  require_close(nn::ReplicationPad1d(3)(x3), ref_pad(x3, {3, 3}, "replicate"), 0);
  require_close(nn::ReplicationPad2d(nn::ReplicationPad2dOptions({0, 2, 3, 1}))(x4), ref_pad(x4, {0, 2, 3, 1}, "replicate"), 0);
  require_close(nn::ReplicationPad3d(2)(x5), ref_pad(x5, {2, 2, 2, 2, 2, 2}, "replicate"), 0);
  require_close(nn::ZeroPad2d(nn::ZeroPad2dOptions({1, 0, 2, 3}))(x4), torch::constant_pad_nd(x4, {1, 0, 2, 3}, 0).to(torch::kDouble), 0);
  require_close(nn::ConstantPad1d(2, -1.5)(x3), torch::constant_pad_nd(x3, {2, 2}, -1.5).to(torch::kDouble), 0);
  require_close(nn::ConstantPad3d(nn::ConstantPad3dOptions({1, 0, 0, 1, 1, 1}, 4.0))(x5),
                torch::constant_pad_nd(x5, {1, 0, 0, 1, 1, 1}, 4.0).to(torch::kDouble), 0);
  // Negative padding crops; circular padding wraps around what is left of the dim.
  require_close(torch::reflection_pad1d(x3, {-2, 3}), ref_pad(x3, {0, 3}, "reflect").narrow(2, 2, 7), 0);
  require_close(F::pad(x3, F::PadFuncOptions({2, -1}).mode(torch::kCircular)), ref_pad(x3.narrow(2, 0, 5), {2, 0}, "circular"), 0);
  // NaN travels with its element.
  auto xn = x3.clone();
  xn[0][0][1] = NAN;
  REQUIRE(torch::isnan(F::pad(xn, F::PadFuncOptions({1, 0}).mode(torch::kReflect))[0][0][0]).item<bool>());
}

TEST_CASE("padding gradients: scatter-added onto the source positions (finite differences)", "[nn][padding][grad]") {
  for (const char* mode : {"reflect", "replicate", "circular"}) {
    auto x = ramp({1, 2, 3, 4}).to(torch::kDouble).requires_grad_();
    auto f = [&](const torch::autograd::variable_list& in) {
      return torch::autograd::variable_list{torch::pad(in[0], {3, 2, 2, 1}, mode)};
    };
    INFO(mode);
    REQUIRE(torch::autograd::gradcheck(f, {x}));
  }
  // Reflect padding of 2 on a size-3 dim: the middle element is read by two padded positions.
  auto x = torch::ones({1, 1, 3}, torch::kDouble).requires_grad_();
  torch::reflection_pad1d(x, {2, 2}).sum().backward();
  require_close(x.grad(), values({1, 1, 3}, {2, 3, 2}), 0);
}

TEST_CASE("padding errors", "[nn][padding][errors]") {
  const auto x = ramp({1, 2, 3, 4});
  REQUIRE_THROWS_WITH(F::pad(x, F::PadFuncOptions({4, 0, 0, 0}).mode(torch::kReflect)),
                      Catch::Contains("[reflection_pad2d] expected reflect padding smaller than the padded dim; got padding (4, 0) for dim 3 of size 4"));
  REQUIRE_THROWS_WITH(F::pad(x, F::PadFuncOptions({1, 0, 0, 3}).mode(torch::kReflect)),
                      Catch::Contains("[reflection_pad2d] expected reflect padding smaller than the padded dim; got padding (0, 3) for dim 2"));
  REQUIRE_THROWS_WITH(F::pad(x, F::PadFuncOptions({1, 0}).mode(torch::kReflect).value(1.0)),
                      Catch::Contains("[pad] mode 'reflect' takes no fill value"));
  REQUIRE_THROWS_WITH(F::pad(x, F::PadFuncOptions({1, 0, 1})), Catch::Contains("[pad] expected an even number of padding values"));
  // libtorch: a 1-D padding of a 4-D input is no reflect / replicate / circular padding (2-D or 3-D input only).
  REQUIRE_THROWS_WITH(F::pad(x, F::PadFuncOptions({1, 1}).mode(torch::kReflect)),
                      Catch::Contains("[pad] mode 'reflect' pads 1 to 3 trailing dims of an input with one or two more dims"));
  REQUIRE_THROWS_WITH(F::pad(x, F::PadFuncOptions({5, 0, 0, 0}).mode(torch::kCircular)),
                      Catch::Contains("[pad] expected circular padding no larger than the padded dim"));
  REQUIRE_THROWS_WITH(F::pad(ramp({3}), F::PadFuncOptions({1, 1, 1, 1})), Catch::Contains("[pad] expected at most 2 padding values per input dim"));
  REQUIRE_THROWS_WITH(torch::pad(x, {1, 1}, "mirror"), Catch::Contains("[pad] expected mode 'constant', 'reflect', 'replicate' or 'circular'; got 'mirror'"));
  REQUIRE_THROWS_WITH(torch::reflection_pad2d(ramp({3, 4}), {1, 1, 1, 1}),
                      Catch::Contains("[reflection_pad2d] expected a 3-D (unbatched) or 4-D (batched) input"));
  REQUIRE_THROWS_WITH(torch::replication_pad1d(ramp({2, 3}), {1}), Catch::Contains("[replication_pad1d] expected padding of 2 values"));
  REQUIRE_THROWS_WITH(torch::replication_pad1d(ramp({2, 3}), {-2, -1}),
                      Catch::Contains("[replication_pad1d] expected a padded size of at least 1"));
  REQUIRE_THROWS_WITH(torch::replication_pad2d(torch::zeros({1, 0, 3, 3}), {1, 1, 1, 1}),
                      Catch::Contains("[replication_pad2d] expected non-zero channel and spatial sizes"));
}

TEST_CASE("padding layers print as libtorch", "[nn][padding]") {
  // Strings recorded from libtorch 2.15.
  REQUIRE(printed(*nn::ReflectionPad2d(nn::ReflectionPad2dOptions({1, 2, 3, 4}))) == "torch::nn::ReflectionPad2d(padding=[1, 2, 3, 4])");
  REQUIRE(printed(*nn::ReplicationPad1d(nn::ReplicationPad1dOptions(2))) == "torch::nn::ReplicationPad1d(padding=[2, 2])");
  REQUIRE(printed(*nn::ZeroPad2d(nn::ZeroPad2dOptions(1))) == "torch::nn::ZeroPad2d(padding=[1, 1, 1, 1])");
  REQUIRE(printed(*nn::ConstantPad3d(nn::ConstantPad3dOptions(1, 3.5))) == "torch::nn::ConstantPad3d(padding=[1, 1, 1, 1, 1, 1], value=3.5)");
  REQUIRE(printed(*nn::ConstantPad1d(nn::ConstantPad1dOptions({1, 2}, -1))) == "torch::nn::ConstantPad1d(padding=[1, 2], value=-1)");
}

// libtorch 2.15's outputs on x = ramp({1, 2, 3, 4}) with output gradient ramp({1, 2, 4, 6}, 0.35, 0.1).
TEST_CASE("F::interpolate bilinear against libtorch: scale factors, recompute_scale_factor, align_corners",
          "[nn][upsample]") {
  const auto g = ramp({1, 2, 4, 6}, 0.35, 0.1);
  struct Case {
    F::InterpolateFuncOptions options;
    std::vector<double> y, gx;
  };
  const std::vector<double> y_s15 = {0.5, 0.625, 0.791666687, 0.958333373, 1.125, 1.25, 1, 1.125, 1.04166663, 0.208333313, 0.125, 0.25,
                                     1.16666651, 1.29166639, 1.04166639, -0.458333403, -0.708333254, -0.583333254, -0.166666746,
                                     -0.041666761, 0.0416665673, -0.124999993, -0.0416666269, 0.0833333805};
  const std::vector<double> y_rc = {0.5, 0.625, 0.791666687, 0.958333373, 1.125, 1.25, 1.125, 1.25, 1.10416651, 0.0208332539, -0.125,
                                    2.23517418e-08, 0.75, 0.875, 0.729166508, -0.354166746, -0.5, -0.37499997, -0.5, -0.375,
                                    -0.208333313, -0.0416666567, 0.125, 0.25};
  const std::vector<double> y_ac = {0.5, 0.649999976, 0.800000012, 0.950000048, 1.10000002, 1.25, 1.16666675, 1.31666672, 1.0666666,
                                    0.0166665316, -0.233333349, -0.083333388, 0.833333254, 0.98333317, 0.73333317, -0.316666782,
                                    -0.566666603, -0.416666627, -0.5, -0.349999994, -0.199999988, -0.0499999821, 0.100000024, 0.25};
  auto twice = [](std::vector<double> v) {  // both channels of the ramp repeat (period 12 of 0.25 steps)
    v.insert(v.end(), v.begin(), v.end());
    return v;
  };
  const std::vector<Case> cases = {
      {F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.5, 1.5}).mode(torch::kBilinear).align_corners(false),
       twice(y_s15),
       {-0.18749994, 0.699999928, 0.0875000432, 0.975000024, 1.38749981, 2.27499962, 1.66250002, 0.0500000045, -0.5, 0.258333415,
        1.01666689, 1.2750001, 2.96249986, 1.0999999, 0.737500012, 0.375, 0.537499964, 1.17499971, 2.3125, 1.94999981, 1.0999999,
        -0.641666591, 0.116666727, 0.875000238}},
      {F::InterpolateFuncOptions()
           .scale_factor(std::vector<double>{1.5, 1.5})
           .mode(torch::kBilinear)
           .align_corners(false)
           .recompute_scale_factor(true),
       twice(y_rc),
       {-0.434374928, 0.42083326, 0.151041731, 1.00625002, 1.625, 2.26041651, 1.02083349, -0.218749955, -0.490625024, 0.552083254,
        1.59479177, 1.51250005, 2.82812476, 0.870833337, 0.413541645, 0.331250012, 0.5, 1.44791639, 2.39583349, 1.46875, 1.2718749,
        -0.685416698, 0.357291609, 1.4000001}},
      {F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 6}).mode(torch::kBilinear).align_corners(true), twice(y_ac),
       {-0.51333338, 0.306666583, 0.226666659, 0.980000079, 1.5866667, 2.50666642, 1.22666657, -0.319999903, -0.513333321, 0.506666601,
        1.62666667, 1.38000011, 2.5666666, 1.02666664, 0.346666574, 0.26000005, 0.466666698, 1.62666631, 2.74666667, 1.36000013,
        1.36666656, -0.773333311, 0.346666634, 1.26000023}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    auto x = ramp({1, 2, 3, 4}).requires_grad_();
    auto y = F::interpolate(x, cases[i].options);
    y.backward(g);
    require_close(y, values({1, 2, 4, 6}, cases[i].y));
    require_close(x.grad(), values({1, 2, 3, 4}, cases[i].gx));
  }
}

TEST_CASE("F::interpolate nearest / linear / trilinear / area against libtorch", "[nn][upsample]") {
  const auto x = ramp({1, 2, 3, 4});
  // scale_factor {1.7, 1.6}: output 5 x 6, source rows floor(o / 1.7), columns floor(o / 1.6).
  require_close(F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.7, 1.6})),
                values({1, 2, 5, 6}, {0.5, 0.5, 0.75, 0.75, 1, 1.25, 0.5, 0.5, 0.75, 0.75, 1, 1.25, 1.5, 1.5, 1.75, 1.75, -1, -0.75,
                                      1.5, 1.5, 1.75, 1.75, -1, -0.75, -0.5, -0.5, -0.25, -0.25, 0, 0.25, 0.5, 0.5, 0.75, 0.75, 1,
                                      1.25, 0.5, 0.5, 0.75, 0.75, 1, 1.25, 1.5, 1.5, 1.75, 1.75, -1, -0.75, 1.5, 1.5, 1.75, 1.75,
                                      -1, -0.75, -0.5, -0.5, -0.25, -0.25, 0, 0.25}));
  require_close(F::interpolate(ramp({2, 1, 5}), F::InterpolateFuncOptions().size(std::vector<int64_t>{3}).mode(torch::kLinear)),
                values({2, 1, 3}, {0.583333313, 1, 1.41666663, 0.833333373, -0.75, -0.333333373}));
  require_close(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 3}).mode(torch::kArea)),
                values({1, 2, 2, 3}, {1.125, 0.625, 0.125, 0.625, 0.125, -0.375, 1.125, 0.625, 0.125, 0.625, 0.125, -0.375}));
  require_close(F::interpolate(ramp({1, 1, 2, 2, 3}), F::InterpolateFuncOptions()
                                                          .scale_factor(std::vector<double>{2, 1.5, 1})
                                                          .mode(torch::kTrilinear)
                                                          .align_corners(false)),
                values({1, 1, 4, 3, 3}, {0.5, 0.75, 1, 0.875, 1.125, 1.375, 1.25, 1.5, 1.75, 0.125, 0.375, 0.625, 0.5, 0.75, 1, 0.875,
                                         1.125, 1.375, -0.625, -0.375, -0.125, -0.25, 0, 0.25, 0.125, 0.375, 0.625, -1, -0.75, -0.5,
                                         -0.625, -0.375, -0.125, -0.25, 0, 0.25}));
  // Upsample forwards its options.
  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{1.7, 1.6}));
  REQUIRE(torch::equal(up(x), F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.7, 1.6}))));
  // Exact doubling repeats each element twice; a channels-last input gives the same values.
  const auto d = F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}));
  REQUIRE(torch::equal(d, x.repeat_interleave(2, 2).repeat_interleave(2, 3)));
  REQUIRE(torch::equal(F::interpolate(x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}),
                                      F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2})),
                       d));
}

TEST_CASE("upsampling gradients against finite differences", "[nn][upsample][grad]") {
  auto x = ramp({1, 2, 3, 4}).to(torch::kDouble).requires_grad_();
  auto f = [](const torch::autograd::variable_list& in) {
    return torch::autograd::variable_list{
        torch::upsample_bilinear2d(in[0], {5, 7}, false, std::nullopt, std::nullopt),
        torch::upsample_bilinear2d(in[0], {2, 3}, true, std::nullopt, std::nullopt),
        torch::upsample_nearest2d(in[0], {5, 6}, 1.7, 1.6),
        torch::upsample_linear1d(in[0].flatten(2), {17}, false, std::nullopt)};
  };
  REQUIRE(torch::autograd::gradcheck(f, {x}));
  auto x5 = ramp({1, 1, 2, 3, 2}).to(torch::kDouble).requires_grad_();
  auto f5 = [](const torch::autograd::variable_list& in) {
    return torch::autograd::variable_list{torch::upsample_trilinear3d(in[0], {3, 4, 3}, false, std::nullopt, std::nullopt, std::nullopt),
                                          torch::upsample_nearest3d(in[0], {3, 5, 4}, std::nullopt, std::nullopt, std::nullopt)};
  };
  REQUIRE(torch::autograd::gradcheck(f5, {x5}));
}

TEST_CASE("interpolate and upsample errors, Upsample printing", "[nn][upsample][errors]") {
  const auto x = ramp({1, 2, 3, 4});
  REQUIRE_THROWS_WITH(
      F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 6}).scale_factor(std::vector<double>{2, 2})),
      Catch::Contains("[interpolate] expected only one of size and scale_factor; got both"));
  REQUIRE_THROWS_WITH(F::interpolate(x, F::InterpolateFuncOptions()), Catch::Contains("[interpolate] expected size or scale_factor"));
  REQUIRE_THROWS_WITH(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 6}).align_corners(true)),
                      Catch::Contains("[interpolate] align_corners only applies to the linear modes"));
  REQUIRE_THROWS_WITH(F::interpolate(ramp({2, 1, 5}), F::InterpolateFuncOptions().size(std::vector<int64_t>{4}).mode(torch::kBilinear)),
                      Catch::Contains("[interpolate] mode kBilinear needs a 4-D input; got 3-D"));
  REQUIRE_THROWS_WITH(F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2})),
                      Catch::Contains("[interpolate] expected scale_factor of 2 values for a 4-D input"));
  REQUIRE_THROWS_WITH(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{0, 2})),
                      Catch::Contains("[upsample_nearest2d] expected input and output spatial sizes greater than 0"));
  REQUIRE_THROWS_WITH(F::interpolate(ramp({2, 3}), F::InterpolateFuncOptions().size(std::vector<int64_t>{4})),
                      Catch::Contains("[interpolate] expected a 3-D, 4-D or 5-D input"));
  REQUIRE_THROWS_WITH(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 6}).mode(torch::kBicubic)),
                      Catch::Contains("[interpolate] mode kBicubic on a 4-D input is not supported"));
  REQUIRE_THROWS_WITH(torch::upsample_bilinear2d(x.to(torch::kLong), {4, 6}, false, std::nullopt, std::nullopt),
                      Catch::Contains("[upsample_bilinear2d] expected a floating point input"));
  REQUIRE_THROWS_WITH(torch::upsample_nearest1d(x, {4}, std::nullopt), Catch::Contains("[upsample_nearest1d] expected a 3-D input (N, C, W)"));
  REQUIRE_THROWS_WITH(torch::upsample_nearest3d(torch::zeros({1, 0, 2, 2, 2}), {4, 4, 4}, std::nullopt, std::nullopt, std::nullopt),
                      Catch::Contains("[upsample_nearest3d] expected a non-zero channel size"));
  REQUIRE_THROWS_WITH(torch::upsample_linear1d(ramp({1, 2, 3}), {4, 5}, false, std::nullopt),
                      Catch::Contains("[upsample_linear1d] expected output_size of 1 values"));
  // Strings recorded from libtorch 2.15.
  REQUIRE(printed(*nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kBilinear).align_corners(true))) ==
          "torch::nn::Upsample(scale_factor=[2, 2], mode=kBilinear)");
  REQUIRE(printed(*nn::Upsample(nn::UpsampleOptions().size(std::vector<int64_t>{4, 5}))) == "torch::nn::Upsample(size=[4, 5], mode=kNearest)");
}

TEST_CASE("F::unfold is conv2d's im2col and F::fold its adjoint", "[nn][fold]") {
  const auto x = ramp({2, 3, 6, 7}, 0.37, 0.2).to(torch::kDouble);
  const auto w = ramp({4, 3, 2, 3}, 0.29, -0.4).to(torch::kDouble);
  struct Geo {
    std::vector<int64_t> k, d, p, s;
  };
  for (const auto& geo : {Geo{{2, 3}, {1, 1}, {0, 0}, {1, 1}}, Geo{{2, 3}, {2, 1}, {1, 2}, {2, 3}}, Geo{{2, 3}, {1, 2}, {1, 0}, {1, 2}}}) {
    auto uo = F::UnfoldFuncOptions({geo.k[0], geo.k[1]}).dilation({geo.d[0], geo.d[1]}).padding({geo.p[0], geo.p[1]}).stride({geo.s[0], geo.s[1]});
    const auto cols = F::unfold(x, uo);  // (N, C * kh * kw, L)
    const auto conv = F::conv2d(x, w, F::Conv2dFuncOptions().stride({geo.s[0], geo.s[1]}).padding({geo.p[0], geo.p[1]}).dilation({geo.d[0], geo.d[1]}));
    const auto via_cols = torch::matmul(w.reshape({4, -1}), cols).reshape(conv.sizes());
    require_close(via_cols, conv, 1e-10);
    // <unfold(x), c> == <x, fold(c)> for any c: fold is unfold's adjoint.
    const auto c = ramp(cols.sizes().vec(), 0.41, 0.3).to(torch::kDouble);
    auto fo = F::FoldFuncOptions({6, 7}, {geo.k[0], geo.k[1]}).dilation({geo.d[0], geo.d[1]}).padding({geo.p[0], geo.p[1]}).stride({geo.s[0], geo.s[1]});
    const auto folded = F::fold(c, fo);
    REQUIRE(folded.sizes() == x.sizes());
    REQUIRE((cols * c).sum().item<double>() == Approx((x * folded).sum().item<double>()).epsilon(1e-12));
    // Unbatched forms.
    require_close(F::unfold(x[1], uo), cols[1], 0);
    require_close(F::fold(c[1], fo), folded[1], 0);
  }
  // Gradients: unfold's is fold, fold's is unfold (finite differences too).
  auto xg = ramp({1, 2, 4, 5}).to(torch::kDouble).requires_grad_();
  auto f = [](const torch::autograd::variable_list& in) {
    auto cols = F::unfold(in[0], F::UnfoldFuncOptions({2, 3}).padding(1).stride({2, 1}));
    return torch::autograd::variable_list{cols, F::fold(cols * cols, F::FoldFuncOptions({4, 5}, {2, 3}).padding(1).stride({2, 1}))};
  };
  REQUIRE(torch::autograd::gradcheck(f, {xg}));
  // Modules.
  nn::Unfold unfold(nn::UnfoldOptions({2, 3}).padding(1).stride({2, 1}));
  nn::Fold fold(nn::FoldOptions({4, 5}, {2, 3}).padding(1).stride({2, 1}));
  const auto x2 = ramp({1, 2, 4, 5});
  require_close(unfold(x2), values({1, 12, 15}, {0, 0, 0, 0, 0, 0, 1.75, -1, -0.75, -0.5, 0, 1.25, 1.5, 1.75, -1, 0, 0, 0, 0, 0, 1.75, -1, -0.75, -0.5, -0.25, 1.25, 1.5, 1.75, -1, -0.75, 0, 0, 0, 0, 0, -1, -0.75, -0.5, -0.25, 0, 1.5, 1.75, -1, -0.75, 0, 0, 0.5, 0.75, 1, 1.25, 0, 0, 0.25, 0.5, 0.75, 0, 0, 0, 0, 0, 0.5, 0.75, 1, 1.25, 1.5, 0, 0.25, 0.5, 0.75, 1, 0, 0, 0, 0, 0, 0.75, 1, 1.25, 1.5, 0, 0.25, 0.5, 0.75, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.75, 1, 1.25, 1.5, 0, 0.25, 0.5, 0.75, 1, 0, 0, 0, 0, 0, 0.75, 1, 1.25, 1.5, 1.75, 0.25, 0.5, 0.75, 1, 1.25, 0, 0, 0, 0, 0, 1, 1.25, 1.5, 1.75, 0, 0.5, 0.75, 1, 1.25, 0, 0, -0.5, -0.25, 0, 0.25, 0, -1, -0.75, -0.5, -0.25, 0, 0, 0, 0, 0, -0.5, -0.25, 0, 0.25, 0.5, -1, -0.75, -0.5, -0.25, 0, 0, 0, 0, 0, 0, -0.25, 0, 0.25, 0.5, 0, -0.75, -0.5, -0.25, 0, 0, 0, 0, 0, 0, 0}));
  require_close(fold(unfold(x2)), values({1, 2, 4, 5}, {1, 2.25, 3, 3.75, 3, 3.5, -3, -2.25, -1.5, -0.5, 0, 0.75, 1.5, 2.25, 2, 2.5, 4.5, 5.25, -3, -1.5, -1, -0.75, 0, 0.75, 1, 1.5, 3, 3.75, 4.5, 3.5, -2, -2.25, -1.5, -0.75, 0, 0.5, 1.5, 2.25, 3, 2.5}));
}

TEST_CASE("fold / unfold errors and printing", "[nn][fold][errors]") {
  REQUIRE_THROWS_WITH(F::unfold(ramp({4, 5}), F::UnfoldFuncOptions(2)), Catch::Contains("[im2col] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input"));
  REQUIRE_THROWS_WITH(F::unfold(ramp({1, 2, 4, 5}), F::UnfoldFuncOptions(6)),
                      Catch::Contains("[im2col] expected the (dilated) kernel to fit the padded input"));
  REQUIRE_THROWS_WITH(F::unfold(ramp({1, 2, 4, 5}), F::UnfoldFuncOptions(2).stride(0)), Catch::Contains("[im2col] expected a positive stride"));
  REQUIRE_THROWS_WITH(F::unfold(ramp({1, 2, 4, 5}), F::UnfoldFuncOptions(2).padding(-1)), Catch::Contains("[im2col] expected a non-negative padding"));
  REQUIRE_THROWS_WITH(F::unfold(ramp({1, 2, 4, 5}), F::UnfoldFuncOptions(2).dilation(0)), Catch::Contains("[im2col] expected a positive dilation"));
  REQUIRE_THROWS_WITH(F::fold(ramp({1, 12, 5}), F::FoldFuncOptions({4, 5}, {2, 3})), Catch::Contains("[col2im] expected 9 blocks (3 x 3"));
  REQUIRE_THROWS_WITH(F::fold(ramp({1, 7, 12}), F::FoldFuncOptions({4, 5}, {2, 3})),
                      Catch::Contains("[col2im] expected dim 1 of the input to be a non-zero multiple of the kernel's size 6"));
  REQUIRE_THROWS_WITH(F::fold(ramp({1, 6, 12}), F::FoldFuncOptions({0, 5}, {2, 3})), Catch::Contains("[col2im] expected a positive output_size"));
  REQUIRE_THROWS_WITH(F::fold(ramp({6}), F::FoldFuncOptions({4, 5}, {2, 3})), Catch::Contains("[col2im] expected a 2-D (C * kh * kw, L) or 3-D"));
  // Strings recorded from libtorch 2.15.
  REQUIRE(printed(*nn::Fold(nn::FoldOptions({4, 5}, {2, 3}).padding(1))) == "torch::nn::Fold(output_size=[4, 5], kernel_size=[2, 3], dilation=[1, 1], padding=[1, 1], stride=[1, 1])");
  REQUIRE(printed(*nn::Unfold(nn::UnfoldOptions({2, 3}).stride(2))) == "torch::nn::Unfold(kernel_size=[2, 3], dilation=[1, 1], padding=[0, 0], stride=[2, 2])");
}

TEST_CASE("pixel_shuffle / pixel_unshuffle against an index loop", "[nn][shuffle]") {
  const int64_t r = 3, C = 2, H = 2, W = 3;
  const auto x = ramp({2, C * r * r, H, W}, 0.13, 0.0).to(torch::kDouble);
  const auto y = nn::PixelShuffle(r)(x);
  REQUIRE(y.sizes() == torch::IntArrayRef({2, C, H * r, W * r}));
  auto ref = torch::zeros({2, C, H * r, W * r}, torch::kDouble);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < r; ++j)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t w = 0; w < W; ++w) ref[n][c][h * r + i][w * r + j] = x[n][c * r * r + i * r + j][h][w];
  require_close(y, ref, 0);
  require_close(nn::PixelUnshuffle(r)(y), x, 0);
  // Extra leading dims and an unbatched input; a transposed input.
  require_close(F::pixel_shuffle(x.unsqueeze(0), r)[0], y, 0);
  require_close(F::pixel_shuffle(x[1], r), y[1], 0);
  require_close(F::pixel_unshuffle(y.transpose(2, 3).contiguous().transpose(2, 3), r), x, 0);
  REQUIRE_THROWS_WITH(F::pixel_shuffle(ramp({1, 6, 2, 2}), 2),
                      Catch::Contains("[pixel_shuffle] expected the channel count (dim -3) to be divisible by upscale_factor^2 = 4"));
  REQUIRE_THROWS_WITH(F::pixel_unshuffle(ramp({1, 1, 3, 4}), 2),
                      Catch::Contains("[pixel_unshuffle] expected height and width (dims -2, -1) divisible by downscale_factor 2"));
  REQUIRE_THROWS_WITH(F::pixel_shuffle(ramp({4, 2}), 2), Catch::Contains("[pixel_shuffle] expected an input of at least 3 dims"));
  REQUIRE_THROWS_WITH(F::pixel_shuffle(ramp({1, 4, 2, 2}), 0), Catch::Contains("[pixel_shuffle] expected a positive upscale_factor"));
  REQUIRE_THROWS_WITH(F::pixel_unshuffle(ramp({1, 4, 2, 2}), -1), Catch::Contains("[pixel_unshuffle] expected a positive downscale_factor"));
  // Strings recorded from libtorch 2.15.
  REQUIRE(printed(*nn::PixelShuffle(2)) == "torch::nn::PixelShuffle(upscale_factor=2)");
  REQUIRE(printed(*nn::PixelUnshuffle(3)) == "torch::nn::PixelUnshuffle(downscale_factor=3)");
}

TEST_CASE("nn::Bilinear against a float64 loop; init, printing, errors", "[nn][bilinear]") {
  const auto a = ramp({2, 3}), b = ramp({2, 4}, 0.3, 0.2), W = ramp({5, 3, 4}, 0.1, -0.4), bias = ramp({5}, 0.7, 0.0);
  auto ref = torch::zeros({2, 5}, torch::kDouble);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t o = 0; o < 5; ++o) {
      double s = bias[o].item<double>();
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j) s += a[n][i].item<double>() * W[o][i][j].item<double>() * b[n][j].item<double>();
      ref[n][o] = s;
    }
  require_close(F::bilinear(a, b, W, bias), ref);
  require_close(F::bilinear(a, b, W, bias), values({2, 5}, {-0.365000069, -1.34500003, -4.12499952, 1.94500017, -1.13500023, 0.0999999046, 6.40999985, 13.3949995, -1.36999977, 17.6899986}));  // libtorch 2.15
  // Extra batch dims; no bias.
  require_close(F::bilinear(a.unsqueeze(0), b.unsqueeze(0), W)[0], ref - bias.to(torch::kDouble));
  torch::manual_seed(0);
  nn::Bilinear m(nn::BilinearOptions(4, 3, 200));
  REQUIRE(m->weight.sizes() == torch::IntArrayRef({200, 4, 3}));
  REQUIRE(m->weight.abs().max().item<double>() <= 0.5);  // U(-1/sqrt(in1), 1/sqrt(in1)) = U(-0.5, 0.5)
  REQUIRE(m->weight.abs().max().item<double>() > 0.45);
  REQUIRE(m->bias.abs().max().item<double>() <= 0.5);
  REQUIRE(m->bias.abs().max().item<double>() > 0.4);
  REQUIRE(m(ramp({7, 4}), ramp({7, 3})).sizes() == torch::IntArrayRef({7, 200}));
  nn::Bilinear nb(nn::BilinearOptions(3, 4, 5).bias(false));
  REQUIRE_FALSE(nb->bias.defined());
  REQUIRE(nb->named_parameters().size() == 1);
  // Gradients through all three inputs.
  auto ad = a.to(torch::kDouble).requires_grad_(), bd = b.to(torch::kDouble).requires_grad_(), wd = W.to(torch::kDouble).requires_grad_();
  auto f = [](const torch::autograd::variable_list& in) { return torch::autograd::variable_list{torch::bilinear(in[0], in[1], in[2])}; };
  REQUIRE(torch::autograd::gradcheck(f, {ad, bd, wd}));
  REQUIRE_THROWS_WITH(F::bilinear(a, ramp({2, 5}), W, bias), Catch::Contains("[bilinear] expected input1.size(-1) == weight.size(1) and input2.size(-1) == weight.size(2)"));
  REQUIRE_THROWS_WITH(F::bilinear(a, ramp({3, 4}), W, bias), Catch::Contains("[bilinear] expected input1 and input2 with the same batch dims"));
  REQUIRE_THROWS_WITH(F::bilinear(a, b, W, ramp({4})), Catch::Contains("[bilinear] expected a bias of shape [5]"));
  REQUIRE_THROWS_WITH(F::bilinear(a, b, W[0]), Catch::Contains("[bilinear] expected a 3-D weight"));
  // Strings recorded from libtorch 2.15.
  REQUIRE(printed(*nn::Bilinear(3, 4, 5)) == "torch::nn::Bilinear(in1_features=3, in2_features=4, out_features=5, bias=true)");
  REQUIRE(printed(*nb) == "torch::nn::Bilinear(in1_features=3, in2_features=4, out_features=5, bias=false)");
}

TEST_CASE("nn::Unflatten", "[nn][unflatten]") {
  nn::Unflatten u(nn::UnflattenOptions(1, {2, -1}));
  const auto x = ramp({3, 6});
  REQUIRE(u(x).sizes() == torch::IntArrayRef({3, 2, 3}));
  REQUIRE(torch::equal(u(x).reshape({3, 6}), x));
  REQUIRE(nn::Unflatten(-1, std::vector<int64_t>{3, 1, 2})(x).sizes() == torch::IntArrayRef({3, 3, 1, 2}));
  REQUIRE_THROWS_WITH(nn::Unflatten(nn::UnflattenOptions(1, {4, 2}))(x), Catch::Contains("[Unflatten] sizes [4, 2] do not multiply to the size 6 of dim 1"));
  REQUIRE_THROWS_WITH(nn::Unflatten(nn::UnflattenOptions(2, {2, 3}))(x), Catch::Contains("[Unflatten] expected dim in [-2, 2)"));
  // String recorded from libtorch 2.15.
  REQUIRE(printed(*nn::Unflatten(nn::UnflattenOptions(1, {2, 3}))) == "torch::nn::Unflatten(dim=1, unflattened_size={2, 3})");
}
