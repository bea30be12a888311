#pragma once
// Helpers of the generated Meta tests (tests/meta_<family>.cpp in the build directory, from
// codegen/templates/BackendShapeTests.cpp.j2): every op sample runs on the CPU and on meta copies
// of its inputs, and the results must agree in everything but data.
#include <ATen/ATen.h>
#include <catch2/catch.hpp>
#include <string>
#include <tuple>
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

}  // namespace ember_test
