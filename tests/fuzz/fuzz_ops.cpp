// libFuzzer target: decodes bytes into op calls on hostile tensors (any rank, huge or zero sizes,
// strides 0/negative-looking/overlapping through as_strided, every dtype, odd scalars) and checks
// that every outcome is a result or a c10::Error whose message starts with "[op]". Anything else
// (a crash, a sanitizer report, another exception, an unprefixed message) is a finding.
//
// Build and run: tools/fuzz (clang, -fsanitize=fuzzer,address,undefined); corpus: tests/fuzz/corpus.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <tuple>
#include <string>
#include <vector>

namespace {

// Reads the fuzzer's bytes; past the end it yields zeros, so every input decodes to something.
struct Reader {
  const uint8_t* p;
  size_t n;
  uint8_t u8() { return n ? (--n, *p++) : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  int64_t i64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(u8()) << (8 * i);
    return static_cast<int64_t>(v);
  }
  // A size: mostly small, sometimes 0/1, sometimes hostile.
  int64_t size() {
    uint8_t k = u8();
    if (k < 200) return k % 6;
    if (k < 230) return u8() % 40;
    if (k < 245) return -static_cast<int64_t>(u8() % 3) - 1;
    return i64();
  }
  int64_t small_int() { return static_cast<int8_t>(u8()); }
  double scalar() {
    switch (u8() % 10) {
      case 0: return NAN;
      case 1: return INFINITY;
      case 2: return -INFINITY;
      case 3: return -0.0;
      case 4: return 1e-320;
      case 5: return 1e300;
      default: return static_cast<double>(small_int()) / 4.0;
    }
  }
};

const at::ScalarType kDtypes[] = {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kLong,
                                  at::kInt,   at::kShort,  at::kChar, at::kByte,     at::kBool};

// Thrown by the harness itself for an input it does not run (never by Ember).
struct SkipInput {};

// A size argument that makes an op produce that many elements: past 2^16 the input is skipped
// (slow, not wrong); negative and hostile values stay (they must raise).
int64_t bounded(int64_t v) {
  if (v > (int64_t(1) << 16)) throw SkipInput{};
  return v;
}

// A tensor over a small buffer: shape and strides decoded from the bytes, laid out with
// as_strided over a base big enough (or not: the bounds check must catch it).
at::Tensor make_tensor(Reader& r) {
  const at::ScalarType dt = kDtypes[r.u8() % 10];
  const int64_t rank = r.u8() % 6;
  std::vector<int64_t> sizes(static_cast<size_t>(rank));
  for (auto& s : sizes) s = r.size();
  const uint8_t layout = r.u8() % 4;
  at::Tensor base = at::arange(0, 64, 1, at::TensorOptions().dtype(at::kDouble)).sub(20).mul(0.75).to(dt);
  if (layout == 0) {
    int64_t n = 1;
    bool big = false;
    for (int64_t x : sizes) {
      if (x == 0) { n = 0; big = false; break; }
      if (x > 0) big = big || __builtin_mul_overflow(n, x, &n) || n > (int64_t(1) << 16);
    }
    if (big) throw SkipInput{};
    return at::empty(sizes, at::TensorOptions().dtype(dt)).fill_(r.scalar());
  }
  std::vector<int64_t> strides(static_cast<size_t>(rank));
  for (auto& s : strides) s = layout == 1 ? r.u8() % 5 : r.size();
  const int64_t off = r.u8() % 8;
  at::Tensor t = base.as_strided(sizes, strides, off);
  if (layout == 3 && rank >= 2) t = t.transpose(0, rank - 1);
  // Stride-0 views can claim billions of elements; an op that materialises them is slow, not
  // wrong. Such inputs are skipped (hostile sizes still reach every op through empty/as_strided).
  if (t.numel() > (int64_t(1) << 16)) throw SkipInput{};
  return t;
}

// Splitting a dim of billions (an empty tensor's other dims make that free) into pieces of one
// element yields billions of views: correct, and it would exhaust libtorch's memory the same way.
// Such inputs are skipped; out-of-range dims and bad sizes still reach the op and must raise.
void check_pieces(const at::Tensor& a, int64_t dim, int64_t piece) {
  const int64_t rank = a.dim();
  if (rank == 0 || dim < -rank || dim >= rank || piece <= 0) return;
  if (a.size(dim < 0 ? dim + rank : dim) / piece > (int64_t(1) << 16)) throw SkipInput{};
}

std::vector<int64_t> dims(Reader& r) {
  std::vector<int64_t> d(r.u8() % 4);
  for (auto& x : d) x = r.small_int() % 7;
  return d;
}

// Where results go: nowhere when fuzzing; printed (dtype, shape, values) in the differential
// build (FUZZ_DIFF), which is compiled once against Ember and once against libtorch and run on the
// same inputs by tools/difffuzz.
#ifdef FUZZ_DIFF
std::string g_record;
const char* const kDtypeTags[] = {"f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"};
std::string tag_of(at::ScalarType t) {
  for (size_t i = 0; i < 10; ++i) if (kDtypes[i] == t) return kDtypeTags[i];
  return "other";
}
void sink(const at::Tensor& t) {
  if (!t.defined()) { g_record += " undef"; return; }
  g_record += " " + tag_of(t.scalar_type()) + "[";
  for (int64_t d = 0; d < t.dim(); ++d) g_record += (d ? "," : "") + std::to_string(t.size(d));
  g_record += "]";
  if (t.numel() > 0 && t.numel() <= 4096) {
    at::Tensor c = t.to(at::kDouble).contiguous();
    char buf[32];
    for (int64_t i = 0; i < c.numel(); ++i) {
      std::snprintf(buf, sizeof buf, " %.9g", c.data_ptr<double>()[i]);
      g_record += buf;
    }
  }
  g_record += ";";
}
void sink(const std::vector<at::Tensor>& v) { for (const auto& t : v) sink(t); }
// Dtype and shape only: uninitialised (empty) or random (randperm) values differ by design.
void sink_meta(const at::Tensor& t) { sink(t.defined() ? at::zeros_like(t) : t); }
template <typename... T>
void sink(const std::tuple<T...>& t) { std::apply([](const auto&... x) { (sink(x), ...); }, t); }
void sink(const std::vector<int64_t>& v) {
  g_record += " sizes";
  for (auto x : v) g_record += " " + std::to_string(x);
  g_record += ";";
}
#else
template <typename T>
inline void sink(const T&) {}
template <typename T>
inline void sink_meta(const T&) {}
#endif

using OpFn = std::function<void(Reader&)>;

std::vector<OpFn> ops() {
  std::vector<OpFn> v;
  auto T = [](Reader& r) { return make_tensor(r); };
  // Pointwise, unary and binary, functional / in-place / out=.
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.exp()); sink(a.neg()); sink(a.abs()); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.sqrt()); sink(a.floor()); sink(a.isnan()); sink(a.sign()); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r); sink(at::add(a, b, r.scalar())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r); sink(at::div(a, b)); sink(at::remainder(a, b)); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r); a.mul_(b); sink(a); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r), o = T(r); at::add_out(o, a, b); sink(o); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); a.add_(r.scalar()); a.clamp_(r.scalar(), r.scalar()); sink(a); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(at::pow(a, r.small_int())); sink(at::pow(a, r.scalar())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(at::nan_to_num(a)); sink(at::clamp(a, r.scalar())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r); sink(at::floor_divide(a, b)); sink(at::bitwise_and(a, b)); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r), c = T(r); sink(at::where(a.to(at::kBool), b, c)); });
  // Copies, conversion, views.
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r); a.copy_(b); sink(a); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.to(kDtypes[r.u8() % 10])); sink(a.clone()); sink(a.contiguous()); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); std::vector<int64_t> s(r.u8() % 5); for (auto& x : s) x = r.size(); sink(a.view(s)); sink(a.reshape(s)); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); std::vector<int64_t> s(r.u8() % 6); for (auto& x : s) x = r.size(); sink(a.expand(s).contiguous()); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.permute(dims(r))); sink(a.transpose(r.small_int(), r.small_int())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.slice(r.small_int(), r.i64(), r.i64(), r.size())); sink(a.select(r.small_int(), r.i64())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.narrow(r.small_int(), r.small_int(), r.small_int())); sink(a.unfold(r.small_int(), r.size(), r.size())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.diagonal(r.small_int(), r.small_int(), r.small_int())); sink(a.squeeze(r.small_int())); sink(a.unsqueeze(r.small_int())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); std::vector<int64_t> s(r.u8() % 5), st(r.u8() % 5); for (auto& x : s) x = r.size(); for (auto& x : st) x = r.size(); sink(a.as_strided(s, st, r.size())); });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r);
    const int64_t piece = r.size(), d1 = r.small_int(), chunks = r.size(), d2 = r.small_int(), d3 = r.small_int();
    check_pieces(a, d1, piece);
    sink(a.split(piece, d1));
    if (chunks > (int64_t(1) << 16)) throw SkipInput{};
    sink(a.chunk(chunks, d2));
    check_pieces(a, d3, 1);
    sink(a.unbind(d3));
  });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); std::vector<int64_t> s(r.u8() % 5); for (auto& x : s) x = r.size(); a.resize_(s); sink(a.sizes().vec()); });
  // Factories.
  v.push_back([](Reader& r) { std::vector<int64_t> s(r.u8() % 6); for (auto& x : s) x = r.size(); sink_meta(at::empty(s)); sink(at::zeros(s, at::TensorOptions().dtype(kDtypes[r.u8() % 10]))); });
  v.push_back([](Reader& r) { std::vector<int64_t> s(r.u8() % 4), st(r.u8() % 4); for (auto& x : s) x = r.size(); for (auto& x : st) x = r.size(); sink_meta(at::empty_strided(s, st)); });
  v.push_back([](Reader& r) {
    const double a = r.scalar(), b = r.scalar(), st = r.scalar();
    if (std::isfinite((b - a) / st) && std::abs((b - a) / st) > (1 << 16)) throw SkipInput{};
    sink(at::arange(a, b, st));
    sink(at::linspace(r.scalar(), r.scalar(), bounded(r.size())));
    sink(at::eye(bounded(r.size()), bounded(r.size())));
  });
  // Reductions.
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.sum()); sink(a.sum(dims(r), r.u8() & 1)); sink(a.mean()); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.amax(dims(r))); sink(a.max()); sink(a.argmax(r.small_int())); sink(a.prod()); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.var(dims(r))); sink(a.logsumexp(dims(r))); sink(a.norm()); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.cumsum(r.small_int())); sink(at::softmax(a, r.small_int())); sink(a.sort(r.small_int())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.topk(r.size(), r.small_int())); sink(a.all()); sink(a.any(r.small_int())); });
  // Linear algebra.
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r); sink(at::matmul(a, b)); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r); sink(at::mm(a, b)); sink(at::bmm(a, b)); sink(at::dot(a, b)); });
  v.push_back([T](Reader& r) { at::Tensor s = T(r), a = T(r), b = T(r); sink(at::addmm(s, a, b, r.scalar(), r.scalar())); });
  // Indexing and joining.
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r); sink(at::cat({a, b}, r.small_int())); sink(at::stack({a, b}, r.small_int())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), i = T(r); sink(a.index_select(r.small_int(), i.to(at::kLong))); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), i = T(r); sink(a.gather(r.small_int(), i.to(at::kLong))); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), i = T(r), s = T(r); a.scatter_(r.small_int(), i.to(at::kLong), s); sink(a); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), i = T(r), v2 = T(r); c10::List<std::optional<at::Tensor>> idx; idx.push_back(i.to(r.u8() & 1 ? at::kBool : at::kLong)); at::index_put_(a, idx, v2, r.u8() & 1); sink(a); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), i = T(r); sink(a.index({i.to(r.u8() & 1 ? at::kBool : at::kLong)})); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), m = T(r); sink(a.masked_fill(m.to(at::kBool), r.scalar())); sink(a.masked_select(m.to(at::kBool))); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(a.nonzero()); sink(a.flip(dims(r))); sink(a.roll(r.small_int(), r.small_int())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); std::vector<int64_t> p(r.u8() % 6); for (auto& x : p) x = r.small_int(); sink(at::constant_pad_nd(a, p, r.scalar())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); std::vector<int64_t> p(r.u8() % 5); for (auto& x : p) x = r.size(); sink(a.repeat(p)); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(at::one_hot(a.to(at::kLong), r.small_int())); sink(a.tril(r.small_int())); });
  v.push_back([](Reader& r) { sink_meta(at::randperm(bounded(r.size()))); sink_meta(at::randint(r.small_int(), r.small_int(), {bounded(r.size())})); });
  return v;
}

// The second table (-DFUZZ_NEW_OPS, tools/difffuzz --new): the torch::special functions, clamp with
// tensor bounds, the statistics/shape composites of FrontendMore*.cpp and the backward formulas
// written for mean, clone, t, _to_copy, stack and the losses; kept apart so that the libFuzzer
// corpus keeps decoding to the ops it was merged for.
const char* const kInterp[] = {"linear", "lower", "higher", "midpoint", "nearest", "bogus"};
const char* const kReduce[] = {"sum", "prod", "mean", "amax", "amin", "max"};

// A leaf that requires grad: floating inputs only (the gradient of the rest is not the question).
at::Tensor leaf(Reader& r) {
  at::Tensor a = make_tensor(r);
  if (!at::isFloatingType(a.scalar_type())) throw SkipInput{};
  return a.clone().detach().requires_grad_(true);
}
void sink_grad(const at::Tensor& out, const at::Tensor& x) {
  sink(out);
  out.sum().backward();
  sink(x.grad());
}

std::vector<OpFn> new_ops() {
  std::vector<OpFn> v;
  auto T = [](Reader& r) { return make_tensor(r); };
  auto opt = [T](Reader& r) { return (r.u8() & 1) ? std::optional<at::Tensor>(T(r)) : std::nullopt; };
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(at::special_i1(a)); sink(at::special_i0e(a)); sink(at::special_i1e(a)); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(at::special_erfcx(a)); sink(at::special_ndtr(a)); sink(at::special_log_ndtr(a)); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(at::special_ndtri(a)); sink(at::special_entr(a)); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(at::polygamma(r.u8() % 5 - (r.u8() % 8 == 0), a)); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), b = T(r); sink(at::special_xlog1py(a, b)); sink(at::special_zeta(a, b)); });
  v.push_back([T, opt](Reader& r) { at::Tensor a = T(r); auto lo = opt(r), hi = opt(r); sink(at::clamp(a, lo, hi)); sink(at::clip(a, hi, lo)); });
  v.push_back([T, opt](Reader& r) { at::Tensor a = T(r); auto lo = opt(r), hi = opt(r); a.clamp_(lo, hi); sink(a); });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r);
    const double q = (r.u8() % 11) / 10.0 - (r.u8() % 16 == 0) * 2;
    const auto dim = (r.u8() & 1) ? std::optional<int64_t>(r.small_int() % 5) : std::nullopt;
    const bool keep = r.u8() & 1;
    const char* in = kInterp[r.u8() % 6];
    sink(at::quantile(a, q, dim, keep, in));
    sink(at::nanquantile(a, q, dim, keep, in));
  });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r), q = T(r);
    const auto dim = (r.u8() & 1) ? std::optional<int64_t>(r.small_int() % 5) : std::nullopt;
    const bool keep = r.u8() & 1;
    const char* in = kInterp[r.u8() % 6];
    if (r.u8() & 1) q = q.to(a.scalar_type()).remainder(1.5);
    if (a.numel() * std::max<int64_t>(q.numel(), 1) > (1 << 16)) throw SkipInput{};
    sink(at::quantile(a, q, dim, keep, in));
    sink(at::nanquantile(a, q, dim, keep, in));
  });
  v.push_back([T, opt](Reader& r) {
    at::Tensor a = T(r);
    const int64_t c = r.small_int() % 4;
    auto fw = opt(r), aw = opt(r);
    if (fw && (r.u8() & 1)) fw = fw->to(at::kLong).abs();
    if (a.dim() == 2 && a.size(1) * a.size(1) > (1 << 16)) throw SkipInput{};
    sink(at::cov(a, c, fw, aw));
    sink(at::corrcoef(a));
  });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(at::histc(a, bounded(r.size()), r.scalar(), r.scalar())); });
  v.push_back([T, opt](Reader& r) {
    at::Tensor a = T(r);
    if (r.u8() & 1) a = a.to(at::kLong).clamp_max(64);
    auto w = opt(r);
    sink(at::bincount(a, w, bounded(r.size())));
  });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r), b = T(r);
    const bool u = r.u8() & 1, inv = r.u8() & 1;
    sink(at::isin(a, b, u, inv));
    sink(at::isin(a, r.scalar(), u, inv));
    sink(at::isin(r.scalar(), b, u, inv));
  });
  v.push_back([T](Reader& r) {
    std::vector<at::Tensor> ts(r.u8() % 4);
    for (auto& t : ts) t = T(r);
    int64_t rows = 0, cols = 0, prod = 1;
    for (auto& t : ts) {
      rows += t.dim() == 2 ? t.size(0) : 1; cols += t.dim() >= 1 ? t.size(-1) : 1;
      prod *= std::max<int64_t>(t.numel(), 1); if (prod > (1 << 16)) throw SkipInput{};
    }
    if (rows * cols > (1 << 16)) throw SkipInput{};
    sink(at::block_diag(ts));
    sink(at::cartesian_prod(ts));
  });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r);
    const int64_t k = r.u8() % 5 - 1;
    const bool rep = r.u8() & 1;
    if (std::pow(static_cast<double>(a.numel()) + 1, std::max<int64_t>(k, 1)) > (1 << 16)) throw SkipInput{};
    sink(at::combinations(a, k, rep));
  });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r);
    const int64_t off = r.small_int() % 8, d1 = r.small_int() % 6, d2 = r.small_int() % 6;
    const int64_t n = a.dim() ? a.size(-1) : 1;
    if (a.numel() * (n + std::abs(off)) > (1 << 16)) throw SkipInput{};
    sink(at::diag_embed(a, off, d1, d2));
  });
  v.push_back([](Reader& r) {
    const int64_t row = r.size(), col = r.size(), off = r.small_int();
    if (row > 0 && col > 0) bounded(row * col);
    if (row > (1 << 16) || col > (1 << 16)) throw SkipInput{};
    sink(at::tril_indices(row, col, off));
    sink(at::triu_indices(row, col, off));
  });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r);
    const auto n = (r.u8() & 1) ? std::optional<int64_t>(r.size()) : std::nullopt;
    const int64_t cols = n ? *n : a.numel();
    if (cols > 0 && a.numel() * cols > (1 << 16)) throw SkipInput{};
    sink(at::vander(a, n, r.u8() & 1));
  });
  v.push_back([T](Reader& r) {
    at::Tensor y = T(r), x = T(r);
    const int64_t d = r.small_int() % 5;
    sink(at::trapezoid(y, x, d));
    sink(at::cumulative_trapezoid(y, x, d));
  });
  v.push_back([T](Reader& r) {
    at::Tensor y = T(r);
    const double dx = r.scalar();
    const int64_t d = r.small_int() % 5;
    sink(at::trapezoid(y, dx, d));
    sink(at::cumulative_trapezoid(y, dx, d));
    sink(at::trapz(y, dx, d));
  });
  v.push_back([T](Reader& r) { at::Tensor a = T(r); sink(at::renorm(a, r.scalar(), r.small_int() % 5, r.scalar())); });
  v.push_back([T](Reader& r) {
    std::vector<at::Tensor> ts(r.u8() % 4);
    for (auto& t : ts) t = T(r);
    sink(at::chain_matmul(ts));
  });
  v.push_back([](Reader& r) { sink(at::scalar_tensor(r.scalar(), at::TensorOptions().dtype(kDtypes[r.u8() % 10]))); });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r), b = T(r);
    const int64_t d = r.small_int() % 5;
    const double p = r.scalar(), eps = (r.u8() & 1) ? 1e-8 : r.scalar();
    sink(at::cosine_similarity(a, b, d, eps));
    sink(at::pairwise_distance(a, b, p, 1e-6, r.u8() & 1));
    sink(at::dist(a, b, p));
  });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r), i = T(r), s = T(r);
    const int64_t d = r.small_int() % 5;
    const char* red = kReduce[r.u8() % 6];
    sink(at::scatter_reduce(a, d, i.to(at::kLong), s, red, r.u8() & 1));
  });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), m = T(r), s = T(r); sink(at::masked_scatter(a, m.to(at::kBool), s)); });
  v.push_back([T](Reader& r) {
    at::Tensor a = T(r), s = T(r);
    const int64_t d = r.small_int() % 5;
    const auto st = (r.u8() & 1) ? std::optional<int64_t>(r.small_int()) : std::nullopt;
    const auto en = (r.u8() & 1) ? std::optional<int64_t>(r.small_int()) : std::nullopt;
    sink(at::slice_scatter(a, s, d, st, en, r.size()));
  });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), s = T(r); sink(at::select_scatter(a, s, r.small_int() % 5, r.small_int())); });
  v.push_back([T](Reader& r) { at::Tensor a = T(r), s = T(r); sink(at::diagonal_scatter(a, s, r.small_int() % 6, r.small_int() % 4, r.small_int() % 4)); });
  // Backward formulas.
  v.push_back([](Reader& r) { at::Tensor x = leaf(r); sink_grad(x.mean(dims(r), r.u8() & 1), x); });
  v.push_back([](Reader& r) { at::Tensor x = leaf(r); sink_grad(x.clone().mul(x.t()), x); });
  v.push_back([](Reader& r) { at::Tensor x = leaf(r); sink_grad(x.to(kDtypes[r.u8() % 4]), x); });
  v.push_back([](Reader& r) { at::Tensor x = leaf(r); sink_grad(at::stack({x, x.mul(2)}, r.small_int() % 5), x); });
  v.push_back([T](Reader& r) { at::Tensor x = leaf(r), y = T(r); sink_grad(at::mse_loss(x, y, r.u8() % 3), x); });
  v.push_back([T, opt](Reader& r) {
    at::Tensor x = leaf(r), t = T(r);
    auto w = opt(r);
    sink_grad(at::nll_loss_nd(x, t.to(at::kLong), w, r.u8() % 3, r.small_int() % 3 - 1), x);
  });
  v.push_back([T, opt](Reader& r) {
    at::Tensor x = leaf(r), t = T(r);
    auto w = opt(r);
    sink_grad(at::binary_cross_entropy(x.sigmoid(), t, w, r.u8() % 3), x);
  });
  v.push_back([T, opt](Reader& r) {
    at::Tensor x = leaf(r), t = T(r);
    auto w = opt(r), pw = opt(r);
    sink_grad(at::binary_cross_entropy_with_logits(x, t, w, pw, r.u8() % 3), x);
  });
  v.push_back([T, opt](Reader& r) {
    at::Tensor x = leaf(r);
    std::vector<int64_t> shape(r.u8() % 3);
    for (size_t k = 0; k < shape.size(); ++k) shape[k] = (r.u8() & 1) && x.dim() >= static_cast<int64_t>(shape.size()) ? x.size(x.dim() - shape.size() + k) : r.size();
    auto w = opt(r), b = opt(r);
    auto out = at::native_layer_norm(x, shape, w, b, 1e-5);
    sink(std::get<1>(out)); sink(std::get<2>(out));
    sink_grad(std::get<0>(out), x);
  });
  return v;
}

const std::vector<OpFn>& table() {
#ifdef FUZZ_NEW_OPS
  static const std::vector<OpFn> t = new_ops();
#else
  static const std::vector<OpFn> t = ops();
#endif
  return t;
}

}  // namespace

#ifdef FUZZ_DIFF
// Differential mode: for each input file, one line per op call: "<file> <call#> <op#> ok <results>"
// or "<file> <call#> <op#> raises". Compared across builds by tools/difffuzz.
int main(int argc, char** argv) {
  at::set_num_threads(1);
  for (int f = 1; f < argc; ++f) {
    FILE* in = std::fopen(argv[f], "rb");
    if (!in) continue;
    std::vector<uint8_t> bytes;
    for (int c; (c = std::fgetc(in)) != EOF;) bytes.push_back(static_cast<uint8_t>(c));
    std::fclose(in);
    Reader r{bytes.data(), bytes.size()};
    const size_t calls = 1 + r.u8() % 3;
    for (size_t k = 0; k < calls; ++k) {
      const size_t op = r.u8() % table().size();
      g_record.clear();
      bool ok = true;
      std::string why;
      try {
        table()[op](r);
      } catch (const SkipInput&) {
        std::printf("%s %zu %zu skipped\n", argv[f], k, op);
        break;
      } catch (const std::exception& e) {
        ok = false;
        why = e.what();
        why = " " + why.substr(0, why.find('\n'));
      }
      std::printf("%s %zu %zu %s%s\n", argv[f], k, op, ok ? "ok" : "raises", ok ? g_record.c_str() : why.c_str());
      if (!ok) break;  // the reader's position after a raise depends on where the op stopped
    }
  }
  return 0;
}
#else
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  at::set_num_threads(1);  // deterministic, and libgomp is not instrumented
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  const size_t calls = 1 + r.u8() % 3;
  for (size_t k = 0; k < calls; ++k) {
    const auto& op = table()[r.u8() % table().size()];
    try {
      op(r);
    } catch (const SkipInput&) {
      return 0;
    } catch (const c10::Error& e) {
      const char* m = e.what();
      if (m[0] != '[' || std::strchr(m, ']') == nullptr) {
        std::fprintf(stderr, "fuzz_ops: c10::Error without an [op] prefix: %s\n", m);
        std::abort();
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz_ops: exception other than c10::Error: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
#endif  // FUZZ_DIFF
