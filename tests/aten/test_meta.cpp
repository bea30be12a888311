// Meta tensors (kernels/meta/, docs/embedding.md "Meta tensors"): sizes, strides and dtypes with no
// data; tracing a model far larger than memory; the ways to data that must raise. The generated
// tests (tests/meta_<family>.cpp in the build directory) compare every op sample with the CPU.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {
// Resident set size of this process in bytes (/proc/self/statm, second field in pages).
int64_t rss_bytes() {
  std::ifstream f("/proc/self/statm");
  int64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what();
  }
  return "";
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("meta: factories make storage without data", "[meta]") {
  at::Tensor t = at::empty({2, 3}, at::TensorOptions().dtype(at::kFloat).device(at::kMeta));
  CHECK(t.is_meta());
  CHECK(t.device() == at::Device("meta"));
  CHECK(t.sizes().vec() == std::vector<int64_t>{2, 3});
  CHECK(t.strides().vec() == std::vector<int64_t>{3, 1});
  CHECK(t.storage().nbytes() == 24);
  CHECK(t.const_data_ptr() == nullptr);
  const auto meta = at::TensorOptions().device(at::kMeta);
  for (const at::Tensor& f : {at::zeros({4, 5}, meta), at::ones({4, 5}, meta), at::full({4, 5}, 7, meta), at::rand({4, 5}, meta),
                              at::randn({4, 5}, meta), at::empty_strided({4, 5}, {1, 4}, meta)}) {
    CHECK(f.is_meta());
    CHECK(f.sizes().vec() == std::vector<int64_t>{4, 5});
    CHECK(f.storage().nbytes() == 20 * f.itemsize());
  }
  CHECK(at::full({4, 5}, 7, meta).scalar_type() == at::kLong);  // dtype inferred from the fill value, as on the CPU
  CHECK(at::empty_strided({4, 5}, {1, 4}, meta).strides().vec() == std::vector<int64_t>{1, 4});
  CHECK(at::arange(10, meta).sizes().vec() == std::vector<int64_t>{10});
  at::Tensor e = at::empty_like(at::empty({3, 4}).t(), meta);
  CHECK(e.is_meta());
  CHECK(e.strides().vec() == std::vector<int64_t>{1, 4});  // preserve format: a transposed input's layout
}

TEST_CASE("meta: to(kMeta) and copy_ into meta move no data; the way back raises", "[meta]") {
  at::Tensor c = at::arange(12, at::kFloat).view({3, 4}).t();
  at::Tensor m = c.to(at::kMeta);
  CHECK(m.is_meta());
  CHECK(m.sizes() == c.sizes());
  CHECK(m.strides().vec() == c.strides().vec());
  CHECK(m.to(at::kDouble).scalar_type() == at::kDouble);
  at::Tensor dst = at::empty({4, 3}, at::TensorOptions().device(at::kMeta));
  CHECK(dst.copy_(c).is_same(dst));
  CHECK_THROWS_WITH(dst.copy_(at::ones({5})), Catch::Contains("[copy_]"));  // shapes are still checked
  const std::string back = message_of([&] { at::empty({4, 3}).copy_(m); });
  CHECK(contains(back, "[copy_]"));
  CHECK(contains(back, "meta tensors have no data"));
  CHECK(contains(message_of([&] { (void)m.to(at::kCPU); }), "meta tensors have no data"));
  const std::string item = message_of([&] { (void)at::empty({}, at::TensorOptions().device(at::kMeta)).item(); });
  CHECK(contains(item, "[item]"));
  CHECK(contains(item, "meta tensors have no data"));
  CHECK(contains(message_of([&] { (void)at::nonzero(m); }), "[nonzero]"));
  CHECK(contains(message_of([&] { (void)at::masked_select(m, m.gt(0)); }), "meta tensors have no data"));
  CHECK(contains(message_of([&] { (void)at::one_hot(at::empty({3}, at::TensorOptions().dtype(at::kLong).device(at::kMeta))); }),
                 "[one_hot]"));
}

TEST_CASE("meta: printing shows device, size and dtype without reading data", "[meta]") {
  std::ostringstream os;
  os << at::empty({2, 3}, at::TensorOptions().dtype(at::kHalf).device(at::kMeta));
  CHECK(contains(os.str(), "device='meta'"));
  CHECK(contains(os.str(), "size=[2, 3]"));
  CHECK(contains(os.str(), "float16"));
  CHECK(at::empty({2}, at::TensorOptions().device(at::kMeta)).toString() == "MetaFloatType");
}

TEST_CASE("meta: pointwise ops give the CPU's shape, dtype and strides", "[meta]") {
  const auto meta = at::TensorOptions().device(at::kMeta);
  at::Tensor a = at::rand({5, 3}).t();  // transposed
  at::Tensor b = at::rand({3, 1});
  at::Tensor cpu = a + b;
  at::Tensor m = a.to(at::kMeta) + b.to(at::kMeta);
  CHECK(m.sizes() == cpu.sizes());
  CHECK(m.strides().vec() == cpu.strides().vec());
  CHECK(m.strides().vec() == std::vector<int64_t>{1, 3});
  // Promotion: int64 tensor * float scalar is float32; comparison is bool.
  at::Tensor i = at::empty({4}, meta.dtype(at::kLong));
  CHECK((i * 2.5).scalar_type() == at::kFloat);
  CHECK(i.lt(i).scalar_type() == at::kBool);
  CHECK(at::sqrt(i).scalar_type() == at::kFloat);
  // In place: the broadcast shape must be self's, as on the CPU.
  at::Tensor s = at::empty({3}, meta);
  CHECK_THROWS_WITH(s.add_(at::empty({2, 3}, meta)), Catch::Contains("[add]"));
  // out=: resized to the result's shape.
  at::Tensor out = at::empty({0}, meta);
  at::add_out(out, at::empty({2, 3}, meta), at::empty({3}, meta));
  CHECK(out.sizes().vec() == std::vector<int64_t>{2, 3});
  // Integer division by a meta divisor: no values to check, no error.
  CHECK(at::div(i, i, "floor").scalar_type() == at::kLong);
}

TEST_CASE("meta: mixing meta and CPU tensors", "[meta]") {
  const auto meta = at::TensorOptions().device(at::kMeta);
  at::Tensor m = at::empty({2, 3}, meta);
  // A CPU tensor with dims is refused, as libtorch refuses it...
  CHECK_THROWS_AS(m + at::ones({2, 3}), c10::Error);
  CHECK_THROWS_AS(at::ones({2, 3}) * m, c10::Error);
  CHECK_THROWS_AS(at::mm(m, at::ones({3, 2})), c10::Error);
  // ...a 0-dim CPU tensor takes part like a scalar (libtorch's TensorIterator allows CPU scalars).
  at::Tensor r = m + at::tensor(2.0, at::kDouble);
  CHECK(r.is_meta());
  CHECK(r.scalar_type() == at::kFloat);
}

TEST_CASE("meta: views keep sizes, strides and offsets", "[meta]") {
  at::Tensor c = at::rand({4, 6, 5});
  at::Tensor m = c.to(at::kMeta);
  auto same = [](const at::Tensor& x, const at::Tensor& y) {
    CHECK(x.sizes().vec() == y.sizes().vec());
    CHECK(x.strides().vec() == y.strides().vec());
    CHECK(x.storage_offset() == y.storage_offset());
  };
  same(m.slice(1, 1, 5, 2), c.slice(1, 1, 5, 2));
  same(m.select(2, 3), c.select(2, 3));
  same(m.transpose(0, 2), c.transpose(0, 2));
  same(m.narrow(0, 1, 2).view({2, 30}), c.narrow(0, 1, 2).view({2, 30}));
  same(m.as_strided({3, 3}, {7, 2}, 5), c.as_strided({3, 3}, {7, 2}, 5));
  same(m.unsqueeze(1).expand({4, 2, 6, 5}), c.unsqueeze(1).expand({4, 2, 6, 5}));
  same(m.diagonal(0, 1, 2), c.diagonal(0, 1, 2));
  same(m.reshape({-1}), c.reshape({-1}));
  same(m.select(0, 1).t().reshape({30}), c.select(0, 1).t().reshape({30}));  // a copy: contiguous
  CHECK(m.slice(0, 1).is_alias_of(m));
}

TEST_CASE("meta: a 40 GB Linear and a conv net at batch 1024 traced without memory", "[meta]") {
  const auto meta = at::TensorOptions().device(at::kMeta);
  const int64_t rss0 = rss_bytes();
  int64_t total = 0;
  {
    // Linear 100000 x 100000: 40 GB of float32 weights.
    at::Tensor w = at::empty({100000, 100000}, meta);
    at::Tensor b = at::empty({100000}, meta);
    torch::nn::init::kaiming_uniform_(w, std::sqrt(5.0));
    torch::nn::init::uniform_(b, -0.01, 0.01);
    total += static_cast<int64_t>(w.storage().nbytes() + b.storage().nbytes());
    CHECK(w.storage().nbytes() == size_t{40000000000});
    at::Tensor x = at::empty({64, 100000}, meta);
    at::Tensor y = at::linear(x, w, b);
    CHECK(y.is_meta());
    CHECK(y.sizes().vec() == std::vector<int64_t>{64, 100000});
    at::Tensor loss = at::cross_entropy_loss(y, at::empty({64}, meta.dtype(at::kLong)));
    CHECK(loss.dim() == 0);
    CHECK(loss.is_meta());
  }
  {
    // A small conv net, built on the CPU and moved to meta, at batch 1024 on 224 x 224 images.
    torch::nn::Conv2d conv1(torch::nn::Conv2dOptions(3, 64, 3).padding(1));
    torch::nn::BatchNorm2d bn1(64);
    torch::nn::Conv2d conv2(torch::nn::Conv2dOptions(64, 128, 3).stride(2).padding(1));
    torch::nn::Linear fc(128 * 56 * 56, 1000);
    for (torch::nn::Module* mod : std::initializer_list<torch::nn::Module*>{conv1.get(), bn1.get(), conv2.get(), fc.get()})
      mod->to(at::Device(at::kMeta));
    CHECK(conv1->weight.is_meta());
    CHECK(fc->weight.is_meta());
    at::Tensor x = at::empty({1024, 3, 224, 224}, meta);
    at::Tensor h = at::relu(bn1->forward(conv1->forward(x)));
    CHECK(h.sizes().vec() == std::vector<int64_t>{1024, 64, 224, 224});
    h = at::max_pool2d(h, {2, 2});
    h = at::relu(conv2->forward(h));
    CHECK(h.sizes().vec() == std::vector<int64_t>{1024, 128, 56, 56});
    at::Tensor logits = fc->forward(h.flatten(1));
    CHECK(logits.sizes().vec() == std::vector<int64_t>{1024, 1000});
    at::Tensor loss = at::cross_entropy_loss(logits, at::empty({1024}, meta.dtype(at::kLong)));
    CHECK(loss.is_meta());
    total += static_cast<int64_t>(h.storage().nbytes());
    CHECK(h.storage().nbytes() == size_t{1024} * 128 * 56 * 56 * 4);
  }
  CHECK(total > int64_t{40000000000});
  // Nothing of that was allocated: the resident set grew by less than 64 MiB.
  CHECK(rss_bytes() - rss0 < (int64_t{64} << 20));
}

// ---------------------------------------------------------------- autograd on meta tensors
// Each computation runs twice: on meta tensors and on CPU tensors (the reference, with real
// values). The meta gradients must exist, be meta, and have the CPU gradients' sizes, dtype and
// strides (the strides of dims of size > 1: a size-1 dim's stride is never used).
namespace {
const at::TensorOptions kMetaOpts = at::TensorOptions().device(at::kMeta);

void same_geometry(const at::Tensor& m, const at::Tensor& c) {
  REQUIRE(c.defined());
  REQUIRE(m.defined());
  CHECK(c.device().is_cpu());
  CHECK(m.is_meta());
  CHECK(m.sizes().vec() == c.sizes().vec());
  CHECK(m.scalar_type() == c.scalar_type());
  CHECK(m.storage_offset() == c.storage_offset());
  if (m.sizes() == c.sizes())
    for (int64_t d = 0; d < c.dim(); ++d)
      if (c.size(d) > 1) CHECK(m.stride(d) == c.stride(d));
}

// Parameters' gradients of two copies of one architecture, in registration order.
void same_grads(torch::nn::Module& meta, torch::nn::Module& cpu) {
  const auto pm = meta.named_parameters(), pc = cpu.named_parameters();
  REQUIRE(pm.size() == pc.size());
  for (size_t i = 0; i < pc.size(); ++i) {
    INFO(pc[i].key());
    CHECK(pm[i].key() == pc[i].key());
    CHECK(pm[i].value().is_meta());
    same_geometry(pm[i].value().grad(), pc[i].value().grad());
    // ...which are the parameter's own shape and dtype.
    CHECK(pm[i].value().grad().sizes() == pm[i].value().sizes());
    CHECK(pm[i].value().grad().scalar_type() == pm[i].value().scalar_type());
  }
}

torch::nn::Sequential make_mlp(at::ScalarType dt) {
  torch::nn::Sequential net(torch::nn::Linear(8, 16), torch::nn::ReLU(), torch::nn::Linear(16, 4));
  net->to(dt);
  return net;
}
}  // namespace

TEST_CASE("meta autograd: an MLP's loss.backward() gives meta gradients of the parameters' shapes", "[meta]") {
  for (at::ScalarType dt : {at::kFloat, at::kDouble}) {
    INFO(c10::dtypeName(dt));
    auto cpu = make_mlp(dt), meta = make_mlp(dt);
    meta->to(at::Device(at::kMeta));
    at::Tensor xc = at::randn({5, 8}, at::TensorOptions().dtype(dt)).requires_grad_();
    at::Tensor tc = at::randint(0, 4, {5}, at::kLong);
    at::Tensor lc = at::cross_entropy_loss(cpu->forward(xc), tc);
    lc.backward();
    at::Tensor xm = at::empty({5, 8}, kMetaOpts.dtype(dt)).requires_grad_();
    at::Tensor lm = at::cross_entropy_loss(meta->forward(xm), at::empty({5}, kMetaOpts.dtype(at::kLong)));
    CHECK(lm.requires_grad());
    CHECK(lm.grad_fn() != nullptr);
    same_geometry(lm, lc);
    lm.backward();
    same_grads(*meta, *cpu);
    same_geometry(xm.grad(), xc.grad());
    // A second backward accumulates into the existing meta gradients (same tensors, shapes kept).
    const at::Tensor g0 = meta->named_parameters()[0].value().grad();
    at::cross_entropy_loss(meta->forward(xm), at::empty({5}, kMetaOpts.dtype(at::kLong))).backward();
    CHECK(meta->named_parameters()[0].value().grad().sizes() == g0.sizes());
    CHECK(meta->named_parameters()[0].value().grad().is_meta());
  }
}

TEST_CASE("meta autograd: a conv net (conv, batch norm, pooling, linear) forward and backward", "[meta]") {
  struct Net : torch::nn::Module {
    torch::nn::Conv2d conv1{torch::nn::Conv2dOptions(3, 4, 3).padding(1)};
    torch::nn::BatchNorm2d bn{4};
    torch::nn::Conv2d conv2{torch::nn::Conv2dOptions(4, 6, 3).stride(2).padding(1).bias(false)};
    torch::nn::Linear fc{6 * 2 * 2, 3};
    Net() {
      register_module("conv1", conv1);
      register_module("bn", bn);
      register_module("conv2", conv2);
      register_module("fc", fc);
    }
    at::Tensor forward(const at::Tensor& x) {
      at::Tensor h = at::max_pool2d(at::relu(bn->forward(conv1->forward(x))), {2, 2});
      h = at::gelu(conv2->forward(h));
      return fc->forward(h.flatten(1));
    }
  };
  for (bool channels_last : {false, true}) {
    INFO("channels_last " << channels_last);
    auto cpu = std::make_shared<Net>(), meta = std::make_shared<Net>();
    meta->to(at::Device(at::kMeta));
    at::Tensor xc = at::randn({2, 3, 8, 8});
    if (channels_last) xc = xc.contiguous(at::MemoryFormat::ChannelsLast);
    xc.requires_grad_();
    at::Tensor xm = xc.detach().to(at::kMeta).requires_grad_();
    CHECK(xm.strides().vec() == xc.strides().vec());
    at::Tensor tc = at::randint(0, 3, {2}, at::kLong);
    at::Tensor yc = cpu->forward(xc), ym = meta->forward(xm);
    same_geometry(ym, yc);
    at::cross_entropy_loss(yc, tc).backward();
    at::cross_entropy_loss(ym, tc.to(at::kMeta)).backward();
    same_grads(*meta, *cpu);
    same_geometry(xm.grad(), xc.grad());
    // Batch norm's running statistics were updated in place on meta: still meta buffers.
    for (const auto& b : meta->named_buffers()) {
      INFO(b.key());
      CHECK(b.value().is_meta());
    }
  }
}

TEST_CASE("meta autograd: torch::autograd::grad, and a gradient of a gradient", "[meta]") {
  auto run = [](const at::TensorOptions& o, bool meta) {
    at::Tensor x = (meta ? at::empty({4, 3}, o) : at::randn({4, 3}, o)).requires_grad_();
    at::Tensor w = (meta ? at::empty({5, 3}, o) : at::randn({5, 3}, o)).t().requires_grad_();  // a transposed leaf
    at::Tensor y = at::tanh(x.mm(w)).pow(2).sum();
    auto g = torch::autograd::grad({y}, {x, w}, {}, /*retain_graph=*/true, /*create_graph=*/true);
    at::Tensor gg = torch::autograd::grad({g[1].sum()}, {x})[0];
    CHECK_FALSE(x.grad().defined());  // grad() leaves .grad alone
    return std::vector<at::Tensor>{y, g[0], g[1], gg};
  };
  const auto c = run(at::TensorOptions().dtype(at::kDouble), false);
  const auto m = run(kMetaOpts.dtype(at::kDouble), true);
  for (size_t i = 0; i < c.size(); ++i) {
    INFO(i);
    same_geometry(m[i], c[i]);
  }
}

// Backward formulas that look at values on the CPU (prod's and cumprod's test for zeros, a full
// max's test for a NaN result, as_strided's span of storage positions) take a data-free path on
// meta tensors (derivative_helpers.cpp) rather than raising in item().
TEST_CASE("meta autograd: backward formulas that branch on values work on meta", "[meta]") {
  using Fn = std::function<at::Tensor(const at::Tensor&)>;
  const std::vector<std::pair<const char*, Fn>> cases = {
      {"prod", [](const at::Tensor& x) { return x.prod(); }},
      {"prod.dim_int", [](const at::Tensor& x) { return x.prod(1, false); }},
      {"prod.dim_int keepdim", [](const at::Tensor& x) { return x.prod(0, true); }},
      {"cumprod", [](const at::Tensor& x) { return x.cumprod(1); }},
      {"max", [](const at::Tensor& x) { return x.max(); }},
      {"min", [](const at::Tensor& x) { return x.min(); }},
      {"as_strided", [](const at::Tensor& x) { return x.as_strided({2, 2}, {1, 3}, 1); }},
      {"as_strided overlapping", [](const at::Tensor& x) { return x.as_strided({3, 3}, {1, 1}, 2); }},
      {"max_unpool2d", [](const at::Tensor& x) {
         at::Tensor idx = x.is_meta() ? at::empty({1, 1, 4, 3}, kMetaOpts.dtype(at::kLong))
                                      : at::tensor({0, 2, 2, 4, 5, 5, 7, 8, 8, 10, 11, 0}, at::kLong).view({1, 1, 4, 3});
         return at::max_unpool2d(x.view({1, 1, 4, 3}), idx, {3, 4});
       }},
  };
  for (const auto& [name, f] : cases) {
    INFO(name);
    // A transposed [4, 3] input without zeros (the CPU takes the zero-free formulas, as meta does).
    at::Tensor xc = (at::rand({3, 4}, at::kDouble) + 0.5).t().requires_grad_();
    at::Tensor xm = xc.detach().to(at::kMeta).requires_grad_();
    at::Tensor yc = f(xc), ym = f(xm);
    same_geometry(ym, yc);
    at::Tensor gc = at::ones_like(yc), gm = at::ones_like(ym);
    auto dc = torch::autograd::grad({yc}, {xc}, {gc});
    auto dm = torch::autograd::grad({ym}, {xm}, {gm});
    same_geometry(dm[0], dc[0]);
  }
  // Anomaly mode looks for NaN in every gradient: a meta gradient has none to look for.
  {
    torch::autograd::DetectAnomalyGuard guard;
    at::Tensor xm = at::empty({4, 3}, kMetaOpts).requires_grad_();
    (xm.prod() * xm.sum()).backward();
    CHECK(xm.grad().is_meta());
    CHECK(xm.grad().sizes() == xm.sizes());
  }
}

namespace {
// A custom Function whose backward reads a value: on meta it must raise the [item] error from
// inside backward(), not crash.
struct ScaleByFirst : torch::autograd::Function<ScaleByFirst> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::Tensor x) {
    ctx->save_for_backward({x});
    return x * 2;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::variable_list g) {
    const at::Tensor x = ctx->get_saved_variables()[0];
    return {g[0] * x.reshape({-1})[0].item<double>()};
  }
};
}  // namespace

TEST_CASE("meta autograd: a backward that needs values raises a clear error", "[meta]") {
  at::Tensor xc = at::rand({3}).requires_grad_();
  ScaleByFirst::apply(xc).sum().backward();
  CHECK(xc.grad().sizes().vec() == std::vector<int64_t>{3});  // the CPU runs it
  at::Tensor xm = at::empty({3}, kMetaOpts).requires_grad_();
  at::Tensor y = ScaleByFirst::apply(xm).sum();
  CHECK(y.is_meta());
  const std::string msg = message_of([&] { y.backward(); });
  CHECK(contains(msg, "[item]"));
  CHECK(contains(msg, "meta tensors have no data"));
  CHECK_FALSE(xm.grad().defined());
  // So does anything that returns a number computed from the gradients.
  at::Tensor p = at::empty({4}, kMetaOpts).requires_grad_();
  p.sum().backward();
  CHECK(contains(message_of([&] { (void)torch::nn::utils::clip_grad_norm_(p, 1.0); }), "meta tensors have no data"));
}

TEST_CASE("meta autograd: SGD and Adam steps on meta parameters", "[meta]") {
  auto train = [](torch::nn::Sequential& net, torch::optim::Optimizer& opt, bool meta) {
    const auto o = meta ? kMetaOpts : at::TensorOptions();
    for (int step = 0; step < 2; ++step) {
      opt.zero_grad();
      at::Tensor x = meta ? at::empty({5, 8}, o) : at::randn({5, 8}, o);
      at::Tensor t = meta ? at::empty({5}, o.dtype(at::kLong)) : at::randint(0, 4, {5}, o.dtype(at::kLong));
      at::cross_entropy_loss(net->forward(x), t).backward();
      opt.step();
    }
  };
  SECTION("SGD with momentum, weight decay and Nesterov") {
    auto opts = torch::optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-4).nesterov(true);
    auto cpu = make_mlp(at::kFloat), meta = make_mlp(at::kFloat);
    meta->to(at::Device(at::kMeta));
    torch::optim::SGD oc(cpu->parameters(), opts), om(meta->parameters(), opts);
    train(cpu, oc, false);
    train(meta, om, true);
    same_grads(*meta, *cpu);
    const auto pm = meta->parameters(), pc = cpu->parameters();
    for (size_t i = 0; i < pc.size(); ++i) same_geometry(pm[i].detach(), pc[i].detach());
  }
  SECTION("Adam with amsgrad and AdamW") {
    auto cpu = make_mlp(at::kFloat), meta = make_mlp(at::kFloat);
    meta->to(at::Device(at::kMeta));
    torch::optim::Adam oc(cpu->parameters(), torch::optim::AdamOptions(1e-3).amsgrad(true)),
        om(meta->parameters(), torch::optim::AdamOptions(1e-3).amsgrad(true));
    train(cpu, oc, false);
    train(meta, om, true);
    same_grads(*meta, *cpu);
    auto cpu2 = make_mlp(at::kFloat), meta2 = make_mlp(at::kFloat);
    meta2->to(at::Device(at::kMeta));
    torch::optim::AdamW oc2(cpu2->parameters(), torch::optim::AdamWOptions(1e-3)),
        om2(meta2->parameters(), torch::optim::AdamWOptions(1e-3));
    train(cpu2, oc2, false);
    train(meta2, om2, true);
    same_grads(*meta2, *cpu2);
    for (const auto& p : meta2->parameters()) CHECK(p.is_meta());
  }
}

// Composites that read values on the CPU (offsets, the count of true mask elements, the widest
// scatter target, NaN test elements, index and weight checks) but whose results' shapes do not
// depend on them: on meta they skip the reads and give the CPU's sizes, dtypes and strides, and
// gradients reach every differentiable input with its shape. (The generated [meta] tests compare
// their ops.yaml samples; these add gradients and the arguments the samples leave out.)
TEST_CASE("meta: composites that read values on the CPU compute shapes on meta, with gradients", "[meta]") {
  auto both = [](const char* name, const std::function<std::vector<at::Tensor>(bool)>& f) {
    INFO(name);
    const auto c = f(false), m = f(true);
    REQUIRE(c.size() == m.size());
    for (size_t i = 0; i < c.size(); ++i) {
      INFO("result " << i);
      same_geometry(m[i], c[i]);
    }
  };
  // meta ? an empty meta tensor : the CPU tensor, of one geometry.
  auto on = [](bool meta, const at::Tensor& cpu) { return meta ? cpu.detach().to(at::kMeta) : cpu; };
  for (int64_t mode : {0, 1, 2})
    for (bool last : {false, true}) {
      INFO("embedding_bag mode " << mode << " include_last_offset " << last);
      both("embedding_bag", [&](bool meta) {
        at::Tensor w = on(meta, at::randn({10, 3}, at::kDouble)).requires_grad_();
        at::Tensor idx = on(meta, at::tensor({1, 4, 4, 9, 0, 2, 7}, at::kLong));
        at::Tensor off = on(meta, at::tensor({0, 3, 3, 6}, at::kLong));  // an empty bag among them
        std::optional<at::Tensor> psw;
        if (mode == 0) psw = on(meta, at::rand({7}, at::kDouble)).requires_grad_();
        auto [out, offset2bag, bag_size, max_indices] =
            at::embedding_bag(w, idx, off, false, mode, false, psw, last, mode == 1 ? std::optional<int64_t>(4) : std::nullopt);
        out.sum().backward();
        std::vector<at::Tensor> r{out, offset2bag, bag_size, max_indices, w.grad()};
        if (psw) r.push_back(psw->grad());
        return r;
      });
    }
  both("isin with NaN test elements", [&](bool meta) {
    at::Tensor e = on(meta, at::tensor({1.0, 2.0, NAN, 4.0, 5.0, 6.0}).view({2, 3}).t());
    at::Tensor t = on(meta, at::tensor({NAN, 2.0, NAN}));
    return std::vector<at::Tensor>{at::isin(e, t), at::isin(e, t, false, true), at::isin(e, 2.0), at::isin(3, t)};
  });
  both("cov with frequency and observation weights", [&](bool meta) {
    at::Tensor x = on(meta, at::randn({3, 6}, at::kDouble)).requires_grad_();
    at::Tensor fw = on(meta, at::tensor({1, 2, 1, 3, 1, 1}, at::kLong));
    at::Tensor aw = on(meta, at::rand({6}, at::kDouble) + 0.1);
    at::Tensor c = at::cov(x, 1, fw, aw);
    c.sum().backward();
    return std::vector<at::Tensor>{c, at::cov(x.detach()[0]), at::corrcoef(x.detach()), x.grad()};
  });
  both("masked_scatter", [&](bool meta) {
    at::Tensor self = on(meta, at::randn({3, 4}, at::kDouble)).requires_grad_();
    at::Tensor mask = on(meta, at::tensor({true, false, true, true}));
    at::Tensor src = on(meta, at::randn({2, 7}, at::kDouble)).requires_grad_();
    at::Tensor r = at::masked_scatter(self, mask, src);
    r.sum().backward();
    at::Tensor inplace = on(meta, at::zeros({3, 4}, at::kDouble)).masked_scatter_(mask, src.detach());
    return std::vector<at::Tensor>{r, self.grad(), src.grad(), inplace};
  });
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    INFO(reduce);
    both("scatter_reduce", [&](bool meta) {
      at::Tensor self = on(meta, at::rand({5, 3}, at::kDouble) + 0.5).requires_grad_();
      at::Tensor index = on(meta, at::tensor({0, 4, 4, 1, 0, 0, 2, 2, 2, 3, 4, 0}, at::kLong).view({4, 3}));
      at::Tensor src = on(meta, at::rand({4, 3}, at::kDouble) + 0.5).requires_grad_();
      at::Tensor r = at::scatter_reduce(self, 0, index, src, reduce, false);
      r.sum().backward();
      return std::vector<at::Tensor>{r, self.grad(), src.grad()};
    });
  }
  both("max_unpool3d", [&](bool meta) {
    at::Tensor x = on(meta, at::randn({1, 2, 2, 2, 2}, at::kDouble)).requires_grad_();
    at::Tensor idx = on(meta, at::randint(0, 27, {1, 2, 2, 2, 2}, at::kLong));
    at::Tensor r = at::max_unpool3d(x, idx, {3, 3, 3}, {1, 1, 1}, {0, 0, 0});
    r.sum().backward();
    return std::vector<at::Tensor>{r, x.grad()};
  });
}

TEST_CASE("meta: ops whose result's shape depends on data raise, naming the op", "[meta]") {
  at::Tensor m = at::empty({6}, kMetaOpts.dtype(at::kLong));
  const std::vector<std::pair<const char*, std::function<void()>>> cases = {
      {"[nonzero]", [&] { (void)at::nonzero(m); }},
      {"[masked_select]", [&] { (void)at::masked_select(m, m.gt(0)); }},
      {"[_unique2]", [&] { (void)at::_unique2(m); }},
      {"[unique_dim]", [&] { (void)at::unique_dim(m, 0); }},
      {"[unique_consecutive]", [&] { (void)at::unique_consecutive(m); }},
      {"[nonzero]", [&] { (void)m.index({m.gt(2)}); }},  // a boolean mask index is its nonzero()
  };
  for (const auto& [op, f] : cases) {
    INFO(op);
    const std::string msg = message_of(f);
    CHECK(msg.rfind(op, 0) == 0);
    CHECK(contains(msg, "meta tensors have no data"));
  }
}
