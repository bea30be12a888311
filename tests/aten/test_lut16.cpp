// Ops declared `lut16: true` in ops.yaml read a 65,536-entry table on large Half/BFloat16 tensors
// (Note [16-bit lookup tables] in aten/ATen/native/cpu/Lut16.h). For every 16-bit pattern, the
// table path (a large tensor) must give what the direct path (small tensors) gives and what float
// compute rounded once gives (and, for gelu, the float routine's documented bound of the exact
// value), whatever the layout. ctest's cpu_level.* runs this at every CPU level (each fills its own table).
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace lut16_test {
using ld = long double;

// Every 16-bit pattern, then repeated: 2^18 elements; every view below meant for the table has more
// than the table threshold (2^16) elements; the direct path gets pieces of kSmall, below it.
constexpr int64_t kAll = 65536, kRepeat = 4, kSmall = 4096;

ld ref_gelu_erf(ld x) { return x / 2 * std::erfc(-x / std::sqrt(ld(2))); }
ld ref_gelu_tanh(ld x) {
  const ld z = std::sqrt(2 / ld(3.14159265358979323846264338327950288L)) * (x + ld(0.044715) * x * x * x);
  return x / (1 + std::exp(-2 * z));  // 0.5 x (1 + tanh z), no cancellation
}

struct Case {
  const char* name;
  std::function<at::Tensor(const at::Tensor&)> op;
  ld (*ref)(ld);  // long double reference, for functions whose float bound the check below knows
};
// Every op ops.yaml marks lut16 (keep in step with it).
std::vector<Case> cases() {
#define EMBER_LUT16_CASE(F) Case{#F, [](const at::Tensor& x) { return torch::F(x); }, nullptr}
  return {{"gelu", [](const at::Tensor& x) { return torch::gelu(x); }, ref_gelu_erf},
          {"gelu tanh", [](const at::Tensor& x) { return torch::gelu(x, "tanh"); }, ref_gelu_tanh},
          EMBER_LUT16_CASE(erfc), EMBER_LUT16_CASE(erfinv), EMBER_LUT16_CASE(lgamma), EMBER_LUT16_CASE(digamma),
          EMBER_LUT16_CASE(i0), EMBER_LUT16_CASE(sinc), EMBER_LUT16_CASE(acosh), EMBER_LUT16_CASE(asinh),
          EMBER_LUT16_CASE(atanh), EMBER_LUT16_CASE(mish), EMBER_LUT16_CASE(special_ndtr),
          EMBER_LUT16_CASE(special_ndtri), EMBER_LUT16_CASE(special_log_ndtr), EMBER_LUT16_CASE(special_erfcx),
          EMBER_LUT16_CASE(special_i0e), EMBER_LUT16_CASE(special_i1), EMBER_LUT16_CASE(special_i1e),
          EMBER_LUT16_CASE(special_entr)};
#undef EMBER_LUT16_CASE
}

template <typename T> at::ScalarType dtype_of() { return std::is_same_v<T, c10::Half> ? at::kHalf : at::kBFloat16; }

template <typename T> std::vector<T> values_of(const at::Tensor& t) {
  REQUIRE(t.scalar_type() == dtype_of<T>());
  const at::Tensor c = t.contiguous();
  std::vector<T> v(static_cast<size_t>(c.numel()));
  std::memcpy(v.data(), c.data_ptr(), v.size() * sizeof(T));
  return v;
}
template <typename T> uint16_t bits(T x) {
  uint16_t u;
  std::memcpy(&u, &x, 2);
  return u;
}
// Same bits, or both NaN (a NaN's sign follows the compiler's operand order: test_vec_math.cpp).
template <typename T> bool same(T a, T b) {
  return bits(a) == bits(b) || (std::isnan(static_cast<float>(a)) && std::isnan(static_cast<float>(b)));
}
template <typename T> int64_t differences(const at::Tensor& got, const at::Tensor& want) {
  REQUIRE(got.sizes() == want.sizes());
  const std::vector<T> g = values_of<T>(got), w = values_of<T>(want);
  int64_t bad = 0;
  for (size_t i = 0; i < g.size(); ++i) bad += !same(g[i], w[i]);
  return bad;
}

// All patterns, kRepeat times, in a contiguous 1-D tensor.
template <typename T> at::Tensor all_patterns() {
  at::Tensor t = at::empty({kAll * kRepeat}, at::TensorOptions().dtype(dtype_of<T>()));
  auto* p = static_cast<uint16_t*>(t.data_ptr());
  for (int64_t i = 0; i < kAll * kRepeat; ++i) p[i] = static_cast<uint16_t>(i);
  return t;
}

// The direct path: the op on pieces below the table threshold.
at::Tensor in_small_pieces(const Case& c, const at::Tensor& x) {
  std::vector<at::Tensor> parts;
  for (int64_t i = 0; i < x.numel(); i += kSmall) parts.push_back(c.op(x.narrow(0, i, std::min(kSmall, x.numel() - i))));
  return torch::cat(parts);
}

// |y - exact| within half a T ulp of the exact value plus the float routine's own error: 3 float
// ulps for x >= -1, 0.5 |x| float eps below (docs/vector-math.md), with 1% slack on the half ulp
// for a float result that lands next to a rounding boundary.
template <typename T> int64_t beyond_bound(const Case& c, const std::vector<T>& x, const std::vector<T>& y) {
  constexpr bool kHalf = std::is_same_v<T, c10::Half>;
  constexpr int kMant = kHalf ? 10 : 7, kEmin = kHalf ? -14 : -126, kEmax = kHalf ? 15 : 127;
  int64_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const ld xv = static_cast<float>(x[i]), yv = static_cast<float>(y[i]);
    // At +inf the limit; at -inf NaN, as libtorch's (-inf times 0; ops.yaml gelu `special`).
    const ld r = std::isnan(xv) ? xv : std::isinf(xv) ? (xv > 0 ? xv : std::numeric_limits<ld>::quiet_NaN()) : c.ref(xv);
    bool ok;
    if (std::isnan(r) || std::isinf(r)) {
      ok = std::isnan(r) ? std::isnan(yv) : yv == r;
    } else if (std::isinf(yv)) {  // only where the exact value rounds past T's largest finite value
      const ld top = std::ldexp(ld(1), kEmax + 1), u = std::ldexp(ld(1), kEmax - kMant);
      ok = std::signbit(yv) == std::signbit(r) && std::fabs(r) >= top - u;
    } else {
      const ld ulp_t = std::ldexp(ld(1), std::max(r == 0 ? kEmin : std::ilogb(r), kEmin) - kMant);
      const ld ulp_f = std::ldexp(ld(1), std::max(r == 0 ? -126 : std::ilogb(r), -126) - 23);
      const ld float_err = xv >= -1 ? 3 * ulp_f : ld(0.5) * std::fabs(xv) * std::numeric_limits<float>::epsilon();
      ok = std::fabs(yv - r) <= ld(0.505) * ulp_t + float_err;
    }
    if (!ok && bad < 5) UNSCOPED_INFO("x " << static_cast<double>(xv) << ": got " << static_cast<double>(yv) << ", exact " << static_cast<double>(r));
    bad += !ok;
  }
  return bad;
}

template <typename T> void check_op(const Case& c) {
  INFO(c.name << " " << c10::dtypeName(dtype_of<T>()));
  const at::Tensor x = all_patterns<T>();
  const at::Tensor table = c.op(x);                // the table path
  const at::Tensor direct = in_small_pieces(c, x);  // the direct path
  CHECK(differences<T>(table, direct) == 0);
  CHECK(differences<T>(table, c.op(x.to(at::kFloat)).to(dtype_of<T>())) == 0);  // float, rounded once
  const at::Tensor first = x.narrow(0, 0, kAll);
  if (c.ref) CHECK(beyond_bound<T>(c, values_of<T>(first), values_of<T>(table.narrow(0, 0, kAll))) == 0);

  // Layouts on the table path: transposed, step-sliced, offset, expanded (stride 0).
  const at::Tensor sq = x.view({512, 512});
  CHECK(differences<T>(c.op(sq.t()), direct.view({512, 512}).t()) == 0);
  CHECK(differences<T>(c.op(x.slice(0, 1, x.numel(), 3)), direct.slice(0, 1, x.numel(), 3)) == 0);
  CHECK(differences<T>(c.op(x.narrow(0, 7, kAll * 2)), direct.narrow(0, 7, kAll * 2)) == 0);
  for (int64_t b : {0x3c00, 0xbf80, 0xc100, 0x7e00, 0x0001}) {  // assorted patterns, NaN and a denormal included
    const at::Tensor one = x.narrow(0, b, 1);
    CHECK(differences<T>(c.op(one.expand({kAll * 2})), direct.narrow(0, b, 1).expand({kAll * 2})) == 0);
  }
  // A small strided view of the same storage takes the direct path.
  CHECK(differences<T>(c.op(sq.t().narrow(0, 3, 2)), direct.view({512, 512}).t().narrow(0, 3, 2)) == 0);
}
}  // namespace lut16_test

TEST_CASE("lut16: concurrent first calls fill one table", "[lut16]") {
  // Several threads reach the table at once; when it is not filled yet (this file run alone: this
  // case comes first), all must wait for one complete fill.
  const at::Tensor x = lut16_test::all_patterns<c10::BFloat16>();
  const at::Tensor want = lut16_test::in_small_pieces(lut16_test::cases()[1], x);
  std::vector<at::Tensor> got(4);
  std::vector<std::thread> ts;
  for (int k = 0; k < 4; ++k) ts.emplace_back([&, k] { got[k] = torch::gelu(x, "tanh"); });
  for (auto& t : ts) t.join();
  for (const auto& g : got) CHECK(lut16_test::differences<c10::BFloat16>(g, want) == 0);
}

TEST_CASE("lut16: Half and BFloat16 tables give the direct path's bits for every pattern and layout", "[lut16]") {
  for (const auto& c : lut16_test::cases()) {
    lut16_test::check_op<c10::Half>(c);
    lut16_test::check_op<c10::BFloat16>(c);
  }
}
