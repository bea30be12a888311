// Custom autograd Functions (torch::autograd::Function<T>), checked against built-in ops.
#include <torch/torch.h>
#include <catch2/catch.hpp>

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// At global scope so that its name has no namespace prefix (the error message is checked exactly).
struct CustomFnWrongCount : torch::autograd::Function<CustomFnWrongCount> {
  static torch::Tensor forward(AutogradContext*, torch::Tensor x, torch::Tensor w) { return x * w; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

namespace {

bool close(const torch::Tensor& a, const torch::Tensor& b, double tol = 1e-6) {
  return a.sizes() == b.sizes() && (a - b).abs().max().item<double>() <= tol;
}

// y = x * w with a hand-written backward.
struct MulFunction : torch::autograd::Function<MulFunction> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, torch::Tensor w) {
    ctx->save_for_backward({x, w});
    return x * w;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    auto saved = ctx->get_saved_variables();
    return {g[0] * saved[1], g[0] * saved[0]};
  }
};

// y = x * scale ** power (+ shift if `add`), exercising saved_data of every IValue kind.
struct ScaleFunction : torch::autograd::Function<ScaleFunction> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, double scale, int64_t power, bool add,
                               std::string tag) {
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["power"] = power;
    ctx->saved_data["add"] = add;
    ctx->saved_data["tag"] = tag;
    ctx->saved_data["sizes"] = x.sizes();
    ctx->saved_data["shift"] = torch::ones_like(x);
    ctx->saved_data["count"] = 3;  // a plain int
    double f = std::pow(scale, static_cast<double>(power));
    return add ? x * f + ctx->saved_data["shift"].toTensor() : x * f;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    REQUIRE(ctx->saved_data["tag"].toStringRef() == "hello");
    REQUIRE(ctx->saved_data["sizes"].toIntVector() == std::vector<int64_t>{2, 3});
    REQUIRE(ctx->saved_data["add"].toBool());
    REQUIRE(ctx->saved_data["count"].toInt() == 3);
    double f = std::pow(ctx->saved_data["scale"].toDouble(), static_cast<double>(ctx->saved_data["power"].toInt()));
    return {g[0] * f, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

// x += 1 in place.
struct AddOneInplace : torch::autograd::Function<AddOneInplace> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x) {
    x.add_(1.0);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

// Returns {2x, mask}, mask non-differentiable; records what backward received.
struct WithMask : torch::autograd::Function<WithMask> {
  static inline bool materialize = true;
  static inline bool mask_grad_defined = false;
  static inline double mask_grad_sum = -1;
  static variable_list forward(AutogradContext* ctx, torch::Tensor x) {
    ctx->set_materialize_grads(materialize);
    auto mask = (x * 0.0) + 1.0;
    ctx->mark_non_differentiable({mask});
    return {x * 2.0, mask};
  }
  static variable_list backward(AutogradContext*, variable_list g) {
    mask_grad_defined = g[1].defined();
    mask_grad_sum = g[1].defined() ? g[1].sum().item<double>() : -1;
    return {g[0] * 2.0};
  }
};

// x^3 whose backward is made of differentiable ops (so double backward works); saves its input.
struct Cube : torch::autograd::Function<Cube> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    auto x = ctx->get_saved_variables()[0];
    return {g[0] * x * x * 3.0};
  }
};

// exp(x) that saves its output (restored with this node as grad_fn when unpacked).
struct ExpFunction : torch::autograd::Function<ExpFunction> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x) {
    auto y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) { return {g[0] * ctx->get_saved_variables()[0]}; }
};

// Returns its input unchanged.
struct Identity : torch::autograd::Function<Identity> {
  static torch::Tensor forward(AutogradContext*, torch::Tensor x) { return x; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

// Sum of a list of tensors: one gradient per list element.
struct SumList : torch::autograd::Function<SumList> {
  static torch::Tensor forward(AutogradContext* ctx, std::vector<torch::Tensor> xs, double scale) {
    ctx->saved_data["n"] = static_cast<int64_t>(xs.size());
    auto acc = xs[0] * scale;
    for (size_t i = 1; i < xs.size(); ++i) acc = acc + xs[i] * scale;
    return acc;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    variable_list r;
    for (int64_t i = 0; i < ctx->saved_data["n"].toInt(); ++i) r.push_back(g[0] * 2.0);
    r.push_back(torch::Tensor());
    return r;
  }
};

// Records needs_input_grad as seen in forward and backward.
struct NeedsGrad : torch::autograd::Function<NeedsGrad> {
  static inline std::vector<bool> in_forward, in_backward;
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor a, double, torch::Tensor b) {
    in_forward = {ctx->needs_input_grad(0), ctx->needs_input_grad(1)};
    return a + b;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    in_backward = {ctx->needs_input_grad(0), ctx->needs_input_grad(1)};
    return {ctx->needs_input_grad(0) ? g[0] : torch::Tensor(), torch::Tensor(),
            ctx->needs_input_grad(1) ? g[0] : torch::Tensor()};
  }
};

// Returns a gradient for its non-tensor argument (an error).
struct GradForDouble : torch::autograd::Function<GradForDouble> {
  static torch::Tensor forward(AutogradContext*, torch::Tensor x, double c) { return x * c; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], g[0]}; }
};

// Returns a gradient whose shape does not fit the input.
struct BadShape : torch::autograd::Function<BadShape> {
  static torch::Tensor forward(AutogradContext*, torch::Tensor x) { return x * 2.0; }
  static variable_list backward(AutogradContext*, variable_list) { return {torch::ones({5})}; }
};

}  // namespace

TEST_CASE("custom Function: gradients match the built-in ops", "[autograd]") {
  auto x = torch::randn({3, 4}, torch::requires_grad());
  auto w = torch::randn({3, 4}, torch::requires_grad());
  auto y = MulFunction::apply(x, w);
  REQUIRE(y.grad_fn() != nullptr);
  CHECK(y.grad_fn()->name().find("MulFunction") != std::string::npos);
  CHECK(y.grad_fn()->next_edges().size() == 2);
  CHECK(y.requires_grad());
  CHECK(!y.is_leaf());
  (y.tanh() * 3.0).sum().backward();
  auto gx = x.grad().clone(), gw = w.grad().clone();

  auto x2 = x.detach().clone().requires_grad_(), w2 = w.detach().clone().requires_grad_();
  ((x2 * w2).tanh() * 3.0).sum().backward();
  CHECK(close(y, x2 * w2));
  CHECK(close(gx, x2.grad()));
  CHECK(close(gw, w2.grad()));
}

TEST_CASE("custom Function: no graph without grad mode or a requiring input", "[autograd]") {
  auto x = torch::ones({2}), w = torch::ones({2}, torch::requires_grad());
  auto y = MulFunction::apply(x, x);
  CHECK(!y.requires_grad());
  CHECK(y.grad_fn() == nullptr);
  {
    torch::NoGradGuard no_grad;
    auto z = MulFunction::apply(w, w);
    CHECK(!z.requires_grad());
  }
  // Only the input that requires grad gets a gradient; the other edge is invalid.
  auto z = MulFunction::apply(x * 3.0, w);
  CHECK(!z.grad_fn()->next_edges()[0].is_valid());
  z.sum().backward();
  CHECK(close(w.grad(), torch::full({2}, 3.0)));
}

TEST_CASE("custom Function: saved_data holds doubles, ints, bools, strings, sizes and tensors", "[autograd]") {
  auto x = torch::randn({2, 3}, torch::requires_grad());
  auto y = ScaleFunction::apply(x, 2.0, 3, true, std::string("hello"));
  CHECK(close(y, x * 8.0 + 1.0));
  y.sum().backward();
  CHECK(close(x.grad(), torch::full({2, 3}, 8.0)));

  c10::IValue v = 1.5;
  CHECK(v.isDouble());
  CHECK_THROWS_WITH(v.toInt(), Catch::StartsWith("[IValue] expected Int; got Double"));
  c10::IValue none;
  CHECK(none.isNone());
  CHECK(c10::IValue(at::Scalar(2)).toInt() == 2);
  CHECK(c10::IValue("s").toStringRef() == "s");
}

TEST_CASE("custom Function: non-tensor arguments get no edge and a gradient for one is an error", "[autograd]") {
  auto a = torch::ones({2}, torch::requires_grad()), b = torch::ones({2});
  auto y = NeedsGrad::apply(a, 1.0, b);
  CHECK(y.grad_fn()->next_edges().size() == 2);
  CHECK(NeedsGrad::in_forward == std::vector<bool>{true, false});
  y.sum().backward();
  CHECK(NeedsGrad::in_backward == std::vector<bool>{true, false});
  CHECK(close(a.grad(), torch::ones({2})));

  auto x = torch::ones({2}, torch::requires_grad());
  CHECK_THROWS_WITH(GradForDouble::apply(x, 2.0).sum().backward(),
                    Catch::Contains("GradForDouble] expected an undefined gradient at position 2 of backward's "
                                    "result"));
}

TEST_CASE("custom Function: a list of tensors as an argument", "[autograd]") {
  auto a = torch::ones({2}, torch::requires_grad()), b = torch::ones({2}, torch::requires_grad());
  auto y = SumList::apply(std::vector<torch::Tensor>{a, b}, 2.0);
  CHECK(y.grad_fn()->next_edges().size() == 2);
  y.sum().backward();
  CHECK(close(a.grad(), torch::full({2}, 2.0)));
  CHECK(close(b.grad(), torch::full({2}, 2.0)));
}

TEST_CASE("custom Function: mark_dirty for an in-place op", "[autograd]") {
  auto x = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  auto a = x * 2.0;
  const auto v0 = a._version();
  auto* old_fn = a.grad_fn().get();
  auto b = AddOneInplace::apply(a);
  CHECK(b.unsafeGetTensorImpl() == a.unsafeGetTensorImpl());  // the same tensor, re-parented
  CHECK(a._version() > v0);
  REQUIRE(a.grad_fn() != nullptr);
  CHECK(a.grad_fn().get() != old_fn);
  CHECK(a.grad_fn()->name().find("AddOneInplace") != std::string::npos);
  CHECK(close(a, torch::tensor({3.0, 5.0, 7.0})));
  (b * b).sum().backward();  // d/dx (2x+1)^2 = 4(2x+1)
  CHECK(close(x.grad(), torch::tensor({12.0, 20.0, 28.0})));

  // On a leaf that requires grad it is an error, as for built-in in-place ops.
  auto leaf = torch::ones({2}, torch::requires_grad());
  CHECK_THROWS_WITH(AddOneInplace::apply(leaf),
                    Catch::Contains("AddOneInplace] expected a tensor that is not a leaf requiring grad"));
  // A leaf that does not require grad is fine.
  auto plain = torch::ones({2});
  AddOneInplace::apply(plain);
  CHECK(close(plain, torch::full({2}, 2.0)));
  // Not yet on a view of a tensor in the graph (its base's history would have to change too).
  auto v = (x * 1.0).view({3, 1});
  if (v.is_view())
    CHECK_THROWS_WITH(AddOneInplace::apply(v), Catch::Contains("AddOneInplace] mark_dirty on a view"));
}

TEST_CASE("custom Function: mark_non_differentiable and materialized gradients", "[autograd]") {
  auto x = torch::tensor({1.0, -2.0}, torch::requires_grad());
  WithMask::materialize = true;
  auto outs = WithMask::apply(x);
  REQUIRE(outs.size() == 2);
  CHECK(outs[0].requires_grad());
  CHECK(!outs[1].requires_grad());
  CHECK(outs[1].grad_fn() == nullptr);
  outs[0].sum().backward();
  CHECK(WithMask::mask_grad_defined);  // zeros were materialized for the unused output
  CHECK(WithMask::mask_grad_sum == 0.0);
  CHECK(close(x.grad(), torch::full({2}, 2.0)));

  WithMask::materialize = false;
  auto outs2 = WithMask::apply(x);
  outs2[0].sum().backward();
  CHECK(!WithMask::mask_grad_defined);
  CHECK(close(x.grad(), torch::full({2}, 4.0)));
}

TEST_CASE("custom Function: wrong number of gradients names the function", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad()), w = torch::ones({2}, torch::requires_grad());
  auto y = CustomFnWrongCount::apply(x, w).sum();
  CHECK_THROWS_WITH(y.backward(), Catch::StartsWith("[CustomFnWrongCount] expected backward to return one gradient per "
                                                    "forward input (2); got 1"));
}

TEST_CASE("custom Function: a saved tensor modified in place raises the version error", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad()), w = torch::ones({2}, torch::requires_grad());
  auto a = x * 1.0;
  auto y = MulFunction::apply(a, w);
  a.mul_(2.0);
  CHECK_THROWS_WITH(y.sum().backward(), Catch::Contains("an in-place op modified it after it was saved") &&
                                            Catch::Contains("MulFunction") && Catch::Contains("got version 1"));
  // Saved outputs are checked too.
  auto e = ExpFunction::apply(x * 1.0);
  e.add_(1.0);
  CHECK_THROWS_WITH(e.sum().backward(), Catch::Contains("an in-place op modified it after it was saved") && Catch::Contains("ExpFunction"));
}

TEST_CASE("custom Function: saved tensors are freed after backward", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad()), w = torch::ones({2}, torch::requires_grad());
  auto y = MulFunction::apply(x, w).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  CHECK(close(x.grad(), torch::full({2}, 2.0)));
  CHECK_THROWS_WITH(y.backward(), Catch::Contains("freed by an earlier backward()"));
}

TEST_CASE("custom Function: double backward through a differentiable backward", "[autograd]") {
  auto x = torch::tensor({1.0, 2.0, -0.5}, torch::requires_grad());
  auto y = Cube::apply(x).sum();
  auto g = torch::autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  CHECK(close(g, x.detach() * x.detach() * 3.0));
  REQUIRE(g.requires_grad());
  auto gg = torch::autograd::grad({g.sum()}, {x})[0];
  CHECK(close(gg, x.detach() * 6.0));

  // The same through built-in ops.
  auto x2 = x.detach().clone().requires_grad_();
  auto g2 = torch::autograd::grad({(x2 * x2 * x2).sum()}, {x2}, {}, std::nullopt, true)[0];
  CHECK(close(gg, torch::autograd::grad({g2.sum()}, {x2})[0]));

  // A saved output regains this node as its history, so the second derivative is exp(x).
  auto e = ExpFunction::apply(x);
  auto ge = torch::autograd::grad({e.sum()}, {x}, {}, std::nullopt, true)[0];
  CHECK(close(ge, x.detach().exp()));
  auto gge = torch::autograd::grad({ge.sum()}, {x})[0];
  CHECK(close(gge, x.detach().exp(), 1e-5));
}

TEST_CASE("custom Function: an input returned unchanged is an alias with new history", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad());
  auto y = Identity::apply(x);
  CHECK(y.unsafeGetTensorImpl() != x.unsafeGetTensorImpl());
  CHECK(x.is_leaf());
  CHECK(y.grad_fn()->name().find("Identity") != std::string::npos);
  (y * 3.0).sum().backward();
  CHECK(close(x.grad(), torch::full({2}, 3.0)));
}

TEST_CASE("custom Function: a gradient of the wrong shape is an error naming the function", "[autograd]") {
  auto x = torch::ones({2}, torch::requires_grad());
  CHECK_THROWS_WITH(BadShape::apply(x).sum().backward(),
                    Catch::Contains("BadShape] expected backward's gradient for input 0 to have a shape that "
                                    "reduces to [2]; got [5]"));
}
