// CUDA sort and topk against the CPU kernels, exactly (values bit for bit up to NaN payloads, and
// indices): rows of 1 to 5000 elements with NaN, +-inf, -0.0 and many ties, every dtype, sort
// dims first / middle / last, non-contiguous inputs, large single rows and many short rows.
#include <ATen/ATen.h>
#include <torch/cuda.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>
#include "cuda/cuda_test_util.h"

namespace {

// Values with many ties; floating dtypes also get NaN, +-inf, -0.0 and +0.0.
at::Tensor make_values(std::vector<int64_t> shape, at::ScalarType dt, std::mt19937_64& rng) {
  at::Tensor t = at::empty(shape, at::kDouble);
  double* p = t.data_ptr<double>();
  const bool fp = c10::isFloatingType(dt);
  std::uniform_int_distribution<int> pick(0, 99);
  std::uniform_int_distribution<int> small(-6, 6);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int r = pick(rng);
    double v = small(rng);
    if (fp) {
      if (r < 6) v = std::numeric_limits<double>::quiet_NaN();
      else if (r < 9) v = std::numeric_limits<double>::infinity();
      else if (r < 12) v = -std::numeric_limits<double>::infinity();
      else if (r < 20) v = -0.0;
      else if (r < 28) v = 0.0;
      else if (r < 60) v = v / 4;  // ties at quarter steps
      else v = std::ldexp(static_cast<double>(rng() >> 11), -53) * 100 - 50;  // mostly distinct
    } else if (dt == at::kBool) {
      v = r % 2;
    } else if (dt == at::kByte) {
      v = r % 13;
    } else if (r >= 70 && dt != at::kChar) {
      v = static_cast<double>(static_cast<int64_t>(rng() % 60001) - 30000);
    }
    p[i] = v;
  }
  // -0.0 survives the conversion to every floating dtype; integer dtypes get 0.
  return t.to(dt);
}

// Bitwise equality of values (NaN equal to NaN, -0.0 distinct from +0.0) and equal indices.
void check_same(const std::tuple<at::Tensor, at::Tensor>& gpu, const std::tuple<at::Tensor, at::Tensor>& cpu) {
  const at::Tensor& gv = std::get<0>(gpu);
  const at::Tensor& gi = std::get<1>(gpu);
  const at::Tensor& cv = std::get<0>(cpu);
  const at::Tensor& ci = std::get<1>(cpu);
  REQUIRE(gv.is_cuda());
  REQUIRE(gi.is_cuda());
  REQUIRE(gv.scalar_type() == cv.scalar_type());
  REQUIRE(gi.scalar_type() == at::kLong);
  REQUIRE(gv.sizes() == cv.sizes());
  REQUIRE(gi.sizes() == ci.sizes());
  REQUIRE(gv.strides() == cv.strides());
  at::Tensor a = gv.to(at::kCPU).to(at::kDouble).contiguous(), b = cv.to(at::kDouble).contiguous();
  const double* pa = a.data_ptr<double>();
  const double* pb = b.data_ptr<double>();
  int64_t bad = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const bool same = (std::isnan(pa[i]) && std::isnan(pb[i])) || (pa[i] == pb[i] && std::signbit(pa[i]) == std::signbit(pb[i]));
    if (!same && bad++ < 5) FAIL_CHECK("values differ at flat index " << i << ": cuda " << pa[i] << ", cpu " << pb[i]);
  }
  at::Tensor ia = gi.to(at::kCPU).contiguous(), ib = ci.contiguous();
  const int64_t* qa = ia.data_ptr<int64_t>();
  const int64_t* qb = ib.data_ptr<int64_t>();
  for (int64_t i = 0; i < ia.numel(); ++i) {
    if (qa[i] != qb[i] && bad++ < 5) FAIL_CHECK("indices differ at flat index " << i << ": cuda " << qa[i] << ", cpu " << qb[i]);
  }
  CHECK(bad == 0);
}

const std::vector<at::ScalarType> kAllTypes = {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kLong,
                                               at::kInt,   at::kShort,  at::kChar, at::kByte,     at::kBool};

}  // namespace

TEST_CASE("CUDA sort matches the CPU for rows of 1 to 5000 elements", "[cuda][sort]") {
  if (no_device()) return;
  std::mt19937_64 rng(42);
  for (at::ScalarType dt : kAllTypes) {
    for (int64_t L : {1, 2, 3, 5, 16, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 2048, 4097, 5000}) {
      DYNAMIC_SECTION(c10::dtypeName(dt) << " L=" << L) {
        at::Tensor x = make_values({3, L}, dt, rng);
        at::Tensor xg = x.to(kGpu);
        for (bool desc : {false, true}) {
          check_same(at::sort(xg, -1, desc), at::sort(x, -1, desc));
        }
      }
    }
  }
}

TEST_CASE("CUDA sort along other dims and of non-contiguous inputs", "[cuda][sort]") {
  if (no_device()) return;
  std::mt19937_64 rng(7);
  for (at::ScalarType dt : kAllTypes) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      at::Tensor x = make_values({6, 37, 5}, dt, rng);
      at::Tensor xg = x.to(kGpu);
      for (int64_t d : {0, 1, 2, -1, -2}) {
        for (bool desc : {false, true}) check_same(at::sort(xg, d, desc), at::sort(x, d, desc));
      }
      // Transposed and step-sliced views.
      at::Tensor t = x.transpose(0, 2), tg = xg.transpose(0, 2);
      check_same(at::sort(tg, 1, true), at::sort(t, 1, true));
      check_same(at::sort(tg, 2), at::sort(t, 2));
      at::Tensor s = x.slice(1, 1, 37, 3), sg = xg.slice(1, 1, 37, 3);
      check_same(at::sort(sg, 1), at::sort(s, 1));
      // Expanded (stride 0) rows.
      at::Tensor e = x.select(2, 0).select(0, 0).unsqueeze(0).expand({4, 37});
      at::Tensor eg = xg.select(2, 0).select(0, 0).unsqueeze(0).expand({4, 37});
      check_same(at::sort(eg, 1, true), at::sort(e, 1, true));
      check_same(at::sort(eg, 0), at::sort(e, 0));
    }
  }
}

TEST_CASE("CUDA sort: 0-dim, empty, long rows, many short rows", "[cuda][sort]") {
  if (no_device()) return;
  std::mt19937_64 rng(11);
  at::Tensor s = at::empty({}, at::kFloat).fill_(2.5);
  check_same(at::sort(s.to(kGpu)), at::sort(s));
  check_same(at::sort(s.to(kGpu), 0, true), at::sort(s, 0, true));
  at::Tensor e = at::empty({0, 4}, at::kFloat);
  check_same(at::sort(e.to(kGpu), 1), at::sort(e, 1));
  check_same(at::sort(e.to(kGpu), 0), at::sort(e, 0));
  CHECK_THROWS_WITH(at::sort(at::empty({2, 3}, at::TensorOptions().device(kGpu)), 2), Catch::StartsWith("[sort]"));
  for (at::ScalarType dt : {at::kFloat, at::kHalf, at::kLong, at::kDouble}) {
    DYNAMIC_SECTION(c10::dtypeName(dt)) {
      at::Tensor big = make_values({2, 300000}, dt, rng);  // long segments
      check_same(at::sort(big.to(kGpu), 1), at::sort(big, 1));
      check_same(at::sort(big.to(kGpu), 1, true), at::sort(big, 1, true));
      at::Tensor many = make_values({20000, 19}, dt, rng);  // many short segments
      check_same(at::sort(many.to(kGpu), 1, true), at::sort(many, 1, true));
      check_same(at::sort(many.to(kGpu), 0), at::sort(many, 0));  // 19 rows of 20000
    }
  }
}

TEST_CASE("CUDA topk matches the CPU", "[cuda][sort]") {
  if (no_device()) return;
  std::mt19937_64 rng(5);
  for (at::ScalarType dt : kAllTypes) {
    if (dt == at::kBool) continue;
    for (int64_t L : {1, 2, 7, 33, 256, 1000, 5000}) {
      DYNAMIC_SECTION(c10::dtypeName(dt) << " L=" << L) {
        at::Tensor x = make_values({4, L}, dt, rng);
        at::Tensor xg = x.to(kGpu);
        for (int64_t k : {int64_t{0}, int64_t{1}, std::min<int64_t>(3, L), L / 2, L}) {
          for (bool largest : {true, false}) {
            check_same(at::topk(xg, k, -1, largest), at::topk(x, k, -1, largest));
            check_same(at::topk(xg, k, -1, largest, false), at::topk(x, k, -1, largest, false));
          }
        }
        // Along dim 0 of the transposed tensor.
        at::Tensor t = x.t(), tg = xg.t();
        check_same(at::topk(tg, std::min<int64_t>(2, t.size(0)), 0), at::topk(t, std::min<int64_t>(2, t.size(0)), 0));
      }
    }
  }
  at::Tensor s = at::empty({}, at::kFloat).fill_(-1.0);
  check_same(at::topk(s.to(kGpu), 1), at::topk(s, 1));
  check_same(at::topk(s.to(kGpu), 0), at::topk(s, 0));
  at::Tensor x3 = make_values({5, 40, 3}, at::kFloat, rng);
  check_same(at::topk(x3.to(kGpu), 6, 1), at::topk(x3, 6, 1));
  check_same(at::topk(x3.to(kGpu), 2, 0, false), at::topk(x3, 2, 0, false));
  at::Tensor g = at::empty({3, 4}, at::TensorOptions().device(kGpu));
  CHECK_THROWS_WITH(at::topk(g, 5), Catch::StartsWith("[topk] expected k in [0, 4]"));
  CHECK_THROWS_WITH(at::topk(g, -1), Catch::StartsWith("[topk] expected k in [0, 4]"));
  CHECK_THROWS_WITH(at::topk(g.to(at::kBool), 1), Catch::StartsWith("[topk] expected a numeric tensor"));
}
