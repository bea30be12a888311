// torch::nn layers, containers, functional ops and losses: float64 references written apart from
// the code, values recorded from libtorch 2.15, and finite-difference gradients.
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cmath>

namespace nn = torch::nn;
namespace F = torch::nn::functional;

namespace {
bool close(const torch::Tensor& a, const torch::Tensor& b, double tol = 1e-6) {
  return a.sizes() == b.sizes() && (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>() <= tol;
}
// Fixed float64 inputs (the same expressions the libtorch recording used).
torch::Tensor fixed_x() {
  return torch::sin(torch::arange(12, torch::kDouble).reshape({4, 3}) * 0.7 + 0.3);
}
torch::Tensor fixed_y() { return torch::cos(torch::arange(12, torch::kDouble).reshape({4, 3}) * 0.5); }
}  // namespace

TEST_CASE("nn::Linear computes x W^T + b", "[nn][layers]") {
  torch::manual_seed(3);
  nn::Linear fc(nn::LinearOptions(4, 3));
  CHECK(fc->weight.sizes() == std::vector<int64_t>{3, 4});
  CHECK(fc->bias.sizes() == std::vector<int64_t>{3});
  CHECK(fc->named_parameters().keys() == std::vector<std::string>{"weight", "bias"});
  auto x = torch::randn({5, 4});
  auto y = fc(x);
  auto W = fc->weight.to(torch::kDouble), b = fc->bias.to(torch::kDouble), xd = x.to(torch::kDouble);
  auto ref = torch::zeros({5, 3}, torch::kDouble);
  for (int i = 0; i < 5; ++i)
    for (int o = 0; o < 3; ++o) {
      double s = b[o].item<double>();
      for (int k = 0; k < 4; ++k) s += xd[i][k].item<double>() * W[o][k].item<double>();
      ref[i][o] = s;
    }
  CHECK(close(y, ref, 1e-5));

  nn::Linear nobias(nn::LinearOptions(4, 3).bias(false));
  CHECK_FALSE(nobias->bias.defined());
  CHECK(nobias->named_parameters().keys() == std::vector<std::string>{"weight"});
  CHECK(close(nobias(x), torch::matmul(x, nobias->weight.t()), 1e-6));
  CHECK(nobias->options.in_features() == 4);
}

TEST_CASE("nn::Linear default init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias", "[nn][layers][init]") {
  torch::manual_seed(0);
  nn::Linear fc(400, 500);
  // kaiming_uniform_(a = sqrt(5)): gain sqrt(2 / (1 + 5)), bound sqrt(3) * gain / sqrt(fan_in) = 1/sqrt(400).
  const double bound = std::sqrt(3.0) * std::sqrt(2.0 / 6.0) / std::sqrt(400.0);
  REQUIRE(bound == Approx(0.05));
  auto w = fc->weight.detach().to(torch::kDouble);
  CHECK(w.abs().max().item<double>() <= bound);
  CHECK(w.abs().max().item<double>() > 0.99 * bound);
  // Uniform on [-b, b]: variance b^2 / 3 (200000 samples: well within 2%).
  CHECK(w.var().item<double>() == Approx(bound * bound / 3).epsilon(0.02));
  CHECK(std::abs(w.mean().item<double>()) < 1e-3);
  auto b = fc->bias.detach().to(torch::kDouble);
  CHECK(b.abs().max().item<double>() <= 0.05);
  CHECK(b.abs().max().item<double>() > 0.04);
  CHECK(fc->weight.requires_grad());
  CHECK(fc->weight.is_leaf());
}

TEST_CASE("nn::Sequential chains modules; named, indexed, extended", "[nn][layers][sequential]") {
  torch::manual_seed(5);
  nn::Linear l1(3, 5), l2(5, 2);
  nn::Sequential seq(l1, nn::ReLU(), l2);
  CHECK(seq->size() == 3);
  auto x = torch::randn({4, 3});
  CHECK(close(seq->forward(x), l2(torch::relu(l1(x))), 0));
  CHECK(close(seq(x), l2(torch::relu(l1(x))), 0));
  CHECK(seq->named_parameters().keys() == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  CHECK(seq[0].get() == l1.ptr().get());
  CHECK(&seq->at<nn::LinearImpl>(2) == l2.get());
  CHECK(seq->ptr<nn::LinearImpl>(0) == l1.ptr());
  CHECK_THROWS_AS(seq->at<nn::LinearImpl>(1), c10::Error);
  CHECK_THROWS_AS(seq[7], c10::Error);

  nn::Sequential named({{"fc1", l1}, {"act", nn::ReLU()}, {"fc2", l2}});
  CHECK(named->named_children().keys() == std::vector<std::string>{"fc1", "act", "fc2"});
  CHECK(named->named_parameters().keys() == std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"});
  CHECK(close(named->forward(x), seq->forward(x), 0));

  nn::Sequential built;
  CHECK(built->is_empty());
  CHECK_THROWS_AS(built->forward(x), c10::Error);
  built->push_back(l1);
  built->push_back("act", nn::Tanh());
  built->push_back(std::make_shared<nn::LinearImpl>(5, 2));
  built->push_back(nn::SigmoidImpl());
  CHECK(built->named_children().keys() == std::vector<std::string>{"0", "act", "2", "3"});
  CHECK(built->forward(x).sizes() == std::vector<int64_t>{4, 2});
  size_t n = 0;
  for (const auto& m : *built) n += m.is_empty() ? 0 : 1;
  CHECK(n == 4);

  // Nested containers give nested names; train/eval reach inside.
  nn::Sequential outer(nn::Sequential(nn::Linear(3, 3), nn::Dropout(0.5)), nn::Linear(3, 1));
  CHECK(outer->named_parameters().keys() == std::vector<std::string>{"0.0.weight", "0.0.bias", "1.weight", "1.bias"});
  outer->eval();
  CHECK_FALSE(outer->ptr<nn::SequentialImpl>(0)->ptr(1)->is_training());
  CHECK(close(outer(x), outer(x), 0));  // dropout is off in eval: deterministic
}

TEST_CASE("nn::ModuleList holds modules by position", "[nn][layers]") {
  nn::ModuleList list(nn::Linear(2, 3), nn::ReLU());
  list->push_back(nn::Linear(3, 1));
  list->push_back(nn::TanhImpl());
  CHECK(list->size() == 4);
  CHECK(list->named_parameters().keys() == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  auto x = torch::randn({6, 2});
  torch::Tensor y = x;
  for (const auto& m : *list) {
    if (auto lin = std::dynamic_pointer_cast<nn::LinearImpl>(m)) y = lin->forward(y);
    else if (m->is<nn::ReLUImpl>()) y = torch::relu(y);
    else y = torch::tanh(y);
  }
  CHECK(y.sizes() == std::vector<int64_t>{6, 1});
  CHECK(list->ptr<nn::LinearImpl>(2)->weight.size(1) == 3);
  CHECK(list->at<nn::LinearImpl>(0).weight.size(0) == 3);
  CHECK_THROWS_AS(list->at<nn::LinearImpl>(1), c10::Error);
  CHECK_THROWS_AS(list[9], c10::Error);
}

TEST_CASE("nn activations, Identity and Flatten against float64 formulas", "[nn][layers]") {
  auto x = torch::linspace(-4, 4, 33, torch::kDouble).reshape({3, 11});
  auto xs = x.flatten();
  auto ref = [&](auto f) {
    auto out = torch::empty_like(xs);
    for (int64_t i = 0; i < xs.numel(); ++i) out[i] = f(xs[i].item<double>());
    return out.reshape(x.sizes());
  };
  CHECK(close(nn::ReLU()(x), ref([](double v) { return v > 0 ? v : 0.0; }), 0));
  CHECK(close(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))(x), ref([](double v) { return v > 0 ? v : 0.2 * v; }), 1e-15));
  CHECK(close(nn::Sigmoid()(x), ref([](double v) { return 1 / (1 + std::exp(-v)); }), 1e-12));
  CHECK(close(nn::Tanh()(x), ref([](double v) { return std::tanh(v); }), 1e-12));
  CHECK(close(nn::GELU()(x), ref([](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }), 1e-12));
  CHECK(close(nn::SiLU()(x), ref([](double v) { return v / (1 + std::exp(-v)); }), 1e-12));
  CHECK(close(F::gelu(x, F::GELUFuncOptions().approximate("tanh")),
              ref([](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); }), 1e-12));
  CHECK(close(F::relu(x), nn::ReLU()(x), 0));
  CHECK(close(F::silu(x), nn::SiLU()(x), 0));
  CHECK(close(F::sigmoid(x), nn::Sigmoid()(x), 0));
  CHECK(close(F::tanh(x), nn::Tanh()(x), 0));
  CHECK(close(F::leaky_relu(x), ref([](double v) { return v > 0 ? v : 0.01 * v; }), 1e-15));
  auto xc = x.clone();
  F::relu(xc, F::ReLUFuncOptions().inplace(true));
  CHECK(close(xc, nn::ReLU()(x), 0));

  // Softmax / LogSoftmax along dim 1: rows of exp(v) / sum exp.
  auto sm = nn::Softmax(1)(x);
  auto e = torch::exp(x);
  auto sm_ref = e / e.sum(1, true);
  CHECK(close(sm, sm_ref, 1e-14));
  CHECK(close(nn::LogSoftmax(1)(x), torch::log(sm_ref), 1e-12));
  CHECK(close(F::softmax(x, F::SoftmaxFuncOptions(0)), e / e.sum(0, true), 1e-14));
  CHECK(close(F::log_softmax(x, F::LogSoftmaxFuncOptions(1)), torch::log(sm_ref), 1e-12));
  CHECK(F::softmax(x.to(torch::kFloat), F::SoftmaxFuncOptions(1).dtype(torch::kDouble)).scalar_type() == torch::kDouble);

  CHECK(close(nn::Identity()(x), x, 0));
  auto t = torch::zeros({2, 3, 4, 5});
  CHECK(nn::Flatten()(t).sizes() == std::vector<int64_t>{2, 60});
  CHECK(nn::Flatten(nn::FlattenOptions().start_dim(2))(t).sizes() == std::vector<int64_t>{2, 3, 20});
  CHECK(nn::Flatten(nn::FlattenOptions().start_dim(0).end_dim(1))(t).sizes() == std::vector<int64_t>{6, 4, 5});
}

TEST_CASE("nn::Dropout: Bernoulli mask scaled by 1/(1-p) in training, identity in eval", "[nn][layers][dropout]") {
  torch::manual_seed(11);
  const double p = 0.3;
  nn::Dropout drop(p);
  auto x = (torch::rand({200, 500}) + 1).requires_grad_();
  auto y = drop(x);
  auto dropped = (y == 0).to(torch::kDouble).mean().item<double>();
  CHECK(std::abs(dropped - p) < 0.01);
  auto kept = y != 0;
  CHECK(close(y.masked_select(kept), x.detach().masked_select(kept) / (1 - p), 1e-6));
  // d y / d x is the scaled mask.
  y.sum().backward();
  CHECK(close(x.grad(), kept.to(torch::kFloat) / (1 - p), 1e-6));

  drop->eval();
  CHECK(close(drop(x), x, 0));
  CHECK(close(F::dropout(x, F::DropoutFuncOptions().p(0.9).training(false)), x, 0));
  CHECK(close(F::dropout(x, F::DropoutFuncOptions().p(0.0)), x, 0));
  CHECK(F::dropout(x, F::DropoutFuncOptions().p(1.0)).abs().sum().item<double>() == 0.0);
  CHECK_THROWS_AS(F::dropout(x, F::DropoutFuncOptions().p(1.5)), c10::Error);
  CHECK_THROWS_AS(nn::Dropout(-0.1), c10::Error);
}

TEST_CASE("nn::functional losses match libtorch", "[nn][loss]") {
  // Values recorded from libtorch 2.15 for the same inputs.
  auto x = fixed_x(), y = fixed_y();
  auto t = torch::tensor({2, 0, 1, 2}, torch::kLong);
  auto w = torch::tensor({0.5, 2.0, 1.5}, torch::kDouble);
  CHECK(F::cross_entropy(x, t).item<double>() == Approx(0.89746174615401952).epsilon(1e-12));
  CHECK(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(torch::kSum)).item<double>() ==
        Approx(3.5898469846160781).epsilon(1e-12));
  auto none = F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(torch::kNone));
  CHECK(close(none, torch::tensor({0.8583, 0.5914, 1.2739, 0.8663}, torch::kDouble), 5e-5));
  CHECK(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().weight(w)).item<double>() ==
        Approx(0.98732974373303606).epsilon(1e-12));
  CHECK(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().label_smoothing(0.1)).item<double>() ==
        Approx(0.92386822948074687).epsilon(1e-12));
  auto lp = F::log_softmax(x, 1);
  CHECK(F::nll_loss(lp, t).item<double>() == Approx(0.89746174615401952).epsilon(1e-12));
  CHECK(F::nll_loss(lp, t, F::NLLLossFuncOptions().ignore_index(2)).item<double>() ==
        Approx(0.93266092170452741).epsilon(1e-12));
  CHECK(F::nll_loss(lp, t, F::NLLLossFuncOptions().weight(w).reduction(torch::kSum)).item<double>() ==
        Approx(5.4303135905316982).epsilon(1e-12));
  CHECK(F::mse_loss(x, y).item<double>() == Approx(0.17220420506183978).epsilon(1e-12));
  CHECK(F::mse_loss(x, y, F::MSELossFuncOptions().reduction(torch::kSum)).item<double>() ==
        Approx(2.0664504607420775).epsilon(1e-12));
  CHECK(F::mse_loss(x, y, F::MSELossFuncOptions(torch::kNone)).sizes() == x.sizes());
  CHECK(F::l1_loss(x, y).item<double>() == Approx(0.34656037620454549).epsilon(1e-12));
  CHECK(F::l1_loss(x, y, F::L1LossFuncOptions(torch::kSum)).item<double>() == Approx(4.1587245144545459).epsilon(1e-12));

  // The loss modules forward to the functional forms with their options.
  CHECK(nn::CrossEntropyLoss()(x, t).item<double>() == Approx(0.89746174615401952).epsilon(1e-12));
  CHECK(nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().weight(w))(x, t).item<double>() ==
        Approx(0.98732974373303606).epsilon(1e-12));
  CHECK(nn::NLLLoss(nn::NLLLossOptions().reduction(torch::kSum))(lp, t).item<double>() ==
        Approx(3.5898469846160781).epsilon(1e-12));
  CHECK(nn::MSELoss()(x, y).item<double>() == Approx(0.17220420506183978).epsilon(1e-12));
  CHECK(nn::L1Loss(nn::L1LossOptions(torch::kSum))(x, y).item<double>() == Approx(4.1587245144545459).epsilon(1e-12));
  CHECK(torch::enumtype::get_enum_name(nn::LossReduction(torch::kSum)) == "kSum");
}

TEST_CASE("nn: gradients of Linear-ReLU-Linear-cross_entropy match finite differences", "[nn][grad]") {
  torch::manual_seed(7);
  nn::Sequential net(nn::Linear(3, 5), nn::ReLU(), nn::Linear(5, 4));
  net->to(torch::kDouble);
  auto x = torch::randn({6, 3}, torch::kDouble);
  auto t = torch::tensor({0, 3, 1, 2, 3, 0}, torch::kLong);
  auto loss_of = [&] { return F::cross_entropy(net->forward(x), t).item<double>(); };
  net->zero_grad();
  F::cross_entropy(net->forward(x), t).backward();
  const double eps = 1e-6;
  for (auto& p : net->named_parameters()) {
    auto param = p.value();
    REQUIRE(param.grad().defined());
    auto flat = param.detach().view({-1});  // shares storage with the parameter
    auto g = param.grad().reshape({-1});
    for (int64_t i = 0; i < flat.numel(); ++i) {
      torch::NoGradGuard no_grad;
      const double v = flat[i].item<double>();
      flat[i] = v + eps;
      const double up = loss_of();
      flat[i] = v - eps;
      const double down = loss_of();
      flat[i] = v;
      INFO(p.key() << "[" << i << "]");
      CHECK(g[i].item<double>() == Approx((up - down) / (2 * eps)).margin(1e-7));
    }
  }
}
