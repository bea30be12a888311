#pragma once
// Helpers of the generated Meta tests (tests/meta_<family>.cpp in the build directory, from
// codegen/templates/BackendShapeTests.cpp.j2): every op sample runs on the CPU and on meta copies
// of its inputs, and the results must agree in everything but data.
#include "grad_inputs.h"
#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <catch2/catch.hpp>
#include <atomic>
#include <cstdio>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ember_test {

/// A meta tensor with t's sizes, strides, storage offset and dtype, over a meta storage of t's
/// storage size (so views and offsets are kept).
inline at::Tensor meta_like(const at::Tensor& t) {
  if (!t.defined()) return t;
  const int64_t n = static_cast<int64_t>(t.storage().nbytes() / t.itemsize());
  return at::empty({n}, t.options().device(at::kMeta)).as_strided(t.sizes(), t.strides(), t.storage_offset());
}
inline std::vector<at::Tensor> meta_like(const std::vector<at::Tensor>& v) {
  std::vector<at::Tensor> r;
  for (const auto& t : v) r.push_back(meta_like(t));
  return r;
}

/// False while a test compares ops that take no tensor (factories called without a device give
/// CPU tensors on both sides).
inline bool& meta_expected() {
  static bool v = true;
  return v;
}

/// The meta result matches the CPU's in sizes, dtype, storage offset and the strides of every dim
/// of size > 1 (a size-1 dim's stride is never used).
inline void compare_meta(const at::Tensor& m, const at::Tensor& c) {
  REQUIRE(m.defined() == c.defined());
  if (!c.defined()) return;
  CHECK(m.is_meta() == meta_expected());
  CHECK(m.sizes().vec() == c.sizes().vec());
  CHECK(m.scalar_type() == c.scalar_type());
  CHECK(m.storage_offset() == c.storage_offset());
  if (m.sizes() == c.sizes() && c.numel() > 1) {
    for (int64_t d = 0; d < c.dim(); ++d)
      if (c.size(d) > 1) CHECK(m.strides().vec() == c.strides().vec());
  }
}
inline void compare_meta(const std::vector<at::Tensor>& m, const std::vector<at::Tensor>& c) {
  REQUIRE(m.size() == c.size());
  for (size_t i = 0; i < m.size(); ++i) compare_meta(m[i], c[i]);
}
template <typename... T>
void compare_meta(const std::tuple<T...>& m, const std::tuple<T...>& c) {
  std::apply([&](const auto&... x) { std::apply([&](const auto&... y) { (compare_meta(x, y), ...); }, c); }, m);
}
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> || std::is_enum_v<T>>>
void compare_meta(T m, T c) { CHECK(m == c); }

/// True when `message` is a NotImplementedError for an op on the generated list of ops without
/// a Meta kernel (tests/meta_gaps.cpp).
bool is_listed_meta_gap(const std::string& message);
/// True when `message` is the error of an op that needs data a meta tensor does not have (its
/// result's shape depends on values, or it reads them: item(), copy_ to another device) and `op`
/// is listed as such (`Meta: raise`, or ops.yaml `needs_data:`); the op is recorded and the list
/// is printed at exit. Any other op must compute its result's metadata on meta inputs.
bool meta_raised_by_design(const std::string& op, const std::string& message);

/// True for op results that are tensors only (Tensor, Tensor[], tuples of Tensors): those whose
/// gradients the generated tests compare.
template <typename R> struct tensor_results : std::false_type {};
template <> struct tensor_results<at::Tensor> : std::true_type {};
template <> struct tensor_results<std::vector<at::Tensor>> : std::true_type {};
template <typename... T> struct tensor_results<std::tuple<T...>> : std::bool_constant<(std::is_same_v<T, at::Tensor> && ...)> {};

/// How many samples had their gradients compared (printed at exit).
struct MetaGradCount {
  std::atomic<int> compared{0};
  ~MetaGradCount() {
    if (compared > 0) std::fprintf(stderr, "meta: gradients of %d samples compared with the CPU's\n", compared.load());
  }
};
inline MetaGradCount g_meta_grad_count;

/// Gradients on meta: the sample's floating inputs require grad on the CPU (`leaves`) and on meta
/// (`meta_leaves`, the same geometry); the gradients of the outputs that require grad (cotangents
/// of ones) must agree in sizes, dtype and strides, and be undefined on both for unused inputs.
/// A sample whose CPU backward raises (no derivative, a value check) is skipped; a meta backward
/// may raise only for an op listed as needing data.
template <typename CpuCall, typename MetaCall>
void compare_meta_grads(const std::string& op, CpuCall&& cpu, MetaCall&& meta, const std::vector<at::Tensor>& leaves,
                        const std::vector<at::Tensor>& meta_leaves) {
  if (leaves.empty()) return;
  auto differentiable = [](const std::vector<at::Tensor>& outs, std::vector<at::Tensor>& o, std::vector<at::Tensor>& go) {
    for (const auto& t : outs)
      if (t.defined() && t.requires_grad()) {
        o.push_back(t);
        go.push_back(at::ones_like(t));
      }
  };
  std::vector<at::Tensor> gc;
  size_t n_out = 0;
  try {
    std::vector<at::Tensor> o, go;
    differentiable(cpu(), o, go);
    if (o.empty()) return;
    n_out = o.size();
    gc = torch::autograd::grad(o, leaves, go, std::nullopt, false, /*allow_unused=*/true);
  } catch (const c10::Error&) {
    return;  // the CPU refuses this sample's backward
  }
  std::vector<at::Tensor> gm;
  try {
    std::vector<at::Tensor> o, go;
    differentiable(meta(), o, go);
    REQUIRE(o.size() == n_out);
    gm = torch::autograd::grad(o, meta_leaves, go, std::nullopt, false, /*allow_unused=*/true);
  } catch (const c10::Error& e) {
    INFO("backward on meta: " << e.what());
    CHECK(meta_raised_by_design(op, e.what()));
    return;
  }
  REQUIRE(gm.size() == gc.size());
  for (size_t i = 0; i < gc.size(); ++i) {
    INFO("gradient of input " << i);
    compare_meta(gm[i], gc[i]);
  }
  ++g_meta_grad_count.compared;
}

/// compare_meta_grads for a sample's call on CPU args `g` and meta args `gm`, when the op's result
/// `R` is tensors only (a template, so that other results never instantiate the call).
template <typename R, typename Call, typename Args>
void compare_meta_grads(const std::string& op, Call&& call, Args& g, Args& gm, const std::vector<at::Tensor>& leaves,
                        const std::vector<at::Tensor>& meta_leaves) {
  if constexpr (tensor_results<std::decay_t<R>>::value)
    compare_meta_grads(op, [&] { return call(g); }, [&] { return call(gm); }, leaves, meta_leaves);
}

}  // namespace ember_test
