#pragma once
// Non-owning views of contiguous arrays (libtorch's ArrayRef / IntArrayRef / OptionalArrayRef).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/Exception.h>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <ostream>
#include <vector>

namespace c10 {

template <typename T>
class ArrayRef {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<const T*>;
  using size_type = size_t;

  constexpr ArrayRef() : data_(nullptr), size_(0) {}
  /// A single element (kept by reference: the element must outlive the ArrayRef).
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  constexpr ArrayRef(const T* data, size_t n) : data_(data), size_(n) {}
  constexpr ArrayRef(const T* begin, const T* end) : data_(begin), size_(end - begin) {}
  template <typename A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}
  template <size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) : data_(a.data()), size_(N) {}
  template <size_t N>
  constexpr ArrayRef(const T (&a)[N]) : data_(a), size_(N) {}
#if defined(__GNUC__) && !defined(__clang__)  // a GCC-only warning; clang warns about the pragma
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  /// Views a braced list; valid for the full expression that contains it (as in libtorch).
  constexpr ArrayRef(const std::initializer_list<T>& il)
      : data_(il.begin() == il.end() ? nullptr : il.begin()), size_(il.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T* cbegin() const { return data_; }
  constexpr const T* cend() const { return data_ + size_; }
  constexpr reverse_iterator rbegin() const { return reverse_iterator(end()); }
  constexpr reverse_iterator rend() const { return reverse_iterator(begin()); }
  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& at(size_t i) const {
    EMBER_CHECK(i < size_, "[ArrayRef] index ", i, " out of range for length ", size_);
    return data_[i];
  }
  const T& front() const { return at(0); }
  const T& back() const { EMBER_CHECK(size_ > 0, "[ArrayRef] back() of empty array"); return data_[size_ - 1]; }
  ArrayRef slice(size_t start, size_t n) const {
    EMBER_CHECK(start + n <= size_, "[ArrayRef] slice [", start, ", ", start + n, ") out of range for length ", size_);
    return ArrayRef(data_ + start, n);
  }
  ArrayRef slice(size_t start) const { return slice(start, size_ - start); }
  std::vector<T> vec() const { return std::vector<T>(data_, data_ + size_); }
  bool equals(ArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i) if (!(data_[i] == o.data_[i])) return false;
    return true;
  }
  bool operator==(ArrayRef o) const { return equals(o); }
  bool operator!=(ArrayRef o) const { return !equals(o); }
  operator std::vector<T>() const { return vec(); }

 private:
  const T* data_;
  size_t size_;
};

template <typename T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

using IntArrayRef = ArrayRef<int64_t>;
using IntList = ArrayRef<int64_t>;  // libtorch's older name

/// An optional ArrayRef that converts from nullopt, an ArrayRef, a vector or a braced list.
template <typename T>
class OptionalArrayRef {
 public:
  OptionalArrayRef() = default;
  OptionalArrayRef(std::nullopt_t) {}
  OptionalArrayRef(ArrayRef<T> a) : v_(a) {}
  OptionalArrayRef(const std::vector<T>& v) : v_(ArrayRef<T>(v)) {}
  OptionalArrayRef(const std::initializer_list<T>& il) : v_(ArrayRef<T>(il)) {}
  OptionalArrayRef(const std::optional<std::vector<T>>& v) { if (v) v_ = ArrayRef<T>(*v); }
  OptionalArrayRef(const T& one) : v_(ArrayRef<T>(one)) {}
  bool has_value() const { return v_.has_value(); }
  explicit operator bool() const { return has_value(); }
  ArrayRef<T> value() const { return v_.value(); }
  ArrayRef<T> operator*() const { return *v_; }
  const ArrayRef<T>* operator->() const { return &*v_; }
  ArrayRef<T> value_or(ArrayRef<T> d) const { return v_ ? *v_ : d; }
 private:
  std::optional<ArrayRef<T>> v_;
};
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

}  // namespace c10

namespace at {
using c10::ArrayRef;
using c10::IntArrayRef;
using c10::IntList;
using c10::OptionalIntArrayRef;
using c10::OptionalArrayRef;
}  // namespace at

EMBER_PUBLIC_END
