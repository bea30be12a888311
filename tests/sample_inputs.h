#pragma once
// Sample inputs of the generated op tests, written against the libtorch API only (no Ember-only
// headers): the op tests and the golden-data program (tools/golden, compiled against libtorch)
// build bit-identical inputs from the same seeds.
#include <ATen/ATen.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace ember_test {

using Rng = std::mt19937_64;

/// `float_dtype` replaces a floating sample dtype when set (the float64 re-run).
inline at::ScalarType pick(at::ScalarType dt, at::ScalarType float_dtype) {
  const bool floating = dt == at::kFloat || dt == at::kDouble || dt == at::kHalf || dt == at::kBFloat16;
  if (float_dtype != at::ScalarType::Undefined && floating) return float_dtype;
  return dt;
}

/// The special values a floating dtype is tested with: NaN, +-inf, -0.0, a denormal, huge and tiny
/// magnitudes of both signs (within the dtype's range).
inline std::vector<double> special_values(at::ScalarType dtype) {
  const double nan = std::nan(""), inf = INFINITY;
  double denorm = 1e-310, huge = 1e300, tiny = 1e-300;
  if (dtype == at::kFloat) { denorm = 1e-40; huge = 3e38; tiny = 1e-37; }
  if (dtype == at::kHalf) { denorm = 1e-7; huge = 6e4; tiny = 1e-4; }
  if (dtype == at::kBFloat16) { denorm = 1e-39; huge = 3e38; tiny = 1e-37; }
  return {nan, inf, -inf, -0.0, denorm, huge, -huge, tiny, -denorm, 0.0};
}

/// A deterministic input: uniform values in [lo, hi) (integers: [lo, hi) rounded down; bool: coin
/// flips; index tensors: [0, index_bound)), laid out as asked:
///  - contiguous;
///  - transposed: all dims reversed over a contiguous tensor of the reversed shape;
///  - strided: every other element in each dim;
///  - expanded: dim 0 broadcast from size 1 (stride 0);
///  - offset: a contiguous view that starts 5 elements into its storage;
///  - channels_last: rank 4 (NCHW over NHWC memory) or rank 5 (NCDHW over NDHWC).
/// The special values an integral dtype is tested with: its extremes and their neighbours, 0, ±1.
inline std::vector<int64_t> integer_special_values(at::ScalarType dtype) {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  if (dtype == at::kInt) { lo = INT32_MIN; hi = INT32_MAX; }
  if (dtype == at::kShort) { lo = INT16_MIN; hi = INT16_MAX; }
  if (dtype == at::kChar) { lo = INT8_MIN; hi = INT8_MAX; }
  if (dtype == at::kByte) { lo = 0; hi = UINT8_MAX; }
  if (lo == 0) return {hi, 0, 1, hi - 1, 2, 128};
  return {lo, hi, 0, -1, lo + 1, hi - 1, 1, 2};
}

inline at::Tensor make_input(std::vector<int64_t> shape, at::ScalarType dtype, const std::string& layout, double lo,
                             double hi, Rng& rng, int64_t index_bound = -1, bool special = false) {
  std::vector<int64_t> base = shape;
  if (layout == "transposed") std::reverse(base.begin(), base.end());
  if (layout == "strided") for (auto& s : base) s *= 2;
  if (layout == "expanded" && !base.empty()) base[0] = 1;
  if (layout == "channels_last") {
    if (base.size() != 4 && base.size() != 5)
      throw std::logic_error("make_input: layout 'channels_last' needs rank 4 or 5");
    std::rotate(base.begin() + 1, base.begin() + 2, base.end());  // N C rest... -> N rest... C
  }
  int64_t n = 1;
  for (auto s : base) n *= s;
  const int64_t lead = layout == "offset" ? 5 : 0;  // elements before the view in its storage
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> u(lo, hi);
  const bool integral = dtype == at::kLong || dtype == at::kInt || dtype == at::kShort || dtype == at::kChar ||
                        dtype == at::kByte;
  for (auto& x : v) {
    if (index_bound >= 0) x = static_cast<double>(rng() % static_cast<uint64_t>(std::max<int64_t>(index_bound, 1)));
    else if (dtype == at::kBool) x = static_cast<double>(rng() & 1);
    else if (integral) x = std::floor(u(rng));
    else x = u(rng);
  }
  if (special && !integral) {
    // Every other element of the buffer (so strided layouts keep some) takes the next special value.
    const auto sv = special_values(dtype);
    for (size_t i = 0, k = 0; i < v.size() && k < sv.size(); i += 2, ++k) v[i] = sv[k];
  }
  at::Tensor t = at::empty(base, at::TensorOptions().dtype(at::kDouble));
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  t = t.to(dtype);
  if (special && integral) {
    // Extremes do not survive a trip through double (2^63 - 1): written as int64, then narrowed
    // to a dtype that holds them exactly.
    at::Tensor w = t.to(at::kLong).contiguous();
    const auto sv = integer_special_values(dtype);
    int64_t* p = w.data_ptr<int64_t>();
    for (size_t i = 0, k = 0; i < v.size() && k < sv.size(); i += 2, ++k) p[i] = sv[k];
    t = w.to(dtype);
  }
  if (lead > 0) {
    at::Tensor storage = at::zeros({n + lead}, t.options());
    storage.narrow(0, lead, n).copy_(t.reshape({n}));
    t = storage.narrow(0, lead, n).view(base);
  }
  if (layout == "transposed") {
    std::vector<int64_t> perm(base.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(perm.size() - 1 - i);
    t = t.permute(perm);
  } else if (layout == "strided") {
    for (int64_t d = 0; d < t.dim(); ++d) t = t.slice(d, 0, std::nullopt, 2);
  } else if (layout == "expanded") {
    t = t.expand(shape);
  } else if (layout == "channels_last") {
    std::vector<int64_t> perm{0, static_cast<int64_t>(base.size()) - 1};
    for (int64_t d = 1; d + 1 < static_cast<int64_t>(base.size()); ++d) perm.push_back(d);
    t = t.permute(perm);
  }
  if (t.sizes().vec() != shape) throw std::logic_error("make_input: layout '" + layout + "' changed the shape");
  return t;
}

}  // namespace ember_test
