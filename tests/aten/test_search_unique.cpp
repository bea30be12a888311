// searchsorted / bucketize and the unique family. Expected values marked "libtorch" are libtorch
// 2.15's output for the same call (recorded with a small libtorch program); the random checks
// compare with std::map / std::lower_bound references written here.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

namespace {
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInfinity = std::numeric_limits<double>::infinity();

std::vector<int64_t> int_values(const at::Tensor& t) {
  at::Tensor d = t.to(at::kLong).contiguous();
  return std::vector<int64_t>(d.data_ptr<int64_t>(), d.data_ptr<int64_t>() + d.numel());
}
std::vector<double> reals(const at::Tensor& t) {
  at::Tensor d = t.to(at::kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}
using Longs = std::vector<int64_t>;
using S = std::vector<int64_t>;  // shapes
S shape(const at::Tensor& t) { return t.sizes().vec(); }
}  // namespace

// ---------------------------------------------------------------- searchsorted / bucketize

TEST_CASE("searchsorted places values like libtorch, NaN and ties included", "[search]") {
  auto seq = torch::tensor({1.0, 2.0, 2.0, 3.0, kNan});
  auto v = torch::tensor({0.0, 1.0, 2.0, 2.5, 3.0, 4.0, kNan, kInfinity, -kInfinity});
  // libtorch: a NaN at the end of the sequence counts as smaller than any value.
  CHECK(int_values(at::searchsorted(seq, v)) == Longs{0, 0, 1, 5, 5, 5, 5, 5, 0});
  CHECK(int_values(at::searchsorted(seq, v, false, true)) == Longs{0, 1, 5, 5, 5, 5, 5, 5, 0});
  at::Tensor r = at::searchsorted(seq, v, true, false, "right");
  CHECK(r.scalar_type() == at::kInt);
  CHECK(int_values(r) == Longs{0, 1, 5, 5, 5, 5, 5, 5, 0});
  CHECK(at::searchsorted(seq, v).scalar_type() == at::kLong);
  // A sorted sequence without NaN: ties go left or right.
  auto s2 = torch::tensor({1, 2, 2, 2, 5});
  CHECK(int_values(at::searchsorted(s2, torch::tensor({2, 0, 6, 5}))) == Longs{1, 0, 5, 4});
  CHECK(int_values(at::searchsorted(s2, torch::tensor({2, 0, 6, 5}), false, true)) == Longs{4, 0, 5, 5});
  CHECK(int_values(at::searchsorted(s2, torch::tensor({2, 0, 6, 5}), false, false, "right")) == Longs{4, 0, 5, 5});
}

TEST_CASE("searchsorted: scalars, mixed dtypes, lines, sorter, empty and strided", "[search]") {
  auto seq = torch::tensor({1.0, 2.0, 2.0, 3.0, kNan});
  at::Tensor s = at::searchsorted(seq, 2.0);  // libtorch: 1, 0-dim int64
  CHECK(s.dim() == 0);
  CHECK(s.item<int64_t>() == 1);
  CHECK(at::searchsorted(seq, 2, false, true).scalar_type() == at::kLong);
  // libtorch: the integer sequence and the floating values compare as numbers (2.5 is not truncated).
  CHECK(int_values(at::searchsorted(torch::tensor({1, 3, 5}), torch::tensor({2.5, 3.0}))) == Longs{1, 1});
  CHECK(int_values(at::searchsorted(torch::tensor({1.0, 3.0, 5.0}), torch::tensor({2, 3}))) == Longs{1, 1});
  CHECK(at::searchsorted(torch::tensor({1, 3, 5}), 2.5).item<int64_t>() == 1);
  CHECK(at::searchsorted(torch::tensor({1, 3, 5}), 3.5).item<int64_t>() == 2);
  CHECK(at::searchsorted(torch::tensor({1, 3, 5}), 3).item<int64_t>() == 1);
  // Per-line sequences (libtorch values).
  at::Tensor l = at::searchsorted(torch::tensor({{1, 3, 5}, {2, 4, 6}}), torch::tensor({{3, 4}, {3, 4}}));
  CHECK(shape(l) == S{2, 2});
  CHECK(int_values(l) == Longs{1, 2, 1, 1});
  // sorter (libtorch values).
  auto uns = torch::tensor({5, 1, 3});
  auto order = torch::tensor({1, 2, 0});
  CHECK(int_values(at::searchsorted(uns, torch::tensor({0, 2, 3, 6}), false, false, std::nullopt, order)) == Longs{0, 1, 1, 3});
  CHECK(int_values(at::searchsorted(uns, torch::tensor({0, 2, 3, 6}), false, true, std::nullopt, order)) == Longs{0, 1, 2, 3});
  // A sorter per line (libtorch values): each line reads its own sorter row.
  auto seq3 = torch::tensor({3., 1., 2., 6., 5., 4., 9., 7., 8.}).view({3, 3});
  auto sorter3 = torch::tensor({1, 2, 0, 2, 1, 0, 1, 2, 0}).view({3, 3});
  auto v3 = torch::tensor({2.5, 0.5, 4.5, 6.5, 8.5, 7.0}).view({3, 2});
  CHECK(int_values(at::searchsorted(seq3, v3, false, false, std::nullopt, sorter3)) == Longs{2, 0, 1, 3, 2, 0});
  CHECK(int_values(at::searchsorted(seq3, v3, false, true, std::nullopt, sorter3)) == Longs{2, 0, 1, 3, 2, 1});
  // Empty values, empty sequence, 0-dim value.
  CHECK(at::searchsorted(torch::tensor({1, 3, 5}), at::empty({0}, at::kLong)).numel() == 0);
  CHECK(int_values(at::searchsorted(at::empty({0}, at::kLong), torch::tensor({1, 2}))) == Longs{0, 0});
  at::Tensor z = at::searchsorted(torch::tensor({1, 3, 5}), torch::tensor(4));
  CHECK(z.dim() == 0);
  CHECK(z.item<int64_t>() == 2);
  // Strided sequence and values give what their contiguous copies give.
  auto big = torch::tensor({0.0, 9.0, 1.0, 9.0, 2.0, 9.0, 3.0, 9.0});
  auto vals = torch::tensor({{0.5, 2.5}, {1.0, 3.5}, {-1.0, 2.0}}).t();
  CHECK(!vals.is_contiguous());
  CHECK(int_values(at::searchsorted(big.slice(0, 0, 8, 2), vals)) == int_values(at::searchsorted(torch::tensor({0.0, 1.0, 2.0, 3.0}), vals.contiguous())));
  CHECK(int_values(at::searchsorted(big.slice(0, 0, 8, 2), vals)) == Longs{1, 1, 0, 3, 4, 2});
}

TEST_CASE("searchsorted matches std::lower_bound / upper_bound on sorted random data", "[search]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(-20, 20);
  std::vector<double> seq(200), val(500);
  for (auto& x : seq) x = pick(rng);
  for (auto& x : val) x = pick(rng) + 0.5 * (pick(rng) % 2);
  std::sort(seq.begin(), seq.end());
  auto ts = torch::tensor(seq, at::kDouble), tv = torch::tensor(val, at::kDouble);
  const Longs left = int_values(at::searchsorted(ts, tv)), right = int_values(at::searchsorted(ts, tv, false, true));
  for (size_t i = 0; i < val.size(); ++i) {
    REQUIRE(left[i] == std::lower_bound(seq.begin(), seq.end(), val[i]) - seq.begin());
    REQUIRE(right[i] == std::upper_bound(seq.begin(), seq.end(), val[i]) - seq.begin());
  }
  // float32 sequence and values: the same placements.
  CHECK(int_values(at::searchsorted(ts.to(at::kFloat), tv.to(at::kFloat))) == left);
}

TEST_CASE("bucketize like libtorch", "[search]") {
  auto b = torch::tensor({1, 3, 5});
  CHECK(int_values(at::bucketize(torch::tensor({0, 1, 3, 4, 5, 9}), b)) == Longs{0, 0, 1, 2, 2, 3});
  at::Tensor r = at::bucketize(torch::tensor({0, 1, 3, 4, 5, 9}), b, true, true);
  CHECK(r.scalar_type() == at::kInt);
  CHECK(int_values(r) == Longs{0, 1, 2, 2, 3, 3});
  at::Tensor s = at::bucketize(3, b);
  CHECK(s.dim() == 0);
  CHECK(s.item<int64_t>() == 1);
  CHECK(at::bucketize(3, b, false, true).item<int64_t>() == 2);
  CHECK(int_values(at::bucketize(torch::tensor({0.5, kNan}), torch::tensor({1.0, 3.0, kNan}))) == Longs{0, 3});  // libtorch
  CHECK(int_values(at::bucketize(torch::tensor({{0.5, 4.0}, {3.0, 1.0}}), torch::tensor({1.0, 3.0}))) == Longs{0, 2, 1, 0});
}

TEST_CASE("searchsorted and bucketize reject bad arguments", "[search]") {
  auto seq = torch::tensor({1.0, 2.0, 3.0});
  auto v = torch::tensor({1.0});
  using Catch::StartsWith;
  CHECK_THROWS_WITH(at::searchsorted(seq, v, false, true, "left"), StartsWith("[searchsorted] side='left' contradicts right=true"));
  CHECK_THROWS_WITH(at::searchsorted(seq, v, false, false, "middle"), StartsWith("[searchsorted] expected side 'left' or 'right'; got 'middle'"));
  CHECK_THROWS_WITH(at::searchsorted(torch::tensor({{1, 3, 5}, {2, 4, 6}}), 3), StartsWith("[searchsorted] expected a 1-d sorted sequence with a scalar"));
  CHECK_THROWS_WITH(at::searchsorted(torch::tensor(3), torch::tensor({3})), StartsWith("[searchsorted] expected a sorted sequence of at least 1 dim"));
  CHECK_THROWS_WITH(at::searchsorted(torch::tensor({{1, 3, 5}, {2, 4, 6}}), torch::tensor({3, 4})),
                    StartsWith("[searchsorted] expected a 1-d sorted sequence, or values whose leading dims"));
  CHECK_THROWS_WITH(at::searchsorted(torch::tensor({{1, 3, 5}, {2, 4, 6}}), torch::tensor({{3, 4}})),
                    StartsWith("[searchsorted] expected a 1-d sorted sequence, or values whose leading dims"));
  auto uns = torch::tensor({5, 1, 3});
  auto vals = torch::tensor({0, 2});
  CHECK_THROWS_WITH(at::searchsorted(uns, vals, false, false, std::nullopt, torch::tensor({1, 2, 3})),
                    StartsWith("[searchsorted] expected sorter indices in [0, 3); got values in [1, 3]"));
  CHECK_THROWS_WITH(at::searchsorted(uns, vals, false, false, std::nullopt, torch::tensor({-1, 2, 0})),
                    StartsWith("[searchsorted] expected sorter indices in [0, 3)"));
  CHECK_THROWS_WITH(at::searchsorted(uns, vals, false, false, std::nullopt, torch::tensor({1, 2})),
                    StartsWith("[searchsorted] expected a sorter of the sequence's shape"));
  CHECK_THROWS_WITH(at::searchsorted(uns, vals, false, false, std::nullopt, torch::tensor({1, 2, 0}, at::kInt)),
                    StartsWith("[searchsorted] expected an int64 sorter; got int32"));
  CHECK_THROWS_WITH(at::searchsorted(torch::tensor({true, false}), torch::tensor({true})), StartsWith("[searchsorted] expected numeric tensors"));
  CHECK_THROWS_WITH(at::bucketize(torch::tensor({0, 1}), torch::tensor({{1, 3, 5}})), StartsWith("[bucketize] expected 1-d boundaries; got 2 dims"));
  CHECK_THROWS_WITH(at::bucketize(1, torch::tensor(3)), StartsWith("[bucketize] expected 1-d boundaries; got 0 dims"));
}

// ---------------------------------------------------------------- unique

TEST_CASE("_unique2 sorts, counts and inverts like libtorch, NaN and -0.0 included", "[unique]") {
  auto u = torch::tensor({3.0, 1.0, kNan, 2.0, 1.0, kNan, 3.0, -0.0, 0.0});
  auto [val, inv, cnt] = at::_unique2(u, true, true, true);
  // libtorch: [-0, 1, 2, 3, nan, nan] / [3, 1, 4, 2, 1, 5, 3, 0, 0] / [2, 2, 1, 2, 1, 1]
  const std::vector<double> x = reals(val);
  REQUIRE(x.size() == 6);
  CHECK((x[0] == 0.0 && std::signbit(x[0])));
  CHECK((x[1] == 1.0 && x[2] == 2.0 && x[3] == 3.0 && std::isnan(x[4]) && std::isnan(x[5])));
  CHECK(int_values(inv) == Longs{3, 1, 4, 2, 1, 5, 3, 0, 0});
  CHECK(int_values(cnt) == Longs{2, 2, 1, 2, 1, 1});
  // sorted=false gives the same (libtorch's CPU result is sorted too).
  CHECK(int_values(std::get<1>(at::_unique2(u, false, true, true))) == int_values(inv));

  auto [v2, i2, c2] = at::_unique2(torch::tensor({5, 3, 5, 1, 3}), false, false, false);
  CHECK(int_values(v2) == Longs{1, 3, 5});
  CHECK((shape(i2) == S{0} && shape(c2) == S{0} && i2.scalar_type() == at::kLong));
  auto [v3, i3, c3] = at::_unique2(torch::tensor({{5, 3}, {5, 1}}), true, true, true);
  CHECK(int_values(v3) == Longs{1, 3, 5});
  CHECK(shape(i3) == S{2, 2});
  CHECK(int_values(i3) == Longs{2, 1, 2, 0});
  CHECK(int_values(c3) == Longs{1, 1, 2});
  auto [v4, i4, c4] = at::_unique2(at::empty({0}), true, true, true);
  CHECK((v4.numel() == 0 && i4.numel() == 0 && c4.numel() == 0 && v4.scalar_type() == at::kFloat));
  auto [v5, i5, c5] = at::_unique2(torch::tensor(7), true, true, true);  // libtorch: [7], 0-dim 0, [1]
  CHECK((shape(v5) == S{1} && i5.dim() == 0 && int_values(i5) == Longs{0} && int_values(c5) == Longs{1}));
  auto [v6, i6, c6] = at::_unique2(torch::tensor({true, false, true}), true, true, true);
  CHECK(v6.scalar_type() == at::kBool);
  CHECK((int_values(v6) == Longs{0, 1} && int_values(i6) == Longs{1, 0, 1} && int_values(c6) == Longs{1, 2}));
  auto [v7, i7] = at::_unique(torch::tensor({5, 3, 5, 1}), true, true);
  CHECK((int_values(v7) == Longs{1, 3, 5} && int_values(i7) == Longs{2, 1, 2, 0}));
  // A transposed input is read in its logical order.
  auto t = torch::tensor({{4, 1}, {2, 4}, {1, 9}}).t();
  auto [v8, i8, c8] = at::_unique2(t, true, true, true);
  CHECK((int_values(v8) == Longs{1, 2, 4, 9} && int_values(i8) == Longs{2, 1, 0, 0, 2, 3} && int_values(c8) == Longs{2, 1, 2, 1}));
}

TEST_CASE("_unique2 agrees with a std::map reference on random integers", "[unique]") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pick(-50, 50);
  std::vector<int64_t> data(1000);
  for (auto& x : data) x = pick(rng);
  std::map<int64_t, int64_t> count;
  for (auto x : data) ++count[x];
  auto [val, inv, cnt] = at::_unique2(torch::tensor(data), true, true, true);
  Longs keys, counts;
  for (auto& [k, c] : count) { keys.push_back(k); counts.push_back(c); }
  CHECK(int_values(val) == keys);
  CHECK(int_values(cnt) == counts);
  const Longs iv = int_values(inv);
  for (size_t i = 0; i < data.size(); ++i) REQUIRE(keys[static_cast<size_t>(iv[i])] == data[i]);
}

TEST_CASE("unique_consecutive like libtorch", "[unique]") {
  auto u = torch::tensor({3.0, 1.0, kNan, 2.0, 1.0, kNan, 3.0, -0.0, 0.0});
  auto [v, i, c] = at::unique_consecutive(u, true, true);
  CHECK(v.numel() == 8);
  CHECK(int_values(i) == Longs{0, 1, 2, 3, 4, 5, 6, 7, 7});
  CHECK(int_values(c) == Longs{1, 1, 1, 1, 1, 1, 1, 2});
  auto [v2, i2, c2] = at::unique_consecutive(torch::tensor({1, 1, 2, 2, 3, 1, 1, 2}), true, true);
  CHECK((int_values(v2) == Longs{1, 2, 3, 1, 2} && int_values(i2) == Longs{0, 0, 1, 1, 2, 3, 3, 4} && int_values(c2) == Longs{2, 2, 1, 2, 1}));
  auto m = torch::tensor({{1, 1, 2}, {1, 1, 2}, {0, 1, 2}, {1, 1, 2}});
  auto [v3, i3, c3] = at::unique_consecutive(m, true, true, 0);
  CHECK((shape(v3) == S{3, 3} && int_values(v3) == Longs{1, 1, 2, 0, 1, 2, 1, 1, 2}));
  CHECK((int_values(i3) == Longs{0, 0, 1, 2} && int_values(c3) == Longs{2, 1, 1}));
  auto [v4, i4, c4] = at::unique_consecutive(torch::tensor({{1, 1, 2}, {1, 1, 2}}), true, true, 1);
  CHECK((shape(v4) == S{2, 2} && int_values(v4) == Longs{1, 2, 1, 2} && int_values(i4) == Longs{0, 0, 1} && int_values(c4) == Longs{2, 1}));
  auto [v5, i5, c5] = at::unique_dim_consecutive(torch::tensor({{1, 1, 2}, {1, 1, 2}}), 1, true, true);
  CHECK((int_values(v5) == Longs{1, 2, 1, 2} && int_values(c5) == Longs{2, 1}));
  auto [v6, i6, c6] = at::unique_consecutive(torch::tensor(3), true, true);
  CHECK((shape(v6) == S{1} && i6.dim() == 0 && int_values(c6) == Longs{1}));
  auto [v7, i7, c7] = at::unique_consecutive(at::empty({0}), false, false);
  CHECK((v7.numel() == 0 && i7.numel() == 0 && c7.numel() == 0));
}

TEST_CASE("unique_dim like libtorch", "[unique]") {
  auto [v, i, c] = at::unique_dim(torch::tensor({{1, 3}, {0, 2}, {1, 3}, {0, 5}}), 0, true, true, true);
  CHECK((shape(v) == S{3, 2} && int_values(v) == Longs{0, 2, 0, 5, 1, 3}));
  CHECK((int_values(i) == Longs{2, 0, 2, 1} && int_values(c) == Longs{1, 1, 2}));
  auto [v2, i2, c2] = at::unique_dim(torch::tensor({{1, 3, 1}, {0, 2, 0}}), 1, true, true, true);
  CHECK((shape(v2) == S{2, 2} && int_values(v2) == Longs{1, 3, 0, 2} && int_values(i2) == Longs{0, 1, 0} && int_values(c2) == Longs{2, 1}));
  auto [v3, i3, c3] = at::unique_dim(torch::tensor({{1, 3, 1}, {0, 2, 0}}), -1, false, false, false);
  // libtorch: the slice variants return the inverse and counts even when not asked for.
  CHECK((int_values(v3) == Longs{1, 3, 0, 2} && int_values(i3) == Longs{0, 1, 0} && int_values(c3) == Longs{2, 1}));
  // Lexicographic order over later columns too, and a 3-d tensor along its middle dim.
  auto [v4, i4, c4] = at::unique_dim(torch::tensor({{2, 1}, {1, 9}, {2, 0}, {1, 9}}), 0, true, true, true);
  CHECK((int_values(v4) == Longs{1, 9, 2, 0, 2, 1} && int_values(i4) == Longs{2, 0, 1, 0} && int_values(c4) == Longs{2, 1, 1}));
  auto x = torch::tensor({{{1, 2}, {0, 0}, {1, 2}}, {{3, 4}, {0, 0}, {3, 4}}});  // [2, 3, 2], dim 1: slices 0 and 2 equal
  auto [v5, i5, c5] = at::unique_dim(x, 1, true, true, true);
  CHECK((shape(v5) == S{2, 2, 2} && int_values(v5) == Longs{0, 0, 1, 2, 0, 0, 3, 4} && int_values(i5) == Longs{1, 0, 1} && int_values(c5) == Longs{1, 2}));
  // NaN slices never equal each other (libtorch: three slices, each counted once).
  auto [v6, i6, c6] = at::unique_dim(torch::tensor({{kNan, 1.0}, {kNan, 1.0}, {0.0, 1.0}}), 0, true, true, true);
  CHECK((shape(v6) == S{3, 2} && int_values(c6) == Longs{1, 1, 1}));
  // Empty inputs (libtorch) and errors.
  auto [v7, i7, c7] = at::unique_dim(at::empty({0, 3}), 0, true, true, true);
  CHECK((shape(v7) == S{0, 3} && i7.numel() == 0 && c7.numel() == 0));
  auto [v8, i8, c8] = at::unique_dim(at::empty({3, 0}), 1, true, true, true);
  CHECK((shape(v8) == S{3, 0} && i8.numel() == 0));
  using Catch::StartsWith;
  CHECK_THROWS_WITH(at::unique_dim(at::empty({3, 0}), 0, true, true, true), StartsWith("[unique_dim] expected no zero-size dims other than dim 0"));
  CHECK_THROWS_WITH(at::unique_dim(torch::tensor(3), 0, true, true, true), StartsWith("[unique_dim] expected a tensor of at least 1 dim"));
  CHECK_THROWS_WITH(at::unique_dim(at::ones({2, 2}), 2, true, true, true), StartsWith("[unique_dim] expected a dimension in [-2, 1]; got 2"));
  CHECK_THROWS_WITH(at::unique_consecutive(at::ones({2, 2}), false, false, -3), StartsWith("[unique_consecutive] expected a dimension in [-2, 1]"));
}

TEST_CASE("unique outputs carry no gradient", "[unique]") {
  auto x = torch::tensor({1.0, 2.0, 1.0}, at::kDouble).requires_grad_();
  CHECK(!std::get<0>(at::_unique2(x, true, true, true)).requires_grad());
  CHECK(!std::get<0>(at::unique_consecutive(x, true, true)).requires_grad());
  CHECK(!std::get<0>(at::unique_dim(x, 0, true, true, true)).requires_grad());
}
