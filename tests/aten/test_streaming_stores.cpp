// Pointwise outputs written with non-temporal stores (Note [Streaming stores] in
// ATen/native/cpu/Loops.h): with the threshold forced to 0 every float/double pointwise op of 64 KiB
// or more streams; its results must match the float64 reference and, bit for bit, the same op with
// streaming off, at every output alignment, through out= views, broadcasts, in place and on two
// threads, and nothing outside the output may change.
#include <ATen/ATen.h>
#include <ATen/native/cpu/Loops.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace streaming_test {

// Sets the threshold for one scope.
struct Threshold {
  int64_t saved;
  explicit Threshold(int64_t bytes) : saved(at::native::set_streaming_store_min_bytes(bytes)) {}
  ~Threshold() { at::native::set_streaming_store_min_bytes(saved); }
};

bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor x = a.contiguous(), y = b.contiguous();
  if (x.sizes() != y.sizes() || x.scalar_type() != y.scalar_type()) return false;
  return std::memcmp(x.data_ptr(), y.data_ptr(), x.numel() * x.element_size()) == 0;
}

// Values with the awkward cases mixed in: NaN, ±inf, -0, huge, tiny.
at::Tensor inputs(int64_t n, at::ScalarType dt, int seed) {
  at::manual_seed(seed);
  at::Tensor x = at::randn({n}, at::TensorOptions().dtype(at::kDouble)) * 4.0;
  double* p = x.data_ptr<double>();
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), INFINITY, -INFINITY, -0.0, 0.0, 1e30, -1e30, 1e-30, 88.0, -100.0};
  for (int64_t i = 0; i < n; i += 97) p[i] = specials[(i / 97) % 10];
  return x.to(dt);
}

// |got - ref| within rel * |ref| + floor (two subnormal steps); NaN where ref is NaN.
int64_t count_bad(const at::Tensor& got, const std::vector<double>& ref, double rel) {
  const double floor = got.scalar_type() == at::kFloat ? 2.0 * std::numeric_limits<float>::denorm_min()
                                                        : 2.0 * std::numeric_limits<double>::denorm_min();
  at::Tensor g = got.to(at::kDouble).contiguous();
  const double* q = g.data_ptr<double>();
  int64_t bad = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double r = ref[i], v = q[i];
    if (std::isnan(r)) { bad += !std::isnan(v); continue; }
    if (std::isinf(r)) { bad += v != r; continue; }
    bad += !(std::fabs(v - r) <= rel * std::fabs(r) + floor);
  }
  return bad;
}

}  // namespace streaming_test

using namespace streaming_test;

TEMPLATE_TEST_CASE("streaming stores: exp, sigmoid, add and mul match float64 and the normal stores", "[streaming]", float, double) {
  const at::ScalarType dt = std::is_same_v<TestType, float> ? at::kFloat : at::kDouble;
  const double rel = std::is_same_v<TestType, float> ? 4e-7 : 4e-15;
  const int64_t n = 20011;  // > 64 KiB touched, odd length: a tail after the last full vector
  at::Tensor a = inputs(n, dt, 1), b = inputs(n, dt, 2);
  at::Tensor ad = a.to(at::kDouble), bd = b.to(at::kDouble);
  std::vector<double> rexp(n), rsig(n), radd(n), rmul(n);
  for (int64_t i = 0; i < n; ++i) {
    const double x = ad.data_ptr<double>()[i], y = bd.data_ptr<double>()[i];
    rexp[i] = static_cast<TestType>(std::exp(x));
    rsig[i] = static_cast<TestType>(1.0 / (1.0 + std::exp(-x)));
    radd[i] = static_cast<TestType>(x + y);
    rmul[i] = static_cast<TestType>(x * y);
  }
  at::Tensor e0, s0, p0, m0;
  {
    Threshold never(-1);
    e0 = a.exp(), s0 = a.sigmoid(), p0 = a + b, m0 = a * b;
  }
  Threshold always(0);
  at::Tensor e1 = a.exp(), s1 = a.sigmoid(), p1 = a + b, m1 = a * b;
  CHECK(count_bad(e1, rexp, rel) == 0);
  CHECK(count_bad(s1, rsig, rel) == 0);
  CHECK(count_bad(p1, radd, 0) == 0);
  CHECK(count_bad(m1, rmul, 0) == 0);
  CHECK(same_bits(e1, e0));
  CHECK(same_bits(s1, s0));
  CHECK(same_bits(p1, p0));
  CHECK(same_bits(m1, m0));

  SECTION("out= into a view at every alignment leaves the rest of the buffer alone") {
    const double sentinel = 12345.0;
    for (int64_t off = 0; off < 17; ++off) {
      at::Tensor buf = at::full({n + 40}, sentinel, at::TensorOptions().dtype(dt));
      at::Tensor out = buf.narrow(0, off, n);
      at::exp_out(out, a);
      CHECK(same_bits(out, e0));
      at::Tensor before = buf.narrow(0, 0, off), after = buf.narrow(0, off + n, 40 - off);
      CHECK(at::all(before == sentinel).item<bool>());
      CHECK(at::all(after == sentinel).item<bool>());
    }
  }
  SECTION("unaligned inputs and a broadcast operand") {
    at::Tensor big = inputs(n + 3, dt, 3);
    at::Tensor x = big.narrow(0, 3, n);
    Threshold never_inner(-1);
    at::Tensor ref = x * b[5];
    at::native::set_streaming_store_min_bytes(0);
    CHECK(same_bits(x * b[5], ref));
    CHECK(same_bits(b[5] + x, [&] { Threshold t(-1); return b[5] + x; }()));
  }
  SECTION("in place: the output is an input, so no streaming, and the values are right") {
    at::Tensor c = a.clone();
    c.exp_();
    CHECK(same_bits(c, e0));
  }
  SECTION("two threads: each thread's run starts unaligned") {
    const int saved = at::get_num_threads();
    at::set_num_threads(2);
    at::Tensor big = inputs(1 << 18 | 5, dt, 4);
    at::Tensor r1 = big.exp();
    at::Tensor r0 = [&] { Threshold t(-1); return big.exp(); }();
    at::set_num_threads(saved);
    CHECK(same_bits(r1, r0));
  }
}

TEST_CASE("streaming stores: the threshold comes from the cache size or the environment", "[streaming]") {
  const int64_t t = at::native::streaming_store_min_bytes();
  CHECK((t == -1 || t >= 0));
  Threshold set(123456);
  CHECK(at::native::streaming_store_min_bytes() == 123456);
  CHECK(at::native::set_streaming_store_min_bytes(-7) == 123456);
  CHECK(at::native::streaming_store_min_bytes() == -1);
}

TEST_CASE("streaming stores: Half and BFloat16 outputs are unaffected by the threshold", "[streaming]") {
  for (auto dt : {at::kHalf, at::kBFloat16}) {
    at::Tensor a = inputs(40001, dt, 5);
    at::Tensor r0 = [&] { Threshold t(-1); return a.exp(); }();
    Threshold always(0);
    CHECK(same_bits(a.exp(), r0));
  }
}
