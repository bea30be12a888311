// The CUDA indexing and joining kernels (kernels/cuda/index.cu, join.cu) against the CPU ones:
// sizes that take multi-block paths, repeated indices (scatter_ / index_put_ keep the CPU's last
// write; the adding variants sum every duplicate), out-of-range indices raising the CPU's error
// without touching self, and nonzero / masked_select on about a million elements.
#include <ATen/ATen.h>
#include <ATen/TensorIndexing.h>
#include <catch2/catch.hpp>
#include "op_test_util.h"
#include <torch/cuda.h>
#include "cuda/cuda_test_util.h"

using namespace at::indexing;

namespace {

at::Tensor gpu(const at::Tensor& t) { return t.to(kGpu); }

void same(const at::Tensor& cuda, const at::Tensor& cpu, double tol = 0.0) {
  REQUIRE(cuda.is_cuda());
  CHECK(cuda.scalar_type() == cpu.scalar_type());
  CHECK(cuda.sizes().vec() == cpu.sizes().vec());
  ember_test::assert_close(cuda.to(at::kCPU), cpu, tol);
}

c10::List<std::optional<at::Tensor>> idx_list(std::vector<std::optional<at::Tensor>> v) {
  c10::List<std::optional<at::Tensor>> l;
  for (auto& x : v) l.push_back(x);
  return l;
}

at::Tensor index_input(std::vector<int64_t> shape, int64_t bound, ember_test::Rng& rng) {
  return ember_test::make_input(std::move(shape), at::kLong, "contiguous", 0, 0, rng, bound);
}

}  // namespace

TEST_CASE("CUDA gather / index_select / scatter on large inputs match the CPU", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(11);
  at::Tensor x = ember_test::make_input({700, 513}, at::kFloat, "contiguous", -1, 1, rng);
  at::Tensor xt = x.t();  // strided self
  at::Tensor ri = index_input({900}, 700, rng);
  same(at::index_select(gpu(x), 0, gpu(ri)), at::index_select(x, 0, ri));
  same(at::index_select(gpu(xt), 1, gpu(ri)), at::index_select(xt, 1, ri));
  at::Tensor gi = index_input({700, 600}, 513, rng);
  same(at::gather(gpu(x), 1, gpu(gi)), at::gather(x, 1, gi));
  at::Tensor gi0 = index_input({650, 513}, 700, rng);
  same(at::gather(gpu(x), 0, gpu(gi0)), at::gather(x, 0, gi0));
  // scatter_ with many repeated indices: the last write in index order wins, as on the CPU.
  at::Tensor src = ember_test::make_input({650, 513}, at::kFloat, "contiguous", -1, 1, rng);
  same(at::scatter(gpu(x), 0, gpu(gi0), gpu(src)), at::scatter(x, 0, gi0, src));
  same(at::scatter(gpu(xt), 1, gpu(gi0.t().contiguous()), gpu(src.t())), at::scatter(xt, 1, gi0.t().contiguous(), src.t()));
  same(gpu(x).scatter_(1, gpu(gi.narrow(1, 0, 513)), -2.5), x.clone().scatter_(1, gi.narrow(1, 0, 513), -2.5));
  // scatter_add_ sums every duplicate (float: up to rounding order).
  same(at::scatter_add(gpu(x), 0, gpu(gi0), gpu(src)), at::scatter_add(x, 0, gi0, src), 1e-5);
  at::Tensor one_d = index_input({200000}, 37, rng);
  at::Tensor vals = ember_test::make_input({200000}, at::kFloat, "contiguous", -1, 1, rng);
  at::Tensor z = at::zeros({37}, at::kFloat);
  same(at::scatter_add(gpu(z), 0, gpu(one_d), gpu(vals)), at::scatter_add(z, 0, one_d, vals), 1e-3);
}

TEST_CASE("CUDA scatter_add_ and index_put_ accumulate in every dtype", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(12);
  at::Tensor idx = index_input({5000}, 7, rng);  // many collisions per target
  for (at::ScalarType dt : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kInt, at::kLong, at::kShort,
                            at::kChar, at::kByte, at::kBool}) {
    INFO(c10::dtypeName(dt));
    const double lo = dt == at::kByte || dt == at::kBool ? 0 : -2, hi = dt == at::kBool ? 1 : 2;
    at::Tensor src = ember_test::make_input({5000}, dt, "contiguous", lo, hi, rng);
    at::Tensor self = ember_test::make_input({7}, dt, "contiguous", lo, hi, rng);
    // Integers wrap identically in any order; floats differ by rounding order only.
    const bool exact = !at::isFloatingType(dt);
    const double tol = dt == at::kHalf || dt == at::kBFloat16 ? 0.5 : 1e-3;
    if (dt == at::kHalf || dt == at::kBFloat16) {
      // Keep the sums small so the half-precision rounding order cannot move them far.
      src = src.mul(0.01);
    }
    same(at::scatter_add(gpu(self), 0, gpu(idx), gpu(src)), at::scatter_add(self, 0, idx, src), exact ? 0.0 : tol);
    same(at::index_put(gpu(self), idx_list({gpu(idx)}), gpu(src), true), at::index_put(self, idx_list({idx}), src, true),
         exact ? 0.0 : tol);
    // Without accumulate the last write of each destination wins, as on the CPU.
    same(at::index_put(gpu(self), idx_list({gpu(idx)}), gpu(src), false), at::index_put(self, idx_list({idx}), src, false));
  }
}

TEST_CASE("CUDA advanced indexing on large inputs matches the CPU", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(13);
  at::Tensor x = ember_test::make_input({60, 70, 80}, at::kFloat, "contiguous", -1, 1, rng);
  at::Tensor a = index_input({300}, 60, rng);
  at::Tensor b = index_input({300}, 80, rng).sub(80);  // negative indices count from the end
  at::Tensor xg = gpu(x);
  same(at::index(xg, idx_list({gpu(a)})), at::index(x, idx_list({a})));
  same(at::index(xg, idx_list({gpu(a), std::nullopt, gpu(b)})), at::index(x, idx_list({a, std::nullopt, b})));
  at::Tensor m = index_input({5, 40}, 70, rng);
  same(at::index(xg.transpose(0, 2), idx_list({std::nullopt, gpu(m)})), at::index(x.transpose(0, 2), idx_list({std::nullopt, m})));
  // CPU index tensors and masks work with a CUDA self.
  same(xg.index({a}), x.index({a}));
  at::Tensor mask = x.gt(0.3);
  same(xg.index({gpu(mask)}), x.index({mask}));
  same(xg.index({Slice(), gpu(mask.select(0, 0))}), x.index({Slice(), mask.select(0, 0)}));
  // index_put_ with duplicates (last write wins) and with accumulate.
  at::Tensor v = ember_test::make_input({300, 70}, at::kFloat, "contiguous", -1, 1, rng);
  at::Tensor c1 = x.clone(), g1 = gpu(x);
  c1.index_put_({a, Slice(), b}, v);
  g1.index_put_({gpu(a), Slice(), gpu(b)}, gpu(v));
  same(g1, c1);
  at::Tensor c2 = x.clone(), g2 = gpu(x);
  at::index_put_(c2, idx_list({a}), x.index({a}), true);
  at::index_put_(g2, idx_list({gpu(a)}), gpu(x.index({a})), true);
  same(g2, c2, 1e-5);
  at::Tensor c3 = x.clone(), g3 = gpu(x);
  c3.index_put_({mask}, -1.0);
  g3.index_put_({gpu(mask)}, -1.0);
  same(g3, c3);
}

TEST_CASE("CUDA out-of-range indices raise the CPU's errors and leave self alone", "[cuda]") {
  if (no_device()) return;
  using ember_test::error_of;
  ember_test::Rng rng(14);
  at::Tensor x = ember_test::make_input({300, 400}, at::kFloat, "contiguous", -1, 1, rng);
  at::Tensor xg = gpu(x);
  at::Tensor idx = index_input({100000}, 300, rng);
  idx.data_ptr<int64_t>()[77777] = 300;
  idx.data_ptr<int64_t>()[88888] = -5;
  at::Tensor ig = gpu(idx);
  auto both = [&](auto&& f_cpu, auto&& f_gpu) {
    const std::string e_cpu = error_of(f_cpu), e_gpu = error_of(f_gpu);
    CHECK(!e_cpu.empty());
    CHECK(e_gpu == e_cpu);
  };
  both([&] { at::index_select(x, 0, idx); }, [&] { at::index_select(xg, 0, ig); });
  CHECK_THROWS_AS(at::index_select(xg, 0, ig), c10::IndexError);
  at::Tensor gi = idx.narrow(0, 77700, 400).reshape({1, 400}).expand({300, 400}).contiguous();
  both([&] { at::gather(x, 0, gi); }, [&] { at::gather(xg, 0, gpu(gi)); });
  at::Tensor xs = x.clone();
  at::Tensor xsg = gpu(x);
  both([&] { xs.scatter_(0, gi, x); }, [&] { xsg.scatter_(0, gpu(gi), xg); });
  both([&] { xs.scatter_add_(0, gi, x); }, [&] { xsg.scatter_add_(0, gpu(gi), xg); });
  same(xsg, x);  // nothing was written
  both([&] { x.index({idx}); }, [&] { xg.index({ig}); });
  CHECK_THROWS_AS(xg.index({ig}), c10::IndexError);
  at::Tensor neg = at::full({3}, -301, at::kLong);
  both([&] { x.index({neg}); }, [&] { xg.index({gpu(neg)}); });
  both([&] { x.clone().index_put_({idx}, 1.0); }, [&] { xg.index_put_({ig}, 1.0); });
  same(xg, x);
  at::Tensor oh = index_input({1000}, 10, rng);
  oh.data_ptr<int64_t>()[500] = 12;
  both([&] { at::one_hot(oh, 10); }, [&] { at::one_hot(gpu(oh), 10); });
  oh.data_ptr<int64_t>()[500] = -1;
  both([&] { at::one_hot(oh, 10); }, [&] { at::one_hot(gpu(oh), 10); });
}

TEST_CASE("CUDA nonzero and masked_select on a million elements match the CPU", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(15);
  at::Tensor x = ember_test::make_input({100, 100, 101}, at::kFloat, "contiguous", -1, 1, rng);
  at::Tensor sparse = x.masked_fill(x.lt(0.6), 0.0);  // about 20% nonzero
  same(at::nonzero(gpu(sparse)), at::nonzero(sparse));
  same(at::nonzero(gpu(sparse).transpose(0, 2)), at::nonzero(sparse.transpose(0, 2)));
  same(at::nonzero(gpu(x.gt(0))), at::nonzero(x.gt(0)));
  same(at::nonzero(gpu(at::zeros({1000, 1000}, at::kHalf))), at::nonzero(at::zeros({1000, 1000}, at::kHalf)));
  same(at::nonzero(gpu(x.reshape({-1}))), at::nonzero(x.reshape({-1})));
  at::Tensor mask = x.gt(0.25);
  same(at::masked_select(gpu(x), gpu(mask)), at::masked_select(x, mask));
  same(at::masked_select(gpu(x).transpose(1, 2), gpu(mask.select(2, 0).unsqueeze(1))),
       at::masked_select(x.transpose(1, 2), mask.select(2, 0).unsqueeze(1)));
  // one_hot over many values.
  at::Tensor cls = index_input({300000}, 17, rng);
  same(at::one_hot(gpu(cls)), at::one_hot(cls));
}

TEST_CASE("CUDA joining kernels on large and strided inputs match the CPU", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(16);
  at::Tensor x = ember_test::make_input({300, 700}, at::kFloat, "contiguous", -1, 1, rng);
  at::Tensor y = ember_test::make_input({300, 500}, at::kDouble, "contiguous", -1, 1, rng);
  at::Tensor xg = gpu(x), yg = gpu(y);
  same(at::cat(std::vector<at::Tensor>{xg, yg, gpu(at::empty({0}, at::kInt))}, 1),
       at::cat(std::vector<at::Tensor>{x, y, at::empty({0}, at::kInt)}, 1));
  same(at::cat(std::vector<at::Tensor>{xg.t(), yg.t()}, 0), at::cat(std::vector<at::Tensor>{x.t(), y.t()}, 0));
  at::Tensor cond = x.gt(0);
  same(at::where(gpu(cond), xg, yg.narrow(1, 0, 1)), at::where(cond, x, y.narrow(1, 0, 1)));
  same(at::where(gpu(cond).t(), xg.t(), at::full({}, 3, at::kInt).to(kGpu)),
       at::where(cond.t(), x.t(), at::full({}, 3, at::kInt)));
  same(at::flip(xg.t(), {0, 1}), at::flip(x.t(), {0, 1}));
  same(at::flip(gpu(x.to(at::kChar)), {1}), at::flip(x.to(at::kChar), {1}));
  at::Tensor b = x.reshape({3, 100, 700});
  same(at::tril(gpu(b), 5), at::tril(b, 5));
  same(at::triu(gpu(b).transpose(1, 2), -7), at::triu(b.transpose(1, 2), -7));
  same(gpu(x).masked_fill_(gpu(cond.select(0, 0)), 9.0), x.clone().masked_fill_(cond.select(0, 0), 9.0));
  same(gpu(x.to(at::kHalf)).t().masked_fill_(gpu(cond).t(), -1), x.to(at::kHalf).t().masked_fill_(cond.t(), -1));
}
