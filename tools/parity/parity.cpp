// Parity program: written once against the libtorch C++ API and compiled unchanged twice, against Ember
// and against libtorch (tools/parity/run builds both, runs both and compares their outputs).
//
// Every input is built from fixed numbers (no random generator), so both libraries see bit-identical
// inputs. Each result is printed as one line:
//     name dtype shape v1 v2 ...
// floating values with %.17g, integers and bools exactly. A case that throws prints
//     name ERROR <message>
// and the comparison reports it as a difference.
//
// PARITY_NORM (set by tools/parity/run when a probe shows Ember has them) adds the normalisation
// layers (batch_norm, layer_norm, group_norm and their modules).
#include <torch/torch.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace F = torch::nn::functional;

const char* dtype_name(torch::ScalarType t) {
  if (t == torch::kFloat) return "float32";
  if (t == torch::kDouble) return "float64";
  if (t == torch::kLong) return "int64";
  if (t == torch::kInt) return "int32";
  if (t == torch::kBool) return "bool";
  return "other";
}

bool is_floating(torch::ScalarType t) { return t == torch::kFloat || t == torch::kDouble; }

std::string shape_of(const torch::Tensor& t) {
  std::string s = "[";
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d) s += ",";
    s += std::to_string(t.size(d));
  }
  return s + "]";
}

void emit(const std::string& name, const torch::Tensor& t) {
  if (!t.defined()) {
    std::printf("%s undefined [] \n", name.c_str());
    return;
  }
  std::string line = name + " " + dtype_name(t.scalar_type()) + " " + shape_of(t);
  char buf[64];
  if (is_floating(t.scalar_type())) {
    torch::Tensor c = t.detach().to(torch::kDouble).contiguous();
    const double* p = c.data_ptr<double>();
    for (int64_t i = 0; i < c.numel(); ++i) {
      std::snprintf(buf, sizeof buf, " %.17g", p[i]);
      line += buf;
    }
  } else {
    torch::Tensor c = t.detach().to(torch::kLong).contiguous();
    const int64_t* p = c.data_ptr<int64_t>();
    for (int64_t i = 0; i < c.numel(); ++i) {
      std::snprintf(buf, sizeof buf, " %" PRId64, p[i]);
      line += buf;
    }
  }
  std::printf("%s\n", line.c_str());
}

void emit_bool(const std::string& name, bool v) { std::printf("%s bool [] %d\n", name.c_str(), v ? 1 : 0); }

void emit_double(const std::string& name, double v) { std::printf("%s float64 [] %.17g\n", name.c_str(), v); }

void emit_all(const std::string& name, const std::vector<torch::Tensor>& ts) {
  for (size_t i = 0; i < ts.size(); ++i) emit(name + "." + std::to_string(i), ts[i]);
}

// Runs one case; an exception becomes an ERROR line.
void run_case(const std::string& name, const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    std::string msg = e.what();
    auto nl = msg.find('\n');
    if (nl != std::string::npos) msg = msg.substr(0, nl);
    std::printf("%s ERROR %s\n", name.c_str(), msg.c_str());
  }
}

torch::Tensor from_values(const std::vector<double>& v, std::vector<int64_t> sizes, torch::ScalarType dtype) {
  std::vector<double> copy = v;
  return torch::from_blob(copy.data(), sizes, torch::kDouble).clone().to(dtype);
}

torch::Tensor vals(const std::vector<double>& v, torch::ScalarType dtype = torch::kDouble) {
  return from_values(v, {static_cast<int64_t>(v.size())}, dtype);
}

torch::Tensor longs(const std::vector<int64_t>& v, std::vector<int64_t> sizes = {}) {
  std::vector<int64_t> copy = v;
  if (sizes.empty()) sizes = {static_cast<int64_t>(v.size())};
  return torch::from_blob(copy.data(), sizes, torch::kLong).clone();
}

// Distinct fixed values in [-2, 2): element i of case `seed` is ((7919 i + 104729 seed + 1) mod 10007) / 10007 * 4 - 2.
// 10007 is prime and 7919 is not a multiple of it, so up to 10007 elements are all different (no ties for max/sort).
torch::Tensor det(std::vector<int64_t> sizes, torch::ScalarType dtype, int64_t seed, bool requires_grad = false) {
  int64_t n = 1;
  for (auto s : sizes) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = static_cast<double>((7919 * i + 104729 * seed + 1) % 10007) / 10007.0 * 4.0 - 2.0;
  torch::Tensor t = from_values(v, sizes, dtype);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

// Positive fixed values in [0.5, 2.5).
torch::Tensor det_pos(std::vector<int64_t> sizes, torch::ScalarType dtype, int64_t seed, bool requires_grad = false) {
  torch::Tensor t = (det(sizes, torch::kDouble, seed) * 0.5 + 1.5).to(dtype);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

// Backpropagates sum(out * w) for a fixed w of out's shape, so every output element gets its own weight.
void backward_weighted(const torch::Tensor& out, int64_t seed) {
  torch::Tensor w = det(out.sizes().vec(), out.scalar_type(), seed);
  (out * w).sum().backward();
}

const std::vector<torch::ScalarType> kFloatTypes = {torch::kFloat, torch::kDouble};

std::string tag(const std::string& base, torch::ScalarType dt) { return base + "." + dtype_name(dt); }

// ---------------------------------------------------------------- elementwise, reductions, indexing (older ops)

using UnaryFn = std::function<torch::Tensor(const torch::Tensor&)>;

// Forward and input gradient of fn at fixed inputs in [-2, 2) (or [0.5, 2.5) when `positive`).
void unary_case(const std::string& name, const UnaryFn& fn, bool positive = false, bool grad = true) {
  for (auto dt : kFloatTypes) {
    run_case(tag(name, dt), [&] {
      torch::Tensor x = positive ? det_pos({3, 5}, dt, 600, true) : det({3, 5}, dt, 600, true);
      torch::Tensor y = fn(x);
      emit(tag(name, dt), y);
      if (grad && y.requires_grad()) {
        backward_weighted(y, 601);
        emit(tag(name + ".grad", dt), x.grad());
      }
    });
  }
}

using BinaryFn = std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)>;

// Forward and both gradients of fn(a (3, 4), b (4)) — b broadcasts, so its gradient is a reduction.
void binary_case(const std::string& name, const BinaryFn& fn, bool positive = false) {
  for (auto dt : kFloatTypes) {
    run_case(tag(name, dt), [&] {
      torch::Tensor a = positive ? det_pos({3, 4}, dt, 610, true) : det({3, 4}, dt, 610, true);
      torch::Tensor b = positive ? det_pos({4}, dt, 611, true) : det({4}, dt, 611, true);
      torch::Tensor y = fn(a, b);
      emit(tag(name, dt), y);
      if (y.requires_grad()) {
        backward_weighted(y, 612);
        emit(tag(name + ".grad.a", dt), a.grad());
        emit(tag(name + ".grad.b", dt), b.grad());
      }
    });
  }
}

void elementwise_cases() {
  unary_case("abs", [](const torch::Tensor& x) { return x.abs(); });
  unary_case("neg", [](const torch::Tensor& x) { return -x; });
  unary_case("sign", [](const torch::Tensor& x) { return x.sign(); });
  unary_case("exp", [](const torch::Tensor& x) { return x.exp(); });
  unary_case("exp2", [](const torch::Tensor& x) { return torch::exp2(x); });
  unary_case("expm1", [](const torch::Tensor& x) { return x.expm1(); });
  unary_case("log", [](const torch::Tensor& x) { return x.log(); }, true);
  unary_case("log2", [](const torch::Tensor& x) { return x.log2(); }, true);
  unary_case("log10", [](const torch::Tensor& x) { return x.log10(); }, true);
  unary_case("log1p", [](const torch::Tensor& x) { return x.log1p(); }, true);
  unary_case("sqrt", [](const torch::Tensor& x) { return x.sqrt(); }, true);
  unary_case("rsqrt", [](const torch::Tensor& x) { return x.rsqrt(); }, true);
  unary_case("reciprocal", [](const torch::Tensor& x) { return x.reciprocal(); });
  unary_case("sin", [](const torch::Tensor& x) { return x.sin(); });
  unary_case("cos", [](const torch::Tensor& x) { return x.cos(); });
  unary_case("tan", [](const torch::Tensor& x) { return (x * 0.7).tan(); });
  unary_case("asin", [](const torch::Tensor& x) { return (x * 0.45).asin(); });
  unary_case("acos", [](const torch::Tensor& x) { return (x * 0.45).acos(); });
  unary_case("atan", [](const torch::Tensor& x) { return x.atan(); });
  unary_case("sinh", [](const torch::Tensor& x) { return x.sinh(); });
  unary_case("cosh", [](const torch::Tensor& x) { return x.cosh(); });
  unary_case("tanh", [](const torch::Tensor& x) { return x.tanh(); });
  unary_case("sigmoid", [](const torch::Tensor& x) { return x.sigmoid(); });
  unary_case("erf", [](const torch::Tensor& x) { return x.erf(); });
  unary_case("floor", [](const torch::Tensor& x) { return (x * 3).floor(); });
  unary_case("ceil", [](const torch::Tensor& x) { return (x * 3).ceil(); });
  unary_case("round", [](const torch::Tensor& x) { return (x * 3).round(); });
  unary_case("trunc", [](const torch::Tensor& x) { return (x * 3).trunc(); });
  unary_case("frac", [](const torch::Tensor& x) { return (x * 3).frac(); });
  unary_case("relu", [](const torch::Tensor& x) { return torch::relu(x); });
  unary_case("silu", [](const torch::Tensor& x) { return F::silu(x); });
  unary_case("gelu", [](const torch::Tensor& x) { return F::gelu(x); });
  unary_case("gelu_tanh", [](const torch::Tensor& x) { return F::gelu(x, F::GELUFuncOptions().approximate("tanh")); });
  unary_case("leaky_relu", [](const torch::Tensor& x) { return F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)); });
  unary_case("elu", [](const torch::Tensor& x) { return torch::elu(x); });
  unary_case("softplus", [](const torch::Tensor& x) { return torch::softplus(x, 2.0, 3.0); });
  unary_case("hardtanh", [](const torch::Tensor& x) { return torch::hardtanh(x, -0.5, 1.0); });
  unary_case("clamp", [](const torch::Tensor& x) { return x.clamp(-0.5, 0.7); });
  unary_case("clamp_min", [](const torch::Tensor& x) { return x.clamp_min(0.3); });
  unary_case("pow3", [](const torch::Tensor& x) { return x.pow(3); });
  unary_case("pow2.5", [](const torch::Tensor& x) { return x.pow(2.5); }, true);
  unary_case("pow_neg", [](const torch::Tensor& x) { return x.pow(-1.5); }, true);
  unary_case("rsub_scalar", [](const torch::Tensor& x) { return 2.0 - x; });
  unary_case("div_scalar", [](const torch::Tensor& x) { return x / 3.0; });
  unary_case("nan_to_num", [](const torch::Tensor& x) { return torch::nan_to_num(x.log(), 0.0, 5.0, -5.0); });

  binary_case("add_alpha", [](const torch::Tensor& a, const torch::Tensor& b) { return torch::add(a, b, 2.5); });
  binary_case("sub", [](const torch::Tensor& a, const torch::Tensor& b) { return a - b; });
  binary_case("mul", [](const torch::Tensor& a, const torch::Tensor& b) { return a * b; });
  binary_case("div", [](const torch::Tensor& a, const torch::Tensor& b) { return a / b; });
  binary_case("atan2", [](const torch::Tensor& a, const torch::Tensor& b) { return torch::atan2(a, b); });
  binary_case("minimum", [](const torch::Tensor& a, const torch::Tensor& b) { return torch::minimum(a, b); });
  binary_case("maximum", [](const torch::Tensor& a, const torch::Tensor& b) { return torch::maximum(a, b); });
  binary_case("pow", [](const torch::Tensor& a, const torch::Tensor& b) { return a.pow(b); }, true);
  binary_case("lerp", [](const torch::Tensor& a, const torch::Tensor& b) { return torch::lerp(a, b, 0.3); });
  binary_case("addcmul", [](const torch::Tensor& a, const torch::Tensor& b) { return torch::addcmul(a, a, b, 0.5); });
  binary_case("addcdiv", [](const torch::Tensor& a, const torch::Tensor& b) { return torch::addcdiv(a, a, b, -0.5); });
  binary_case("where", [](const torch::Tensor& a, const torch::Tensor& b) { return torch::where(a > b, a, b * 2); });
  binary_case("compare", [](const torch::Tensor& a, const torch::Tensor& b) {
    return torch::stack({a.eq(b), a.ne(b), a.lt(b), a.le(b), a.gt(b), a.ge(b),
                         torch::logical_xor(a > 0, b > 0), torch::logical_and(a > 0, b < 0)});
  });
}

void reduction_cases() {
  using Fn = std::function<torch::Tensor(const torch::Tensor&)>;
  std::vector<std::pair<std::string, Fn>> cases = {
      {"sum", [](const torch::Tensor& x) { return x.sum(); }},
      {"sum.dim", [](const torch::Tensor& x) { return x.sum({0, 2}, true); }},
      {"mean", [](const torch::Tensor& x) { return x.mean(); }},
      {"mean.dim", [](const torch::Tensor& x) { return x.mean(1); }},
      {"prod", [](const torch::Tensor& x) { return (x * 0.5 + 1.2).prod(); }},
      {"prod.dim", [](const torch::Tensor& x) { return x.prod(2); }},
      {"var", [](const torch::Tensor& x) { return x.var(); }},
      {"var.dim", [](const torch::Tensor& x) { return x.var(1, false, true); }},
      {"std", [](const torch::Tensor& x) { return x.std(); }},
      {"std.dim", [](const torch::Tensor& x) { return x.std(2); }},  // libtorch: Tensor::std(int dim) reduces dim 2
      {"var.int_dim", [](const torch::Tensor& x) { return x.var(1); }},
      {"var.fn.int_dim", [](const torch::Tensor& x) { return torch::var(x, 0); }},
      {"std.fn.int_dim", [](const torch::Tensor& x) { return torch::std(x, 1); }},
      {"std.unbiased_false", [](const torch::Tensor& x) { return x.std(false); }},
      {"norm", [](const torch::Tensor& x) { return x.norm(); }},
      {"norm.p1.dim", [](const torch::Tensor& x) { return x.norm(1, {1}); }},
      {"norm.p3.dim", [](const torch::Tensor& x) { return x.norm(3, {2}, true); }},
      {"logsumexp", [](const torch::Tensor& x) { return x.logsumexp({1}); }},
      {"amax", [](const torch::Tensor& x) { return x.amax({0, 2}); }},
      {"amin", [](const torch::Tensor& x) { return x.amin(1, true); }},
      {"max", [](const torch::Tensor& x) { return x.max(); }},
      {"max.dim.values", [](const torch::Tensor& x) { return std::get<0>(x.max(1)); }},
      {"max.dim.indices", [](const torch::Tensor& x) { return std::get<1>(x.max(1)); }},
      {"min.dim.values", [](const torch::Tensor& x) { return std::get<0>(x.min(2, true)); }},
      {"min.dim.indices", [](const torch::Tensor& x) { return std::get<1>(x.min(2, true)); }},
      {"argmax", [](const torch::Tensor& x) { return x.argmax(); }},
      {"argmin.dim", [](const torch::Tensor& x) { return x.argmin(0); }},
      {"cumsum", [](const torch::Tensor& x) { return x.cumsum(2); }},
      {"cumprod", [](const torch::Tensor& x) { return x.cumprod(1); }},
      {"all_any", [](const torch::Tensor& x) { return torch::stack({(x > -1.9).all(), (x > 1.99).any(), (x > 0).all()}); }},
      {"sort.values", [](const torch::Tensor& x) { return std::get<0>(x.sort(1)); }},
      {"sort.indices", [](const torch::Tensor& x) { return std::get<1>(x.sort(1)); }},
      {"sort.desc.values", [](const torch::Tensor& x) { return std::get<0>(x.sort(-1, true)); }},
      {"topk.values", [](const torch::Tensor& x) { return std::get<0>(x.topk(2, 2)); }},
      {"topk.indices", [](const torch::Tensor& x) { return std::get<1>(x.topk(2, 2)); }},
      {"topk.smallest", [](const torch::Tensor& x) { return std::get<0>(x.topk(3, 1, false)); }},
      {"softmax_cross", [](const torch::Tensor& x) { return x.softmax(1).sum(2); }},
  };
  for (auto& c : cases) {
    for (auto dt : kFloatTypes) {
      run_case(tag(c.first, dt), [&] {
        torch::Tensor x = det({2, 3, 4}, dt, 620, true);
        torch::Tensor y = c.second(x);
        emit(tag(c.first, dt), y);
        if (y.requires_grad()) {
          backward_weighted(y, 621);
          emit(tag(c.first + ".grad", dt), x.grad());
        }
      });
    }
  }
  run_case("reduce.int64", [] {
    torch::Tensor x = longs({3, -1, 4, 1, -5, 9, 2, 6}, {2, 4});
    emit("reduce.int64.sum", x.sum());
    emit("reduce.int64.sum.dim", x.sum(1));
    emit("reduce.int64.prod", x.prod());
    emit("reduce.int64.cumsum", x.cumsum(1));
    emit("reduce.int64.max", std::get<0>(x.max(0)));
    emit("reduce.int64.argmax", x.argmax(1));
    emit("reduce.int64.sort", std::get<0>(x.sort(1)));
  });
}

void indexing_cases() {
  for (auto dt : kFloatTypes) {
    run_case(tag("index_ops", dt), [&] {
      torch::Tensor x = det({4, 5}, dt, 630, true);
      torch::Tensor idx = longs({3, 0, 3, 1});
      std::vector<std::pair<std::string, torch::Tensor>> outs = {
          {"index_select", x.index_select(0, idx)},
          {"gather", x.gather(1, longs({0, 4, 4, 1, 2, 3, 0, 0}, {4, 2}))},
          {"scatter", x.scatter(1, longs({0, 2, 1, 3}, {4, 1}), det({4, 1}, dt, 631))},
          {"scatter_add", x.scatter_add(0, longs({1, 1, 3, 0, 2}, {1, 5}), det({1, 5}, dt, 632))},
          {"masked_fill", x.masked_fill(x > 0.5, 7.0)},
          {"masked_select", x.masked_select(x < 0)},
          {"index_tensor", x.index({idx})},
          {"index_put", torch::index_put(x, c10::List<std::optional<torch::Tensor>>({longs({0, 2})}), det({2, 5}, dt, 633))},
          {"index_put_acc",
           torch::index_put(x, c10::List<std::optional<torch::Tensor>>({longs({1, 1, 3})}), det({3, 5}, dt, 634), true)},
          {"cat", torch::cat({x, x * 2}, 1)},
          {"stack", torch::stack({x, x.sin()}, 0)},
          {"flip", x.flip({0, 1})},
          {"tril", x.tril(-1)},
          {"triu", x.triu(1)},
          {"narrow", x.narrow(1, 1, 3)},
          {"unfold", x.unfold(1, 2, 2)},
          {"permute", x.reshape({2, 2, 5}).permute({2, 0, 1}).contiguous()},
          {"expand", x.select(0, 1).unsqueeze(0).expand({3, 5})},
          {"repeat", x.repeat({2, 1, 2})},
          {"pad", torch::constant_pad_nd(x, {1, 2, 0, 1}, -1.0)},
          {"transpose", x.t().contiguous()},
          {"diagonal", x.diagonal(1)},
      };
      torch::Tensor loss = x.sum() * 0;
      int64_t seed = 640;
      for (auto& o : outs) {
        emit(tag(o.first, dt), o.second);
        if (o.second.requires_grad()) loss = loss + (o.second * det(o.second.sizes().vec(), dt, seed++)).sum();
      }
      loss.backward();
      emit(tag("index_ops.grad", dt), x.grad());
      emit_all(tag("chunk", dt), x.chunk(3, 1));
      emit_all(tag("unbind", dt), x.unbind(0));
      emit(tag("nonzero", dt), (x > 0.3).nonzero());
    });
    run_case(tag("matmul", dt), [&] {
      torch::Tensor a = det({3, 4}, dt, 660, true), b = det({4, 2}, dt, 661, true), v = det({4}, dt, 662, true);
      torch::Tensor c = det({2, 3, 4}, dt, 663, true), d = det({2, 4, 5}, dt, 664, true);
      std::vector<std::pair<std::string, torch::Tensor>> outs = {
          {"mm", torch::mm(a, b)},         {"mv", torch::mv(a, v)},
          {"dot", torch::dot(v, v)},       {"bmm", torch::bmm(c, d)},
          {"matmul.bcast", torch::matmul(c, b)}, {"matmul.vec", torch::matmul(v, d)},
          {"linear", torch::linear(c, a, det({3}, dt, 665))},
      };
      torch::Tensor loss = a.sum() * 0;
      int64_t seed = 670;
      for (auto& o : outs) {
        emit(tag(o.first, dt), o.second);
        loss = loss + (o.second * det(o.second.sizes().vec(), dt, seed++)).sum();
      }
      loss.backward();
      emit(tag("matmul.grad.a", dt), a.grad());
      emit(tag("matmul.grad.b", dt), b.grad());
      emit(tag("matmul.grad.v", dt), v.grad());
      emit(tag("matmul.grad.c", dt), c.grad());
      emit(tag("matmul.grad.d", dt), d.grad());
    });
  }
}

// ---------------------------------------------------------------- comparison

void comparison_cases() {
  for (auto dt : kFloatTypes) {
    run_case(tag("isclose", dt), [&] {
      torch::Tensor a = vals({1.0, 2.0, 3.0, 1e-9, -4.0, 100.0, 0.0}, dt);
      torch::Tensor b = vals({1.0, 2.00001, 3.1, 2e-9, -4.0000001, 100.001, 1e-7}, dt);
      emit(tag("isclose.default", dt), torch::isclose(a, b));
      emit(tag("isclose.rtol", dt), torch::isclose(a, b, 1e-3, 0.0));
      emit(tag("isclose.atol", dt), torch::isclose(a, b, 0.0, 1e-6));
      const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
      torch::Tensor c = vals({nan, inf, -inf, inf, 1.0}, dt), d = vals({nan, inf, -inf, -inf, nan}, dt);
      emit(tag("isclose.nan", dt), torch::isclose(c, d));
      emit(tag("isclose.equal_nan", dt), torch::isclose(c, d, 1e-5, 1e-8, true));
      emit_bool(tag("allclose.true", dt), torch::allclose(a, a + 1e-9));
      emit_bool(tag("allclose.false", dt), torch::allclose(a, b));
      emit_bool(tag("allclose.tol", dt), torch::allclose(a, b, 0.05, 1e-6));
      emit_bool(tag("allclose.equal_nan", dt), torch::allclose(c, c, 1e-5, 1e-8, true));
      emit_bool(tag("equal.same", dt), torch::equal(a, a.clone()));
      emit_bool(tag("equal.diff", dt), torch::equal(a, b));
      emit_bool(tag("equal.shape", dt), torch::equal(a, a.reshape({7, 1})));
    });
  }
  run_case("isclose.int64", [] {
    torch::Tensor a = longs({1, 2, 3, 100}), b = longs({1, 3, 3, 101});
    emit("isclose.int64", torch::isclose(a, b));
    emit("isclose.int64.rtol", torch::isclose(a, b, 0.02, 0.0));
    emit_bool("equal.int64", torch::equal(a, b));
  });
}

// ---------------------------------------------------------------- div / remainder / fmod

void division_cases() {
  for (auto dt : kFloatTypes) {
    run_case(tag("div", dt), [&] {
      torch::Tensor a = vals({-7.0, -5.5, -3.0, -1.0, 0.0, 1.0, 3.0, 5.5, 7.0, 2.25}, dt).requires_grad_(true);
      torch::Tensor b = vals({2.0, 2.0, -2.0, 3.0, 1.5, -3.0, 2.0, -2.5, 0.5, 1.5}, dt).requires_grad_(true);
      torch::Tensor t = torch::div(a, b);
      emit(tag("div.true", dt), t);
      emit(tag("div.trunc", dt), torch::div(a, b, "trunc"));
      emit(tag("div.floor", dt), torch::div(a, b, "floor"));
      emit(tag("div.scalar.trunc", dt), torch::div(a, 2.5, "trunc"));
      emit(tag("div.scalar.floor", dt), torch::div(a, -2.5, "floor"));
      backward_weighted(t, 1);
      emit(tag("div.true.grad.a", dt), a.grad());
      emit(tag("div.true.grad.b", dt), b.grad());
      a.grad().zero_();
      b.grad().zero_();
      backward_weighted(torch::div(a, b, "floor"), 2);
      emit(tag("div.floor.grad.a", dt), a.grad());
      emit(tag("div.floor.grad.b", dt), b.grad());
    });
    run_case(tag("remainder", dt), [&] {
      torch::Tensor a = vals({-7.0, -5.5, -3.0, -1.0, 0.0, 1.0, 3.0, 5.5, 7.0, 2.25}, dt).requires_grad_(true);
      emit(tag("remainder.scalar", dt), torch::remainder(a, 3));
      emit(tag("remainder.scalar_neg", dt), torch::remainder(a, -2.5));
      emit(tag("fmod.scalar", dt), torch::fmod(a, 3));
      emit(tag("fmod.scalar_neg", dt), torch::fmod(a, -2.5));
      torch::Tensor b = vals({2.0, 2.0, -2.0, 3.0, 1.5, -3.0, 2.0, -2.5, 0.5, 1.5}, dt);
      emit(tag("remainder.tensor", dt), torch::remainder(a, b));
      emit(tag("fmod.tensor", dt), torch::fmod(a, b));
    });
    run_case(tag("remainder.scalar.grad", dt), [&] {
      torch::Tensor a = vals({-7.0, -5.5, -3.0, -1.0, 0.0, 1.0, 3.0, 5.5, 7.0, 2.25}, dt).requires_grad_(true);
      backward_weighted(torch::remainder(a, 3), 3);
      emit(tag("remainder.scalar.grad", dt), a.grad());
    });
    run_case(tag("fmod.scalar.grad", dt), [&] {
      torch::Tensor a = vals({-7.0, -5.5, -3.0, -1.0, 0.0, 1.0, 3.0, 5.5, 7.0, 2.25}, dt).requires_grad_(true);
      backward_weighted(torch::fmod(a, -2.5), 4);
      emit(tag("fmod.scalar.grad", dt), a.grad());
    });
  }
  run_case("div.int64", [] {
    torch::Tensor a = longs({-7, -6, -5, -1, 0, 1, 5, 6, 7}), b = longs({2, -4, 3, 2, 5, -2, -3, 4, 7});
    emit("div.int64.true", torch::div(a, b));
    emit("div.int64.trunc", torch::div(a, b, "trunc"));
    emit("div.int64.floor", torch::div(a, b, "floor"));
    emit("div.int64.scalar.floor", torch::div(a, 4, "floor"));
    emit("remainder.int64.scalar", torch::remainder(a, 3));
    emit("remainder.int64.scalar_neg", torch::remainder(a, -4));
    emit("fmod.int64.scalar", torch::fmod(a, 3));
    emit("fmod.int64.scalar_neg", torch::fmod(a, -4));
    emit("remainder.int64.tensor", torch::remainder(a, b));
    emit("fmod.int64.tensor", torch::fmod(a, b));
  });
}

// ---------------------------------------------------------------- splitting and shape ops

void shape_cases() {
  for (auto dt : kFloatTypes) {
    run_case(tag("split", dt), [&] {
      torch::Tensor x = det({7, 4}, dt, 10, true);
      auto pieces = torch::split(x, 3, 0);
      emit_all(tag("split.3", dt), pieces);
      torch::Tensor loss = pieces[0].pow(2).sum();
      for (size_t i = 1; i < pieces.size(); ++i) loss = loss + (pieces[i] * static_cast<double>(i + 1)).pow(2).sum();
      loss.backward();
      emit(tag("split.3.grad", dt), x.grad());
    });
    run_case(tag("split_with_sizes", dt), [&] {
      torch::Tensor x = det({3, 7}, dt, 11, true);
      auto pieces = torch::split_with_sizes(x, {2, 4, 1}, 1);
      emit_all(tag("split_with_sizes", dt), pieces);
      (pieces[0].sum() * 2 + pieces[1].exp().sum() - pieces[2].pow(3).sum()).backward();
      emit(tag("split_with_sizes.grad", dt), x.grad());
      emit_all(tag("split.method", dt), x.split(2, 1));
    });
    run_case(tag("tensor_split", dt), [&] {
      torch::Tensor x = det({8, 5}, dt, 12, true);
      auto s = torch::tensor_split(x, 3, 0);
      emit_all(tag("tensor_split.sections", dt), s);
      auto t = torch::tensor_split(x, std::vector<int64_t>{1, 3}, 1);
      emit_all(tag("tensor_split.indices", dt), t);
      (s[0].sum() + (s[1] * 3).sum() + s[2].pow(2).sum() + t[2].sin().sum()).backward();
      emit(tag("tensor_split.grad", dt), x.grad());
      emit_all(tag("tensor_split.sections_over", dt), torch::tensor_split(det({3}, dt, 13), 5));
    });
    run_case(tag("repeat_interleave", dt), [&] {
      torch::Tensor x = det({2, 3}, dt, 14, true);
      torch::Tensor a = torch::repeat_interleave(x, 2, 0);
      torch::Tensor b = torch::repeat_interleave(x, longs({1, 0, 3}), 1);
      torch::Tensor c = torch::repeat_interleave(x, 3);
      emit(tag("repeat_interleave.dim0", dt), a);
      emit(tag("repeat_interleave.tensor_dim1", dt), b);
      emit(tag("repeat_interleave.flat", dt), c);
      emit(tag("repeat_interleave.index", dt), torch::repeat_interleave(longs({2, 0, 1})));
      backward_weighted(a, 15);
      emit(tag("repeat_interleave.dim0.grad", dt), x.grad());
      x.grad().zero_();
      backward_weighted(b, 16);
      emit(tag("repeat_interleave.tensor_dim1.grad", dt), x.grad());
      x.grad().zero_();
      backward_weighted(c, 17);
      emit(tag("repeat_interleave.flat.grad", dt), x.grad());
    });
    run_case(tag("roll", dt), [&] {
      torch::Tensor x = det({3, 4}, dt, 18, true);
      torch::Tensor a = torch::roll(x, {2}, {0});
      torch::Tensor b = torch::roll(x, {1, -1}, {0, 1});
      torch::Tensor c = torch::roll(x, {5});
      emit(tag("roll.dim0", dt), a);
      emit(tag("roll.two", dt), b);
      emit(tag("roll.flat", dt), c);
      emit(tag("roll.neg_big", dt), torch::roll(x, {-9}, {1}));
      backward_weighted(b, 19);
      emit(tag("roll.two.grad", dt), x.grad());
      x.grad().zero_();
      backward_weighted(c, 20);
      emit(tag("roll.flat.grad", dt), x.grad());
    });
  }
}

// ---------------------------------------------------------------- linear algebra

void linalg_cases() {
  for (auto dt : kFloatTypes) {
    run_case(tag("diag", dt), [&] {
      torch::Tensor v = det({4}, dt, 21, true);
      torch::Tensor m = det({3, 4}, dt, 22, true);
      torch::Tensor d0 = torch::diag(v), d1 = torch::diag(v, 1), e0 = torch::diag(m), e1 = torch::diag(m, 1),
                    em = torch::diag(m, -1);
      emit(tag("diag.vec", dt), d0);
      emit(tag("diag.vec.k1", dt), d1);
      emit(tag("diag.vec.km2", dt), torch::diag(v, -2));
      emit(tag("diag.mat", dt), e0);
      emit(tag("diag.mat.k1", dt), e1);
      emit(tag("diag.mat.km1", dt), em);
      (d0 * det({4, 4}, dt, 23)).sum().add((d1 * det({5, 5}, dt, 24)).sum()).backward();
      emit(tag("diag.vec.grad", dt), v.grad());
      (e1 * det({3}, dt, 25)).sum().add((em * det({2}, dt, 26)).sum()).backward();
      emit(tag("diag.mat.grad", dt), m.grad());
    });
    run_case(tag("trace", dt), [&] {
      torch::Tensor m = det({3, 5}, dt, 27, true);
      torch::Tensor t = torch::trace(m);
      emit(tag("trace", dt), t);
      (t * 3).backward();
      emit(tag("trace.grad", dt), m.grad());
    });
    run_case(tag("outer", dt), [&] {
      torch::Tensor u = det({3}, dt, 28, true), v = det({4}, dt, 29, true);
      torch::Tensor o = torch::outer(u, v);
      emit(tag("outer", dt), o);
      backward_weighted(o, 30);
      emit(tag("outer.grad.u", dt), u.grad());
      emit(tag("outer.grad.v", dt), v.grad());
    });
    run_case(tag("addmm", dt), [&] {
      torch::Tensor m = det({3, 4}, dt, 31, true), a = det({3, 5}, dt, 32, true), b = det({5, 4}, dt, 33, true);
      torch::Tensor out = torch::addmm(m, a, b, 0.5, 2.0);
      emit(tag("addmm", dt), out);
      emit(tag("addmm.default", dt), torch::addmm(m, a, b));
      emit(tag("addmm.broadcast", dt), torch::addmm(det({4}, dt, 34), a, b));
      backward_weighted(out, 35);
      emit(tag("addmm.grad.m", dt), m.grad());
      emit(tag("addmm.grad.a", dt), a.grad());
      emit(tag("addmm.grad.b", dt), b.grad());
    });
    run_case(tag("addmv", dt), [&] {
      torch::Tensor s = det({3}, dt, 36, true), m = det({3, 5}, dt, 37, true), v = det({5}, dt, 38, true);
      torch::Tensor out = torch::addmv(s, m, v, -1.5, 0.25);
      emit(tag("addmv", dt), out);
      emit(tag("addmv.default", dt), torch::addmv(s, m, v));
      backward_weighted(out, 39);
      emit(tag("addmv.grad.s", dt), s.grad());
      emit(tag("addmv.grad.m", dt), m.grad());
      emit(tag("addmv.grad.v", dt), v.grad());
    });
    run_case(tag("baddbmm", dt), [&] {
      torch::Tensor s = det({2, 3, 4}, dt, 40, true), a = det({2, 3, 5}, dt, 41, true), b = det({2, 5, 4}, dt, 42, true);
      torch::Tensor out = torch::baddbmm(s, a, b, 0.75, -1.25);
      emit(tag("baddbmm", dt), out);
      emit(tag("baddbmm.default", dt), torch::baddbmm(s, a, b));
      emit(tag("baddbmm.beta0", dt), torch::baddbmm(s, a, b, 0.0, 1.0));
      backward_weighted(out, 43);
      emit(tag("baddbmm.grad.s", dt), s.grad());
      emit(tag("baddbmm.grad.a", dt), a.grad());
      emit(tag("baddbmm.grad.b", dt), b.grad());
    });
    run_case(tag("einsum", dt), [&] {
      torch::Tensor a = det({3, 4}, dt, 44, true), b = det({4, 5}, dt, 45, true);
      torch::Tensor mm = torch::einsum("ij,jk->ik", {a, b});
      emit(tag("einsum.mm", dt), mm);
      emit(tag("einsum.transpose", dt), torch::einsum("ij->ji", {a}));
      emit(tag("einsum.sum", dt), torch::einsum("ij->", {a}));
      emit(tag("einsum.rowsum", dt), torch::einsum("ij->i", {a}));
      torch::Tensor sq = det({4, 4}, dt, 46);
      emit(tag("einsum.diag", dt), torch::einsum("ii->i", {sq}));
      emit(tag("einsum.trace", dt), torch::einsum("ii", {sq}));
      torch::Tensor u = det({4}, dt, 47), v = det({4}, dt, 48);
      emit(tag("einsum.dot", dt), torch::einsum("i,i->", {u, v}));
      emit(tag("einsum.outer", dt), torch::einsum("i,j->ij", {u, v}));
      emit(tag("einsum.implicit", dt), torch::einsum("ij,jk", {a, b}));
      torch::Tensor x = det({2, 3, 4}, dt, 49, true), y = det({2, 4, 5}, dt, 50, true);
      torch::Tensor bmm = torch::einsum("bij,bjk->bik", {x, y});
      emit(tag("einsum.bmm", dt), bmm);
      emit(tag("einsum.ellipsis", dt), torch::einsum("...ij,...jk->...ik", {x, y}));
      torch::Tensor p = det({2, 3}, dt, 51), q = det({4, 3, 5}, dt, 52), r = det({2, 5}, dt, 53);
      emit(tag("einsum.bilinear", dt), torch::einsum("bn,anm,bm->ba", {p, q, r}));
      backward_weighted(mm, 54);
      emit(tag("einsum.mm.grad.a", dt), a.grad());
      emit(tag("einsum.mm.grad.b", dt), b.grad());
      backward_weighted(bmm, 55);
      emit(tag("einsum.bmm.grad.x", dt), x.grad());
      emit(tag("einsum.bmm.grad.y", dt), y.grad());
    });
  }
}

// ---------------------------------------------------------------- one_hot and losses

void loss_cases() {
  run_case("one_hot", [] {
    torch::Tensor idx = longs({0, 3, 1, 4, 2, 3});
    emit("one_hot.5", torch::one_hot(idx, 5));
    emit("one_hot.auto", torch::one_hot(idx));
    emit("one_hot.2d", torch::one_hot(longs({1, 0, 2, 2}, {2, 2}), 3));
    emit("one_hot.F", F::one_hot(idx, 6));
  });
  for (auto dt : kFloatTypes) {
    run_case(tag("nll_loss", dt), [&] {
      torch::Tensor x = det({5, 4}, dt, 60, true);
      torch::Tensor lp = F::log_softmax(x, F::LogSoftmaxFuncOptions(1));
      torch::Tensor target = longs({1, 0, 3, 2, 1});
      torch::Tensor w = det_pos({4}, dt, 61);
      torch::Tensor mean = F::nll_loss(lp, target);
      emit(tag("nll_loss.mean", dt), mean);
      emit(tag("nll_loss.sum", dt), F::nll_loss(lp, target, F::NLLLossFuncOptions().reduction(torch::kSum)));
      emit(tag("nll_loss.none", dt), F::nll_loss(lp, target, F::NLLLossFuncOptions().reduction(torch::kNone)));
      torch::Tensor wm = F::nll_loss(lp, target, F::NLLLossFuncOptions().weight(w));
      emit(tag("nll_loss.weight", dt), wm);
      torch::Tensor ig = F::nll_loss(lp, longs({1, -100, 3, 2, -100}));
      emit(tag("nll_loss.ignore_default", dt), ig);
      torch::Tensor ig2 = F::nll_loss(lp, target, F::NLLLossFuncOptions().ignore_index(1).weight(w));
      emit(tag("nll_loss.ignore_weight", dt), ig2);
      torch::Tensor x3 = det({2, 3, 4}, dt, 62, true);
      torch::Tensor kd = F::nll_loss(F::log_softmax(x3, F::LogSoftmaxFuncOptions(1)), longs({0, 2, 1, 1, 0, 2, 2, 1}, {2, 4}));
      emit(tag("nll_loss.kdim", dt), kd);
      torch::nn::NLLLoss mod(torch::nn::NLLLossOptions().reduction(torch::kSum));
      emit(tag("nll_loss.module", dt), mod(lp, target));
      (mean + wm * 2 + ig2 * 3 + ig).backward();
      emit(tag("nll_loss.grad", dt), x.grad());
      kd.backward();
      emit(tag("nll_loss.kdim.grad", dt), x3.grad());
    });
    run_case(tag("cross_entropy", dt), [&] {
      torch::Tensor x = det({5, 4}, dt, 70, true);
      torch::Tensor target = longs({1, 0, 3, 2, 1});
      torch::Tensor probs = F::softmax(det({5, 4}, dt, 71), F::SoftmaxFuncOptions(1));
      torch::Tensor w = det_pos({4}, dt, 72);
      std::vector<std::pair<std::string, F::CrossEntropyFuncOptions>> idx_cases = {
          {"mean", F::CrossEntropyFuncOptions()},
          {"sum", F::CrossEntropyFuncOptions().reduction(torch::kSum)},
          {"none", F::CrossEntropyFuncOptions().reduction(torch::kNone)},
          {"smooth", F::CrossEntropyFuncOptions().label_smoothing(0.1)},
          {"weight", F::CrossEntropyFuncOptions().weight(w)},
          {"ignore", F::CrossEntropyFuncOptions().ignore_index(3)},
          {"weight_smooth", F::CrossEntropyFuncOptions().weight(w).label_smoothing(0.2)},
          {"weight_ignore_smooth", F::CrossEntropyFuncOptions().weight(w).ignore_index(1).label_smoothing(0.15)},
          {"smooth_sum", F::CrossEntropyFuncOptions().label_smoothing(0.3).reduction(torch::kSum)},
          {"smooth_none_ignore", F::CrossEntropyFuncOptions().label_smoothing(0.25).ignore_index(0).reduction(torch::kNone)},
      };
      int64_t seed = 73;
      for (auto& c : idx_cases) {
        torch::Tensor l = F::cross_entropy(x, target, c.second);
        emit(tag("cross_entropy.idx." + c.first, dt), l);
        if (x.grad().defined()) x.grad().zero_();
        backward_weighted(l, seed++);
        emit(tag("cross_entropy.idx." + c.first + ".grad", dt), x.grad());
      }
      std::vector<std::pair<std::string, F::CrossEntropyFuncOptions>> prob_cases = {
          {"mean", F::CrossEntropyFuncOptions()},
          {"sum", F::CrossEntropyFuncOptions().reduction(torch::kSum)},
          {"none", F::CrossEntropyFuncOptions().reduction(torch::kNone)},
          {"smooth", F::CrossEntropyFuncOptions().label_smoothing(0.1)},
          {"weight", F::CrossEntropyFuncOptions().weight(w)},
          {"weight_smooth", F::CrossEntropyFuncOptions().weight(w).label_smoothing(0.2)},
      };
      for (auto& c : prob_cases) {
        torch::Tensor l = F::cross_entropy(x, probs, c.second);
        emit(tag("cross_entropy.prob." + c.first, dt), l);
        x.grad().zero_();
        backward_weighted(l, seed++);
        emit(tag("cross_entropy.prob." + c.first + ".grad", dt), x.grad());
      }
      torch::Tensor x3 = det({2, 3, 4}, dt, 90, true);
      torch::Tensor t3 = longs({0, 2, 1, 1, 0, 2, 2, 1}, {2, 4});
      torch::Tensor l3 = F::cross_entropy(x3, t3, F::CrossEntropyFuncOptions().label_smoothing(0.05));
      emit(tag("cross_entropy.kdim", dt), l3);
      l3.backward();
      emit(tag("cross_entropy.kdim.grad", dt), x3.grad());
      torch::nn::CrossEntropyLoss mod(torch::nn::CrossEntropyLossOptions().label_smoothing(0.1).weight(w));
      emit(tag("cross_entropy.module", dt), mod(x, target));
    });
    run_case(tag("mse_l1", dt), [&] {
      torch::Tensor a = det({3, 4}, dt, 100, true), b = det({3, 4}, dt, 101);
      for (auto red : {0, 1, 2}) {
        F::MSELossFuncOptions mo;
        F::L1LossFuncOptions lo;
        std::string r = "mean";
        if (red == 1) { mo.reduction(torch::kSum); lo.reduction(torch::kSum); r = "sum"; }
        if (red == 2) { mo.reduction(torch::kNone); lo.reduction(torch::kNone); r = "none"; }
        torch::Tensor m = F::mse_loss(a, b, mo), l = F::l1_loss(a, b, lo);
        emit(tag("mse_loss." + r, dt), m);
        emit(tag("l1_loss." + r, dt), l);
        if (a.grad().defined()) a.grad().zero_();
        backward_weighted(m, 102 + red);
        emit(tag("mse_loss." + r + ".grad", dt), a.grad());
        a.grad().zero_();
        backward_weighted(l, 105 + red);
        emit(tag("l1_loss." + r + ".grad", dt), a.grad());
      }
      torch::nn::MSELoss mse;
      torch::nn::L1Loss l1(torch::nn::L1LossOptions().reduction(torch::kSum));
      emit(tag("mse_loss.module", dt), mse(a, b));
      emit(tag("l1_loss.module", dt), l1(a, b));
    });
  }
}

// ---------------------------------------------------------------- convolution, pooling, softmax, dropout

void conv_pool_cases() {
  for (auto dt : kFloatTypes) {
    struct ConvCase {
      std::string name;
      int64_t n, cin, h, w, cout, k, stride, pad, dil, groups;
      bool bias;
    };
    std::vector<ConvCase> cases = {
        {"basic", 2, 3, 6, 5, 4, 3, 1, 0, 1, 1, true},
        {"pad", 2, 2, 5, 5, 3, 3, 1, 1, 1, 1, true},
        {"stride", 1, 2, 7, 6, 3, 3, 2, 1, 1, 1, false},
        {"dilation", 1, 2, 7, 7, 2, 3, 1, 2, 2, 1, true},
        {"groups", 2, 4, 5, 5, 6, 3, 1, 1, 1, 2, true},
        {"depthwise", 1, 3, 6, 6, 3, 3, 2, 1, 1, 3, true},
        {"k1", 2, 3, 4, 4, 5, 1, 1, 0, 1, 1, true},
        {"all", 2, 4, 9, 8, 4, 3, 2, 2, 2, 2, true},
    };
    int64_t seed = 200;
    for (auto& c : cases) {
      run_case(tag("conv2d." + c.name, dt), [&] {
        torch::Tensor x = det({c.n, c.cin, c.h, c.w}, dt, seed++, true);
        torch::Tensor wt = det({c.cout, c.cin / c.groups, c.k, c.k}, dt, seed++, true);
        torch::Tensor b = c.bias ? det({c.cout}, dt, seed++, true) : torch::Tensor();
        F::Conv2dFuncOptions o = F::Conv2dFuncOptions().stride(c.stride).padding(c.pad).dilation(c.dil).groups(c.groups);
        if (c.bias) o.bias(b);
        torch::Tensor y = F::conv2d(x, wt, o);
        emit(tag("conv2d." + c.name, dt), y);
        backward_weighted(y, seed++);
        emit(tag("conv2d." + c.name + ".grad.input", dt), x.grad());
        emit(tag("conv2d." + c.name + ".grad.weight", dt), wt.grad());
        if (c.bias) emit(tag("conv2d." + c.name + ".grad.bias", dt), b.grad());
      });
    }
    run_case(tag("conv2d.at", dt), [&] {
      torch::Tensor x = det({1, 2, 5, 6}, dt, 240), wt = det({2, 2, 2, 3}, dt, 241);
      emit(tag("conv2d.at.rect", dt), torch::conv2d(x, wt, {}, {2, 1}, {1, 0}, {1, 2}));
    });
    run_case(tag("conv2d.unbatched", dt), [&] {
      torch::Tensor x = det({2, 5, 6}, dt, 242, true), wt = det({2, 2, 2, 3}, dt, 243);
      torch::Tensor y = F::conv2d(x, wt, F::Conv2dFuncOptions().padding(1));
      emit(tag("conv2d.unbatched", dt), y);
      backward_weighted(y, 244);
      emit(tag("conv2d.unbatched.grad.input", dt), x.grad());
    });
    struct PoolCase {
      std::string name;
      int64_t k, stride, pad, dil;
      bool ceil;
    };
    std::vector<PoolCase> pools = {
        {"k2", 2, 2, 0, 1, false}, {"k3s1", 3, 1, 0, 1, false}, {"k3s2p1", 3, 2, 1, 1, false},
        {"dil2", 2, 1, 0, 2, false}, {"ceil", 2, 2, 0, 1, true}, {"k3s2p1ceil", 3, 2, 1, 1, true},
    };
    for (auto& p : pools) {
      run_case(tag("max_pool2d." + p.name, dt), [&] {
        torch::Tensor x = det({2, 3, 7, 6}, dt, seed++, true);
        auto o = F::MaxPool2dFuncOptions(p.k).stride(p.stride).padding(p.pad).dilation(p.dil).ceil_mode(p.ceil);
        torch::Tensor y = F::max_pool2d(x, o);
        emit(tag("max_pool2d." + p.name, dt), y);
        auto yi = F::max_pool2d_with_indices(x, o);
        emit(tag("max_pool2d_with_indices." + p.name + ".values", dt), std::get<0>(yi));
        emit(tag("max_pool2d_with_indices." + p.name + ".indices", dt), std::get<1>(yi));
        backward_weighted(y, seed++);
        emit(tag("max_pool2d." + p.name + ".grad", dt), x.grad());
      });
    }
    run_case(tag("max_pool2d.module", dt), [&] {
      torch::Tensor x = det({3, 6, 6}, dt, 260, true);
      torch::nn::MaxPool2d pool(torch::nn::MaxPool2dOptions({3, 2}).stride({2, 1}));
      torch::Tensor y = pool(x);
      emit(tag("max_pool2d.module.unbatched", dt), y);
      backward_weighted(y, 261);
      emit(tag("max_pool2d.module.unbatched.grad", dt), x.grad());
      emit(tag("max_pool2d.at", dt), torch::max_pool2d(x, {2, 2}));
    });
    run_case(tag("softmax", dt), [&] {
      torch::Tensor x = det({3, 4, 5}, dt, 270, true);
      torch::Tensor a = F::log_softmax(x, F::LogSoftmaxFuncOptions(1));
      torch::Tensor b = F::log_softmax(x, F::LogSoftmaxFuncOptions(-1));
      torch::Tensor c = F::softmax(x, F::SoftmaxFuncOptions(0));
      emit(tag("log_softmax.dim1", dt), a);
      emit(tag("log_softmax.dimlast", dt), b);
      emit(tag("softmax.dim0", dt), c);
      emit(tag("log_softmax.method", dt), x.log_softmax(2));
      emit(tag("log_softmax.big", dt), torch::log_softmax(x * 300, 1));
      backward_weighted(a, 271);
      emit(tag("log_softmax.dim1.grad", dt), x.grad());
      x.grad().zero_();
      backward_weighted(b, 272);
      emit(tag("log_softmax.dimlast.grad", dt), x.grad());
      x.grad().zero_();
      backward_weighted(c, 273);
      emit(tag("softmax.dim0.grad", dt), x.grad());
      torch::nn::LogSoftmax lsm(torch::nn::LogSoftmaxOptions(1));
      emit(tag("log_softmax.module", dt), lsm(x));
    });
    run_case(tag("dropout.eval", dt), [&] {
      torch::Tensor x = det({2, 3, 4, 4}, dt, 280, true);
      torch::Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.5).training(false));
      emit(tag("dropout.eval", dt), y);
      emit(tag("dropout2d.eval", dt), F::dropout2d(x, F::Dropout2dFuncOptions().p(0.3).training(false)));
      emit(tag("dropout.p0.train", dt), F::dropout(x, F::DropoutFuncOptions().p(0.0).training(true)));
      torch::nn::Dropout d(0.4);
      d->eval();
      torch::nn::Dropout2d d2(0.4);
      d2->eval();
      emit(tag("dropout.module.eval", dt), d(x));
      emit(tag("dropout2d.module.eval", dt), d2(x));
      backward_weighted(y, 281);
      emit(tag("dropout.eval.grad", dt), x.grad());
    });
  }
}

// ---------------------------------------------------------------- modules with hand-set parameters

// Copies fixed values into every parameter, in named_parameters() order.
void set_parameters(torch::nn::Module& m, int64_t seed) {
  torch::NoGradGuard no_grad;
  for (auto& p : m.parameters()) p.copy_(det(p.sizes().vec(), p.scalar_type(), seed++) * 0.5);
}

void emit_parameter_grads(const std::string& name, torch::nn::Module& m) {
  for (auto& np : m.named_parameters()) {
    emit(name + ".grad." + np.key(), np.value().grad());
  }
}

void module_cases() {
  for (auto dt : kFloatTypes) {
    run_case(tag("nn.Linear", dt), [&] {
      torch::nn::Linear lin(torch::nn::LinearOptions(5, 3));
      lin->to(dt);
      set_parameters(*lin, 300);
      torch::Tensor x = det({4, 5}, dt, 310, true);
      torch::Tensor y = lin(x);
      emit(tag("nn.Linear", dt), y);
      backward_weighted(y, 311);
      emit(tag("nn.Linear.grad.input", dt), x.grad());
      emit_parameter_grads(tag("nn.Linear", dt), *lin);
      torch::nn::Linear nobias(torch::nn::LinearOptions(5, 2).bias(false));
      nobias->to(dt);
      set_parameters(*nobias, 312);
      emit(tag("nn.Linear.nobias", dt), nobias(x));
      emit(tag("nn.Linear.3d", dt), lin(det({2, 3, 5}, dt, 313)));
    });
    run_case(tag("nn.Conv2d", dt), [&] {
      torch::nn::Conv2d conv(torch::nn::Conv2dOptions(4, 6, 3).stride(2).padding(1).groups(2));
      conv->to(dt);
      set_parameters(*conv, 320);
      torch::Tensor x = det({2, 4, 7, 7}, dt, 330, true);
      torch::Tensor y = conv(x);
      emit(tag("nn.Conv2d", dt), y);
      backward_weighted(y, 331);
      emit(tag("nn.Conv2d.grad.input", dt), x.grad());
      emit_parameter_grads(tag("nn.Conv2d", dt), *conv);
      torch::nn::Conv2d rect(torch::nn::Conv2dOptions(2, 3, {2, 3}).stride({1, 2}).dilation({2, 1}).bias(false));
      rect->to(dt);
      set_parameters(*rect, 332);
      emit(tag("nn.Conv2d.rect", dt), rect(det({1, 2, 6, 7}, dt, 333)));
    });
    run_case(tag("nn.Sequential", dt), [&] {
      torch::nn::Sequential net(
          torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 4, 3).padding(1)), torch::nn::ReLU(),
          torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)), torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 6, 3)),
          torch::nn::ReLU(), torch::nn::Flatten(), torch::nn::Linear(6 * 2 * 2, 8), torch::nn::Tanh(),
          torch::nn::Dropout(0.5), torch::nn::Linear(8, 3));
      net->to(dt);
      set_parameters(*net, 340);
      net->eval();
      torch::Tensor x = det({3, 1, 8, 8}, dt, 360, true);
      torch::Tensor y = net->forward(x);
      emit(tag("nn.Sequential", dt), y);
      torch::Tensor loss = F::cross_entropy(y, longs({2, 0, 1}));
      emit(tag("nn.Sequential.loss", dt), loss);
      loss.backward();
      emit(tag("nn.Sequential.grad.input", dt), x.grad());
      emit_parameter_grads(tag("nn.Sequential", dt), *net);
    });
  }
}

// ---------------------------------------------------------------- normalisation (only when Ember has it)

#ifdef PARITY_NORM
void norm_cases() {
  for (auto dt : kFloatTypes) {
    run_case(tag("nn.BatchNorm2d", dt), [&] {
      torch::nn::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(3).momentum(0.2));
      bn->to(dt);
      set_parameters(*bn, 400);
      torch::Tensor x = det({4, 3, 5, 5}, dt, 410, true);
      torch::Tensor y = bn(x);
      emit(tag("nn.BatchNorm2d.train", dt), y);
      backward_weighted(y, 411);
      emit(tag("nn.BatchNorm2d.grad.input", dt), x.grad());
      emit_parameter_grads(tag("nn.BatchNorm2d", dt), *bn);
      emit(tag("nn.BatchNorm2d.running_mean", dt), bn->running_mean);
      emit(tag("nn.BatchNorm2d.running_var", dt), bn->running_var);
      bn(det({2, 3, 5, 5}, dt, 412));
      emit(tag("nn.BatchNorm2d.running_mean2", dt), bn->running_mean);
      emit(tag("nn.BatchNorm2d.running_var2", dt), bn->running_var);
      bn->eval();
      torch::Tensor xe = det({2, 3, 4, 4}, dt, 413, true);
      torch::Tensor ye = bn(xe);
      emit(tag("nn.BatchNorm2d.eval", dt), ye);
      backward_weighted(ye, 414);
      emit(tag("nn.BatchNorm2d.eval.grad.input", dt), xe.grad());
    });
    run_case(tag("nn.LayerNorm", dt), [&] {
      torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({4, 5}).eps(1e-4));
      ln->to(dt);
      set_parameters(*ln, 420);
      torch::Tensor x = det({3, 4, 5}, dt, 430, true);
      torch::Tensor y = ln(x);
      emit(tag("nn.LayerNorm", dt), y);
      backward_weighted(y, 431);
      emit(tag("nn.LayerNorm.grad.input", dt), x.grad());
      emit_parameter_grads(tag("nn.LayerNorm", dt), *ln);
    });
    run_case(tag("nn.GroupNorm", dt), [&] {
      torch::nn::GroupNorm gn(torch::nn::GroupNormOptions(2, 6));
      gn->to(dt);
      set_parameters(*gn, 440);
      torch::Tensor x = det({2, 6, 3, 3}, dt, 450, true);
      torch::Tensor y = gn(x);
      emit(tag("nn.GroupNorm", dt), y);
      backward_weighted(y, 451);
      emit(tag("nn.GroupNorm.grad.input", dt), x.grad());
      emit_parameter_grads(tag("nn.GroupNorm", dt), *gn);
    });
    run_case(tag("nn.BatchNorm2d.cumulative", dt), [&] {
      torch::nn::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(2).momentum(std::nullopt).eps(1e-3));
      bn->to(dt);
      for (int64_t s = 0; s < 3; ++s) bn(det({3, 2, 2, 3}, dt, 470 + s));
      emit(tag("nn.BatchNorm2d.cumulative.running_mean", dt), bn->running_mean);
      emit(tag("nn.BatchNorm2d.cumulative.running_var", dt), bn->running_var);
      emit(tag("nn.BatchNorm2d.cumulative.num_batches_tracked", dt), bn->num_batches_tracked);
    });
    run_case(tag("nn.BatchNorm1d", dt), [&] {
      torch::nn::BatchNorm1d bn(torch::nn::BatchNorm1dOptions(4));
      bn->to(dt);
      set_parameters(*bn, 480);
      torch::Tensor x = det({5, 4}, dt, 481, true), x3 = det({3, 4, 6}, dt, 482, true);
      torch::Tensor y = bn(x), y3 = bn(x3);
      emit(tag("nn.BatchNorm1d.2d", dt), y);
      emit(tag("nn.BatchNorm1d.3d", dt), y3);
      (y * det({5, 4}, dt, 483)).sum().add((y3 * det({3, 4, 6}, dt, 484)).sum()).backward();
      emit(tag("nn.BatchNorm1d.grad.x", dt), x.grad());
      emit(tag("nn.BatchNorm1d.grad.x3", dt), x3.grad());
      emit_parameter_grads(tag("nn.BatchNorm1d", dt), *bn);
      emit(tag("nn.BatchNorm1d.running_var", dt), bn->running_var);
    });
    run_case(tag("nn.InstanceNorm2d", dt), [&] {
      torch::nn::InstanceNorm2d in(torch::nn::InstanceNorm2dOptions(3).affine(true));
      in->to(dt);
      set_parameters(*in, 490);
      torch::Tensor x = det({2, 3, 4, 3}, dt, 491, true);
      torch::Tensor y = in(x);
      emit(tag("nn.InstanceNorm2d", dt), y);
      backward_weighted(y, 492);
      emit(tag("nn.InstanceNorm2d.grad.input", dt), x.grad());
      emit_parameter_grads(tag("nn.InstanceNorm2d", dt), *in);
    });
    run_case(tag("nn.LayerNorm.noaffine", dt), [&] {
      torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({6}).elementwise_affine(false));
      ln->to(dt);
      torch::Tensor x = det({2, 3, 6}, dt, 493, true);
      torch::Tensor y = ln(x);
      emit(tag("nn.LayerNorm.noaffine", dt), y);
      backward_weighted(y, 494);
      emit(tag("nn.LayerNorm.noaffine.grad.input", dt), x.grad());
    });
    run_case(tag("F.norms", dt), [&] {
      torch::Tensor x = det({4, 3, 2, 2}, dt, 460);
      torch::Tensor rm = det({3}, dt, 461), rv = det_pos({3}, dt, 462), w = det({3}, dt, 463), b = det({3}, dt, 464);
      emit(tag("F.batch_norm.eval", dt),
           F::batch_norm(x, rm, rv, F::BatchNormFuncOptions().weight(w).bias(b).training(false)));
      emit(tag("F.layer_norm", dt), F::layer_norm(x, F::LayerNormFuncOptions({2, 2})));
      emit(tag("F.group_norm", dt), F::group_norm(x, F::GroupNormFuncOptions(3)));
      torch::Tensor rm2 = rm.clone(), rv2 = rv.clone();
      emit(tag("F.batch_norm.train", dt),
           F::batch_norm(x, rm2, rv2, F::BatchNormFuncOptions().training(true).momentum(0.3).eps(1e-4)));
      emit(tag("F.batch_norm.train.running_mean", dt), rm2);
      emit(tag("F.batch_norm.train.running_var", dt), rv2);
      emit(tag("F.instance_norm", dt), F::instance_norm(x, F::InstanceNormFuncOptions().weight(w).bias(b)));
      emit(tag("F.layer_norm.affine", dt),
           F::layer_norm(x, F::LayerNormFuncOptions({2}).weight(det({2}, dt, 465)).bias(det({2}, dt, 466))));
      emit(tag("F.group_norm.affine", dt), F::group_norm(x, F::GroupNormFuncOptions(1).weight(w).bias(b).eps(1e-2)));
    });
  }
}
#else
// Normalisation layers: not compiled (Ember had no torch::nn::BatchNorm2d when tools/parity/run probed it).
void norm_cases() {}
#endif

// ---------------------------------------------------------------- optimizers and schedulers

// Minimises sum(0.5 * a * x^2 + c * x) + 0.1 * sum(y^4) (a > 0) from fixed starting points, printing the
// parameters after every step.
template <typename Opt, typename Options>
void optimizer_case(const std::string& name, const Options& options, int steps = 5) {
  run_case(name, [&] {
    torch::Tensor x = det({6}, torch::kDouble, 500, true);
    torch::Tensor y = det({2, 3}, torch::kDouble, 501, true);
    torch::Tensor a = det_pos({6}, torch::kDouble, 502), c = det({6}, torch::kDouble, 503);
    Opt opt(std::vector<torch::Tensor>{x, y}, options);
    for (int s = 0; s < steps; ++s) {
      opt.zero_grad();
      torch::Tensor loss = (0.5 * a * x * x + c * x).sum() + 0.1 * y.pow(4).sum();
      loss.backward();
      opt.step();
      emit(name + ".step" + std::to_string(s) + ".loss", loss);
      emit(name + ".step" + std::to_string(s) + ".x", x);
      emit(name + ".step" + std::to_string(s) + ".y", y);
    }
  });
}

void optimizer_cases() {
  using namespace torch::optim;
  optimizer_case<SGD>("optim.SGD.plain", SGDOptions(0.1));
  optimizer_case<SGD>("optim.SGD.momentum", SGDOptions(0.1).momentum(0.9));
  optimizer_case<SGD>("optim.SGD.dampening", SGDOptions(0.1).momentum(0.8).dampening(0.3));
  optimizer_case<SGD>("optim.SGD.nesterov", SGDOptions(0.05).momentum(0.9).nesterov(true));
  optimizer_case<SGD>("optim.SGD.weight_decay", SGDOptions(0.1).momentum(0.5).weight_decay(0.01));
  optimizer_case<Adam>("optim.Adam", AdamOptions(0.1));
  optimizer_case<Adam>("optim.Adam.betas_wd", AdamOptions(0.05).betas(std::make_tuple(0.8, 0.9)).weight_decay(0.1).eps(1e-6));
  optimizer_case<Adam>("optim.Adam.amsgrad", AdamOptions(0.1).amsgrad(true), 8);
  optimizer_case<AdamW>("optim.AdamW", AdamWOptions(0.1));
  optimizer_case<AdamW>("optim.AdamW.amsgrad", AdamWOptions(0.05).weight_decay(0.1).amsgrad(true), 8);
  optimizer_case<RMSprop>("optim.RMSprop", RMSpropOptions(0.01));
  optimizer_case<RMSprop>("optim.RMSprop.momentum_centered",
                          RMSpropOptions(0.01).momentum(0.9).centered(true).weight_decay(0.05).alpha(0.9));
  optimizer_case<Adagrad>("optim.Adagrad", AdagradOptions(0.1));
  optimizer_case<Adagrad>("optim.Adagrad.decay",
                          AdagradOptions(0.1).lr_decay(0.01).weight_decay(0.02).initial_accumulator_value(0.1));

  for (int strong_wolfe = 0; strong_wolfe < 2; ++strong_wolfe) {
    const std::string name = strong_wolfe ? "optim.LBFGS.strong_wolfe" : "optim.LBFGS";
    run_case(name, [&] {
      // A coupled quartic in 4 unknowns (the quadratic term alone would be solved in one step).
      torch::Tensor x = det({4}, torch::kDouble, 505, true);
      torch::Tensor a = det_pos({4}, torch::kDouble, 506), c = det({4}, torch::kDouble, 507);
      LBFGSOptions o(0.5);
      o.max_iter(6).history_size(3);
      if (strong_wolfe) o.line_search_fn("strong_wolfe");
      LBFGS opt(std::vector<torch::Tensor>{x}, o);
      auto closure = [&] {
        opt.zero_grad();
        torch::Tensor loss = (0.5 * a * x * x + c * x).sum() + 0.05 * x.pow(4).sum() + 0.1 * (x[0] * x[1] + x[2] * x[3]);
        loss.backward();
        return loss;
      };
      for (int s = 0; s < 3; ++s) {
        torch::Tensor loss = opt.step(closure);
        emit(name + ".step" + std::to_string(s) + ".loss", loss);
        emit(name + ".step" + std::to_string(s) + ".x", x);
      }
    });
  }

  run_case("optim.ReduceLROnPlateau", [] {
    torch::Tensor x = det({3}, torch::kDouble, 515, true);
    SGD opt(std::vector<torch::Tensor>{x}, SGDOptions(0.4));
    ReduceLROnPlateauScheduler sched(opt, ReduceLROnPlateauScheduler::SchedulerMode::min, 0.5f, 1, 1e-3,
                                     ReduceLROnPlateauScheduler::ThresholdMode::rel, 1);
    const float metrics[] = {5.0f, 4.0f, 4.0f, 4.0f, 3.999f, 3.0f, 3.5f, 3.5f, 3.5f, 3.5f};
    int s = 0;
    for (float m : metrics) {
      opt.zero_grad();
      (x * x).sum().backward();
      opt.step();
      sched.step(m);
      emit_double("optim.ReduceLROnPlateau.step" + std::to_string(s++) + ".lr", opt.param_groups()[0].options().get_lr());
    }
    emit("optim.ReduceLROnPlateau.x", x);
  });

  run_case("optim.StepLR", [] {
    torch::Tensor x = det({4}, torch::kDouble, 510, true);
    SGD opt(std::vector<torch::Tensor>{x}, SGDOptions(0.2).momentum(0.5));
    StepLR sched(opt, 2, 0.5);
    for (int s = 0; s < 7; ++s) {
      opt.zero_grad();
      (x * x).sum().backward();
      opt.step();
      sched.step();
      emit_double("optim.StepLR.step" + std::to_string(s) + ".lr", opt.param_groups()[0].options().get_lr());
      emit("optim.StepLR.step" + std::to_string(s) + ".x", x);
    }
  });

  run_case("optim.SGD.module", [] {
    // One float32 training loop on a small model: forward, cross_entropy, backward, step.
    torch::nn::Sequential net(torch::nn::Linear(4, 6), torch::nn::ReLU(), torch::nn::Linear(6, 3));
    set_parameters(*net, 520);
    SGD opt(net->parameters(), SGDOptions(0.1).momentum(0.9));
    torch::Tensor x = det({8, 4}, torch::kFloat, 530);
    torch::Tensor t = longs({0, 1, 2, 0, 1, 2, 2, 1});
    for (int s = 0; s < 4; ++s) {
      opt.zero_grad();
      torch::Tensor loss = F::cross_entropy(net->forward(x), t);
      loss.backward();
      opt.step();
      emit("optim.SGD.module.step" + std::to_string(s) + ".loss", loss);
    }
    for (auto& np : net->named_parameters()) emit("optim.SGD.module.final." + np.key(), np.value());
  });
}

}  // namespace

int main() {
  elementwise_cases();
  reduction_cases();
  indexing_cases();
  comparison_cases();
  division_cases();
  shape_cases();
  linalg_cases();
  loss_cases();
  conv_pool_cases();
  module_cases();
  norm_cases();
  optimizer_cases();
  return 0;
}
