// CUDA matrix products against the CPU (or a float64 CPU reference): sizes past one tile and one
// cuBLAS block, transposed / strided / offset / expanded operands, integer wrap-around, empty
// products, beta == 0 with NaN in self, reduced-precision dtypes, the TF32 switch, dot, and
// cuBLAS handles on another thread. Every test skips with a warning when no device is present.
#include "op_test_util.h"
#include <torch/torch.h>
#include <cmath>
#include <string>
#include <thread>
#include "cuda/cuda_test_util.h"

namespace {

at::Tensor matmul_input(std::vector<int64_t> shape, at::ScalarType dt, const std::string& layout, ember_test::Rng& rng, double lo = -1.0,
                 double hi = 1.0) {
  return ember_test::make_input(std::move(shape), dt, layout, lo, hi, rng);
}

// The CUDA result against the CPU one: same dtype and shape, values within `tol` relative.
void check_same(const at::Tensor& gpu, const at::Tensor& cpu, double tol) {
  REQUIRE(gpu.is_cuda());
  CHECK(gpu.scalar_type() == cpu.scalar_type());
  ember_test::assert_close(gpu.to(at::kCPU), cpu, tol);
}

// Restores the TF32 switch at scope exit, so a failing check cannot leak it into other tests.
struct TF32Guard {
  bool prev = at::globalContext().allowTF32CuBLAS();
  ~TF32Guard() { at::globalContext().setAllowTF32CuBLAS(prev); }
};

}  // namespace

TEST_CASE("CUDA mm: a large float32 product matches the CPU", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(7);
  at::Tensor a = matmul_input({513, 1025}, at::kFloat, "contiguous", rng), b = matmul_input({1025, 257}, at::kFloat, "contiguous", rng);
  at::Tensor ref = at::mm(a, b);
  check_same(at::mm(a.to(kGpu), b.to(kGpu)), ref, 1e-4);
  // float64 goes through cuBLAS's DGEMM.
  at::Tensor ad = a.to(at::kDouble), bd = b.to(at::kDouble);
  check_same(at::mm(ad.to(kGpu), bd.to(kGpu)), at::mm(ad, bd), 1e-12);
}

TEST_CASE("CUDA mm: transposed, strided, offset and expanded operands", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(11);
  for (at::ScalarType dt : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kInt, at::kLong}) {
    for (const char* la : {"contiguous", "transposed", "strided", "offset", "expanded"}) {
      for (const char* lb : {"contiguous", "transposed", "strided", "offset"}) {
        DYNAMIC_SECTION(c10::dtypeName(dt) << " self " << la << ", mat2 " << lb) {
          const double lo = c10::isFloatingType(dt) ? -1.0 : -50.0, hi = -lo;
          at::Tensor a = matmul_input({67, 45}, dt, la, rng, lo, hi), b = matmul_input({45, 33}, dt, lb, rng, lo, hi);
          check_same(at::mm(a.to(kGpu), b.to(kGpu)), at::mm(a, b), ember_test::tol(dt));
          // A view made on the device (not a copy of a CPU view) keeps its strides: t() of a
          // CUDA tensor is passed to cuBLAS transposed.
          at::Tensor at_ = a.t().contiguous(), bt = b.t().contiguous();
          check_same(at::mm(at_.to(kGpu).t(), bt.to(kGpu).t()), at::mm(a, b), ember_test::tol(dt));
        }
      }
    }
  }
  // Single rows and columns (size-1 dims with any stride) and a slice with a row stride past the width.
  at::Tensor a = matmul_input({1, 40}, at::kFloat, "contiguous", rng), b = matmul_input({40, 1}, at::kFloat, "contiguous", rng);
  check_same(at::mm(a.to(kGpu), b.to(kGpu)), at::mm(a, b), 1e-4);
  check_same(at::mm(b.to(kGpu).t(), a.to(kGpu).t()), at::mm(b.t(), a.t()), 1e-4);
  at::Tensor wide = matmul_input({30, 64}, at::kFloat, "contiguous", rng);
  check_same(at::mm(wide.to(kGpu).narrow(1, 3, 20), b.narrow(0, 0, 20).to(kGpu)), at::mm(wide.narrow(1, 3, 20), b.narrow(0, 0, 20)),
             1e-4);
}

TEST_CASE("CUDA bmm and baddbmm: expanded batches, broadcast self, beta and alpha", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(21);
  for (at::ScalarType dt : {at::kFloat, at::kDouble, at::kBFloat16, at::kLong}) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      const double lo = c10::isFloatingType(dt) ? -1.0 : -20.0, hi = -lo;
      // A batch broadcast from one matrix (batch stride 0) on either side.
      at::Tensor a = matmul_input({8, 37, 29}, dt, "expanded", rng, lo, hi), b = matmul_input({8, 29, 41}, dt, "contiguous", rng, lo, hi);
      check_same(at::bmm(a.to(kGpu), b.to(kGpu)), at::bmm(a, b), ember_test::tol(dt));
      at::Tensor c = matmul_input({8, 37, 29}, dt, "contiguous", rng, lo, hi), d = matmul_input({8, 29, 41}, dt, "expanded", rng, lo, hi);
      check_same(at::bmm(c.to(kGpu), d.to(kGpu)), at::bmm(c, d), ember_test::tol(dt));
      // Transposed matrices inside each batch (made on the device).
      at::Tensor ct = c.transpose(1, 2).contiguous().to(kGpu).transpose(1, 2);
      check_same(at::bmm(ct, d.to(kGpu)), at::bmm(c, d), ember_test::tol(dt));
      // baddbmm with self broadcast from a row; integer products take integer beta/alpha.
      at::Tensor self = matmul_input({41}, dt, "contiguous", rng, lo, hi);
      const double beta = c10::isFloatingType(dt) ? 0.5 : 2.0, alpha = c10::isFloatingType(dt) ? -1.5 : 3.0;
      check_same(at::baddbmm(self.to(kGpu), c.to(kGpu), d.to(kGpu), beta, alpha), at::baddbmm(self, c, d, beta, alpha),
                 ember_test::tol(dt));
    }
  }
  // A batch of 70000 tiny matrices: more batches than one grid dimension holds (tiled kernel).
  at::Tensor x = matmul_input({70000, 2, 3}, at::kInt, "contiguous", rng, -9, 9), y = matmul_input({70000, 3, 2}, at::kInt, "contiguous", rng, -9, 9);
  check_same(at::bmm(x.to(kGpu), y.to(kGpu)), at::bmm(x, y), 0.0);
}

TEST_CASE("CUDA addmm: beta == 0 ignores NaN and inf in self; empty products", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(31);
  at::Tensor self = at::empty({5, 6}, at::kFloat).fill_(std::nan(""));
  self.narrow(0, 0, 2).fill_(INFINITY);
  at::Tensor m1 = matmul_input({5, 7}, at::kFloat, "contiguous", rng), m2 = matmul_input({7, 6}, at::kFloat, "transposed", rng);
  at::Tensor got = at::addmm(self.to(kGpu), m1.to(kGpu), m2.to(kGpu), 0.0, 2.0).to(at::kCPU);
  check_same(got.to(kGpu), at::addmm(self, m1, m2, 0.0, 2.0), 1e-4);
  CHECK_FALSE(got.isnan().any().item<bool>());
  // k == 0: the product is zero, the result beta * self (broadcast), or zeros for beta == 0.
  at::Tensor s = matmul_input({6}, at::kFloat, "contiguous", rng);
  at::Tensor e1 = at::empty({5, 0}, at::kFloat), e2 = at::empty({0, 6}, at::kFloat);
  check_same(at::addmm(s.to(kGpu), e1.to(kGpu), e2.to(kGpu), 0.5, 1.0), at::addmm(s, e1, e2, 0.5, 1.0), 0.0);
  check_same(at::addmm(s.to(kGpu), e1.to(kGpu), e2.to(kGpu), 0.0, 1.0), at::addmm(s, e1, e2, 0.0, 1.0), 0.0);
  check_same(at::mm(e1.to(kGpu), e2.to(kGpu)), at::mm(e1, e2), 0.0);
  // Integer: beta scales as an integer (3 * self, still int64).
  at::Tensor li = matmul_input({5, 6}, at::kLong, "contiguous", rng, -5, 5);
  check_same(at::addmm(li.to(kGpu), e1.to(at::kLong).to(kGpu), e2.to(at::kLong).to(kGpu), 3, 1),
             at::addmm(li, e1.to(at::kLong), e2.to(at::kLong), 3, 1), 0.0);
  // m == 0 or n == 0: empty results of the right shape.
  CHECK(at::mm(at::empty({0, 4}, at::device(kGpu)), at::empty({4, 3}, at::device(kGpu))).sizes().vec() == std::vector<int64_t>{0, 3});
  CHECK(at::mm(at::empty({2, 4}, at::device(kGpu)), at::empty({4, 0}, at::device(kGpu))).sizes().vec() == std::vector<int64_t>{2, 0});
  CHECK(at::bmm(at::empty({0, 2, 4}, at::device(kGpu)), at::empty({0, 4, 3}, at::device(kGpu))).sizes().vec() ==
        std::vector<int64_t>{0, 2, 3});
}

TEST_CASE("CUDA integer products wrap around like the CPU", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(41);
  for (at::ScalarType dt : {at::kByte, at::kChar, at::kShort, at::kInt, at::kLong}) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      const double lo = dt == at::kByte ? 0.0 : -120.0, hi = dt == at::kByte ? 250.0 : 120.0;
      at::Tensor a = matmul_input({70, 130}, dt, "contiguous", rng, lo, hi), b = matmul_input({130, 50}, dt, "transposed", rng, lo, hi);
      check_same(at::mm(a.to(kGpu), b.to(kGpu)), at::mm(a, b), 0.0);
      at::Tensor self = matmul_input({70, 50}, dt, "contiguous", rng, lo, hi);
      check_same(at::addmm(self.to(kGpu), a.to(kGpu), b.to(kGpu), 2, 3), at::addmm(self, a, b, 2, 3), 0.0);
      at::Tensor x = matmul_input({130}, dt, "strided", rng, lo, hi), y = matmul_input({130}, dt, "contiguous", rng, lo, hi);
      check_same(at::dot(x.to(kGpu), y.to(kGpu)), at::dot(x, y), 0.0);
    }
  }
  // int64 products past 2^63 wrap.
  at::Tensor big = at::empty({3, 3}, at::kLong).fill_(int64_t{1} << 40);
  check_same(at::mm(big.to(kGpu), big.to(kGpu)), at::mm(big, big), 0.0);
}

TEST_CASE("CUDA float16 and bfloat16 products against a float64 reference", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(51);
  for (at::ScalarType dt : {at::kHalf, at::kBFloat16}) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      at::Tensor a = matmul_input({300, 512}, dt, "contiguous", rng), b = matmul_input({512, 200}, dt, "transposed", rng);
      // The reference multiplies the same (already rounded) inputs exactly; the result rounds once
      // to the 16-bit type (2^-11 / 2^-8 relative) plus fp32 accumulation error.
      at::Tensor ref = at::mm(a.to(at::kDouble), b.to(at::kDouble));
      at::Tensor got = at::mm(a.to(kGpu), b.to(kGpu));
      CHECK(got.scalar_type() == dt);
      ember_test::assert_close(got.to(at::kCPU).to(at::kDouble), ref, dt == at::kHalf ? 2e-3 : 1e-2);
      at::Tensor x = matmul_input({8, 300, 64}, dt, "contiguous", rng), y = matmul_input({8, 64, 96}, dt, "contiguous", rng);
      ember_test::assert_close(at::bmm(x.to(kGpu), y.to(kGpu)).to(at::kCPU).to(at::kDouble),
                               at::bmm(x.to(at::kDouble), y.to(at::kDouble)), dt == at::kHalf ? 2e-3 : 1e-2);
    }
  }
}

TEST_CASE("CUDA float32 products: TF32 is off by default and within TF32 tolerance when on", "[cuda]") {
  if (no_device()) return;
  TF32Guard restore;
  CHECK_FALSE(at::globalContext().allowTF32CuBLAS());
  ember_test::Rng rng(61);
  at::Tensor a = matmul_input({512, 1024}, at::kFloat, "contiguous", rng), b = matmul_input({1024, 256}, at::kFloat, "contiguous", rng);
  at::Tensor ref = at::mm(a.to(at::kDouble), b.to(at::kDouble));
  at::Tensor ag = a.to(kGpu), bg = b.to(kGpu);
  // Full float32: far tighter than TF32 (10-bit mantissa) could be.
  ember_test::assert_close(at::mm(ag, bg).to(at::kCPU).to(at::kDouble), ref, 1e-5);
  at::globalContext().setAllowTF32CuBLAS(true);
  CHECK(at::globalContext().allowTF32CuBLAS());
  at::Tensor tf = at::mm(ag, bg);
  CHECK(tf.scalar_type() == at::kFloat);
  // TF32 keeps 10 mantissa bits: with k = 1024 an element near zero can be off by ~1% of itself.
  ember_test::assert_close(tf.to(at::kCPU).to(at::kDouble), ref, 3e-2);
  at::globalContext().setAllowTF32CuBLAS(false);
  ember_test::assert_close(at::mm(ag, bg).to(at::kCPU).to(at::kDouble), ref, 1e-5);
}

TEST_CASE("CUDA dot matches the CPU", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(71);
  for (at::ScalarType dt : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16}) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      // Both accumulate in float64, so only the summation order differs.
      at::Tensor x = matmul_input({1 << 20}, dt, "contiguous", rng), y = matmul_input({1 << 20}, dt, "strided", rng);
      at::Tensor got = at::dot(x.to(kGpu), y.to(kGpu));
      CHECK(got.dim() == 0);
      check_same(got, at::dot(x, y), ember_test::tol(dt));
    }
  }
  at::Tensor e = at::empty({0}, at::kFloat);
  check_same(at::dot(e.to(kGpu), e.to(kGpu)), at::dot(e, e), 0.0);
  at::Tensor one = matmul_input({1}, at::kFloat, "contiguous", rng);
  check_same(at::dot(one.to(kGpu).expand({5}), one.to(kGpu).expand({5})), at::dot(one.expand({5}), one.expand({5})), 1e-6);
}

TEST_CASE("CUDA matrix products raise the CPU's errors", "[cuda]") {
  if (no_device()) return;
  auto message = [](auto&& f) { return ember_test::error_of(f); };
  at::Tensor a = at::ones({8, 64}), b = at::ones({32, 16});
  const std::string cpu = message([&] { at::mm(a, b); });
  const std::string gpu = message([&] { at::mm(a.to(kGpu), b.to(kGpu)); });
  CHECK(cpu.find("[mm] expected self.size(-1) (64) to equal mat2.size(-2) (32)") != std::string::npos);
  CHECK(gpu == cpu);
  CHECK_THROWS_WITH(at::mm(at::ones({2, 3}).to(kGpu), at::ones({3, 2}, at::kDouble).to(kGpu)), Catch::Contains("same dtype"));
  CHECK_THROWS_WITH(at::mm(at::ones({2, 3}, at::kBool).to(kGpu), at::ones({3, 2}, at::kBool).to(kGpu)),
                    Catch::Contains("[mm] expected a non-bool dtype"));
  CHECK_THROWS_WITH(at::bmm(at::ones({2, 3, 4}).to(kGpu), at::ones({3, 4, 5}).to(kGpu)), Catch::Contains("[bmm]"));
  const std::string addmm_cpu = message([&] { at::addmm(at::ones({4, 5}), at::ones({5, 7}), at::ones({7, 3})); });
  CHECK(addmm_cpu.rfind("[addmm]", 0) == 0);
  CHECK(message([&] { at::addmm(at::ones({4, 5}).to(kGpu), at::ones({5, 7}).to(kGpu), at::ones({7, 3}).to(kGpu)); }) == addmm_cpu);
  CHECK_THROWS_WITH(at::dot(at::ones({3}).to(kGpu), at::ones({4}).to(kGpu)), Catch::Contains("[dot]"));
  CHECK_THROWS_AS(at::mm(a, at::ones({64, 2}).to(kGpu)), c10::Error);  // mixed devices
}

TEST_CASE("CUDA mm from another thread gets its own cuBLAS handle", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(81);
  at::Tensor a = matmul_input({64, 48}, at::kFloat, "contiguous", rng), b = matmul_input({48, 32}, at::kFloat, "contiguous", rng);
  at::Tensor ref = at::mm(a, b);
  at::Tensor ag = a.to(kGpu), bg = b.to(kGpu);
  at::Tensor from_thread;
  std::string error;
  std::thread t([&] {
    try {
      from_thread = at::mm(ag, bg).to(at::kCPU);
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  t.join();
  CHECK(error.empty());
  REQUIRE(from_thread.defined());
  ember_test::assert_close(from_thread, ref, 1e-4);
  check_same(at::mm(ag, bg), ref, 1e-4);
}
