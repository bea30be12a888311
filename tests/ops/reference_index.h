#pragma once
// Naive float64 references for the joining and indexing ops (ops.yaml `ref:`). Inputs are
// contiguous float64 CPU tensors (index tensors too: their values are whole numbers); every
// reference walks multi-indices with plain loops and never calls the op under test.
#include <ATen/ATen.h>
#include <algorithm>
#include <vector>

namespace ember_test::ref {
namespace detail {
using Shape = std::vector<int64_t>;

inline Shape unravel(int64_t lin, const Shape& shape) {
  Shape idx(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = lin % shape[d];
    lin /= shape[d];
  }
  return idx;
}
inline int64_t ravel(const Shape& idx, const Shape& shape) {
  int64_t lin = 0;
  for (size_t d = 0; d < shape.size(); ++d) lin = lin * shape[d] + idx[d];
  return lin;
}
inline int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (auto v : s) n *= v;
  return n;
}
inline at::Tensor make(const Shape& shape) { return at::empty(shape, at::kDouble); }
inline int64_t wrap(int64_t d, int64_t nd) { return d < 0 ? d + nd : d; }
inline Shape broadcast(Shape a, Shape b) {
  if (a.size() < b.size()) std::swap(a, b);
  Shape out = a;
  const size_t off = a.size() - b.size();
  for (size_t i = 0; i < b.size(); ++i) out[off + i] = a[off + i] == 1 ? b[i] : a[off + i];
  return out;
}
inline at::Tensor dbl(const at::Tensor& t) { return t.to(at::kDouble).contiguous(); }
}  // namespace detail

inline at::Tensor cat(const std::vector<at::Tensor>& tensors, int64_t dim) {
  using namespace detail;
  std::vector<at::Tensor> ts;
  for (auto& t : tensors)
    if (!(t.dim() == 1 && t.numel() == 0)) ts.push_back(dbl(t));
  if (ts.empty()) return make({0});
  dim = wrap(dim, ts[0].dim());
  Shape shape = ts[0].sizes().vec();
  shape[dim] = 0;
  for (auto& t : ts) shape[dim] += t.size(dim);
  at::Tensor out = make(shape);
  double* o = out.data_ptr<double>();
  int64_t off = 0;
  for (auto& t : ts) {
    Shape ts_shape = t.sizes().vec();
    const double* p = t.data_ptr<double>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      Shape idx = unravel(i, ts_shape);
      idx[dim] += off;
      o[ravel(idx, shape)] = p[i];
    }
    off += t.size(dim);
  }
  return out;
}

inline at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  using namespace detail;
  dim = wrap(dim, std::max<int64_t>(self.dim(), 1));
  if (self.dim() == 0) return self.clone();
  Shape in = self.sizes().vec(), shape = in;
  shape[dim] = index.numel();
  at::Tensor out = make(shape);
  const double* ip = index.data_ptr<double>();
  for (int64_t i = 0; i < out.numel(); ++i) {
    Shape idx = unravel(i, shape);
    idx[dim] = static_cast<int64_t>(ip[idx[dim]]);
    out.data_ptr<double>()[i] = self.data_ptr<double>()[ravel(idx, in)];
  }
  return out;
}

inline at::Tensor gather(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  using namespace detail;
  dim = wrap(dim, self.dim());
  Shape in = self.sizes().vec(), shape = index.sizes().vec();
  at::Tensor out = make(shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    Shape idx = unravel(i, shape);
    idx[dim] = static_cast<int64_t>(index.data_ptr<double>()[i]);
    out.data_ptr<double>()[i] = self.data_ptr<double>()[ravel(idx, in)];
  }
  return out;
}

inline at::Tensor scatter(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src, bool add) {
  using namespace detail;
  dim = wrap(dim, self.dim());
  Shape shape = self.sizes().vec(), ishape = index.sizes().vec(), sshape = src.sizes().vec();
  at::Tensor out = self.clone();
  double* o = out.data_ptr<double>();
  for (int64_t i = 0; i < index.numel(); ++i) {
    Shape idx = unravel(i, ishape);
    const double v = src.data_ptr<double>()[ravel(idx, sshape)];
    idx[dim] = static_cast<int64_t>(index.data_ptr<double>()[i]);
    double& d = o[ravel(idx, shape)];
    d = add ? d + v : v;
  }
  return out;
}

inline at::Tensor masked_fill(const at::Tensor& self, const at::Tensor& mask, const at::Scalar& value) {
  using namespace detail;
  Shape shape = broadcast(self.sizes().vec(), mask.sizes().vec());
  at::Tensor s = self.expand(shape).contiguous(), m = mask.expand(shape).contiguous();
  at::Tensor out = make(shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.data_ptr<double>()[i] = m.data_ptr<double>()[i] != 0 ? value.to<double>() : s.data_ptr<double>()[i];
  return out;
}

inline at::Tensor where(const at::Tensor& cond, const at::Tensor& self, const at::Tensor& other) {
  using namespace detail;
  Shape shape = broadcast(cond.sizes().vec(), broadcast(self.sizes().vec(), other.sizes().vec()));
  at::Tensor c = cond.expand(shape).contiguous(), a = self.expand(shape).contiguous(), b = other.expand(shape).contiguous();
  at::Tensor out = make(shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.data_ptr<double>()[i] = c.data_ptr<double>()[i] != 0 ? a.data_ptr<double>()[i] : b.data_ptr<double>()[i];
  return out;
}

inline at::Tensor one_hot(const at::Tensor& self, int64_t num_classes) {
  using namespace detail;
  Shape shape = self.sizes().vec();
  shape.push_back(num_classes);
  at::Tensor out = make(shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int64_t cls = static_cast<int64_t>(self.data_ptr<double>()[i / num_classes]);
    out.data_ptr<double>()[i] = cls == i % num_classes ? 1.0 : 0.0;
  }
  return out;
}

inline at::Tensor tri(const at::Tensor& self, int64_t k, bool lower) {
  using namespace detail;
  Shape shape = self.sizes().vec();
  const int64_t nd = self.dim();
  at::Tensor out = self.clone();
  for (int64_t i = 0; i < out.numel(); ++i) {
    Shape idx = unravel(i, shape);
    const int64_t r = idx[nd - 2], c = idx[nd - 1];
    const bool keep = lower ? c - r <= k : c - r >= k;
    if (!keep) out.data_ptr<double>()[i] = 0.0;
  }
  return out;
}

inline at::Tensor flip(const at::Tensor& self, const std::vector<int64_t>& dims) {
  using namespace detail;
  Shape shape = self.sizes().vec();
  at::Tensor out = make(shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    Shape idx = unravel(i, shape);
    for (int64_t d : dims) {
      const int64_t w = wrap(d, self.dim());
      idx[w] = shape[w] - 1 - idx[w];
    }
    out.data_ptr<double>()[i] = self.data_ptr<double>()[ravel(idx, shape)];
  }
  return out;
}

inline at::Tensor roll(const at::Tensor& self, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) {
  using namespace detail;
  Shape shape = self.sizes().vec();
  at::Tensor out = make(shape);
  const int64_t n = self.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (dims.empty()) {
      // Flattened roll: element i moves to (i + shift) mod n.
      out.data_ptr<double>()[((i + shifts[0]) % n + n) % n] = self.data_ptr<double>()[i];
      continue;
    }
    Shape idx = unravel(i, shape);
    for (size_t j = 0; j < dims.size(); ++j) {
      const int64_t w = wrap(dims[j], self.dim());
      idx[w] = ((idx[w] + shifts[j]) % shape[w] + shape[w]) % shape[w];
    }
    out.data_ptr<double>()[ravel(idx, shape)] = self.data_ptr<double>()[i];
  }
  return out;
}

inline at::Tensor repeat(const at::Tensor& self, const std::vector<int64_t>& repeats) {
  using namespace detail;
  const int64_t nr = static_cast<int64_t>(repeats.size()), nd = self.dim();
  Shape in(nr, 1), shape(nr);
  for (int64_t d = 0; d < nd; ++d) in[nr - nd + d] = self.size(d);
  for (int64_t d = 0; d < nr; ++d) shape[d] = in[d] * repeats[d];
  at::Tensor out = make(shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    Shape idx = unravel(i, shape);
    for (int64_t d = 0; d < nr; ++d) idx[d] %= in[d];
    out.data_ptr<double>()[i] = self.data_ptr<double>()[ravel(idx, in)];
  }
  return out;
}

inline at::Tensor constant_pad(const at::Tensor& self, const std::vector<int64_t>& pad, const at::Scalar& value) {
  using namespace detail;
  const int64_t nd = self.dim();
  Shape in = self.sizes().vec(), shape = in, lo(nd, 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = nd - 1 - static_cast<int64_t>(i);
    lo[d] = pad[2 * i];
    shape[d] = in[d] + pad[2 * i] + pad[2 * i + 1];
  }
  at::Tensor out = make(shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    Shape idx = unravel(i, shape);
    bool inside = true;
    for (int64_t d = 0; d < nd; ++d) {
      idx[d] -= lo[d];
      inside = inside && idx[d] >= 0 && idx[d] < in[d];
    }
    out.data_ptr<double>()[i] = inside ? self.data_ptr<double>()[ravel(idx, in)] : value.to<double>();
  }
  return out;
}

}  // namespace ember_test::ref
