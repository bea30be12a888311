// Matrix products: error paths, broadcasting corners, large shapes against the float64 reference,
// and the no-copy paths for transposed operands.
#include <ATen/ATen.h>
#include <ATen/native/DispatchStub.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include "ops/reference_matmul.h"
#include <array>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

namespace {
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

TEST_CASE("mm shape and dtype errors", "[matmul]") {
  auto a = torch::ones({8, 64}), b = torch::ones({32, 16});
  CHECK_THROWS_WITH(torch::mm(a, b), Catch::Contains("[mm] expected self.size(-1) (64) to equal mat2.size(-2) (32)") &&
                                         Catch::Contains("[8, 64] float32"));
  CHECK_THROWS_AS(torch::mm(torch::ones({3}), torch::ones({3, 2})), c10::Error);
  CHECK_THROWS_WITH(torch::mm(torch::ones({2, 3}), torch::ones({3, 2}, torch::kDouble)), Catch::Contains("[mm]") &&
                                                                                          Catch::Contains("same dtype"));
  CHECK_THROWS_WITH(torch::bmm(torch::ones({2, 3, 4}), torch::ones({3, 4, 5})), Catch::Contains("[bmm]"));
  CHECK_THROWS_WITH(torch::bmm(torch::ones({2, 3, 4}), torch::ones({2, 5, 5})), Catch::Contains("[bmm]"));
  CHECK_THROWS_WITH(torch::addmm(torch::ones({4, 4}), torch::ones({2, 3}), torch::ones({3, 5})), Catch::Contains("addmm"));
  CHECK_THROWS_WITH(torch::dot(torch::ones({3}), torch::ones({4})), Catch::Contains("[dot]"));
  CHECK_THROWS_WITH(torch::mv(torch::ones({3, 4}), torch::ones({3})), Catch::Contains("[mv]"));
  CHECK_THROWS_WITH(torch::matmul(torch::ones({2, 3}), torch::ones({4, 5})), Catch::Contains("[matmul]"));
  CHECK_THROWS_WITH(torch::matmul(torch::ones({2, 2, 3}), torch::ones({3, 3, 5})), Catch::Contains("[matmul]"));
  CHECK_THROWS_WITH(torch::mm(torch::ones({2, 2}, torch::kBool), torch::ones({2, 2}, torch::kBool)), Catch::Contains("[mm]"));
}

TEST_CASE("mm float32 large and transposed operands", "[matmul]") {
  torch::manual_seed(0);
  auto a = torch::randn({130, 257}), b = torch::randn({257, 70});
  auto ref = ember_test::ref::mm(a, b);
  CHECK(max_rel_err(torch::mm(a, b), ref) < 1e-4);
  // Transposed views: same values, no packing copy needed.
  auto at_ = a.t().contiguous().t(), bt = b.t().contiguous().t();
  CHECK(!at_.is_contiguous());
  CHECK(max_rel_err(torch::mm(at_, bt), ref) < 1e-4);
  // Row-sliced operand (leading dimension larger than the row).
  auto wide = torch::randn({130, 300});
  auto sl = wide.slice(1, 0, 257);
  CHECK(max_rel_err(torch::mm(sl, b), ember_test::ref::mm(sl, b)) < 1e-4);
  // Repeated calls hit the primitive cache and agree.
  CHECK(max_rel_err(torch::mm(a, b), torch::mm(a, b)) == 0.0);
}

TEST_CASE("addmm alpha/beta and beta = 0 ignores NaN in self", "[matmul]") {
  auto self = torch::full({2, 2}, std::nan(""));
  auto r = torch::addmm(self, torch::ones({2, 3}), torch::ones({3, 2}), 0, 2);
  for (int64_t i = 0; i < 4; ++i) CHECK(r.view({-1})[i].item<float>() == 6.0f);
  auto r2 = torch::addmm(torch::ones({2}), torch::ones({2, 3}), torch::ones({3, 2}), 0.5, 1);
  CHECK(r2[1][0].item<float>() == 3.5f);
}

TEST_CASE("matmul broadcasting and 1-D corners", "[matmul]") {
  torch::manual_seed(1);
  auto check = [](const at::Tensor& a, const at::Tensor& b) {
    auto got = torch::matmul(a, b);
    auto ref = ember_test::ref::matmul(a, b);
    CHECK(got.sizes() == ref.sizes());
    CHECK(max_rel_err(got, ref) < 1e-4);
  };
  check(torch::randn({5}), torch::randn({5}));
  check(torch::randn({3, 5}), torch::randn({5}));
  check(torch::randn({5}), torch::randn({5, 2}));
  check(torch::randn({2, 3, 5}), torch::randn({5}));
  check(torch::randn({5}), torch::randn({4, 5, 2}));
  check(torch::randn({3, 1, 2, 5}), torch::randn({4, 5, 6}));
  check(torch::randn({1, 2, 5}), torch::randn({3, 5, 6}));
  check(torch::randn({2, 3, 5}).transpose(0, 1), torch::randn({5, 4}));
  CHECK(torch::matmul(torch::randn({4}), torch::randn({4})).dim() == 0);
  CHECK(torch::matmul(torch::randn({2, 0, 3}), torch::randn({3, 4})).sizes().vec() == std::vector<int64_t>{2, 0, 4});
}

TEST_CASE("bmm with broadcast (stride-0) batch operands", "[matmul]") {
  torch::manual_seed(2);
  auto a = torch::randn({1, 4, 6}).expand({5, 4, 6});
  auto b = torch::randn({5, 6, 3});
  CHECK(max_rel_err(torch::bmm(a, b), ember_test::ref::bmm(a, b)) < 1e-4);
  auto c = torch::randn({6, 3}).unsqueeze(0).expand({5, 6, 3});
  auto x = torch::randn({5, 4, 6});
  CHECK(max_rel_err(torch::bmm(x, c), ember_test::ref::bmm(x, c)) < 1e-4);
}

TEST_CASE("linear with and without bias", "[matmul]") {
  torch::manual_seed(3);
  auto x = torch::randn({2, 3, 8}), w = torch::randn({4, 8}), bias = torch::randn({4});
  auto y = torch::linear(x, w, bias);
  CHECK(y.sizes().vec() == std::vector<int64_t>{2, 3, 4});
  CHECK(max_rel_err(y, ember_test::ref::linear(x, w, bias)) < 1e-4);
  auto y0 = torch::linear(x, w);
  CHECK(max_rel_err(y0, ember_test::ref::matmul(x, w.t())) < 1e-4);
}

TEST_CASE("matmul in double, integers and half", "[matmul]") {
  auto a = torch::arange(12, torch::kDouble).view({3, 4}), b = torch::arange(8, torch::kDouble).view({4, 2});
  CHECK(max_rel_err(torch::mm(a, b), ember_test::ref::mm(a, b)) == 0.0);
  auto ai = torch::arange(12).view({3, 4}), bi = torch::arange(8).view({4, 2});
  auto ri = torch::mm(ai, bi);
  CHECK(ri.scalar_type() == at::kLong);
  CHECK(max_rel_err(ri, ember_test::ref::mm(ai, bi)) == 0.0);
  auto ah = a.to(at::kHalf), bh = b.to(at::kHalf);
  auto rh = torch::mm(ah, bh);
  CHECK(rh.scalar_type() == at::kHalf);
  CHECK(max_rel_err(rh, ember_test::ref::mm(a, b)) < 1e-2);
  CHECK(torch::dot(ai.view({-1}), ai.view({-1})).item<int64_t>() == 506);
}

TEST_CASE("integer addmm/baddbmm with an empty sum keep the dtype (regression, issue #9)", "[matmul]") {
  // k == 0: the result is beta * self. An integer product used to scale by a double beta, which
  // raised a [mul] cast error (libtorch returns 3 * self).
  auto self = torch::arange(6).view({2, 3});
  auto r = torch::addmm(self, torch::empty({2, 0}, torch::kLong), torch::empty({0, 3}, torch::kLong), 3, 1);
  CHECK(r.scalar_type() == at::kLong);
  CHECK(max_rel_err(r, self * 3) == 0.0);
  auto rb = torch::baddbmm(self, torch::empty({4, 2, 0}, torch::kLong), torch::empty({4, 0, 3}, torch::kLong), 2, 1);
  CHECK(rb.sizes().vec() == std::vector<int64_t>{4, 2, 3});
  CHECK(max_rel_err(rb, (self * 2).expand({4, 2, 3})) == 0.0);
}

TEST_CASE("mm cycling through many shapes, and from several threads, binds each call's own data", "[matmul]") {
  // Each thread keeps oneDNN memory bindings for its last few primitives (Note [matmul per-call
  // cost]): cycling through more shapes than that, fresh buffers of a cached shape, transposed and
  // alpha/beta variants, and several threads at once must each compute their own product.
  torch::manual_seed(5);
  std::vector<at::Tensor> as, bs, refs;
  for (int i = 0; i < 9; ++i) {
    auto a = torch::randn({3 + i, 5 + 2 * i}), b = torch::randn({5 + 2 * i, 4 + i % 3});
    if (i % 2) b = b.t().contiguous().t();  // column-major: another primitive for the same shape
    as.push_back(a);
    bs.push_back(b);
    refs.push_back(ember_test::ref::mm(a, b));
  }
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < as.size(); ++i) CHECK(max_rel_err(torch::mm(as[i], bs[i]), refs[i]) < 1e-5);
  for (int i = 0; i < 3; ++i) {
    auto a = torch::randn({8, 8}), b = torch::randn({8, 8}), c = torch::randn({8, 8});
    CHECK(max_rel_err(torch::mm(a, b), ember_test::ref::mm(a, b)) < 1e-5);
    CHECK(max_rel_err(torch::addmm(c, a, b, 0.5, 2.0), ember_test::ref::addmm(c, a, b, 0.5, 2.0)) < 1e-5);
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 30; ++r) {
        const size_t i = static_cast<size_t>(r * (t + 1)) % as.size();
        if (!torch::allclose(torch::mm(as[i], bs[i]).to(at::kDouble), refs[i], 1e-5, 1e-5)) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
}

TEST_CASE("large float32 products (Note [Large products through oneDNN's sgemm])", "[matmul]") {
  // Row-major, transposed and row-sliced operands, and addmm's alpha/beta (beta = 0 must not read
  // the uninitialised or NaN output), against one float64 reference.
  torch::manual_seed(11);
  auto a = torch::randn({512, 530}), b = torch::randn({530, 520});
  auto ref = ember_test::ref::mm(a, b);
  CHECK(max_rel_err(torch::mm(a, b), ref) < 1e-4);
  auto at_ = a.t().contiguous().t(), bt = b.t().contiguous().t();
  CHECK(max_rel_err(torch::mm(at_, b), ref) < 1e-4);
  CHECK(max_rel_err(torch::mm(a, bt), ref) < 1e-4);
  CHECK(max_rel_err(torch::mm(at_, bt), ref) < 1e-4);
  auto wide = torch::zeros({512, 600});
  wide.slice(1, 0, 530).copy_(a);
  CHECK(max_rel_err(torch::mm(wide.slice(1, 0, 530), b), ref) < 1e-4);
  auto nan_self = torch::full({512, 520}, std::nan(""));
  auto r0 = torch::addmm(nan_self, a, b, 0, 2);
  CHECK_FALSE(torch::isnan(r0).any().item<bool>());
  CHECK(max_rel_err(r0, ref * 2) < 1e-4);
  auto c = torch::randn({520});
  CHECK(max_rel_err(torch::addmm(c, a, b, 0.5, 2), ember_test::ref::axpby(c.expand({512, 520}), ref.clone(), 0.5, 2.0)) < 1e-4);
  CHECK(max_rel_err(torch::mm(a, b), torch::mm(a, b)) == 0.0);
}

TEST_CASE("operands whose rows alias in the cache are copied with longer rows (Note [Aliased leading dimensions])", "[matmul]") {
  // Leading dimensions that are multiples of 512 floats (B) and 256 (transposed A), as full
  // matrices and as column slices of wider ones, with the copy's kept buffer reused by a smaller
  // and then a larger product; addmm's beta reads the output; values against the float64
  // reference. (The copies happen on CPUs where oneDNN's float32 matmul is its jit sgemm, below
  // AVX-512; elsewhere the same calls check the other paths.)
  torch::manual_seed(13);
  struct Case { int64_t m, k, n; };
  for (Case cs : {Case{64, 96, 1024}, Case{256, 64, 512}, Case{1024, 72, 256}, Case{33, 512, 2048}, Case{256, 256, 256},
                   Case{512, 64, 1024} /* past kPadMaxRowsB: B read in place */}) {
    CAPTURE(cs.m, cs.k, cs.n);
    auto a = torch::randn({cs.m, cs.k}), b = torch::randn({cs.k, cs.n});
    auto ref = ember_test::ref::mm(a, b);
    CHECK(max_rel_err(torch::mm(a, b), ref) < 1e-4);
    auto at_ = a.t().contiguous().t();  // transposed A, leading dimension m
    CHECK(max_rel_err(torch::mm(at_, b), ref) < 1e-4);
    // Column slices: B [k, n - 8] inside rows of n floats; A^T [k, m - 3] inside rows of m.
    auto bs = b.slice(1, 0, cs.n - 8), as = at_.slice(0, 0, cs.m - 3);
    CHECK(max_rel_err(torch::mm(as, bs), ref.slice(0, 0, cs.m - 3).slice(1, 0, cs.n - 8)) < 1e-4);
    auto c = torch::randn({cs.m, cs.n});
    CHECK(max_rel_err(torch::addmm(c, at_, b, 0.5, -2), ember_test::ref::axpby(c, ref.clone(), 0.5, -2.0)) < 1e-4);
  }
  // A NaN row of B reaches every output through the copy; zeroed (with A's column), none.
  auto a = torch::randn({64, 128}), b = torch::randn({128, 1024});
  b[5] = std::nan("");
  auto r = torch::mm(a, b);
  CHECK(torch::isnan(r).all().item<bool>());
  a.select(1, 5).zero_();
  b[5] = 0;
  auto ok = torch::mm(a, b);
  CHECK_FALSE(torch::isnan(ok).any().item<bool>());
  CHECK(max_rel_err(ok, ember_test::ref::mm(a, b)) < 1e-4);
}

TEST_CASE("one row against a large matrix takes sgemm's matrix-vector path (batch-1 linear)", "[matmul]") {
  // Note [Large products through oneDNN's sgemm]: M == 1 with N, K >= 256. Sizes off the vector
  // widths, a transposed weight (linear's), a strided row, addmm's alpha/beta and NaN in a beta-0
  // self, against the float64 reference; the result does not depend on the thread count.
  torch::manual_seed(12);
  auto x = torch::randn({1, 301}), w = torch::randn({389, 301}), bias = torch::randn({389});
  auto ref = ember_test::ref::mm(x, w.t().contiguous());
  CHECK(max_rel_err(torch::mm(x, w.t()), ref) < 1e-4);
  CHECK(max_rel_err(torch::mm(x, w.t().contiguous()), ref) < 1e-4);
  auto wide = torch::zeros({2, 301});
  wide.select(0, 1).copy_(x.squeeze(0));
  CHECK(max_rel_err(torch::mm(wide.slice(0, 1, 2), w.t()), ref) < 1e-4);
  auto xs = torch::zeros({1, 602});
  xs.slice(1, 0, 602, 2).copy_(x);
  CHECK(max_rel_err(torch::mm(xs.slice(1, 0, 602, 2), w.t()), ref) < 1e-4);  // a row with stride 2
  auto lin = torch::linear(x, w, bias);
  CHECK(max_rel_err(lin, ember_test::ref::axpby(bias.unsqueeze(0), ref.clone(), 1.0, 1.0)) < 1e-4);
  auto r0 = torch::addmm(torch::full({1, 389}, std::nan("")), x, w.t(), 0, 3);
  CHECK_FALSE(torch::isnan(r0).any().item<bool>());
  CHECK(max_rel_err(r0, ref * 3) < 1e-4);
  const int saved = at::get_num_threads();
  at::set_num_threads(1);
  auto one = torch::linear(x, w, bias);
  at::set_num_threads(2);
  auto two = torch::linear(x, w, bias);
  at::set_num_threads(saved);
  CHECK(torch::equal(one, two));
}

TEST_CASE("batched small float32 products (Note [Small batched sgemm])", "[matmul]") {
  // The AVX-512 kernel for batches with M, N, K in [64, 256]: row tiles of 12 and column panels of
  // 32 with remainders (odd sizes), transposed and step-sliced operands, stride-0 batches, K = 256,
  // baddbmm's alpha/beta with NaN in a beta-0 self, against the float64 reference; the
  // same values at every thread count.
  torch::manual_seed(13);
  // {B, M, K, N}: in the kernel's range [64, 256] (M = 70: 5 row tiles of 12 and one of 10; N = 67
  // and 100: a partial last panel; odd M, K with a last panel of 31 or 1 column, whose zero
  // padding the next-panel copy inside the tiles writes), and around it (oneDNN).
  const std::vector<std::array<int64_t, 4>> shapes = {{3, 70, 65, 67},  {2, 256, 64, 256}, {64, 128, 128, 128}, {5, 64, 256, 100},
                                                      {4, 131, 97, 255}, {5, 75, 251, 129}, {3, 13, 37, 33},    {2, 1, 1, 1},
                                                      {7, 40, 100, 70}};
  for (const auto& [B, M, K, N] : shapes) {
    INFO("B " << B << " M " << M << " K " << K << " N " << N);
    auto a = torch::randn({B, M, K}), b = torch::randn({B, K, N});
    auto ref = ember_test::ref::bmm(a, b);
    CHECK(max_rel_err(torch::bmm(a, b), ref) < 1e-4);
    auto at_ = a.transpose(1, 2).contiguous().transpose(1, 2), bt = b.transpose(1, 2).contiguous().transpose(1, 2);
    CHECK(max_rel_err(torch::bmm(at_, b), ref) < 1e-4);
    CHECK(max_rel_err(torch::bmm(a, bt), ref) < 1e-4);
    CHECK(max_rel_err(torch::bmm(at_, bt), ref) < 1e-4);
    // Step-sliced: every other column of wider matrices (not a leading-dimension layout: packed
    // first), and a row slice (leading dimension above the row).
    auto aw = torch::zeros({B, M, 2 * K});
    aw.slice(2, 0, 2 * K, 2).copy_(a);
    CHECK(max_rel_err(torch::bmm(aw.slice(2, 0, 2 * K, 2), b), ref) < 1e-4);
    auto bw = torch::zeros({B, K, N + 5});
    bw.slice(2, 0, N).copy_(b);
    CHECK(max_rel_err(torch::bmm(a, bw.slice(2, 0, N)), ref) < 1e-4);
    // One matrix for the whole batch (stride 0) on either side.
    auto a0 = a.select(0, 0).unsqueeze(0).expand({B, M, K}), b0 = b.select(0, 0).unsqueeze(0).expand({B, K, N});
    CHECK(max_rel_err(torch::bmm(a0, b), ember_test::ref::bmm(a0, b)) < 1e-4);
    CHECK(max_rel_err(torch::bmm(a, b0), ember_test::ref::bmm(a, b0)) < 1e-4);
    // baddbmm: beta = 0 ignores NaN in self; alpha/beta otherwise.
    auto r0 = torch::baddbmm(torch::full({B, M, N}, std::nan("")), a, b, 0, 2);
    CHECK_FALSE(torch::isnan(r0).any().item<bool>());
    CHECK(max_rel_err(r0, ref * 2) < 1e-4);
    auto self = torch::randn({M, N});
    CHECK(max_rel_err(torch::baddbmm(self, a, b, 0.5, -1.5), ember_test::ref::baddbmm(self, a, b, 0.5, -1.5)) < 1e-4);
    // Thread counts split the batch, never a product: identical results.
    const int saved = at::get_num_threads();
    at::set_num_threads(1);
    auto one = torch::bmm(a, bt);
    at::set_num_threads(2);
    auto two = torch::bmm(a, bt);
    at::set_num_threads(saved);
    CHECK(torch::equal(one, two));
  }
  // NaN and infinity propagate as in the reference: a NaN in a row of a poisons that output row.
  auto a = torch::randn({3, 70, 80}), b = torch::randn({3, 80, 90});
  a.select(0, 1).select(0, 5).select(0, 7).fill_(std::nan(""));
  b.select(0, 2).select(0, 3).select(0, 9).fill_(INFINITY);
  auto got = torch::bmm(a, b), ref = ember_test::ref::bmm(a, b);
  CHECK(torch::isnan(got.select(0, 1).select(0, 5)).all().item<bool>());
  CHECK(torch::equal(torch::isnan(got), torch::isnan(ref.to(torch::kFloat))));
  CHECK(torch::equal(torch::isinf(got), torch::isinf(ref.to(torch::kFloat))));
}

TEST_CASE("large single float32 products through the blocked kernel (Note [Blocked sgemm])", "[matmul]") {
  // At the AVX2 level single products of 128+ rows and 2^26+ multiply-adds take Ember's own
  // blocked kernel; elsewhere the same calls check oneDNN's paths. Shapes with remainders in every
  // blocking (rows: 6-row tiles and 72-row blocks; columns: 16-column panels and the 4080-column
  // block; k: 256-step blocks and the 8-step packing transposes), each layout of each operand,
  // row-sliced and step-sliced operands, addmm's alpha/beta (beta = 0 ignores NaN in self, beta
  // = 1 adds), against the float64 reference; through the kernel, the same values at 1 and 2
  // threads (oneDNN's sgemm may split k by thread count).
  torch::manual_seed(17);
  struct Case { int64_t m, k, n; };
  // Through the kernel (128+ rows, 2^26+ multiply-adds): 131 x 259 x 4100 (two column blocks, a
  // 5-row tile, a last k block of 3: under one 8-step transpose), 145 x 463 x 1000 (a 1-row block,
  // an 8-column panel, k = 256 + 25 x 8 + 7), 1000 x 270 x 250 (a 10-column panel); as the
  // transposed product (64-127 rows, Note [Few rows through the transposed product]): 64 x 1030 x
  // 1100, 100 x 700 x 1030 (its 100 rows are the kernel's columns: 6 panels and a 4-column one),
  // 127 x 1024 x 600; around it (oneDNN): the rest (64 x 1024 x 1000 is just under 2^26).
  for (Case cs : {Case{131, 259, 4100}, Case{145, 463, 1000}, Case{1000, 270, 250}, Case{16, 1024, 16}, Case{300, 7, 257},
                  Case{64, 1024, 1000}, Case{128, 256, 256}, Case{64, 1030, 1100}, Case{100, 700, 1030},
                  Case{127, 1024, 600}, Case{63, 1100, 1100}}) {
    CAPTURE(cs.m, cs.k, cs.n);
    auto a = torch::randn({cs.m, cs.k}), b = torch::randn({cs.k, cs.n});
    auto ref = ember_test::ref::mm(a, b);
    auto at_ = a.t().contiguous().t(), bt = b.t().contiguous().t();
    CHECK(max_rel_err(torch::mm(a, b), ref) < 1e-4);
    CHECK(max_rel_err(torch::mm(at_, b), ref) < 1e-4);
    CHECK(max_rel_err(torch::mm(a, bt), ref) < 1e-4);
    CHECK(max_rel_err(torch::mm(at_, bt), ref) < 1e-4);
    // Leading dimensions above the row: a inside wider rows, b^T inside wider columns.
    auto aw = torch::zeros({cs.m, cs.k + 3}), bw = torch::zeros({cs.n + 5, cs.k});
    aw.slice(1, 0, cs.k).copy_(a);
    bw.slice(0, 0, cs.n).copy_(b.t());
    CHECK(max_rel_err(torch::mm(aw.slice(1, 0, cs.k), bw.slice(0, 0, cs.n).t()), ref) < 1e-4);
    // A step-sliced a (no leading-dimension layout: made contiguous first).
    auto as = torch::zeros({cs.m, 2 * cs.k});
    as.slice(1, 0, 2 * cs.k, 2).copy_(a);
    CHECK(max_rel_err(torch::mm(as.slice(1, 0, 2 * cs.k, 2), b), ref) < 1e-4);
    auto r0 = torch::addmm(torch::full({cs.m, cs.n}, std::nan("")), a, bt, 0, -2);
    CHECK_FALSE(torch::isnan(r0).any().item<bool>());
    CHECK(max_rel_err(r0, ref * -2) < 1e-4);
    auto c = torch::randn({cs.m, cs.n});
    CHECK(max_rel_err(torch::addmm(c, at_, b, 1, 1), ember_test::ref::axpby(c, ref.clone(), 1.0, 1.0)) < 1e-4);
    // The product's rounding error is scaled by alpha with it: 3x the bound of the alpha = 1 checks.
    // (oneDNN's AVX-512 sgemm, which these shapes take on a Zen 4, reached 4.8e-5 for mm and 1.57e-4
    // here at k = 1024-1100: a k-term float sum's error, well under its k u sum|a b| bound.)
    CHECK(max_rel_err(torch::addmm(c, a, b, 0.25, 3), ember_test::ref::axpby(c, ref.clone(), 0.25, 3.0)) < 3e-4);
    const int saved = at::get_num_threads();
    at::set_num_threads(1);
    auto one = torch::mm(at_, bt);
    at::set_num_threads(2);
    auto two = torch::mm(at_, bt);
    at::set_num_threads(saved);
    const bool kernel = cs.m >= 128 || (cs.m >= 64 && cs.n >= 128);
    if (at::native::get_cpu_capability() == at::native::CPUCapability::AVX2 && kernel && cs.m * cs.k * cs.n >= (int64_t{1} << 26))
      CHECK(torch::equal(one, two));
  }
  // NaN and infinity reach exactly the outputs they reach in the reference (a tile's padding
  // rows and columns, zeros, must not leak them elsewhere): through the kernel (150 rows) and the
  // transposed product (64 rows).
  for (Case cs : {Case{150, 600, 800}, Case{64, 1100, 1000}}) {
    CAPTURE(cs.m);
    auto a = torch::randn({cs.m, cs.k}), b = torch::randn({cs.k, cs.n});
    a[5][7] = std::nan("");
    b[3][cs.n - 1] = INFINITY;
    b[200][17] = -INFINITY;
    auto got = torch::mm(a, b), ref = ember_test::ref::mm(a, b);
    CHECK(torch::equal(torch::isnan(got), torch::isnan(ref.to(torch::kFloat))));
    CHECK(torch::equal(torch::isinf(got), torch::isinf(ref.to(torch::kFloat))));
    CHECK(torch::equal(torch::isnan(got.select(0, 5)), torch::ones({cs.n}, torch::kBool)));
  }
  // A linear with bias through the transposed product: the bias reaches every row once.
  auto x = torch::randn({64, 1024}), w = torch::randn({1100, 1024}), bias = torch::randn({1100});
  auto ref3 = ember_test::ref::mm(x, w.t()) + bias.to(torch::kDouble);
  CHECK(max_rel_err(torch::linear(x, w, bias), ref3) < 1e-4);
  CHECK(max_rel_err(torch::linear(x.view({8, 8, 1024}), w, bias).view({64, 1100}), ref3) < 1e-4);
}
