// multinomial: errors and edge cases (libtorch 2.15's behaviour for the same calls), reproducibility
// under manual_seed, no repeats without replacement, and chi-square bounds on the frequencies
// (fixed seeds, so the statistics are deterministic; the bounds would hold for almost any seed).
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

namespace {
std::vector<int64_t> ints(const at::Tensor& t) {
  at::Tensor d = t.to(at::kLong).contiguous();
  return std::vector<int64_t>(d.data_ptr<int64_t>(), d.data_ptr<int64_t>() + d.numel());
}
// Pearson's statistic of `draws` (category indices) against probabilities p.
double chi_square(const std::vector<int64_t>& draws, const std::vector<double>& p) {
  std::vector<double> seen(p.size(), 0);
  for (int64_t d : draws) seen.at(static_cast<size_t>(d)) += 1;
  double s = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double want = p[i] * static_cast<double>(draws.size());
    s += (seen[i] - want) * (seen[i] - want) / want;
  }
  return s;
}
}  // namespace

TEST_CASE("multinomial draws are reproducible and shaped like libtorch's", "[random]") {
  auto p = torch::tensor({{0.1, 0.2, 0.3, 0.4}, {1.0, 0.0, 5.0, 1.0}});
  at::manual_seed(21);
  at::Tensor a = at::multinomial(p, 3, true);
  at::Tensor b = at::multinomial(p, 3);
  at::manual_seed(21);
  CHECK(ints(p.multinomial(3, true)) == ints(a));
  CHECK(ints(p.multinomial(3)) == ints(b));
  CHECK((a.scalar_type() == at::kLong && a.sizes().vec() == std::vector<int64_t>{2, 3}));
  CHECK(at::multinomial(torch::tensor({1.0, 1.0}), 3, true).sizes().vec() == std::vector<int64_t>{3});
  CHECK(at::multinomial(torch::tensor({{1.0, 1.0}}), 2).sizes().vec() == std::vector<int64_t>{1, 2});
  CHECK(at::multinomial(at::empty({0, 3}), 1).sizes().vec() == std::vector<int64_t>{0, 1});  // libtorch
  CHECK(ints(at::multinomial(torch::tensor({0.0, 1.0, 0.0}), 3, true)) == std::vector<int64_t>{1, 1, 1});
  // libtorch: once the positive categories are used up, zero ones follow, lowest index first.
  CHECK(ints(at::multinomial(torch::tensor({1.0, 0.0, 0.0}), 2)) == std::vector<int64_t>{0, 1});
  CHECK(!at::multinomial(torch::tensor({1.0, 1.0}, at::kDouble).requires_grad_(), 1).requires_grad());
  // A strided row of probabilities reads its logical elements.
  auto wide = torch::tensor({0.0, 9.0, 1.0, 9.0, 0.0, 9.0});
  CHECK(ints(at::multinomial(wide.slice(0, 0, 6, 2), 4, true)) == std::vector<int64_t>{1, 1, 1, 1});
}

TEST_CASE("multinomial frequencies follow the probabilities", "[random]") {
  const std::vector<double> p = {0.1, 0.2, 0.3, 0.4};
  at::manual_seed(1234);
  // With replacement: 40000 draws from one row; 3 degrees of freedom, P(chi2 > 30) ~ 1e-6.
  CHECK(chi_square(ints(at::multinomial(torch::tensor(p), 40000, true)), p) < 30);
  // Float32 probabilities, many rows at once: same distribution per row.
  at::Tensor rows = torch::tensor(p).to(at::kFloat).unsqueeze(0).expand({5000, 4});
  CHECK(chi_square(ints(at::multinomial(rows, 4, true)), p) < 30);
  // Without replacement the first draw of each row follows p, and the second follows
  // P(j second) = sum_i p_i p_j / (1 - p_i).
  at::Tensor w = at::multinomial(torch::tensor(p, at::kDouble).unsqueeze(0).expand({20000, 4}), 2);
  CHECK(chi_square(ints(w.select(1, 0)), p) < 30);
  std::vector<double> second(4, 0);
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 4; ++j)
      if (i != j) second[j] += p[i] * p[j] / (1 - p[i]);
  CHECK(chi_square(ints(w.select(1, 1)), second) < 30);
}

TEST_CASE("multinomial without replacement never repeats a category in a row", "[random]") {
  at::manual_seed(99);
  at::Tensor p = at::rand({300, 10}, at::kDouble).add_(0.01);
  const std::vector<int64_t> full = ints(at::multinomial(p, 10));
  for (size_t r = 0; r < 300; ++r) {
    std::set<int64_t> seen(full.begin() + static_cast<long>(r * 10), full.begin() + static_cast<long>(r * 10 + 10));
    REQUIRE(seen.size() == 10);
  }
  const std::vector<int64_t> part = ints(at::multinomial(p, 6));
  for (size_t r = 0; r < 300; ++r) {
    std::set<int64_t> seen(part.begin() + static_cast<long>(r * 6), part.begin() + static_cast<long>(r * 6 + 6));
    REQUIRE(seen.size() == 6);
  }
}

TEST_CASE("multinomial rejects bad probabilities and counts", "[random]") {
  using Catch::StartsWith;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const char* bad = "[multinomial] expected finite, non-negative probabilities";
  CHECK_THROWS_WITH(at::multinomial(torch::tensor({0.0, -1.0}), 1), StartsWith(bad));
  CHECK_THROWS_WITH(at::multinomial(torch::tensor({0.0, inf}), 1), StartsWith(bad));
  CHECK_THROWS_WITH(at::multinomial(torch::tensor({0.0, nan}), 1, true), StartsWith(bad));
  CHECK_THROWS_WITH(at::multinomial(torch::tensor({{1.0, 1.0}, {0.0, 0.0}}), 1), StartsWith("[multinomial] expected every row of probabilities to have a positive sum"));
  CHECK_THROWS_WITH(at::multinomial(torch::tensor({1.0, 1.0}), 3), StartsWith("[multinomial] without replacement num_samples (3) must not exceed the number of categories (2)"));
  CHECK_THROWS_WITH(at::multinomial(torch::tensor({1.0, 1.0}), 0), StartsWith("[multinomial] expected num_samples > 0; got 0"));
  CHECK_THROWS_WITH(at::multinomial(torch::tensor({1.0, 1.0}), -1, true), StartsWith("[multinomial] expected num_samples > 0; got -1"));
  CHECK_THROWS_WITH(at::multinomial(torch::tensor({1, 1}), 1), StartsWith("[multinomial] expected floating-point probabilities"));
  CHECK_THROWS_WITH(at::multinomial(at::ones({2, 2, 2}), 1), StartsWith("[multinomial] expected probabilities of 1 or 2 dims; got 3"));
  CHECK_THROWS_WITH(at::multinomial(torch::tensor(1.0), 1), StartsWith("[multinomial] expected probabilities of 1 or 2 dims; got 0"));
  CHECK_THROWS_WITH(at::multinomial(at::empty({2, 0}), 1), StartsWith("[multinomial] without replacement"));
}
