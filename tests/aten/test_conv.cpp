// Convolution and max pooling (kernels/cpu/conv.cpp, kernels/cpu/pool.cpp): float32 (oneDNN)
// forward and backward at network-sized shapes against a float64 reference written here (scatter
// form, apart from the kernels' gather loops), the argument errors, concurrent calls through the
// primitive cache, and max pooling's NaN / -inf / ceil_mode corners with values recorded from
// libtorch 2.15.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

namespace {

struct Geo {
  int64_t s = 1, p = 0, d = 1, g = 1;
};

// out[n, o, oh, ow] = b[o] + sum x[n, ci, oh*s - p + kh*d, ow*s - p + kw*d] * w[o, ci - group start, kh, kw]
at::Tensor ref_conv(const at::Tensor& x_, const at::Tensor& w_, const at::Tensor& b_, Geo q) {
  at::Tensor x = x_.to(at::kDouble).contiguous(), w = w_.to(at::kDouble).contiguous();
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t O = w.size(0), K = w.size(2), L = w.size(3), Cg = C / q.g, Og = O / q.g;
  const int64_t OH = (H + 2 * q.p - q.d * (K - 1) - 1) / q.s + 1, OW = (W + 2 * q.p - q.d * (L - 1) - 1) / q.s + 1;
  at::Tensor y = at::zeros({N, O, OH, OW}, at::kDouble);
  auto X = x.data_ptr<double>(), Wt = w.data_ptr<double>(), Y = y.data_ptr<double>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          double acc = b_.defined() ? b_.to(at::kDouble)[o].item<double>() : 0.0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t a = 0; a < K; ++a)
              for (int64_t e = 0; e < L; ++e) {
                int64_t h = i * q.s - q.p + a * q.d, v = j * q.s - q.p + e * q.d;
                if (h >= 0 && h < H && v >= 0 && v < W)
                  acc += X[((n * C + (o / Og) * Cg + c) * H + h) * W + v] * Wt[((o * Cg + c) * K + a) * L + e];
              }
          Y[((n * O + o) * OH + i) * OW + j] = acc;
        }
  return y;
}

// Scatters every output gradient back over the taps that produced it.
std::pair<at::Tensor, at::Tensor> ref_conv_backward(const at::Tensor& gy_, const at::Tensor& x_, const at::Tensor& w_, Geo q) {
  at::Tensor gy = gy_.to(at::kDouble).contiguous(), x = x_.to(at::kDouble).contiguous(), w = w_.to(at::kDouble).contiguous();
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t O = w.size(0), K = w.size(2), L = w.size(3), Cg = C / q.g, Og = O / q.g;
  const int64_t OH = gy.size(2), OW = gy.size(3);
  at::Tensor gx = at::zeros_like(x), gw = at::zeros_like(w);
  auto GY = gy.data_ptr<double>(), X = x.data_ptr<double>(), Wt = w.data_ptr<double>();
  auto GX = gx.data_ptr<double>(), GW = gw.data_ptr<double>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          const double go = GY[((n * O + o) * OH + i) * OW + j];
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t a = 0; a < K; ++a)
              for (int64_t e = 0; e < L; ++e) {
                int64_t h = i * q.s - q.p + a * q.d, v = j * q.s - q.p + e * q.d;
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                const int64_t xi = ((n * C + (o / Og) * Cg + c) * H + h) * W + v, wi = ((o * Cg + c) * K + a) * L + e;
                GX[xi] += go * Wt[wi];
                GW[wi] += go * X[xi];
              }
        }
  return {gx, gw};
}

double max_rel_err(const at::Tensor& got, const at::Tensor& ref) {
  at::Tensor g = got.to(at::kDouble).contiguous(), r = ref.to(at::kDouble).contiguous();
  REQUIRE(g.sizes() == r.sizes());
  double worst = 0;
  for (int64_t i = 0; i < g.numel(); ++i) {
    double a = g.data_ptr<double>()[i], b = r.data_ptr<double>()[i];
    worst = std::max(worst, std::fabs(a - b) / (1.0 + std::fabs(b)));
  }
  return worst;
}

}  // namespace

TEST_CASE("conv2d float32 forward and backward at network shapes against a float64 reference", "[conv]") {
  torch::manual_seed(3);
  struct Case {
    std::vector<int64_t> x, w;
    Geo q;
  };
  const std::vector<Case> cases = {
      {{64, 1, 28, 28}, {10, 1, 5, 5}, {}},                  // the MNIST example's first layer
      {{8, 10, 12, 12}, {20, 10, 5, 5}, {}},                 // and its second
      {{2, 32, 14, 14}, {32, 32, 3, 3}, {1, 1, 1, 1}},       // a ResNet block
      {{2, 16, 15, 13}, {32, 16, 3, 3}, {2, 1, 1, 1}},       // a strided downsampling layer
      {{2, 16, 11, 11}, {16, 4, 3, 3}, {1, 2, 2, 4}},        // grouped and dilated
      {{3, 8, 9, 9}, {8, 1, 3, 3}, {1, 1, 1, 8}},            // depthwise
      {{2, 20, 9, 9}, {24, 20, 3, 3}, {1, 1, 1, 1}},         // blocked layouts padded to whole channel blocks
      {{2, 32, 8, 8}, {48, 16, 3, 3}, {1, 1, 1, 2}},         // blocked layouts per group
  };
  for (const auto& c : cases) {
    INFO("input " << at::IntArrayRef(c.x) << " weight " << at::IntArrayRef(c.w));
    at::Tensor x = torch::randn(c.x).requires_grad_(true), w = torch::randn(c.w).requires_grad_(true);
    at::Tensor b = torch::randn({c.w[0]}).requires_grad_(true);
    at::Tensor y = torch::conv2d(x, w, b, c.q.s, c.q.p, c.q.d, c.q.g);
    CHECK(y.scalar_type() == at::kFloat);
    CHECK(max_rel_err(y, ref_conv(x.detach(), w.detach(), b.detach(), c.q)) < 1e-4);
    at::Tensor gy = torch::randn(y.sizes());
    y.backward(gy);
    auto [gx, gw] = ref_conv_backward(gy, x.detach(), w.detach(), c.q);
    CHECK(max_rel_err(x.grad(), gx) < 1e-4);
    CHECK(max_rel_err(w.grad(), gw) < 1e-4);
    CHECK(max_rel_err(b.grad(), gy.to(at::kDouble).sum({0, 2, 3})) < 1e-4);
  }
}

TEST_CASE("conv2d float64 (direct loops) against the reference", "[conv]") {
  torch::manual_seed(4);
  at::Tensor x = torch::randn({2, 6, 9, 8}, torch::kFloat64).requires_grad_(true);
  at::Tensor w = torch::randn({4, 3, 3, 2}, torch::kFloat64).requires_grad_(true);
  Geo q{2, 1, 2, 2};
  at::Tensor y = torch::conv2d(x, w, {}, 2, 1, 2, 2);
  CHECK(max_rel_err(y, ref_conv(x.detach(), w.detach(), at::Tensor(), q)) < 1e-12);
  at::Tensor gy = torch::randn(y.sizes(), torch::kFloat64);
  y.backward(gy);
  auto [gx, gw] = ref_conv_backward(gy, x.detach(), w.detach(), q);
  CHECK(max_rel_err(x.grad(), gx) < 1e-12);
  CHECK(max_rel_err(w.grad(), gw) < 1e-12);
}

TEST_CASE("conv2d argument errors", "[conv]") {
  auto w = torch::ones({4, 3, 3, 3});
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({3, 5}), w),
                    Catch::Contains("[conv2d] expected a 3-D (C, H, W) or 4-D (N, C, H, W) input; got input [3, 5]"));
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 1, 3, 5, 5}), w), Catch::Contains("[conv2d] expected a 3-D (C, H, W) or 4-D"));
  // An unbatched (C, H, W) image is a batch of one (libtorch accepts it too).
  auto x = torch::arange(75, torch::kDouble).reshape({3, 5, 5}).sin();
  auto wd = torch::arange(108, torch::kDouble).reshape({4, 3, 3, 3}).cos();
  auto y = torch::conv2d(x, wd, {}, 1, 1);
  REQUIRE(y.sizes() == torch::IntArrayRef{4, 5, 5});
  CHECK(torch::equal(y, torch::conv2d(x.unsqueeze(0), wd, {}, 1, 1)[0]));
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 3, 5, 5}), torch::ones({4, 3, 3})), Catch::Contains("[conv2d] expected a 4-D weight"));
  // Padding spelled as a vector: a literal 0 or {0, 0} would also convert to the string_view of the
  // padding="same" overload (ambiguous, as in libtorch).
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 3, 5, 5}), torch::ones({4, 1, 3, 3}), {}, 1, std::vector<int64_t>{0, 0}, 1, 2),
                    Catch::Contains("[conv2d] expected input channels (3) divisible by groups (2)"));
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 4, 5, 5}), torch::ones({3, 2, 3, 3}), {}, 1, std::vector<int64_t>{0, 0}, 1, 2),
                    Catch::Contains("[conv2d] expected out channels"));
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 3, 5, 5}), torch::ones({4, 2, 3, 3})),
                    Catch::Contains("[conv2d] expected weight.size(1) * groups"));
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 3, 2, 5}), w), Catch::Contains("[conv2d] expected an output size of at least 1"));
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 3, 5, 5}), w, torch::ones({3})), Catch::Contains("[conv2d] expected a 1-D bias of 4"));
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 3, 5, 5}), w, {}, 0), Catch::Contains("[conv2d] expected a positive stride"));
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 3, 5, 5}), w.to(torch::kFloat64)), Catch::Contains("[conv2d] expected input and weight of one dtype"));
  CHECK_THROWS_WITH(torch::convolution(torch::ones({1, 3, 5, 5}), w, {}, {1, 1}, {0, 0}, {1, 1}, true, {0, 0}, 1),
                    Catch::Contains("[convolution] expected weight.size(0) (4) to equal the input channels (3)"));
  CHECK_THROWS_WITH(torch::conv2d(torch::ones({1, 3, 5, 5}, torch::kInt64), torch::ones({4, 3, 3, 3}, torch::kInt64)),
                    Catch::Contains("[conv2d] expected a floating point input"));
}

TEST_CASE("conv2d from several threads shares cached primitives safely", "[conv]") {
  torch::manual_seed(5);
  // 8 channels run on plain memory, 16 on blocked layouts with reorders (Note [Convolution layouts]);
  // both passes of the backward too.
  for (int64_t c : {8, 16}) {
  at::Tensor x = torch::randn({4, c, 12, 12}), w = torch::randn({16, c, 3, 3}), gy = torch::randn({4, 16, 12, 12});
  at::Tensor expected = torch::conv2d(x, w, {}, 1, 1);
  auto grads = torch::convolution_backward(gy, x, w, std::nullopt, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1, {true, true, false});
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      bool good = true;
      for (int i = 0; i < 20; ++i) {
        good = good && torch::conv2d(x, w, {}, 1, 1).equal(expected);
        auto g = torch::convolution_backward(gy, x, w, std::nullopt, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1, {true, true, false});
        good = good && std::get<0>(g).equal(std::get<0>(grads)) && std::get<1>(g).equal(std::get<1>(grads));
      }
      ok[t] = good;
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) CHECK(ok[t] == 1);
  }
}

TEST_CASE("max_pool2d: NaN is the window's maximum, -inf windows keep their first element", "[pool]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  at::Tensor x = torch::tensor({1.0, nan, 3.0, 2.0,   //
                                0.5, 4.0, nan, nan,   //
                                -inf, -inf, 7.0, 1.0,  //
                                -inf, -inf, 2.0, 9.0}, torch::kFloat64)
                     .view({1, 1, 4, 4});
  auto [v, i] = torch::max_pool2d_with_indices(x, {2, 2});
  // libtorch 2.15: values [[nan, nan], [-inf, 9]], indices [[1, 7], [8, 15]].
  auto V = v.contiguous().data_ptr<double>();
  CHECK(std::isnan(V[0]));
  CHECK(std::isnan(V[1]));
  CHECK(V[2] == -inf);
  CHECK(V[3] == 9.0);
  CHECK(i.flatten().equal(torch::tensor({1, 7, 8, 15}, torch::kInt64)));
  CHECK(torch::max_pool2d(x, {2, 2}).isnan().sum().item<int64_t>() == 2);
}

namespace pool_ref {
// Row-major scan of each 2-D window written out for the test: a tap replaces the running maximum
// when it is greater or NaN (libtorch's rule); the first tap in range starts the scan.
void max_pool2d(const std::vector<double>& x, int64_t planes, int64_t H, int64_t W, int64_t k, int64_t s, int64_t OH,
                int64_t OW, std::vector<double>& v, std::vector<int64_t>& idx) {
  v.assign(static_cast<size_t>(planes * OH * OW), 0);
  idx.assign(v.size(), -1);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        bool any = false;
        double best = 0;
        int64_t at = -1;
        for (int64_t h = oh * s; h < std::min(oh * s + k, H); ++h)
          for (int64_t w = ow * s; w < std::min(ow * s + k, W); ++w) {
            const double e = x[static_cast<size_t>((p * H + h) * W + w)];
            if (!any || e > best || std::isnan(e)) best = e, at = h * W + w, any = true;
          }
        v[static_cast<size_t>((p * OH + oh) * OW + ow)] = best;
        idx[static_cast<size_t>((p * OH + oh) * OW + ow)] = at;
      }
}
}  // namespace pool_ref

TEST_CASE("max_pool2d 2x2 (fast path) and 3x3 windows against a reference scan, with ties, NaN and -inf", "[pool]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  struct Case { int64_t N, C, H, W, k, s; bool ceil; };
  for (const Case& c : {Case{2, 3, 8, 8, 2, 2, false}, Case{1, 2, 7, 9, 2, 2, false}, Case{1, 2, 7, 9, 2, 2, true},
                        Case{3, 1, 2, 2, 2, 2, false}, Case{1, 3, 14, 15, 2, 2, false}, Case{1, 1, 9, 7, 3, 2, false}, Case{2, 2, 6, 6, 2, 1, false}}) {
    const int64_t planes = c.N * c.C;
    std::vector<double> x(static_cast<size_t>(planes * c.H * c.W));
    for (size_t i = 0; i < x.size(); ++i) {
      const uint64_t h = (i * 2654435761u) % 97;
      x[i] = h < 3 ? nan : h < 8 ? -inf : h < 10 ? inf : static_cast<double>(h % 5);  // many ties
    }
    const int64_t OH = c.ceil ? (c.H - c.k + c.s - 1) / c.s + 1 : (c.H - c.k) / c.s + 1;
    const int64_t OW = c.ceil ? (c.W - c.k + c.s - 1) / c.s + 1 : (c.W - c.k) / c.s + 1;
    std::vector<double> rv;
    std::vector<int64_t> ri;
    pool_ref::max_pool2d(x, planes, c.H, c.W, c.k, c.s, OH, OW, rv, ri);
    for (auto dt : {at::kFloat, at::kDouble, at::kLong}) {
      if (dt == at::kLong) {  // integers: no NaN or inf
        for (double& e : x) if (!std::isfinite(e)) e = -3;
        pool_ref::max_pool2d(x, planes, c.H, c.W, c.k, c.s, OH, OW, rv, ri);
      }
      at::Tensor in = torch::tensor(x, torch::kFloat64).view({c.N, c.C, c.H, c.W}).to(dt);
      // Also a non-contiguous input with the same values.
      for (bool strided : {false, true}) {
        at::Tensor t = strided ? in.transpose(2, 3).contiguous().transpose(2, 3) : in;
        auto [v, i] = torch::max_pool2d_with_indices(t, {c.k, c.k}, {c.s, c.s}, 0, 1, c.ceil);
        REQUIRE(v.sizes() == at::IntArrayRef({c.N, c.C, OH, OW}));
        at::Tensor vd = v.to(at::kDouble).contiguous(), id = i.contiguous();
        bool ok = true;
        for (size_t o = 0; o < rv.size() && ok; ++o) {
          const double got = vd.data_ptr<double>()[o];
          ok = (std::isnan(rv[o]) ? std::isnan(got) : got == rv[o]) && id.data_ptr<int64_t>()[o] == ri[o];
          if (!ok) INFO("output " << o << ": " << got << " at " << id.data_ptr<int64_t>()[o] << ", expected " << rv[o] << " at " << ri[o]);
        }
        INFO(c.N << "x" << c.C << "x" << c.H << "x" << c.W << " k" << c.k << " s" << c.s << (c.ceil ? " ceil" : "") << " "
                 << c10::dtypeName(dt) << (strided ? " strided" : ""));
        CHECK(ok);
      }
    }
  }
}

TEST_CASE("max_pool2d ceil_mode, padding and errors", "[pool]") {
  // libtorch 2.15: a 7x7 input, kernel 2, stride 2 gives 3x3, or 4x4 with ceil_mode; with padding
  // 1 and ceil_mode a 6x8 input under kernel 3 stride 2 gives 4x5 (the last window must start
  // inside the input or the left padding).
  CHECK(torch::max_pool2d(torch::ones({1, 1, 7, 7}), {2, 2}).sizes() == at::IntArrayRef({1, 1, 3, 3}));
  CHECK(torch::max_pool2d(torch::ones({1, 1, 7, 7}), {2, 2}, {2, 2}, 0, 1, true).sizes() == at::IntArrayRef({1, 1, 4, 4}));
  CHECK(torch::max_pool2d(torch::ones({1, 6, 8}), {3, 3}, {2, 2}, {1, 1}, 1, true).sizes() == at::IntArrayRef({1, 4, 5}));
  CHECK_THROWS_WITH(torch::max_pool2d(torch::ones({4, 4}), {2, 2}), Catch::Contains("[max_pool2d] expected a 3-D"));
  CHECK_THROWS_WITH(torch::max_pool2d(torch::ones({1, 1, 4, 4}), {2, 2}, {2, 2}, {2, 2}),
                    Catch::Contains("[max_pool2d] expected padding between 0 and half the kernel size"));
  CHECK_THROWS_WITH(torch::max_pool2d(torch::ones({1, 1, 2, 2}), {3, 3}), Catch::Contains("[max_pool2d] expected an output size"));
}

TEST_CASE("max_pool2d gradient goes to the selected elements", "[pool]") {
  at::Tensor x = torch::tensor({1.0, 5.0, 2.0, 0.0, 3.0, 4.0, 8.0, 6.0, 7.0}, torch::kFloat64).view({1, 1, 3, 3}).requires_grad_(true);
  // Overlapping windows (kernel 2, stride 1): 5 wins twice, 8 and 7 once (libtorch 2.15 agrees).
  torch::max_pool2d(x, {2, 2}, {1, 1}).sum().backward();
  CHECK(x.grad().flatten().equal(torch::tensor({0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0}, torch::kFloat64)));
}

TEST_CASE("conv2d and max_pool2d with hostile sizes raise instead of wrapping around", "[conv][pool]") {
  const int64_t big = std::numeric_limits<int64_t>::max() / 2;
  auto x = torch::ones({1, 1, 3, 3}), w = torch::ones({1, 1, 2, 2});
  CHECK_THROWS_WITH(torch::conv2d(x, w, {}, 1, big), Catch::Contains("[conv2d]"));
  CHECK_THROWS_WITH(torch::conv2d(x, w, {}, 1, std::vector<int64_t>{0, 0}, big), Catch::Contains("[conv2d]"));
  CHECK_THROWS_WITH(torch::conv2d(x, w, {}, 1, big, big), Catch::Contains("[conv2d]"));
  CHECK(torch::conv2d(x, w, {}, big).sizes() == at::IntArrayRef({1, 1, 1, 1}));
  CHECK_THROWS_WITH(torch::max_pool2d(x, {big, big}), Catch::Contains("[max_pool2d]"));
  CHECK_THROWS_WITH(torch::max_pool2d(x, {3, 3}, {1, 1}, {1, 1}, big), Catch::Contains("[max_pool2d]"));
  // A huge kernel with half of it as padding: every window covers the whole input (no wrap-around,
  // and no loop stepping through the padding one tap at a time).
  CHECK(torch::max_pool2d(x, {big, big}, {1, 1}, {big / 2, big / 2}).equal(torch::ones({1, 1, 3, 3})));
  // An empty batch gives an empty output of the right shape (libtorch agrees).
  CHECK(torch::conv2d(torch::ones({0, 1, 3, 3}), w).sizes() == at::IntArrayRef({0, 1, 2, 2}));
}

// ---------------------------------------------------------------- channels-last (Note [Channels-last convolution])
// The expected strides below are facts recorded from libtorch 2.15's CPU conv2d / conv_transpose2d /
// convolution_backward (float32 and float64 alike): an input or a weight that suggests channels-last
// makes the output and both raw gradients channels-last; ambiguous or other layouts stay NCHW.
namespace channels_last_test {

struct Case {
  const char* name;
  at::Tensor x, w, b;
  int64_t s, p, d, g;
  bool transposed;
  std::vector<int64_t> y_strides;                // libtorch's output strides
  std::vector<int64_t> gx_strides, gw_strides;   // libtorch's convolution_backward strides
};

at::Tensor cl(const at::Tensor& t) { return t.contiguous(at::MemoryFormat::ChannelsLast); }

at::Tensor run(const Case& c, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return c.transposed ? at::conv_transpose2d(x, w, b, c.s, c.p, 0, c.g, c.d) : at::conv2d(x, w, b, c.s, c.p, c.d, c.g);
}

std::vector<Case> cases(at::ScalarType dt) {
  auto r = [&](std::vector<int64_t> s) { return torch::randn(s, torch::TensorOptions().dtype(dt)); };
  const at::Tensor x = r({2, 8, 5, 6}), w = r({4, 8, 3, 3}), b = r({4});
  const std::vector<int64_t> xcl{240, 1, 48, 8}, wcl{72, 1, 24, 8}, xc{240, 30, 6, 1}, wc{72, 9, 3, 1};
  return {
      {"input channels-last", cl(x), w, b, 1, 0, 1, 1, false, {48, 1, 16, 4}, xcl, wcl},
      {"weight channels-last", x, cl(w), b, 1, 0, 1, 1, false, {48, 1, 16, 4}, xcl, wcl},
      {"both channels-last", cl(x), cl(w), b, 1, 0, 1, 1, false, {48, 1, 16, 4}, xcl, wcl},
      {"both NCHW", x, w, b, 1, 0, 1, 1, false, {48, 12, 4, 1}, xc, wc},
      {"stride 2, padding 1, dilation 2", cl(x), w, b, 2, 1, 2, 1, false, {16, 1, 8, 4}, xcl, wcl},
      {"2 groups", cl(x), r({4, 4, 3, 3}), b, 1, 1, 1, 2, false, {120, 1, 24, 4}, xcl, {36, 1, 12, 4}},
      // libtorch's float32 depthwise weight gradient is [9, 1, 3, 1], its float64 one [9, 9, 3, 1]
      // (equivalent: the size-1 dim's stride); Ember gives the former for both.
      {"depthwise", cl(x), r({8, 1, 3, 3}), at::Tensor(), 1, 1, 1, 8, false, {240, 1, 48, 8}, xcl, {}},
      {"32 channels", cl(r({2, 32, 7, 7})), r({32, 32, 3, 3}), r({32}), 1, 1, 1, 1, false, {1568, 1, 224, 32},
       {1568, 1, 224, 32}, {288, 1, 96, 32}},
      {"batch 1", cl(r({1, 8, 5, 5})), w, b, 1, 0, 1, 1, false, {36, 1, 12, 4}, {200, 1, 40, 8}, wcl},
      {"3 input channels", cl(r({2, 3, 5, 5})), r({4, 3, 3, 3}), b, 1, 0, 1, 1, false, {36, 1, 12, 4}, {75, 1, 15, 3}, {27, 1, 9, 3}},
      {"odd layout NHCW", r({2, 5, 8, 6}).permute({0, 2, 1, 3}), w, b, 1, 0, 1, 1, false, {48, 12, 4, 1}, xc, wc},
      {"odd layout NWHC", r({2, 6, 5, 8}).permute({0, 3, 2, 1}), w, b, 1, 0, 1, 1, false, {48, 12, 4, 1}, xc, wc},
      {"1x1 spatial (ambiguous: NCHW)", cl(r({2, 8, 1, 1})), r({4, 8, 1, 1}), b, 1, 0, 1, 1, false, {4, 1, 1, 1}, {8, 1, 1, 1},
       {8, 1, 1, 1}},
      {"transposed", cl(x), r({8, 4, 3, 3}), b, 2, 1, 1, 1, true, {396, 1, 44, 4}, xcl, {36, 1, 12, 4}},
  };
}

std::vector<int64_t> strides_of(const at::Tensor& t) { return t.strides().vec(); }

// Strides compared where the size is not 1 (a size-1 dim's stride never addresses memory).
bool same_layout(const at::Tensor& t, const std::vector<int64_t>& want) {
  if (static_cast<size_t>(t.dim()) != want.size()) return false;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.size(i) != 1 && t.stride(i) != want[static_cast<size_t>(i)]) return false;
  return true;
}

void check_all(at::ScalarType dt, double tol) {
  for (const Case& c : cases(dt)) {
    INFO(c.name << " " << c10::dtypeName(dt));
    const at::Tensor xn = c.x.contiguous(), wn = c.w.contiguous();
    const at::Tensor y = run(c, c.x, c.w, c.b), yn = run(c, xn, wn, c.b);
    INFO("output strides " << y.strides());
    CHECK(strides_of(y) == c.y_strides);
    CHECK(max_rel_err(y, yn) <= tol);
    // Raw backward: layouts as libtorch's, values as the NCHW path's.
    const at::Tensor gy = torch::randn(y.sizes(), torch::TensorOptions().dtype(dt));
    const c10::OptionalIntArrayRef bs = c.b.defined() ? c10::OptionalIntArrayRef(c.b.sizes()) : c10::OptionalIntArrayRef();
    const std::array<bool, 3> mask{true, true, c.b.defined()};
    auto [gx, gw, gb] = at::convolution_backward(gy, c.x, c.w, bs, {c.s, c.s}, {c.p, c.p}, {c.d, c.d}, c.transposed, {0, 0}, c.g, mask);
    auto [gxn, gwn, gbn] = at::convolution_backward(gy.contiguous(), xn, wn, bs, {c.s, c.s}, {c.p, c.p}, {c.d, c.d}, c.transposed,
                                                    {0, 0}, c.g, mask);
    INFO("gx strides " << gx.strides() << " gw strides " << gw.strides());
    CHECK(same_layout(gx, c.gx_strides));
    if (!c.gw_strides.empty()) CHECK(same_layout(gw, c.gw_strides));
    CHECK(max_rel_err(gx, gxn) <= tol);
    CHECK(max_rel_err(gw, gwn) <= tol);
    if (c.b.defined()) CHECK(max_rel_err(gb, gbn) <= tol);
    // A grad_output in the other layout gives the same values.
    auto [gx2, gw2, gb2] = at::convolution_backward(cl(gy), c.x, c.w, bs, {c.s, c.s}, {c.p, c.p}, {c.d, c.d}, c.transposed, {0, 0},
                                                    c.g, mask);
    CHECK(max_rel_err(gx2, gxn) <= tol);
    CHECK(max_rel_err(gw2, gwn) <= tol);
    // Autograd through conv2d: input, weight and bias gradients equal the NCHW path's.
    at::Tensor xa = c.x.detach().requires_grad_(true), wa = c.w.detach().requires_grad_(true);
    at::Tensor ba = c.b.defined() ? c.b.detach().requires_grad_(true) : at::Tensor();
    run(c, xa, wa, ba).backward(gy);
    CHECK(max_rel_err(xa.grad(), gxn) <= tol);
    CHECK(max_rel_err(wa.grad(), gwn) <= tol);
    if (c.b.defined()) CHECK(max_rel_err(ba.grad(), gbn) <= tol);
  }
}

}  // namespace channels_last_test

TEST_CASE("conv2d channels-last float32: NCHW path's values, libtorch's layouts", "[conv][channels_last]") {
  torch::manual_seed(11);
  channels_last_test::check_all(at::kFloat, 1e-5);
}

TEST_CASE("conv2d channels-last float64: NCHW path's values, libtorch's layouts", "[conv][channels_last]") {
  torch::manual_seed(12);
  channels_last_test::check_all(at::kDouble, 1e-14);
}

TEST_CASE("conv2d channels-last float32 against the float64 reference at a ResNet shape", "[conv][channels_last]") {
  torch::manual_seed(13);
  Geo q{1, 1, 1, 1};
  at::Tensor x = channels_last_test::cl(torch::randn({2, 64, 14, 14})), w = torch::randn({64, 64, 3, 3}), b = torch::randn({64});
  at::Tensor y = torch::conv2d(x, w, b, 1, 1);
  CHECK(y.is_contiguous(at::MemoryFormat::ChannelsLast));
  CHECK(max_rel_err(y, ref_conv(x, w, b, q)) < 1e-4);
  // The gradients (below AVX-512 this shape runs through oneDNN's blocked layouts with reorders from
  // and to nhwc: Note [Channels-last convolution]) against float64's, which the direct loops compute.
  at::Tensor xa = x.detach().requires_grad_(true), wa = w.detach().requires_grad_(true), ba = b.detach().requires_grad_(true);
  at::Tensor xd = x.to(at::kDouble).contiguous().requires_grad_(true), wd = w.to(at::kDouble).requires_grad_(true),
             bd = b.to(at::kDouble).requires_grad_(true);
  const at::Tensor gy = channels_last_test::cl(torch::randn(y.sizes()));
  torch::conv2d(xa, wa, ba, 1, 1).backward(gy);
  torch::conv2d(xd, wd, bd, 1, 1).backward(gy.to(at::kDouble));
  CHECK(xa.grad().is_contiguous(at::MemoryFormat::ChannelsLast));
  CHECK(max_rel_err(xa.grad(), xd.grad()) < 1e-4);
  CHECK(max_rel_err(wa.grad(), wd.grad()) < 1e-4);
  CHECK(max_rel_err(ba.grad(), bd.grad()) < 1e-4);
}

TEST_CASE("is_contiguous and contiguous with MemoryFormat::ChannelsLast (libtorch's answers)", "[conv][channels_last]") {
  at::Tensor x = torch::randn({2, 8, 5, 6});
  CHECK_FALSE(x.is_contiguous(at::MemoryFormat::ChannelsLast));
  at::Tensor c = x.contiguous(at::MemoryFormat::ChannelsLast);
  CHECK(c.strides().vec() == std::vector<int64_t>{240, 1, 48, 8});
  CHECK(c.is_contiguous(at::MemoryFormat::ChannelsLast));
  CHECK_FALSE(c.is_contiguous());
  CHECK(at::equal(c, x));
  CHECK(c.contiguous(at::MemoryFormat::ChannelsLast).data_ptr() == c.data_ptr());
  // Size-1 dims: both layouts at once, kept as they are.
  at::Tensor n1 = torch::randn({2, 1, 4, 4}), hw1 = torch::randn({2, 8, 1, 1});
  CHECK(n1.is_contiguous(at::MemoryFormat::ChannelsLast));
  CHECK(hw1.is_contiguous(at::MemoryFormat::ChannelsLast));
  CHECK(hw1.contiguous(at::MemoryFormat::ChannelsLast).strides().vec() == std::vector<int64_t>{8, 1, 1, 1});
  CHECK_FALSE(torch::randn({2, 3, 4}).is_contiguous(at::MemoryFormat::ChannelsLast));
  CHECK_THROWS(torch::randn({2, 3, 4}).contiguous(at::MemoryFormat::ChannelsLast));
}

TEST_CASE("max_pool2d and batch_norm on channels-last inputs: the NCHW values", "[pool][channels_last]") {
  // Max pooling runs in the input's layout (Note [Channels-last pooling]): libtorch 2.15 returns
  // channels-last values, indices and input gradients for a channels-last input (recorded), and
  // the values, indices and gradients are the NCHW path's, bit for bit.
  torch::manual_seed(14);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  struct Case { int64_t N, C, H, W, k, s, p, d; bool ceil; };
  // 70 channels: two channel blocks of the channels-last loop, the second partial; dilation 4 with
  // ceil_mode leaves windows whose every tap is in the padding (index -1).
  const Case cases[] = {{2, 8, 7, 6, 3, 2, 1, 1, false}, {1, 70, 9, 8, 2, 2, 0, 1, false}, {3, 5, 10, 9, 3, 2, 1, 2, true},
                        {2, 3, 5, 5, 2, 3, 1, 4, true}, {1, 16, 4, 4, 2, 2, 0, 1, true}};
  for (auto dt : {at::kFloat, at::kDouble, at::kLong}) {
    for (const Case& c : cases) {
      at::Tensor x = dt == at::kLong ? torch::randint(-3, 3, {c.N, c.C, c.H, c.W}, torch::TensorOptions().dtype(dt))
                                     : torch::randn({c.N, c.C, c.H, c.W}, torch::TensorOptions().dtype(dt));
      if (dt != at::kLong) {  // NaN, and a corner of -inf in some planes
        x.view(-1)[5] = nan;
        x.view(-1)[c.H * c.W + 1] = nan;
        x.select(1, 0).narrow(1, 0, 2).narrow(2, 0, 2).fill_(-inf);
      }
      at::Tensor xc = channels_last_test::cl(x);
      INFO("N C H W " << c.N << " " << c.C << " " << c.H << " " << c.W << " k " << c.k << " s " << c.s << " p " << c.p
                      << " d " << c.d << " ceil " << c.ceil << " " << c10::dtypeName(dt));
      auto [y, i] = at::max_pool2d_with_indices(xc, {c.k, c.k}, {c.s, c.s}, {c.p, c.p}, {c.d, c.d}, c.ceil);
      auto [yn, in] = at::max_pool2d_with_indices(x, {c.k, c.k}, {c.s, c.s}, {c.p, c.p}, {c.d, c.d}, c.ceil);
      CHECK(y.is_contiguous(at::MemoryFormat::ChannelsLast));
      CHECK(i.is_contiguous(at::MemoryFormat::ChannelsLast));
      CHECK(at::equal(i, in));
      if (dt == at::kLong) {
        CHECK(at::equal(y, yn));
      } else {
        CHECK(at::equal(y.isnan(), yn.isnan()));
        CHECK(at::equal(y.nan_to_num(0, 1e300, -1e300), yn.nan_to_num(0, 1e300, -1e300)));
      }
      const at::Tensor gy = torch::randn(y.sizes(), torch::TensorOptions().dtype(dt == at::kLong ? at::kDouble : dt));
      if (dt != at::kLong) {
        const at::Tensor gx = at::max_pool2d_with_indices_backward(channels_last_test::cl(gy), xc, {c.k, c.k}, {c.s, c.s},
                                                                   {c.p, c.p}, {c.d, c.d}, c.ceil, i);
        const at::Tensor gxn = at::max_pool2d_with_indices_backward(gy, x, {c.k, c.k}, {c.s, c.s}, {c.p, c.p}, {c.d, c.d},
                                                                    c.ceil, in);
        CHECK(gx.is_contiguous(at::MemoryFormat::ChannelsLast));
        CHECK(at::equal(gx, gxn));
        // An NCHW grad_output with a channels-last input: the same gradient, channels-last.
        const at::Tensor gx2 = at::max_pool2d_with_indices_backward(gy, xc, {c.k, c.k}, {c.s, c.s}, {c.p, c.p}, {c.d, c.d},
                                                                    c.ceil, i);
        CHECK(gx2.is_contiguous(at::MemoryFormat::ChannelsLast));
        CHECK(at::equal(gx2, gxn));
      }
    }
  }
  for (auto dt : {at::kFloat, at::kDouble}) {
    at::Tensor x = torch::randn({2, 8, 7, 6}, torch::TensorOptions().dtype(dt)), xc = channels_last_test::cl(x);
    // Through autograd: a channels-last leaf's gradient (libtorch: channels-last).
    at::Tensor leaf = xc.detach().requires_grad_(true);
    at::max_pool2d(leaf, {2, 2}).sum().backward();
    CHECK(leaf.grad().is_contiguous(at::MemoryFormat::ChannelsLast));
    at::Tensor leafn = x.detach().requires_grad_(true);
    at::max_pool2d(leafn, {2, 2}).sum().backward();
    CHECK(at::equal(leaf.grad(), leafn.grad()));
    // avg_pool2d (composed of ATen ops): channels-last out (libtorch's layout), the NCHW values up
    // to the order of a window's sum.
    const at::Tensor avg = at::avg_pool2d(xc, {3, 3}, {2, 2}, {1, 1}), avgn = at::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1});
    CHECK(avg.is_contiguous(at::MemoryFormat::ChannelsLast));
    CHECK(max_rel_err(avg, avgn) <= (dt == at::kFloat ? 1e-6 : 1e-15));
    at::Tensor z = torch::randn({2, 8, 7, 6}, torch::TensorOptions().dtype(dt)), zc = channels_last_test::cl(z);
    at::Tensor g = torch::randn({8}, torch::TensorOptions().dtype(dt)), bb = torch::randn({8}, torch::TensorOptions().dtype(dt));
    for (bool training : {true, false}) {
      at::Tensor rm = torch::zeros({8}, torch::TensorOptions().dtype(dt)), rv = torch::ones({8}, torch::TensorOptions().dtype(dt));
      at::Tensor rm2 = rm.clone(), rv2 = rv.clone();
      at::Tensor a = at::batch_norm(zc, g, bb, rm, rv, training, 0.1, 1e-5, false);
      at::Tensor e = at::batch_norm(z, g, bb, rm2, rv2, training, 0.1, 1e-5, false);
      const double tol = dt == at::kFloat ? 1e-5 : 1e-12;
      CHECK(max_rel_err(a, e) <= tol);
      CHECK(max_rel_err(rm, rm2) <= tol);
      CHECK(max_rel_err(rv, rv2) <= tol);
    }
  }
}

TEST_CASE("conv2d channels-last: a channels-last leaf's gradient is channels-last (libtorch's x.grad strides)", "[conv][channels_last]") {
  torch::manual_seed(15);
  for (auto dt : {at::kFloat, at::kDouble}) {
    at::Tensor x = channels_last_test::cl(torch::randn({2, 8, 5, 6}, torch::TensorOptions().dtype(dt))).requires_grad_(true);
    at::Tensor w = torch::randn({4, 8, 3, 3}, torch::TensorOptions().dtype(dt)).requires_grad_(true);
    at::Tensor y = torch::conv2d(x, w);
    CHECK(y.strides().vec() == std::vector<int64_t>{48, 1, 16, 4});
    y.sum().backward();
    CHECK(x.grad().strides().vec() == std::vector<int64_t>{240, 1, 48, 8});
    const at::Tensor xn = x.detach().contiguous().requires_grad_(true);
    torch::conv2d(xn, w.detach()).sum().backward();
    CHECK(max_rel_err(x.grad(), xn.grad()) <= (dt == at::kFloat ? 1e-5 : 1e-14));
  }
}

TEST_CASE("batch_norm on channels-last inputs: libtorch's layouts, the float64 reference's values", "[batch_norm][channels_last]") {
  // Note [Channels-last batch norm]: rows of channels, one read for the statistics (shifted sums),
  // one for the backward's sums; output and input gradient channels-last (libtorch's layouts).
  torch::manual_seed(21);
  for (auto dt : {at::kFloat, at::kDouble}) {
    const auto opts = torch::TensorOptions().dtype(dt);
    // 70 channels (a partial chunk of 16), 300 values per channel; a common offset (the shifted
    // sums must not lose the variance) and, in channel 3, a first row far out. In float the offset
    // is smaller: x * scale + shift (libtorch's form too) cancels digits in proportion to mean / std.
    const bool f32 = dt == at::kFloat;
    at::Tensor x = torch::randn({3, 70, 10, 10}, opts) * 0.5 + (f32 ? 10 : 1000);
    x.select(1, 3).select(0, 0).select(0, 0).select(0, 0).fill_(f32 ? 1e4 : 1e6);
    const at::Tensor xc = x.contiguous(at::MemoryFormat::ChannelsLast);
    const at::Tensor w = torch::randn({70}, opts), b = torch::randn({70}, opts);
    const at::Tensor gy = torch::randn(x.sizes(), opts);
    // float64 reference written here: per-channel mean and biased variance, then the usual formulas.
    const at::Tensor xd = x.to(at::kDouble), gd = gy.to(at::kDouble), wd = w.to(at::kDouble), bd = b.to(at::kDouble);
    const std::vector<int64_t> dims{0, 2, 3};
    const at::Tensor mean = xd.mean(dims, true), var = (xd - mean).pow(2).mean(dims, true);
    const at::Tensor inv = (var + 1e-5).rsqrt(), xhat = (xd - mean) * inv;
    const at::Tensor y_ref = xhat * wd.view({1, 70, 1, 1}) + bd.view({1, 70, 1, 1});
    const at::Tensor gb_ref = gd.sum(dims), gw_ref = (gd * xhat).sum(dims);
    const at::Tensor gx_ref = wd.view({1, 70, 1, 1}) * inv *
                              (gd - gd.mean(dims, true) - xhat * (gd * xhat).mean(dims, true));
    for (const at::Tensor& in : {xc, x}) {
      at::Tensor l = in.detach().requires_grad_(true), wl = w.detach().requires_grad_(true), bl = b.detach().requires_grad_(true);
      at::Tensor rm = torch::zeros({70}, opts), rv = torch::ones({70}, opts);
      const at::Tensor y = at::batch_norm(l, wl, bl, rm, rv, true, 0.1, 1e-5, false);
      y.backward(gy);
      const bool cl = !in.is_contiguous();
      INFO(c10::dtypeName(dt) << (cl ? " channels-last" : " contiguous"));
      CHECK(y.is_contiguous(cl ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous));
      CHECK(l.grad().is_contiguous(cl ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous));
      const double tol = dt == at::kFloat ? 2e-5 : 1e-9;
      CHECK(max_rel_err(y, y_ref) <= tol);
      CHECK(max_rel_err(l.grad(), gx_ref) <= tol * 10);
      CHECK(max_rel_err(wl.grad(), gw_ref) <= tol);
      CHECK(max_rel_err(bl.grad(), gb_ref) <= tol);
      // running_var takes the unbiased variance (n = 300).
      CHECK(max_rel_err(rv, 0.9 + 0.1 * var.flatten() * (300.0 / 299.0)) <= tol);
    }
    // inf and NaN: the NCHW path's statistics (mean ±inf or NaN, var NaN), so the same running
    // stats and the same NaN outputs.
    {
      at::Tensor z = torch::randn({2, 4, 3, 3}, opts);
      const auto put = [&](int64_t n, int64_t c, int64_t h, int64_t w, double v) {
        z.select(0, n).select(0, c).select(0, h).select(0, w).fill_(v);
      };
      put(0, 0, 0, 0, std::numeric_limits<double>::infinity());  // the first row: the shift
      put(1, 1, 2, 1, std::numeric_limits<double>::infinity());
      put(0, 2, 1, 1, std::numeric_limits<double>::quiet_NaN());
      at::Tensor rm = torch::zeros({4}, opts), rv = torch::ones({4}, opts), rm2 = rm.clone(), rv2 = rv.clone();
      const at::Tensor a = at::batch_norm(z.contiguous(at::MemoryFormat::ChannelsLast), {}, {}, rm, rv, true, 0.1, 1e-5, false);
      const at::Tensor e = at::batch_norm(z, {}, {}, rm2, rv2, true, 0.1, 1e-5, false);
      CHECK(at::equal(a.isnan(), e.isnan()));
      CHECK(at::equal(rm.isnan(), rm2.isnan()));
      CHECK(at::equal(rm.isinf(), rm2.isinf()));
      CHECK(at::equal(rv.isnan(), rv2.isnan()));
      CHECK(rm.isinf().select(0, 0).item<bool>());
      CHECK(rv.isnan().select(0, 2).item<bool>());
    }
    // The sums are cut into blocks by the shape alone: 1 and 2 threads give the same bits.
    const int threads = at::get_num_threads();
    at::set_num_threads(1);
    const at::Tensor y1 = at::batch_norm(xc, w, b, {}, {}, true, 0.1, 1e-5, false);
    at::set_num_threads(2);
    const at::Tensor y2 = at::batch_norm(xc, w, b, {}, {}, true, 0.1, 1e-5, false);
    at::set_num_threads(threads);
    CHECK(y1.equal(y2));
  }
}

TEST_CASE("batch_norm channels-last backward sums in float: within their bound at many rows", "[batch_norm][channels_last]") {
  // The backward's per-channel sums of a float input go through float partials of a few rows
  // (kernels/cpu/isa/batch_norm.cpp, backward_cl): each term sees about 10 float roundings at most,
  // for any number of rows. 9216 rows, 70 channels (a chunk of 64 and a partial one), an offset
  // mean, and the grad's mean far from 0 in half the channels, so sum(dy) is large against its terms.
  torch::manual_seed(5);
  const at::Tensor x = (torch::randn({4, 70, 48, 48}) * 2 + 5).contiguous(at::MemoryFormat::ChannelsLast);
  at::Tensor gy = torch::randn({4, 70, 48, 48});
  gy.narrow(1, 0, 35).add_(3.0);
  gy = gy.contiguous(at::MemoryFormat::ChannelsLast);
  const at::Tensor w = torch::randn({70}), b = torch::randn({70});
  at::Tensor l = x.detach().requires_grad_(true), wl = w.detach().requires_grad_(true), bl = b.detach().requires_grad_(true);
  at::batch_norm(l, wl, bl, {}, {}, true, 0.1, 1e-5, false).backward(gy);
  // float64 reference, and the bound's scale sum|term| per channel.
  const std::vector<int64_t> dims{0, 2, 3};
  const at::Tensor xd = x.to(at::kDouble), gd = gy.to(at::kDouble), wd = w.to(at::kDouble);
  const at::Tensor mean = xd.mean(dims, true), inv = ((xd - mean).pow(2).mean(dims, true) + 1e-5).rsqrt();
  const at::Tensor xhat = (xd - mean) * inv;
  const at::Tensor gb_ref = gd.sum(dims), gw_ref = (gd * xhat).sum(dims);
  const at::Tensor gb_scale = gd.abs().sum(dims), gw_scale = (gd * xhat).abs().sum(dims);
  const double u = std::ldexp(1.0, -24);
  const at::Tensor gb_err = (bl.grad().to(at::kDouble) - gb_ref).abs(), gw_err = (wl.grad().to(at::kDouble) - gw_ref).abs();
  // 12 u: the sums' ~10 roundings, the float result's own rounding, and the saved mean and invstd
  // being float (their rounding moves each term by about u |term|).
  CHECK((gb_err <= gb_scale * 12 * u).all().item<bool>());
  CHECK((gw_err <= gw_scale * 12 * u + gw_ref.abs() * 4 * u).all().item<bool>());
  const at::Tensor gx_ref = wd.view({1, 70, 1, 1}) * inv * (gd - gd.mean(dims, true) - xhat * (gd * xhat).mean(dims, true));
  CHECK(max_rel_err(l.grad(), gx_ref) <= 2e-4);
  CHECK(l.grad().is_contiguous(at::MemoryFormat::ChannelsLast));
}
