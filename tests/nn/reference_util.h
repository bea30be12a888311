#pragma once
// Helpers of the tests that compare with values recorded from libtorch by
// tests/nn/libtorch/record_losses.cpp: the same input formulas, the same cotangent, and a lookup
// of the recorded results by name.
#include <catch2/catch.hpp>
#include <torch/torch.h>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ember_ref {

using Table = std::map<std::string, std::vector<double>>;

/// A float64 tensor of literal values, optionally reshaped.
inline torch::Tensor T(std::vector<double> v, std::vector<int64_t> shape = {}) {
  torch::Tensor t = torch::tensor(v, torch::kDouble);
  return shape.empty() ? t : t.reshape(shape);
}

/// value j of a tensor filled with seed k: 0.5 sin(0.9 j + 1.7 k) (as the recording program).
inline torch::Tensor fill(std::vector<int64_t> shape, int k) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return (torch::arange(n, torch::kDouble) * 0.9 + 1.7 * k).sin().mul(0.5).reshape(shape);
}

/// The cotangent of non-scalar results: cos(0.7 j + 0.3).
inline torch::Tensor w_like(const torch::Tensor& t) {
  return (torch::arange(t.numel(), torch::kDouble) * 0.7 + 0.3).cos().reshape(t.sizes());
}

inline torch::Tensor leaf(const torch::Tensor& t) { return t.clone().requires_grad_(true); }

/// Gradients of sum(out * w) (or of a 0-dim out) with respect to `leaves`.
inline std::vector<torch::Tensor> grads(const torch::Tensor& out, const std::vector<torch::Tensor>& leaves) {
  torch::Tensor s = out.dim() == 0 ? out : (out * w_like(out)).sum();
  return torch::autograd::grad({s}, leaves, {}, true, false, true);
}

/// `t` equals the recorded values `name` (NaN where they are NaN) within a relative 1e-9.
inline void check(const Table& table, const std::string& name, const torch::Tensor& t, double tol = 1e-9) {
  INFO(name);
  auto it = table.find(name);
  REQUIRE(it != table.end());
  const std::vector<double>& want = it->second;
  torch::Tensor c = t.detach().to(torch::kDouble).contiguous().reshape(-1);
  REQUIRE(c.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    const double got = c[static_cast<int64_t>(i)].item<double>();
    INFO("element " << i << ": got " << got << ", libtorch " << want[i]);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(got));
    } else if (std::isinf(want[i])) {
      CHECK(got == want[i]);
    } else {
      CHECK(std::abs(got - want[i]) <= tol * std::max(1.0, std::abs(want[i])));
    }
  }
}

/// Checks out and the gradients of leaves against `name`, `name.d<leaf>` (as the recorder names them).
inline void check_grad(const Table& table, const std::string& name, const torch::Tensor& out,
                       const std::vector<std::pair<std::string, torch::Tensor>>& leaves, double tol = 1e-9) {
  check(table, name, out, tol);
  std::vector<torch::Tensor> xs;
  for (const auto& l : leaves) xs.push_back(l.second);
  const auto g = grads(out, xs);
  for (size_t i = 0; i < leaves.size(); ++i) check(table, name + ".d" + leaves[i].first, g[i], tol);
}

/// The text a module prints.
inline std::string printed(const torch::nn::Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  return os.str();
}

/// The message of the c10::Error `fn` throws ("" when it does not throw).
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const c10::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace ember_ref
