// The PrivateUse1 device and its generated CPU fallback (Note [PrivateUse1 fallback] in
// aten/src/PrivateUse1.cpp). A minimal backend lives in this file: host memory from a counting
// allocator and a copy_ kernel; tests register more kernels for a while and restore the table.
// The out-of-tree version (its own library, installed headers) is examples/backend (ctest
// install.backend).
#include <ATen/ATen.h>
#include <ATen/PrivateUse1.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <cstdlib>
#include <string>

namespace {
using ember::privateuse1::fallback_count;

std::atomic<int64_t> g_pu1_live_bytes{0};
std::atomic<int64_t> g_pu1_copies{0};

struct Pu1TestAllocator final : c10::Allocator {
  struct Ctx {
    void* p;
    size_t n;
  };
  static void release(void* ctx) {
    auto* c = static_cast<Ctx*>(ctx);
    g_pu1_live_bytes -= static_cast<int64_t>(c->n);
    std::free(c->p);
    delete c;
  }
  c10::DataPtr allocate(size_t n) override {
    void* p = std::aligned_alloc(64, (n + 63) / 64 * 64 + 64);
    g_pu1_live_bytes += static_cast<int64_t>(n);
    return c10::DataPtr(p, new Ctx{p, n}, &release, c10::Device(c10::kPrivateUse1, 0));
  }
  void copy_data(void* dst, const void* src, size_t n) const override { if (n) std::memcpy(dst, src, n); }
};
Pu1TestAllocator g_pu1_allocator;

// The device's memory is host memory, so a CPU tensor over the same bytes does the copy.
at::Tensor pu1_host_alias(const at::Tensor& t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), at::TensorOptions().dtype(t.scalar_type()));
}
at::Tensor& pu1_copy(at::Tensor& self, const at::Tensor& src, bool) {
  ++g_pu1_copies;
  at::Tensor d = self.device().is_privateuseone() ? pu1_host_alias(self) : self;
  at::Tensor s = src.device().is_privateuseone() ? pu1_host_alias(src) : src;
  d.copy_(s);
  return self;
}

at::ops::copy_::schema* g_pu1_initial_copy = nullptr;  // the slot's kernel before the backend came

// Installs the test backend (allocator + copy_) once; it stays for the rest of the process.
void pu1_backend() {
  static const bool done = [] {
    c10::SetAllocator(c10::kPrivateUse1, &g_pu1_allocator);
    g_pu1_initial_copy = ember::register_kernel<at::ops::copy_>(c10::DispatchKey::PrivateUse1, &pu1_copy);
    return true;
  }();
  (void)done;
}

const c10::Device kPu1(c10::kPrivateUse1, 0);

// Sets a PrivateUse1 kernel for the scope of a test, then puts back what was there.
template <typename Op>
struct Pu1Kernel {
  typename Op::schema* prev;
  explicit Pu1Kernel(typename Op::schema* fn) : prev(ember::register_kernel<Op>(c10::DispatchKey::PrivateUse1, fn)) {}
  ~Pu1Kernel() { ember::register_kernel<Op>(c10::DispatchKey::PrivateUse1, prev); }
};

std::string pu1_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what();
  }
  return "";
}
bool pu1_starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// A device result equal to the CPU reference: device, dtype, sizes, values (NaN where NaN).
bool pu1_same(const at::Tensor& dev, const at::Tensor& ref) {
  if (!dev.device().is_privateuseone()) return false;
  at::Tensor h = dev.cpu();
  return h.scalar_type() == ref.scalar_type() && h.sizes() == ref.sizes() && at::allclose(h, ref, 1e-6, 1e-6, true);
}

std::atomic<int> g_pu1_add_calls{0};
at::Tensor pu1_add(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  ++g_pu1_add_calls;
  return ember::privateuse1::cpu_fallback<at::ops::add_Tensor>()(self, other, alpha);
}
}  // namespace

TEST_CASE("privateuse1: device strings and the backend's name", "[privateuse1]") {
  const std::string name = c10::get_privateuse1_backend();
  CHECK((name == "privateuseone" || !name.empty()));
  c10::Device d(name + ":1");
  CHECK(d.is_privateuseone());
  CHECK(d.index() == 1);
  CHECK(d.str() == name + ":1");
  CHECK(c10::Device("privateuseone:0") == c10::Device(c10::kPrivateUse1, 0));
  std::string upper = name;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(c10::get_privateuse1_backend(false) == upper);
  CHECK(std::string(c10::toString(c10::DispatchKey::PrivateUse1)) == "PrivateUse1");
  CHECK(pu1_starts(pu1_message([] { c10::Device("nosuchdevice:0"); }), "[Device] "));
}

TEST_CASE("privateuse1: tensors move to the device and back through the backend's copy_", "[privateuse1]") {
  pu1_backend();
  const int64_t live = g_pu1_live_bytes.load();
  {
    at::Tensor a = at::arange(12, at::kFloat).reshape({3, 4});
    const int64_t copies = g_pu1_copies.load();
    at::Tensor d = a.to(kPu1);
    CHECK(d.device() == kPu1);
    CHECK(d.device().is_privateuseone());
    CHECK(d.is_privateuseone());
    CHECK(d.toString() == "PrivateUse1FloatType");
    CHECK(at::empty({2}, at::TensorOptions().device(c10::kMeta).dtype(at::kDouble)).toString() == "MetaDoubleType");
    CHECK(g_pu1_live_bytes.load() - live == 48);
    CHECK(at::equal(d.cpu(), a));
    CHECK(g_pu1_copies.load() - copies == 2);
    // Views are views of the device memory (device-generic kernels, no fallback).
    ember::privateuse1::reset_fallback_counts();
    at::Tensor v = d.t().select(0, 1);
    CHECK(v.is_alias_of(d));
    CHECK(at::equal(v.cpu(), a.t().select(0, 1)));
    CHECK(ember::privateuse1::fallback_counts().empty());
    // Transposed and expanded device tensors copy by value.
    CHECK(at::equal(d.t().contiguous().cpu(), a.t().contiguous()));
    CHECK(at::equal(d.select(0, 0).expand({2, 4}).cpu(), a.select(0, 0).expand({2, 4})));
    // 0-dim and empty tensors.
    CHECK(at::equal(at::scalar_tensor(2.5).to(kPu1).cpu(), at::scalar_tensor(2.5)));
    CHECK(at::empty({0, 3}).to(kPu1).cpu().sizes() == at::IntArrayRef{0, 3});
  }
  CHECK(g_pu1_live_bytes.load() == live);
}

TEST_CASE("privateuse1: a registered kernel is called, and replaces the fallback", "[privateuse1]") {
  pu1_backend();
  at::Tensor a = at::randn({4, 5}), b = at::randn({4, 5});
  at::Tensor da = a.to(kPu1), db = b.to(kPu1);
  CHECK(ember::privateuse1::falls_back<at::ops::add_Tensor>());
  ember::privateuse1::reset_fallback_counts();
  {
    Pu1Kernel<at::ops::add_Tensor> k(&pu1_add);
    CHECK_FALSE(ember::privateuse1::falls_back<at::ops::add_Tensor>());
    const int calls = g_pu1_add_calls.load();
    at::Tensor r = da + db;
    CHECK(g_pu1_add_calls.load() == calls + 1);
    CHECK(pu1_same(r, a + b));
    // The kernel deferred to the generated fallback, which counts itself.
    CHECK(fallback_count("add.Tensor") == 1);
  }
  CHECK(ember::privateuse1::falls_back<at::ops::add_Tensor>());
  // Library blocks register the same way.
  ember::Library lib(c10::DispatchKey::PrivateUse1);
  auto* prev = ember::register_kernel<at::ops::add_Tensor>(c10::DispatchKey::PrivateUse1, nullptr);
  lib.impl<at::ops::add_Tensor>(&pu1_add);
  const int calls = g_pu1_add_calls.load();
  (void)(da + db);
  CHECK(g_pu1_add_calls.load() == calls + 1);
  ember::register_kernel<at::ops::add_Tensor>(c10::DispatchKey::PrivateUse1, prev);
}

TEST_CASE("privateuse1: functional ops fall back to the CPU with the CPU's results", "[privateuse1]") {
  pu1_backend();
  ember::privateuse1::reset_fallback_counts();
  at::Tensor a = at::randn({3, 5}), b = at::randn({5, 4}), i = at::randint(0, 3, {6});
  at::Tensor da = a.to(kPu1), db = b.to(kPu1), di = i.to(kPu1);
  CHECK(pu1_same(da + 1, a + 1));
  CHECK(pu1_same(at::exp(da), at::exp(a)));
  CHECK(pu1_same(at::softmax(da, 1), at::softmax(a, 1)));
  CHECK(pu1_same(da.sum(1, true), a.sum(1, true)));
  CHECK(pu1_same(at::mm(da, db), at::mm(a, b)));
  CHECK(pu1_same(at::matmul(da, db), at::matmul(a, b)));
  CHECK(pu1_same(da.t() * 2, a.t() * 2));                      // a transposed device view as input
  CHECK(pu1_same(at::index_select(da, 0, di), at::index_select(a, 0, i)));
  CHECK(pu1_same(at::cat({da, da}, 0), at::cat({a, a}, 0)));  // a tensor list
  CHECK(pu1_same(at::where(da > 0, da, db.t().slice(0, 0, 3).t().t()), at::where(a > 0, a, b.t().slice(0, 0, 3).t().t())));
  auto [v, ix] = at::max(da, 1);
  auto [rv, rix] = at::max(a, 1);
  CHECK((pu1_same(v, rv) && pu1_same(ix, rix)));                // tuples
  std::vector<at::Tensor> parts = at::unbind(da, 0);           // a list result (composite over views)
  CHECK(parts.size() == 3);
  CHECK(pu1_same(parts[2], a[2]));
  CHECK(da.sum().item<float>() == a.sum().item<float>());      // a scalar result
  CHECK(at::equal(da, da));                                    // a bool result
  // 0-dim and empty device tensors.
  CHECK(pu1_same(at::exp(at::scalar_tensor(1.5).to(kPu1)), at::exp(at::scalar_tensor(1.5))));
  CHECK(pu1_same(at::exp(at::empty({0, 4}).to(kPu1)), at::empty({0, 4})));
  // Special values survive the round trips.
  at::Tensor s = at::tensor({0.0f, -0.0f, NAN, INFINITY, -INFINITY, 1e-40f});
  at::Tensor ds = s.to(kPu1);
  CHECK(pu1_same(at::neg(ds), at::neg(s)));
  CHECK(std::signbit(at::neg(ds).cpu()[0].item<float>()));
  // Factories with the device in their options: built on the CPU, placed by empty + copy_.
  CHECK(pu1_same(at::ones({2, 3}, at::TensorOptions().device(kPu1)), at::ones({2, 3})));
  CHECK(pu1_same(at::arange(5, at::TensorOptions().device(kPu1).dtype(at::kLong)), at::arange(5)));
  // What fell back is counted per op.
  CHECK(fallback_count("exp") == 3);
  CHECK(fallback_count("_softmax") == 1);
  CHECK(fallback_count("mm") >= 2);
  CHECK(fallback_count("index_select") == 1);
  CHECK(fallback_count("empty.memory_format") == 0);
  CHECK(fallback_count("transpose.int") == 0);
  CHECK(pu1_starts(pu1_message([] { fallback_count("no_such_op"); }), "[fallback_count] "));
}

TEST_CASE("privateuse1: in-place and out= ops write back into the device tensors", "[privateuse1]") {
  pu1_backend();
  at::Tensor a = at::randn({4, 6}), b = at::randn({4, 6});
  at::Tensor da = a.to(kPu1), db = b.to(kPu1);
  const int64_t version = da._version();
  da.add_(db, 2);
  a.add_(b, 2);
  CHECK(pu1_same(da, a));
  CHECK(da._version() > version);
  // Into a view: the base sees the write.
  da.select(1, 2).mul_(-3);
  a.select(1, 2).mul_(-3);
  CHECK(pu1_same(da, a));
  da.t().slice(0, 1, 5, 2).zero_();
  a.t().slice(0, 1, 5, 2).zero_();
  CHECK(pu1_same(da, a));
  // out=: resized from empty, and into a transposed view.
  at::Tensor out = at::empty({0}, at::TensorOptions().device(kPu1));
  at::mul_out(out, da, db);
  CHECK(pu1_same(out, a * b));
  at::Tensor out_t = at::empty({6, 4}, at::TensorOptions().device(kPu1)).t();
  at::Tensor& r = at::sub_out(out_t, da, db);
  CHECK(r.is_same(out_t));
  CHECK(pu1_same(out_t, a - b));
  CHECK(out_t.stride(0) == 1);
}

TEST_CASE("privateuse1: autograd runs through fallback ops", "[privateuse1]") {
  pu1_backend();
  at::Tensor x = at::randn({5, 4}), w = at::randn({3, 4}), bias = at::randn({3});
  auto run = [](at::Tensor x, at::Tensor w, at::Tensor b) {
    at::Tensor y = at::softmax(at::linear(x, w, b).tanh(), 1);
    return (y * y).sum();
  };
  at::Tensor cw = w.clone().requires_grad_(true), cb = bias.clone().requires_grad_(true);
  at::Tensor dw = w.to(kPu1).requires_grad_(true), db = bias.to(kPu1).requires_grad_(true);
  at::Tensor cl = run(x, cw, cb), dl = run(x.to(kPu1), dw, db);
  CHECK(dl.device() == kPu1);
  CHECK(dl.requires_grad());
  cl.backward();
  dl.backward();
  REQUIRE(dw.grad().defined());
  CHECK(dw.grad().device() == kPu1);
  CHECK(pu1_same(dl, cl));
  CHECK(pu1_same(dw.grad(), cw.grad()));
  CHECK(pu1_same(db.grad(), cb.grad()));
  // nn::Linear + optimizer on the device, against the same on the CPU.
  torch::manual_seed(3);
  torch::nn::Linear cm(4, 2);
  torch::nn::Linear dm(4, 2);
  {
    torch::NoGradGuard ng;
    dm->weight.copy_(cm->weight);
    dm->bias.copy_(cm->bias);
  }
  dm->to(kPu1);
  torch::optim::SGD copt(cm->parameters(), 0.5), dopt(dm->parameters(), 0.5);
  for (int step = 0; step < 2; ++step) {
    copt.zero_grad();
    dopt.zero_grad();
    torch::mse_loss(cm(x), at::ones({5, 2})).backward();
    torch::mse_loss(dm(x.to(kPu1)), at::ones({5, 2}, at::TensorOptions().device(kPu1))).backward();
    copt.step();
    dopt.step();
  }
  CHECK(pu1_same(dm->weight, cm->weight.detach()));
  CHECK(pu1_same(dm->bias, cm->bias.detach()));
}

TEST_CASE("privateuse1: devices do not mix, except 0-dim CPU tensors", "[privateuse1]") {
  pu1_backend();
  at::Tensor a = at::randn({2, 3});
  at::Tensor da = a.to(kPu1);
  const std::string m1 = pu1_message([&] { (void)(da + a); });
  CHECK(pu1_starts(m1, "[add] expected every tensor on one device"));
  CHECK(m1.find("cpu") != std::string::npos);
  CHECK(pu1_starts(pu1_message([&] { (void)(a * da); }), "[mul] "));
  CHECK(pu1_starts(pu1_message([&] { (void)at::mm(da, a.t()); }), "[mm] expected every tensor on one device"));
  CHECK(pu1_starts(pu1_message([&] { (void)at::cat({da, a}); }), "[cat] expected every tensor on one device"));
  CHECK(pu1_starts(pu1_message([&] { da.add_(a); }), "[add_] "));
  // A 0-dim CPU tensor joins as a scalar would.
  CHECK(pu1_same(da * at::scalar_tensor(3.0f), a * 3));
  CHECK(pu1_same(da + at::scalar_tensor(1.0), a + at::scalar_tensor(1.0)));
}

TEST_CASE("privateuse1: a backend without copy_ or allocator raises, naming the op", "[privateuse1]") {
  pu1_backend();
  at::Tensor da = at::randn({2, 3}).to(kPu1);
  {
    auto* prev = ember::register_kernel<at::ops::copy_>(c10::DispatchKey::PrivateUse1, nullptr);
    const std::string m = pu1_message([&] { (void)at::exp(da); });
    CHECK(pu1_starts(m, "[exp] "));
    CHECK(m.find("copy_") != std::string::npos);
    CHECK(pu1_starts(pu1_message([&] { (void)da.cpu(); }), "[copy_] "));
    ember::register_kernel<at::ops::copy_>(c10::DispatchKey::PrivateUse1, prev);
  }
  {
    c10::SetAllocator(c10::kPrivateUse1, nullptr);
    const std::string m = pu1_message([&] { (void)at::exp(da); });
    const std::string m_empty = pu1_message([&] { (void)at::empty({2}, at::TensorOptions().device(kPu1)); });
    c10::SetAllocator(c10::kPrivateUse1, &g_pu1_allocator);
    CHECK(pu1_starts(m, "[exp] expected an allocator"));
    CHECK(pu1_starts(m_empty, "[allocator] no allocator for device type " + c10::get_privateuse1_backend()));
    CHECK(m_empty.find("c10::SetAllocator(c10::kPrivateUse1") != std::string::npos);
  }
  // The fallback can be turned into an error, and back.
  ember::privateuse1::set_fallback_mode(ember::privateuse1::FallbackMode::Error);
  const std::string m = pu1_message([&] { (void)at::exp(da); });
  ember::privateuse1::set_fallback_mode(ember::privateuse1::FallbackMode::Run);
  CHECK(pu1_starts(m, "[exp] "));
  CHECK(m.find("fallback is off") != std::string::npos);
  CHECK(pu1_same(at::exp(da), at::exp(da.cpu())));
  // Before a backend registers copy_, its slot holds a kernel that says what is missing.
  auto* mine = ember::register_kernel<at::ops::copy_>(c10::DispatchKey::PrivateUse1, g_pu1_initial_copy);
  const std::string m2 = pu1_message([&] { (void)da.cpu(); });
  const std::string m3 = pu1_message([&] { (void)at::exp(da); });
  ember::register_kernel<at::ops::copy_>(c10::DispatchKey::PrivateUse1, mine);
  CHECK(g_pu1_initial_copy != nullptr);
  CHECK(pu1_starts(m2, "[copy_] expected the '" + c10::get_privateuse1_backend() + "' backend to register copy_"));
  CHECK(pu1_starts(m3, "[exp] "));
  CHECK(m3.find("copy_") != std::string::npos);
}
