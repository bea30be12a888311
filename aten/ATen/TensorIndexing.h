#pragma once
// libtorch's C++ indexing API:
//   using namespace torch::indexing;
//   t.index({Slice(1, None), 0, None, "...", idx_tensor});   t.index_put_({mask}, 0.0);
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>

namespace at::indexing {

constexpr int64_t INDEX_MAX = std::numeric_limits<int64_t>::max();
constexpr int64_t INDEX_MIN = std::numeric_limits<int64_t>::min();

struct EllipsisIndexType { EllipsisIndexType() = default; };
constexpr EllipsisIndexType Ellipsis;
constexpr std::nullopt_t None = std::nullopt;

/// A Python-style slice: Slice(), Slice(start), Slice(start, stop), Slice(start, stop, step).
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt) {
    step_ = step.value_or(1);
    EMBER_CHECK(step_ != 0, "[index] expected a non-zero slice step; got 0");
    start_ = start.value_or(step_ < 0 ? INDEX_MAX : 0);
    stop_ = stop.value_or(step_ < 0 ? INDEX_MIN : INDEX_MAX);
  }
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }
 private:
  int64_t start_, stop_, step_;
};

/// One element of an index list: None, Ellipsis ("..."), an integer, a bool, a Slice or a Tensor.
struct TensorIndex {
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };
  TensorIndex(std::nullopt_t) : kind(Kind::None) {}
  TensorIndex(EllipsisIndexType) : kind(Kind::Ellipsis) {}
  TensorIndex(const char* s) : kind(Kind::Ellipsis) {
    EMBER_CHECK(std::string_view(s) == "...", "[index] expected \"...\" as a string index; got \"", s, "\"");
  }
  TensorIndex(int64_t i) : kind(Kind::Integer), integer(i) {}
  TensorIndex(int i) : kind(Kind::Integer), integer(i) {}
  TensorIndex(bool b) : kind(Kind::Boolean), boolean(b) {}
  TensorIndex(Slice s) : kind(Kind::Slice), slice(s) {}
  TensorIndex(Tensor t) : kind(Kind::Tensor), tensor(std::move(t)) {}

  bool is_none() const { return kind == Kind::None; }
  bool is_ellipsis() const { return kind == Kind::Ellipsis; }
  bool is_integer() const { return kind == Kind::Integer; }
  bool is_boolean() const { return kind == Kind::Boolean; }
  bool is_slice() const { return kind == Kind::Slice; }
  bool is_tensor() const { return kind == Kind::Tensor; }

  Kind kind;
  int64_t integer = 0;
  bool boolean = false;
  Slice slice;
  Tensor tensor;
};

std::ostream& operator<<(std::ostream& os, const TensorIndex& i);

}  // namespace at::indexing

EMBER_PUBLIC_END
