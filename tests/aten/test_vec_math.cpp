// The vectorised pointwise math of aten/ATen/native/cpu/Vec.h, through the public ops (so at
// whatever instruction-set level the library runs): (a) each function's error against a long
// double reference stays within the ULP bound of docs/vector-math.md; (b) a result does not
// depend on layout: contiguous, step-sliced, transposed into a contiguous out=, expanded, and
// every length and offset around the vector width give the same bits (Note [One vector-math
// source] in cpu/Loops.h); (c) Half and BFloat16 results are the float results rounded once, for
// every 16-bit input.
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace vec_math_test {
using ld = long double;
using Unary = std::function<at::Tensor(const at::Tensor&)>;
using Binary = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;

template <typename T> at::ScalarType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return at::kFloat;
  else if constexpr (std::is_same_v<T, double>) return at::kDouble;
  else if constexpr (std::is_same_v<T, c10::Half>) return at::kHalf;
  else return at::kBFloat16;
}

template <typename T> at::Tensor tensor_of(const std::vector<T>& v) {
  at::Tensor t = at::empty({static_cast<int64_t>(v.size())}, at::TensorOptions().dtype(dtype_of<T>()));
  std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(T));
  return t;
}

template <typename T> std::vector<T> values_of(const at::Tensor& t) {
  REQUIRE(t.scalar_type() == dtype_of<T>());
  const at::Tensor c = t.contiguous();
  std::vector<T> v(static_cast<size_t>(c.numel()));
  std::memcpy(v.data(), c.data_ptr(), v.size() * sizeof(T));
  return v;
}

template <typename T> uint64_t bits_of(T x) {
  uint64_t u = 0;
  std::memcpy(&u, &x, sizeof(T));
  return u;
}
// Same bits, or both NaN: a NaN's sign and payload follow the compiler's operand order.
template <typename T> bool same_value(T a, T b) {
  const float fa = static_cast<float>(a), fb = static_cast<float>(b);
  return bits_of(a) == bits_of(b) || (fa != fa && fb != fb);
}

// Error of y against the exact r in units of T's ulp at r (an r past T's range counts as
// rounding to inf; a zero must carry r's sign).
template <typename T> double ulp_error(T y, ld r) {
  constexpr int kMant = std::numeric_limits<T>::digits - 1, kEmin = std::numeric_limits<T>::min_exponent - 1;
  constexpr double kWrong = 1e30;
  if (std::isnan(r)) return std::isnan(y) ? 0 : kWrong;
  if (std::isnan(y)) return kWrong;
  if (std::isinf(r)) return y == r ? 0 : kWrong;
  if (y == 0 && r == 0) return std::signbit(y) == std::signbit(r) ? 0 : kWrong;
  int e = std::max(std::ilogb(r), kEmin);
  if (std::fabs(r) > std::numeric_limits<T>::max()) e = std::numeric_limits<T>::max_exponent - 1;
  const ld u = std::ldexp(ld(1), e - kMant);
  if (std::isinf(y)) {
    if (std::signbit(y) != std::signbit(r)) return kWrong;
    const ld top = std::ldexp(ld(1), std::numeric_limits<T>::max_exponent);
    return std::fabs(r) >= top - u / 2 ? 0 : static_cast<double>((top - std::fabs(r)) / u);
  }
  return static_cast<double>(std::fabs(static_cast<ld>(y) - r) / u);
}

// Special values, uniform values in [lo, hi], arbitrary bit patterns, tiny and denormal values.
template <typename T> std::vector<T> sample_values(uint64_t seed, double lo, double hi, int n) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T den = std::numeric_limits<T>::denorm_min(), tiny = std::numeric_limits<T>::min();
  const T big = std::numeric_limits<T>::max();
  std::vector<T> v = {nan, -nan, inf, -inf, T(0), T(-0.0), den, -den, tiny, -tiny, big, -big, T(1), T(-1), T(0.5),
                      T(-0.5), T(2), T(1e-7), T(-1e-7), T(88.7), T(-87.5), T(89.2), T(-104), T(1e10), T(-1e10),
                      T(1e30), T(3.14159265), T(710), T(-745), T(1e38), T(3e38), T(1e300)};
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int i = 0; i < n; ++i) v.push_back(static_cast<T>(u(g)));
  for (int i = 0; i < n / 4; ++i) {
    const uint64_t b = g();
    T x;
    std::memcpy(&x, &b, sizeof(T));
    v.push_back(x);
  }
  for (int i = 0; i < n / 8; ++i) v.push_back(static_cast<T>(std::ldexp(u(g), -static_cast<int>(g() % 1100))));
  return v;
}

struct UnaryCase {
  const char* name;
  Unary op;
  ld (*ref)(ld);
  double lo, hi;        // where the uniform samples lie
  double bound_f, bound_d;  // ULP bounds (docs/vector-math.md)
};

ld ref_sigmoid(ld x) { return 1 / (1 + std::exp(-x)); }
ld ref_gelu(ld x) { return x / 2 * std::erfc(-x / std::sqrt(ld(2))); }
ld ref_gelu_tanh(ld x) {
  const ld y = std::sqrt(2 / ld(3.14159265358979323846264338327950288L)) * (x + ld(0.044715) * x * x * x);
  return x / (1 + std::exp(-2 * y));  // 0.5 x (1 + tanh y) without the cancellation
}
ld ref_rsqrt(ld x) { return 1 / std::sqrt(x); }
ld ref_reciprocal(ld x) { return 1 / x; }
ld ref_gelu_from_minus1(ld x) { return std::isnan(x) ? x : ref_gelu(std::max(x, ld(-1))); }
ld ref_gelu_tanh_from_minus1(ld x) { return std::isnan(x) ? x : ref_gelu_tanh(std::max(x, ld(-1))); }

// gelu's 1 + erf(x / sqrt 2) cancels for negative x; its ULP bound is for x >= -1 (below, an
// absolute bound: vec_math_gelu_tail).
at::Tensor from_minus1(const at::Tensor& x) { return torch::where(x < -1, torch::full_like(x, -1), x); }

const std::vector<UnaryCase>& unary_cases() {
#define EMBER_UNARY_CASE(F, LO, HI, BF, BD) \
  UnaryCase{#F, [](const at::Tensor& x) { return torch::F(x); }, [](ld x) -> ld { return std::F(x); }, LO, HI, BF, BD}
  static const std::vector<UnaryCase> cases = {
      EMBER_UNARY_CASE(exp, -110, 90, 1.0, 1.0),     EMBER_UNARY_CASE(exp2, -160, 130, 1.0, 1.0),
      EMBER_UNARY_CASE(expm1, -20, 90, 1.0, 1.0),    EMBER_UNARY_CASE(log, 0, 1e6, 1.0, 1.0),
      EMBER_UNARY_CASE(log2, 0, 1e6, 1.0, 1.0),      EMBER_UNARY_CASE(log10, 0, 1e6, 1.0, 1.0),
      EMBER_UNARY_CASE(log1p, -1, 1e6, 1.0, 1.0),    EMBER_UNARY_CASE(sin, -1e4, 1e4, 1.0, 1.0),
      EMBER_UNARY_CASE(cos, -1e4, 1e4, 1.0, 1.0),    EMBER_UNARY_CASE(tan, -1e4, 1e4, 1.0, 1.0),
      EMBER_UNARY_CASE(asin, -1, 1, 1.0, 1.0),       EMBER_UNARY_CASE(acos, -1, 1, 1.0, 1.0),
      EMBER_UNARY_CASE(atan, -1e3, 1e3, 1.0, 1.0),   EMBER_UNARY_CASE(sinh, -90, 90, 2.0, 2.0),
      EMBER_UNARY_CASE(cosh, -90, 90, 2.0, 2.0),     EMBER_UNARY_CASE(tanh, -20, 20, 1.001, 1.001),
      EMBER_UNARY_CASE(erf, -5, 5, 2.0, 1.05),       EMBER_UNARY_CASE(sqrt, 0, 1e6, 0.5, 0.5),
      UnaryCase{"rsqrt", [](const at::Tensor& x) { return torch::rsqrt(x); }, ref_rsqrt, 0, 1e6, 1.5, 1.5},
      UnaryCase{"reciprocal", [](const at::Tensor& x) { return torch::reciprocal(x); }, ref_reciprocal, -1e6, 1e6, 0.5, 0.5},
      UnaryCase{"sigmoid", [](const at::Tensor& x) { return torch::sigmoid(x); }, ref_sigmoid, -100, 100, 3.0, 3.0},
      UnaryCase{"gelu", [](const at::Tensor& x) { return torch::gelu(from_minus1(x)); }, ref_gelu_from_minus1, -1, 100, 3.0, 3.0},
      // mostly [-1, 4): the float form for |x| < 3.875 (Note [Own float erf]; every float: 1.52 ulp with FMA,
      // 1.55 without; the form beyond, which the special and random-bit samples reach: 1.49 and 1.71)
      UnaryCase{"gelu_near", [](const at::Tensor& x) { return torch::gelu(from_minus1(x)); }, ref_gelu_from_minus1, -1, 4, 2.0, 3.0},
      UnaryCase{"gelu_tanh", [](const at::Tensor& x) { return torch::gelu(from_minus1(x), "tanh"); },
                ref_gelu_tanh_from_minus1, -1, 100, 3.0, 3.0},
  };
#undef EMBER_UNARY_CASE
  return cases;
}

struct BinaryCase {
  const char* name;
  Binary op;
  ld (*ref)(ld, ld);
  double lo, hi, lo2, hi2;
  double bound_f, bound_d;
};

const std::vector<BinaryCase>& binary_cases() {
  static const std::vector<BinaryCase> cases = {
      {"atan2", [](const at::Tensor& a, const at::Tensor& b) { return torch::atan2(a, b); },
       [](ld a, ld b) { return std::atan2(a, b); }, -100, 100, -100, 100, 2.0, 1.5},
      {"pow", [](const at::Tensor& a, const at::Tensor& b) { return torch::pow(a, b); },
       [](ld a, ld b) { return std::pow(a, b); }, 0, 100, -30, 30, 1.0, 1.0},
  };
  return cases;
}

template <typename T> void check_unary_ulp(const UnaryCase& c) {
  const std::vector<T> x = sample_values<T>(17, c.lo, c.hi, 20000);
  const std::vector<T> y = values_of<T>(c.op(tensor_of(x)));
  const double bound = std::is_same_v<T, float> ? c.bound_f : c.bound_d;
  double worst = 0;
  T at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = ulp_error<T>(y[i], c.ref(static_cast<ld>(x[i])));
    if (e > worst) worst = e, at = x[i];
  }
  INFO(c.name << " " << (std::is_same_v<T, float> ? "float" : "double") << ": max " << worst << " ulp at x = "
              << static_cast<double>(at) << ", bound " << bound);
  CHECK(worst <= bound);
}

template <typename T> void check_binary_ulp(const BinaryCase& c) {
  const std::vector<T> xs = sample_values<T>(5, c.lo, c.hi, 20000), ys = sample_values<T>(6, c.lo2, c.hi2, 20000);
  std::vector<T> a, b;
  const size_t kSpecial = 32;
  for (size_t i = 0; i < kSpecial; ++i)
    for (size_t j = 0; j < kSpecial; ++j) a.push_back(xs[i]), b.push_back(ys[j]);
  for (size_t i = kSpecial; i < xs.size(); ++i) a.push_back(xs[i]), b.push_back(ys[i]);
  const std::vector<T> r = values_of<T>(c.op(tensor_of(a), tensor_of(b)));
  const double bound = std::is_same_v<T, float> ? c.bound_f : c.bound_d;
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = ulp_error<T>(r[i], c.ref(static_cast<ld>(a[i]), static_cast<ld>(b[i])));
    if (e > worst) worst = e, at = i;
  }
  INFO(c.name << " " << (std::is_same_v<T, float> ? "float" : "double") << ": max " << worst << " ulp at ("
              << static_cast<double>(a[at]) << ", " << static_cast<double>(b[at]) << "), bound " << bound);
  CHECK(worst <= bound);
}

// The positions of `got` whose values differ from `want` (NaN matching NaN).
template <typename T> int count_differences(const at::Tensor& got, const at::Tensor& want) {
  REQUIRE(got.sizes() == want.sizes());
  const std::vector<T> g = values_of<T>(got), w = values_of<T>(want);
  int bad = 0;
  for (size_t i = 0; i < g.size(); ++i) bad += !same_value(g[i], w[i]);
  return bad;
}

// One unary op on the same values laid out every way cpu_pointwise distinguishes.
template <typename T> void check_layouts(const std::string& name, const Unary& op, const std::vector<T>& x) {
  INFO(name << " " << c10::dtypeName(dtype_of<T>()));
  const int64_t n = static_cast<int64_t>(x.size());
  const at::Tensor t = tensor_of(x), ref = op(t);
  // every offset and length up to twice the widest vector (16 floats) and one more
  int bad = 0;
  for (int64_t off = 0; off < 16; ++off)
    for (int64_t len = 1; len <= 33 && off + len <= n; ++len)
      bad += count_differences<T>(op(t.narrow(0, off, len)), ref.narrow(0, off, len));
  CHECK(bad == 0);
  // step-sliced input
  const at::Tensor spread = at::zeros({2 * n}, t.options());
  spread.slice(0, 0, 2 * n, 2).copy_(t);
  CHECK(count_differences<T>(op(spread.slice(0, 0, 2 * n, 2)), ref) == 0);
  // transposed input
  const int64_t rows = 7, cols = n / rows;
  const at::Tensor block = t.narrow(0, 0, rows * cols).view({cols, rows});
  CHECK(count_differences<T>(op(block.t()).t().contiguous().view({-1}), ref.narrow(0, 0, rows * cols)) == 0);
  // expanded (stride 0) input: each value broadcast over 37 lanes
  for (int64_t i = 0; i < std::min<int64_t>(n, 40); ++i) {
    const at::Tensor e = op(t.narrow(0, i, 1).expand({37}));
    CHECK(count_differences<T>(e, ref.narrow(0, i, 1).expand({37})) == 0);
  }
}

template <typename T> void check_binary_layouts(const std::string& name, const Binary& op, const std::vector<T>& a,
                                                const std::vector<T>& b) {
  INFO(name << " " << c10::dtypeName(dtype_of<T>()));
  const int64_t n = static_cast<int64_t>(a.size());
  const at::Tensor ta = tensor_of(a), tb = tensor_of(b), ref = op(ta, tb);
  int bad = 0;
  for (int64_t off = 0; off < 16; ++off)
    for (int64_t len = 1; len <= 33 && off + len <= n; ++len)
      bad += count_differences<T>(op(ta.narrow(0, off, len), tb.narrow(0, off, len)), ref.narrow(0, off, len));
  CHECK(bad == 0);
  // second operand step-sliced
  const at::Tensor spread = at::zeros({3 * n}, tb.options());
  spread.slice(0, 0, 3 * n, 3).copy_(tb);
  CHECK(count_differences<T>(op(ta, spread.slice(0, 0, 3 * n, 3)), ref) == 0);
  // first operand transposed, second contiguous: one of them is walked with a stride
  const int64_t rows = 7, cols = n / rows;
  const at::Tensor a_t = ta.narrow(0, 0, rows * cols).view({cols, rows}).t();
  const at::Tensor b_c = tb.narrow(0, 0, rows * cols).view({cols, rows}).t().contiguous();
  CHECK(count_differences<T>(op(a_t, b_c).t().contiguous().view({-1}), ref.narrow(0, 0, rows * cols)) == 0);
  CHECK(count_differences<T>(op(b_c, a_t).t().contiguous().view({-1}),
                             op(tb, ta).narrow(0, 0, rows * cols)) == 0);
  // second operand one value expanded, against the same value written out
  for (int64_t i : {0, 3, 5}) {
    const at::Tensor bi = tb.narrow(0, i, 1);
    CHECK(count_differences<T>(op(ta, bi.expand({n})), op(ta, bi.expand({n}).contiguous())) == 0);
    CHECK(count_differences<T>(op(ta, bi), op(ta, bi.expand({n}).contiguous())) == 0);
  }
}

std::vector<Unary> layout_ops() {
  std::vector<Unary> ops;
  for (const auto& c : unary_cases()) ops.push_back(c.op);
  return ops;
}

template <typename T> std::vector<T> layout_values() {
  std::vector<T> v = sample_values<T>(23, -40, 40, 160);
  v.resize(203);  // specials first, then a length no vector width divides
  return v;
}

// Every 16-bit pattern of T (Half or BFloat16) through op, against op in float rounded once.
template <typename T> void check_rounded_once(const std::string& name, const Unary& op) {
  INFO(name << " " << c10::dtypeName(dtype_of<T>()));
  std::vector<T> all(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = T(static_cast<uint16_t>(i), T::from_bits());
  const at::Tensor t = tensor_of(all);
  const at::Tensor got = op(t), want = op(t.to(at::kFloat)).to(dtype_of<T>());
  CHECK(count_differences<T>(got, want) == 0);
}

template <typename T> void check_binary_rounded_once(const std::string& name, const Binary& op) {
  INFO(name << " " << c10::dtypeName(dtype_of<T>()));
  std::mt19937 g(3);
  std::vector<T> a(65536), b(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    a[i] = T(static_cast<uint16_t>(i), T::from_bits());
    b[i] = T(static_cast<uint16_t>(g()), T::from_bits());
  }
  const at::Tensor ta = tensor_of(a), tb = tensor_of(b);
  const at::Tensor got = op(ta, tb), want = op(ta.to(at::kFloat), tb.to(at::kFloat)).to(dtype_of<T>());
  CHECK(count_differences<T>(got, want) == 0);
}

std::vector<std::pair<std::string, Binary>> binary_ops() {
  std::vector<std::pair<std::string, Binary>> ops;
  for (const auto& c : binary_cases()) ops.emplace_back(c.name, c.op);
  ops.emplace_back("add alpha", [](const at::Tensor& a, const at::Tensor& b) { return torch::add(a, b, 0.3); });
  ops.emplace_back("mul", [](const at::Tensor& a, const at::Tensor& b) { return a * b; });
  ops.emplace_back("div", [](const at::Tensor& a, const at::Tensor& b) { return a / b; });
  ops.emplace_back("maximum", [](const at::Tensor& a, const at::Tensor& b) { return torch::maximum(a, b); });
  return ops;
}
}  // namespace vec_math_test

using namespace vec_math_test;

TEST_CASE("vec math: float and double within the documented ULP bounds", "[vec_math]") {
  for (const auto& c : unary_cases()) {
    check_unary_ulp<float>(c);
    check_unary_ulp<double>(c);
  }
  for (const auto& c : binary_cases()) {
    check_binary_ulp<float>(c);
    check_binary_ulp<double>(c);
  }
}

TEST_CASE("vec math: gelu below -1 within its absolute bound", "[vec_math]") {
  // 0.5 x (1 + erf(x / sqrt 2)) cancels there; the error stays under 0.5 |x| eps (docs/vector-math.md).
  const auto run = [](auto zero, const char* approximate, ld (*ref)(ld)) {
    using T = decltype(zero);
    std::vector<T> x;
    for (int i = 0; i < 4000; ++i) x.push_back(static_cast<T>(-1 - 29.0 * i / 4000));
    const std::vector<T> y = values_of<T>(torch::gelu(tensor_of(x), approximate));
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i)
      worst = std::max(worst, static_cast<double>(std::fabs(y[i] - ref(x[i])) /
                                                  (std::fabs(ld(x[i])) * std::numeric_limits<T>::epsilon())));
    INFO(approximate << " " << c10::dtypeName(dtype_of<T>()) << ": max |err| " << worst << " |x| eps");
    CHECK(worst <= 0.5);
  };
  run(0.0f, "none", ref_gelu);
  run(0.0, "none", ref_gelu);
  run(0.0f, "tanh", ref_gelu_tanh);
  run(0.0, "tanh", ref_gelu_tanh);
}

TEST_CASE("vec math: results do not depend on layout, offset or length", "[vec_math]") {
  const auto fv = layout_values<float>();
  const auto dv = layout_values<double>();
  std::vector<c10::Half> hv;
  std::vector<c10::BFloat16> bv;
  for (float f : fv) hv.emplace_back(f), bv.emplace_back(f);
  for (const auto& c : unary_cases()) {
    check_layouts<float>(c.name, c.op, fv);
    check_layouts<double>(c.name, c.op, dv);
    check_layouts<c10::Half>(c.name, c.op, hv);
    check_layouts<c10::BFloat16>(c.name, c.op, bv);
  }
  std::vector<float> fb(fv.rbegin(), fv.rend());
  std::vector<double> db(dv.rbegin(), dv.rend());
  std::vector<c10::Half> hb(hv.rbegin(), hv.rend());
  std::vector<c10::BFloat16> bb(bv.rbegin(), bv.rend());
  for (const auto& [name, op] : binary_ops()) {
    check_binary_layouts<float>(name, op, fv, fb);
    check_binary_layouts<double>(name, op, dv, db);
    check_binary_layouts<c10::Half>(name, op, hv, hb);
    check_binary_layouts<c10::BFloat16>(name, op, bv, bb);
  }
}

TEST_CASE("vec math: Half and BFloat16 are the float result rounded once", "[vec_math]") {
  for (const auto& c : unary_cases()) {
    check_rounded_once<c10::Half>(c.name, c.op);
    check_rounded_once<c10::BFloat16>(c.name, c.op);
  }
  for (const auto& [name, op] : binary_ops()) {
    check_binary_rounded_once<c10::Half>(name, op);
    check_binary_rounded_once<c10::BFloat16>(name, op);
  }
}

TEST_CASE("vec math: float exp and sigmoid give the same bits on their fast and wide paths", "[vec_math]") {
  // Note [Own float exp]: a vector whose lanes all have |x| <= 87 scales by an integer add to the
  // exponent; any other vector takes the clamped path that rounds p 2^n once. The same inputs run
  // once as they are (fast path everywhere) and once with every fourth element replaced by a value
  // outside that range (so every vector, 4, 8 or 16 lanes, takes the wide path): the other lanes
  // must not change.
  std::vector<float> x;
  std::mt19937 gen(2026);
  std::uniform_real_distribution<float> u(-87.0f, 87.0f);
  for (float v : {0.0f, -0.0f, 87.0f, -87.0f, 86.99999f, -86.99999f, 1e-30f, -1e-30f, 1e-45f, 0.3465736f, -0.3465736f,
                  87.0f * 0.5f, -62.38325f, 88.0f / 3, 1.0f, -1.0f})
    x.push_back(v);
  while (x.size() < 4096) x.push_back(u(gen));
  for (float outside : {100.0f, -100.0f, 87.5f, -87.5f, std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::infinity()}) {
    std::vector<float> mixed = x;
    for (size_t i = 3; i < mixed.size(); i += 4) mixed[i] = outside;
    for (const auto& [name, op] : std::vector<std::pair<const char*, Unary>>{
             {"exp", [](const at::Tensor& t) { return t.exp(); }}, {"sigmoid", [](const at::Tensor& t) { return t.sigmoid(); }}}) {
      const std::vector<float> fast = values_of<float>(op(tensor_of(x))), wide = values_of<float>(op(tensor_of(mixed)));
      size_t differ = 0, first = 0;
      for (size_t i = 0; i < x.size(); ++i)
        if (i % 4 != 3 && !same_value(fast[i], wide[i]) && differ++ == 0) first = i;
      INFO(name << " with " << outside << " in every fourth lane: " << differ << " lanes differ, first at x = " << x[first]);
      CHECK(differ == 0);
    }
  }
}

TEST_CASE("vec math: softmax's exponentials are the pointwise exp's, at every row length and dim", "[vec_math]") {
  // One element 0 and the rest far below (float: [-60, -30], double: [-700, -100]): the row sums
  // to 1 so nearly that 1 / sum rounds to 1.0, and softmax(x)[i] is e^x[i] itself, bit for bit the
  // pointwise exp's (the same vector exp, Note [One vector-math source]), also in a row's last
  // n % W elements and along a dim that is not the last. (libm's exp differs from the vector one in
  // the last bit for some x: the tails and the other dims used it until 2026-12-04.)
  std::mt19937 gen(7);
  for (const at::ScalarType dt : {at::kFloat, at::kDouble}) {
    std::uniform_real_distribution<double> u(dt == at::kFloat ? -60.0 : -700.0, dt == at::kFloat ? -30.0 : -100.0);
    for (int64_t len = 1; len <= 40; ++len) {
      std::vector<double> v{0.0};
      while (static_cast<int64_t>(v.size()) < len) v.push_back(u(gen));
      const at::Tensor x = tensor_of(v).to(dt);
      const at::Tensor e = x.exp();
      // Along the last dim (rows of `len`), and along dim 0 of a [len, 3] tensor (strided path).
      const at::Tensor last = at::softmax(x.reshape({1, len}), 1).reshape({len});
      const at::Tensor cols = x.reshape({len, 1}).expand({len, 3}).contiguous();
      const at::Tensor first = at::softmax(cols, 0);
      INFO(c10::dtypeName(dt) << " row length " << len);
      CHECK(last.equal(e));
      for (int64_t c = 0; c < 3; ++c) CHECK(first.select(1, c).contiguous().equal(e));
    }
  }
}
