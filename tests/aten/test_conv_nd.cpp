// Convolution of every rank, transposed convolution and padding "same" (kernels/cpu/conv.cpp,
// aten/native/Convolution.cpp): float32 (oneDNN) and float64 (direct loops) forward and
// gradients against a float64 reference written here in scatter form (each input element pushed
// through every tap, apart from the kernels' gather loops), values recorded from libtorch 2.15,
// unbatched and non-contiguous inputs, empty batches, and the argument errors.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <array>
#include <cmath>
#include <vector>

namespace {

struct Spec {
  std::vector<int64_t> x, w;  // input and weight shapes (rank 3 to 5)
  std::vector<int64_t> s, p, op, d;
  int64_t g = 1;
  bool transposed = false;
  bool bias = true;
};

std::array<int64_t, 3> slots(const std::vector<int64_t>& v, int64_t nd, int64_t fill) {
  std::array<int64_t, 3> a{fill, fill, fill};
  if (v.empty()) return a;
  for (int64_t i = 0; i < nd; ++i) a[3 - nd + i] = v.size() == 1 ? v[0] : v[i];
  return a;
}

struct RefOut {
  at::Tensor y, gx, gw, gb;
};

// Scatter-form reference in float64: every (input position, tap) pair adds x * w to the output
// position it reaches; the same walk gives the gradients for a given gy. A plain convolution walks
// output positions j and reaches input j*s - p + t*d; a transposed one walks input positions i and
// reaches output i*s - p + t*d. The output shape comes from the textbook formulas.
RefOut reference(const Spec& c, const at::Tensor& x_, const at::Tensor& w_, const at::Tensor& b_, const at::Tensor& gy_) {
  const int64_t nd = static_cast<int64_t>(c.x.size()) - 2;
  const at::Tensor x = x_.to(at::kDouble).contiguous(), w = w_.to(at::kDouble).contiguous();
  const auto s = slots(c.s, nd, 1), p = slots(c.p, nd, 0), op = slots(c.op, nd, 0), d = slots(c.d, nd, 1);
  std::array<int64_t, 3> in{1, 1, 1}, k{1, 1, 1}, out{1, 1, 1};
  for (int64_t i = 0; i < nd; ++i) in[3 - nd + i] = c.x[2 + i], k[3 - nd + i] = c.w[2 + i];
  for (int i = 0; i < 3; ++i)
    out[i] = c.transposed ? (in[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1
                          : (in[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
  const int64_t N = c.x[0], Cin = c.x[1], G = c.g;
  const int64_t Cout = c.transposed ? c.w[1] * G : c.w[0];
  std::vector<int64_t> yshape{N, Cout};
  for (int64_t i = 0; i < nd; ++i) yshape.push_back(out[3 - nd + i]);
  at::Tensor y = at::zeros(yshape, at::kDouble), gx = at::zeros_like(x), gw = at::zeros_like(w);
  const at::Tensor gy = gy_.defined() ? gy_.to(at::kDouble).contiguous() : at::zeros(yshape, at::kDouble);
  const double *X = x.data_ptr<double>(), *W = w.data_ptr<double>(), *GY = gy.data_ptr<double>();
  double *Y = y.data_ptr<double>(), *GX = gx.data_ptr<double>(), *GW = gw.data_ptr<double>();
  const int64_t Cig = Cin / G, Cog = Cout / G, K = k[0] * k[1] * k[2];
  const int64_t IP = in[0] * in[1] * in[2], OP = out[0] * out[1] * out[2];
  // Walk positions of the "small" side: outputs for plain, inputs for transposed.
  const auto& walk = c.transposed ? in : out;
  const auto& reach = c.transposed ? out : in;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ci = 0; ci < Cin; ++ci)
      for (int64_t cq = 0; cq < Cog; ++cq) {
        const int64_t grp = ci / Cig, co = grp * Cog + cq;
        // weight index: plain (co, ci % Cig, t); transposed (ci, cq, t)
        const int64_t wbase = c.transposed ? (ci * Cog + cq) * K : (co * Cig + ci % Cig) * K;
        for (int64_t a0 = 0; a0 < walk[0]; ++a0)
          for (int64_t a1 = 0; a1 < walk[1]; ++a1)
            for (int64_t a2 = 0; a2 < walk[2]; ++a2)
              for (int64_t t0 = 0; t0 < k[0]; ++t0)
                for (int64_t t1 = 0; t1 < k[1]; ++t1)
                  for (int64_t t2 = 0; t2 < k[2]; ++t2) {
                    const int64_t r0 = a0 * s[0] - p[0] + t0 * d[0], r1 = a1 * s[1] - p[1] + t1 * d[1],
                                  r2 = a2 * s[2] - p[2] + t2 * d[2];
                    if (r0 < 0 || r0 >= reach[0] || r1 < 0 || r1 >= reach[1] || r2 < 0 || r2 >= reach[2]) continue;
                    const int64_t wpos = (a0 * walk[1] + a1) * walk[2] + a2, rpos = (r0 * reach[1] + r1) * reach[2] + r2;
                    const int64_t xi = (n * Cin + ci) * IP + (c.transposed ? wpos : rpos);
                    const int64_t yi = (n * Cout + co) * OP + (c.transposed ? rpos : wpos);
                    const int64_t wi = wbase + (t0 * k[1] + t1) * k[2] + t2;
                    Y[yi] += X[xi] * W[wi];
                    GX[xi] += GY[yi] * W[wi];
                    GW[wi] += GY[yi] * X[xi];
                  }
      }
  at::Tensor gb;
  if (b_.defined()) {
    std::vector<int64_t> bshape(static_cast<size_t>(nd + 2), 1);
    bshape[1] = Cout;
    y = y + b_.to(at::kDouble).reshape(bshape);
    std::vector<int64_t> dims{0};
    for (int64_t i = 2; i < nd + 2; ++i) dims.push_back(i);
    gb = gy.sum(dims);
  }
  return {y, gx, gw, gb};
}

at::Tensor run(const Spec& c, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  const int64_t nd = static_cast<int64_t>(c.x.size()) - 2;
  std::vector<int64_t> op = c.op.empty() ? std::vector<int64_t>(static_cast<size_t>(nd), 0) : c.op;
  return at::convolution(x, w, b.defined() ? std::optional<at::Tensor>(b) : std::nullopt, c.s, c.p, c.d, c.transposed, op, c.g);
}

double max_rel_err_nd(const at::Tensor& got, const at::Tensor& ref) {
  at::Tensor g = got.to(at::kDouble).contiguous(), r = ref.to(at::kDouble).contiguous();
  REQUIRE(g.sizes() == r.sizes());
  double worst = 0;
  for (int64_t i = 0; i < g.numel(); ++i) {
    const double a = g.data_ptr<double>()[i], b = r.data_ptr<double>()[i];
    worst = std::max(worst, std::fabs(a - b) / (1.0 + std::fabs(b)));
  }
  return worst;
}

// Runs spec `c` in `dt` (forward and all three gradients) and compares with the reference.
void check_against_reference(const Spec& c, at::ScalarType dt, double tol) {
  INFO("input " << at::IntArrayRef(c.x) << " weight " << at::IntArrayRef(c.w) << " transposed " << c.transposed << " "
                << c10::dtypeName(dt));
  at::Tensor x = torch::randn(c.x, dt).requires_grad_(true), w = torch::randn(c.w, dt).requires_grad_(true);
  const int64_t cout = c.transposed ? c.w[1] * c.g : c.w[0];
  at::Tensor b = c.bias ? torch::randn({cout}, dt).requires_grad_(true) : at::Tensor();
  at::Tensor y = run(c, x, w, b);
  CHECK(y.scalar_type() == dt);
  at::Tensor gy = torch::randn(y.sizes(), dt);
  const RefOut r = reference(c, x.detach(), w.detach(), c.bias ? b.detach() : at::Tensor(), gy);
  CHECK(max_rel_err_nd(y, r.y) < tol);
  y.backward(gy);
  CHECK(max_rel_err_nd(x.grad(), r.gx) < tol);
  CHECK(max_rel_err_nd(w.grad(), r.gw) < tol);
  if (c.bias) CHECK(max_rel_err_nd(b.grad(), r.gb) < tol);
}

const std::vector<Spec> kSpecs = {
    // 1-d
    {{2, 3, 11}, {4, 3, 3}, {2}, {1}, {}, {1}},
    {{2, 4, 12}, {6, 2, 3}, {1}, {2}, {}, {2}, 2, false, false},
    {{2, 16, 9}, {32, 16, 5}, {1}, {2}, {}, {1}},  // blocked layouts
    // 3-d
    {{2, 3, 5, 6, 5}, {4, 3, 3, 2, 3}, {1, 2, 1}, {1, 0, 1}, {}, {1, 1, 2}},
    {{1, 4, 4, 5, 5}, {6, 2, 2, 3, 3}, {2, 1, 1}, {0, 1, 1}, {}, {1}, 2, false, false},
    {{2, 16, 4, 4, 4}, {16, 16, 3, 3, 3}, {1}, {1}, {}, {1}},  // blocked layouts
    // transposed 2-d: the DCGAN layer shape (smaller batch and channels), grouped, op, dilation
    {{2, 8, 7, 7}, {8, 4, 4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 1, true, false},
    {{2, 32, 7, 7}, {32, 16, 4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 1, true, true},  // blocked layouts
    {{1, 4, 3, 4}, {4, 3, 3, 2}, {3, 2}, {1, 0}, {2, 1}, {1, 2}, 2, true, true},
    {{2, 6, 4, 3}, {6, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 6, true, true},  // depthwise
    {{1, 2, 4, 4}, {2, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, {2, 2}, 1, true, true},  // output_padding >= stride (dilation allows)
    // transposed 1-d and 3-d
    {{2, 3, 5}, {3, 2, 3}, {3}, {1}, {2}, {2}, 1, true, true},
    {{2, 16, 6}, {16, 16, 4}, {2}, {1}, {1}, {1}, 1, true, true},  // blocked layouts
    {{1, 2, 2, 3, 3}, {2, 3, 2, 3, 3}, {2, 1, 2}, {0, 1, 1}, {1, 0, 1}, {1}, 1, true, true},
    {{2, 4, 3, 2, 3}, {4, 2, 2, 2, 2}, {1, 2, 2}, {1, 0, 0}, {0, 1, 0}, {2, 1, 1}, 2, true, false},
};

// Deterministic inputs shared with the libtorch program that recorded the values below:
// sin(arange(n) * a + b) in the given shape.
at::Tensor pat(std::vector<int64_t> shape, double a, double b) {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return at::arange(n, at::kDouble).mul(a).add(b).sin().reshape(shape);
}

struct Recorded {
  double y_sum, y_wsum, gx_sum, gx_wsum, gw_sum, gw_wsum;
  std::vector<double> gb;
};

// Forward and backward of `fn` on the pattern inputs, loss = sum(y * pat(y, 0.3, 0.2)); checks the
// plain and weighted sums (weights pat(t, 0.7, 0.1)) that the libtorch program printed.
template <typename Fn>
void check_recorded(const char* name, std::vector<int64_t> xs, std::vector<int64_t> ws, int64_t nb, Fn fn, const Recorded& r) {
  INFO(name);
  at::Tensor x = pat(xs, 0.37, 0.5).requires_grad_(true), w = pat(ws, 0.11, -0.3).requires_grad_(true);
  at::Tensor b = pat({nb}, 1.3, 0.2).requires_grad_(true);
  at::Tensor y = fn(x, w, b);
  (y * pat(y.sizes().vec(), 0.3, 0.2)).sum().backward();
  auto wsum = [](const at::Tensor& t) { return (t * pat(t.sizes().vec(), 0.7, 0.1)).sum().item<double>(); };
  CHECK(y.sum().item<double>() == Approx(r.y_sum).epsilon(1e-10).margin(1e-10));
  CHECK(wsum(y) == Approx(r.y_wsum).epsilon(1e-10).margin(1e-10));
  CHECK(x.grad().sum().item<double>() == Approx(r.gx_sum).epsilon(1e-10).margin(1e-10));
  CHECK(wsum(x.grad()) == Approx(r.gx_wsum).epsilon(1e-10).margin(1e-10));
  CHECK(w.grad().sum().item<double>() == Approx(r.gw_sum).epsilon(1e-10).margin(1e-10));
  CHECK(wsum(w.grad()) == Approx(r.gw_wsum).epsilon(1e-10).margin(1e-10));
  REQUIRE(b.grad().numel() == static_cast<int64_t>(r.gb.size()));
  for (size_t i = 0; i < r.gb.size(); ++i) CHECK(b.grad()[static_cast<int64_t>(i)].item<double>() == Approx(r.gb[i]).epsilon(1e-10));
}

}  // namespace

TEST_CASE("convolution of every rank, plain and transposed, float32 (oneDNN) against the reference", "[conv]") {
  torch::manual_seed(11);
  for (const Spec& c : kSpecs) check_against_reference(c, at::kFloat, 1e-4);
}

TEST_CASE("convolution of every rank, plain and transposed, float64 (direct loops) against the reference", "[conv]") {
  torch::manual_seed(12);
  for (const Spec& c : kSpecs) check_against_reference(c, at::kDouble, 1e-12);
}

TEST_CASE("conv_transpose, conv1d/3d and padding \"same\" match values recorded from libtorch", "[conv]") {
  // Sums and weighted sums printed by libtorch 2.15 (double) for the same pattern inputs.
  check_recorded("conv_transpose2d stride 2 padding 1", {2, 4, 3, 3}, {4, 3, 4, 4}, 3,
                 [](auto x, auto w, auto b) { return at::conv_transpose2d(x, w, b, 2, 1); },
                 {119.62589654409, 0.426156322342581, -19.0129419545586, -7.4421291286209, 2.07424752739948, -82.2560849313202,
                  {3.04973295977, 7.83366480875, -6.09436365874}});
  check_recorded("conv_transpose2d grouped, output_padding, dilation", {1, 4, 3, 4}, {4, 2, 3, 3}, 4,
                 [](auto x, auto w, auto b) { return at::conv_transpose2d(x, w, b, {2, 3}, {1, 0}, {1, 2}, 2, {1, 2}); },
                 {166.301087019707, -2.43874991977418, -1.27131642329121, 43.4572499869834, -0.738897125351952, -2.50804356236993,
                  {6.14829725275, -4.32031054652, 1.32575257402, 2.02678541923}});
  check_recorded("conv_transpose1d output_padding 1 >= stride 1 (dilation 2)", {1, 2, 6}, {2, 2, 3}, 2,
                 [](auto x, auto w, auto b) { return at::conv_transpose1d(x, w, b, 1, 1, 1, 1, 2); },
                 {1.56466238360698, 1.84958327891951, -5.82079538508534, -3.28726302097228, 2.11670734363119, 17.0303287088217,
                  {6.43427687163, -5.34276009225}});
  check_recorded("conv_transpose3d", {1, 2, 2, 3, 3}, {2, 3, 2, 3, 3}, 3,
                 [](auto x, auto w, auto b) { return at::conv_transpose3d(x, w, b, {2, 1, 2}, {0, 1, 1}, {1, 0, 1}); },
                 {140.219331682086, -0.0941893493412443, 69.2222058496291, 44.7755933823055, -20.7404389460472, 17.8361220548304,
                  {4.47784920739, 1.54168486225, -5.37862116559}});
  check_recorded("conv1d", {2, 3, 9}, {4, 3, 3}, 4, [](auto x, auto w, auto b) { return at::conv1d(x, w, b, 2, 1); },
                 {12.8818775178637, -1.38360792073369, 26.2412527627358, 17.6385934179086, -0.300698227527721, -0.346774564308871,
                  {5.5259291227, 7.51653441908, -4.46253190061, -8.14786845708}});
  check_recorded("conv3d grouped", {1, 4, 3, 4, 4}, {4, 2, 2, 2, 2}, 4,
                 [](auto x, auto w, auto b) { return at::conv3d(x, w, b, 1, {0, 1, 0}, 1, 2); },
                 {32.1595557075425, -5.60762395596464, -45.6099778133409, -11.4413588761283, 27.2511373003004, -0.686715575594507,
                  {6.45531081761, -5.44577913927, 3.46831752906, -0.874398977823}});
  check_recorded("conv2d padding same, even kernel", {1, 2, 5, 6}, {3, 2, 2, 3}, 3,
                 [](auto x, auto w, auto b) { return at::conv2d(x, w, b, 1, "same", {1, 2}); },
                 {62.1131624663714, -2.78681055936526, -12.630979899291, -2.80092601959826, -7.47299769379132, -31.8609159350497,
                  {6.45531081761, -5.44577913927, 3.46831752906}});
  // Full outputs (libtorch 2.15).
  const at::Tensor y1 = at::conv_transpose1d(pat({1, 2, 6}, 0.37, 0.5), pat({2, 2, 3}, 0.11, -0.3), pat({2}, 1.3, 0.2), 1, 1, 1, 1, 2);
  const std::vector<double> e1 = {-0.00903861400919, -0.0963262287227, -0.441421541308, -0.513937542099, -0.869550300518,
                                  -0.616465022826,   -0.812019035957,  -0.352291828648, -0.400665672188, 1.05324749045,
                                  1.18704632112,     0.76672097272,    0.8193176982,    0.30224701094,   0.487120066181,
                                  0.132315669862,    0.536360437367,   0.39200250304};
  REQUIRE(y1.numel() == 18);
  for (int64_t i = 0; i < 18; ++i) CHECK(y1.flatten()[i].item<double>() == Approx(e1[static_cast<size_t>(i)]).epsilon(1e-9));
  // float32 through oneDNN (a negative right padding in the canonical convolution) agrees too.
  const at::Tensor y1f = at::conv_transpose1d(pat({1, 2, 6}, 0.37, 0.5).to(at::kFloat), pat({2, 2, 3}, 0.11, -0.3).to(at::kFloat),
                                              pat({2}, 1.3, 0.2).to(at::kFloat), 1, 1, 1, 1, 2);
  CHECK(max_rel_err_nd(y1f, y1) < 1e-6);
  const at::Tensor y2 = at::conv1d(pat({1, 2, 7}, 0.37, 0.5), pat({1, 2, 4}, 0.11, -0.3), {}, 1, "same");
  const std::vector<double> e2 = {-0.508500347634, -1.02042189007, -1.41302762788, -1.61438670506,
                                  -1.59724611515,  -1.10856447027, -0.62800698558};
  REQUIRE(y2.numel() == 7);
  for (int64_t i = 0; i < 7; ++i) CHECK(y2.flatten()[i].item<double>() == Approx(e2[static_cast<size_t>(i)]).epsilon(1e-9));
}

TEST_CASE("transposed convolution: non-contiguous, unbatched and empty inputs", "[conv]") {
  torch::manual_seed(13);
  const at::Tensor w = torch::randn({4, 3, 3, 3});
  const at::Tensor x = torch::randn({2, 4, 5, 6});
  const at::Tensor y = at::conv_transpose2d(x, w, {}, 2, 1, 1);
  REQUIRE(y.sizes() == at::IntArrayRef{2, 3, 10, 12});
  // channels-last and transposed-view inputs give the same numbers
  CHECK(max_rel_err_nd(at::conv_transpose2d(x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}), w, {}, 2, 1, 1), y) < 1e-6);
  CHECK(max_rel_err_nd(at::conv_transpose2d(x.transpose(2, 3).contiguous().transpose(2, 3), w, {}, 2, 1, 1), y) < 1e-6);
  // unbatched
  CHECK(at::equal(at::conv_transpose2d(x[1], w, {}, 2, 1, 1), y[1]));
  const at::Tensor x1 = torch::randn({3, 7}), w1 = torch::randn({3, 2, 3});
  CHECK(at::equal(at::conv_transpose1d(x1, w1, {}, 2), at::conv_transpose1d(x1.unsqueeze(0), w1, {}, 2)[0]));
  const at::Tensor x3 = torch::randn({2, 3, 3, 4}), w3 = torch::randn({2, 2, 2, 2, 2});
  CHECK(at::equal(at::conv_transpose3d(x3, w3), at::conv_transpose3d(x3.unsqueeze(0), w3)[0]));
  const at::Tensor wc = torch::randn({2, 3, 2});
  CHECK(at::equal(at::conv1d(x1, wc), at::conv1d(x1.unsqueeze(0), wc)[0]));
  // an empty batch keeps its output shape and gives zero weight and bias gradients
  at::Tensor xe = torch::randn({0, 4, 5, 6}).requires_grad_(true), we = w.clone().requires_grad_(true);
  at::Tensor be = torch::randn({3}).requires_grad_(true);
  at::Tensor ye = at::conv_transpose2d(xe, we, be, 2, 1, 1);
  CHECK(ye.sizes() == at::IntArrayRef{0, 3, 10, 12});
  ye.sum().backward();
  CHECK(we.grad().abs().sum().item<double>() == 0);
  CHECK(be.grad().abs().sum().item<double>() == 0);
}

TEST_CASE("conv padding \"same\" and \"valid\"", "[conv]") {
  torch::manual_seed(14);
  // Even kernels pad one more on the right: same as an explicit right pad then symmetric padding.
  const at::Tensor x = torch::randn({2, 3, 7, 6}, at::kDouble), w = torch::randn({4, 3, 4, 3}, at::kDouble);
  const at::Tensor y = at::conv2d(x, w, {}, 1, "same", {1, 2});
  CHECK(y.sizes() == at::IntArrayRef{2, 4, 7, 6});
  // H: total 3 -> (1, 2); W: total 4 -> (2, 2)
  const at::Tensor manual = at::conv2d(at::constant_pad_nd(x, {0, 0, 0, 1}), w, {}, 1, {1, 2}, {1, 2});
  CHECK(max_rel_err_nd(y, manual) < 1e-12);
  CHECK(at::equal(at::conv2d(x, w, {}, 1, "valid"), at::conv2d(x, w)));
  const at::Tensor x1 = torch::randn({3, 9}), w1 = torch::randn({2, 3, 4});
  CHECK(at::conv1d(x1, w1, {}, 1, "same").sizes() == at::IntArrayRef{2, 9});
  const at::Tensor x3 = torch::randn({1, 2, 4, 5, 6}), w3 = torch::randn({3, 2, 2, 3, 4});
  CHECK(at::conv3d(x3, w3, {}, 1, "same", 2).sizes() == at::IntArrayRef{1, 3, 4, 5, 6});
}

TEST_CASE("convolution argument errors of every rank", "[conv]") {
  const at::Tensor x1 = torch::ones({1, 2, 7}), w1 = torch::ones({3, 2, 3});
  CHECK_THROWS_WITH(at::conv1d(torch::ones({1, 2, 3, 3}), w1),
                    Catch::Contains("[conv1d] expected a 2-D (C, L) or 3-D (N, C, L) input; got input [1, 2, 3, 3]"));
  CHECK_THROWS_WITH(at::conv3d(torch::ones({2, 3}), torch::ones({1, 2, 1, 1, 1})),
                    Catch::Contains("[conv3d] expected a 4-D (C, D, H, W) or 5-D (N, C, D, H, W) input"));
  CHECK_THROWS_WITH(at::conv1d(x1, torch::ones({3, 2, 3, 3})), Catch::Contains("[conv1d] expected a 3-D weight"));
  CHECK_THROWS_WITH(at::conv1d(x1, w1, {}, 2, "same"), Catch::Contains("[conv1d] expected stride 1 with padding \"same\""));
  CHECK_THROWS_WITH(at::conv1d(x1, w1, {}, 1, "full"), Catch::Contains("[conv1d] expected padding \"same\" or \"valid\"; got \"full\""));
  CHECK_THROWS_WITH(at::conv1d(x1, w1, {}, {1, 1}), Catch::Contains("[conv1d] expected stride to have 1 or 1 values"));
  CHECK_THROWS_WITH(at::conv3d(torch::ones({1, 2, 3, 3, 3}), torch::ones({2, 3, 1, 1, 1})),
                    Catch::Contains("[conv3d] expected weight.size(1) * groups (3 * 1) to equal the input channels (2)"));
  // transposed
  const at::Tensor x2 = torch::ones({1, 2, 3, 3}), w2 = torch::ones({2, 2, 3, 3});
  CHECK_THROWS_WITH(at::conv_transpose2d(x2, w2, {}, 1, 0, 1),
                    Catch::Contains("[conv_transpose2d] expected each output_padding to be non-negative and smaller than its stride or its dilation"));
  CHECK_THROWS_WITH(at::conv_transpose2d(x2, w2, {}, 2, 0, -1), Catch::Contains("[conv_transpose2d] expected each output_padding"));
  CHECK_THROWS_WITH(at::conv_transpose2d(x2, torch::ones({3, 2, 3, 3})),
                    Catch::Contains("[conv_transpose2d] expected weight.size(0) (3) to equal the input channels (2)"));
  CHECK_THROWS_WITH(at::conv_transpose2d(x2, w2, torch::ones({2 + 1})), Catch::Contains("[conv_transpose2d] expected a 1-D bias of 2"));
  CHECK_THROWS_WITH(at::conv_transpose2d(torch::ones({1, 3, 3, 3}), torch::ones({3, 2, 3, 3}), {}, 1, 0, 0, 2),
                    Catch::Contains("[conv_transpose2d] expected input channels (3) divisible by groups (2)"));
  CHECK_THROWS_WITH(at::conv_transpose1d(torch::ones({1, 2, 1}), torch::ones({2, 2, 1}), {}, 1, 1),
                    Catch::Contains("[conv_transpose1d] expected an output size of at least 1"));
  CHECK_THROWS_WITH(at::conv_transpose1d(torch::ones({1, 2, 3}, at::kLong), torch::ones({2, 2, 1}, at::kLong)),
                    Catch::Contains("[conv_transpose1d] expected a floating point input"));
  CHECK_THROWS_WITH(at::conv_transpose3d(torch::ones({2, 3, 3}), torch::ones({2, 2, 3, 3, 3})),
                    Catch::Contains("[conv_transpose3d] expected a 4-D (C, D, H, W) or 5-D (N, C, D, H, W) input"));
  CHECK_THROWS_WITH(at::conv_transpose3d(torch::ones({1, 2, 3, 3}), torch::ones({2, 2, 3, 3})),
                    Catch::Contains("[conv_transpose3d] expected a 5-D weight (in_channels, out_channels / groups, kernel sizes)"));
  // the primitive itself
  CHECK_THROWS_WITH(at::convolution(torch::ones({1, 2, 3, 3, 3, 3}), torch::ones({2, 2, 1, 1, 1, 1}), {}, {1}, {0}, {1}, false, {0}, 1),
                    Catch::Contains("[convolution] expected a 3-D (N, C, L), 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input"));
  CHECK_THROWS_WITH(at::convolution(x2, w2, {}, {1, 1}, {0, 0}, {1, 1}, true, {0, 0, 0}, 1),
                    Catch::Contains("[convolution] expected output_padding to have 1 or 2 values"));
  CHECK_THROWS_WITH(at::convolution_backward(torch::ones({1, 2, 4, 4}), x2, w2, {{2}}, {1, 1}, {0, 0}, {1, 1}, true, {0, 0}, 1,
                                             {true, true, true}),
                    Catch::Contains("[convolution_backward] expected grad_output of shape [1, 2, 5, 5]"));
}
