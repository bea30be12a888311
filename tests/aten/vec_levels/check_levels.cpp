// Checks aten/ATen/native/cpu/Vec.h and Loops.h at the level this file is compiled for (run.sh
// builds it at each; it needs the headers and -lsleef, not the library). Prints the largest ULP
// error per function (docs/vector-math.md's measured columns) and fails past the bounds there;
// checks rounding, max_nan/min_nan, abs and negation bit for bit against the scalar functions;
// that cpu_pointwise's vector loop gives the same bits at every offset, length, stride and
// broadcast; that a lane's result does not depend on its neighbours; and with --full, the
// Half/BFloat16 conversions against c10's for every float and every 16-bit value.
//   check_levels [--full] [dump-file]   (the dump lets run.sh compare levels bit for bit)
#include <ATen/native/cpu/Loops.h>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace pw = ember::pw;
#if defined(__FMA__)
constexpr bool kFmaFlag = true;
#else
constexpr bool kFmaFlag = false;
#endif
using ld = long double;

static int failures = 0;
#define CHECKX(c, ...) do { if (!(c)) { ++failures; if (failures < 40) { std::printf("FAIL %s:%d: ", __FILE__, __LINE__); std::printf(__VA_ARGS__); std::printf("\n"); } } } while (0)

template <typename T> uint64_t bits(T x) { uint64_t u = 0; std::memcpy(&u, &x, sizeof(T)); return u; }
// Same bits, or both NaN: a NaN's sign and payload follow the compiler's operand order.
template <typename T> bool same(T a, T b) { const float fa = float(a), fb = float(b); return bits(a) == bits(b) || (fa != fa && fb != fb); }

// ULP error of y against the exact r (T's ulp at r; r past T's max rounds to inf).
template <typename T> double ulp_err(T y, ld r) {
  constexpr int mant = std::numeric_limits<T>::digits - 1, emin = std::numeric_limits<T>::min_exponent - 1;
  if (std::isnan(r)) return std::isnan(y) ? 0 : 1e30;
  if (std::isnan(y)) return 1e30;
  if (std::isinf(r)) return y == r ? 0 : 1e30;
  const ld maxv = std::numeric_limits<T>::max();
  const ld top = std::ldexp(ld(1), std::numeric_limits<T>::max_exponent);  // where inf starts
  if (y == 0 && r == 0) return std::signbit(y) == std::signbit(r) ? 0 : 1e30;
  int e = std::max(std::ilogb(r), emin);
  if (std::fabs(r) > maxv) e = std::numeric_limits<T>::max_exponent - 1;
  const ld u = std::ldexp(ld(1), e - mant);
  if (std::isinf(y)) {
    if (std::signbit(y) != std::signbit(r)) return 1e30;
    if (std::fabs(r) >= top - u / 2) return 0;  // rounds to inf
    return double((top - std::fabs(r)) / u);
  }
  return double(std::fabs(ld(y) - r) / u);
}

template <typename T> std::vector<T> samples(std::mt19937_64& g, T lo, T hi, int n) {
  std::vector<T> v;
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  for (T x : {nan, -nan, inf, -inf, T(0), T(-0.0), std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
              std::numeric_limits<T>::min(), -std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), -std::numeric_limits<T>::max(),
              T(1), T(-1), T(0.5), T(-0.5), T(2), T(1e-7), T(-1e-7), T(88.7), T(-87.5), T(89), T(-104), T(1e10), T(-1e10), T(1e30), T(3.14159265), T(710), T(-745)})
    v.push_back(x);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int i = 0; i < n; ++i) v.push_back(T(u(g)));
  for (int i = 0; i < n / 4; ++i) {  // any bit pattern
    uint64_t b = g();
    T x; std::memcpy(&x, &b, sizeof(T)); v.push_back(x);
  }
  for (int i = 0; i < n / 8; ++i) v.push_back(T(std::ldexp(u(g), -int(g() % (sizeof(T) == 4 ? 160 : 1100)))));  // tiny, denormal
  return v;
}

template <typename T> using VT = pw::Vec<T>;

template <typename T> double max_ulp1(const char* name, VT<T> (*vf)(VT<T>), ld (*ref)(ld), T lo, T hi, int n, double bound) {
  std::mt19937_64 g(42);
  auto xs = samples<T>(g, lo, hi, n);
  constexpr int W = VT<T>::size;
  while (xs.size() % W) xs.push_back(T(0));
  std::vector<T> ys(xs.size());
  for (size_t i = 0; i < xs.size(); i += W) vf(VT<T>::load(&xs[i])).store(&ys[i]);
  double m = 0; T worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    double e = ulp_err<T>(ys[i], ref(ld(xs[i])));
    if (e > m) { m = e; worst = xs[i]; }
  }
  std::printf("  %-8s %-6s max %.3f ulp (at %.9g)%s\n", name, sizeof(T) == 4 ? "float" : "double", m, double(worst), m > bound ? "  > BOUND" : "");
  CHECKX(m <= bound, "%s max ulp %g > %g", name, m, bound);
  return m;
}

template <typename T> double max_ulp2(const char* name, VT<T> (*vf)(VT<T>, VT<T>), ld (*ref)(ld, ld), T lo, T hi, T lo2, T hi2, int n, double bound) {
  std::mt19937_64 g(7);
  auto xs = samples<T>(g, lo, hi, n), ys = samples<T>(g, lo2, hi2, n);
  constexpr int W = VT<T>::size;
  std::vector<T> a, b;  // all special pairs, then the random ones
  for (int i = 0; i < 29; ++i) for (int j = 0; j < 29; ++j) { a.push_back(xs[i]); b.push_back(ys[j]); }
  for (size_t i = 29; i < xs.size(); ++i) { a.push_back(xs[i]); b.push_back(ys[i]); }
  while (a.size() % W) { a.push_back(1); b.push_back(1); }
  std::vector<T> r(a.size());
  for (size_t i = 0; i < a.size(); i += W) vf(VT<T>::load(&a[i]), VT<T>::load(&b[i])).store(&r[i]);
  double m = 0; T wa = 0, wb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double e = ulp_err<T>(r[i], ref(ld(a[i]), ld(b[i])));
    if (e > m) { m = e; wa = a[i]; wb = b[i]; }
  }
  std::printf("  %-8s %-6s max %.3f ulp (at %.9g, %.9g)%s\n", name, sizeof(T) == 4 ? "float" : "double", m, double(wa), double(wb), m > bound ? "  > BOUND" : "");
  CHECKX(m <= bound, "%s max ulp %g > %g", name, m, bound);
  return m;
}

ld sigmoid_ref(ld x) { return 1 / (1 + std::exp(-x)); }
ld gelu_ref(ld x) { return x / 2 * std::erfc(-x / std::sqrt(ld(2))); }
ld gelu_tanh_ref(ld x) { const ld y = std::sqrt(2 / ld(M_PI)) * (x + ld(0.044715) * x * x * x); return x / (1 + std::exp(-2 * y)); }
// gelu below -1: absolute error in units of |x| * eps(T).
template <typename T> void gelu_abs(int n) {
  constexpr int W = VT<T>::size;
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-30, -1);
  double m1 = 0, m2 = 0;
  for (int i = 0; i < n; i += W) {
    T x[W], y1[W], y2[W];
    for (int k = 0; k < W; ++k) x[k] = T(u(g));
    pw::gelu_erf(VT<T>::load(x)).store(y1); pw::gelu_tanh(VT<T>::load(x)).store(y2);
    for (int k = 0; k < W; ++k) {
      const ld sc = std::fabs(ld(x[k])) * std::numeric_limits<T>::epsilon();
      m1 = std::max(m1, double(std::fabs(y1[k] - gelu_ref(x[k])) / sc));
      m2 = std::max(m2, double(std::fabs(y2[k] - gelu_tanh_ref(x[k])) / sc));
    }
  }
  std::printf("  gelu x<-1: |err| <= %.3f |x| eps (erf), %.3f |x| eps (tanh)\n", m1, m2);
}
ld rsqrt_ref(ld x) { return 1 / std::sqrt(x); }
ld recip_ref(ld x) { return 1 / x; }

template <typename T> void check_math(int n) {
  constexpr bool kFma = kFmaFlag;
#define M1(F, LO, HI, B) max_ulp1<T>(#F, [](VT<T> x) { return pw::F(x); }, [](ld x) -> ld { return std::F(x); }, T(LO), T(HI), n, B)
  M1(exp, -110, 90, 1.0); M1(exp2, -160, 130, 1.0); M1(expm1, -20, 90, 1.0);
  M1(log, 0, 1e6, 1.0); M1(log2, 0, 1e6, 1.0); M1(log10, 0, 1e6, 1.0); M1(log1p, -1, 1e6, 1.0);
  M1(sin, -1e4, 1e4, 1.0); M1(cos, -1e4, 1e4, 1.0); M1(tan, -1e4, 1e4, 1.0);
  M1(asin, -1, 1, 1.0); M1(acos, -1, 1, 1.0); M1(atan, -1e3, 1e3, 1.0);
  M1(sinh, -90, 90, 2.0); M1(cosh, -90, 90, 2.0); M1(tanh, -20, 20, 1.001); M1(erf, -5, 5, sizeof(T) == 4 ? 2.0 : 1.05);
  M1(sqrt, 0, 1e6, 0.5);
#undef M1
  max_ulp1<T>("rsqrt", [](VT<T> x) { return pw::rsqrt(x); }, rsqrt_ref, T(0), T(1e6), n, 1.5);
  max_ulp1<T>("recip", [](VT<T> x) { return pw::reciprocal(x); }, recip_ref, T(-1e6), T(1e6), n, 0.5);
  max_ulp1<T>("sigmoid", [](VT<T> x) { return pw::sigmoid(x); }, sigmoid_ref, T(-100), T(100), n, 3.0);
  max_ulp1<T>("gelu[-1,)", [](VT<T> x) { return pw::gelu_erf(pw::max_nan(x, T(-1))); }, [](ld x) { return gelu_ref(std::isnan(x) ? x : std::max(x, ld(-1))); }, T(-1), T(100), n, 1e9);
  max_ulp1<T>("gelt[-1,)", [](VT<T> x) { return pw::gelu_tanh(pw::max_nan(x, T(-1))); }, [](ld x) { return gelu_tanh_ref(std::isnan(x) ? x : std::max(x, ld(-1))); }, T(-1), T(100), n, 1e9);
  gelu_abs<T>(n);
  max_ulp2<T>("atan2", [](VT<T> a, VT<T> b) { return pw::atan2(a, b); }, [](ld a, ld b) { return std::atan2(a, b); }, T(-100), T(100), T(-100), T(100), n, kFma ? 1.0 : 1.8);
  max_ulp2<T>("pow", [](VT<T> a, VT<T> b) { return pw::pow(a, b); }, [](ld a, ld b) { return std::pow(a, b); }, T(0), T(100), T(-30), T(30), n, 1.0);
}

// floor/ceil/trunc/round and max_nan/min_nan against the scalar functions, bit for bit.
template <typename T> void check_exact() {
  std::mt19937_64 g(3);
  std::vector<T> xs = samples<T>(g, -100, 100, 20000);
  const T big = sizeof(T) == 4 ? T(8388608.0f) : T(4503599627370496.0);
  for (T b : {big, T(big / 2), T(big * 2)}) for (T d : {T(-1.5), T(-1), T(-0.5), T(0), T(0.5), T(1), T(1.5)}) { xs.push_back(b + d); xs.push_back(-(b + d)); }
  for (T d : {T(0.49999997), T(0.5), T(0.50000006), T(1.5), T(2.5), T(-2.5), T(-0.3), T(-0.0), T(-0.7)}) xs.push_back(d);
  constexpr int W = VT<T>::size;
  while (xs.size() % W) xs.push_back(T(0.25));
  std::vector<T> ys(xs.begin() + 1, xs.end()); ys.push_back(std::numeric_limits<T>::quiet_NaN());
  for (size_t i = 0; i < xs.size(); i += W) {
    const VT<T> v = VT<T>::load(&xs[i]), w = VT<T>::load(&ys[i]);
    T f[W], c[W], t[W], r[W], mx[W], mn[W], ab[W], ng[W];
    pw::floor(v).store(f); pw::ceil(v).store(c); pw::trunc(v).store(t); pw::round(v).store(r);
    pw::max_nan(v, w).store(mx); pw::min_nan(v, w).store(mn); pw::abs(v).store(ab); (-v).store(ng);
    for (int k = 0; k < W; ++k) {
      const T x = xs[i + k], y = ys[i + k];
      CHECKX(same(f[k], T(std::floor(x))) && std::signbit(f[k]) == std::signbit(x), "floor(%a) = %a", double(x), double(f[k]));
      CHECKX(same(c[k], T(std::ceil(x))) && std::signbit(c[k]) == std::signbit(x), "ceil(%a) = %a", double(x), double(c[k]));
      CHECKX(same(t[k], T(std::trunc(x))) && std::signbit(t[k]) == std::signbit(x), "trunc(%a) = %a", double(x), double(t[k]));
      CHECKX(same(r[k], T(std::nearbyint(x))) && std::signbit(r[k]) == std::signbit(x), "round(%a) = %a", double(x), double(r[k]));
      CHECKX(bits(mx[k]) == bits(pw::max_nan(x, y)), "max_nan(%a, %a) = %a", double(x), double(y), double(mx[k]));
      CHECKX(bits(mn[k]) == bits(pw::min_nan(x, y)), "min_nan(%a, %a) = %a", double(x), double(y), double(mn[k]));
      CHECKX(bits(ab[k]) == bits(T(std::fabs(x))), "abs(%a)", double(x));
      CHECKX(bits(ng[k]) == bits(T(-x)), "neg(%a)", double(x));
    }
  }
}

// Every float to Half/BFloat16 and back, against c10's scalar conversions.
void check_conversions() {
  constexpr int W = VT<float>::size;
  c10::Half h[W]; c10::BFloat16 b[W]; float f[W];
  long bad_h = 0, bad_b = 0;
  for (uint64_t u0 = 0; u0 < (1ull << 32); u0 += W) {
    for (int k = 0; k < W; ++k) { uint32_t u = uint32_t(u0 + k); std::memcpy(&f[k], &u, 4); }
    const VT<float> v = VT<float>::load(f);
    pw::store_opmath(v, h); pw::store_opmath(v, b);
    for (int k = 0; k < W; ++k) {
      if (h[k].x != c10::Half(f[k]).x) { if (bad_h++ < 5) std::printf("half(%08x) = %04x, c10 %04x\n", unsigned(bits(f[k])), h[k].x, c10::Half(f[k]).x); }
      if (b[k].x != c10::BFloat16(f[k]).x) { if (bad_b++ < 5) std::printf("bf16(%08x) = %04x, c10 %04x\n", unsigned(bits(f[k])), b[k].x, c10::BFloat16(f[k]).x); }
    }
  }
  CHECKX(bad_h == 0 && bad_b == 0, "float->half %ld, float->bf16 %ld mismatches", bad_h, bad_b);
  long bad_l = 0;
  for (uint32_t u0 = 0; u0 < 65536; u0 += W) {
    for (int k = 0; k < W; ++k) { h[k].x = uint16_t(u0 + k); b[k].x = uint16_t(u0 + k); }
    float fh[W], fb[W];
    pw::load_opmath(h).store(fh); pw::load_opmath(b).store(fb);
    for (int k = 0; k < W; ++k) {
      // NaN payloads may differ (vcvtph2ps quiets a signalling NaN); a store makes them canonical.
      const float ch = float(h[k]), cb = float(b[k]);
      if (std::isnan(ch) ? !(std::isnan(fh[k]) && std::signbit(fh[k]) == std::signbit(ch)) : bits(fh[k]) != bits(ch)) bad_l++;
      if (std::isnan(cb) ? !(std::isnan(fb[k]) && std::signbit(fb[k]) == std::signbit(cb)) : bits(fb[k]) != bits(cb)) bad_l++;
    }
  }
  CHECKX(bad_l == 0, "half/bf16 -> float: %ld mismatches", bad_l);
  std::printf("  conversions: every float -> half/bf16 and every half/bf16 -> float checked\n");
}

// vec_loop: contiguous, strided, broadcast and every length 1..2W+1 give the same bits.
template <typename T, typename F> void check_layouts(const char* name, const F& f) {
  constexpr int W = ember::detail::vec_of<T>::size;
  std::mt19937_64 g(11);
  std::uniform_real_distribution<float> u(-30, 30);
  const int n = 4 * W + 3;
  std::vector<T> x(n), y(n), ref(n);
  for (int i = 0; i < n; ++i) { x[i] = T(u(g)); y[i] = T(u(g)); }
  x[1] = T(std::numeric_limits<float>::quiet_NaN()); x[2] = T(-0.0f); x[3] = T(std::numeric_limits<float>::infinity());
  auto run = [&](T* out, int64_t os, const T* a, int64_t as, const T* b, int64_t bs, int64_t len) {
    char* data[3] = {reinterpret_cast<char*>(out), (char*)a, (char*)b};
    int64_t s[3] = {os, as, bs};
    ember::detail::vec_loop<T>(data, s, len, f, std::make_index_sequence<2>{});
  };
  run(ref.data(), sizeof(T), x.data(), sizeof(T), y.data(), sizeof(T), n);
  int bad = 0;
  // lengths from every offset
  for (int off = 0; off < W; ++off) for (int len = 1; len <= 2 * W + 1 && off + len <= n; ++len) {
    std::vector<T> o(len);
    run(o.data(), sizeof(T), x.data() + off, sizeof(T), y.data() + off, sizeof(T), len);
    for (int i = 0; i < len; ++i) bad += !same(o[i], ref[off + i]);
  }
  // strided (every element spread 3 apart), output strided too
  std::vector<T> xs(3 * n), ys(3 * n), os(2 * n);
  for (int i = 0; i < n; ++i) { xs[3 * i] = x[i]; ys[3 * i] = y[i]; }
  run(os.data(), 2 * sizeof(T), xs.data(), 3 * sizeof(T), ys.data(), 3 * sizeof(T), n);
  for (int i = 0; i < n; ++i) bad += !same(os[2 * i], ref[i]);
  // broadcast second operand: against the contiguous run with y filled by y[5]
  std::vector<T> yb(n, y[5]), rb(n), ob(n), obs(n);
  run(rb.data(), sizeof(T), x.data(), sizeof(T), yb.data(), sizeof(T), n);
  run(ob.data(), sizeof(T), x.data(), sizeof(T), &y[5], 0, n);
  run(obs.data(), sizeof(T), xs.data(), 3 * sizeof(T), &y[5], 0, n);
  for (int i = 0; i < n; ++i) bad += !same(ob[i], rb[i]) + !same(obs[i], rb[i]);
  std::printf("  layouts  %-10s %s\n", name, bad ? "MISMATCH" : "ok");
  CHECKX(bad == 0, "%s: %d layout mismatches", name, bad);
}

// vec_loop with streaming stores (Note [Streaming stores] in Loops.h): every output alignment and
// length from 4W, plain and with a broadcast operand, gives the bits of the normal stores and
// writes nothing outside the output. Half/BFloat16 never stream; the flag must not change them.
template <typename T, typename F> void check_streaming(const char* name, const F& f) {
  constexpr int W = ember::detail::vec_of<T>::size;
  std::mt19937_64 g(12);
  std::uniform_real_distribution<float> u(-30, 30);
  const int n = 8 * W + 5;
  std::vector<T> x(n), y(n), ref(n), refb(n);
  for (int i = 0; i < n; ++i) { x[i] = T(u(g)); y[i] = T(u(g)); }
  x[4] = T(std::numeric_limits<float>::quiet_NaN()); x[W + 1] = T(-0.0f); x[n - 1] = T(-std::numeric_limits<float>::infinity());
  auto run = [&](T* out, const T* a, const T* b, int64_t bs, int64_t len, bool stream) {
    char* data[3] = {reinterpret_cast<char*>(out), (char*)a, (char*)b};
    int64_t s[3] = {sizeof(T), sizeof(T), bs};
    ember::detail::vec_loop<T>(data, s, len, f, std::make_index_sequence<2>{}, stream);
  };
  run(ref.data(), x.data(), y.data(), sizeof(T), n, false);
  run(refb.data(), x.data(), &y[3], 0, n, false);
  const T sentinel = T(12345.0f);
  alignas(64) T buf[8 * 64 / sizeof(T) + 128];
  int bad = 0;
  for (int off = 0; off < 64 / static_cast<int>(sizeof(T)); ++off) for (int len = 4 * W; len <= n; len += 3) {
    for (int bc = 0; bc < 2; ++bc) {
      for (auto& v : buf) v = sentinel;
      run(buf + 1 + off, x.data(), bc ? &y[3] : y.data(), bc ? 0 : sizeof(T), len, true);
      for (int i = 0; i < len; ++i) bad += !same(buf[1 + off + i], (bc ? refb : ref)[i]);
      for (int i = 0; i < 1 + off; ++i) bad += !same(buf[i], sentinel);
      for (int i = 1 + off + len; i < static_cast<int>(std::size(buf)); ++i) bad += !same(buf[i], sentinel);
    }
  }
  std::printf("  stream   %-10s %s\n", name, bad ? "MISMATCH" : "ok");
  CHECKX(bad == 0, "%s: %d streaming-store mismatches", name, bad);
}

template <typename T> void check_layout_ops() {
  using op = c10::opmath_t<T>;
  check_streaming<T>("exp(a)+b", [](auto a, auto b) { return pw::exp(a) + b; });
  check_layouts<T>("exp(a)+b", [](auto a, auto b) { return pw::exp(a) + b; });
  check_layouts<T>("gelu*sig", [](auto a, auto b) { return pw::gelu_tanh(a) * pw::sigmoid(b); });
  check_layouts<T>("pow", [](auto a, auto b) { return pw::pow(pw::abs(a), b * op(0.1)); });
  check_layouts<T>("a/b", [](auto a, auto b) { return a / b; });
}

// Each lane's result alone (the value broadcast to every lane) equals its result among others;
// the values are also dumped so levels can be compared with each other.
template <typename T> void check_lane_independence(FILE* dump) {
  std::mt19937_64 g(99);
  std::vector<T> xs = samples<T>(g, -300, 300, 3000);
  constexpr int W = VT<T>::size;
  const size_t n0 = xs.size();
  while (xs.size() % W) xs.push_back(T(1));
  using Fn = VT<T> (*)(VT<T>);
  const std::pair<const char*, Fn> fns[] = {
      {"sin", [](VT<T> x) { return pw::sin(x); }},   {"cos", [](VT<T> x) { return pw::cos(x); }},
      {"tan", [](VT<T> x) { return pw::tan(x); }},   {"exp", [](VT<T> x) { return pw::exp(x); }},
      {"log", [](VT<T> x) { return pw::log(x); }},   {"erf", [](VT<T> x) { return pw::erf(x); }},
      {"tanh", [](VT<T> x) { return pw::tanh(x); }}, {"sinh", [](VT<T> x) { return pw::sinh(x); }},
      {"log1p", [](VT<T> x) { return pw::log1p(x); }}, {"sigmoid", [](VT<T> x) { return pw::sigmoid(x); }},
      {"atan2", [](VT<T> x) { return pw::atan2(x, pw::abs(x) - T(3)); }},
      {"pow", [](VT<T> x) { return pw::pow(pw::abs(x), x * T(0.01)); }},
      // float gelu has a form for |x| < 3.875 and one for the rest: scaled to [-6, 6], vectors mix both
      {"gelu", [](VT<T> x) { return pw::gelu_erf(x); }}, {"gelu/50", [](VT<T> x) { return pw::gelu_erf(x * T(0.02)); }}};
  for (const auto& [name, f] : fns) {
    int bad = 0;
    for (size_t i = 0; i < xs.size(); i += W) {
      T r[W];
      f(VT<T>::load(&xs[i])).store(r);
      for (int k = 0; k < W; ++k) {
        T one[W];
        f(VT<T>(xs[i + k])).store(one);
        bad += !same(one[0], r[k]);
        if (dump && i + k < n0) std::fprintf(dump, "%s %d %llx\n", name, int(sizeof(T)), (unsigned long long)(std::isnan(double(r[k])) ? 0x7ff : bits(r[k])));
      }
    }
    CHECKX(bad == 0, "%s: %d lanes depend on their neighbours", name, bad);
  }
}

// exp over every float (--full): the bound is 1 ulp against double exp (whose own error, under
// 2^-52 relative, is far below a float ulp); NaN stays NaN, inf from 88.72 on, +0 far below.
void check_exp_every_float() {
  constexpr int W = VT<float>::size;
  alignas(64) float in[W], out[W];
  double worst = 0;
  float at = 0;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += W) {
    for (int k = 0; k < W; ++k) { const uint32_t u = uint32_t(b + k); std::memcpy(&in[k], &u, 4); }
    pw::exp(VT<float>::load(in)).store(out);
    for (int k = 0; k < W; ++k) {
      const double e = ulp_err<float>(out[k], ld(std::exp(double(in[k]))));
      if (e > worst) { worst = e; at = in[k]; }
    }
  }
  std::printf("  exp      float  every float: max %.4f ulp (at %.9g)%s\n", worst, double(at), worst > 1.0 ? "  > BOUND" : "");
  CHECKX(worst <= 1.0, "exp over every float: %.4f ulp at %a", worst, double(at));
}

// gelu (erf form) over every float (--full), against x / 2 erfc(-x / sqrt 2) in double (its error,
// ~2^-52 relative, is far below a float ulp): ulps for x >= -1 (bound 3) and on [-13, -1) (where
// results are normal; bound 3), and the absolute error in units of |x| eps below -1 (bound 0.5).
void check_gelu_every_float() {
  constexpr int W = VT<float>::size;
  alignas(64) float in[W], out[W];
  double worst = 0, worst_mid = 0, worst_abs = 0;
  float at = 0, at_mid = 0, at_abs = 0;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += W) {
    for (int k = 0; k < W; ++k) { const uint32_t u = uint32_t(b + k); std::memcpy(&in[k], &u, 4); }
    pw::gelu_erf(VT<float>::load(in)).store(out);
    for (int k = 0; k < W; ++k) {
      const float x = in[k];
      if (std::isnan(x)) { CHECKX(std::isnan(out[k]), "gelu(NaN) = %a", double(out[k])); continue; }
      const double r = double(x) / 2 * std::erfc(-double(x) / std::sqrt(2.0));
      if (x >= -1) {
        const double e = ulp_err<float>(out[k], ld(r));
        if (e > worst) { worst = e; at = x; }
      } else {
        const double ea = std::fabs(double(out[k]) - r) / (std::fabs(double(x)) * 0x1p-23);
        if (ea > worst_abs) { worst_abs = ea; at_abs = x; }
        if (x > -13) {
          const double e = ulp_err<float>(out[k], ld(r));
          if (e > worst_mid) { worst_mid = e; at_mid = x; }
        }
      }
    }
  }
  std::printf("  gelu     float  every float: x >= -1 max %.4f ulp (at %.9g); [-13, -1) %.4f ulp (at %.9g); "
              "x < -1 |err| <= %.4f |x| eps (at %.9g)\n", worst, double(at), worst_mid, double(at_mid), worst_abs, double(at_abs));
  CHECKX(worst <= 3.0 && worst_mid <= 3.0 && worst_abs <= 0.5, "gelu over every float: %.4f / %.4f ulp, %.4f |x| eps",
         worst, worst_mid, worst_abs);
}

int main(int argc, char** argv) {
  bool full = false;
  const char* dump_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--full") full = true;
    else dump_path = argv[i];
  }
  std::printf("level %s: float x%d, double x%d\n", pw::vec_level(), VT<float>::size, VT<double>::size);
  check_math<float>(full ? 400000 : 50000);
  check_math<double>(full ? 100000 : 20000);
  check_exact<float>();
  check_exact<double>();
  check_layout_ops<float>();
  check_layout_ops<double>();
  check_layout_ops<c10::Half>();
  check_layout_ops<c10::BFloat16>();
  FILE* dump = dump_path ? std::fopen(dump_path, "w") : nullptr;
  check_lane_independence<float>(dump);
  check_lane_independence<double>(dump);
  if (dump) std::fclose(dump);
  if (full && (std::string(pw::vec_level()) == "avx2" || std::string(pw::vec_level()) == "avx512")) check_conversions();
  if (full) check_exp_every_float();
  if (full) check_gelu_every_float();
  std::printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  return failures != 0;
}
