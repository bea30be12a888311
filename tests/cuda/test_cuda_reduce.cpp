// CUDA reductions, scans and softmax on sizes the generated samples do not reach: the reduced
// range split across blocks (partial accumulators merged by a second kernel), outputs laid along
// x with a strided reduction, ties and NaN across block boundaries, scans over several tiles, and
// long softmax rows. The reference is the CPU kernel (a separate implementation).
#include "op_test_util.h"
#include <torch/cuda.h>
#include <cmath>
#include <limits>
#include "cuda/cuda_test_util.h"

namespace {

// Deterministic values in [-2, 2) with no two equal in a run of 1024 (pseudo-random walk).
at::Tensor values(std::vector<int64_t> shape, at::ScalarType dt = at::kFloat) {
  at::Tensor t = at::empty(shape, at::kDouble);
  double* p = t.data_ptr<double>();
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = static_cast<double>(s >> 11) / static_cast<double>(1ull << 53) * 4.0 - 2.0;
  }
  return t.to(dt);
}

void same_values(const at::Tensor& gpu, const at::Tensor& cpu, double tol) {
  REQUIRE(gpu.is_cuda());
  CHECK(gpu.scalar_type() == cpu.scalar_type());
  CHECK(gpu.sizes() == cpu.sizes());
  ember_test::assert_close(gpu.to(at::kCPU), cpu, tol);
}

}  // namespace

TEST_CASE("CUDA sum/mean/var/norm/logsumexp over many elements (split across blocks)", "[cuda]") {
  if (no_device()) return;
  for (int64_t n : {int64_t{1} << 20, int64_t{3000017}}) {
    at::Tensor x = values({n});
    at::Tensor g = x.to(kGpu);
    same_values(g.sum(), x.sum(), 1e-5);
    same_values(g.mean(), x.mean(), 1e-5);
    same_values(g.var(), x.var(), 1e-5);
    same_values(g.norm(), x.norm(), 1e-5);
    same_values(at::logsumexp(g, {0}), at::logsumexp(x, {0}), 1e-5);
    same_values(g.prod(), x.prod(), 1e-5);  // underflows to a tiny value: compared with the tolerance
    same_values(g.amax(), x.amax(), 0);
    same_values(g.amin(), x.amin(), 0);
  }
}

TEST_CASE("CUDA reductions over dim 0 (outputs along x) and mixed dims", "[cuda]") {
  if (no_device()) return;
  at::Tensor x = values({20000, 37});
  at::Tensor g = x.to(kGpu);
  same_values(g.sum(0), x.sum(0), 1e-5);
  same_values(g.sum({0}, true), x.sum({0}, true), 1e-5);
  same_values(g.sum(1), x.sum(1), 1e-5);
  same_values(std::get<0>(g.max(0)), std::get<0>(x.max(0)), 0);
  same_values(std::get<1>(g.max(0)), std::get<1>(x.max(0)), 0);
  same_values(g.argmin(1), x.argmin(1), 0);
  same_values(at::var(g, {0}), at::var(x, {0}), 1e-5);
  at::Tensor y = values({64, 300, 50}).transpose(0, 2);  // strided: dims (50, 300, 64)
  at::Tensor gy = y.to(kGpu).transpose(0, 2).contiguous().transpose(0, 2);
  REQUIRE(!gy.is_contiguous());
  same_values(gy.sum({0, 2}), y.sum({0, 2}), 1e-5);
  same_values(gy.amax({1}), y.amax({1}), 0);
  same_values(gy.argmax(2), y.argmax(2), 0);
}

TEST_CASE("CUDA argmax/max pick the first extreme and the first NaN across blocks", "[cuda]") {
  if (no_device()) return;
  const int64_t n = int64_t{1} << 21;
  at::Tensor x = at::empty({n}, at::kFloat).fill_(1.0);
  CHECK(x.to(kGpu).argmax().item<int64_t>() == 0);
  CHECK(x.to(kGpu).argmin().item<int64_t>() == 0);
  x[n - 5] = 7.0;
  x[n / 2 + 3] = 7.0;
  CHECK(x.to(kGpu).argmax().item<int64_t>() == n / 2 + 3);
  x[n - 9] = std::numeric_limits<float>::quiet_NaN();
  x[n - 2] = std::numeric_limits<float>::quiet_NaN();
  CHECK(x.to(kGpu).argmax().item<int64_t>() == n - 9);
  CHECK(x.to(kGpu).argmin().item<int64_t>() == n - 9);
  CHECK(std::isnan(x.to(kGpu).max().item<float>()));
  CHECK(x.to(kGpu).isnan().any().item<bool>());
  CHECK_FALSE(x.to(kGpu).isnan().all().item<bool>());
}

TEST_CASE("CUDA integer sums wrap like the CPU and dtype= converts first", "[cuda]") {
  if (no_device()) return;
  at::Tensor x = at::arange(0, 1 << 20, at::kLong).mul(1 << 20);
  same_values(x.to(kGpu).sum(), x.sum(), 0);
  at::Tensor b = at::arange(0, 70000, at::kInt).remainder(3).to(at::kChar);
  same_values(b.to(kGpu).sum(at::kChar), b.sum(at::kChar), 0);
  same_values(b.to(kGpu).sum(), b.sum(), 0);
  same_values(b.to(kGpu).prod(at::kInt), b.prod(at::kInt), 0);
}

TEST_CASE("CUDA cumsum/cumprod over several tiles", "[cuda]") {
  if (no_device()) return;
  at::Tensor x = values({3, 100003});
  same_values(x.to(kGpu).cumsum(1), x.cumsum(1), 1e-4);
  same_values(x.to(kGpu).cumsum(0), x.cumsum(0), 1e-5);
  at::Tensor near_one = values({2, 5000}).mul(1e-3).add(1.0);
  same_values(near_one.to(kGpu).cumprod(1), near_one.cumprod(1), 1e-4);
  at::Tensor ints = at::arange(0, 200000, at::kLong).remainder(7);
  same_values(ints.to(kGpu).cumsum(0), ints.cumsum(0), 0);
}

TEST_CASE("CUDA softmax/log_softmax over long rows and inner dims", "[cuda]") {
  if (no_device()) return;
  at::Tensor x = values({7, 5000}).mul(10);
  same_values(at::_softmax(x.to(kGpu), 1, false), at::_softmax(x, 1, false), 1e-6);
  same_values(at::_log_softmax(x.to(kGpu), 1, false), at::_log_softmax(x, 1, false), 1e-5);
  same_values(at::_softmax(x.to(kGpu), 0, false), at::_softmax(x, 0, false), 1e-6);
  at::Tensor h = x.to(at::kHalf);
  at::Tensor hf = at::_softmax(h.to(kGpu), 1, true);
  CHECK(hf.scalar_type() == at::kFloat);
  ember_test::assert_close(hf.to(at::kCPU), at::_softmax(h.to(at::kFloat), 1, false), 1e-6);
  CHECK_THROWS_AS(at::_softmax(x.to(kGpu), 1, true), c10::Error);  // half_to_float needs float16 input
}
