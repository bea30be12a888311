#pragma once
// torch::ExpandingArray<D>: D values given either as one value repeated D times or as exactly D
// values, as libtorch's layer options take kernel sizes, strides and paddings:
//   Conv2dOptions(1, 10, /*kernel_size=*/5);   Conv2dOptions(1, 10, {3, 5}).stride({2, 1});
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace torch {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  /* implicit */ ExpandingArray(T single) { values_.fill(single); }
  /* implicit */ ExpandingArray(std::initializer_list<T> list) : ExpandingArray(at::ArrayRef<T>(list)) {}
  /* implicit */ ExpandingArray(const std::vector<T>& v) : ExpandingArray(at::ArrayRef<T>(v)) {}
  /* implicit */ ExpandingArray(const std::array<T, D>& a) : values_(a) {}
  /* implicit */ ExpandingArray(at::ArrayRef<T> values) {
    EMBER_CHECK(values.size() == D, "[ExpandingArray] expected ", D, " values (one per spatial dim); got ", values.size());
    for (size_t i = 0; i < D; ++i) values_[i] = values[i];
  }

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  operator at::ArrayRef<T>() const { return at::ArrayRef<T>(values_.data(), D); }
  static constexpr size_t size() { return D; }

 private:
  std::array<T, D> values_;
};

/// Prints as libtorch: [a, b, ...], and a lone value (D == 1) without brackets.
template <size_t D, typename T>
std::ostream& operator<<(std::ostream& os, const ExpandingArray<D, T>& a) {
  if (D == 1) return os << (*a)[0];
  os << "[";
  for (size_t i = 0; i < D; ++i) os << (i ? ", " : "") << (*a)[i];
  return os << "]";
}

}  // namespace torch

EMBER_PUBLIC_END
