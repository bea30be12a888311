#pragma once
// Errors: user mistakes throw c10::Error (what libtorch users catch); library bugs use
// EMBER_INTERNAL_ASSERT. Never abort(). See ../shared/STYLE.md §7.
//
//   EMBER_CHECK(a.dim() == 2, "[mm] self must be a matrix; got ", a.dim(), "-D tensor");
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <cassert>  // libtorch programs call assert() with only torch/torch.h included
#include <exception>
#include <sstream>
#include <string>

namespace c10 {

/// The one exception type of Ember (and of libtorch): `what()` is the full message.
class Error : public std::exception {
 public:
  explicit Error(std::string msg) : msg_(std::move(msg)) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  /// The message without any context (libtorch API).
  const std::string& msg() const { return msg_; }
  /// libtorch's what() may append a C++ backtrace and this leaves it out; Ember's messages never
  /// carry one, so both give the message.
  const char* what_without_backtrace() const noexcept { return msg_.c_str(); }
 private:
  std::string msg_;
};

/// Thrown for an index out of range (libtorch's IndexError derives from Error).
class IndexError : public Error { using Error::Error; };
/// Thrown for a bad value (libtorch's ValueError).
class ValueError : public Error { using Error::Error; };
/// Thrown for an unsupported dtype (libtorch's TypeError).
class TypeError : public Error { using Error::Error; };
/// Thrown when an operator has no kernel for a backend.
class NotImplementedError : public Error { using Error::Error; };
/// Thrown when a device allocator cannot satisfy a request (libtorch's OutOfMemoryError).
class OutOfMemoryError : public Error { using Error::Error; };

namespace detail {
inline void str_into(std::ostringstream&) {}
template <typename T, typename... Rest>
inline void str_into(std::ostringstream& ss, const T& v, const Rest&... rest) {
  ss << v;
  str_into(ss, rest...);
}
}  // namespace detail

/// Concatenates its arguments with operator<< (libtorch's c10::str).
template <typename... Args>
inline std::string str(const Args&... args) {
  std::ostringstream ss;
  detail::str_into(ss, args...);
  return ss.str();
}

[[noreturn]] void throw_internal_assert(const char* cond, const char* file, int line, const std::string& msg);

}  // namespace c10

#define EMBER_LIKELY(x) __builtin_expect(!!(x), 1)
#define EMBER_UNLIKELY(x) __builtin_expect(!!(x), 0)

/// Throws c10::Error with the concatenated message when `cond` is false.
#define EMBER_CHECK(cond, ...) \
  do { if (EMBER_UNLIKELY(!(cond))) throw ::c10::Error(::c10::str(__VA_ARGS__)); } while (0)
/// Like EMBER_CHECK but throws a specific subclass of c10::Error.
#define EMBER_CHECK_T(type, cond, ...) \
  do { if (EMBER_UNLIKELY(!(cond))) throw ::c10::type(::c10::str(__VA_ARGS__)); } while (0)
/// A condition that only a bug in Ember can break.
#define EMBER_INTERNAL_ASSERT(cond, ...) \
  do { if (EMBER_UNLIKELY(!(cond))) ::c10::throw_internal_assert(#cond, __FILE__, __LINE__, ::c10::str(__VA_ARGS__)); } while (0)

// libtorch spellings, so code written against libtorch compiles unchanged.
#define TORCH_CHECK(cond, ...) EMBER_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) EMBER_CHECK_T(IndexError, cond, __VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) EMBER_CHECK_T(ValueError, cond, __VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) EMBER_CHECK_T(TypeError, cond, __VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) EMBER_INTERNAL_ASSERT(cond, __VA_ARGS__)
#define AT_ERROR(...) throw ::c10::Error(::c10::str(__VA_ARGS__))
#define AT_ASSERT(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#define AT_ASSERTM(cond, ...) TORCH_INTERNAL_ASSERT(cond, __VA_ARGS__)

namespace at {
using c10::str;  // as in libtorch, where at:: (and so torch::) sees all of c10::
}  // namespace at

EMBER_PUBLIC_END
