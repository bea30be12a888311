// torch::optim: optimizer updates compared with parameter values recorded from libtorch 2.15, and the
// Optimizer base's behaviour (groups, option inheritance, zero_grad, closures, skipped parameters, StepLR).
#include <torch/torch.h>
#include <torch/optim.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace {

using torch::Tensor;
namespace optim = torch::optim;

// The fixed problem the recordings used: loss = sum((w * x + b - y)^2), w = [0.5, -1, 1.5, 2], b = [0.25].
struct Problem {
  Tensor w, b;
  torch::ScalarType dtype;
  explicit Problem(torch::ScalarType dt) : dtype(dt) {
    w = torch::tensor({0.5, -1.0, 1.5, 2.0}, torch::TensorOptions().dtype(dt)).requires_grad_();
    b = torch::tensor({0.25}, torch::TensorOptions().dtype(dt)).requires_grad_();
  }
  Tensor loss() const {
    auto o = torch::TensorOptions().dtype(dtype);
    Tensor x = torch::tensor({1.0, 2.0, -0.5, 3.0}, o), y = torch::tensor({0.3, -0.7, 1.1, 0.2}, o);
    return (w * x + b - y).pow(2).sum();
  }
};

// Runs `steps` of zero_grad/backward/step and returns w's four values followed by b's.
template <typename Opt, typename Options>
std::vector<double> run(Options options, torch::ScalarType dt = torch::kDouble, int steps = 3) {
  Problem pr(dt);
  Opt opt({pr.w, pr.b}, options);
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    pr.loss().backward();
    opt.step();
  }
  std::vector<double> out;
  for (const Tensor& t : {pr.w, pr.b}) {
    Tensor c = t.detach().to(torch::kDouble).contiguous();
    for (int64_t i = 0; i < c.numel(); ++i) out.push_back(c.data_ptr<double>()[i]);
  }
  return out;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double rel) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", libtorch " << want[i]);
    CHECK(std::abs(got[i] - want[i]) <= rel * std::max(std::abs(want[i]), 1e-3));
  }
}

constexpr double kRel64 = 1e-6, kRel32 = 1e-5;

}  // namespace

TEST_CASE("optim: SGD matches libtorch after 3 steps", "[optim]") {
  check_close(run<optim::SGD>(optim::SGDOptions(0.01)),
              {0.47759999999999997, -0.8758688, 1.4501962499999999, 1.1067104000000001, 0.091509900000000033}, kRel64);
  check_close(run<optim::SGD>(optim::SGDOptions(0.01).momentum(0.9)),
              {0.457206, -0.7667527999999999, 1.4071942499999999, 0.28520840000000014, -0.062156099999999978}, kRel64);
  check_close(run<optim::SGD>(optim::SGDOptions(0.01).momentum(0.9).nesterov(true)),
              {0.44763972000000002, -0.6728927791999999, 1.3634456887499999, -0.045972606400000005,
               -0.047688915899999983},
              kRel64);
  check_close(run<optim::SGD>(optim::SGDOptions(0.01).weight_decay(0.1)),
              {0.47616782049999995, -0.87320525699999996, 1.4457660274999999, 1.1027161649999999,
               0.091196272750000029},
              kRel64);
  check_close(run<optim::SGD>(optim::SGDOptions(0.01).momentum(0.9).dampening(0.1).weight_decay(0.1)),
              {0.45638103460499996, -0.77373365816999995, 1.404293982275, 0.34561009364999995,
               -0.054269469072499979},
              kRel64);
  check_close(run<optim::SGD>(optim::SGDOptions(0.01).momentum(0.9).nesterov(true).weight_decay(0.1), torch::kFloat),
              {0.44391703605651855, -0.66639798879623413, 1.3517006635665894, -0.053248066455125809,
               -0.047856826335191727},
              kRel32);
}

TEST_CASE("optim: Adam matches libtorch", "[optim]") {
  check_close(run<optim::Adam>(optim::AdamOptions()),
              {0.49700043526456217, -0.99700009145933133, 1.4969999702257786, 1.9970000633836584, 0.24700013754954672},
              kRel64);
  check_close(run<optim::Adam>(optim::AdamOptions(0.1).weight_decay(0.1)),
              {0.2238901241410462, -0.70148269825292131, 1.1998100961764024, 1.7008909210988719,
               -0.047242117457845303},
              kRel64);
  // betas (0.8, 0.3) over 5 steps make the second moment shrink, so amsgrad's running max matters.
  check_close(run<optim::Adam>(optim::AdamOptions(0.1).betas({0.8, 0.3}), torch::kDouble, 5),
              {0.13922235918876347, -0.465934407827579, 1.0088399332532447, 1.4778436743148518, -0.31473887589822436},
              kRel64);
  check_close(run<optim::Adam>(optim::AdamOptions(0.1).betas({0.8, 0.3}).amsgrad(true), torch::kDouble, 5),
              {0.21947201170761022, -0.51871195312947038, 1.0076760925239747, 1.5084776221295257,
               -0.21632986164395474},
              kRel64);
  check_close(
      run<optim::Adam>(optim::AdamOptions(0.1).betas({0.8, 0.3}).amsgrad(true).weight_decay(0.1), torch::kDouble, 5),
      {0.21151125583216637, -0.51875185433118032, 1.0056748809097669, 1.5084472183242736, -0.2159123671743462},
      kRel64);
  check_close(run<optim::Adam>(optim::AdamOptions(0.05).eps(1e-6).weight_decay(0.1), torch::kFloat),
              {0.35280808806419373, -0.85029387474060059, 1.3499491214752197, 1.8501887321472168, 0.1004985123872757},
              kRel32);
}

TEST_CASE("optim: AdamW matches libtorch", "[optim]") {
  CHECK(optim::AdamWOptions().weight_decay() == 1e-2);
  CHECK(optim::AdamOptions().weight_decay() == 0);
  check_close(run<optim::AdamW>(optim::AdamWOptions()),
              {0.49698546708448987, -0.99697012336779367, 1.4969550009732895, 1.9969400949772598, 0.24699266882110946},
              kRel64);
  check_close(run<optim::AdamW>(optim::AdamWOptions(0.1).weight_decay(0.3)),
              {0.19709438059019996, -0.62433666969065837, 1.0777406541114312, 1.5357401146680472,
               -0.059004059108962205},
              kRel64);
  check_close(run<optim::AdamW>(optim::AdamWOptions(0.1).betas({0.8, 0.3}).amsgrad(true), torch::kDouble, 5),
              {0.2185983263770771, -0.51525407060558448, 1.0010946233429852, 1.4998106540187444,
               -0.21620274604054923},
              kRel64);
  check_close(run<optim::AdamW>(optim::AdamWOptions(0.05), torch::kFloat),
              {0.3523114025592804, -0.84887540340423584, 1.3477586507797241, 1.84726881980896, 0.10020029544830322},
              kRel32);
}

TEST_CASE("optim: parameter groups, option inheritance and per-group lr", "[optim]") {
  auto a = torch::tensor({1.0, 2.0}, torch::kDouble).requires_grad_();
  auto b = torch::tensor({3.0}, torch::kDouble).requires_grad_();
  auto c = torch::tensor({5.0}, torch::kDouble).requires_grad_();
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<optim::SGDOptions>(optim::SGDOptions(0.5)));
  groups.emplace_back(std::vector<Tensor>{c},
                      std::make_unique<optim::SGDOptions>(optim::SGDOptions(0.01).momentum(0.3)));
  optim::SGD opt(groups, optim::SGDOptions(0.1).momentum(0.9).weight_decay(0.2));
  REQUIRE(opt.param_groups().size() == 3);
  // Recorded from libtorch: fields left at the options' constructor defaults come from the optimizer's defaults.
  const double want[3][3] = {{0.1, 0.9, 0.2}, {0.5, 0.9, 0.2}, {0.01, 0.3, 0.2}};
  for (size_t i = 0; i < 3; ++i) {
    auto& o = static_cast<optim::SGDOptions&>(opt.param_groups()[i].options());
    CHECK(o.lr() == want[i][0]);
    CHECK(o.momentum() == want[i][1]);
    CHECK(o.weight_decay() == want[i][2]);
    CHECK(o.dampening() == 0);
    CHECK_FALSE(o.nesterov());
  }
  ((a * a).sum() + b.sum() * 2 + c.sum() * 3).backward();
  CHECK(opt.step().defined() == false);
  // libtorch: a = [0.78, 1.56], b = 1.7, c = 4.96.
  CHECK(a[0].item<double>() == Approx(0.78).epsilon(1e-12));
  CHECK(a[1].item<double>() == Approx(1.56).epsilon(1e-12));
  CHECK(b.item<double>() == Approx(1.7).epsilon(1e-12));
  CHECK(c.item<double>() == Approx(4.96).epsilon(1e-12));
  CHECK(opt.state().size() == 3);
  CHECK(opt.size() == 3);
  CHECK(opt.parameters().size() == 1);

  // A parameter may be in one group only.
  CHECK_THROWS_WITH(opt.add_param_group(optim::OptimizerParamGroup({a})),
                    Catch::Contains("[optim] add_param_group") && Catch::Contains("only one parameter group"));

  // SGDOptions' constructor default for lr (as libtorch) is 1e-3: such a group inherits the optimizer's lr.
  std::vector<optim::OptimizerParamGroup> g2;
  g2.emplace_back(std::vector<Tensor>{torch::ones({1}).requires_grad_()},
                  std::make_unique<optim::SGDOptions>(optim::SGDOptions(1e-3)));
  optim::SGD opt2(g2, optim::SGDOptions(0.7));
  CHECK(opt2.param_groups()[0].options().get_lr() == 0.7);

  // Adam groups (recorded from libtorch).
  std::vector<optim::OptimizerParamGroup> g3;
  g3.emplace_back(std::vector<Tensor>{torch::ones({2}).requires_grad_()},
                  std::make_unique<optim::AdamOptions>(optim::AdamOptions().weight_decay(0.1)));
  g3.emplace_back(std::vector<Tensor>{torch::ones({2}).requires_grad_()},
                  std::make_unique<optim::AdamOptions>(optim::AdamOptions(1e-3).betas({0.5, 0.6})));
  optim::Adam adam(g3, optim::AdamOptions(0.01).weight_decay(0.05).eps(1e-5).betas({0.8, 0.7}));
  auto& o0 = static_cast<optim::AdamOptions&>(adam.param_groups()[0].options());
  auto& o1 = static_cast<optim::AdamOptions&>(adam.param_groups()[1].options());
  CHECK(o0.lr() == 0.01);
  CHECK(o0.weight_decay() == 0.1);
  CHECK(o0.eps() == 1e-5);
  CHECK(std::get<0>(o0.betas()) == 0.8);
  CHECK(std::get<1>(o0.betas()) == 0.7);
  CHECK(o1.lr() == 0.01);
  CHECK(o1.weight_decay() == 0.05);
  CHECK(std::get<0>(o1.betas()) == 0.5);
  CHECK(std::get<1>(o1.betas()) == 0.6);
}

TEST_CASE("optim: changing lr through param_groups()[0].options()", "[optim]") {
  auto w = torch::tensor({1.0, -2.0}, torch::kDouble).requires_grad_();
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  static_cast<optim::SGDOptions&>(opt.param_groups()[0].options()).lr(0.01);
  CHECK(opt.param_groups()[0].options().get_lr() == 0.01);
  CHECK(static_cast<optim::SGDOptions&>(opt.defaults()).lr() == 0.1);  // the defaults are a separate copy
  (w * 3).sum().backward();
  opt.step();
  CHECK(w[0].item<double>() == Approx(1.0 - 0.03).epsilon(1e-12));
  CHECK(w[1].item<double>() == Approx(-2.0 - 0.03).epsilon(1e-12));
  opt.param_groups()[0].options().set_lr(1.0);
  opt.step();  // the gradient (3, 3) is still there
  CHECK(w[0].item<double>() == Approx(0.97 - 3.0).epsilon(1e-12));
}

TEST_CASE("optim: zero_grad", "[optim]") {
  auto w = torch::tensor({1.0, 2.0}, torch::kDouble).requires_grad_();
  optim::Adam opt({w});
  (w * w).sum().backward();
  REQUIRE(w.grad().defined());
  opt.zero_grad(false);
  REQUIRE(w.grad().defined());
  CHECK(w.grad().abs().sum().item<double>() == 0);
  opt.zero_grad();  // set_to_none defaults to true, as libtorch 2.x
  CHECK_FALSE(w.grad().defined());
  opt.zero_grad();  // no gradient: nothing to do
  CHECK_FALSE(w.grad().defined());
}

TEST_CASE("optim: parameters without a gradient are skipped", "[optim]") {
  auto q = torch::ones({2}, torch::kDouble).requires_grad_();
  auto q2 = torch::ones({2}, torch::kDouble).requires_grad_();
  optim::Adam adam({q, q2}, optim::AdamOptions(0.1));
  (q * q).sum().backward();
  adam.step();
  CHECK(q[0].item<double>() == Approx(0.90000000049999995).epsilon(1e-12));  // libtorch
  CHECK(q2[0].item<double>() == 1.0);
  CHECK(adam.state().size() == 1);
  CHECK(adam.state().count(q.unsafeGetTensorImpl()) == 1);

  auto s = torch::ones({1}, torch::kDouble).requires_grad_();
  optim::SGD sgd({s, q2}, optim::SGDOptions(0.5).momentum(0.9));
  (s * 4).sum().backward();
  sgd.step();
  CHECK(s.item<double>() == Approx(1.0 - 2.0).epsilon(1e-12));
  CHECK(q2[0].item<double>() == 1.0);
  CHECK(sgd.state().size() == 1);
  auto* st = static_cast<optim::SGDParamState*>(sgd.state().at(s.unsafeGetTensorImpl()).get());
  CHECK(st->momentum_buffer().item<double>() == 4.0);  // first buffer = the gradient
}

TEST_CASE("optim: step with a closure returns its loss", "[optim]") {
  auto w = torch::tensor({2.0}, torch::kDouble).requires_grad_();
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  int calls = 0;
  Tensor loss = opt.step([&] {
    ++calls;
    opt.zero_grad();
    Tensor l = (w * w).sum();
    CHECK(l.requires_grad());  // the closure runs with grad mode on
    l.backward();
    return l;
  });
  CHECK(calls == 1);
  REQUIRE(loss.defined());
  CHECK(loss.item<double>() == 4.0);
  CHECK(w.item<double>() == Approx(2.0 - 0.1 * 4.0).epsilon(1e-12));
  CHECK_FALSE(opt.step().defined());
}

TEST_CASE("optim: SGD writes through data(), Adam writes to the parameter (as libtorch)", "[optim]") {
  // libtorch: after an SGD step a retained graph can still be backpropagated (it sees the new value);
  // after an Adam step the same thing fails the version check.
  auto w = torch::tensor({2.0}, torch::kDouble).requires_grad_();
  optim::SGD sgd({w}, optim::SGDOptions(0.1));
  auto l = (w * w).sum();
  l.backward({}, true);
  const auto v = w._version();
  sgd.step();
  CHECK(w._version() == v);
  l.backward();
  CHECK(w.grad().item<double>() == Approx(7.2).epsilon(1e-12));
  CHECK(w.item<double>() == Approx(1.6).epsilon(1e-12));

  optim::Adam adam({w}, optim::AdamOptions(0.1));
  sgd.zero_grad();
  l = (w * w).sum();
  l.backward({}, true);
  adam.step();
  CHECK(w._version() == v + 1);
  CHECK_THROWS(l.backward());
}

TEST_CASE("optim: option checks", "[optim]") {
  auto a = torch::ones({1}).requires_grad_();
  CHECK_THROWS_WITH(optim::SGD({a}, optim::SGDOptions(-0.1)), Catch::StartsWith("[SGD]"));
  CHECK_THROWS_WITH(optim::SGD({a}, optim::SGDOptions(0.1).nesterov(true)), Catch::Contains("nesterov"));
  CHECK_THROWS_WITH(optim::SGD({a}, optim::SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)),
                    Catch::Contains("dampening"));
  CHECK_THROWS_WITH(optim::Adam({a}, optim::AdamOptions(0.1).betas({1.0, 0.5})), Catch::StartsWith("[Adam]"));
  CHECK_THROWS_WITH(optim::AdamW({a}, optim::AdamWOptions(0.1).eps(-1)), Catch::StartsWith("[AdamW]"));
}

TEST_CASE("optim: StepLR", "[optim]") {
  auto p = torch::zeros({1}).requires_grad_();
  optim::SGD opt({p}, optim::SGDOptions(1.0));
  optim::StepLR sched(opt, 3, 0.5);
  // Recorded from libtorch: the lr seen before each of 8 scheduler steps.
  const double want[8] = {1, 1, 1, 1, 0.5, 0.5, 0.5, 0.25};
  for (double lr : want) {
    CHECK(opt.param_groups()[0].options().get_lr() == lr);
    sched.step();
  }
}

TEST_CASE("optim: a float32 step on the CPU", "[optim]") {
  // Runs on every build, CUDA or not: all tensors here live on the CPU.
  auto w = torch::ones({3}).requires_grad_();
  optim::AdamW opt({w}, optim::AdamWOptions(0.1).weight_decay(0));
  (w * torch::tensor({1.0f, -1.0f, 0.0f})).sum().backward();
  opt.step();
  CHECK(w.scalar_type() == torch::kFloat);
  // First Adam step moves by lr * g / (|g| + eps'): about -0.1, +0.1 and 0.
  CHECK(w[0].item<float>() == Approx(0.9f).epsilon(1e-5));
  CHECK(w[1].item<float>() == Approx(1.1f).epsilon(1e-5));
  CHECK(w[2].item<float>() == 1.0f);
}

TEST_CASE("optim: RMSprop matches libtorch", "[optim]") {
  CHECK(optim::RMSpropOptions().lr() == 1e-2);
  CHECK(optim::RMSpropOptions().alpha() == 0.99);
  check_close(run<optim::RMSprop>(optim::RMSpropOptions()),
              {0.32549742895270539, -0.77961140691949904, 1.2687537609515265, 1.7767785807253769,
               0.034079745808523881},
              kRel64);
  check_close(run<optim::RMSprop>(optim::RMSpropOptions(0.05).momentum(0.9).weight_decay(0.1).alpha(0.9)),
              {0.062387097786361208, -0.30007148084555135, 0.75007453062819607, 1.2848441307166625,
               -0.42382282064335924},
              kRel64);
  check_close(run<optim::RMSprop>(optim::RMSpropOptions(0.05).centered(true).eps(1e-3)),
              {0.58365414466110377, -0.17210207252596019, 0.31818282693708566, 1.0183944714361455,
               -0.48218214812945676},
              kRel64);
  check_close(run<optim::RMSprop>(optim::RMSpropOptions(0.05).centered(true).momentum(0.5), torch::kFloat),
              {0.58102148771286011, 0.21579226851463318, -0.26877272129058838, 0.55991113185882568,
               -0.75532740354537964},
              kRel32);
}

TEST_CASE("optim: Adagrad matches libtorch", "[optim]") {
  CHECK(optim::AdagradOptions().eps() == 1e-10);
  check_close(run<optim::Adagrad>(optim::AdagradOptions()),
              {0.4775339911379457, -0.97723404273220948, 1.4771300775326426, 1.9772098080839295, 0.2272736316458687},
              kRel64);
  check_close(run<optim::Adagrad>(
                  optim::AdagradOptions(0.1).lr_decay(0.5).weight_decay(0.1).initial_accumulator_value(0.3).eps(1e-3)),
              {0.36677601338731264, -0.82943280838841726, 1.3292315176678366, 1.8269455501024841,
               0.080993207479696197},
              kRel64);
  check_close(run<optim::Adagrad>(optim::AdagradOptions(0.1).lr_decay(0.1), torch::kFloat),
              {0.33301374316215515, -0.79476273059844971, 1.2856265306472778, 1.792393684387207, 0.04853418841958046},
              kRel32);
  // As libtorch, Adagrad creates every parameter's state at construction; RMSprop (like Adam) on the first step.
  auto w = torch::ones({2}).requires_grad_();
  optim::Adagrad ada({w}, optim::AdagradOptions().initial_accumulator_value(0.5));
  REQUIRE(ada.state().size() == 1);
  auto* st = static_cast<optim::AdagradParamState*>(ada.state().at(w.unsafeGetTensorImpl()).get());
  CHECK(st->sum()[1].item<float>() == 0.5f);
  CHECK(st->step() == 0);
  optim::RMSprop rms({w});
  CHECK(rms.state().empty());
}

namespace {
// Runs a plateau scheduler over `metrics` and returns the lrs of every group after each step.
std::vector<std::vector<double>> plateau_lrs(optim::Optimizer& opt, optim::ReduceLROnPlateauScheduler& sched,
                                             const std::vector<float>& metrics) {
  std::vector<std::vector<double>> out;
  for (float m : metrics) {
    sched.step(m);
    std::vector<double> lrs;
    for (auto& g : opt.param_groups()) lrs.push_back(g.options().get_lr());
    out.push_back(lrs);
  }
  return out;
}
}  // namespace

TEST_CASE("optim: ReduceLROnPlateauScheduler follows libtorch's schedule", "[optim]") {
  using R = optim::ReduceLROnPlateauScheduler;
  auto p = torch::zeros({1}).requires_grad_();
  auto p2 = torch::zeros({1}).requires_grad_();
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{p});
  groups.emplace_back(std::vector<Tensor>{p2}, std::make_unique<optim::SGDOptions>(optim::SGDOptions(0.5)));
  optim::SGD opt(groups, optim::SGDOptions(1.0));
  {
    // min / rel, patience 2, cooldown 1, per-group floors (recorded from libtorch).
    R sched(opt, R::min, 0.5, 2, 1e-4, R::rel, 1, {0.2f, 0.1f});
    auto lrs = plateau_lrs(opt, sched, {5, 4, 4, 4, 4, 3.9999f, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5});
    const std::vector<std::vector<double>> want = {
        {1, 0.5},      {1, 0.5},      {1, 0.5},      {1, 0.5},      {0.5, 0.25},
        {0.5, 0.25},   {0.5, 0.25},   {0.5, 0.25},   {0.5, 0.25},   {0.25, 0.125},
        {0.25, 0.125}, {0.25, 0.125}, {0.25, 0.125}, {0.2f, 0.1f},  {0.2f, 0.1f}};  // the floors are floats
    CHECK(lrs == want);
  }
  // Single-group runs with patience 0 (recorded from libtorch 2.15, quirks included: see the header's Note).
  auto single = [](R::SchedulerMode mode, R::ThresholdMode tm, double threshold, const std::vector<float>& metrics) {
    auto q = torch::zeros({1}).requires_grad_();
    optim::SGD o({q}, optim::SGDOptions(1.0));
    R sched(o, mode, 0.5, 0, threshold, tm);
    std::vector<double> out;
    for (auto& v : plateau_lrs(o, sched, metrics)) out.push_back(v[0]);
    return out;
  };
  CHECK(single(R::max, R::abs, 0.2, {10, 3, 1.9f, 0.3f, 0.3f, 10.1f, 10.3f, 10.4f}) ==
        std::vector<double>{1, 1, 1, 0.5, 0.25, 0.25, 0.25, 0.25});
  CHECK(single(R::max, R::rel, 0.1, {10, 10.5f, 11.1f, 11, 12.3f, -1}) ==
        std::vector<double>{1, 0.5, 0.5, 0.25, 0.25, 0.125});
  CHECK(single(R::min, R::abs, 0.5, {10, 9.6f, 9.4f, 9.0f, 8.0f, 20}) ==
        std::vector<double>{1, 0.5, 0.5, 0.25, 0.25, 0.125});
  CHECK(single(R::min, R::rel, 0.1, {-10, -10.5f, -11.1f, 10, 8, 7.3f}) ==
        std::vector<double>{1, 1, 1, 0.5, 0.25, 0.125});
  CHECK(single(R::max, R::abs, 2, {-10, -4, -3, -1, -0.6f}) ==
        std::vector<double>{0.5, 0.25, 0.125, 0.0625, 0.03125});
  CHECK(single(R::max, R::rel, 0.1, {0, 0}) == std::vector<double>{0.5, 0.25});

  // A reduction below eps is skipped.
  auto q = torch::zeros({1}).requires_grad_();
  optim::SGD tiny({q}, optim::SGDOptions(1.5e-8));
  R sched(tiny, R::min, 0.5, 0);
  sched.step(1);
  sched.step(2);
  CHECK(tiny.param_groups()[0].options().get_lr() == 1.5e-8);

  CHECK_THROWS_WITH(R(opt, R::min, 1.5), Catch::StartsWith("[ReduceLROnPlateauScheduler]"));
  CHECK_THROWS_WITH(R(opt, R::min, 0.5, 2, 1e-4, R::rel, 0, {0.1f}), Catch::Contains("min_lr"));
}

TEST_CASE("optim: CosineAnnealingLR", "[optim]") {
  auto p = torch::zeros({1}).requires_grad_();
  auto p2 = torch::zeros({1}).requires_grad_();
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{p});
  groups.emplace_back(std::vector<Tensor>{p2}, std::make_unique<optim::AdamOptions>(optim::AdamOptions(0.5)));
  optim::Adam opt(groups, optim::AdamOptions(1.0));
  optim::CosineAnnealingLR sched(opt, 4, 0.1);
  // Half a cosine from 1 (and 0.5) down to 0.1 over 4 steps: cos(pi/4) = 0.70710678..., then back up.
  const double c = 0.70710678118654752;
  const double want0[6] = {0.1 + 0.9 * (1 + c) / 2, 0.55, 0.1 + 0.9 * (1 - c) / 2, 0.1, 0.1 + 0.9 * (1 - c) / 2, 0.55};
  const double want1[6] = {0.1 + 0.4 * (1 + c) / 2, 0.3, 0.1 + 0.4 * (1 - c) / 2, 0.1, 0.1 + 0.4 * (1 - c) / 2, 0.3};
  for (int i = 0; i < 6; ++i) {
    sched.step();
    CHECK(opt.param_groups()[0].options().get_lr() == Approx(want0[i]).epsilon(1e-12));
    CHECK(opt.param_groups()[1].options().get_lr() == Approx(want1[i]).epsilon(1e-12));
  }
}

namespace {
// LBFGS on loss = sum((w*x + b - y)^2) + 0.1 * sum(w^4); returns the losses step() returned, then w and b.
struct LbfgsRun {
  std::vector<double> losses, params;
  int evals = 0;
  int64_t func_evals = 0, n_iter = 0;
  size_t history = 0;
};
LbfgsRun run_lbfgs(optim::LBFGSOptions o, int calls, torch::ScalarType dt = torch::kDouble) {
  Problem pr(dt);
  auto to = torch::TensorOptions().dtype(dt);
  Tensor x = torch::tensor({1.0, 2.0, -0.5, 3.0}, to), y = torch::tensor({0.3, -0.7, 1.1, 0.2}, to);
  optim::LBFGS opt({pr.w, pr.b}, o);
  LbfgsRun r;
  auto closure = [&] {
    ++r.evals;
    opt.zero_grad();
    Tensor l = (pr.w * x + pr.b - y).pow(2).sum() + 0.1 * pr.w.pow(4).sum();
    l.backward();
    return l;
  };
  for (int c = 0; c < calls; ++c) r.losses.push_back(opt.step(closure).item<double>());
  for (const Tensor& t : {pr.w, pr.b}) {
    Tensor cpu = t.detach().to(torch::kDouble).contiguous();
    for (int64_t i = 0; i < cpu.numel(); ++i) r.params.push_back(cpu.data_ptr<double>()[i]);
  }
  auto& st = static_cast<optim::LBFGSParamState&>(*opt.state().at(pr.w.unsafeGetTensorImpl()));
  r.func_evals = st.func_evals();
  r.n_iter = st.n_iter();
  r.history = st.old_dirs().size();
  return r;
}
}  // namespace

TEST_CASE("optim: LBFGS matches libtorch", "[optim]") {
  // All numbers recorded from libtorch 2.15 on the same problem.
  auto r = run_lbfgs(optim::LBFGSOptions(), 1);
  CHECK(r.losses == std::vector<double>{42.68});
  check_close(r.params, {-0.46078369058699464, -0.72140233965749012, -0.52412159385432899, -0.19328816669649854,
                         0.78034887849542034}, kRel64);
  CHECK(r.evals == 19);
  CHECK(r.func_evals == 19);
  CHECK(r.n_iter == 19);
  CHECK(r.history == 18);

  r = run_lbfgs(optim::LBFGSOptions(0.5).max_iter(5), 3);
  check_close(r.losses, {42.68, 1.8982921434538633, 0.12088674029222903}, kRel64);
  check_close(r.params, {-0.61586905902517741, -0.7992286246650071, -0.20670021602130967, -0.24652710386506416,
                         0.94045157626515807}, kRel64);
  CHECK(r.evals == 15);
  CHECK(r.n_iter == 15);
  CHECK(r.history == 14);

  r = run_lbfgs(optim::LBFGSOptions(0.8).max_iter(8).history_size(2), 2);
  check_close(r.losses, {42.68, 0.077322471225971398}, kRel64);
  check_close(r.params, {-0.39932174535976206, -0.7154171479167456, -0.51594946563747734, -0.16751710601566674,
                         0.7680035014375004}, kRel64);
  CHECK(r.evals == 16);
  CHECK(r.history == 2);

  r = run_lbfgs(optim::LBFGSOptions(1).max_iter(10).max_eval(3), 1);
  check_close(r.params, {0.44937842752495694, -0.6138254087342977, 1.2415944384767725, 0.19390834335333129,
                         0.10018314065265713}, kRel64);
  CHECK(r.func_evals == 3);
  CHECK(r.n_iter == 2);

  r = run_lbfgs(optim::LBFGSOptions(1).max_iter(100).tolerance_change(1e-3), 1);
  check_close(r.params, {-0.61421528692680161, -0.79391869650019975, -0.19765988033849435, -0.24739949781268811,
                         0.93856450628538457}, kRel64);
  CHECK(r.evals == 10);
  CHECK(r.n_iter == 9);

  r = run_lbfgs(optim::LBFGSOptions(0.5).max_iter(6), 2, torch::kFloat);
  check_close(r.losses, {42.680004119873047, 1.4247913360595703}, kRel32);
  check_close(r.params, {-0.59857732057571411, -0.78151601552963257, -0.15596430003643036, -0.24841265380382538,
                         0.95088422298431396}, kRel32);
  CHECK(r.evals == 12);
}

TEST_CASE("optim: LBFGS options and checks", "[optim]") {
  auto w = torch::ones({1}).requires_grad_();
  optim::LBFGS opt({w}, optim::LBFGSOptions().max_iter(8));
  CHECK(static_cast<optim::LBFGSOptions&>(opt.param_groups()[0].options()).max_eval() == 10);
  CHECK(static_cast<optim::LBFGSOptions&>(opt.defaults()).max_eval() == 10);
  CHECK_THROWS_WITH(opt.step(nullptr), Catch::StartsWith("[LBFGS]"));
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{torch::ones({1}).requires_grad_()});
  groups.emplace_back(std::vector<Tensor>{torch::ones({1}).requires_grad_()});
  CHECK_THROWS_WITH(optim::LBFGS(groups), Catch::Contains("one parameter group"));
  optim::LBFGS other({w}, optim::LBFGSOptions().line_search_fn("backtracking"));
  CHECK_THROWS_WITH(other.step([&] { return w.sum(); }),
                    Catch::StartsWith("[LBFGS] expected line_search_fn \"strong_wolfe\" or none (a fixed step); got \"backtracking\""));
}

TEST_CASE("optim: LBFGS with the strong Wolfe line search matches libtorch", "[optim]") {
  // All numbers recorded from libtorch 2.15 on the same problem as above.
  auto wolfe = [](optim::LBFGSOptions o) { return o.line_search_fn("strong_wolfe"); };
  auto r = run_lbfgs(wolfe(optim::LBFGSOptions()), 1);  // the unit step passes every time here
  check_close(r.params, {-0.46078369058699464, -0.72140233965749012, -0.52412159385432899, -0.19328816669649854,
                         0.78034887849542034}, kRel64);
  CHECK(r.evals == 19);
  CHECK(r.n_iter == 19);

  r = run_lbfgs(wolfe(optim::LBFGSOptions(0.5).max_iter(5)), 3);
  check_close(r.losses, {42.68, 1.8982921434538633, 0.12088674029222903}, kRel64);
  CHECK(r.evals == 18);  // three more evaluations than the fixed step: the search probed past 0.5
  CHECK(r.func_evals == 18);
  CHECK(r.n_iter == 15);
  CHECK(r.history == 14);

  r = run_lbfgs(wolfe(optim::LBFGSOptions(1).max_iter(10).max_eval(4)), 1);
  check_close(r.params, {0.4153076480283372, -0.48414263562042292, 1.0834665295512105, -0.031422916195225997,
                         0.26621401530150768}, kRel64);
  CHECK(r.evals == 4);
  CHECK(r.n_iter == 3);
  CHECK(r.history == 2);

  r = run_lbfgs(wolfe(optim::LBFGSOptions(2.0).max_iter(6).history_size(2)), 2);
  check_close(r.losses, {42.68, 0.86765830817387413}, kRel64);
  check_close(r.params, {-0.61656593341824606, -0.78957434228058232, -0.15671486852310831, -0.26516822786948263,
                         0.9668599937141269}, kRel64);
  CHECK(r.evals == 15);
  CHECK(r.n_iter == 11);
  CHECK(r.history == 2);

  r = run_lbfgs(wolfe(optim::LBFGSOptions(10.0).max_iter(4)), 1);  // a step far too long: zoom shrinks it
  check_close(r.params, {0.44782826794786973, -0.48943459075409745, 1.1530512772034953, 0.12664328684331941,
                         0.29929565630230226}, kRel64);
  CHECK(r.evals == 5);
  CHECK(r.n_iter == 2);
  CHECK(r.history == 1);

  r = run_lbfgs(wolfe(optim::LBFGSOptions(0.5).max_iter(6)), 2, torch::kFloat);
  check_close(r.losses, {42.680004119873047, 1.4247913360595703}, kRel32);
  check_close(r.params, {-0.59857732057571411, -0.78151601552963257, -0.15596430003643036, -0.24841265380382538,
                         0.95088422298431396}, kRel32);
  CHECK(r.evals == 14);
  CHECK(r.n_iter == 12);
}
