// Hand-written tests of the tensor core: storage lifetime, views, version counters, promotion,
// broadcasting, printing, errors, runtime kernel registration.
#include <ATen/ATen.h>
#include "op_test_util.h"
#include <ATen/TensorIterator.h>
#include <ATen/core/Dispatcher.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace {
using ember_test::iota;
double at_(const at::Tensor& t, std::vector<int64_t> idx) {
  at::Tensor v = t;
  for (auto i : idx) v = v.select(0, i);
  return v.item<double>();
}

// Counts allocations and frees, delegating to malloc.
struct CountingAllocator final : c10::Allocator {
  std::atomic<int> live{0}, total{0};
  static void del(void* ctx) {
    auto* self = *static_cast<CountingAllocator**>(ctx);
    self->live--;
    std::free(ctx);
  }
  c10::DataPtr allocate(size_t n) override {
    // The context block stores `this` in front of the data so the deleter can find us.
    void* raw = std::malloc(n + 64);
    *static_cast<CountingAllocator**>(raw) = this;
    live++;
    total++;
    return c10::DataPtr(static_cast<char*>(raw) + 64, raw, &del, c10::Device(c10::kCPU));
  }
  void copy_data(void* d, const void* s, size_t n) const override { std::memcpy(d, s, n); }
};
}  // namespace

TEST_CASE("storage is freed the moment the last reference goes", "[tensor]") {
  CountingAllocator counting;
  c10::Allocator* prev = c10::GetCPUAllocator();
  c10::SetAllocator(c10::kCPU, &counting);
  {
    at::Tensor a = at::empty({16}, at::kFloat);
    CHECK(counting.live == 1);
    at::Tensor v = a.view({4, 4}).transpose(0, 1);  // a view keeps the storage alive
    a.reset();
    CHECK(counting.live == 1);
    v.reset();
    CHECK(counting.live == 0);
    at::Tensor b = at::empty({3}, at::kFloat);
    at::Tensor c = b.add(b);  // one output allocation per op
    CHECK(counting.total == 3);
  }
  CHECK(counting.live == 0);
  c10::SetAllocator(c10::kCPU, prev);
}

TEST_CASE("CPU allocations are 64-byte aligned", "[tensor]") {
  for (int64_t n : {1, 3, 17, 1000}) {
    at::Tensor t = at::empty({n}, at::kFloat);
    CHECK(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64 == 0);
  }
  // Every size on both sides of the small-block path (Note [Small CPU blocks]), written in full:
  // the sanitizer build catches a block shorter than asked for.
  std::vector<c10::DataPtr> live;
  for (size_t n = 1; n <= 1100; ++n) {
    c10::DataPtr p = c10::GetCPUAllocator()->allocate(n);
    REQUIRE(p.get() != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p.get()) % 64 == 0);
    std::memset(p.get(), static_cast<int>(n & 0xff), n);
    live.push_back(std::move(p));
  }
  for (size_t i = 0; i < live.size(); ++i) {  // no block overlapped another
    const auto* b = static_cast<const unsigned char*>(live[i].get());
    CHECK((b[0] == ((i + 1) & 0xff) && b[i] == ((i + 1) & 0xff)));
  }
  CHECK(!c10::GetCPUAllocator()->allocate(0));
  // Large blocks (Note [Large CPU block cache]): aligned, usable to the last byte, also when taken
  // from the cache for a smaller request, and never handed out twice.
  std::vector<c10::DataPtr> big;
  for (size_t n : {(size_t{256} << 10) - 1, size_t{256} << 10, (size_t{256} << 10) + 1, (size_t{300} << 10) + 5,
                   (size_t{4} << 20) - 1, size_t{4} << 20, (size_t{5} << 20) + 3, size_t{5} << 20, (size_t{4} << 20) + 1}) {
    for (int round = 0; round < 2; ++round) {  // the second round may reuse the first's block
      c10::DataPtr p = c10::GetCPUAllocator()->allocate(n);
      REQUIRE(p.get() != nullptr);
      CHECK(reinterpret_cast<uintptr_t>(p.get()) % 64 == 0);
      std::memset(p.get(), 0x5a, n);
      CHECK(static_cast<const unsigned char*>(p.get())[n - 1] == 0x5a);
      if (round == 1) big.push_back(std::move(p));
    }
  }
  for (size_t i = 0; i < big.size(); ++i)
    for (size_t j = i + 1; j < big.size(); ++j) CHECK(big[i].get() != big[j].get());
  // Of several cached blocks that fit, the one freed last comes back (its lines are the warm ones).
  // Sanitizer builds have no cache (a freed block is quarantined): there the probe sees a new block.
  // With EMBER_CPU_CACHE_MB=0 large blocks come from malloc, which may hand the probe back too.
  const char* cache_mb = std::getenv("EMBER_CPU_CACHE_MB");
  const bool cache_off = cache_mb && std::string(cache_mb) == "0";
  const size_t n = (size_t{3} << 20) + 4321;
  void* probe = c10::GetCPUAllocator()->allocate(n).get();  // freed at the end of the statement
  if (!cache_off && c10::GetCPUAllocator()->allocate(n).get() == probe) {
    std::vector<c10::DataPtr> same;
    for (int i = 0; i < 3; ++i) same.push_back(c10::GetCPUAllocator()->allocate(n));
    std::vector<void*> order;
    for (int i : {1, 0, 2}) {  // freed in the order 1, 0, 2
      order.push_back(same[i].get());
      same[i].clear();
    }
    c10::DataPtr again = c10::GetCPUAllocator()->allocate(n);
    CHECK(again.get() == order[2]);
    c10::DataPtr next = c10::GetCPUAllocator()->allocate(n);
    CHECK(next.get() == order[1]);
    again.clear();
    next.clear();
    // A request no cached block fits does not push out the blocks just freed (a training step's
    // frees and allocations do not pair up size for size; the next step wants them back).
    const size_t m = (size_t{1} << 20) + 77;
    void* small_block = c10::GetCPUAllocator()->allocate(m).get();
    c10::DataPtr other = c10::GetCPUAllocator()->allocate(size_t{6} << 20);  // misses
    CHECK(c10::GetCPUAllocator()->allocate(m).get() == small_block);
    // Of two cached blocks that fit, the smaller comes back even when the larger was freed last:
    // the larger one stays for a request only it fits.
    c10::DataPtr lo = c10::GetCPUAllocator()->allocate((size_t{8} << 20) + (size_t{100} << 10));
    c10::DataPtr hi = c10::GetCPUAllocator()->allocate((size_t{8} << 20) + (size_t{700} << 10));
    void* lo_p = lo.get();
    void* hi_p = hi.get();
    lo.clear();
    hi.clear();
    c10::DataPtr got = c10::GetCPUAllocator()->allocate(size_t{8} << 20);
    CHECK(got.get() == lo_p);
    c10::DataPtr got_hi = c10::GetCPUAllocator()->allocate((size_t{8} << 20) + (size_t{600} << 10));
    CHECK(got_hi.get() == hi_p);
  }
}

// Note [Huge pages for large CPU blocks]: with THP_MEM_ALLOC_ENABLE=1, freshly mapped blocks of
// 2 MiB or more start on a 2 MiB boundary, are usable to the last byte, and go back whole (a block
// past the cache's bound is unmapped when freed: nothing of its range may stay mapped).
TEST_CASE("THP_MEM_ALLOC_ENABLE places large CPU blocks on 2 MiB boundaries", "[tensor]") {
  const char* cache_mb = std::getenv("EMBER_CPU_CACHE_MB");
  const size_t huge = size_t{2} << 20;
  // Sanitizer builds and EMBER_CPU_CACHE_MB=0 take large blocks from malloc: probe whether the
  // cache maps them (then a block comes back for a request of the same capacity).
  void* probe = c10::GetCPUAllocator()->allocate((size_t{11} << 20) + 9).get();
  const bool mapped = !(cache_mb && std::string(cache_mb) == "0") &&
                      c10::GetCPUAllocator()->allocate((size_t{11} << 20) + 1).get() == probe;
  if (!mapped) {
    WARN("skipped: large CPU blocks come from malloc in this build or environment");
    return;
  }
  const size_t cache_bound = cache_mb && *cache_mb ? std::stoull(cache_mb) << 20 : size_t{256} << 20;
  ::setenv("THP_MEM_ALLOC_ENABLE", "1", 1);
  for (size_t n : {huge, huge + 1, (size_t{37} << 20) + 123, (size_t{300} << 20) + 5}) {
    // Blocks cached by earlier tests may serve the first requests: holding more than the cache can
    // hold of this size makes the last one a fresh mapping.
    std::vector<c10::DataPtr> held;
    for (size_t k = 0; k <= cache_bound / n; ++k) held.push_back(c10::GetCPUAllocator()->allocate(n));
    c10::DataPtr p = std::move(held.back());
    held.clear();
    REQUIRE(p.get() != nullptr);
    const auto addr = reinterpret_cast<uintptr_t>(p.get());
    CHECK(addr % huge == 0);
    auto* b = static_cast<unsigned char*>(p.get());
    const bool whole = n < (size_t{64} << 20);  // the 300 MiB block: its ends only
    if (whole) std::memset(b, 0x3c, n);
    b[0] = 1;
    b[n - 1] = 2;
    CHECK((b[0] == 1 && b[n - 1] == 2 && b[n / 2] == (whole ? 0x3c : 0)));
    p.clear();
    if (n > cache_bound) {  // unmapped at once: no mapping of /proc/self/maps meets its range
      std::ifstream maps("/proc/self/maps");
      std::string line;
      bool overlap = false;
      while (std::getline(maps, line)) {
        const uintptr_t lo = std::stoull(line.substr(0, line.find('-')), nullptr, 16);
        const uintptr_t hi = std::stoull(line.substr(line.find('-') + 1), nullptr, 16);
        overlap = overlap || (lo < addr + n && hi > addr - 64);
      }
      CHECK(!overlap);
    }
  }
  ::unsetenv("THP_MEM_ALLOC_ENABLE");
}

TEST_CASE("views share storage and strides", "[tensor][view]") {
  at::Tensor a = iota({2, 3});
  at::Tensor t = a.t();
  CHECK(t.sizes() == at::IntArrayRef({3, 2}));
  CHECK(t.strides() == at::IntArrayRef({1, 3}));
  CHECK(!t.is_contiguous());
  CHECK(t.is_alias_of(a));
  CHECK(at_(t, {2, 1}) == 5);
  at::Tensor c = t.contiguous();
  CHECK(c.is_contiguous());
  CHECK(!c.is_alias_of(a));
  CHECK(at_(c, {2, 1}) == 5);
  CHECK(a.contiguous().is_same(a));  // already contiguous: no copy

  at::Tensor s = a.select(1, 2);  // [2, 5]
  CHECK(s.storage_offset() == 2);
  CHECK(at_(s, {1}) == 5);
  s.fill_(-1);
  CHECK(at_(a, {0, 2}) == -1);
  CHECK(at_(a, {1, 2}) == -1);

  at::Tensor e = iota({3, 1}).expand({3, 4});
  CHECK(e.stride(1) == 0);
  CHECK(at_(e, {2, 3}) == 2);

  at::Tensor u = iota({10}).unfold(0, 4, 3);  // windows [0..3], [3..6], [6..9]
  CHECK(u.sizes() == at::IntArrayRef({3, 4}));
  CHECK(at_(u, {2, 0}) == 6);

  at::Tensor d = iota({3, 4}).diagonal(1);
  CHECK(d.sizes() == at::IntArrayRef({3}));
  CHECK(at_(d, {2}) == 11);

  auto parts = iota({7}).split(3);
  REQUIRE(parts.size() == 3);
  CHECK(parts[2].numel() == 1);
  CHECK(at_(parts[2], {0}) == 6);
  auto ch = iota({6, 2}).chunk(4);
  CHECK(ch.size() == 3);
  auto ub = iota({2, 3}).unbind(1);
  CHECK(ub.size() == 3);
  CHECK(at_(ub[1], {1}) == 4);
}

TEST_CASE("view vs reshape on non-contiguous input", "[tensor][view]") {
  at::Tensor t = iota({3, 4}).t();
  CHECK_THROWS_WITH(t.view({12}), Catch::StartsWith("[view]"));
  at::Tensor r = t.reshape({12});
  CHECK(!r.is_alias_of(t));
  CHECK(at_(r, {1}) == 4);
  at::Tensor ok = iota({2, 3, 4}).transpose(0, 1).reshape({3, 2, 4});  // still a view
  CHECK(ok.sizes() == at::IntArrayRef({3, 2, 4}));
  CHECK(iota({2, 6}).view({-1, 3}).sizes() == at::IntArrayRef({4, 3}));
  CHECK_THROWS_WITH(iota({2, 6}).view({5, -1}), Catch::Contains("expected a shape that holds 12 elements"));
  CHECK_THROWS_WITH(iota({2, 6}).view({-1, -1}), Catch::Contains("expected at most one -1 (inferred) entry"));
}

TEST_CASE("version counter is shared by views and bumped by in-place ops", "[tensor][view]") {
  at::Tensor a = iota({4});
  at::Tensor v = a.slice(0, 1, 3);
  uint32_t v0 = a._version();
  v.add_(1);
  CHECK(a._version() == v0 + 1);
  CHECK(v._version() == a._version());
  a.mul_(2);
  CHECK(v._version() == v0 + 2);
  at::Tensor other = iota({4});
  uint32_t o0 = other._version();
  at::Tensor sum = a + other;  // out-of-place ops leave versions alone
  CHECK(other._version() == o0);
  CHECK(a._version() == v0 + 2);
  at::Tensor out = at::empty({0});
  at::add_out(out, a, other);  // out= writes bump the out tensor
  CHECK(out._version() == 1);
}

TEST_CASE("type promotion follows PyTorch's rules", "[tensor][promotion]") {
  auto T = [](at::ScalarType dt, std::vector<int64_t> shape = {2}) { return at::empty(shape, dt).fill_(1); };
  CHECK((T(at::kInt) + T(at::kFloat)).scalar_type() == at::kFloat);
  CHECK((T(at::kByte) + T(at::kChar)).scalar_type() == at::kShort);
  CHECK((T(at::kHalf) + T(at::kBFloat16)).scalar_type() == at::kFloat);
  CHECK((T(at::kBool) + T(at::kShort)).scalar_type() == at::kShort);
  CHECK((T(at::kInt) + T(at::kLong)).scalar_type() == at::kLong);
  // Scalars only contribute their category.
  CHECK((T(at::kInt) + 1).scalar_type() == at::kInt);
  CHECK((T(at::kInt) + 1.5).scalar_type() == at::kFloat);
  CHECK((T(at::kHalf) + 1.5).scalar_type() == at::kHalf);
  CHECK((T(at::kBool) + 1).scalar_type() == at::kLong);
  CHECK((T(at::kFloat) * 2.0).scalar_type() == at::kFloat);
  // Zero-dim tensors rank below dimensioned ones within a category.
  CHECK((T(at::kFloat) + T(at::kDouble, {})).scalar_type() == at::kFloat);
  CHECK((T(at::kInt) + T(at::kLong, {})).scalar_type() == at::kInt);
  CHECK((T(at::kInt) + T(at::kDouble, {})).scalar_type() == at::kDouble);
  CHECK((T(at::kFloat, {}) + T(at::kDouble, {})).scalar_type() == at::kDouble);
  // Ops that always produce floats or bools.
  CHECK(T(at::kLong).exp().scalar_type() == at::kFloat);
  CHECK((T(at::kLong) / T(at::kLong)).scalar_type() == at::kFloat);
  CHECK(T(at::kLong).lt(T(at::kDouble)).scalar_type() == at::kBool);
  // In-place ops cannot narrow the category.
  at::Tensor i = T(at::kLong);
  CHECK_THROWS_WITH(i.add_(T(at::kFloat)), Catch::Contains("expected an output dtype that the result dtype Float can be cast to; got output dtype Long"));
  CHECK_THROWS_WITH(i.add_(1, 1.5), Catch::StartsWith("[add] expected a non-floating value for argument 'alpha'"));
  at::Tensor f = T(at::kFloat);
  f.add_(T(at::kLong));  // Long -> Float is fine
  CHECK(f.scalar_type() == at::kFloat);
  CHECK(ember::result_type({}, {at::Scalar(1), at::Scalar(2.0)}) == at::kFloat);
}

TEST_CASE("broadcasting", "[tensor][broadcast]") {
  at::Tensor a = iota({3, 1});
  at::Tensor b = iota({4});
  at::Tensor c = a + b;
  CHECK(c.sizes() == at::IntArrayRef({3, 4}));
  CHECK(at_(c, {2, 3}) == 5);
  at::Tensor z = iota({0, 4}) + b;
  CHECK(z.sizes() == at::IntArrayRef({0, 4}));
  at::Tensor s = iota({}) + b;  // zero-dim
  CHECK(s.sizes() == at::IntArrayRef({4}));
  CHECK_THROWS_WITH(iota({3}) + iota({4}), Catch::StartsWith("[add] expected sizes that broadcast at dim 0 (equal, or one of them 1); got 3 and 4"));
  at::Tensor x = iota({2, 3});
  CHECK_THROWS_WITH(iota({3}).add_(x), Catch::Contains("expected the in-place output to have the broadcast shape [2, 3]; got output shape [3]"));
  // Non-contiguous and transposed inputs give correct values; the output follows the input layout.
  at::Tensor t = iota({4, 3}).t();
  at::Tensor u = t * 2;
  CHECK(u.strides() == t.strides());
  CHECK(at_(u, {2, 3}) == 2 * at_(t, {2, 3}));
  at::Tensor strided = iota({4, 6}).slice(1, 0, 6, 2);
  at::Tensor w = strided + strided;
  CHECK(at_(w, {3, 2}) == 2 * at_(strided, {3, 2}));
}

TEST_CASE("out= variants resize and check dtypes", "[tensor]") {
  at::Tensor a = iota({2, 3}), b = iota({3});
  at::Tensor out = at::empty({0}, at::kFloat);
  at::add_out(out, a, b);
  CHECK(out.sizes() == at::IntArrayRef({2, 3}));
  CHECK(at_(out, {1, 2}) == 7);
  at::Tensor dout = at::empty({2, 3}, at::kDouble);  // wider dtype: computed then cast
  at::mul_out(dout, a, b);
  CHECK(at_(dout, {1, 2}) == 10);
  at::Tensor iout = at::empty({2, 3}, at::kLong);
  CHECK_THROWS_WITH(at::mul_out(iout, a, b), Catch::Contains("can be cast to; got output dtype"));
  // An input that partly overlaps the output raises (libtorch does: the result would depend on
  // the visiting order); the exact same elements, or disjoint ones, are fine.
  at::Tensor r = iota({10});
  CHECK_THROWS_WITH(r.slice(0, 1, 10).add_(r.slice(0, 0, 9)),
                    Catch::StartsWith("[add] expected inputs that share no memory with the output"));
  at::Tensor r16 = r.slice(0, 1, 6), r02 = r.slice(0, 0, 2);
  CHECK_THROWS_AS(at::add_out(r16, r.slice(0, 0, 5), at::ones({5})), c10::Error);
  CHECK_THROWS_AS(at::exp_out(r16, r.slice(0, 0, 5)), c10::Error);
  CHECK_THROWS_AS(r.slice(0, 1, 10).copy_(r.slice(0, 0, 9)), c10::Error);
  CHECK_THROWS_AS(r.add_(r[0]), c10::Error);
  CHECK(at_(r, {9}) == 9);  // untouched by the failed calls
  r.add_(r);
  CHECK(at_(r, {9}) == 18);
  at::exp_out(r02, r.slice(0, 0, 2));
  CHECK(at_(r, {1}) == Approx(std::exp(2.0)));
  r.slice(0, 5, 10).add_(r.slice(0, 0, 5));  // disjoint halves of one storage
  CHECK(at_(r, {9}) == Approx(18 + 8));
  CHECK_THROWS_WITH(at::zeros({1}).expand({4}).add_(1),
                    Catch::StartsWith("[add] expected an output whose elements have distinct addresses"));
  // The out tensor is judged as given, before it is resized (libtorch 2.15 raises for the first
  // two and accepts the empty expanded out).
  at::Tensor e3 = at::zeros({1}).expand({3}), e0 = at::zeros({1}).expand({0, 3});
  CHECK_THROWS_WITH(at::add_out(e3, at::ones({0}), at::ones({0})),
                    Catch::StartsWith("[add] expected an output whose elements have distinct addresses"));
  CHECK_THROWS_WITH(at::add_out(e3, at::ones({2}), at::ones({2})),
                    Catch::StartsWith("[add] expected an output whose elements have distinct addresses"));
  CHECK_NOTHROW(at::add_out(e0, at::ones({0, 3}), at::ones({0, 3})));
  // Overlap that is too costly to decide (neither side dense) is computed through a temporary.
  at::Tensor q = iota({4, 4});
  at::Tensor qt = q.slice(1, 0, 4, 2);  // columns 0 and 2: sizes [4, 2], strides [4, 2]
  qt.add_(q.slice(1, 1, 3));            // columns 1 and 2: strides [4, 1]
  CHECK(at_(q, {3, 0}) == 12 + 13);
  CHECK(at_(q, {3, 2}) == 14 + 14);
}

TEST_CASE("large pointwise ops run in parallel and match the serial result", "[tensor]") {
  at::Tensor a = iota({1 << 18});
  at::Tensor b = (a * 0.5).sin();
  for (int64_t i : {int64_t(0), int64_t(12345), int64_t((1 << 18) - 1)})
    CHECK(at_(b, {i}) == Approx(std::sin(0.5 * static_cast<double>(i))).margin(1e-4));
}

TEST_CASE("printing looks like libtorch", "[tensor][print]") {
  std::ostringstream os;
  os << iota({2, 3});
  CHECK(os.str() == " 0  1  2\n 3  4  5\n[ CPUFloatType{2,3} ]");
  std::ostringstream o1;
  o1 << (iota({2}) * 0.25);
  CHECK(o1.str() == " 0.0000\n 0.2500\n[ CPUFloatType{2} ]");
  std::ostringstream o0;
  o0 << iota({}, at::kLong);
  CHECK(o0.str() == "0\n[ CPULongType{} ]");
  std::ostringstream o3;
  o3 << iota({2, 1, 2}, at::kInt);
  CHECK(o3.str() == "(1,.,.) = \n 0  1\n\n(2,.,.) = \n 2  3\n[ CPUIntType{2,1,2} ]");
  std::ostringstream ou;
  ou << at::Tensor();
  CHECK(ou.str() == "[ Tensor (undefined) ]");
  CHECK(iota({2}).toString() == "CPUFloatType");
}

TEST_CASE("printing: formats recorded from libtorch 2.15", "[tensor][print]") {
  // Each expected text is libtorch's output for the same tensor (see Note [How a tensor prints]).
  const double kNaN = std::numeric_limits<double>::quiet_NaN(), kInf = std::numeric_limits<double>::infinity();
  auto text = [](const at::Tensor& t) { std::ostringstream os; os << t; return os.str(); };
  auto d1 = [](std::vector<double> v) {
    at::Tensor t = at::empty({static_cast<int64_t>(v.size())}, at::kDouble);
    std::copy(v.begin(), v.end(), t.data_ptr<double>());
    return t;
  };
  CHECK(text(d1({12.5, 3.25})) == " 12.5000\n  3.2500\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({0.001, 0.0002})) == "0.001 *\n 1.0000\n 0.2000\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({1e5, 1.5})) == " 1.0000e+05\n 1.5000e+00\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({123456.7, 1.5})) == " 1.2346e+05\n 1.5000e+00\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({1.5, 2.25})) == " 1.5000\n 2.2500\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({0.5, 0.25})) == " 0.5000\n 0.2500\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({1e-5, 1.5})) == " 1.0000e-05\n 1.5000e+00\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({100.5, 0.01})) == " 100.5000\n   0.0100\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({kNaN, 1.5, kInf})) == "    nan\n 1.5000\n    inf\n[ CPUDoubleType{3} ]");
  CHECK(text(d1({1, 2, 3})) == " 1\n 2\n 3\n[ CPUDoubleType{3} ]");
  CHECK(text(d1({1e10, 1})) == " 1.0000e+10\n 1.0000e+00\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({123456789, 1})) == "1.23457e+08\n         1\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({0.1, 0.2})) == " 0.1000\n 0.2000\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({99999.5, 1.5})) == " 99999.5000\n     1.5000\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({-12.5, 3.0})) == "-12.5000\n  3.0000\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({0, 0})) == " 0\n 0\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({0.0, 1.5})) == " 0.0000\n 1.5000\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({5e-4, 6e-4})) == "0.0001 *\n 5.0000\n 6.0000\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({1e-9, 2e-9})) == "1e-09 *\n 1.0000\n 2.0000\n[ CPUDoubleType{2} ]");
  CHECK(text(at::full({}, 3.5, at::kFloat)) == "3.5\n[ CPUFloatType{} ]");
  CHECK(text(at::full({}, 3.0, at::kFloat)) == "3\n[ CPUFloatType{} ]");
  CHECK(text(d1({1, 0}).to(at::kBool)) == " 1\n 0\n[ CPUBoolType{2} ]");
  CHECK(text(at::full({}, 1, at::kBool)) == "1\n[ CPUBoolType{} ]");
  CHECK(text(d1({3, -12}).to(at::kLong)) == "  3\n-12\n[ CPULongType{2} ]");
  CHECK(text(d1({12.5, 3.25, 1.0, 2.0}).to(at::kFloat).reshape({2, 2})) == " 12.5000   3.2500\n  1.0000   2.0000\n[ CPUFloatType{2,2} ]");
  CHECK(text((at::arange(8, at::kFloat).reshape({2, 2, 2}) * 1.5)) == "(1,.,.) = \n 0.0000  1.5000\n  3.0000  4.5000\n\n(2,.,.) = \n  6.0000   7.5000\n   9.0000  10.5000\n[ CPUFloatType{2,2,2} ]");
  CHECK(text(d1({1, 0, 1, 1}).to(at::kBool).reshape({2, 2})) == " 1  0\n 1  1\n[ CPUBoolType{2,2} ]");
  CHECK(text(at::full({}, 3.14159265, at::kFloat)) == "3.1415927410125732\n[ CPUFloatType{} ]");
  CHECK(text(at::full({}, 1e-7, at::kFloat)) == "1.0000000116860974e-07\n[ CPUFloatType{} ]");
  CHECK(text(at::full({}, 123456.703125, at::kDouble)) == "123456.703125\n[ CPUDoubleType{} ]");
  CHECK(text(at::full({}, 7, at::kLong)) == "7\n[ CPULongType{} ]");
  CHECK(text((at::arange(24, at::kFloat).reshape({2, 12}) * 1.5)) == "Columns 1 to 8  0.0000   1.5000   3.0000   4.5000   6.0000   7.5000   9.0000  10.5000\n 18.0000  19.5000  21.0000  22.5000  24.0000  25.5000  27.0000  28.5000\n\nColumns 9 to 12 12.0000  13.5000  15.0000  16.5000\n 30.0000  31.5000  33.0000  34.5000\n[ CPUFloatType{2,12} ]");
  CHECK(text(d1({1e6, 2e6})) == "   1e+06\n   2e+06\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({-0.0, 1.5})) == "-0.0000\n 1.5000\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({1, 2}).to(at::kHalf)) == " 1\n 2\n[ CPUHalfType{2} ]");
  CHECK(text(at::empty({0})) == "[ CPUFloatType{0} ]");
  CHECK(text(at::empty({2, 0})) == "[ CPUFloatType{2,0} ]");
  CHECK(text(at::arange(4, at::kFloat).reshape({1, 1, 2, 2})) == "(1,1,.,.) = \n 0  1\n  2  3\n[ CPUFloatType{1,1,2,2} ]");
  CHECK(text(d1({-kInf, 2.5})) == "   -inf\n 2.5000\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({kNaN, kNaN})) == "nan\nnan\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({1, kInf})) == " 1\ninf\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({1e6 + 0.5, 2e6})) == "1000000 *\n 1.0000\n 2.0000\n[ CPUDoubleType{2} ]");
  CHECK(text(d1({1e10, 1}).to(at::kLong)) == " 1.0000e+10\n 1.0000e+00\n[ CPULongType{2} ]");
  CHECK(text(d1({1.5e-20, 2.5e-20})) == "1e-20 *\n 1.5000\n 2.5000\n[ CPUDoubleType{2} ]");
}

TEST_CASE("errors name the op and what was given", "[tensor][errors]") {
  at::Tensor a = iota({2, 3});
  CHECK_THROWS_AS(a.size(5), c10::IndexError);
  CHECK_THROWS_WITH(a.size(5), Catch::StartsWith("[size] expected a dimension in [-2, 1]; got 5"));
  CHECK_THROWS_WITH(a.select(0, 7), Catch::StartsWith("[select] expected an index in [-2, 1] for dim 0 of size 2; got 7"));
  CHECK_THROWS_WITH(a.transpose(0, 2), Catch::StartsWith("[transpose] expected a dimension in [-2, 1]; got 2"));
  CHECK_THROWS_WITH(a.permute({0, 0}), Catch::StartsWith("[permute] repeated dim"));
  CHECK_THROWS_WITH(a.expand({4, 3}), Catch::StartsWith("[expand] expected the existing size (2) at dim 0 to be 1 or to equal the target size (4)"));
  CHECK_THROWS_WITH(at::add(a, at::Tensor()), Catch::StartsWith("[add] expected a defined tensor for argument 'other'"));
  CHECK_THROWS_WITH(a.data_ptr<int64_t>(), Catch::StartsWith("[data_ptr] expected a tensor of dtype int64; got float32"));
  CHECK_THROWS_WITH(a.item(), Catch::StartsWith("[item] expected a tensor with exactly 1 element; got 6 elements"));
  CHECK_THROWS_WITH(a.bitwise_and(a), Catch::StartsWith("[bitwise_and] expected one of the supported dtypes (") &&
                                          Catch::Contains("); got float32"));
  CHECK_THROWS_WITH(a.as_strided({3, 3}, {3, 1}), Catch::StartsWith("[as_strided]"));
  CHECK_THROWS_WITH(at::Device("tpu"), Catch::StartsWith("[Device]"));
  CHECK_THROWS_WITH(at::Tensor().dim(), Catch::StartsWith("[Tensor] called a method on an undefined tensor"));
  CHECK_THROWS_WITH(a.narrow(1, 2, 3), Catch::StartsWith("[narrow] expected a non-negative length with start + length <= 3 (the size of dim 1); got start 2 and length 3"));
  // An unavailable backend gives a clear error, not a crash.
  if (!torch::cuda::is_available()) CHECK_THROWS_AS(at::empty({2}, at::device(at::kCUDA)).fill_(1), c10::Error);
}

TEST_CASE("item, accessor, Half and BFloat16 round trips", "[tensor]") {
  at::Tensor a = iota({2, 3});
  auto acc = a.accessor<float, 2>();
  CHECK(acc[1][2] == 5);
  CHECK(a.select(0, 1).select(0, 1).item<float>() == 4);
  at::Tensor h = (iota({5}) * 0.1).to(at::kHalf);
  CHECK(h.to(at::kFloat).select(0, 3).item<float>() == Approx(0.3).epsilon(1e-3));
  at::Tensor b = (iota({5}) * 0.1).to(at::kBFloat16);
  CHECK(b.to(at::kDouble).select(0, 4).item<double>() == Approx(0.4).epsilon(1e-2));
  CHECK(static_cast<float>(c10::Half(65504.0f)) == 65504.0f);
  CHECK(std::isinf(static_cast<float>(c10::Half(1e6f))));
  CHECK(static_cast<float>(c10::Half(5.9604645e-08f)) == 5.9604645e-08f);  // smallest subnormal
}

namespace {
int g_calls = 0;
at::Tensor my_neg(const at::Tensor& self) {
  ++g_calls;
  return self.mul(-2);
}
}  // namespace

TEST_CASE("a kernel can be registered at run time and is called", "[dispatch]") {
  at::Tensor a = iota({3});
  auto prev = ember::register_kernel<at::ops::neg>(c10::DispatchKey::CPU, &my_neg);
  REQUIRE(prev != nullptr);
  at::Tensor r = a.neg();
  CHECK(g_calls == 1);
  CHECK(at_(r, {2}) == -4);
  ember::register_kernel<at::ops::neg>(c10::DispatchKey::CPU, prev);
  CHECK(at_(a.neg(), {2}) == -2);
  CHECK(g_calls == 1);
  CHECK(std::string(at::ops::add_Tensor::name) == "add.Tensor");
  CHECK(std::string(ember::kOpNames[static_cast<uint32_t>(at::ops::add_Tensor_out::id)]) == "add.Tensor_out");
}

TEST_CASE("a build without CUDA reports it per op", "[dispatch]") {
  if (ember::built_with_cuda()) return;  // covered by tests/cuda in CUDA builds
  at::Tensor fake = at::make_empty_strided_raw({0}, {1}, at::kFloat, at::kCPU);
  // Route a call to the CUDA row directly.
  auto* fn = reinterpret_cast<at::ops::neg::schema*>(ember::dispatch::get_kernel(ember::OpId::neg, c10::DispatchKey::CUDA));
  REQUIRE(fn != nullptr);
  CHECK_THROWS_WITH(fn(fake), "[neg] Ember was built without CUDA");
}

TEST_CASE("resize_ keeps existing values and grows storage", "[tensor]") {
  at::Tensor a = iota({2, 3});
  void* before = a.data_ptr();
  a.resize_({3, 2});  // same numel: same storage, values kept in order
  CHECK(a.data_ptr() == before);
  CHECK(at_(a, {2, 1}) == 5);
  a.resize_({4, 4});
  CHECK(a.sizes() == at::IntArrayRef({4, 4}));
  CHECK(a.is_contiguous());
  CHECK(at_(a, {1, 1}) == 5);  // the first 6 values survive the reallocation
  CHECK(a.storage().nbytes() >= 16 * sizeof(float));
  a.resize_({0});
  CHECK(a.numel() == 0);
  CHECK_THROWS_WITH(a.resize_({-1}), Catch::StartsWith("[resize_] expected non-negative sizes; got [-1]"));
  float buf[4] = {1, 2, 3, 4};
  at::Tensor blob = at::from_blob(buf, {4});
  CHECK_THROWS_WITH(blob.resize_({8}), Catch::Contains("not resizable"));
}

TEST_CASE("integer division guards", "[tensor]") {
  at::Tensor a = at::tensor({7, -7, INT64_MIN}), b = at::tensor({2, 2, -1});
  at::Tensor f = at::div(a, b, "floor");
  CHECK(f.select(0, 0).item<int64_t>() == 3);
  CHECK(f.select(0, 1).item<int64_t>() == -4);
  CHECK(f.select(0, 2).item<int64_t>() == INT64_MIN);  // wraps like libtorch, no trap
  at::Tensor t = at::div(a, b, "trunc");
  CHECK(t.select(0, 1).item<int64_t>() == -3);
  CHECK_THROWS_WITH(at::floor_divide(a, at::tensor({1, 0, 1})), Catch::StartsWith("[floor_divide] integer division by zero"));
  CHECK_THROWS_WITH(at::div(a, b, "round"), Catch::StartsWith("[div] rounding_mode must be"));
  CHECK_THROWS_WITH(at::gelu(a.to(at::kFloat), "fast"), Catch::StartsWith("[gelu] approximate must be"));
}

TEST_CASE("transposed copies (tiled, SIMD and edge tiles) keep every element", "[tensor]") {
  for (auto shape : std::vector<std::vector<int64_t>>{{64, 96}, {70, 45}, {9, 300}, {33, 33}}) {
    for (auto dt : {at::kFloat, at::kDouble, at::kHalf, at::kInt}) {
      at::Tensor a = iota(shape, dt);
      at::Tensor c = a.t().contiguous();
      REQUIRE(c.is_contiguous());
      at::Tensor back = c.to(at::kDouble);
      const double* p = back.data_ptr<double>();
      bool ok = true;
      for (int64_t i = 0; i < shape[1] && ok; ++i)
        for (int64_t j = 0; j < shape[0] && ok; ++j) {
          double want = static_cast<double>(j * shape[1] + i);
          if (dt == at::kHalf && want > 2048) continue;  // beyond exact half integers
          ok = p[i * shape[0] + j] == want;
        }
      INFO("shape " << shape[0] << "x" << shape[1] << " dtype " << c10::dtypeName(dt));
      CHECK(ok);
    }
  }
}

TEST_CASE("pointwise ops over transposed operands (tiled iteration) keep every element", "[tensor]") {
  // a.t() + b walks a across rows: TensorIter visits such iterations in tiles (Note [Tiled
  // iteration]). Shapes with edge tiles in both dims, a leading batch dim, and every dtype family.
  for (auto shape : std::vector<std::vector<int64_t>>{{64, 96}, {70, 45}, {65, 129}, {200, 66}, {3, 70, 66}}) {
    const bool batched = shape.size() == 3;
    const int64_t B = batched ? shape[0] : 1, R = shape[shape.size() - 2], C = shape.back();
    for (auto dt : {at::kFloat, at::kDouble, at::kHalf, at::kInt, at::kLong}) {
      // a holds the transposed operand: a[b][c][r] = b*R*C + c*R + r, seen as [b][r][c].
      at::Tensor a = batched ? iota({B, C, R}, dt).transpose(1, 2) : iota({C, R}, dt).t();
      at::Tensor b = batched ? iota({B, R, C}, dt) : iota({R, C}, dt);
      at::Tensor sum = at::empty(b.sizes(), b.options());  // contiguous: a is the one walked across
      at::add_out(sum, a, b);
      at::Tensor got = sum.to(at::kDouble).reshape({B, R, C});
      at::Tensor got2 = (a + b).to(at::kDouble).contiguous().reshape({B, R, C});  // whatever layout a + b picks
      CHECK(at::equal(got, got2));
      const double* p = got.data_ptr<double>();
      bool ok = true;
      for (int64_t bi = 0; bi < B && ok; ++bi)
        for (int64_t r = 0; r < R && ok; ++r)
          for (int64_t c = 0; c < C && ok; ++c) {
            const double want = static_cast<double>(bi * R * C + c * R + r) + static_cast<double>(bi * R * C + r * C + c);
            if (dt == at::kHalf && want > 2048) continue;  // past exact half integers
            ok = p[(bi * R + r) * C + c] == want;
            if (!ok) INFO("at [" << bi << "][" << r << "][" << c << "]: " << p[(bi * R + r) * C + c] << " != " << want);
          }
      INFO("shape " << B << "x" << R << "x" << C << " dtype " << c10::dtypeName(dt));
      CHECK(ok);
    }
    // Vector math gives the same bits whatever the layout (Note [One vector-math source]).
    at::Tensor base = (batched ? iota({B, C, R}) : iota({C, R})) * 0.01 - 3.0;
    at::Tensor x = batched ? base.transpose(1, 2) : base.t();
    at::Tensor y_ref = x.contiguous().exp();
    at::Tensor y = at::empty(y_ref.sizes(), y_ref.options());
    at::exp_out(y, x);
    CHECK(at::equal(y, y_ref));
    CHECK(at::equal(x.exp().contiguous(), y_ref));
  }
}

TEST_CASE("pointwise ops over short rows (several rows per loop call) keep every element", "[tensor]") {
  // A channels-last tensor with per-channel vectors iterates rows of C elements, N*H*W of them;
  // TensorIter hands whole blocks of rows to one loop call (Note [Rows per loop call]). At 2
  // threads the ranges start and end inside rows (133,052 elements, C = 37). References: float64
  // arithmetic on the elements' indices.
  const int64_t N = 4, C = 37, H = 29, W = 31;
  const int threads = at::get_num_threads();
  for (int t : {1, 2}) {
    at::set_num_threads(t);
    for (auto dt : {at::kFloat, at::kDouble, at::kHalf, at::kInt, at::kLong}) {
      // x[n][c][h][w] = ((n*C + c)*H + h)*W + w, modulo 200 (results stay exact in half), channels-last.
      const at::Tensor x = (iota({N, C, H, W}, at::kLong) % 200).to(dt).contiguous(at::MemoryFormat::ChannelsLast);
      const at::Tensor scale = (iota({1, C, 1, 1}, at::kLong) % 5 + 1).to(dt);  // c % 5 + 1
      const at::Tensor shift = (iota({1, C, 1, 1}, at::kLong) - 7).to(dt);      // c - 7
      const at::Tensor y = at::addcmul(shift, x, scale);
      const at::Tensor z = x + shift;
      CHECK(y.is_contiguous(at::MemoryFormat::ChannelsLast));
      const at::Tensor yd = y.to(at::kDouble).contiguous(), zd = z.to(at::kDouble).contiguous();
      const double *py = yd.data_ptr<double>(), *pz = zd.data_ptr<double>();
      bool ok = true;
      for (int64_t i = 0; i < N * C * H * W && ok; ++i) {
        const int64_t c = (i / (H * W)) % C;
        const double xv = static_cast<double>(i % 200);
        const double want_y = static_cast<double>(c - 7) + xv * static_cast<double>(c % 5 + 1);
        const double want_z = xv + static_cast<double>(c - 7);
        ok = py[i] == want_y && pz[i] == want_z;
        if (!ok) INFO("at " << i << ": " << py[i] << " / " << pz[i] << " != " << want_y << " / " << want_z);
      }
      INFO(t << " threads, dtype " << c10::dtypeName(dt));
      CHECK(ok);
    }
    // Four dims that do not coalesce, with a short dim 0: blocks of rows end where dim 1 wraps and
    // carry into dims 2 and 3 (x[a][b][c][d] = a*336 + c*56 + b*8 + d, seen as [5][7][6][8]; the
    // bias varies along c and d only, so no two dims merge).
    for (auto dt : {at::kFloat, at::kInt}) {
      const at::Tensor x = iota({5, 6, 7, 8}, dt).permute({0, 2, 1, 3});
      const at::Tensor bias = iota({6, 8}, dt);  // bias[c][d] = c*8 + d
      const at::Tensor got = (x * 2 + bias).to(at::kDouble).contiguous();
      const double* p = got.data_ptr<double>();
      bool ok = true;
      for (int64_t a = 0; a < 5 && ok; ++a)
        for (int64_t b = 0; b < 7 && ok; ++b)
          for (int64_t c = 0; c < 6 && ok; ++c)
            for (int64_t d = 0; d < 8 && ok; ++d) {
              const double want = 2.0 * static_cast<double>(a * 336 + c * 56 + b * 8 + d) + static_cast<double>(c * 8 + d);
              ok = p[((a * 7 + b) * 6 + c) * 8 + d] == want;
            }
      INFO(t << " threads, dtype " << c10::dtypeName(dt));
      CHECK(ok);
    }
  }
  at::set_num_threads(threads);
}

TEST_CASE("free operators with a scalar on either side, as libtorch defines them", "[tensor]") {
  // Scalar / Tensor divides once (C++ float division is the reference; the reciprocal times the
  // scalar differs at 7 and 13), and keeps b's layout.
  const std::vector<float> xs = {7.0f, 3.0f, 0.1f, 11.0f, 13.0f, -0.3f, -0.0f, 0.0f};
  const at::Tensor x = torch::tensor(xs);
  const at::Tensor q = 3 / x;
  REQUIRE(q.scalar_type() == at::kFloat);
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want = 3.0f / xs[i], got = q[static_cast<int64_t>(i)].item<float>();
    INFO("3 / " << xs[i]);
    CHECK(std::memcmp(&want, &got, sizeof(float)) == 0);  // -inf for -0, inf for 0
  }
  const at::Tensor cl = torch::rand({2, 3, 4, 5}).add(0.5).contiguous(at::MemoryFormat::ChannelsLast);
  CHECK((2.0 / cl).is_contiguous(at::MemoryFormat::ChannelsLast));
  // An integral divisor keeps its dtype (the scalar is cast to it), so true division cannot be
  // written back: an error, as in libtorch.
  CHECK_THROWS_AS(7 / torch::tensor({2, 3}), c10::Error);
  // % with a scalar on either side: Python's sign rule (the divisor's sign).
  const at::Tensor n = torch::tensor({-7, -1, 0, 5, 9});
  CHECK(at::equal(n % 4, torch::tensor({1, 3, 0, 1, 1})));
  CHECK(at::equal(n % -4, torch::tensor({-3, -1, 0, -3, -3})));
  CHECK(at::equal(10 % torch::tensor({3, -3, 4}), torch::tensor({1, -2, 2})));
  const at::Tensor fr = 5.5 % torch::tensor({2.0, -2.0});
  CHECK(fr[0].item<double>() == 1.5);
  CHECK(fr[1].item<double>() == -0.5);
  // Bitwise ops with a scalar (bitwise_and/or/xor.Scalar): the tensor's integral dtype, C++'s
  // operators on the same values as the reference; a float tensor is an error.
  const std::vector<int64_t> iv = {0, 5, 12, -3, 255};
  const at::Tensor it = torch::tensor(iv);
  const at::Tensor band = it & 6, bor = 6 | it, bxor = it ^ 10;
  REQUIRE(band.scalar_type() == at::kLong);
  for (size_t i = 0; i < iv.size(); ++i) {
    const auto k = static_cast<int64_t>(i);
    CHECK(band[k].item<int64_t>() == (iv[i] & 6));
    CHECK(bor[k].item<int64_t>() == (6 | iv[i]));
    CHECK(bxor[k].item<int64_t>() == (iv[i] ^ 10));
  }
  const at::Tensor bits = torch::tensor({true, false});
  CHECK(at::equal(bits & true, torch::tensor({true, false})));
  CHECK(at::equal(bits ^ true, torch::tensor({false, true})));
  CHECK_THROWS_AS(torch::tensor({1.5f}) & 1, c10::Error);
  // Comparisons with the scalar first: a < t is t > a.
  const at::Tensor c = torch::tensor({1.0, 2.0, 3.0, std::nan("")});
  CHECK(at::equal(2 < c, torch::tensor({false, false, true, false})));
  CHECK(at::equal(2 <= c, torch::tensor({false, true, true, false})));
  CHECK(at::equal(2 > c, torch::tensor({true, false, false, false})));
  CHECK(at::equal(2 >= c, torch::tensor({true, true, false, false})));
  CHECK(at::equal(2 == c, torch::tensor({false, true, false, false})));
  CHECK(at::equal(2 != c, torch::tensor({true, false, true, true})));
}

TEST_CASE("tensor: dtype() is a caffe2::TypeMeta as in libtorch", "[tensor]") {
  // Names, sizes and printing recorded from libtorch 2.15 (TypeMeta::name of each dtype).
  const std::vector<std::tuple<at::ScalarType, std::string, size_t>> expected = {
      {at::kByte, "unsigned char", 1}, {at::kChar, "signed char", 1}, {at::kShort, "short int", 2},
      {at::kInt, "int", 4},            {at::kLong, "long int", 8},    {at::kHalf, "c10::Half", 2},
      {at::kFloat, "float", 4},        {at::kDouble, "double", 8},    {at::kBool, "bool", 1},
      {at::kBFloat16, "c10::BFloat16", 2}};
  for (const auto& [st, name, size] : expected) {
    const at::Tensor t = at::empty({2}, at::TensorOptions().dtype(st));
    const caffe2::TypeMeta m = t.dtype();
    CHECK(std::string(m.name()) == name);
    CHECK(m.itemsize() == size);
    CHECK(m.toScalarType() == st);
    CHECK(m == st);
    CHECK(st == m);
    CHECK(m == caffe2::TypeMeta::fromScalarType(st));
    std::ostringstream os;
    os << t.dtype();
    CHECK(os.str() == name);
  }
  const at::Tensor f = at::ones({3});
  CHECK(f.dtype() != at::kDouble);
  CHECK(f.dtype() == caffe2::TypeMeta::Make<float>());
  CHECK(f.dtype().Match<float>());
  CHECK_FALSE(f.dtype().Match<double>());
  // A TypeMeta goes wherever libtorch lets it: options, factories, to().
  const at::Tensor d = at::zeros({2}, at::ones({1}, at::kDouble).dtype());
  CHECK(d.scalar_type() == at::kDouble);
  CHECK(f.to(d.dtype()).scalar_type() == at::kDouble);
  CHECK(at::TensorOptions().dtype(d.dtype()).dtype() == at::kDouble);
  CHECK(c10::typeMetaToScalarType(f.options().dtype()) == at::kFloat);
  CHECK(f.options().dtype_opt().has_value());
  CHECK_FALSE(at::TensorOptions().dtype_opt().has_value());
  std::ostringstream os;
  os << f.options();
  CHECK(os.str().find("dtype=float") != std::string::npos);
  // The default handle names no dtype: itemsize 0, and asking for its ScalarType is an error.
  const caffe2::TypeMeta none;
  CHECK(none.itemsize() == 0);
  CHECK(std::string(none.name()) == "nullptr (uninitialized)");
  CHECK_THROWS_WITH(none.toScalarType(), Catch::StartsWith("[TypeMeta]"));
}
