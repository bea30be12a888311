// The generated out= forms of non-pointwise ops (Note [Composite out= variants] in
// ATen/native/OutVariants.h): values against float64 sums written here, the rules on dtype, device,
// shape, strides, aliasing and autograd, and the libtorch spellings (out first, and the _outf form
// with out last). The generated op tests compare every such form with its functional op as well.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include "op_test_util.h"
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

namespace {
using Catch::StartsWith;

std::vector<double> values_of(const at::Tensor& t) {
  at::Tensor c = t.to(at::kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// a [n, k] @ b [k, m] in double, element by element, from the tensors' values.
std::vector<double> matmul_ref(const at::Tensor& a, const at::Tensor& b) {
  const int64_t n = a.size(0), k = a.size(1), m = b.size(1);
  std::vector<double> av = values_of(a), bv = values_of(b), r(static_cast<size_t>(n * m), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      for (int64_t p = 0; p < k; ++p) r[static_cast<size_t>(i * m + j)] += av[static_cast<size_t>(i * k + p)] * bv[static_cast<size_t>(p * m + j)];
  return r;
}

void check_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
}
}  // namespace

TEST_CASE("mm_out, cat_out, sum_out write the values into out", "[out_variants]") {
  at::Tensor a = at::arange(12, at::kFloat).reshape({3, 4}) * 0.25 - 1;
  at::Tensor b = at::arange(8, at::kFloat).reshape({4, 2}) - 3;
  at::Tensor out = at::empty({0});
  at::Tensor& r = at::mm_out(out, a, b);
  CHECK(r.is_same(out));
  CHECK(out.sizes().vec() == std::vector<int64_t>{3, 2});
  check_near(values_of(out), matmul_ref(a, b), 1e-6);

  // _outf: the same op with out last
  at::Tensor out2 = at::empty({3, 2});
  at::mm_outf(a, b, out2);
  check_near(values_of(out2), matmul_ref(a, b), 1e-6);

  at::Tensor c = at::empty({0});
  at::cat_out(c, {at::ones({2, 2}), at::zeros({1, 2})}, 0);
  CHECK(values_of(c) == std::vector<double>{1, 1, 1, 1, 0, 0});
  at::Tensor st = at::empty({0});
  at::stack_out(st, {at::ones({2}), at::zeros({2})}, 1);
  CHECK(st.sizes().vec() == std::vector<int64_t>{2, 2});
  CHECK(values_of(st) == std::vector<double>{1, 0, 1, 0});

  at::Tensor s = at::empty({0});
  at::sum_out(s, a, {1}, /*keepdim=*/true);
  CHECK(s.sizes().vec() == std::vector<int64_t>{3, 1});
  std::vector<double> av = values_of(a), want(3, 0.0);
  for (int i = 0; i < 12; ++i) want[static_cast<size_t>(i / 4)] += av[static_cast<size_t>(i)];
  check_near(values_of(s), want, 1e-6);
  // an integer result: argmax writes int64
  at::Tensor idx = at::empty({0}, at::kLong);
  at::argmax_out(idx, a, 1);
  CHECK(values_of(idx) == std::vector<double>{3, 3, 3});
}

TEST_CASE("a composite out= keeps the strides of an out of the right shape and resizes any other", "[out_variants]") {
  at::Tensor a = at::arange(6, at::kFloat).reshape({2, 3}), b = at::arange(6, at::kFloat).reshape({3, 2});
  // transposed storage, right shape: written through its strides
  at::Tensor out = at::empty({2, 2}).t();
  const std::vector<int64_t> strides = out.strides().vec();
  at::mm_out(out, a, b);
  CHECK(out.strides().vec() == strides);
  check_near(values_of(out), matmul_ref(a, b), 0);
  // a non-empty out of another shape takes the result's
  at::Tensor big = at::full({5, 7}, 3.0);
  at::mm_out(big, a, b);
  CHECK(big.sizes().vec() == std::vector<int64_t>{2, 2});
  check_near(values_of(big), matmul_ref(a, b), 0);
  // an empty result
  at::Tensor e = at::full({3}, 1.0);
  at::mm_out(e, at::ones({0, 4}), at::ones({4, 2}));
  CHECK(e.sizes().vec() == std::vector<int64_t>{0, 2});
}

// (libtorch refuses some of these, cat_out(x, {x, x}) among them; the value here is computed
// before out is written, so any aliasing gives the functional result.)
TEST_CASE("a composite out= may be one of its own inputs", "[out_variants]") {
  at::Tensor a = at::arange(9, at::kFloat).reshape({3, 3}) - 4, b = at::arange(9, at::kFloat).reshape({3, 3}).t() * 0.5;
  const std::vector<double> want = matmul_ref(a, b);
  at::mm_out(a, a, b);  // a kernel that wrote a while reading it would see its own partial results
  check_near(values_of(a), want, 1e-6);
  at::Tensor x = at::arange(4, at::kFloat);
  at::cat_out(x, {x, x}, 0);
  CHECK(values_of(x) == std::vector<double>{0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("a composite out= converts to a wider out dtype; one with a dtype argument computes in out's", "[out_variants]") {
  // 2^24 + 1 is not a float: summed in double, the 1s are kept whatever the order
  at::Tensor a = at::tensor(std::vector<float>{16777216.0f, 1.0f, 1.0f});
  at::Tensor d = at::empty({0}, at::kDouble);
  at::sum_out(d, a);
  CHECK(d.scalar_type() == at::kDouble);
  CHECK(values_of(d) == std::vector<double>{16777218.0});
  // an integer sum into int32 stays int32 (the functional one would give int64)
  at::Tensor i32 = at::empty({0}, at::kInt);
  at::cumsum_out(i32, at::tensor(std::vector<int32_t>{1, 2, 3}, at::kInt), 0);
  CHECK(i32.scalar_type() == at::kInt);
  CHECK(values_of(i32) == std::vector<double>{1, 3, 6});
  // no dtype argument: the float product, converted
  at::Tensor m = at::empty({0}, at::kDouble);
  at::mm_out(m, at::full({1, 1}, 0.1f), at::full({1, 1}, 3.0f));
  CHECK(values_of(m) == std::vector<double>{static_cast<double>(0.1f * 3.0f)});
  // cat into a wider dtype
  at::Tensor c = at::empty({0}, at::kDouble);
  at::cat_out(c, {at::ones({1}), at::zeros({1})}, 0);
  CHECK(c.scalar_type() == at::kDouble);
  CHECK(values_of(c) == std::vector<double>{1, 0});
}

TEST_CASE("a composite out= refuses a narrower dtype, an expanded out and inputs that require grad", "[out_variants]") {
  at::Tensor a = at::ones({2, 3}), b = at::ones({3, 2});
  at::Tensor l = at::empty({2, 2}, at::kLong);
  CHECK_THROWS_WITH(at::mm_out(l, a, b),
                    StartsWith("[mm_out] expected an out dtype that the result dtype Float can be cast to; got out dtype Long"));
  at::Tensor bo = at::empty({0}, at::kBool);
  CHECK_THROWS_WITH(at::cat_out(bo, {a, a}, 0), StartsWith("[cat_out] expected an out dtype that the result dtype Float"));
  at::Tensor ex = at::zeros({2, 1}).expand({2, 2});
  CHECK_THROWS_WITH(at::mm_out(ex, a, b), StartsWith("[mm_out]"));
  at::Tensor u;
  CHECK_THROWS_WITH(at::mm_out(u, a, b), StartsWith("[mm_out] expected a defined tensor for argument 'out'"));

  at::Tensor w = at::ones({3, 2}).requires_grad_(true);
  at::Tensor o = at::empty({0});
  CHECK_THROWS_WITH(at::mm_out(o, a, w), StartsWith("[mm_out] expected inputs that do not require grad"));
  CHECK_THROWS_WITH(at::cat_out(o, {a, w.t()}, 0), StartsWith("[cat_out] expected inputs that do not require grad"));
  at::Tensor og = at::empty({2, 2}).requires_grad_(true);
  CHECK_THROWS_WITH(at::mm_out(og, a, b), StartsWith("[mm_out] expected an out tensor that does not require grad"));
  {
    // without grad mode nothing is recorded, so nothing is refused
    at::NoGradGuard no_grad;
    at::mm_out(o, a, w);
    CHECK(values_of(o) == std::vector<double>{3, 3, 3, 3});
    CHECK_FALSE(o.requires_grad());
  }
}

TEST_CASE("a composite out= moves out's version counter once", "[out_variants]") {
  at::Tensor out = at::empty({2, 2});
  const auto v = out._version();
  at::mm_out(out, at::ones({2, 3}), at::ones({3, 2}));
  CHECK(out._version() == v + 1u);
}

TEST_CASE("torch:: spellings of the composite out= forms", "[out_variants]") {
  torch::Tensor a = torch::ones({2, 2}), out = torch::empty({0});
  torch::matmul_out(out, a, a);
  CHECK(values_of(out) == std::vector<double>{2, 2, 2, 2});
  torch::Tensor sel = torch::empty({0});
  torch::index_select_out(sel, torch::arange(6, torch::kFloat).reshape({3, 2}), 0, torch::tensor({2, 0}, torch::kLong));
  CHECK(values_of(sel) == std::vector<double>{4, 5, 0, 1});
}

// ---------------------------------------------------------------- several results (write_outs)

TEST_CASE("max_out, sort_out, var_mean_out write each result into its out", "[out_variants]") {
  // rows with a NaN, ±0 and ±inf: max picks the first NaN when there is one, else the largest
  at::Tensor x = at::tensor({1.5f, -2.f, 7.f, 0.f, -0.f, -INFINITY, 3.f, NAN, 2.f, INFINITY, -1.f, 4.f}).reshape({3, 4});
  at::Tensor v = at::empty({0}), i = at::empty({0}, at::kLong);
  auto r = at::max_out(v, i, x, 1);
  CHECK(std::get<0>(r).is_same(v));
  CHECK(std::get<1>(r).is_same(i));
  CHECK(v.sizes().vec() == std::vector<int64_t>{3});
  const std::vector<double> xv = values_of(x), vv = values_of(v), iv = values_of(i);
  for (int row = 0; row < 3; ++row) {
    double best = xv[row * 4];
    int64_t at_best = 0;
    for (int col = 1; col < 4; ++col) {
      const double e = xv[row * 4 + col];
      if (std::isnan(best)) break;
      if (std::isnan(e) || e > best) best = e, at_best = col;
    }
    INFO("row " << row);
    if (std::isnan(best)) CHECK(std::isnan(vv[row])); else CHECK(vv[row] == best);
    CHECK(static_cast<int64_t>(iv[row]) == at_best);
  }

  // _outf spelling, keepdim, outs of the right shape written through their strides
  at::Tensor v2 = at::empty({1, 3}).t(), i2 = at::empty({1, 3}, at::kLong).t();
  const std::vector<int64_t> s2 = v2.strides().vec();
  at::max_outf(x, 1, /*keepdim=*/true, v2, i2);
  CHECK(v2.strides().vec() == s2);
  CHECK(v2.sizes().vec() == std::vector<int64_t>{3, 1});
  CHECK(values_of(i2) == iv);

  // sort along dim 0 of a transposed input: values ascending, indices the positions they came from
  at::Tensor y = at::tensor({3.f, -1.f, 2.f, 8.f, 0.5f, -4.f}).reshape({2, 3}).t();  // [3, 2]
  at::Tensor sv = at::empty({0}), si = at::empty({0}, at::kLong);
  at::sort_out(sv, si, y, 0);
  const std::vector<double> yv = values_of(y), svv = values_of(sv), siv = values_of(si);
  for (int col = 0; col < 2; ++col) {
    std::vector<std::pair<double, int>> c;
    for (int row = 0; row < 3; ++row) c.push_back({yv[row * 2 + col], row});
    std::sort(c.begin(), c.end());
    for (int row = 0; row < 3; ++row) {
      CHECK(svv[row * 2 + col] == c[row].first);
      CHECK(static_cast<int>(siv[row * 2 + col]) == c[row].second);
    }
  }

  // var_mean over dim 1 (unbiased), against two passes in double
  at::Tensor z = at::arange(10, at::kFloat).reshape({2, 5}) * 0.3 - 1;
  at::Tensor var = at::empty({0}), mean = at::empty({0});
  at::var_mean_out(var, mean, z, at::IntArrayRef{1});
  const std::vector<double> zv = values_of(z);
  for (int row = 0; row < 2; ++row) {
    double m = 0, ss = 0;
    for (int col = 0; col < 5; ++col) m += zv[row * 5 + col];
    m /= 5;
    for (int col = 0; col < 5; ++col) ss += (zv[row * 5 + col] - m) * (zv[row * 5 + col] - m);
    CHECK(std::abs(values_of(mean)[row] - m) <= 1e-6);
    CHECK(std::abs(values_of(var)[row] - ss / 4) <= 1e-6);
  }

  // aminmax over everything, 0-dim outs
  at::Tensor mn = at::empty({0}), mx = at::empty({0});
  at::aminmax_out(mn, mx, at::tensor({2.f, -3.f, 5.f}));
  CHECK(mn.dim() == 0);
  CHECK(mn.item<float>() == -3.f);
  CHECK(mx.item<float>() == 5.f);
}

TEST_CASE("a several-result out= refuses other dtypes, shared outs, and writes nothing when it refuses", "[out_variants]") {
  at::Tensor x = at::arange(6, at::kFloat).reshape({2, 3});
  at::Tensor v = at::full({2}, 7.f), fi = at::empty({0});
  CHECK_THROWS_WITH(at::max_out(v, fi, x, 1),
                    StartsWith("[max_out] expected out argument 'max_values' of dtype Long (its result's); got dtype Float"));
  CHECK(values_of(v) == std::vector<double>{7, 7});  // the first out was not written either
  at::Tensor dv = at::empty({0}, at::kDouble), li = at::empty({0}, at::kLong);
  CHECK_THROWS_WITH(at::max_out(dv, li, x, 1), StartsWith("[max_out] expected out argument 'max' of dtype Float"));

  // one tensor for both outs, or overlapping views of one buffer: refused
  at::Tensor same = at::empty({0});
  CHECK_THROWS_WITH(at::var_mean_out(same, same, x, at::IntArrayRef{1}),
                    StartsWith("[var_mean_out] expected out arguments that do not share memory; got 'out0' and 'out1'"));
  at::Tensor buf = at::empty({3});
  at::Tensor first = buf.slice(0, 0, 2), second = buf.slice(0, 1, 3);
  CHECK_THROWS_WITH(at::var_mean_out(first, second, x, at::IntArrayRef{1}),
                    StartsWith("[var_mean_out] expected out arguments that do not share memory"));
  // disjoint views of one buffer, each of its result's shape: fine
  at::Tensor buf4 = at::zeros({4});
  at::Tensor lo = buf4.slice(0, 0, 2), hi = buf4.slice(0, 2, 4);
  at::var_mean_out(lo, hi, x, at::IntArrayRef{1});
  CHECK(values_of(buf4) == std::vector<double>{1, 1, 1, 4});

  // an expanded out, an out that requires grad, inputs that require grad
  at::Tensor ex = at::zeros({1}).expand({2});
  at::Tensor i = at::empty({0}, at::kLong);
  CHECK_THROWS_WITH(at::max_out(ex, i, x, 1), StartsWith("[max_out]"));
  at::Tensor g = at::empty({2}).requires_grad_(true);
  CHECK_THROWS_WITH(at::max_out(g, i, x, 1), StartsWith("[max_out] expected out argument 'max' not to require grad"));
  at::Tensor xg = x.clone().requires_grad_(true), o = at::empty({0});
  CHECK_THROWS_WITH(at::max_out(o, i, xg, 1), StartsWith("[max_out] expected inputs that do not require grad"));
  at::Tensor u;
  CHECK_THROWS_WITH(at::max_out(u, i, x, 1), StartsWith("[max_out]"));
}

TEST_CASE("a several-result out= leaves the out of an uncomputed result alone; versions move once", "[out_variants]") {
  // convolution_backward with only the weight gradient asked for: out0 and out2 stay as they were
  at::Tensor input = at::arange(2 * 1 * 4 * 4, at::kFloat).reshape({2, 1, 4, 4}) * 0.1;
  at::Tensor weight = at::ones({3, 1, 2, 2});
  at::Tensor go = at::ones({2, 3, 3, 3});
  at::Tensor o0 = at::full({1}, 5.f), o1 = at::empty({0}), o2 = at::full({1}, 6.f);
  const auto v0 = o0._version(), v1 = o1._version();
  at::convolution_backward_out(o0, o1, o2, go, input, weight, std::nullopt, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1,
                               {false, true, false});
  CHECK(values_of(o0) == std::vector<double>{5});
  CHECK(values_of(o2) == std::vector<double>{6});
  CHECK(o0._version() == v0);
  CHECK(o1._version() == v1 + 1u);
  REQUIRE(o1.sizes().vec() == std::vector<int64_t>{3, 1, 2, 2});
  // grad_weight[c, 0, kh, kw] = sum over n, oh, ow of input[n, 0, oh + kh, ow + kw] (grad_output all ones)
  const std::vector<double> in = values_of(input), gw = values_of(o1);
  for (int c = 0; c < 3; ++c)
    for (int kh = 0; kh < 2; ++kh)
      for (int kw = 0; kw < 2; ++kw) {
        double s = 0;
        for (int n = 0; n < 2; ++n)
          for (int oh = 0; oh < 3; ++oh)
            for (int ow = 0; ow < 3; ++ow) s += in[n * 16 + (oh + kh) * 4 + (ow + kw)];
        CHECK(std::abs(gw[c * 4 + kh * 2 + kw] - s) <= 1e-4 * (1 + std::abs(s)));
      }
}

TEST_CASE("torch:: spellings of the several-result out= forms", "[out_variants]") {
  torch::Tensor x = torch::tensor({4.f, 1.f, 3.f, 2.f});
  torch::Tensor v = torch::empty({0}), i = torch::empty({0}, torch::kLong);
  torch::topk_out(v, i, x, 2);
  CHECK(values_of(v) == std::vector<double>{4, 3});
  CHECK(values_of(i) == std::vector<double>{0, 2});
  torch::kthvalue_outf(x, 2, 0, false, v, i);
  CHECK(values_of(v) == std::vector<double>{2});
  CHECK(values_of(i) == std::vector<double>{3});
  torch::Tensor cv = torch::empty({0}), ci = torch::empty({0}, torch::kLong);
  torch::cummax_out(cv, ci, x, 0);
  CHECK(values_of(cv) == std::vector<double>{4, 4, 4, 4});
  CHECK(values_of(ci) == std::vector<double>{0, 0, 0, 0});
}

TEST_CASE("factories' out= forms make the values in out's dtype, on out's device", "[out_variants]") {
  at::Tensor z = at::full({7}, 5.0, at::kDouble);
  CHECK(&at::zeros_out(z, {2, 3}) == &z);
  CHECK(z.scalar_type() == at::kDouble);
  CHECK(z.sizes() == at::IntArrayRef({2, 3}));  // resized
  CHECK(values_of(z) == std::vector<double>(6, 0.0));
  at::Tensor i = at::empty({0}, at::kInt);
  at::arange_out(i, 0, 10, 3);
  CHECK(i.scalar_type() == at::kInt);
  CHECK(values_of(i) == std::vector<double>{0, 3, 6, 9});
  at::arange_outf(4, i);
  CHECK(values_of(i) == std::vector<double>{0, 1, 2, 3});
  at::Tensor f = at::empty({0}, at::kLong);
  at::full_out(f, {2}, 7);
  CHECK(values_of(f) == std::vector<double>{7, 7});
  at::Tensor e = at::empty({0}, at::kBool);
  at::eye_out(e, 2, 3);
  CHECK(e.scalar_type() == at::kBool);
  CHECK(values_of(e) == std::vector<double>{1, 0, 0, 0, 1, 0});
  at::Tensor l = at::empty({0}, at::kDouble);
  at::linspace_out(l, 0, 1, 5);
  CHECK(values_of(l) == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  at::logspace_out(l, 0, 2, 3, 10.0);
  CHECK(values_of(l) == std::vector<double>{1, 10, 100});
  at::ones_out(l, {2});
  CHECK(values_of(l) == std::vector<double>{1, 1});
  // An out of the right shape keeps its strides and is written through them.
  at::Tensor base = at::zeros({6});
  at::Tensor t = base.slice(0, 0, 6, 2);
  at::arange_out(t, 3);
  CHECK(values_of(base) == std::vector<double>{0, 0, 1, 0, 2, 0});
  // Random factories: the same numbers as the functional form with out's dtype, from the same seed.
  at::Tensor r = at::empty({0}, at::kDouble);
  torch::manual_seed(4);
  at::rand_out(r, {5});
  torch::manual_seed(4);
  CHECK(values_of(r) == values_of(at::rand({5}, at::kDouble)));
  at::Tensor n = at::empty({0});
  torch::manual_seed(4);
  at::normal_out(n, 1.0, 2.0, {20});
  torch::manual_seed(4);
  CHECK(values_of(n) == values_of(at::normal(1.0, 2.0, {20})));
  at::Tensor p = at::empty({0}, at::kInt);
  torch::manual_seed(4);
  at::randperm_out(p, 9);
  CHECK(p.scalar_type() == at::kInt);
  torch::manual_seed(4);
  CHECK(values_of(p) == values_of(at::randperm(9, at::kLong)));
  at::Tensor ri = at::empty({0}, at::kFloat);
  at::Generator g1 = at::make_generator<at::CPUGeneratorImpl>(3), g2 = at::make_generator<at::CPUGeneratorImpl>(3);
  at::randint_out(ri, -5, 5, {8}, g1);
  CHECK(values_of(ri) == values_of(at::randint(-5, 5, {8}, g2, at::kFloat)));
  // Refusals: a factory's bad arguments, an out that requires grad under grad mode.
  CHECK_THROWS_WITH(at::arange_out(i, 0, 10, 0), StartsWith("[arange] expected a nonzero step"));
  CHECK_THROWS_WITH(at::randint_out(ri, 5, 5, {2}), StartsWith("[randint] expected low < high"));
  at::Tensor g = at::zeros({2}).requires_grad_(true);
  CHECK_THROWS_WITH(at::zeros_out(g, {2}), Catch::Contains("[zeros_out]"));
}
