// libtorch's C++ indexing API (Tensor::index, Tensor::index_put_, operator[]): integers select,
// slices slice, None / bool insert a dim, "..." stands for the untouched dims, and tensor indices
// go to at::index / at::index_put_ on the view the other indices produced. Every step but the
// tensor one is a view, so `t.index({Slice(), 0}) = 5` writes into t.
#include <ATen/TensorIndexing.h>
#include <ATen/Utils.h>
#include <ostream>

namespace at {
namespace indexing {

std::ostream& operator<<(std::ostream& os, const TensorIndex& i) {
  switch (i.kind) {
    case TensorIndex::Kind::None: return os << "None";
    case TensorIndex::Kind::Ellipsis: return os << "...";
    case TensorIndex::Kind::Integer: return os << i.integer;
    case TensorIndex::Kind::Boolean: return os << (i.boolean ? "true" : "false");
    case TensorIndex::Kind::Slice: return os << i.slice.start() << ":" << i.slice.stop() << ":" << i.slice.step();
    case TensorIndex::Kind::Tensor: return os << i.tensor;
  }
  return os;
}

}  // namespace indexing

namespace {
using indexing::TensorIndex;

// How many dims of self an index consumes.
int64_t dims_consumed(const TensorIndex& i) {
  if (i.is_integer() || i.is_slice()) return 1;
  if (i.is_tensor()) {
    const ScalarType dt = i.tensor.scalar_type();
    return (dt == kBool || dt == kByte) ? i.tensor.dim() : 1;
  }
  return 0;
}

// Applies the basic indices as views and collects the tensor indices, each at the dim of the
// view it applies to. Returns the view; `tensors` stays empty when there is no tensor index.
Tensor apply_basic(const Tensor& self, ArrayRef<TensorIndex> indices, c10::List<std::optional<Tensor>>& tensors) {
  int64_t consumed = 0, ellipses = 0;
  for (const auto& i : indices) {
    consumed += dims_consumed(i);
    ellipses += i.is_ellipsis();
  }
  EMBER_CHECK(ellipses <= 1, "[index] expected at most one ellipsis ('...'); got ", ellipses);
  EMBER_CHECK_T(IndexError, consumed <= self.dim(), "[index] expected at most ", self.dim(),
                " indices (one per dim of the tensor); got ", consumed);
  Tensor result = self;
  int64_t dim = 0;  // the dim of `result` the next index applies to
  auto put_tensor = [&](const Tensor& t) {
    while (static_cast<int64_t>(tensors.size()) < dim) tensors.emplace_back(std::nullopt);
    tensors.emplace_back(t);
  };
  for (const auto& i : indices) {
    switch (i.kind) {
      case TensorIndex::Kind::Integer: {
        const int64_t size = result.size(dim);
        EMBER_CHECK_T(IndexError, i.integer >= -size && i.integer < size, "[index] expected an index in [",
                      -size, ", ", size, ") for dim ", dim, "; got ", i.integer);
        result = result.select(dim, i.integer);
        break;
      }
      case TensorIndex::Kind::Slice: {
        EMBER_CHECK(i.slice.step() > 0, "[index] expected a positive slice step; got ", i.slice.step());
        result = result.slice(dim, i.slice.start(), i.slice.stop(), i.slice.step());
        ++dim;
        break;
      }
      case TensorIndex::Kind::None:
        result = result.unsqueeze(dim);
        ++dim;
        break;
      case TensorIndex::Kind::Ellipsis:
        dim += self.dim() - consumed;
        break;
      case TensorIndex::Kind::Boolean:
        result = result.unsqueeze(dim);
        if (!i.boolean) result = result.slice(dim, 0, 0);
        ++dim;
        break;
      case TensorIndex::Kind::Tensor: {
        const Tensor& t = i.tensor;
        EMBER_CHECK(t.defined(), "[index] expected a defined tensor index");
        const ScalarType dt = t.scalar_type();
        if (t.dim() == 0 && (dt == kBool || dt == kByte)) {
          // A 0-dim mask acts like a bool index.
          result = result.unsqueeze(dim);
          if (t.item<int64_t>() == 0) result = result.slice(dim, 0, 0);
          ++dim;
        } else if (t.dim() == 0 && c10::isIntegralType(dt, false)) {
          result = result.select(dim, t.item<int64_t>());
        } else {
          put_tensor(t);
          dim += (dt == kBool || dt == kByte) ? t.dim() : 1;
        }
        break;
      }
    }
  }
  return result;
}
}  // namespace

Tensor Tensor::index(ArrayRef<indexing::TensorIndex> indices) const {
  c10::List<std::optional<Tensor>> tensors;
  Tensor view = apply_basic(*this, indices, tensors);
  if (tensors.empty()) return view;
  return at::index(view, tensors);
}

Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const {
  return index(ArrayRef<indexing::TensorIndex>(indices.begin(), indices.size()));
}

Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) {
  c10::List<std::optional<Tensor>> tensors;
  Tensor view = apply_basic(*this, indices, tensors);
  if (tensors.empty()) {
    view.copy_(rhs);
  } else if (tensors.size() == 1 && tensors[0].has_value() && tensors[0]->scalar_type() == kBool && rhs.dim() == 0 &&
             rhs.device() == view.device() && tensors[0]->sizes() == view.sizes()) {
    // x[mask] = 0-dim value is a masked fill, which converts the value (as libtorch does).
    view.masked_fill_(*tensors[0], rhs);
  } else {
    at::index_put_(view, tensors, rhs);
  }
  return *this;
}

Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) {
  c10::List<std::optional<Tensor>> tensors;
  Tensor view = apply_basic(*this, indices, tensors);
  if (tensors.empty()) {
    view.fill_(v);
  } else {
    Tensor value = at::empty({}, options());
    value.fill_(v);
    at::index_put_(view, tensors, value);
  }
  return *this;
}

Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& rhs) {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices.begin(), indices.size()), rhs);
}

Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& v) {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices.begin(), indices.size()), v);
}

Tensor Tensor::operator[](int64_t i) const { return select(0, i); }

Tensor Tensor::operator[](const Tensor& i) const { return index({indexing::TensorIndex(i)}); }

}  // namespace at
