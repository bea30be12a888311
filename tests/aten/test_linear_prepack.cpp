// The CPU linear's prepacked weights (Note [Prepacked linear weights]) and the storage write
// generation they rest on (Note [Storage write generation]): every way of changing a weight between
// two calls must show in the next result, checked against a float64 reference written apart from
// the kernel, and the cache must actually be used where it should be (its counters).
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include "../../kernels/cpu/linear_prepack.h"
#include "ops/reference_matmul.h"
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <thread>
#include <vector>

namespace prepack_test {

// x @ w^T + b in float64, from the tensors' values as they are now.
at::Tensor reference(const at::Tensor& x, const at::Tensor& w, const at::Tensor* b) {
  at::Tensor x2 = x.reshape({-1, x.size(-1)});
  at::Tensor r = ember_test::ref::mm(x2, w.t());
  if (b) r = r + b->to(at::kDouble);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end() - 1);
  shape.push_back(w.size(0));
  return r.reshape(shape);
}

// (No Catch2 assertion inside: the threads test calls it off the main thread.)
double max_rel_err(const at::Tensor& got, const at::Tensor& ref) {
  at::Tensor g = got.to(at::kDouble).contiguous(), r = ref.to(at::kDouble).contiguous();
  if (g.sizes() != r.sizes()) return INFINITY;
  double worst = 0;
  const double* gp = g.const_data_ptr<double>();
  const double* rp = r.const_data_ptr<double>();
  for (int64_t i = 0; i < g.numel(); ++i) {
    if (std::isnan(gp[i]) != std::isnan(rp[i])) return INFINITY;
    if (!std::isnan(gp[i])) worst = std::max(worst, std::fabs(gp[i] - rp[i]) / (1.0 + std::fabs(rp[i])));
  }
  return worst;
}

void check(const at::Tensor& x, const at::Tensor& w, const at::Tensor* b) {
  at::Tensor y = b ? torch::linear(x, w, *b) : torch::linear(x, w);
  CHECK(max_rel_err(y, reference(x, w, b)) < 1e-4);
}

at::native::LinearPrepackStats stats() { return at::native::linear_prepack_stats(); }

// The cases below make sure packing is on whatever EMBER_LINEAR_PREPACK_MB says, and keep a copy even where oneDNN's layout is plain row-major (an AVX2 CPU), so that the
// bookkeeping is tested on every CPU.
struct PackingOn {
  size_t old_mb;
  bool old_plain;
  PackingOn() : old_mb(at::native::set_linear_prepack_limit_mb(256)), old_plain(at::native::set_linear_prepack_keep_plain(true)) {}
  ~PackingOn() {
    at::native::set_linear_prepack_limit_mb(old_mb);
    at::native::set_linear_prepack_keep_plain(old_plain);
  }
};

bool escaped(const at::Tensor& t) { return t.storage().unsafeGetStorageImpl()->escaped(); }

}  // namespace prepack_test

using namespace prepack_test;

TEST_CASE("linear prepack: packed after the second unchanged call, and right", "[linear_prepack]") {
  PackingOn on;
  torch::NoGradGuard no_grad;
  torch::manual_seed(1);
  auto w = torch::randn({320, 256}), b = torch::randn({320}), x = torch::randn({48, 256});
  const auto s0 = stats();
  check(x, w, &b);  // first sighting
  check(x, w, &b);  // second: packs
  const auto s1 = stats();
  CHECK(s1.packs == s0.packs + 1);
  check(x, w, &b);  // uses the copy
  check(x, w, nullptr);
  check(torch::randn({7, 256}), w, &b);            // another batch size on the same copy
  check(torch::randn({2, 3, 5, 256}), w, &b);      // leading dimensions flattened
  const auto s2 = stats();
  CHECK(s2.hits >= s1.hits + 4);
  CHECK(s2.packs == s1.packs);
  CHECK(s2.packed_bytes >= size_t(320 * 256 * 4));
}

TEST_CASE("linear prepack: every way of writing the weight shows in the next call", "[linear_prepack]") {
  PackingOn on;
  torch::NoGradGuard no_grad;
  torch::manual_seed(2);
  auto w = torch::randn({256, 512}), b = torch::randn({256}), x = torch::randn({32, 512});
  auto warm = [&] {  // make sure a packed copy exists before each write
    check(x, w, &b);
    check(x, w, &b);
    const auto h = stats().hits;
    check(x, w, &b);
    CHECK(stats().hits == h + 1);
  };
  warm();
  w.mul_(2);  // an in-place op
  check(x, w, &b);
  warm();
  w.data().add_(1);  // through data(), which has its own version counter
  check(x, w, &b);
  warm();
  w[17].fill_(0.25);  // a view's in-place op
  check(x, w, &b);
  warm();
  w.copy_(torch::randn({256, 512}));  // copy_
  check(x, w, &b);
  warm();
  at::add_out(w, w, w);  // out=
  check(x, w, &b);
  warm();
  w.t().t()[3][4].fill_(std::nanf(""));  // a view of a view; the NaN must reach the output
  at::Tensor y = torch::linear(x, w, b);
  CHECK(std::isnan(y[0][3].item<float>()));
  check(x, w, &b);
  warm();
  b.add_(10);  // the bias is read every call, never packed
  check(x, w, &b);
  warm();
  CHECK_FALSE(escaped(w));
  // A raw pointer: written now, and kept: the weight is never packed again, so a write through
  // the kept pointer after any number of calls shows too.
  float* p = w.data_ptr<float>();
  CHECK(escaped(w));
  p[12345] = 1e3f;
  check(x, w, &b);
  const auto s0 = stats();
  for (int i = 0; i < 3; ++i) {
    check(x, w, &b);
    p[i * 513] = float(-7 * i);
    check(x, w, &b);
  }
  CHECK(stats().hits == s0.hits);
  CHECK(stats().packs == s0.packs);
  // Each public mutable accessor marks its storage, through any view.
  auto w2 = torch::randn({256, 512});
  static_cast<float*>(w2[3].mutable_data_ptr())[7] = -5e2f;
  CHECK(escaped(w2));
  auto w3 = torch::randn({256, 512});
  w3.t().accessor<float, 2>()[1][2] = 4.f;
  CHECK(escaped(w3));
  auto w4 = torch::randn({256, 512});
  static_cast<float*>(w4.storage().mutable_data())[0] = 1.f;
  CHECK(escaped(w4));
  for (int i = 0; i < 3; ++i) {
    check(x, w2, &b);
    check(x, w3, &b);
    check(x, w4, &b);
  }
  CHECK(stats().packs == s0.packs);
}

// The library's own code (factories, nn init, printing, save and load, copies, item) hands no
// pointer out, so a weight it made stays packable; the public accessors' pointers are the escape.
TEST_CASE("linear prepack: a weight the library made, loaded, copied and printed stays packable", "[linear_prepack]") {
  PackingOn on;
  torch::NoGradGuard no_grad;
  torch::manual_seed(7);
  torch::nn::Linear lin(512, 300);
  std::ostringstream printed;
  printed << lin->weight;
  (void)lin->weight[3][4].item<float>();
  std::stringstream file;
  torch::save(lin, file);
  torch::nn::Linear loaded(512, 300);
  torch::load(loaded, file);
  auto x = torch::randn({16, 512});
  for (const at::Tensor& w : {lin->weight, loaded->weight, lin->weight.clone(), lin->weight.to(at::kDouble).to(at::kFloat),
                              lin->weight.t().contiguous().t().contiguous(), torch::cat({lin->weight, loaded->weight})}) {
    CHECK_FALSE(escaped(w));
    const auto s0 = stats();
    const at::Tensor* b = w.size(0) == 300 ? &lin->bias : nullptr;  // cat's weight is [600, 512]
    for (int i = 0; i < 3; ++i) check(x, w, b);
    CHECK(stats().packs == s0.packs + 1);
    CHECK(stats().hits >= s0.hits + 1);
  }
  CHECK(torch::allclose(lin->weight, loaded->weight, 0, 0));
}

TEST_CASE("linear prepack: on by default, off at 0 MiB", "[linear_prepack]") {
  torch::NoGradGuard no_grad;
  const bool old_plain = at::native::set_linear_prepack_keep_plain(true);
  const char* env = std::getenv("EMBER_LINEAR_PREPACK_MB");
  const size_t mb = at::native::set_linear_prepack_limit_mb(0);  // reads back the bound in force
  CHECK(mb == (env && *env ? std::strtoull(env, nullptr, 10) : 256));
  auto w = torch::randn({256, 512}), x = torch::randn({16, 512});
  auto s0 = stats();
  for (int i = 0; i < 3; ++i) check(x, w, nullptr);
  CHECK(stats().packs == s0.packs);  // off
  at::native::set_linear_prepack_limit_mb(mb);
  if (mb > 0) {
    s0 = stats();
    for (int i = 0; i < 3; ++i) check(x, w, nullptr);
    CHECK(stats().packs == s0.packs + 1);
  }
  at::native::set_linear_prepack_keep_plain(old_plain);
}

TEST_CASE("linear prepack: memory the library does not own is never packed", "[linear_prepack]") {
  PackingOn on;
  torch::NoGradGuard no_grad;
  std::vector<float> blob(128 * 1024);
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = std::sin(0.01f * float(i));
  auto w = torch::from_blob(blob.data(), {128, 1024});
  auto x = torch::randn({16, 1024});
  const auto s0 = stats();
  for (int i = 0; i < 3; ++i) check(x, w, nullptr);
  blob[5] = 100.f;  // the owner writes behind the library's back
  check(x, w, nullptr);
  CHECK(stats().packs == s0.packs);
}

TEST_CASE("linear prepack: not while recording autograd, and gradients stay right", "[linear_prepack]") {
  PackingOn on;
  torch::manual_seed(3);
  auto w = torch::randn({256, 256}).requires_grad_(true), x = torch::randn({8, 256});
  const auto s0 = stats();
  for (int i = 0; i < 3; ++i) {
    at::Tensor y = torch::linear(x, w);
    y.sum().backward();
  }
  CHECK(stats().packs == s0.packs);
  CHECK(stats().hits == s0.hits);
  // dL/dW of sum(x W^T) is the column sums of x repeated per row, accumulated 3 times.
  at::Tensor expect = x.sum(0).unsqueeze(0).expand({256, 256}) * 3;
  CHECK(max_rel_err(w.grad(), expect.to(at::kDouble)) < 1e-4);
  {
    torch::NoGradGuard no_grad;
    for (int i = 0; i < 3; ++i) check(x, w, nullptr);  // the same weight in inference packs
  }
  CHECK(stats().packs == s0.packs + 1);
}

TEST_CASE("linear prepack: a freed weight gives its copy back; small and odd cases pass by", "[linear_prepack]") {
  PackingOn on;
  torch::NoGradGuard no_grad;
  const size_t before = stats().packed_bytes;
  {
    auto w = torch::randn({512, 512}), x = torch::randn({4, 512});
    for (int i = 0; i < 3; ++i) check(x, w, nullptr);
    CHECK(stats().packed_bytes >= before + 512 * 512 * 4);
  }
  CHECK(stats().packed_bytes == before);
  const auto s0 = stats();
  auto small = torch::randn({16, 16}), xs = torch::randn({4, 16});
  for (int i = 0; i < 3; ++i) check(xs, small, nullptr);  // under the size threshold
  auto wt = torch::randn({512, 512}).t();                   // not contiguous
  for (int i = 0; i < 3; ++i) check(torch::randn({4, 512}), wt, nullptr);
  auto wd = torch::randn({512, 512}, torch::kDouble);       // not float32
  for (int i = 0; i < 3; ++i) {
    at::Tensor xd = torch::randn({4, 512}, torch::kDouble);
    CHECK(max_rel_err(torch::linear(xd, wd), reference(xd, wd, nullptr)) < 1e-12);
  }
  CHECK(stats().packs == s0.packs);
  // Empty batch and special values through the packed path.
  auto w = torch::randn({256, 256}), b = torch::randn({256});
  for (int i = 0; i < 3; ++i) check(torch::randn({2, 256}), w, &b);
  CHECK(torch::linear(torch::empty({0, 256}), w, b).sizes() == std::vector<int64_t>{0, 256});
  auto xs2 = torch::randn({3, 256});
  xs2[1][0] = INFINITY;
  xs2[2][5] = -0.0f;
  check(xs2, w, &b);
}

TEST_CASE("linear prepack: threads share the cache", "[linear_prepack]") {
  PackingOn on;
  torch::NoGradGuard no_grad;
  torch::manual_seed(4);
  auto w = torch::randn({384, 256}), b = torch::randn({384});
  std::vector<at::Tensor> xs;
  for (int t = 0; t < 4; ++t) xs.push_back(torch::randn({24, 256}));
  std::vector<at::Tensor> refs;
  for (auto& x : xs) refs.push_back(reference(x, w, &b));
  std::vector<double> worst(4, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      torch::NoGradGuard g;
      for (int i = 0; i < 20; ++i) worst[t] = std::max(worst[t], max_rel_err(torch::linear(xs[t], w, b), refs[t]));
    });
  for (auto& t : ts) t.join();
  for (double e : worst) CHECK(e < 1e-4);
}

TEST_CASE("linear prepack: a pointer taken before packing and written after it is always seen", "[linear_prepack]") {
  PackingOn on;
  torch::NoGradGuard no_grad;
  torch::manual_seed(5);
  auto w = torch::randn({256, 256}), x = torch::randn({8, 256});
  float* p = w.data_ptr<float>();  // taken once, written between the calls
  const auto s0 = stats();
  for (int i = 0; i < 4; ++i) {
    check(x, w, nullptr);
    p[i * 257] = float(100 + i);
    check(x, w, nullptr);
  }
  CHECK(stats().packs == s0.packs);
  CHECK(stats().hits == s0.hits);
  // Taken after the copy was made: the copy is not used from then on.
  auto w2 = torch::randn({256, 256});
  for (int i = 0; i < 2; ++i) check(x, w2, nullptr);
  const auto s1 = stats();
  CHECK(s1.packs == s0.packs + 1);
  float* p2 = w2.data_ptr<float>();
  for (int i = 0; i < 3; ++i) {
    check(x, w2, nullptr);
    p2[i * 300] = -3.5f;
  }
  check(x, w2, nullptr);
  CHECK(stats().hits == s1.hits);
}

TEST_CASE("linear prepack: a plain row-major layout is declined unless kept, and both paths are right", "[linear_prepack]") {
  torch::NoGradGuard no_grad;
  torch::manual_seed(6);
  auto w = torch::randn({320, 256}), b = torch::randn({320}), x = torch::randn({48, 256});
  const size_t old_mb = at::native::set_linear_prepack_limit_mb(256);
  const auto s0 = stats();
  for (int i = 0; i < 3; ++i) check(x, w, &b);  // declined where oneDNN's layout is plain: the plain path
  const auto s1 = stats();
  CHECK(s1.packs <= s0.packs + 1);
  auto w2 = torch::randn({320, 256});
  at::native::set_linear_prepack_keep_plain(true);
  for (int i = 0; i < 3; ++i) check(x, w2, &b);  // kept whatever the layout
  CHECK(stats().packs == s1.packs + 1);
  at::native::set_linear_prepack_keep_plain(false);
  at::native::set_linear_prepack_limit_mb(old_mb);
}

TEST_CASE("storage uid: drawn on first use, never 0, stable, distinct, one per storage under races", "[linear_prepack]") {
  at::Tensor a = at::ones({4}), b = at::ones({4});
  c10::StorageImpl* sa = a.storage().unsafeGetStorageImpl();
  c10::StorageImpl* sb = b.storage().unsafeGetStorageImpl();
  const uint64_t ua = sa->uid(), ub = sb->uid();
  CHECK(ua != 0);
  CHECK(ub != 0);
  CHECK(ua != ub);
  CHECK(sa->uid() == ua);
  CHECK(a.view({2, 2}).storage().unsafeGetStorageImpl()->uid() == ua);  // views share it
  // Eight threads asking a fresh storage for its uid at once all get the same one.
  for (int round = 0; round < 20; ++round) {
    at::Tensor c = at::zeros({8});
    c10::StorageImpl* sc = c.storage().unsafeGetStorageImpl();
    std::vector<uint64_t> got(8, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) threads.emplace_back([&, t] { got[t] = sc->uid(); });
    for (auto& th : threads) th.join();
    for (uint64_t g : got) CHECK(g == got[0]);
    CHECK(got[0] != 0);
    CHECK(got[0] != ua);
  }
}

TEST_CASE("linear prepack: ops that only read a tensor leave its write generation alone", "[linear_prepack]") {
  // A read through the library's internal mutable accessor counted as a write and would drop a
  // packed copy of a weight that a convolution or a batch norm also reads.
  const auto writes = [](const at::Tensor& t) { return t.storage().unsafeGetStorageImpl()->writes(); };
  torch::manual_seed(4);
  auto x = torch::randn({2, 3, 9, 9}, torch::requires_grad()), w = torch::randn({4, 3, 3, 3}, torch::requires_grad());
  auto b = torch::randn({4}, torch::requires_grad());
  for (bool cl : {false, true}) {
    at::Tensor xi = cl ? x.detach().contiguous(at::MemoryFormat::ChannelsLast).requires_grad_(true) : x;
    const uint64_t wx = writes(xi), ww = writes(w), wb = writes(b);
    at::Tensor y = torch::conv2d(xi, w, b, 1, 1);
    at::Tensor bw = torch::randn({4}), bb = torch::randn({4});
    const uint64_t wbw = writes(bw), wbb = writes(bb);
    at::Tensor z = at::batch_norm(y, bw, bb, {}, {}, true, 0.1, 1e-5, false);
    const uint64_t wy = writes(y);
    z.sum().backward();
    INFO((cl ? "channels-last" : "contiguous"));
    CHECK(writes(xi) == wx);
    CHECK(writes(w) == ww);
    CHECK(writes(b) == wb);
    CHECK(writes(y) == wy);
    CHECK(writes(bw) == wbw);
    CHECK(writes(bb) == wbb);
    CHECK(xi.grad().defined());
  }
  // Pooling, softmax, a scan and an LSTM (its step product packs W_hh) forward and backward.
  auto p = torch::randn({2, 3, 8, 8}, torch::requires_grad());
  auto nn_lstm = torch::nn::LSTM(torch::nn::LSTMOptions(8, 16));
  auto seq = torch::randn({5, 3, 8}, torch::requires_grad());
  const uint64_t wp = writes(p), ws = writes(seq);
  std::vector<uint64_t> wl;
  for (const auto& t : nn_lstm->parameters()) wl.push_back(writes(t));
  at::Tensor loss = torch::max_pool2d(p, 2).sum() + torch::softmax(p, -1).pow(2).sum() + p.cumsum(1).sum() +
                    std::get<0>(nn_lstm->forward(seq)).pow(2).sum();
  loss.backward();
  CHECK(writes(p) == wp);
  CHECK(writes(seq) == ws);
  size_t i = 0;
  for (const auto& t : nn_lstm->parameters()) CHECK(writes(t) == wl[i++]);
}
