// Hand-written tests for the joining and indexing ops that the generated tests cannot drive
// (Tensor?[] arguments, the C++ indexing API, error messages).
#include <ATen/ATen.h>
#include <ATen/TensorIndexing.h>
#include <catch2/catch.hpp>
#include "op_test_util.h"
#include <sstream>

using namespace at::indexing;
using ember_test::to_double_vec;

namespace {
using ember_test::error_of;
using ember_test::iota;
at::Tensor longs(std::vector<int64_t> v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  at::Tensor t = at::empty(shape, at::kLong);
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}
at::Tensor bools(std::vector<int> v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  at::Tensor t = at::empty(shape, at::kBool);
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<bool>()[i] = v[i] != 0;
  return t;
}
using V = std::vector<double>;
using S = std::vector<int64_t>;
c10::List<std::optional<at::Tensor>> idx_list(std::vector<std::optional<at::Tensor>> v) {
  c10::List<std::optional<at::Tensor>> l;
  for (auto& x : v) l.push_back(x);
  return l;
}
}  // namespace

TEST_CASE("indexing API: integers, slices, None, ellipsis", "[index]") {
  at::Tensor t = iota({3, 4});
  CHECK(to_double_vec(t[1]) == V{4, 5, 6, 7});
  CHECK(to_double_vec(t.index({Slice(), 2})) == V{2, 6, 10});
  CHECK(to_double_vec(t.index({-1, Slice(1, None, 2)})) == V{9, 11});
  CHECK(to_double_vec(t.index({Slice(-2), Slice(None, -1)})) == V{4, 5, 6, 8, 9, 10});
  CHECK(to_double_vec(t.index({Slice(10, 20)})).empty());
  CHECK(t.index({None}).sizes().vec() == S{1, 3, 4});
  CHECK(t.index({Slice(), None, 0}).sizes().vec() == S{3, 1});
  at::Tensor u = iota({2, 3, 4});
  CHECK(u.index({"...", 1}).sizes().vec() == S{2, 3});
  CHECK(to_double_vec(u.index({Ellipsis, 1, 2})) == V{6, 18});
  CHECK(to_double_vec(u.index({1, "...", 3})) == V{15, 19, 23});
  CHECK(u.index({"...", None}).sizes().vec() == S{2, 3, 4, 1});
  CHECK(u.index({true}).sizes().vec() == S{1, 2, 3, 4});
  CHECK(u.index({Slice(), false}).sizes().vec() == S{2, 0, 3, 4});
  // Basic indexing returns views.
  CHECK(t.index({Slice(), 0}).is_alias_of(t));
}

TEST_CASE("indexing API: tensor and mask indices", "[index]") {
  at::Tensor t = iota({3, 4});
  CHECK(to_double_vec(t.index({longs({2, 0, -1})})) == V{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11});
  CHECK(to_double_vec(t.index({Slice(), longs({3, 0})})) == V{3, 0, 7, 4, 11, 8});
  CHECK(to_double_vec(t.index({longs({0, 2}), longs({1, 3})})) == V{1, 11});
  CHECK(to_double_vec(t[longs({1})]) == V{4, 5, 6, 7});
  at::Tensor mask = t.gt(6.5);
  CHECK(to_double_vec(t.index({mask})) == V{7, 8, 9, 10, 11});
  CHECK(to_double_vec(t.index({bools({1, 0, 1})})) == V{0, 1, 2, 3, 8, 9, 10, 11});
  CHECK(to_double_vec(t.index({Slice(), bools({0, 1, 0, 1})})) == V{1, 3, 5, 7, 9, 11});
  // A 0-dim integer tensor selects.
  CHECK(t.index({longs({2}, {1}).reshape(S{})}).sizes().vec() == S{4});
}

TEST_CASE("index: broadcasting and placement of advanced indices", "[index]") {
  at::Tensor t = iota({2, 3, 4, 5});
  // Adjacent advanced indices in the middle stay in place.
  at::Tensor r = at::index(t, idx_list({std::nullopt, longs({0, 2}), longs({1, 3})}));
  CHECK(r.sizes().vec() == S{2, 2, 5});
  CHECK(r[1][1][4].item<double>() == 60 + 2 * 20 + 3 * 5 + 4);
  // Non-adjacent advanced indices go first.
  at::Tensor q = at::index(t, idx_list({longs({1, 0}), std::nullopt, longs({3, 2})}));
  CHECK(q.sizes().vec() == S{2, 3, 5});
  CHECK(q[0][2][1].item<double>() == 60 + 2 * 20 + 3 * 5 + 1);
  // Index tensors broadcast against each other.
  at::Tensor b = at::index(t, idx_list({longs({0, 1}, {2, 1}), longs({0, 1, 2}, {1, 3})}));
  CHECK(b.sizes().vec() == S{2, 3, 4, 5});
  CHECK(b[1][2][3][4].item<double>() == 60 + 2 * 20 + 3 * 5 + 4);
  // Transposed input, int32 indices, float64 and bool dtypes.
  at::Tensor tt = iota({4, 3}, at::kDouble).t();
  at::Tensor ii = longs({2, 0}).to(at::kInt);
  CHECK(to_double_vec(at::index(tt, idx_list({std::nullopt, ii}))) == V{6, 0, 7, 1, 8, 2});
  at::Tensor bt = bools({1, 0, 1, 1});
  CHECK(to_double_vec(at::index(bt, idx_list({longs({1, 2})}))) == V{0, 1});
}

TEST_CASE("index_put_: assignment, accumulate, duplicates", "[index]") {
  at::Tensor t = iota({3, 4});
  t.index_put_({Slice(), 0}, 5.0);
  CHECK(to_double_vec(t.index({Slice(), 0})) == V{5, 5, 5});
  t.index({1}) = iota({4}).mul(-1);  // assignment through a view
  CHECK(to_double_vec(t[1]) == V{0, -1, -2, -3});
  t[2] = 7.0;
  CHECK(to_double_vec(t[2]) == V{7, 7, 7, 7});

  at::Tensor m = iota({2, 3});
  m.index_put_({m.gt(2.5)}, 0.0);
  CHECK(to_double_vec(m) == V{0, 1, 2, 0, 0, 0});
  m.index_put_({longs({1, 0}), longs({2, 2})}, iota({2}).add(10));
  CHECK(to_double_vec(m) == V{0, 1, 11, 0, 0, 10});

  // accumulate adds every duplicate; without it the last write wins.
  at::Tensor a = at::empty({5}, at::kFloat);
  a.fill_(0);
  at::index_put_(a, idx_list({longs({1, 3, 1, 1})}), iota({4}).add(1), /*accumulate=*/true);
  CHECK(to_double_vec(a) == V{0, 1 + 3 + 4, 0, 2, 0});
  at::Tensor w = at::empty({3}, at::kLong);
  w.fill_(0);
  at::index_put_(w, idx_list({longs({2, 2})}), longs({7, 9}));
  CHECK(to_double_vec(w) == V{0, 0, 9});
  // Broadcast values; values of another dtype raise (libtorch does too), with or without a mask.
  at::Tensor g = iota({2, 3});
  g.index_put_({Slice(), longs({0, 2})}, longs({-1, -2}).to(at::kFloat));
  CHECK(to_double_vec(g) == V{-1, 1, -2, -1, 4, -2});
  CHECK_THROWS_WITH(g.index_put_({Slice(), longs({0, 2})}, longs({-1, -2})),
                    Catch::StartsWith("[index_put_] expected values of the destination's dtype float32; got int64"));
  CHECK_THROWS_AS(g.index_put_({g.gt(0)}, at::ones({3}, at::kDouble)), c10::Error);
  CHECK_THROWS_AS(g.index_put_({longs({0})}, at::ones({}, at::kDouble)), c10::Error);
  CHECK(to_double_vec(g) == V{-1, 1, -2, -1, 4, -2});
  // ... except x[mask] = 0-dim value, a masked fill that converts it.
  g.index_put_({g.lt(0)}, at::full({}, 7.0, at::kDouble));
  CHECK(to_double_vec(g) == V{7, 1, 7, 7, 4, 7});
  // Functional variant leaves self alone.
  at::Tensor f = iota({3});
  at::Tensor f2 = at::index_put(f, idx_list({longs({0})}), iota({1}).add(9));
  CHECK(to_double_vec(f) == V{0, 1, 2});
  CHECK(to_double_vec(f2) == V{9, 1, 2});
  // index_put_ through a strided view writes the base.
  at::Tensor base = iota({4, 4});
  base.index({Slice(None, None, 2), Slice(1)}).index_put_({longs({1})}, 100.0);
  CHECK(to_double_vec(base[2]) == V{8, 100, 100, 100});
}

TEST_CASE("index errors", "[index]") {
  at::Tensor t = iota({2, 3});
  CHECK(error_of([&] { t.index({0, 1, 2}); }) == "[index] expected at most 2 indices (one per dim of the tensor); got 3");
  CHECK_THROWS_AS(t.index({0, 1, 2}), c10::IndexError);
  CHECK_THROWS_AS(t.index({5}), c10::IndexError);
  CHECK(error_of([&] { t.index({longs({0, 7})}); }).find("expected an index in [-2, 2) for dim 0; got 7") !=
        std::string::npos);
  CHECK_THROWS_AS(t.index({longs({-3})}), c10::IndexError);
  CHECK(error_of([&] { t.index({Slice(None, None, -1)}); }).find("[index] expected a positive slice step") == 0);
  CHECK(error_of([&] { t.index({"...", "..."}); }).find("expected at most one ellipsis") != std::string::npos);
  CHECK(error_of([&] { t.index({bools({1, 0, 1})}); }).find("to match the indexed tensor") != std::string::npos);
  CHECK(error_of([&] { t.index({iota({2})}); }).find("expected index tensors of dtype int64, int32, uint8 or bool") != std::string::npos);
  CHECK(error_of([&] { t.index_put_({longs({0})}, iota({4})); }).find("[index_put_] expected values that broadcast") == 0);
  std::ostringstream os;
  os << TensorIndex(Slice(1, 5, 2)) << " " << TensorIndex(None) << " " << TensorIndex("...") << " " << TensorIndex(3);
  CHECK(os.str() == "1:5:2 None ... 3");
}

TEST_CASE("gather / scatter / index_select errors", "[index]") {
  at::Tensor t = iota({5, 2});
  CHECK(error_of([&] { at::index_select(t, 0, longs({1, 7})); }) ==
        "[index_select] expected an index in [0, 5) for dim 0; got 7");
  CHECK_THROWS_AS(at::index_select(t, 0, longs({-1})), c10::IndexError);
  CHECK(error_of([&] { at::index_select(t, 0, iota({2})); }).find("[index_select] expected index of dtype int64") == 0);
  CHECK(error_of([&] { at::gather(t, 1, longs({0, 2}, {1, 2})); }) ==
        "[gather] expected an index in [0, 2) for dim 1; got 2");
  CHECK(error_of([&] { at::gather(t, 0, longs({0, 1, 2}, {3})); }).find("[gather] expected index and self to have the same number of dims") == 0);
  CHECK(error_of([&] { at::scatter(t, 0, longs({9, 0}, {1, 2}), iota({1, 2})); }).find("[scatter_] expected an index in [0, 5) for dim 0; got 9") == 0);
  CHECK(error_of([&] { at::scatter_add(t, 0, longs({0, 0, 0}, {1, 3}), iota({1, 3})); }).find("[scatter_add_] expected index") == 0);
}

TEST_CASE("join and misc errors", "[index]") {
  CHECK(error_of([&] { at::cat(std::vector<at::Tensor>{iota({2, 3}), iota({2, 4})}, 0); }) ==
        "[cat] expected equal sizes in all dims but dim 0; got size 4 (expected 3) in dim 1 of tensor 1");
  CHECK(error_of([&] { at::cat(std::vector<at::Tensor>{iota({2}), iota({2, 2})}, 0); }).find("[cat] expected every tensor to have the same number of dims") == 0);
  CHECK(error_of([&] { at::cat(std::vector<at::Tensor>{iota({2}).reshape({2})[0]}, 0); }).find("[cat] expected tensors with at least one dim") == 0);
  CHECK(error_of([&] { at::stack(std::vector<at::Tensor>{iota({2}), iota({3})}, 0); }).find("[stack] expected every tensor to have the same shape") == 0);
  CHECK(error_of([&] { at::one_hot(longs({0, 4}), 3); }) == "[one_hot] class value 4 is out of range for num_classes 3");
  CHECK(error_of([&] { at::one_hot(longs({0, -1}), 3); }).find("[one_hot] expected non-negative class values") == 0);
  CHECK(error_of([&] { at::flip(iota({2, 2}), {0, -2}); }).find("[flip] expected each dim at most once; got dim 0 more than once") == 0);
  CHECK(error_of([&] { at::roll(iota({2, 2}), {1, 1}, {0}); }).find("[roll] expected as many shifts as dims") == 0);
  CHECK(error_of([&] { iota({2, 2}).repeat({2}); }).find("[repeat] expected at least as many repeat sizes") == 0);
  CHECK(error_of([&] { at::constant_pad_nd(iota({2, 2}), {1}, 0); }).find("[constant_pad_nd] expected an even number of padding values") == 0);
  CHECK(error_of([&] { at::constant_pad_nd(iota({2, 2}), {-2, -1}, 0); }).find("[constant_pad_nd] expected a non-negative output size for dim 1; got -1 (input size 2") == 0);
  CHECK(error_of([&] { at::where(iota({2}), iota({2}), iota({2})); }).find("[where] expected condition of dtype bool") == 0);
  CHECK(error_of([&] { iota({2, 2}).masked_fill_(bools({1, 0, 1, 0}, {4, 1}), 1.0); }).find("[masked_fill_]") == 0);
  CHECK(error_of([&] { iota({2}).masked_fill(bools({1, 0}), iota({2})); }).find("[masked_fill] expected a 0-dim value tensor") == 0);
  // A value out of the dtype's range is refused even when nothing would be filled (libtorch 2.15
  // raises for an empty int8 tensor and for an all-false mask alike).
  CHECK_FALSE(error_of([&] { at::empty({0}, at::kChar).masked_fill_(at::empty({0}, at::kBool), 1000); }).empty());
  CHECK_FALSE(error_of([&] { at::zeros({2}, at::kChar).masked_fill_(bools({0, 0}), 1000); }).empty());
  CHECK(error_of([&] { at::zeros({2}, at::kChar).masked_fill_(bools({0, 0}), 127); }).empty());
  CHECK(error_of([&] { iota({3}).tril(); }).find("[tril_] expected a tensor with at least 2 dimensions") == 0);
}

TEST_CASE("joining and indexing values", "[index]") {
  // cat promotes, skips legacy empty tensors, and handles non-contiguous inputs.
  at::Tensor c = at::cat(std::vector<at::Tensor>{iota({2}, at::kInt), at::empty({0}, at::kFloat), iota({2}, at::kDouble)}, 0);
  CHECK(c.scalar_type() == at::kDouble);
  CHECK(to_double_vec(c) == V{0, 1, 0, 1});
  at::Tensor ct = at::cat(std::vector<at::Tensor>{iota({2, 2}).t(), iota({2, 1})}, 1);
  CHECK(to_double_vec(ct) == V{0, 2, 0, 1, 3, 1});
  CHECK(at::stack(std::vector<at::Tensor>{iota({2}), iota({2})}, 1).sizes().vec() == S{2, 2});
  // where promotes and takes scalars.
  at::Tensor cond = bools({1, 0, 1});
  at::Tensor w = at::where(cond, iota({3}, at::kInt), iota({3}, at::kDouble).add(10));
  CHECK(w.scalar_type() == at::kDouble);
  CHECK(to_double_vec(w) == V{0, 11, 2});
  CHECK(at::where(cond, iota({3}, at::kLong), 0.5).scalar_type() == at::kFloat);
  CHECK(at::where(cond, 1.0, 0.0).scalar_type() == at::kFloat);
  CHECK(to_double_vec(at::where(cond, at::Scalar(int64_t(3)), iota({3}))) == V{3, 1, 3});
  // masked_select broadcasts; nonzero gives coordinates.
  CHECK(to_double_vec(at::masked_select(iota({2, 2}), bools({0, 1}))) == V{1, 3});
  CHECK(to_double_vec(at::nonzero(bools({0, 1, 1, 0}, {2, 2}))) == V{0, 1, 1, 0});
  CHECK(at::nonzero(at::empty({0, 3}, at::kFloat)).sizes().vec() == S{0, 2});
  // one_hot infers num_classes.
  at::Tensor oh = at::one_hot(longs({2, 0}));
  CHECK(oh.sizes().vec() == S{2, 3});
  CHECK(to_double_vec(oh) == V{0, 0, 1, 1, 0, 0});
  // In-place methods return self.
  at::Tensor s = iota({2, 2});
  CHECK(s.tril_().is_same(s));
  CHECK(to_double_vec(s) == V{0, 0, 2, 3});
  CHECK(s.masked_fill_(bools({1, 0}), -1.0).is_same(s));
  CHECK(to_double_vec(s) == V{-1, 0, -1, 3});
  CHECK(to_double_vec(s.masked_fill_(bools({0, 1}), at::empty({}, at::kFloat).fill_(4))) == V{-1, 4, -1, 4});
  at::Tensor sc = at::empty({3}, at::kFloat);
  sc.fill_(0);
  sc.scatter_add_(0, longs({0, 0, 2}), iota({3}).add(1));
  CHECK(to_double_vec(sc) == V{3, 0, 3});
  // flip of a 0-dim tensor and an empty dims list copy.
  at::Tensor f = at::flip(iota({3}), {});
  CHECK(to_double_vec(f) == V{0, 1, 2});
}

TEST_CASE("large inputs take the parallel paths", "[index]") {
  ember_test::Rng rng(7);
  at::Tensor x = ember_test::make_input({300, 257}, at::kFloat, "contiguous", -1, 1, rng);
  at::Tensor xd = x.to(at::kDouble);
  at::Tensor idx = ember_test::make_input({400}, at::kLong, "contiguous", 0, 0, rng, 300);
  at::Tensor idx_d = idx.to(at::kDouble);
  ember_test::assert_close(at::index_select(x, 0, idx), ember_test::ref::index_select(xd, 0, idx_d), 0.0);
  at::Tensor gi = ember_test::make_input({300, 257}, at::kLong, "contiguous", 0, 0, rng, 257);
  ember_test::assert_close(at::gather(x, 1, gi), ember_test::ref::gather(xd, 1, gi.to(at::kDouble)), 0.0);
  ember_test::assert_close(at::scatter_add(x, 1, gi, x), ember_test::ref::scatter(xd, 1, gi.to(at::kDouble), xd, true), 1e-5);
  ember_test::assert_close(at::cat(std::vector<at::Tensor>{x, x.t().contiguous().t()}, 1),
                           ember_test::ref::cat({xd, xd}, 1), 0.0);
  ember_test::assert_close(at::flip(x.t(), {0, 1}), ember_test::ref::flip(xd.t().contiguous(), {0, 1}), 0.0);
  ember_test::assert_close(at::tril(x.reshape({3, 100, 257}), 3), ember_test::ref::tri(xd.reshape({3, 100, 257}), 3, true), 0.0);
  at::Tensor rows = x.index({idx.index({Slice(None, 100)})});
  ember_test::assert_close(rows, ember_test::ref::index_select(xd, 0, idx_d.index({Slice(None, 100)})), 0.0);
}

TEST_CASE("index_put_ accumulate over rows and strided rows", "[index]") {
  at::Tensor t = at::empty({4, 3}, at::kFloat);
  t.fill_(0);
  at::index_put_(t, idx_list({longs({1, 1, 3})}), iota({3, 3}), true);
  CHECK(to_double_vec(t) == V{0, 0, 0, 3, 5, 7, 0, 0, 0, 6, 7, 8});
  at::Tensor u = at::empty({3, 4}, at::kFloat);
  u.fill_(0);
  at::index_put_(u, idx_list({std::nullopt, longs({2, 2})}), iota({2, 3}).t(), true);  // column writes
  CHECK(to_double_vec(u) == V{0, 0, 3, 0, 0, 0, 5, 0, 0, 0, 7, 0});
}
