#pragma once
// TensorAccessor: unchecked multi-dimensional indexing of a CPU tensor (`t.accessor<float, 2>()`).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>

namespace at {
template <typename T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides) : data_(data), sizes_(sizes), strides_(strides) {}
  TensorAccessor<T, N - 1> operator[](int64_t i) const { return {data_ + i * strides_[0], sizes_ + 1, strides_ + 1}; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  T* data() const { return data_; }
 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
template <typename T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides) : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const { return data_[i * strides_[0]]; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  T* data() const { return data_; }
 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

template <typename T, size_t N>
TensorAccessor<T, N> Tensor::accessor() const& {
  EMBER_CHECK(dim() == static_cast<int64_t>(N), "[accessor] expected a ", N, "-D tensor; got ", dim(), "-D");
  EMBER_CHECK(is_cpu(), "[accessor] expected a CPU tensor; got one on ", device());
  return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
}
}  // namespace at

EMBER_PUBLIC_END
