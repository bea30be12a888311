// The vectorised reduction paths (Note [Float sums] and ArgOp::run in kernels/cpu/isa/reduce.cpp):
// float sums against an exact (long double, sorted-free) reference at every length around the
// block and vector widths, the overflow fallback, specials, Half/BFloat16/integer/bool inputs,
// strided/transposed/expanded layouts, and the same bits at every CPU capability level.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include <ATen/native/DispatchStub.h>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace reduce_sum_test {
using at::native::CPUCapability;

std::vector<CPUCapability> levels_here() {
  std::vector<CPUCapability> out;
  for (int k = 0; k <= static_cast<int>(at::native::get_cpu_capability_supported()); ++k)
    if (at::native::cpu_capability_compiled(static_cast<CPUCapability>(k))) out.push_back(static_cast<CPUCapability>(k));
  return out;
}

struct RestoreLevel {
  CPUCapability saved = at::native::get_cpu_capability();
  ~RestoreLevel() { at::native::set_cpu_capability_for_testing(saved); }
};

// Byte-for-byte equal (any NaN equals any NaN for float and double), same dtype and shape.
bool identical(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  auto x = a.contiguous(), y = b.contiguous();
  const auto* p = static_cast<const unsigned char*>(x.data_ptr());
  const auto* q = static_cast<const unsigned char*>(y.data_ptr());
  const int64_t es = static_cast<int64_t>(x.element_size());
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kDouble) {
      const double u = x.scalar_type() == torch::kFloat ? double(x.data_ptr<float>()[i]) : x.data_ptr<double>()[i];
      const double v = y.scalar_type() == torch::kFloat ? double(y.data_ptr<float>()[i]) : y.data_ptr<double>()[i];
      if (std::isnan(u) && std::isnan(v)) continue;
    }
    if (std::memcmp(p + i * es, q + i * es, static_cast<size_t>(es)) != 0) return false;
  }
  return true;
}

// Deterministic values in [-4, 4) with a spread of exponents (the low bits vary per element).
std::vector<float> spread(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    const float m = static_cast<float>(s >> 8) / 16777216.0f;  // [0, 1)
    const int e = static_cast<int>((s >> 3) % 12);
    x = (m * 2 - 1) * std::ldexp(1.0f, e - 9);
  }
  return v;
}

torch::Tensor tensor_of(const std::vector<float>& v) {
  return torch::from_blob(const_cast<float*>(v.data()), {static_cast<int64_t>(v.size())}, torch::kFloat).clone();
}

// Exact enough: long double holds every partial sum of these inputs to ~64 bits.
long double exact_sum(const float* p, int64_t n, int64_t stride = 1) {
  long double s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[i * stride];
  return s;
}
double abs_sum(const float* p, int64_t n, int64_t stride = 1) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += std::fabs(double(p[i * stride]));
  return s;
}

// Note [Float sums]'s bound: half an ulp of the float result plus 8 float roundings of sum|x| (the
// blocks' float chains) plus the double part, far below; runs under 256 elements are double only.
void check_sum_bound(float got, long double ref, double asum, int64_t n) {
  const float rf = static_cast<float>(ref);
  const double half_ulp = 0.5 * (std::nextafter(std::fabs(rf), INFINITY) - std::fabs(rf));
  const double tree = n >= 256 ? 8.0 * std::ldexp(1.0, -24) * asum : 0.0;
  const double err = std::fabs(static_cast<double>(static_cast<long double>(got) - ref));
  INFO("n " << n << " got " << got << " want " << static_cast<double>(ref) << " err " << err << " sum|x| " << asum);
  CHECK(err <= half_ulp + tree + 1e-12 * asum);
}
}  // namespace reduce_sum_test

using namespace reduce_sum_test;

TEST_CASE("float sums are within the blocked bound at every length", "[reduce_sum]") {
  // Lengths around the vector widths (4, 8, 16), the logical lanes (16) and the block (256).
  const std::vector<int64_t> lengths = {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 255, 256, 257, 271, 512, 767, 1000, 4097, 70001};
  for (int64_t n : lengths) {
    const auto v = spread(n, static_cast<uint32_t>(n));
    const float got = tensor_of(v).sum().item<float>();
    check_sum_bound(got, exact_sum(v.data(), n), abs_sum(v.data(), n), n);
  }
  // One long run that cancels: the error is relative to sum|x|, not to the (tiny) result.
  std::vector<float> c = spread(100000, 9);
  for (size_t i = 0; i < c.size(); i += 2) c[i + 1] = -c[i] * 0.999f;
  check_sum_bound(tensor_of(c).sum().item<float>(), exact_sum(c.data(), 100000), abs_sum(c.data(), 100000), 100000);
  // The float chains lose nothing on values that add exactly (the old double-sum test in a block).
  auto ones = torch::full({1 << 20}, 0.125f);
  CHECK(ones.sum().item<float>() == 131072.0f);
}

TEST_CASE("float sums: a block whose float chains overflow is summed again in double", "[reduce_sum]") {
  // Lane 0 of the first block: 3e38 in rows 0-7 and -3e38 in rows 8-15; the even and the odd
  // rows' float chains both overflow to inf at their second addition, the exact sum is 0.
  // Everything else is 1.
  for (int64_t n : {256, 300, 1024}) {
    std::vector<float> v(static_cast<size_t>(n), 1.0f);
    for (int k = 0; k < 16; ++k) v[static_cast<size_t>(16 * k)] = k < 8 ? 3e38f : -3e38f;
    INFO("n " << n);
    CHECK(tensor_of(v).sum().item<float>() == static_cast<float>(n - 16));
  }
  // Past the float range for real: the double sum rounds to inf.
  std::vector<float> big(512, 3e38f);
  CHECK(tensor_of(big).sum().item<float>() == INFINITY);
  CHECK(tensor_of(big).sum().to(torch::kDouble).item<double>() == INFINITY);
  CHECK(tensor_of(big).to(torch::kDouble).sum().item<double>() == Approx(512 * double(3e38f)));
}

TEST_CASE("float sums: inf, NaN and signed zeros", "[reduce_sum]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {5, 17, 256, 1000}) {
    for (int64_t pos : {int64_t(0), n / 2, n - 1}) {
      INFO("n " << n << " special at " << pos);
      std::vector<float> v = spread(n, 3);
      v[static_cast<size_t>(pos)] = inf;
      CHECK(tensor_of(v).sum().item<float>() == inf);
      v[static_cast<size_t>(pos)] = -inf;
      CHECK(tensor_of(v).sum().item<float>() == -inf);
      v[static_cast<size_t>(pos)] = nan;
      CHECK(std::isnan(tensor_of(v).sum().item<float>()));
      v[static_cast<size_t>(pos)] = inf;
      v[static_cast<size_t>((pos + 1) % n)] = -inf;
      CHECK(std::isnan(tensor_of(v).sum().item<float>()));
    }
    // A sum of zeros is +0 whatever their signs (the accumulators start at +0, as libtorch's do).
    std::vector<float> z(static_cast<size_t>(n), -0.0f);
    const float s = tensor_of(z).sum().item<float>();
    CHECK(s == 0.0f);
    CHECK(!std::signbit(s));
  }
  // Denormals add exactly.
  std::vector<float> d(1000, 1e-45f);
  CHECK(tensor_of(d).sum().item<float>() == 1000 * 1e-45f);
}

TEST_CASE("sums over strided, transposed, expanded inputs, keepdim and dims", "[reduce_sum]") {
  const auto v = spread(300 * 700, 5);
  auto x = tensor_of(v).reshape({300, 700});
  const float* p = v.data();
  // Rows (contiguous runs of 700), columns (the "outer" loop), a transposed view (strided runs),
  // a step-sliced view and every element.
  auto rows = x.sum(1), cols = x.sum(0, /*keepdim=*/true), trows = x.t().sum(0), tcols = x.t().sum(1);
  CHECK(cols.sizes().vec() == std::vector<int64_t>{1, 700});
  for (int64_t r = 0; r < 300; r += 37) {
    check_sum_bound(rows[r].item<float>(), exact_sum(p + r * 700, 700), abs_sum(p + r * 700, 700), 700);
    check_sum_bound(trows[r].item<float>(), exact_sum(p + r * 700, 700), abs_sum(p + r * 700, 700), 700);
  }
  for (int64_t c = 0; c < 700; c += 53) {
    check_sum_bound(cols[0][c].item<float>(), exact_sum(p + c, 300, 700), abs_sum(p + c, 300, 700), 300);
    check_sum_bound(tcols[c].item<float>(), exact_sum(p + c, 300, 700), abs_sum(p + c, 300, 700), 300);
  }
  auto sliced = x.slice(1, 1, 700, 3);  // 233 columns, stride 3
  auto srow = sliced.sum(1, true);
  CHECK(srow.sizes().vec() == std::vector<int64_t>{300, 1});
  check_sum_bound(srow[4][0].item<float>(), exact_sum(p + 4 * 700 + 1, 233, 3), abs_sum(p + 4 * 700 + 1, 233, 3), 233);
  check_sum_bound(x.sum().item<float>(), exact_sum(p, 300 * 700), abs_sum(p, 300 * 700), 300 * 700);
  // Expanded (stride 0): the same row 400 times.
  auto e = x[7].unsqueeze(0).expand({400, 700});
  auto ecol = e.sum(0);
  check_sum_bound(ecol[11].item<float>(), 400 * static_cast<long double>(p[7 * 700 + 11]), 400 * std::fabs(p[7 * 700 + 11]), 400);
  check_sum_bound(e.sum().item<float>(), 400 * exact_sum(p + 7 * 700, 700), 400 * abs_sum(p + 7 * 700, 700), 400 * 700);
}

TEST_CASE("keepdim results are fresh tensors, not views of a temporary", "[reduce_sum]") {
  // The keepdim sizes are set in place on the reduction's own result (shape_out); libtorch's
  // keepdim results are no views either. Values against sums written out by hand.
  auto x = torch::arange(6, torch::kFloat).reshape({2, 3});
  auto s0 = x.sum(0, /*keepdim=*/true), s1 = x.sum({1}, /*keepdim=*/true), all = x.sum({0, 1}, true);
  CHECK(!s0.is_view());
  CHECK(!s1.is_view());
  CHECK(s0.sizes().vec() == std::vector<int64_t>{1, 3});
  CHECK(s0.strides().vec() == std::vector<int64_t>{3, 1});
  CHECK(s1.sizes().vec() == std::vector<int64_t>{2, 1});
  CHECK(s1.strides().vec() == std::vector<int64_t>{1, 1});
  CHECK(all.sizes().vec() == std::vector<int64_t>{1, 1});
  CHECK(s0[0][0].item<float>() == 3.0f);  // 0 + 3
  CHECK(s0[0][2].item<float>() == 7.0f);  // 2 + 5
  CHECK(s1[1][0].item<float>() == 12.0f);  // 3 + 4 + 5
  CHECK(all[0][0].item<float>() == 15.0f);
  auto [mx, idx] = x.max(1, /*keepdim=*/true);
  CHECK(!mx.is_view());
  CHECK(!idx.is_view());
  CHECK(idx.sizes().vec() == std::vector<int64_t>{2, 1});
  CHECK(idx[1][0].item<int64_t>() == 2);
  auto g = torch::ones({2, 3}, torch::requires_grad());
  auto y = g.sum(1, true);
  CHECK(!y.is_view());
  (y * torch::tensor({{2.0f}, {3.0f}})).sum().backward();
  CHECK(g.grad()[1][2].item<float>() == 3.0f);
  CHECK(g.grad()[0][0].item<float>() == 2.0f);
}

TEST_CASE("reductions over more dims than the geometry holds inline, and repeated dims of a 0-dim tensor", "[reduce_sum]") {
  // 13 dims of size 2 with strides 3^d: no two dims merge (2 * 3^d != 3^(d+1)), so the reduced-dim
  // lists hold 13 entries, past DimVec's 12 inline ones. Reference: every element visited by its
  // offset and added in double (values 0..6, so float sums are exact).
  const int nd = 13;
  std::vector<int64_t> sizes(nd, 2), strides(nd);
  int64_t span = 1;
  for (int d = 0; d < nd; ++d) {
    strides[d] = d == 0 ? 1 : strides[d - 1] * 3;
    span += strides[d];
  }
  auto storage = torch::remainder(torch::arange(span, torch::kFloat), 7);
  auto x = storage.as_strided(sizes, strides);
  const float* p = storage.data_ptr<float>();
  double total = 0, by_last[2] = {0, 0};
  for (int64_t i = 0; i < (int64_t(1) << nd); ++i) {
    int64_t off = 0;
    for (int d = 0; d < nd; ++d) off += ((i >> d) & 1) * strides[d];
    total += p[off];
    by_last[(i >> (nd - 1)) & 1] += p[off];
  }
  CHECK(x.sum().item<float>() == static_cast<float>(total));
  std::vector<int64_t> all(nd), first12(nd - 1);
  for (int d = 0; d < nd; ++d) all[d] = d;
  for (int d = 0; d < nd - 1; ++d) first12[d] = d;
  auto k = x.sum(all, /*keepdim=*/true);
  CHECK(k.sizes().vec() == std::vector<int64_t>(nd, 1));
  CHECK(k.item<float>() == static_cast<float>(total));
  auto last = x.sum(first12, /*keepdim=*/true);
  CHECK(last.sizes().vec().back() == 2);
  CHECK(last.numel() == 2);
  CHECK(last.flatten()[0].item<float>() == static_cast<float>(by_last[0]));
  CHECK(last.flatten()[1].item<float>() == static_cast<float>(by_last[1]));
  CHECK(x.amax(all).item<float>() == 6.0f);
  // A 0-dim tensor has dim 0 and -1, the same dim: naming both is a repeat.
  auto s = torch::tensor(2.5f);
  CHECK(s.sum({0}).item<float>() == 2.5f);
  CHECK_THROWS_WITH(s.sum({0, -1}), Catch::StartsWith("[sum] expected each dim at most once"));
  CHECK_THROWS_WITH(x.sum({3, 3 - nd}), Catch::StartsWith("[sum] expected each dim at most once"));
}

TEST_CASE("Half and BFloat16 sums widen to float and add like float", "[reduce_sum]") {
  for (auto dt : {torch::kHalf, torch::kBFloat16}) {
    for (int64_t n : {7, 16, 255, 256, 1000, 5000}) {
      const auto v = spread(n, 11);
      auto x = tensor_of(v).to(dt);
      auto xf = x.to(torch::kFloat).contiguous();  // the exact values of the narrow elements
      const long double ref = exact_sum(xf.data_ptr<float>(), n);
      const double asum = abs_sum(xf.data_ptr<float>(), n);
      INFO((dt == torch::kHalf ? "Half" : "BFloat16") << " n " << n);
      const auto got = x.sum();
      CHECK(got.scalar_type() == dt);
      // Half an ulp of the narrow result (10 / 7 fraction bits) plus the float sum's bound.
      const double r = static_cast<double>(ref), g = got.item<double>();
      const int frac_bits = dt == torch::kHalf ? 10 : 7;
      const double half_ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(r), 1e-4)) - frac_bits - 1);
      CHECK(std::fabs(g - r) <= half_ulp + 4.0 * std::ldexp(1.0, -24) * asum);
      // As float results: the same sum as the float input of the same values.
      CHECK(x.sum({0}, false, torch::kFloat).item<float>() == xf.sum().item<float>());
      // Columns go through the "outer" loop's vector widening.
      auto m = x.reshape({1, n}).expand({3, n}).contiguous();
      CHECK(identical(m.sum(0), (x.to(torch::kDouble) * 3).to(dt)));
    }
  }
}

TEST_CASE("integer and bool sums wrap like int64 and count", "[reduce_sum]") {
  for (int64_t n : {1, 15, 33, 1000, 4099}) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    int64_t ref = 0;
    for (int64_t i = 0; i < n; ++i) {
      v[static_cast<size_t>(i)] = static_cast<int32_t>((i * 2654435761u) ^ 0x5bd1e995u);
      ref += v[static_cast<size_t>(i)];
    }
    auto x = torch::from_blob(v.data(), {n}, torch::kInt).clone();
    INFO("n " << n);
    CHECK(x.sum().item<int64_t>() == ref);
    CHECK(x.reshape({1, n}).sum(1).item<int64_t>() == ref);
    auto b = x.remainder(3) == 0;
    CHECK(b.sum().item<int64_t>() == (x.remainder(3) == 0).to(torch::kLong).sum().item<int64_t>());
    CHECK(b.sum().scalar_type() == torch::kLong);
    auto u8 = x.to(torch::kByte);
    int64_t r8 = 0;
    for (int64_t i = 0; i < n; ++i) r8 += static_cast<uint8_t>(v[static_cast<size_t>(i)]);
    CHECK(u8.sum().item<int64_t>() == r8);
  }
  // int64 wraps.
  auto big = torch::full({40}, std::numeric_limits<int64_t>::max(), torch::kLong);
  CHECK(big.sum().item<int64_t>() == static_cast<int64_t>(uint64_t(40) * uint64_t(std::numeric_limits<int64_t>::max())));
}

TEST_CASE("max/min with indices over contiguous rows: first extreme, first NaN, signed zeros", "[reduce_sum]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (int64_t n : {1, 5, 16, 63, 64, 65, 130, 1024, 1027}) {
    for (int kind = 0; kind < 6; ++kind) {
      std::vector<float> v = spread(n, static_cast<uint32_t>(n + kind));
      if (kind == 1) v.assign(static_cast<size_t>(n), 2.0f);                     // all tied
      if (kind == 2) { v[static_cast<size_t>(n / 3)] = nan; v[static_cast<size_t>(n - 1)] = nan; }
      if (kind == 3) v.assign(static_cast<size_t>(n), -inf);                      // all -inf
      if (kind == 4) { for (auto& x : v) x = -std::fabs(x) - 1; v[static_cast<size_t>(n / 2)] = -0.0f; v[static_cast<size_t>(n - 1)] = 0.0f; }
      if (kind == 5) { v[static_cast<size_t>(n - 1)] = 100.0f; v[0] = 100.0f; }  // ties at both ends
      // Reference: the first index of the max (min), or of the first NaN.
      int64_t imax = 0, imin = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (std::isnan(v[static_cast<size_t>(i)])) { imax = imin = i; break; }
        if (v[static_cast<size_t>(i)] > v[static_cast<size_t>(imax)]) imax = i;
        if (v[static_cast<size_t>(i)] < v[static_cast<size_t>(imin)]) imin = i;
      }
      auto x = tensor_of(v).reshape({1, n});
      INFO("n " << n << " kind " << kind);
      auto [mx, ix] = x.max(1);
      auto [mn, in] = x.min(1);
      CHECK(ix.item<int64_t>() == imax);
      CHECK(in.item<int64_t>() == imin);
      CHECK(identical(mx, tensor_of({v[static_cast<size_t>(imax)]})));
      CHECK(identical(mn, tensor_of({v[static_cast<size_t>(imin)]})));
      CHECK(x.argmax(1).item<int64_t>() == imax);
      auto [dmx, dix] = x.to(torch::kDouble).max(1);
      CHECK(dix.item<int64_t>() == imax);
    }
  }
}

TEST_CASE("reductions give the same bits at every CPU capability level", "[reduce_sum]") {
  RestoreLevel guard;
  const auto v = spread(257 * 301, 17);
  auto x = tensor_of(v).reshape({257, 301});
  auto with_specials = x.clone();
  with_specials[3][5] = INFINITY;
  with_specials[9].fill_(3e38f);
  with_specials[200][17] = NAN;
  const auto results = [&] {
    std::vector<torch::Tensor> r;
    for (const auto& t : {x, with_specials}) {
      r.push_back(t.sum());
      r.push_back(t.sum(1));
      r.push_back(t.sum(0, true));
      r.push_back(t.t().sum(1));
      r.push_back(t.slice(1, 2, 301, 5).sum(1));
      r.push_back(t.reshape({-1}).narrow(0, 3, 70000).sum());
      r.push_back(t.to(torch::kHalf).sum(1));
      r.push_back(t.to(torch::kBFloat16).sum(0));
      r.push_back(t.to(torch::kBFloat16).sum());
      r.push_back(t.to(torch::kDouble).sum(1));
      r.push_back(t.mean(1));
      r.push_back(std::get<0>(t.max(1)));
      r.push_back(std::get<1>(t.max(1)));
      r.push_back(std::get<1>(t.min(1)));
      r.push_back(std::get<1>(t.to(torch::kDouble).max(1)));
    }
    auto ints = (x * 1000).to(torch::kInt);
    r.push_back(ints.sum(1));
    r.push_back(ints.sum(0));
    r.push_back((x > 0).sum(1));
    r.push_back(ints.to(torch::kByte).sum());
    return r;
  };
  std::vector<torch::Tensor> ref;
  for (auto level : levels_here()) {
    at::native::set_cpu_capability_for_testing(level);
    auto got = results();
    if (ref.empty()) {
      ref = got;
      continue;
    }
    for (size_t k = 0; k < got.size(); ++k) {
      INFO("level " << at::native::cpu_capability_name(level) << ", result " << k);
      CHECK(identical(got[k], ref[k]));
    }
  }
}

TEST_CASE("norm rejects a NaN order in the baseline entry point", "[reduce_sum]") {
  auto x = torch::ones({4});
  CHECK_THROWS_WITH(torch::norm(x, std::numeric_limits<double>::quiet_NaN()),
                    Catch::Contains("[norm] expected a non-NaN order p; got nan"));
  CHECK(torch::norm(x, 2).item<float>() == 2.0f);
}

TEST_CASE("float sums over a leading dim: 8-row float chains within the blocked bound", "[reduce_sum]") {
  // Note [Float outer sums]: 1000 rows (not a multiple of 8), 37 columns (past every vector width,
  // so the scalar tail runs too), and a strided (step-sliced) input; short runs stay double-only.
  const auto v = spread(1000 * 37, 23);
  auto x = tensor_of(v).reshape({1000, 37});
  const float* p = v.data();
  auto cols = x.sum(0);
  for (int64_t c = 0; c < 37; ++c)
    check_sum_bound(cols[c].item<float>(), exact_sum(p + c, 1000, 37), abs_sum(p + c, 1000, 37), 1000);
  auto every_other = x.slice(0, 0, 1000, 2).sum(0);  // 500 rows, 74 floats apart
  for (int64_t c = 0; c < 37; c += 6)
    check_sum_bound(every_other[c].item<float>(), exact_sum(p + c, 500, 74), abs_sum(p + c, 500, 74), 500);
  auto few = x.narrow(0, 0, 100).sum(0);  // under 256 rows: double only, so within half an ulp
  for (int64_t c = 0; c < 37; c += 6)
    check_sum_bound(few[c].item<float>(), exact_sum(p + c, 100, 37), abs_sum(p + c, 100, 37), 100);
  // A chain that overflows in float (rows 8-11 hold 3e38 twice and -3e38 twice in column 5) is
  // summed in double: the exact 0 plus the rest. inf and NaN columns give inf and NaN.
  auto s = x.clone();
  s[8][5] = 3e38f;
  s[9][5] = 3e38f;
  s[10][5] = -3e38f;
  s[11][5] = -3e38f;
  s[20][6] = INFINITY;
  s[30][7] = NAN;
  s[40][36] = 3e38f;  // the scalar tail's column
  s[41][36] = 3e38f;
  s[42][36] = -3e38f;
  s[43][36] = -3e38f;
  auto got = s.sum(0);
  for (int64_t c : {5, 36}) {
    long double ref = exact_sum(p + c, 1000, 37);
    for (int64_t r = 8 + (c == 36 ? 32 : 0); r < 12 + (c == 36 ? 32 : 0); ++r) ref -= p[r * 37 + c];
    INFO("column " << c);
    check_sum_bound(got[c].item<float>(), ref, abs_sum(p + c, 1000, 37), 1000);
  }
  CHECK(got[6].item<float>() == INFINITY);
  CHECK(std::isnan(got[7].item<float>()));
  // The other columns are untouched by the specials.
  CHECK(torch::equal(got.narrow(0, 8, 28), cols.narrow(0, 8, 28)));
}
