// libtorch overloads Ember spells with its other ops (aten/native/Overloads.cpp) that the generated op
// tests leave out: the in-place ones and the random ones. Values against references written here
// (element loops over the inputs' values), versions, gradients, refusals.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include "op_test_util.h"
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace {
using Catch::StartsWith;

std::vector<double> vals(const at::Tensor& t) {
  at::Tensor c = t.detach().to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}
}  // namespace

TEST_CASE("overloads: fill_ with a 0-dim tensor", "[overloads]") {
  at::Tensor t = at::zeros({2, 3}).t();  // transposed: written through its strides
  t.fill_(at::tensor(2.5));
  CHECK(vals(t) == std::vector<double>(6, 2.5));
  at::fill_(t, at::tensor(int64_t{-3}));  // another dtype: converted
  CHECK(vals(t) == std::vector<double>(6, -3));
  CHECK_THROWS_WITH(t.fill_(at::ones({2})), StartsWith("[fill_] expected a 0-dim value tensor; got one with 1 dimension"));
  at::Tensor x = at::tensor({4.f, 5.f, 6.f});
  x.fill_(x[2]);  // the value is an element of self: read before it is overwritten
  CHECK(vals(x) == std::vector<double>{6, 6, 6});

  // the value gets the gradient: the sum of the filled elements' gradients
  at::Tensor v = at::tensor(1.5).requires_grad_(true);
  at::Tensor base = at::zeros({2, 2});
  base.fill_(v);
  (base * at::tensor({1.f, 2.f, 3.f, 4.f}).reshape({2, 2})).sum().backward();
  CHECK(v.grad().item<float>() == 10.f);
}

TEST_CASE("overloads: clamp_min_ and clamp_max_ by tensors", "[overloads]") {
  at::Tensor a = at::tensor({-2.f, 0.5f, NAN, 3.f});
  at::Tensor lo = at::tensor({0.f, 1.f, 0.f, -1.f});
  at::Tensor r = a.clone();
  at::Tensor& same = r.clamp_min_(lo);
  CHECK(same.is_same(r));
  const std::vector<double> av = vals(a), lv = vals(lo), rv = vals(r);
  for (size_t i = 0; i < av.size(); ++i) {
    if (std::isnan(av[i])) CHECK(std::isnan(rv[i]));  // NaN stays NaN
    else CHECK(rv[i] == std::max(av[i], lv[i]));
  }
  at::Tensor m = at::tensor({5, -7, 2}, at::kInt);
  m.clamp_max_(at::tensor(int64_t{1}));  // a 0-dim int64 bound: the result stays int32
  CHECK(m.scalar_type() == at::kInt);
  CHECK(vals(m) == std::vector<double>{1, -7, 1});
  at::Tensor small = at::zeros({2});
  CHECK_THROWS_WITH(small.clamp_min_(at::zeros({3, 2})), StartsWith("[clamp_min_] expected"));
  at::Tensor ints = at::tensor({1, 2}, at::kInt);
  CHECK_THROWS_WITH(ints.clamp_max_(at::tensor({0.5f, 0.5f})), StartsWith("[clamp_max_] expected a result that can be written"));
}

TEST_CASE("overloads: scatter with reduce='add' / 'multiply', out of place and in place", "[overloads]") {
  at::Tensor self = at::arange(1, 7, at::kFloat).reshape({2, 3});  // [[1,2,3],[4,5,6]]
  at::Tensor index = at::tensor({0, 1, 0, 0, 0, 1}, at::kLong).reshape({2, 3});
  at::Tensor src = at::tensor({10.f, 20.f, 30.f, 40.f, 50.f, 60.f}).reshape({2, 3});
  // reference: self[index[i][j]][j] (op)= src[i][j]
  auto expect = [&](bool mul) {
    std::vector<double> r = vals(self);
    const std::vector<double> iv = vals(index), sv = vals(src);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) {
        double& dst = r[static_cast<size_t>(iv[i * 3 + j]) * 3 + j];
        dst = mul ? dst * sv[i * 3 + j] : dst + sv[i * 3 + j];
      }
    return r;
  };
  CHECK(vals(at::scatter(self, 0, index, src, "add")) == expect(false));
  CHECK(vals(self.scatter(0, index, src, "multiply")) == expect(true));
  at::Tensor ip = self.clone();
  const auto v0 = ip._version();
  at::Tensor& r = ip.scatter_(0, index, src, "multiply");
  CHECK(r.is_same(ip));
  CHECK(vals(ip) == expect(true));
  CHECK(ip._version() > v0);
  // a scalar value: every indexed element gets it
  at::Tensor s2 = self.clone();
  s2.scatter_(1, at::tensor({2, 2}, at::kLong).reshape({2, 1}), 0.5, "add");
  CHECK(vals(s2) == std::vector<double>{1, 2, 3.5, 4, 5, 6.5});
  CHECK(vals(at::scatter(self, 1, at::tensor({0, 0}, at::kLong).reshape({2, 1}), -1, "multiply")) ==
        std::vector<double>{-1, 2, 3, -4, 5, 6});
  CHECK_THROWS_WITH(at::scatter(self, 0, index, src, "mean"),
                    StartsWith("[scatter] expected reduce to be 'add' or 'multiply'; got 'mean'"));
}

TEST_CASE("overloads: bernoulli(p) and random_() draw from the documented ranges", "[overloads]") {
  at::manual_seed(7);
  at::Tensor t = at::zeros({20000});
  at::Tensor b = at::bernoulli(t, 0.25);
  CHECK(b.sizes() == t.sizes());
  CHECK(b.scalar_type() == at::kFloat);
  const std::vector<double> bv = vals(b);
  CHECK(std::all_of(bv.begin(), bv.end(), [](double x) { return x == 0 || x == 1; }));
  const double mean = std::accumulate(bv.begin(), bv.end(), 0.0) / bv.size();
  CHECK(std::abs(mean - 0.25) < 0.02);  // 0.02 is over 6 standard deviations (0.003)
  CHECK(vals(t.bernoulli(0.0)) == std::vector<double>(20000, 0));
  CHECK(vals(t.bernoulli(1.0)) == std::vector<double>(20000, 1));
  CHECK_THROWS(at::bernoulli(t, 1.5));

  at::Tensor r = at::empty({4000}, at::kLong);
  r.random_(10);
  std::vector<double> rv = vals(r);
  CHECK(*std::min_element(rv.begin(), rv.end()) == 0);
  CHECK(*std::max_element(rv.begin(), rv.end()) == 9);
  at::Tensor h = at::empty({4000}, at::kHalf);
  h.random_();  // [0, 2^11]: every value an integer a half holds exactly
  rv = vals(h);
  CHECK(*std::min_element(rv.begin(), rv.end()) >= 0);
  CHECK(*std::max_element(rv.begin(), rv.end()) <= 2048);
  CHECK(*std::max_element(rv.begin(), rv.end()) > 1024);
  CHECK(std::all_of(rv.begin(), rv.end(), [](double x) { return x == std::floor(x); }));
  at::Tensor u8 = at::empty({4000}, at::kByte);
  at::random_(u8);
  rv = vals(u8);
  CHECK(*std::max_element(rv.begin(), rv.end()) == 255);
  CHECK_THROWS_WITH(at::empty({2}).random_(0), StartsWith("[random_] expected from < to"));
}

TEST_CASE("overloads: where(condition), max/min of two tensors, pow with a number base: libtorch spellings", "[overloads]") {
  torch::Tensor c = torch::tensor({0, 3, 0, -1, 2, 0}).reshape({2, 3});
  std::vector<torch::Tensor> idx = torch::where(c);
  REQUIRE(idx.size() == 2);
  CHECK(vals(idx[0]) == std::vector<double>{0, 1, 1});
  CHECK(vals(idx[1]) == std::vector<double>{1, 0, 1});
  CHECK(vals(torch::where(torch::tensor(true))[0]) == std::vector<double>{0});
  CHECK(torch::where(torch::tensor(false))[0].numel() == 0);

  torch::Tensor a = torch::tensor({1.f, NAN, -2.f}), b = torch::tensor({0.f, 1.f, 5.f});
  std::vector<double> mx = vals(torch::max(a, b)), mn = vals(a.min(b));
  CHECK(mx[0] == 1);
  CHECK(std::isnan(mx[1]));
  CHECK(mx[2] == 5);
  CHECK(mn[0] == 0);
  CHECK(std::isnan(mn[1]));
  CHECK(mn[2] == -2);

  torch::Tensor e = torch::tensor({0, 1, 3}, torch::kInt);
  torch::Tensor p = torch::pow(2, e);
  CHECK(p.scalar_type() == torch::kInt);
  CHECK(vals(p) == std::vector<double>{1, 2, 8});
  torch::Tensor pf = torch::pow(0.5, e);
  CHECK(pf.scalar_type() == torch::kFloat);
  CHECK(vals(pf) == std::vector<double>{1, 0.5, 0.125});
  CHECK(vals(torch::remainder(7, torch::tensor({3, -3, 4}))) == std::vector<double>{1, -2, 3});
  CHECK(vals(torch::bitwise_and(6, torch::tensor({3, 4, -1}))) == std::vector<double>{2, 4, 6});

  torch::Tensor s = torch::arange(6).reshape({3, 2});
  std::vector<torch::Tensor> parts = s.split({1, 2});
  REQUIRE(parts.size() == 2);
  CHECK(vals(parts[1]) == std::vector<double>{2, 3, 4, 5});
  CHECK(vals(s.narrow(0, torch::tensor(2), 1)) == std::vector<double>{4, 5});
  CHECK_THROWS_WITH(s.narrow(0, torch::tensor(1.0), 1), StartsWith("[narrow] expected start to be a 0-dim integer tensor"));
}

TEST_CASE("overloads: random_() draws what libtorch's draws from the same seed", "[overloads]") {
  // Recorded from libtorch 2.15 (PyPI wheel, CPU): manual_seed(123), then empty({5}, dtype).random_(), then
  // empty({2}, kLong).random_(0, 1000) (which shows the generator's state afterwards).
  struct Case {
    at::ScalarType dt;
    std::vector<double> values;
    std::vector<double> after;
  };
  const std::vector<Case> cases = {
      {at::kInt, {843828734, 914636141, 1228959102, 1840268610, 974319580}, {842, 886}},
      {at::kFloat, {4967756, 8666295, 4222261, 11551957, 1240994}, {842, 886}},
      {at::kDouble, {3322718611322843, 120389773574904, 5330280719962770, 834420745058216, 4255468591116969}, {411, 721}},
      {at::kHalf, {1870, 1984, 1686, 240, 1639}, {842, 886}},
      {at::kByte, {254, 109, 126, 66, 220}, {842, 886}},
      {at::kBool, {0, 1, 0, 0, 0}, {842, 886}},
  };
  for (const Case& c : cases) {
    INFO(c10::dtypeName(c.dt));
    at::manual_seed(123);
    at::Tensor t = at::empty({5}, c.dt).random_();
    at::Tensor after = at::empty({2}, at::kLong).random_(0, 1000);
    CHECK(vals(t) == c.values);
    CHECK(vals(after) == c.after);
  }
}

TEST_CASE("overloads: view(dtype) shares the bytes, is not differentiable, and refuses what cannot be viewed", "[overloads]") {
  at::Tensor a = at::tensor({1.0f, -2.0f, 0.5f, 0.0f});
  at::Tensor bits = a.view(at::kInt);
  CHECK(bits.scalar_type() == at::kInt);
  CHECK(bits.sizes() == a.sizes());
  // IEEE-754 single: 1.0 = 0x3F800000, -2.0 = 0xC0000000, 0.5 = 0x3F000000
  CHECK(vals(bits) == std::vector<double>{1065353216.0, -1073741824.0, 1056964608.0, 0.0});
  bits[3].fill_(1065353216);  // written through the view: the float reads 1.0
  CHECK(a[3].item<float>() == 1.0f);
  CHECK(a._version() == bits._version());

  at::Tensor d = at::zeros({2, 4}, at::kDouble).view(at::kFloat);  // 8-byte elements as two 4-byte ones
  CHECK(d.sizes().vec() == std::vector<int64_t>{2, 8});
  CHECK(d.strides().vec() == std::vector<int64_t>{8, 1});
  at::Tensor bytes = at::ones({2, 3}).view(at::kByte);
  CHECK(bytes.sizes().vec() == std::vector<int64_t>{2, 12});
  at::Tensor back = bytes.view(at::kFloat);
  CHECK(vals(back) == std::vector<double>(6, 1.0));

  at::Tensor g = at::ones({4}).requires_grad_(true);
  CHECK_FALSE(g.view(at::kInt).requires_grad());
  CHECK_THROWS_WITH(at::ones({3, 2}).t().view(at::kDouble), StartsWith("[view] expected the last dimension to be contiguous"));
  CHECK_THROWS_WITH(at::ones({3}).view(at::kDouble), StartsWith("[view] expected the last dimension's size to be a multiple of 2"));
  CHECK_THROWS_WITH(at::tensor(1.0f).view(at::kDouble), StartsWith("[view] expected a tensor with at least one dimension"));
}
