#pragma once
// TORCH_ARG: declares an option field with a chainable setter and a getter, as libtorch's option
// classes do: `LinearOptions(3, 4).bias(false)`, `opts.bias()`.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <utility>

#ifndef TORCH_ARG
#define TORCH_ARG(T, name)                                                  \
 public:                                                                    \
  inline auto name(const T& new_##name)->decltype(*this) {                  \
    this->name##_ = new_##name;                                             \
    return *this;                                                           \
  }                                                                         \
  inline auto name(T&& new_##name)->decltype(*this) {                       \
    this->name##_ = std::move(new_##name);                                  \
    return *this;                                                           \
  }                                                                         \
  inline const T& name() const noexcept { return this->name##_; }          \
  inline T& name() noexcept { return this->name##_; }                       \
                                                                            \
 private:                                                                   \
  T name##_
#endif

EMBER_PUBLIC_END
