// Records the libtorch values that tests/aten/test_frontend_more.cpp compares with (not part of any
// build). Build and run from the repository root:
//   LT=.peer/libtorch; g++ -std=c++20 -O0 -D_GLIBCXX_USE_CXX11_ABI=1 -w -I$LT/include \
//     -I$LT/include/torch/csrc/api/include tests/aten/libtorch/record_frontend_more.cpp -L$LT/lib \
//     -ltorch_cpu -lc10 -Wl,-rpath,$LT/lib -Wl,--allow-shlib-undefined -o /tmp/record_fm && /tmp/record_fm
#include <torch/torch.h>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>

namespace {
namespace F = torch::nn::functional;

void show(const std::string& name, const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kDouble).contiguous().reshape(-1);
  std::printf("%s:", name.c_str());
  for (int64_t i = 0; i < c.numel(); ++i) std::printf(" %.17g", c[i].item<double>());
  std::printf("\n");
}
void show_error(const std::string& name, const std::function<void()>& f) {
  try {
    f();
    std::printf("%s: no error\n", name.c_str());
  } catch (const c10::Error& e) {
    std::printf("%s: raises\n", name.c_str());
  }
}
}  // namespace

int main() {
  // modules and functional options
  std::cout << *torch::nn::CosineSimilarity() << "\n" << *torch::nn::PairwiseDistance() << "\n";
  std::cout << *torch::nn::CosineSimilarity(torch::nn::CosineSimilarityOptions().dim(0).eps(0.5)) << "\n";
  std::cout << *torch::nn::PairwiseDistance(torch::nn::PairwiseDistanceOptions().p(1.5).eps(1e-3).keepdim(true)) << "\n";
  torch::Tensor a = torch::tensor({{1., 2., 3.}, {0., 0., 0.}});
  torch::Tensor b = torch::tensor({{1., 0., 0.}, {1., 1., 1.}});
  show("cos", torch::nn::CosineSimilarity()(a, b));
  show("cos dim0", F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(0)));
  show("cos 0-dim", torch::cosine_similarity(torch::tensor(1.), torch::tensor(2.), 0));
  show("cos empty", torch::cosine_similarity(torch::ones({2, 0}), torch::ones({2, 0})));
  show("pd keepdim", torch::nn::PairwiseDistance(torch::nn::PairwiseDistanceOptions().keepdim(true))(torch::ones({2, 3}), torch::zeros({2, 3})));
  show("pd inf", F::pairwise_distance(torch::ones({2, 3}), torch::zeros({3}), F::PairwiseDistanceFuncOptions().p(INFINITY)));
  show("pd -1", F::pairwise_distance(torch::ones({2, 3}), torch::zeros({2, 3}), F::PairwiseDistanceFuncOptions().p(-1)));
  show("pd long", torch::pairwise_distance(torch::ones({2, 3}, torch::kLong), torch::zeros({2, 3}, torch::kLong)));
  show("dist inf", torch::dist(torch::ones({2, 3}), torch::zeros({3}), INFINITY));
  show("dist -inf", torch::dist(torch::ones({2, 3}), torch::zeros({3}), -INFINITY));
  show("dist -1", torch::ones({2, 3}).dist(torch::zeros({3}), -1));
  // gradients at zero norms
  {
    torch::Tensor x = torch::zeros({2, 3}, torch::requires_grad());
    torch::cosine_similarity(x, torch::ones({2, 3})).sum().backward();
    show("cos grad zero", x.grad());
    torch::Tensor s = torch::tensor({{1e-9, 0., 0.}}, torch::requires_grad());
    torch::cosine_similarity(s, torch::ones({1, 3})).sum().backward();
    show("cos grad small", s.grad());
    torch::Tensor y = torch::ones({2, 3}, torch::requires_grad());
    torch::dist(y, torch::ones({2, 3})).backward();
    show("dist grad zero", y.grad());
  }
  // scatter_reduce
  {
    torch::Tensor self = torch::tensor({3., 0., 0.}, torch::requires_grad());
    torch::Tensor src = torch::tensor({3., 3., 1.}, torch::requires_grad());
    torch::Tensor index = torch::tensor({0, 0, 1});
    torch::Tensor out = self.scatter_reduce(0, index, src, "amax");
    show("amax ties", out);
    out.sum().backward();
    show("amax ties grad self", self.grad());
    show("amax ties grad src", src.grad());
    torch::Tensor p_self = torch::tensor({2., 0., 5.}, torch::requires_grad());
    torch::Tensor p_src = torch::tensor({0., 3., 1.}, torch::requires_grad());
    p_self.scatter_reduce(0, index, p_src, "prod").sum().backward();
    show("prod zero grad self", p_self.grad());
    show("prod zero grad src", p_src.grad());
    torch::Tensor v = torch::tensor({1., 2., 3., 4.});
    torch::Tensor nan_src = torch::tensor({5., std::nan(""), -1.});
    torch::Tensor idx = torch::tensor({0, 0, 2});
    show("amax nan", v.scatter_reduce(0, idx, nan_src, "amax"));
    show("amin nan", v.scatter_reduce(0, idx, nan_src, "amin", false));
    show("max", v.scatter_reduce(0, idx, torch::tensor({5., -7., -1.}), "max"));
    show("min", v.scatter_reduce(0, idx, torch::tensor({5., -7., -1.}), "min"));
    show("int mean", torch::tensor({1, 2, 3, 4}).scatter_reduce(0, idx, torch::tensor({-5, -1, -2}), "mean"));
    show("int mean no self", torch::tensor({1, 2, 3, 4}).scatter_reduce(0, idx, torch::tensor({5, 6, -1}), "mean", false));
  }
  // masked_scatter
  {
    torch::Tensor source = torch::arange(10.).reshape({2, 5});
    show("masked_scatter", torch::ones({2, 3}).masked_scatter(torch::tensor({true, false, true}), source));
    show("masked_scatter grown", torch::ones({3}).masked_scatter(torch::tensor({{true}, {false}}), source));
    show_error("masked_scatter_ grown", [&] { torch::ones({3}).masked_scatter_(torch::tensor({{true}, {false}}), source); });
    torch::Tensor src = torch::arange(5.).requires_grad_(true);
    torch::Tensor base = torch::zeros({4});
    base.masked_scatter_(torch::tensor({true, false, true, true}), src);
    (base * torch::tensor({1., 2., 3., 4.})).sum().backward();
    show("masked_scatter_ grad", src.grad());
  }
  // promote_types / can_cast over Bool, Byte, Char, Short, Int, Long, Half, BFloat16, Float, Double
  {
    const std::vector<torch::ScalarType> ts = {torch::kBool, torch::kByte, torch::kChar, torch::kShort, torch::kInt,
                                               torch::kLong, torch::kHalf, torch::kBFloat16, torch::kFloat, torch::kDouble};
    for (auto x : ts) {
      std::printf("promote_types %s:", c10::toString(x));
      for (auto y : ts) std::printf(" %s", c10::toString(torch::promote_types(x, y)));
      std::printf("\ncan_cast %s:", c10::toString(x));
      for (auto y : ts) std::printf(" %d", static_cast<int>(torch::can_cast(x, y)));
      std::printf("\n");
    }
    std::cout << "result_type: " << torch::result_type(torch::ones({2}, torch::kInt), 2.5) << " "
              << torch::result_type(2, torch::ones({2}, torch::kInt)) << " "
              << torch::result_type(torch::tensor(2., torch::kDouble), torch::ones({2}, torch::kFloat)) << " "
              << torch::result_type(2, 3.5) << " " << torch::result_type(true, 2) << " " << torch::result_type(true, false)
              << " " << torch::result_type(torch::ones({2}, torch::kByte), -1) << " "
              << torch::result_type(torch::ones({}, torch::kLong), torch::ones({2}, torch::kByte)) << " "
              << torch::result_type(torch::ones({2}, torch::kBool), 1.5) << "\n";
  }
  // quantile
  {
    torch::Tensor t = torch::tensor({1., 3., 3., 2.}, torch::requires_grad());
    t.quantile(torch::tensor({0.5, 0.9, 1.0})).sum().backward();
    show("quantile ties grad", t.grad());
    torch::Tensor n = torch::tensor({1., 3., 3., 2.}, torch::requires_grad());
    n.quantile(0.5, 0, false, "nearest").sum().backward();
    show("quantile nearest grad", n.grad());
    torch::Tensor row = torch::tensor({{1., 5., 2., 2.}});
    torch::Tensor qs = torch::tensor({0.3, 0.6}, torch::requires_grad());
    row.quantile(qs, 1).sum().backward();
    show("quantile q grad", qs.grad());
    torch::Tensor x = torch::tensor({{1., 5., 2., 2.}, {3., std::nan(""), 0., 1.}}, torch::requires_grad());
    show("quantile nan", x.quantile(0.5, 1));
    show("nanquantile", x.nanquantile(0.5, 1, true));
    x.nanquantile(0.5, 1).sum().backward();
    show("nanquantile grad", x.grad());
    x.grad().zero_();
    x.quantile(0.5, 1).sum().backward();
    show("quantile nan grad", x.grad());
    show("nanquantile all nan", torch::tensor({std::nan(""), std::nan("")}).nanquantile(0.5));
    const torch::Tensor six = torch::tensor({0., 1., 2., 3., 4., 5.});
    const torch::Tensor q = torch::tensor({0.1, 0.3, 0.5, 0.7, 0.9});
    for (const char* how : {"linear", "lower", "higher", "midpoint", "nearest"}) show(how, six.quantile(q, 0, false, how));
    std::cout << "keepdim no dim: " << six.quantile(torch::tensor({0.25}), std::nullopt, true).sizes() << "\n";
    torch::Tensor r = torch::ones({2, 3}, torch::dtype(torch::kDouble).requires_grad(true));
    r.renorm(2, 0, 1).sum().backward();
    show("renorm grad", r.grad());
  }
  // counting and factories
  {
    std::cout << torch::combinations(torch::tensor({1., 2., 3.}), 4).sizes() << " " << torch::combinations(torch::empty({0})).sizes()
              << " " << torch::scalar_tensor(1).dtype() << " " << torch::scalar_tensor(true).dtype() << "\n";
    show("tril_indices int", torch::tril_indices(3, 4, 0, torch::kInt));
    show("triu_indices", torch::triu_indices(3, 4, 1));
    show("histc", torch::tensor({1., 2., 1., 2.5, 7.}).histc(4));
    show("histc nan range", torch::tensor({1., std::nan(""), -1., 3.}).histc(4, 0, 3));
    show("histc equal", torch::tensor({2., 2.}).histc(4));
    std::cout << torch::tensor({1, 3, 1}).bincount(torch::tensor({0.5f, 1.f, 2.f})).dtype() << " "
              << torch::tensor({1, 3, 1}).bincount(torch::tensor({1, 2, 2})).dtype() << "\n";
    show("bincount byte", torch::tensor({1, 3, 1}, torch::kByte).bincount({}, 6));
    show("isin nan", torch::isin(torch::tensor({1., 2., std::nan("")}), torch::tensor({2., std::nan("")})));
    show("isin scalar", torch::isin(3, torch::tensor({{1, 2}, {3, 4}})));
  }
}
