// CUDA convolution (cuDNN) and max pooling against the CPU: convolutions against the CPU's
// float64 direct loops (independent of cuDNN and oneDNN), pooling bit for bit against the CPU
// kernel (values, indices and the gathered gradient), on strided, dilated, grouped, padded,
// channels_last, empty and NaN/-inf inputs; the TF32, deterministic and benchmark switches;
// autograd through both; and the errors. Every test skips with a warning when no device is present.
#include "op_test_util.h"
#include <torch/torch.h>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>
#include "cuda/cuda_test_util.h"

namespace {

// Restores the cuDNN switches at scope exit, so a failing check cannot leak them into other tests.
struct CudnnSwitches {
  bool tf32 = at::globalContext().allowTF32CuDNN();
  bool det = at::globalContext().deterministicCuDNN();
  bool bench = at::globalContext().benchmarkCuDNN();
  ~CudnnSwitches() {
    at::globalContext().setAllowTF32CuDNN(tf32);
    at::globalContext().setDeterministicCuDNN(det);
    at::globalContext().setBenchmarkCuDNN(bench);
  }
};

struct ConvCase {
  std::vector<int64_t> x, w;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool bias;
  std::string layout;
};

const std::vector<ConvCase> kConvCases = {
    {{2, 3, 9, 9}, {4, 3, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, true, "contiguous"},
    {{2, 3, 10, 7}, {5, 3, 3, 2}, {2, 1}, {1, 0}, {1, 1}, 1, false, "contiguous"},
    {{1, 4, 11, 11}, {6, 2, 3, 3}, {1, 2}, {2, 1}, {2, 2}, 2, true, "contiguous"},
    {{3, 8, 8, 8}, {8, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 8, true, "contiguous"},       // depthwise
    {{2, 16, 7, 7}, {32, 16, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true, "channels_last"},  // 1x1
    {{2, 3, 6, 6}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, "channels_last"},
    {{2, 3, 6, 5}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, "transposed"},
    {{1, 2, 2, 2}, {3, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, "contiguous"},       // kernel > input
    {{8, 64, 28, 28}, {64, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, "contiguous"},  // a real layer
    {{4, 32, 17, 17}, {48, 32, 5, 5}, {2, 2}, {2, 2}, {1, 1}, 1, false, "contiguous"},
};

std::string describe(const ConvCase& c) {
  std::ostringstream os;
  os << "x " << at::IntArrayRef(c.x) << " w " << at::IntArrayRef(c.w) << " stride " << at::IntArrayRef(c.stride) << " pad "
     << at::IntArrayRef(c.padding) << " dil " << at::IntArrayRef(c.dilation) << " groups " << c.groups << " " << c.layout;
  return os.str();
}

// CUDA convolution and its three gradients in `dt` against the CPU's float64 ones.
void check_conv(const ConvCase& c, at::ScalarType dt, double tol, ember_test::Rng& rng) {
  INFO(describe(c) << " " << c10::dtypeName(dt));
  const at::Tensor x = ember_test::make_input(c.x, at::kDouble, c.layout, -1, 1, rng);
  const at::Tensor w = ember_test::make_input(c.w, at::kDouble, "contiguous", -1, 1, rng);
  const at::Tensor b = c.bias ? ember_test::make_input({c.w[0]}, at::kDouble, "contiguous", -1, 1, rng) : at::Tensor();
  // Round the inputs to `dt` first, so both sides convolve the same numbers.
  const at::Tensor xd = x.to(dt).to(at::kDouble), wd = w.to(dt).to(at::kDouble), bd = b.defined() ? b.to(dt).to(at::kDouble) : b;
  const std::optional<at::Tensor> bias_cpu = bd.defined() ? std::optional<at::Tensor>(bd) : std::nullopt;
  const at::Tensor y_ref = at::convolution(xd, wd, bias_cpu, c.stride, c.padding, c.dilation, false, {0, 0}, c.groups);
  const at::Tensor xg = x.to(dt).to(kGpu), wg = w.to(dt).to(kGpu);
  const std::optional<at::Tensor> bias_gpu = b.defined() ? std::optional<at::Tensor>(b.to(dt).to(kGpu)) : std::nullopt;
  const at::Tensor y = at::convolution(xg, wg, bias_gpu, c.stride, c.padding, c.dilation, false, {0, 0}, c.groups);
  REQUIRE(y.is_cuda());
  CHECK(y.scalar_type() == dt);
  ember_test::assert_close(y.to(at::kCPU).to(at::kDouble), y_ref, tol);

  const at::Tensor gy = ember_test::make_input(y_ref.sizes().vec(), at::kDouble, "contiguous", -1, 1, rng).to(dt).to(at::kDouble);
  auto ref = at::convolution_backward(gy, xd, wd, std::vector<int64_t>{c.w[0]}, c.stride, c.padding, c.dilation, false, {0, 0},
                                      c.groups, {true, true, true});
  auto got = at::convolution_backward(gy.to(dt).to(kGpu), xg, wg, std::vector<int64_t>{c.w[0]}, c.stride, c.padding, c.dilation,
                                      false, {0, 0}, c.groups, {true, true, true});
  ember_test::assert_close(std::get<0>(got).to(at::kCPU).to(at::kDouble), std::get<0>(ref), tol);
  ember_test::assert_close(std::get<1>(got).to(at::kCPU).to(at::kDouble), std::get<1>(ref), tol);
  ember_test::assert_close(std::get<2>(got).to(at::kCPU).to(at::kDouble), std::get<2>(ref), tol);
}

}  // namespace

TEST_CASE("cuda conv2d forward and backward match the CPU's float64 loops", "[cuda][conv]") {
  if (no_device()) return;
  CudnnSwitches keep;
  at::globalContext().setAllowTF32CuDNN(false);
  ember_test::Rng rng(11);
  for (const auto& c : kConvCases) {
    check_conv(c, at::kFloat, 2e-5, rng);
    check_conv(c, at::kDouble, 1e-12, rng);
  }
  // Reduced precision: cuDNN accumulates in float32; the error is the output's rounding.
  for (size_t i = 0; i < 4; ++i) {
    check_conv(kConvCases[i], at::kHalf, 4e-3, rng);
    check_conv(kConvCases[i], at::kBFloat16, 3e-2, rng);
  }
}

TEST_CASE("cuda conv2d switches: TF32, deterministic, benchmark", "[cuda][conv]") {
  if (no_device()) return;
  CudnnSwitches keep;
  ember_test::Rng rng(12);
  const ConvCase& c = kConvCases[8];
  at::globalContext().setAllowTF32CuDNN(true);  // libtorch's default: TF32 error (~1e-3), not a wrong result
  check_conv(c, at::kFloat, 2e-2, rng);
  at::globalContext().setAllowTF32CuDNN(false);
  at::globalContext().setBenchmarkCuDNN(true);  // timed algorithm choice, same numbers
  check_conv(c, at::kFloat, 2e-5, rng);
  check_conv(kConvCases[2], at::kFloat, 2e-5, rng);
  at::globalContext().setBenchmarkCuDNN(false);
  at::globalContext().setDeterministicCuDNN(true);
  const at::Tensor x = torch::randn({8, 64, 28, 28}, torch::TensorOptions().device(kGpu));
  const at::Tensor w = torch::randn({64, 64, 3, 3}, torch::TensorOptions().device(kGpu));
  const at::Tensor gy = torch::randn({8, 64, 28, 28}, torch::TensorOptions().device(kGpu));
  auto r1 = at::convolution_backward(gy, x, w, std::nullopt, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1, {true, true, false});
  auto r2 = at::convolution_backward(gy, x, w, std::nullopt, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1, {true, true, false});
  CHECK(torch::equal(std::get<0>(r1).cpu(), std::get<0>(r2).cpu()));
  CHECK(torch::equal(std::get<1>(r1).cpu(), std::get<1>(r2).cpu()));
  CHECK_FALSE(std::get<2>(r1).defined());
}

TEST_CASE("cuda conv2d: empty batches and channels, autograd, errors", "[cuda][conv]") {
  if (no_device()) return;
  CudnnSwitches keep;
  at::globalContext().setAllowTF32CuDNN(false);
  const auto opts = torch::TensorOptions().device(kGpu);
  // No samples: an empty result of the right shape.
  at::Tensor y0 = torch::conv2d(torch::ones({0, 3, 5, 5}, opts), torch::ones({2, 3, 3, 3}, opts));
  CHECK(y0.sizes() == at::IntArrayRef({0, 2, 3, 3}));
  // No input channels: the bias alone (the sum over nothing is 0), as on the CPU.
  at::Tensor bias = torch::tensor({1.5, -2.0}, opts.dtype(torch::kFloat));
  at::Tensor y1 = torch::conv2d(torch::ones({2, 0, 5, 5}, opts), torch::ones({2, 0, 3, 3}, opts), bias);
  CHECK(torch::equal(y1.cpu(), torch::conv2d(torch::ones({2, 0, 5, 5}), torch::ones({2, 0, 3, 3}), bias.cpu())));

  // Autograd through conv2d on CUDA against the same graph on the CPU (float64).
  ember_test::Rng rng(13);
  const at::Tensor x = ember_test::make_input({2, 3, 8, 8}, at::kDouble, "contiguous", -1, 1, rng);
  const at::Tensor w = ember_test::make_input({4, 3, 3, 3}, at::kDouble, "contiguous", -1, 1, rng);
  const at::Tensor b = ember_test::make_input({4}, at::kDouble, "contiguous", -1, 1, rng);
  auto run = [&](const at::Device& dev) {
    at::Tensor xv = x.to(dev).requires_grad_(), wv = w.to(dev).requires_grad_(), bv = b.to(dev).requires_grad_();
    at::Tensor loss = torch::conv2d(xv, wv, bv, {2, 1}, {1, 1}).tanh().pow(2).sum();
    loss.backward();
    return std::vector<at::Tensor>{loss.detach().cpu(), xv.grad().cpu(), wv.grad().cpu(), bv.grad().cpu()};
  };
  auto cpu = run(at::kCPU), gpu = run(kGpu);
  for (size_t i = 0; i < cpu.size(); ++i) ember_test::assert_close(gpu[i], cpu[i], 1e-12);

  // Errors name the op and say what was expected.
  auto msg = [](auto&& f) {
    try {
      f();
    } catch (const c10::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string e1 = msg([&] { torch::conv2d(torch::ones({1, 3, 5, 5}, opts), torch::ones({2, 3, 3, 3})); });
  CHECK(e1.rfind("[convolution] expected every tensor on", 0) == 0);
  const std::string e2 =
      msg([&] { torch::conv2d(torch::ones({1, 3, 5, 5}, opts.dtype(torch::kInt)), torch::ones({2, 3, 3, 3}, opts.dtype(torch::kInt))); });
  CHECK(e2.rfind("[convolution] expected a floating point input", 0) == 0);
  const std::string e3 = msg([&] { torch::conv2d(torch::ones({1, 3, 5, 5}, opts), torch::ones({2, 3, 7, 7}, opts)); });
  CHECK(e3.rfind("[convolution] expected an output size of at least 1", 0) == 0);
}

namespace {

struct PoolCase {
  std::vector<int64_t> x, k, s, p, d;
  bool ceil;
  std::string layout;
};

const std::vector<PoolCase> kPoolCases = {
    {{2, 3, 6, 6}, {2, 2}, {}, {0, 0}, {1, 1}, false, "contiguous"},
    {{1, 2, 9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, "contiguous"},  // overlapping windows
    {{2, 2, 8, 7}, {3, 2}, {2, 1}, {1, 0}, {2, 1}, false, "contiguous"},
    {{1, 3, 7, 7}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true, "contiguous"},
    {{1, 2, 6, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true, "contiguous"},
    {{3, 5, 5}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, false, "contiguous"},
    {{2, 3, 6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, false, "channels_last"},
    {{2, 3, 6, 6}, {3, 3}, {1, 1}, {1, 1}, {3, 3}, false, "contiguous"},  // dilation past the input: empty windows
    {{16, 64, 56, 56}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, "contiguous"},  // a ResNet stem
};

}  // namespace

TEST_CASE("cuda max_pool2d_with_indices and backward match the CPU bit for bit", "[cuda][pool]") {
  if (no_device()) return;
  ember_test::Rng rng(21);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (const auto& c : kPoolCases) {
    for (at::ScalarType dt : {at::kFloat, at::kDouble, at::kInt, at::kLong, at::kByte}) {
      INFO("x " << at::IntArrayRef(c.x) << " k " << at::IntArrayRef(c.k) << " " << c.layout << " " << c10::dtypeName(dt));
      const bool fp = at::isFloatingType(dt);
      // Few distinct values, so windows hold ties; NaN and -inf planted in floating inputs.
      at::Tensor x = ember_test::make_input(c.x, dt, c.layout, fp ? -3 : 0, 4, rng);
      if (fp) x = x.round();
      if (fp) {
        at::Tensor xc = x.contiguous();
        at::Tensor flat = xc.view(-1);
        for (int64_t i = 5; i < flat.numel(); i += 37) flat.select(0, i).fill_(nan);
        for (int64_t i = 11; i < flat.numel(); i += 23) flat.select(0, i).fill_(-inf);
        x.copy_(xc);  // keeps x's layout
      }
      auto cpu = at::max_pool2d_with_indices(x, c.k, c.s, c.p, c.d, c.ceil);
      auto gpu = at::max_pool2d_with_indices(x.to(kGpu), c.k, c.s, c.p, c.d, c.ceil);
      REQUIRE(std::get<0>(gpu).is_cuda());
      CHECK(torch::equal(std::get<1>(gpu).cpu(), std::get<1>(cpu)));
      const at::Tensor vg = std::get<0>(gpu).cpu(), vc = std::get<0>(cpu);
      if (!fp) {
        CHECK(torch::equal(vg, vc));
        continue;
      }
      CHECK(torch::equal(vg.isnan(), vc.isnan()));
      CHECK(torch::equal(torch::nan_to_num(vg, 7.0), torch::nan_to_num(vc, 7.0)));
      // Gradient at the forward's own indices: the gather adds in the CPU's order.
      const at::Tensor gy = ember_test::make_input(vc.sizes().vec(), dt, "contiguous", -1, 1, rng);
      const at::Tensor gx_cpu = at::max_pool2d_with_indices_backward(gy, x, c.k, c.s, c.p, c.d, c.ceil, std::get<1>(cpu));
      const at::Tensor gx_gpu =
          at::max_pool2d_with_indices_backward(gy.to(kGpu), x.to(kGpu), c.k, c.s, c.p, c.d, c.ceil, std::get<1>(gpu));
      CHECK(torch::equal(gx_gpu.cpu(), gx_cpu));
    }
  }
}

TEST_CASE("cuda max_pool2d: float16/bfloat16, autograd, errors", "[cuda][pool]") {
  if (no_device()) return;
  ember_test::Rng rng(22);
  for (at::ScalarType dt : {at::kHalf, at::kBFloat16}) {
    // The CPU kernel has no reduced-precision path: compare with float32 on values exact in both.
    const at::Tensor x = ember_test::make_input({2, 3, 9, 9}, at::kFloat, "contiguous", -8, 8, rng).round();
    auto ref = at::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
    auto got = at::max_pool2d_with_indices(x.to(dt).to(kGpu), {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
    CHECK(std::get<0>(got).scalar_type() == dt);
    CHECK(torch::equal(std::get<0>(got).cpu().to(at::kFloat), std::get<0>(ref)));
    CHECK(torch::equal(std::get<1>(got).cpu(), std::get<1>(ref)));
  }
  // Autograd: max_pool2d on CUDA against the CPU graph.
  const at::Tensor x = ember_test::make_input({2, 2, 7, 7}, at::kDouble, "contiguous", -1, 1, rng);
  auto run = [&](const at::Device& dev) {
    at::Tensor xv = x.to(dev).requires_grad_();
    at::Tensor loss = torch::max_pool2d(xv, {3, 3}, {2, 2}, {1, 1}).pow(3).sum();
    loss.backward();
    return std::vector<at::Tensor>{loss.detach().cpu(), xv.grad().cpu()};
  };
  auto cpu = run(at::kCPU), gpu = run(kGpu);
  ember_test::assert_close(gpu[0], cpu[0], 1e-13);
  CHECK(torch::equal(gpu[1], cpu[1]));
  // Errors.
  auto msg = [](auto&& f) {
    try {
      f();
    } catch (const c10::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto opts = torch::TensorOptions().device(kGpu);
  CHECK(msg([&] { at::max_pool2d_with_indices(torch::ones({5, 5}, opts), {2, 2}); })
            .rfind("[max_pool2d_with_indices] expected a 3-D (C, H, W) or 4-D", 0) == 0);
  CHECK(msg([&] { at::max_pool2d_with_indices(torch::ones({1, 1, 5, 5}, opts), {2, 2}, {}, {2, 2}); })
            .rfind("[max_pool2d_with_indices] expected padding between 0 and half the kernel size", 0) == 0);
  auto fw = at::max_pool2d_with_indices(torch::ones({1, 1, 4, 4}, opts), {2, 2});
  CHECK(msg([&] {
          at::max_pool2d_with_indices_backward(torch::ones({1, 1, 2, 2}, opts), torch::ones({1, 1, 4, 4}, opts), {2, 2}, {2, 2},
                                               {0, 0}, {1, 1}, false, std::get<1>(fw).cpu());
        }).rfind("[max_pool2d_with_indices_backward] expected grad_output, self and indices on one CUDA device", 0) == 0);
}
