// Records the reference values of tests/nn/test_pool3d.cpp (3-D pooling, max unpooling and the
// multi-class margin losses) from libtorch (not part of any build). Same conventions as
// record_losses.cpp: float64 inputs from `fill`, gradients of sum(out * w). Lines starting with
// "//" report facts the tests state by hand (printing, buffers, what raises). Build and run:
//   LT=.peer/libtorch; g++ -std=c++20 -O0 -D_GLIBCXX_USE_CXX11_ABI=1 -w -I$LT/include \
//     -I$LT/include/torch/csrc/api/include tests/nn/libtorch/record_pool3d.cpp -L$LT/lib -ltorch_cpu -lc10 \
//     -Wl,-rpath,$LT/lib -Wl,--allow-shlib-undefined -o /tmp/record_pool3d && /tmp/record_pool3d
#include <torch/torch.h>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using torch::Tensor;

Tensor T(std::vector<double> v, std::vector<int64_t> shape = {}) {
  Tensor t = torch::tensor(v, torch::kDouble);
  return shape.empty() ? t : t.reshape(shape);
}
Tensor fill(std::vector<int64_t> shape, int k) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return (torch::arange(n, torch::kDouble) * 0.9 + 1.7 * k).sin().mul(0.5).reshape(shape);
}
Tensor w_like(const Tensor& t) { return (torch::arange(t.numel(), torch::kDouble) * 0.7 + 0.3).cos().reshape(t.sizes()); }
void rec(const std::string& name, const Tensor& t) {
  Tensor c = t.detach().to(torch::kDouble).contiguous().reshape(-1);
  std::printf("    {\"%s\", {", name.c_str());
  for (int64_t i = 0; i < c.numel(); ++i) {
    double v = c[i].item<double>();
    if (std::isnan(v)) std::printf("%sNAN", i ? ", " : "");
    else if (std::isinf(v)) std::printf("%s%sINFINITY", i ? ", " : "", v < 0 ? "-" : "");
    else std::printf("%s%.17g", i ? ", " : "", v);
  }
  std::printf("}},\n");
}
void rec_grad(const std::string& name, const Tensor& out, std::vector<std::pair<std::string, Tensor>> leaves) {
  rec(name, out);
  Tensor s = out.dim() == 0 ? out : (out * w_like(out)).sum();
  std::vector<Tensor> xs;
  for (auto& l : leaves) xs.push_back(l.second);
  auto g = torch::autograd::grad({s}, xs, {}, true, false, true);
  for (size_t i = 0; i < leaves.size(); ++i) rec(name + ".d" + leaves[i].first, g[i]);
}
Tensor leaf(Tensor t) { return t.clone().requires_grad_(true); }
std::string printed(const nn::Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  return os.str();
}
template <typename Fn>
void raises(const char* what, Fn&& fn) {
  try {
    fn();
    std::printf("// %s: no error\n", what);
  } catch (const c10::Error& e) {
    std::string m = e.what();
    std::printf("// %s: raises: %s\n", what, m.substr(0, m.find('\n')).c_str());
  }
}

int main() {
  // ---------------------------------------------------------------- 3-D pooling
  {
    auto x = leaf(fill({1, 2, 5, 6, 7}, 3));
    auto [v, i] = F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions({3, 3, 2}).stride({2, 2, 1}).padding({1, 1, 0}));
    rec_grad("maxpool3d", v, {{"x", x}});
    rec("maxpool3d.idx", i);
    auto [cv, ci] = F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions(2).stride(2).dilation({1, 2, 2}).ceil_mode(true));
    rec_grad("maxpool3d.dil.ceil", cv, {{"x", x}});
    rec("maxpool3d.dil.ceil.idx", ci);
    rec_grad("avgpool3d", F::avg_pool3d(x, F::AvgPool3dFuncOptions(3).stride(2).padding(1)), {{"x", x}});
    rec_grad("avgpool3d.ceil.nopad",
             F::avg_pool3d(x, F::AvgPool3dFuncOptions({3, 2, 3}).stride(2).padding(1).ceil_mode(true).count_include_pad(false)),
             {{"x", x}});
    rec_grad("avgpool3d.div", F::avg_pool3d(x, F::AvgPool3dFuncOptions(2).stride(1).divisor_override(3)), {{"x", x}});
    // NaN and ties: a window holding a NaN reports its last NaN; ties report the first maximum.
    auto n = torch::tensor({1.0, std::nan(""), 3.0, 3.0, 2.0, std::nan(""), 0.0, 3.0}, torch::kDouble).reshape({1, 1, 2, 2, 2});
    auto [nv, ni] = at::max_pool3d_with_indices(n, {2, 2, 2});
    rec("maxpool3d.nan", nv);
    rec("maxpool3d.nan.idx", ni);
    auto t = torch::tensor({1.0, 3.0, 3.0, 2.0, 3.0, 0.0, 3.0, 1.0}, torch::kDouble).reshape({1, 2, 2, 2});
    auto [tv, ti] = at::max_pool3d_with_indices(t, {2, 2, 2});
    rec("maxpool3d.tie.idx", ti);
  }
  // ---------------------------------------------------------------- max unpooling
  {
    auto x1 = fill({2, 2, 8}, 4);
    auto [p1, i1] = F::max_pool1d_with_indices(x1, F::MaxPool1dFuncOptions(2).stride(2));
    auto l1 = leaf(p1.detach());
    rec("unpool1d.idx", i1);
    rec_grad("unpool1d", F::max_unpool1d(l1, i1, F::MaxUnpool1dFuncOptions(2).stride(2)), {{"x", l1}});
    rec_grad("unpool1d.size", F::max_unpool1d(l1, i1, F::MaxUnpool1dFuncOptions(2).stride(2).output_size(std::vector<int64_t>{2, 2, 9})),
             {{"x", l1}});
    auto x2 = fill({1, 2, 5, 5}, 5);
    auto [p2, i2] = F::max_pool2d_with_indices(x2, F::MaxPool2dFuncOptions(3).stride(2).padding(1));
    auto l2 = leaf(p2.detach());
    rec("unpool2d.idx", i2);
    rec_grad("unpool2d", F::max_unpool2d(l2, i2, F::MaxUnpool2dFuncOptions(3).stride(2).padding(1)), {{"x", l2}});
    rec_grad("unpool2d.size",
             F::max_unpool2d(l2, i2, F::MaxUnpool2dFuncOptions(3).stride(2).padding(1).output_size(std::vector<int64_t>{1, 2, 6, 7})),
             {{"x", l2}});
    auto x3 = fill({1, 2, 4, 4, 4}, 6);
    auto [p3, i3] = F::max_pool3d_with_indices(x3, F::MaxPool3dFuncOptions(2).stride(2));
    auto l3 = leaf(p3.detach());
    rec("unpool3d.idx", i3);
    rec_grad("unpool3d", F::max_unpool3d(l3, i3, F::MaxUnpool3dFuncOptions(2).stride(2)), {{"x", l3}});
    rec_grad("unpool3d.module", nn::MaxUnpool3d(nn::MaxUnpool3dOptions(2))->forward(l3, i3, std::vector<int64_t>{1, 2, 5, 4, 5}),
             {{"x", l3}});
    // A repeated index: the value written last stays.
    // (A single-channel plane, {1, 1, 2, 2} with indices {3, 0, 3, 1}, keeps the first value instead.)
    auto dl = leaf(T({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 2, 3}));
    auto dup2 = at::max_unpool2d(dl, torch::tensor({3, 0, 3, 1, 5, 3, 2, 2, 5, 2, 0, 2}).reshape({2, 2, 3}), {2, 3});
    rec_grad("unpool2d.dup2", dup2, {{"x", dl}});
    raises("max_unpool2d index out of range", [&] { at::max_unpool2d(l2.detach(), i2 + 100, {5, 6}); });
    raises("max_unpool2d negative index", [&] { at::max_unpool2d(l2.detach(), i2 - 100, {5, 6}); });
    raises("max_unpool3d index out of range", [&] { at::max_unpool3d(l3.detach(), i3 + 1000, {4, 4, 4}, {2, 2, 2}, {0, 0, 0}); });
    raises("F::max_unpool2d output_size of 2", [&] {
      F::max_unpool2d(l2, i2, F::MaxUnpool2dFuncOptions(3).stride(2).padding(1).output_size(std::vector<int64_t>{5, 6}));
    });
    raises("F::max_unpool2d output_size too large", [&] {
      F::max_unpool2d(l2, i2, F::MaxUnpool2dFuncOptions(3).stride(2).padding(1).output_size(std::vector<int64_t>{1, 2, 9, 6}));
    });
    raises("max_unpool2d int32 indices", [&] { at::max_unpool2d(l2.detach(), i2.to(torch::kInt), {5, 6}); });
    raises("max_unpool2d indices shape", [&] { at::max_unpool2d(l2.detach(), i2.reshape({1, 2, 9}), {5, 6}); });
    raises("max_unpool3d zero stride", [&] { at::max_unpool3d(l3.detach(), i3, {4, 4, 4}, {0, 2, 2}, {0, 0, 0}); });
    raises("max_unpool3d negative padding", [&] { at::max_unpool3d(l3.detach(), i3, {4, 4, 4}, {2, 2, 2}, {0, -1, 0}); });
  }
  // ---------------------------------------------------------------- margin losses
  {
    auto x = leaf(fill({3, 5}, 7));
    auto y = torch::tensor({3, 0, -1, 2, 2, 1, 4, 0, 2, 3, -1, 0, 0, 0, 0}).reshape({3, 5});
    rec_grad("multilabel.none", at::multilabel_margin_loss(x, y, 0), {{"x", x}});
    rec_grad("multilabel.mean", F::multilabel_margin_loss(x, y), {{"x", x}});
    rec_grad("multilabel.sum", F::multilabel_margin_loss(x, y, F::MultilabelMarginLossFuncOptions(torch::kSum)), {{"x", x}});
    auto x1 = leaf(fill({4}, 8));
    rec_grad("multilabel.1d.none", at::multilabel_margin_loss(x1, torch::tensor({2, 1, -1, 3}), 0), {{"x", x1}});
    // Entries after the first -1 are ignored, even out of range; a -2 also ends the list?
    rec("multilabel.after", at::multilabel_margin_loss(x.detach(), torch::tensor({1, -1, 4, 3, 0, 2, -1, -1, 0, 1, 0, -1, 2, 2, 2}).reshape({3, 5}), 0));
    raises("multilabel 9 after -1", [&] { at::multilabel_margin_loss(x.detach(), torch::tensor({1, -1, 9, 0, 0}).reshape({1, 5}).expand({3, 5}).contiguous(), 0); });
    raises("multilabel -5 after -1", [&] { at::multilabel_margin_loss(x.detach(), torch::tensor({1, -1, -5, 0, 0}).reshape({1, 5}).expand({3, 5}).contiguous(), 0); });
    raises("multilabel -2", [&] { at::multilabel_margin_loss(x1.detach(), torch::tensor({1, -2, 3, -1}), 0); });
    raises("multilabel 5 of 5", [&] { at::multilabel_margin_loss(x.detach(), torch::tensor({1, 5, -1, 0, 0}).reshape({1, 5}).expand({3, 5}).contiguous(), 0); });
    raises("multilabel shape", [&] { at::multilabel_margin_loss(x.detach(), torch::zeros({3, 4}, torch::kLong), 0); });
    auto xn = T({1.0, std::nan(""), -0.5, 2.0, HUGE_VAL, 0.25}, {2, 3});
    rec("multilabel.nan", at::multilabel_margin_loss(xn, torch::tensor({0, -1, 0, 2, 0, -1}).reshape({2, 3}), 0));

    auto c = torch::tensor({3, 0, 4});
    rec_grad("multimargin.mean", F::multi_margin_loss(x, c), {{"x", x}});
    auto w = T({0.5, 1.5, 2.0, 1.0, 0.75});
    rec_grad("multimargin.p2.w.none", F::multi_margin_loss(x, c, F::MultiMarginLossFuncOptions().p(2).margin(0.5).weight(w).reduction(torch::kNone)),
             {{"x", x}});
    rec_grad("multimargin.sum.m2", F::multi_margin_loss(x, c, F::MultiMarginLossFuncOptions().margin(2).reduction(torch::kSum)), {{"x", x}});
    rec_grad("multimargin.1d", at::multi_margin_loss(x1, torch::tensor({2}), 1, 1, {}, 0), {{"x", x1}});
    rec("multimargin.1d.scalar.shape", torch::tensor({(double)at::multi_margin_loss(x1, torch::tensor(2), 1, 1, {}, 0).dim()}));
    rec("multimargin.nan", at::multi_margin_loss(xn, torch::tensor({0, 2}), 1, 1, {}, 0));
    raises("multimargin p 3", [&] { at::multi_margin_loss(x.detach(), c, 3, 1, {}, 1); });
    raises("multimargin target 5", [&] { at::multi_margin_loss(x.detach(), torch::tensor({3, 5, 0}), 1, 1, {}, 1); });
    raises("multimargin target count", [&] { at::multi_margin_loss(x.detach(), torch::tensor({3, 1}), 1, 1, {}, 1); });
    raises("multimargin weight size", [&] { at::multi_margin_loss(x.detach(), c, 1, 1, T({1.0, 2.0}), 1); });

    auto t = T({1, 0, 1, 1, 0, 0, 0.5, 1, 0, 1, 0, 1, 1, 0, 0.25}, {3, 5});
    auto tl = leaf(t);
    rec_grad("softmargin.mean", F::multilabel_soft_margin_loss(x, tl), {{"x", x}, {"y", tl}});
    rec_grad("softmargin.w.none",
             F::multilabel_soft_margin_loss(x, t, F::MultilabelSoftMarginLossFuncOptions().weight(w).reduction(torch::kNone)), {{"x", x}});
    rec_grad("softmargin.sum", F::multilabel_soft_margin_loss(x, t, F::MultilabelSoftMarginLossFuncOptions().reduction(torch::kSum)), {{"x", x}});
  }
  // ---------------------------------------------------------------- modules: printing, buffers
  std::printf("// %s\n", printed(*nn::MaxPool3d(3)).c_str());
  std::printf("// %s\n", printed(*nn::MaxPool3d(nn::MaxPool3dOptions({3, 2, 2}).stride(2).padding(1).dilation({1, 2, 1}).ceil_mode(true))).c_str());
  std::printf("// %s\n", printed(*nn::AvgPool3d(nn::AvgPool3dOptions(3).stride({2, 1, 2}).padding(1).ceil_mode(true).count_include_pad(false))).c_str());
  std::printf("// %s\n", printed(*nn::MaxUnpool1d(nn::MaxUnpool1dOptions(3).stride(2).padding(1))).c_str());
  std::printf("// %s\n", printed(*nn::MaxUnpool2d(nn::MaxUnpool2dOptions(2))).c_str());
  std::printf("// %s\n", printed(*nn::MaxUnpool3d(nn::MaxUnpool3dOptions({2, 3, 2}).stride(1))).c_str());
  std::printf("// %s\n", printed(*nn::MultiMarginLoss()).c_str());
  std::printf("// %s\n", printed(*nn::MultiMarginLoss(nn::MultiMarginLossOptions().p(2).margin(0.5).weight(T({0.5, 2.0})).reduction(torch::kSum))).c_str());
  std::printf("// %s\n", printed(*nn::MultiLabelMarginLoss()).c_str());
  std::printf("// %s\n", printed(*nn::MultiLabelSoftMarginLoss()).c_str());
  std::printf("// MultiMarginLoss buffers with weight: %zu\n", nn::MultiMarginLoss(nn::MultiMarginLossOptions().weight(T({0.5, 2.0})))->buffers().size());
  std::printf("// MultiLabelSoftMarginLoss buffers with weight: %zu\n",
              nn::MultiLabelSoftMarginLoss(nn::MultiLabelSoftMarginLossOptions().weight(T({0.5, 2.0})))->buffers().size());
  raises("MultiMarginLoss p 3", [&] { nn::MultiMarginLoss(nn::MultiMarginLossOptions().p(3)); });
  raises("F::multi_margin_loss p 3", [&] { F::multi_margin_loss(fill({3, 5}, 7), torch::tensor({3, 0, 4}), F::MultiMarginLossFuncOptions().p(3)); });
  raises("max_pool3d 3-D input", [&] { at::max_pool3d(fill({2, 4, 4}, 1), {2, 2, 2}); });
  raises("max_pool3d kernel of 2 values", [&] { at::max_pool3d(fill({1, 2, 4, 4, 4}, 1), {2, 2}); });
  raises("max_pool3d padding > k/2", [&] { at::max_pool3d(fill({1, 2, 4, 4, 4}, 1), {2, 2, 2}, {}, {2, 0, 0}); });
  raises("avg_pool3d zero divisor", [&] { at::avg_pool3d(fill({1, 2, 4, 4, 4}, 1), {2, 2, 2}, {}, {0}, false, true, 0); });
  raises("avg_pool3d long", [&] { at::avg_pool3d(torch::ones({1, 2, 4, 4, 4}, torch::kLong), {2, 2, 2}); });
  raises("max_pool3d long", [&] { at::max_pool3d(torch::ones({1, 2, 4, 4, 4}, torch::kLong), {2, 2, 2}); });
  return 0;
}
