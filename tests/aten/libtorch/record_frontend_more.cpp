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
}
