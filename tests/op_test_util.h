#pragma once
// Helpers for the generated op tests and the hand-written ones: deterministic inputs, float64
// references, closeness checks that report the worst element.
#include <ATen/ATen.h>
#include <ATen/native/PointwiseMath.h>
#include <catch2/catch.hpp>
#include <torch/cuda.h>
#include "ops/references.h"
#include "sample_inputs.h"
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace ember_test {

/// 0, 1, 2, ... laid out in `shape` (float32 unless told), built without the ops under test.
inline at::Tensor iota(std::vector<int64_t> shape, at::ScalarType dt = at::kFloat) {
  at::Tensor t = at::empty(shape, at::kDouble);
  double* p = t.data_ptr<double>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<double>(i);
  return t.to(dt);
}

/// Tolerance by dtype: 0 for exact types, ~1e-4 float32, 1e-10 float64, 1e-2/3e-2 for half/bfloat16.
double tol(at::ScalarType dt);
inline double tol(const at::Tensor& t) { return tol(t.scalar_type()); }
template <typename... T> double tol(const std::tuple<T...>& t) { return tol(std::get<0>(t)); }
inline double tol(const std::vector<at::Tensor>& v) { return v.empty() ? 0.0 : tol(v[0]); }

/// Values as float64 (row-major).
std::vector<double> to_double_vec(const at::Tensor& t);

/// Checks shapes match and |a - b| <= tol * (1 + |b|) elementwise (NaNs must match), naming the worst element.
void assert_close(const at::Tensor& a, const at::Tensor& b, double tol);
template <typename... T>
void assert_close(const std::tuple<T...>& a, const std::tuple<T...>& b, double t) {
  std::apply([&](const auto&... x) { std::apply([&](const auto&... y) { (assert_close(x, y, t), ...); }, b); }, a);
}
inline void assert_close(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b, double t) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) assert_close(a[i], b[i], t);
}

inline void check_defined(const at::Tensor& t) { REQUIRE(t.defined()); }
inline void check_defined(bool) {}
inline double tol(bool) { return 0.0; }
inline bool to_cpu(bool b) { return b; }
inline void assert_close(bool a, bool b, double) { CHECK(a == b); }
template <typename... T> void check_defined(const std::tuple<T...>& t) { std::apply([](const auto&... x) { (check_defined(x), ...); }, t); }
inline void check_defined(const std::vector<at::Tensor>& v) { for (auto& t : v) check_defined(t); }

inline at::Tensor to_cpu(const at::Tensor& t) { return t.to(at::kCPU); }
template <typename... T> auto to_cpu(const std::tuple<T...>& t) {
  return std::apply([](const auto&... x) { return std::make_tuple(to_cpu(x)...); }, t);
}
inline std::vector<at::Tensor> to_cpu(const std::vector<at::Tensor>& v) {
  std::vector<at::Tensor> r;
  for (auto& t : v) r.push_back(to_cpu(t));
  return r;
}

/// Any op result as a list of tensors (for gradcheck).
inline std::vector<at::Tensor> as_list(const at::Tensor& t) { return {t}; }
inline std::vector<at::Tensor> as_list(const std::vector<at::Tensor>& v) { return v; }
template <typename... T> std::vector<at::Tensor> as_list(const std::tuple<T...>& t) {
  return std::apply([](const auto&... x) { return std::vector<at::Tensor>{x...}; }, t);
}

inline bool cuda_available() { return torch::cuda::is_available(); }
/// The message of the c10::Error that `f` throws ("" when it does not throw).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what();
  }
  return "";
}

/// Golden data (tests/golden/ops.golden, written by tools/golden/run from libtorch): true when
/// libtorch raised on sample `name`.
bool golden_raises(const std::string& name);
/// Compares each output with libtorch's record for sample `name`: dtype and shape exactly, values
/// to `tol` (relative, per element; NaN and infinities must match). No record: nothing checked.
void check_golden(const std::string& name, const std::vector<at::Tensor>& outputs, double tol = -1);
inline void check_golden(const std::string& name, bool b, double tol = -1) {
  check_golden(name, std::vector<at::Tensor>{at::empty({}, at::TensorOptions().dtype(at::kBool)).fill_(b)}, tol);
}
inline void check_golden(const std::string& name, const at::Tensor& t, double tol = -1) {
  check_golden(name, std::vector<at::Tensor>{t}, tol);
}
template <typename... T>
void check_golden(const std::string& name, const std::tuple<T...>& t, double tol = -1) {
  check_golden(name, std::apply([](const auto&... x) { return std::vector<at::Tensor>{x...}; }, t), tol);
}
/// Names of the samples that have a golden record.
std::vector<std::string> golden_names();

/// Ops without a CUDA kernel (generated from ops.yaml: build/generated/tests/cuda_gaps.cpp).
extern const char* const kOpsWithoutCuda[];
extern const size_t kNumOpsWithoutCuda;
/// True when a NotImplementedError message ("[name] no kernel for CUDA (op full_name)") names an
/// op on that list.
bool is_listed_cuda_gap(const std::string& message);

/// True when the in-place variant applies: the result has self's shape and casts to self's dtype.
bool inplace_ok(const at::Tensor& self, const at::Tensor& result);

/// Checks `result` against `fn` evaluated in ref_t on the inputs broadcast to the result shape.
template <typename ref_t, int N, typename F>
void check_pointwise(const at::Tensor& result, std::vector<at::Tensor> inputs, const F& fn, double tolerance) {
  const int64_t n = result.numel();
  // Inputs in ref_t. Integer inputs of an integer reference are read exactly (through double,
  // INT64_MAX would round to 2^63, which no int64 holds).
  std::vector<std::vector<ref_t>> in;
  for (auto& t : inputs) {
    const at::Tensor e = t.expand(result.sizes());
    std::vector<ref_t> v;
    if constexpr (std::is_integral_v<ref_t>) {
      if (c10::isIntegralType(e.scalar_type(), /*includeBool=*/true)) {
        const at::Tensor c = e.to(at::kLong).contiguous();
        const int64_t* p = c.data_ptr<int64_t>();
        for (int64_t i = 0; i < c.numel(); ++i) v.push_back(static_cast<ref_t>(p[i]));
        in.push_back(std::move(v));
        continue;
      }
    }
    for (double x : to_double_vec(e)) v.push_back(static_cast<ref_t>(x));
    in.push_back(std::move(v));
  }
  std::vector<double> got = to_double_vec(result);
  std::vector<double> refs(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    double& ref = refs[static_cast<size_t>(i)];
    if constexpr (N == 1) ref = static_cast<double>(fn(in[0][i]));
    else if constexpr (N == 2) ref = static_cast<double>(fn(in[0][i], in[1][i]));
    else ref = static_cast<double>(fn(in[0][i], in[1][i], in[2][i]));
    if (result.scalar_type() == at::kBool) ref = ref != 0 ? 1.0 : 0.0;
  }
  if (result.is_floating_point() && n > 0) {
    // The reference rounded to the result's dtype: a value past its range is inf there too.
    at::Tensor r = at::empty({n}, at::TensorOptions().dtype(at::kDouble));
    std::copy(refs.begin(), refs.end(), r.data_ptr<double>());
    refs = to_double_vec(r.to(result.scalar_type()));
  }
  double worst = 0;
  int64_t worst_i = -1;
  double worst_ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double ref = refs[static_cast<size_t>(i)];
    double g = got[i];
    if (std::isnan(ref) && std::isnan(g)) continue;
    double err = (std::isinf(ref) && g == ref) ? 0.0 : std::fabs(g - ref) / (1.0 + std::fabs(ref));
    if (std::isnan(err)) err = INFINITY;
    if (err > worst) { worst = err; worst_i = i; worst_ref = ref; }
  }
  INFO("worst element " << worst_i << ": got " << (worst_i >= 0 ? got[worst_i] : 0) << ", reference " << worst_ref
                        << ", relative error " << worst << ", tolerance " << tolerance);
  CHECK(worst <= tolerance);
}

}  // namespace ember_test
