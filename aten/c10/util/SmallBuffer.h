#pragma once
// A fixed-length scratch array that lives on the stack up to N elements and on the heap beyond:
// per-dimension counters in kernels use it, so no rank can overflow a fixed array.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <cstddef>
#include <memory>

namespace c10 {

/// `n` value-initialised elements of T; inline when n <= N.
template <typename T, size_t N>
class SmallBuffer {
 public:
  explicit SmallBuffer(size_t n) : data_(n <= N ? inline_ : (heap_ = std::make_unique<T[]>(n)).get()) {
    if (n <= N) for (size_t i = 0; i < n; ++i) inline_[i] = T();
  }
  SmallBuffer(const SmallBuffer&) = delete;
  SmallBuffer& operator=(const SmallBuffer&) = delete;
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  T inline_[N];
  std::unique_ptr<T[]> heap_;
  T* data_;
};

}  // namespace c10

EMBER_PUBLIC_END
