// 3-D pooling, max unpooling and the multi-class margin losses (kernels/cpu/pool.cpp,
// aten/native/Pooling.cpp, Unpool.cpp, LossMargin.cpp, api/torch/nn/pooling_extra.h, loss.h): values,
// indices and gradients against libtorch 2.15's (tests/nn/libtorch/record_pool3d.cpp), NaN and ties,
// errors, modules and printing.
#include "reference_util.h"
#include <torch/nn/loss.h>
#include <torch/nn/pooling_extra.h>

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using namespace ember_ref;

namespace {
// libtorch 2.15's output (tests/nn/libtorch/record_pool3d.cpp).
const Table kRef3d = {
#include "reference_pool3d.inc"
};
}  // namespace

TEST_CASE("max/avg 3-D pooling match libtorch", "[nn][pool]") {
  auto x = leaf(fill({1, 2, 5, 6, 7}, 3));
  auto [v, i] = F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions({3, 3, 2}).stride({2, 2, 1}).padding({1, 1, 0}));
  check_grad(kRef3d, "maxpool3d", v, {{"x", x}});
  check(kRef3d, "maxpool3d.idx", i);
  CHECK(i.scalar_type() == torch::kLong);
  auto [cv, ci] = F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions(2).stride(2).dilation({1, 2, 2}).ceil_mode(true));
  check_grad(kRef3d, "maxpool3d.dil.ceil", cv, {{"x", x}});
  check(kRef3d, "maxpool3d.dil.ceil.idx", ci);
  check_grad(kRef3d, "avgpool3d", F::avg_pool3d(x, F::AvgPool3dFuncOptions(3).stride(2).padding(1)), {{"x", x}});
  check_grad(kRef3d, "avgpool3d.ceil.nopad",
             F::avg_pool3d(x, F::AvgPool3dFuncOptions({3, 2, 3}).stride(2).padding(1).ceil_mode(true).count_include_pad(false)),
             {{"x", x}});
  check_grad(kRef3d, "avgpool3d.div", F::avg_pool3d(x, F::AvgPool3dFuncOptions(2).stride(1).divisor_override(3)), {{"x", x}});
  // The module forwards the functional.
  CHECK(at::equal(nn::MaxPool3d(nn::MaxPool3dOptions({3, 3, 2}).stride({2, 2, 1}).padding({1, 1, 0}))(x.detach()), v.detach()));
  CHECK(at::equal(nn::AvgPool3d(nn::AvgPool3dOptions(3).stride(2).padding(1))(x.detach()),
                  F::avg_pool3d(x.detach(), F::AvgPool3dFuncOptions(3).stride(2).padding(1))));
}

TEST_CASE("max_pool3d: NaN is the maximum, ties report the first, 2-D pooling unchanged", "[nn][pool]") {
  auto n = torch::tensor({1.0, std::nan(""), 3.0, 3.0, 2.0, std::nan(""), 0.0, 3.0}, torch::kDouble).reshape({1, 1, 2, 2, 2});
  auto [nv, ni] = at::max_pool3d_with_indices(n, {2, 2, 2});
  check(kRef3d, "maxpool3d.nan", nv);
  check(kRef3d, "maxpool3d.nan.idx", ni);
  auto t = torch::tensor({1.0, 3.0, 3.0, 2.0, 3.0, 0.0, 3.0, 1.0}, torch::kDouble).reshape({1, 2, 2, 2});
  auto [tv, ti] = at::max_pool3d_with_indices(t, {2, 2, 2});
  check(kRef3d, "maxpool3d.tie.idx", ti);
  // A depth-1 volume pools as the 2-D op does (the two share one loop nest).
  const auto x = fill({2, 3, 7, 6}, 4).to(torch::kFloat);
  auto [v2, i2] = at::max_pool2d_with_indices(x, {3, 2}, {2, 1}, {1, 1}, {1, 2});
  auto [v3, i3] = at::max_pool3d_with_indices(x.unsqueeze(2), {1, 3, 2}, {1, 2, 1}, {0, 1, 1}, {1, 1, 2});
  CHECK(at::equal(v3.squeeze(2), v2));
  CHECK(at::equal(i3.squeeze(2), i2));
  // Unbatched input and a channels-last one give the batched, contiguous result.
  const auto b = fill({2, 3, 4, 5, 6}, 5);
  CHECK(at::equal(at::max_pool3d(b[1], {2, 3, 2}), at::max_pool3d(b, {2, 3, 2})[1]));
  CHECK(at::equal(at::max_pool3d(b.permute({0, 2, 3, 4, 1}).contiguous().permute({0, 4, 1, 2, 3}), {2, 2, 2}),
                  at::max_pool3d(b, {2, 2, 2})));
}

TEST_CASE("max unpooling matches libtorch and inverts max pooling", "[nn][pool]") {
  auto x1 = fill({2, 2, 8}, 4);
  auto [p1, i1] = F::max_pool1d_with_indices(x1, F::MaxPool1dFuncOptions(2).stride(2));
  check(kRef3d, "unpool1d.idx", i1);
  auto l1 = leaf(p1.detach());
  check_grad(kRef3d, "unpool1d", F::max_unpool1d(l1, i1, F::MaxUnpool1dFuncOptions(2).stride(2)), {{"x", l1}});
  check_grad(kRef3d, "unpool1d.size",
             F::max_unpool1d(l1, i1, F::MaxUnpool1dFuncOptions(2).stride(2).output_size(std::vector<int64_t>{2, 2, 9})), {{"x", l1}});
  auto x2 = fill({1, 2, 5, 5}, 5);
  auto [p2, i2] = F::max_pool2d_with_indices(x2, F::MaxPool2dFuncOptions(3).stride(2).padding(1));
  check(kRef3d, "unpool2d.idx", i2);
  auto l2 = leaf(p2.detach());
  check_grad(kRef3d, "unpool2d", F::max_unpool2d(l2, i2, F::MaxUnpool2dFuncOptions(3).stride(2).padding(1)), {{"x", l2}});
  check_grad(kRef3d, "unpool2d.size",
             F::max_unpool2d(l2, i2, F::MaxUnpool2dFuncOptions(3).stride(2).padding(1).output_size(std::vector<int64_t>{1, 2, 6, 7})),
             {{"x", l2}});
  auto x3 = fill({1, 2, 4, 4, 4}, 6);
  auto [p3, i3] = F::max_pool3d_with_indices(x3, F::MaxPool3dFuncOptions(2).stride(2));
  check(kRef3d, "unpool3d.idx", i3);
  auto l3 = leaf(p3.detach());
  check_grad(kRef3d, "unpool3d", F::max_unpool3d(l3, i3, F::MaxUnpool3dFuncOptions(2).stride(2)), {{"x", l3}});
  check_grad(kRef3d, "unpool3d.module", nn::MaxUnpool3d(nn::MaxUnpool3dOptions(2))->forward(l3, i3, std::vector<int64_t>{1, 2, 5, 4, 5}),
             {{"x", l3}});
  // Modules: the default output size, or one of D values.
  CHECK(at::equal(nn::MaxUnpool1d(2)->forward(p1, i1), F::max_unpool1d(p1, i1, F::MaxUnpool1dFuncOptions(2))));
  CHECK(at::equal(nn::MaxUnpool2d(nn::MaxUnpool2dOptions(3).stride(2).padding(1))->forward(p2, i2, std::vector<int64_t>{6, 7}),
                  at::max_unpool2d(p2, i2, {6, 7})));
  // Unbatched: each plane on its own.
  CHECK(at::equal(at::max_unpool2d(p2[0], i2[0], {5, 6}), at::max_unpool2d(p2, i2, {5, 6})[0]));
  // A repeated index keeps the value written last; every input gets grad gathered at its index,
  // the overwritten ones included (Note [Repeated unpooling indices]). (libtorch keeps the first
  // value on a single-channel plane, another code path of its kernel: not followed.)
  auto dl = leaf(T({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 2, 3}));
  check_grad(kRef3d, "unpool2d.dup2", at::max_unpool2d(dl, torch::tensor({3, 0, 3, 1, 5, 3, 2, 2, 5, 2, 0, 2}).reshape({2, 2, 3}), {2, 3}),
             {{"x", dl}});
}

TEST_CASE("max unpooling errors start with the op", "[nn][pool]") {
  const auto p2i2_pair = at::max_pool2d_with_indices(fill({1, 2, 5, 6}, 5), {3, 3}, {2, 2}, {1, 1});  // no structured bindings: clang 14 cannot capture them in lambdas
  const torch::Tensor p2 = std::get<0>(p2i2_pair), i2 = std::get<1>(p2i2_pair);
  const auto p3i3_pair = at::max_pool3d_with_indices(fill({1, 2, 4, 4, 5}, 6), {2, 2, 2});  // no structured bindings: clang 14 cannot capture them in lambdas
  const torch::Tensor p3 = std::get<0>(p3i3_pair), i3 = std::get<1>(p3i3_pair);
  CHECK_THAT(error_of([&] { at::max_unpool2d(p2, i2 + 100, {5, 6}); }),
             Catch::StartsWith("[max_unpool2d] expected indices in [0, 30)"));
  CHECK_THAT(error_of([&] { at::max_unpool2d(p2, i2 - 100, {5, 6}); }), Catch::StartsWith("[max_unpool2d] expected indices in"));
  CHECK_THAT(error_of([&] { at::max_unpool3d(p3, i3 + 1000, {4, 4, 5}, {2, 2, 2}, {0, 0, 0}); }),
             Catch::StartsWith("[max_unpool3d] expected indices in [0, 80)"));
  const auto p1i1_pair = at::max_pool1d_with_indices(fill({2, 2, 8}, 4), {2});  // no structured bindings: clang 14 cannot capture them in lambdas
  const torch::Tensor p1 = std::get<0>(p1i1_pair), i1 = std::get<1>(p1i1_pair);
  CHECK_THAT(error_of([&] { F::max_unpool1d(p1, i1 + 8, F::MaxUnpool1dFuncOptions(2)); }),
             Catch::StartsWith("[max_unpool1d] expected indices in [0, 8)"));
  CHECK_THAT(error_of([&] { at::max_unpool2d(p2, i2.to(torch::kInt), {5, 6}); }), Catch::StartsWith("[max_unpool2d] expected int64 indices"));
  CHECK_THAT(error_of([&] { at::max_unpool2d(p2, i2.reshape({1, 2, 9}), {5, 6}); }),
             Catch::StartsWith("[max_unpool2d] expected indices of the input's shape"));
  CHECK_THAT(error_of([&] { at::max_unpool2d(p2.reshape({2, 9}), i2.reshape({2, 9}), {5, 6}); }),
             Catch::StartsWith("[max_unpool2d] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input"));
  CHECK_THAT(error_of([&] { at::max_unpool2d(p2, i2, {5, 6, 1}); }), Catch::StartsWith("[max_unpool2d] expected output_size to have 2 values"));
  CHECK_THAT(error_of([&] { at::max_unpool3d(p3, i3, {4, 4, 5}, {0, 2, 2}, {0, 0, 0}); }),
             Catch::StartsWith("[max_unpool3d] expected a positive stride"));
  // libtorch 2.15 does not check max_unpool3d's padding (it plays no part).
  CHECK(at::equal(at::max_unpool3d(p3, i3, {4, 4, 5}, {2, 2, 2}, {0, -1, 0}), at::max_unpool3d(p3, i3, {4, 4, 5}, {2, 2, 2}, {0, 0, 0})));
  CHECK_THAT(error_of([&] {
               F::max_unpool2d(p2, i2, F::MaxUnpool2dFuncOptions(3).stride(2).padding(1).output_size(std::vector<int64_t>{1, 2, 9, 6}));
             }),
             Catch::StartsWith("[max_unpool2d] expected output_size[0] between 3 and 7"));
  CHECK_THAT(error_of([&] {
               F::max_unpool2d(p2, i2, F::MaxUnpool2dFuncOptions(3).stride(2).padding(1).output_size(std::vector<int64_t>{5}));
             }),
             Catch::StartsWith("[max_unpool2d] expected output_size to have 2 or 4 values"));
}

TEST_CASE("3-D pooling errors start with the op", "[nn][pool]") {
  CHECK_THAT(error_of([&] { at::max_pool3d(fill({2, 4, 4}, 1), {2, 2, 2}); }),
             Catch::StartsWith("[max_pool3d] expected a 4-D (C, D, H, W) or 5-D (N, C, D, H, W) input"));
  CHECK_THAT(error_of([&] { at::max_pool3d(fill({1, 2, 4, 4, 4}, 1), {2, 2}); }),
             Catch::StartsWith("[max_pool3d] expected kernel_size to have 1 or 3 values"));
  CHECK_THAT(error_of([&] { at::max_pool3d(fill({1, 2, 4, 4, 4}, 1), {2, 2, 2}, {}, {2, 0, 0}); }),
             Catch::StartsWith("[max_pool3d] expected padding between 0 and half the dilated kernel size"));
  CHECK_THAT(error_of([&] { at::max_pool3d_with_indices(fill({1, 1, 2, 2, 2}, 1), {3, 3, 3}); }),
             Catch::StartsWith("[max_pool3d_with_indices] expected an output size of at least 1"));
  CHECK_THAT(error_of([&] { at::avg_pool3d(fill({1, 2, 4, 4, 4}, 1), {2, 2, 2}, {}, {0}, false, true, 0); }),
             Catch::StartsWith("[avg_pool3d] expected a non-zero divisor_override"));
  CHECK_THAT(error_of([&] { at::avg_pool3d(fill({4, 4, 4}, 1), {2, 2, 2}); }), Catch::StartsWith("[avg_pool3d] expected a 4-D"));
  auto x = fill({1, 2, 4, 4, 4}, 1);
  const auto vi_pair = at::max_pool3d_with_indices(x, {2, 2, 2});  // captured below: no structured binding
  const torch::Tensor v = std::get<0>(vi_pair), i = std::get<1>(vi_pair);
  CHECK_THAT(error_of([&] { at::max_pool3d_with_indices_backward(v, x, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false, i.to(torch::kInt)); }),
             Catch::StartsWith("[max_pool3d_with_indices_backward] expected int64 indices"));
  CHECK_THAT(error_of([&] { at::max_pool3d_with_indices_backward(v[0], x, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false, i[0]); }),
             Catch::StartsWith("[max_pool3d_with_indices_backward] expected grad_output and indices of the pooled shape"));
}

TEST_CASE("multi-class margin losses match libtorch", "[nn][loss]") {
  auto x = leaf(fill({3, 5}, 7));
  auto y = torch::tensor({3, 0, -1, 2, 2, 1, 4, 0, 2, 3, -1, 0, 0, 0, 0}).reshape({3, 5});
  check_grad(kRef3d, "multilabel.none", at::multilabel_margin_loss(x, y, 0), {{"x", x}});
  check_grad(kRef3d, "multilabel.mean", F::multilabel_margin_loss(x, y), {{"x", x}});
  check_grad(kRef3d, "multilabel.sum", F::multilabel_margin_loss(x, y, F::MultilabelMarginLossFuncOptions(torch::kSum)), {{"x", x}});
  auto x1 = leaf(fill({4}, 8));
  auto l1 = at::multilabel_margin_loss(x1, torch::tensor({2, 1, -1, 3}), 0);
  CHECK(l1.dim() == 0);
  check_grad(kRef3d, "multilabel.1d.none", l1, {{"x", x1}});
  // Entries after a row's first -1 are ignored (but must still be classes or -1).
  check(kRef3d, "multilabel.after",
        at::multilabel_margin_loss(x.detach(), torch::tensor({1, -1, 4, 3, 0, 2, -1, -1, 0, 1, 0, -1, 2, 2, 2}).reshape({3, 5}), 0));
  auto xn = T({1.0, std::nan(""), -0.5, 2.0, HUGE_VAL, 0.25}, {2, 3});
  check(kRef3d, "multilabel.nan", at::multilabel_margin_loss(xn, torch::tensor({0, -1, 0, 2, 0, -1}).reshape({2, 3}), 0));
  CHECK(at::allclose(nn::MultiLabelMarginLoss()(x.detach(), y), F::multilabel_margin_loss(x.detach(), y)));

  auto c = torch::tensor({3, 0, 4});
  check_grad(kRef3d, "multimargin.mean", F::multi_margin_loss(x, c), {{"x", x}});
  auto w = T({0.5, 1.5, 2.0, 1.0, 0.75});
  check_grad(kRef3d, "multimargin.p2.w.none",
             F::multi_margin_loss(x, c, F::MultiMarginLossFuncOptions().p(2).margin(0.5).weight(w).reduction(torch::kNone)), {{"x", x}});
  check_grad(kRef3d, "multimargin.sum.m2", F::multi_margin_loss(x, c, F::MultiMarginLossFuncOptions().margin(2).reduction(torch::kSum)),
             {{"x", x}});
  check_grad(kRef3d, "multimargin.1d", at::multi_margin_loss(x1, torch::tensor({2}), 1, 1, std::nullopt, 0), {{"x", x1}});
  CHECK(at::multi_margin_loss(x1, torch::tensor({2}), 1, 1, std::nullopt, 0).dim() == 1);
  CHECK(at::multi_margin_loss(x1, torch::tensor(2), 1, 1, std::nullopt, 0).dim() == 0);
  check(kRef3d, "multimargin.nan", at::multi_margin_loss(xn, torch::tensor({0, 2}), 1, 1, std::nullopt, 0));
  nn::MultiMarginLoss mm(nn::MultiMarginLossOptions().p(2).margin(0.5).weight(w).reduction(torch::kNone));
  check(kRef3d, "multimargin.p2.w.none", mm(x.detach(), c));

  auto t = T({1, 0, 1, 1, 0, 0, 0.5, 1, 0, 1, 0, 1, 1, 0, 0.25}, {3, 5});
  auto tl = leaf(t);
  check_grad(kRef3d, "softmargin.mean", F::multilabel_soft_margin_loss(x, tl), {{"x", x}, {"y", tl}});
  check_grad(kRef3d, "softmargin.w.none",
             F::multilabel_soft_margin_loss(x, t, F::MultilabelSoftMarginLossFuncOptions().weight(w).reduction(torch::kNone)), {{"x", x}});
  check_grad(kRef3d, "softmargin.sum", F::multilabel_soft_margin_loss(x, t, F::MultilabelSoftMarginLossFuncOptions().reduction(torch::kSum)),
             {{"x", x}});
  nn::MultiLabelSoftMarginLoss sm(nn::MultiLabelSoftMarginLossOptions().weight(w).reduction(torch::kNone));
  check(kRef3d, "softmargin.w.none", sm(x.detach(), t));
}

TEST_CASE("multi-class margin loss errors start with the op", "[nn][loss]") {
  const auto x = fill({3, 5}, 7);
  const auto c = torch::tensor({3, 0, 4});
  CHECK_THAT(error_of([&] { at::multi_margin_loss(x, c, 3, 1, std::nullopt, 1); }),
             Catch::StartsWith("[multi_margin_loss] expected p to be 1 or 2"));
  CHECK_THAT(error_of([&] { F::multi_margin_loss(x, c, F::MultiMarginLossFuncOptions().p(3)); }),
             Catch::StartsWith("[multi_margin_loss] expected p to be 1 or 2"));
  CHECK_THAT(error_of([&] { nn::MultiMarginLoss(nn::MultiMarginLossOptions().p(3)); }),
             Catch::StartsWith("[MultiMarginLoss] expected p to be 1 or 2"));
  CHECK_THAT(error_of([&] { at::multi_margin_loss(x, torch::tensor({3, 5, 0}), 1, 1, std::nullopt, 1); }),
             Catch::StartsWith("[multi_margin_loss] expected target class indices in [0, 5)"));
  CHECK_THAT(error_of([&] { at::multi_margin_loss(x, torch::tensor({3, 1}), 1, 1, std::nullopt, 1); }),
             Catch::StartsWith("[multi_margin_loss] expected a target of 3 class indices"));
  CHECK_THAT(error_of([&] { at::multi_margin_loss(x, c, 1, 1, T({1.0, 2.0}), 1); }),
             Catch::StartsWith("[multi_margin_loss] expected a weight of 5 elements"));
  CHECK_THAT(error_of([&] { at::multi_margin_loss(x, c, 1, 1, std::nullopt, 3); }),
             Catch::StartsWith("[multi_margin_loss] expected reduction None (0), Mean (1) or Sum (2)"));
  // libtorch 2.15 rejects every entry outside [-1, C), also after a row's -1.
  for (int64_t bad : {5, 9, -2}) {
    CHECK_THAT(error_of([&] { at::multilabel_margin_loss(x, torch::tensor({1, bad, -1, 0, 0}).reshape({1, 5}).expand({3, 5}).contiguous(), 0); }),
               Catch::StartsWith("[multilabel_margin_loss] expected target values in [-1, 5)"));
    CHECK_THAT(error_of([&] { at::multilabel_margin_loss(x, torch::tensor({1, -1, bad, 0, 0}).reshape({1, 5}).expand({3, 5}).contiguous(), 0); }),
               Catch::StartsWith("[multilabel_margin_loss] expected target values in [-1, 5)"));
  }
  CHECK_THAT(error_of([&] { at::multilabel_margin_loss(x, torch::zeros({3, 4}, torch::kLong), 0); }),
             Catch::StartsWith("[multilabel_margin_loss] expected a target of the input's shape"));
  CHECK_THAT(error_of([&] { at::multilabel_margin_loss(x, torch::zeros({3, 5}), 0); }),
             Catch::StartsWith("[multilabel_margin_loss] expected an int64 target"));
  CHECK_THAT(error_of([&] { at::multilabel_margin_loss(x.reshape({1, 3, 5}), torch::zeros({1, 3, 5}, torch::kLong), 0); }),
             Catch::StartsWith("[multilabel_margin_loss] expected a non-empty 1-D (C) or 2-D (N, C) input"));
}

TEST_CASE("3-D pooling, unpooling and margin loss modules print as libtorch 2.15", "[nn][pool]") {
  // (strings recorded by tests/nn/libtorch/record_pool3d.cpp)
  CHECK(printed(*nn::MaxPool3d(3)) == "torch::nn::MaxPool3d(kernel_size=[3, 3, 3], stride=[3, 3, 3], padding=[0, 0, 0], dilation=[1, 1, 1], ceil_mode=false)");
  CHECK(printed(*nn::MaxPool3d(nn::MaxPool3dOptions({3, 2, 2}).stride(2).padding(1).dilation({1, 2, 1}).ceil_mode(true))) ==
        "torch::nn::MaxPool3d(kernel_size=[3, 2, 2], stride=[2, 2, 2], padding=[1, 1, 1], dilation=[1, 2, 1], ceil_mode=true)");
  CHECK(printed(*nn::AvgPool3d(nn::AvgPool3dOptions(3).stride({2, 1, 2}).padding(1).ceil_mode(true).count_include_pad(false))) ==
        "torch::nn::AvgPool3d(kernel_size=[3, 3, 3], stride=[2, 1, 2], padding=[1, 1, 1])");
  CHECK(printed(*nn::MaxUnpool1d(nn::MaxUnpool1dOptions(3).stride(2).padding(1))) == "torch::nn::MaxUnpool1d(kernel_size=3, stride=2, padding=1)");
  CHECK(printed(*nn::MaxUnpool2d(nn::MaxUnpool2dOptions(2))) == "torch::nn::MaxUnpool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0])");
  CHECK(printed(*nn::MaxUnpool3d(nn::MaxUnpool3dOptions({2, 3, 2}).stride(1))) == "torch::nn::MaxUnpool3d(kernel_size=[2, 3, 2], stride=[1, 1, 1], padding=[0, 0, 0])");
  CHECK(printed(*nn::MultiLabelMarginLoss()) == "torch::nn::MultiLabelMarginLoss()");
  CHECK(printed(*nn::MultiLabelSoftMarginLoss()) == "torch::nn::MultiLabelSoftMarginLoss()");
  CHECK(printed(*nn::MultiMarginLoss()) == "torch::nn::MultiMarginLoss(p=1, margin=1, weight=[ Tensor (undefined) ], reduction=kMean)");
  CHECK(printed(*nn::MultiMarginLoss(nn::MultiMarginLossOptions().p(2).margin(0.5).weight(T({0.5, 2.0})).reduction(torch::kSum))) ==
        "torch::nn::MultiMarginLoss(p=2, margin=0.5, weight= 0.5000\n 2.0000\n[ CPUDoubleType{2} ], reduction=kSum)");
  nn::MultiMarginLoss weighted(nn::MultiMarginLossOptions().weight(T({0.5, 2.0})));
  CHECK(weighted->buffers().size() == 1);
  nn::MultiLabelSoftMarginLoss soft(nn::MultiLabelSoftMarginLossOptions().weight(T({0.5, 2.0})));
  CHECK(soft->buffers().size() == 1);
}
