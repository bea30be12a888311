// Helpers for derivatives.yaml formulas. Every helper is written with at:: ops, so a backward
// that uses it can itself be differentiated (double backward).
#include <torch/csrc/autograd/derivative_helpers.h>
#include <ATen/core/Dispatcher.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/cpu/BatchNorm.h>
#include <ATen/Utils.h>
#include <algorithm>
#include <cmath>
#include <limits>

namespace torch::autograd {

void mark_view(const at::Tensor& view, const at::Tensor& base) {
  if (!view.defined() || !view.is_floating_point()) return;
  AutogradMeta* m = impl::materialize_autograd_meta(view);
  AutogradMeta* bm = impl::get_autograd_meta(base);
  const bool base_is_view = bm && bm->is_view_ && bm->base_.defined();
  m->is_view_ = true;
  m->base_ = base_is_view ? bm->base_ : base;
  // A view of a view made under no_grad stays "made under no_grad".
  m->view_made_without_grad_ = !at::GradMode::is_enabled() || (base_is_view && bm->view_made_without_grad_);
  m->view_version_ = view._version();
}
namespace {
// Views made outside the Autograd row reach mark_view through the core's hook.
struct InstallViewHook {
  InstallViewHook() {
    ember::dispatch::view_hook = [](const at::Tensor& view, const at::Tensor& base) { mark_view(view, base); };
  }
} install_view_hook;
}  // namespace

void mark_view(const std::vector<at::Tensor>& views, const at::Tensor& base) {
  for (const auto& v : views) mark_view(v, base);
}

void check_inplace_view(const at::Tensor& t, const char* op) {
  AutogradMeta* m = impl::get_autograd_meta(t);
  if (!m || !m->is_view_ || !m->base_.defined()) return;
  AutogradMeta* bm = impl::get_autograd_meta(m->base_);
  EMBER_CHECK(!(bm && bm->requires_grad_ && !bm->grad_fn_), "[", op,
              "] expected an in-place target that is not a view of a leaf requiring grad; got such a view (clone() "
              "it, or write under no_grad)");
}

bool is_autograd_view(const at::Tensor& t) {
  AutogradMeta* m = impl::get_autograd_meta(t);
  return m && m->is_view_ && m->base_.defined();
}

}  // namespace torch::autograd

namespace torch::autograd::formulas {

at::Tensor unsqueeze_reduced(const at::Tensor& grad, int64_t ndim, at::OptionalIntArrayRef dims, bool keepdim) {
  if (keepdim || ndim == 0) return grad;
  std::vector<bool> reduced(ndim, false);
  if (!dims || dims->empty()) {
    reduced.assign(ndim, true);
  } else {
    for (int64_t d : *dims) reduced[at::maybe_wrap_dim(d, ndim, "sum")] = true;
  }
  at::Tensor g = grad;
  for (int64_t d = 0; d < ndim; ++d)
    if (reduced[d]) g = g.unsqueeze(d);
  return g;
}

at::Tensor sum_backward(const at::Tensor& grad, at::IntArrayRef sizes, at::OptionalIntArrayRef dims, bool keepdim) {
  return unsqueeze_reduced(grad, static_cast<int64_t>(sizes.size()), dims, keepdim).expand(sizes);
}


namespace {

at::TensorOptions long_options(const at::Tensor& like) {
  return at::TensorOptions().dtype(at::kLong).device(like.device());
}

int64_t numel_of(at::IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Zeros of `sizes` with grad added at positions idx1d[k] along `dim` (grad.size(dim) == idx1d.numel()).
at::Tensor scatter_into(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, const at::Tensor& idx1d) {
  std::vector<int64_t> shape(grad.dim(), 1);
  shape[dim] = idx1d.numel();
  at::Tensor idx = idx1d.reshape(shape).expand(grad.sizes()).contiguous();
  return at::zeros(sizes, grad.options()).scatter_add(dim, idx, grad);
}

at::Tensor reverse_cumsum(const at::Tensor& t, int64_t dim) {
  return t.flip({dim}).cumsum(dim).flip({dim});
}

// Product of all elements but the one at each position along `dim` (exact with zeros).
at::Tensor prod_of_others(const at::Tensor& x, int64_t dim) {
  const int64_t n = x.size(dim);
  if (n == 0) return at::zeros_like(x);
  auto exclusive_cumprod = [&](const at::Tensor& t) {
    at::Tensor shifted = at::cat({at::ones_like(t.narrow(dim, 0, 1)), t.narrow(dim, 0, n - 1)}, dim);
    return shifted.cumprod(dim);
  };
  at::Tensor left = exclusive_cumprod(x);
  at::Tensor right = exclusive_cumprod(x.flip({dim})).flip({dim});
  return left * right;
}

// A meta tensor has no values: the zero-free formula is taken, whose result has the same shape
// (and the layout the CPU gives for the usual, zero-free input).
bool has_zero(const at::Tensor& t) { return !t.is_meta() && (t == 0).any().item<bool>(); }

// Flat storage positions of a strided geometry, shaped like `sizes`.
at::Tensor storage_positions(at::IntArrayRef sizes, at::IntArrayRef strides, int64_t offset, const at::Tensor& like) {
  at::Tensor idx = at::full({}, offset, long_options(like));
  for (size_t d = 0; d < sizes.size(); ++d)
    idx = idx.unsqueeze(-1) + at::arange(sizes[d], long_options(like)) * strides[d];
  return idx;
}

c10::List<std::optional<at::Tensor>> to_index_list(const std::vector<at::Tensor>& indices) {
  c10::List<std::optional<at::Tensor>> l;
  for (const auto& t : indices) l.push_back(t.defined() ? std::optional<at::Tensor>(t) : std::nullopt);
  return l;
}

// Zero-pads `t` at the end of each dim up to `sizes`.
at::Tensor pad_to(const at::Tensor& t, at::IntArrayRef sizes) {
  at::Tensor r = t;
  for (int64_t d = 0; d < r.dim(); ++d) {
    if (r.size(d) == sizes[d]) continue;
    std::vector<int64_t> zs = r.sizes().vec();
    zs[d] = sizes[d] - r.size(d);
    r = at::cat({r, at::zeros(zs, r.options())}, d);
  }
  return r;
}

}  // namespace

at::Tensor select_backward_dim(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, const at::Tensor& indices,
                               bool keepdim) {
  if (sizes.empty()) return grad.reshape(sizes);
  dim = at::maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  at::Tensor g = keepdim ? grad : grad.unsqueeze(dim);
  at::Tensor idx = keepdim ? indices : indices.unsqueeze(dim);
  return at::zeros(sizes, grad.options()).scatter_add(dim, idx, g);
}

at::Tensor extremum_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result) {
  const bool nan_result = !result.is_meta() && result.isnan().item<bool>();  // (meta: no values, no NaN)
  at::Tensor mask = (nan_result ? self.isnan() : self == result).to(grad.scalar_type());
  at::Tensor count = mask.sum();
  return grad * mask / count;
}

at::Tensor evenly_distribute_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result,
                                      at::OptionalIntArrayRef dims, bool keepdim) {
  const int64_t nd = self.dim();
  at::Tensor g = unsqueeze_reduced(grad, nd, dims, keepdim);
  at::Tensor r = unsqueeze_reduced(result, nd, dims, keepdim);
  at::Tensor mask = (self == r).to(grad.scalar_type());
  std::vector<int64_t> all;
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < nd; ++d) all.push_back(d);
  } else {
    all = dims->vec();
  }
  at::Tensor count = nd == 0 ? mask : mask.sum(all, /*keepdim=*/true);
  return g * mask / count;
}

at::Tensor var_backward(const at::Tensor& grad, const at::Tensor& self, at::OptionalIntArrayRef dims,
                        const std::optional<at::Scalar>& correction, bool keepdim) {
  const int64_t nd = self.dim();
  int64_t n = 1;
  if (!dims || dims->empty()) {
    n = self.numel();
  } else {
    for (int64_t d : *dims) n *= self.size(at::maybe_wrap_dim(d, nd));
  }
  const double c = correction ? correction->toDouble() : 1.0;
  at::Tensor g = unsqueeze_reduced(grad, nd, dims, keepdim);
  at::Tensor mean = (!dims || dims->empty()) ? self.mean() : self.mean(dims, /*keepdim=*/true);
  return g * (self - mean) * (2.0 / (static_cast<double>(n) - c));
}

at::Tensor std_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result,
                        at::OptionalIntArrayRef dims, const std::optional<at::Scalar>& correction, bool keepdim) {
  // d std = d var / (2 std). A slice of equal values has std 0, where the square root has no
  // derivative: its gradient is taken as 0 (libtorch's choice), not the 0 * inf = NaN of the chain rule.
  at::Tensor g = (grad / (result * 2)).masked_fill(result == 0, at::Scalar(0));
  return var_backward(g, self, dims, correction, keepdim);
}

at::Tensor norm_backward(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Scalar>& p,
                         const at::Tensor& norm, at::OptionalIntArrayRef dims, bool keepdim) {
  const double pv = p ? p->toDouble() : 2.0;
  const int64_t nd = self.dim();
  at::Tensor g = unsqueeze_reduced(grad, nd, dims, keepdim);
  if (pv == 0.0) return at::zeros_like(self);
  if (pv == 1.0) return g * at::sign(self);
  at::Tensor n = unsqueeze_reduced(norm, nd, dims, keepdim);
  if (std::isinf(pv)) {
    // max / min of |x|: split evenly among the elements that attain it.
    at::Tensor mask = (self.abs() == n).to(grad.scalar_type());
    std::vector<int64_t> all;
    if (!dims || dims->empty()) {
      for (int64_t d = 0; d < nd; ++d) all.push_back(d);
    } else {
      all = dims->vec();
    }
    at::Tensor count = nd == 0 ? mask : mask.sum(all, true);
    return g * at::sign(self) * mask / count;
  }
  // A zero norm means the whole slice is zero: its gradient is zero (not nan).
  at::Tensor n_safe = at::where(n == 0, at::ones_like(n), n);
  if (pv == 2.0) return self * (g / n_safe);
  at::Tensor r = at::sign(self) * self.abs().pow(pv - 1) * (g / n_safe.pow(pv - 1));
  if (pv < 1.0) r = r.masked_fill(self == 0, at::Scalar(0));  // |x|^(p-1) is infinite at 0
  return r;
}

at::Tensor logsumexp_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result,
                              at::IntArrayRef dims, bool keepdim) {
  const int64_t nd = self.dim();
  at::Tensor g = unsqueeze_reduced(grad, nd, dims, keepdim);
  at::Tensor r = unsqueeze_reduced(result, nd, dims, keepdim);
  return g * at::exp(self - r);
}

at::Tensor cumsum_backward(const at::Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  return reverse_cumsum(grad, at::maybe_wrap_dim(dim, grad.dim()));
}

at::Tensor cumprod_backward(const at::Tensor& grad, const at::Tensor& self, int64_t dim, const at::Tensor& result) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  dim = at::maybe_wrap_dim(dim, self.dim());
  if (!has_zero(self)) return reverse_cumsum(grad * result, dim) / self;
  // Along dim, let z be the first zero of a line. Input i < z: result_k (i <= k < z) is divisible
  // by x_i, so the no-zero formula holds over k < z. Input z: d result_k / d x_z is
  // prod_{j<z} x_j * prod_{z<j<=k} x_j for k >= z. Inputs past z: every result they reach holds
  // x_z = 0 as a factor, so 0. (Special values follow from these products as in libtorch.)
  const int64_t n = self.size(dim);
  at::Tensor x = self.transpose(dim, -1);
  at::Tensor g = grad.transpose(dim, -1);
  at::Tensor r = result.transpose(dim, -1);
  at::Tensor is_zero = x == 0;
  at::Tensor zeros_seen = is_zero.to(at::kLong).cumsum(-1);
  at::Tensor before = zeros_seen == 0;
  at::Tensor first = at::logical_and(is_zero, zeros_seen == 1);
  at::Tensor none = at::zeros_like(g);
  at::Tensor g_before = reverse_cumsum(at::where(before, g * r, none), -1) / x;
  // prod_{j<i} x_j, and prod_{z<j<=k} x_j (ones stand in for x_j, j <= z).
  at::Tensor exclusive = at::cat({at::ones_like(x.narrow(-1, 0, 1)), x.narrow(-1, 0, n - 1)}, -1).cumprod(-1);
  at::Tensor after = at::where(at::logical_or(before, first), at::ones_like(x), x).cumprod(-1);
  at::Tensor s = at::where(before, none, g * after).sum(-1, /*keepdim=*/true);
  at::Tensor out = at::where(before, g_before, at::where(first, exclusive * s, none));
  return out.transpose(dim, -1);
}

at::Tensor prod_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result, std::optional<int64_t> dim,
                         bool keepdim) {
  if (self.dim() == 0) return grad;
  if (!dim) {
    if (!has_zero(self)) return grad * result / self;
    return (grad * prod_of_others(self.reshape({-1}), 0)).reshape(self.sizes());
  }
  const int64_t d = at::maybe_wrap_dim(*dim, self.dim());
  at::Tensor g = keepdim ? grad : grad.unsqueeze(d);
  if (!has_zero(self)) {
    at::Tensor r = keepdim ? result : result.unsqueeze(d);
    return g * r / self;
  }
  return g * prod_of_others(self, d);
}

std::vector<int64_t> sizes_along(const std::vector<at::Tensor>& ts, int64_t dim) {
  int64_t nd = -1;
  for (const auto& t : ts)
    if (!(t.dim() == 1 && t.numel() == 0)) { nd = t.dim(); break; }
  std::vector<int64_t> out;
  for (const auto& t : ts) {
    if (t.dim() == 1 && t.numel() == 0 && nd != 1) out.push_back(-1);
    else out.push_back(t.size(at::maybe_wrap_dim(dim, t.dim())));
  }
  return out;
}

std::vector<at::Tensor> cat_backward(const at::Tensor& grad, const std::vector<int64_t>& sizes_along_dim, int64_t dim) {
  dim = at::maybe_wrap_dim(dim, grad.dim());
  std::vector<at::Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes_along_dim) {
    if (s < 0) {
      out.push_back(at::zeros({0}, grad.options()));
      continue;
    }
    out.push_back(grad.narrow(dim, start, s));
    start += s;
  }
  return out;
}

at::Tensor as_strided_backward(const at::Tensor& grad, at::IntArrayRef base_sizes, at::IntArrayRef base_strides,
                               int64_t base_offset, at::IntArrayRef sizes, at::IntArrayRef strides,
                               std::optional<int64_t> storage_offset) {
  // Accumulate the gradient in a flat buffer indexed by storage position, then read it back at
  // the input's positions (assumes the input does not overlap itself).
  at::Tensor in_pos = storage_positions(base_sizes, base_strides, base_offset, grad);
  at::Tensor out_pos = storage_positions(sizes, strides, storage_offset.value_or(base_offset), grad);
  if (in_pos.numel() == 0) return at::zeros(base_sizes, grad.options());
  // The lowest and highest positions, from the geometries (no device read; meta tensors too).
  auto span = [](at::IntArrayRef sz, at::IntArrayRef st, int64_t offset) {
    int64_t lo = offset, hi = offset;
    for (size_t d = 0; d < sz.size(); ++d) (st[d] < 0 ? lo : hi) += (sz[d] - 1) * st[d];
    return std::make_pair(lo, hi);
  };
  auto [lo, hi] = span(base_sizes, base_strides, base_offset);
  if (out_pos.numel() > 0) {
    const auto [olo, ohi] = span(sizes, strides, storage_offset.value_or(base_offset));
    lo = std::min(lo, olo);
    hi = std::max(hi, ohi);
  }
  at::Tensor buf = at::zeros({hi - lo + 1}, grad.options())
                       .scatter_add(0, (out_pos - lo).reshape({-1}), grad.reshape({-1}));
  return buf.index_select(0, (in_pos - lo).reshape({-1})).reshape(base_sizes);
}

at::Tensor unfold_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, int64_t size, int64_t step) {
  if (sizes.empty()) return grad.sum();
  const int64_t nd = static_cast<int64_t>(sizes.size());
  dim = at::maybe_wrap_dim(dim, nd);
  const int64_t n = grad.size(dim);
  // result[..., i, ..., j] = self[..., i * step + j, ...]
  std::vector<int64_t> perm;
  for (int64_t d = 0; d <= dim; ++d) perm.push_back(d);
  perm.push_back(nd);
  for (int64_t d = dim + 1; d < nd; ++d) perm.push_back(d);
  std::vector<int64_t> merged = sizes.vec();
  merged[dim] = n * size;
  at::Tensor g = grad.permute(perm).reshape(merged);
  at::Tensor idx = (at::arange(n, long_options(grad)).unsqueeze(1) * step + at::arange(size, long_options(grad)).unsqueeze(0));
  return scatter_into(g, sizes, dim, idx.reshape({-1}));
}

at::Tensor diagonal_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  dim1 = at::maybe_wrap_dim(dim1, nd);
  dim2 = at::maybe_wrap_dim(dim2, nd);
  const int64_t n1 = sizes[dim1], n2 = sizes[dim2], len = grad.size(-1);
  const int64_t row0 = offset >= 0 ? 0 : -offset, col0 = offset >= 0 ? offset : 0;
  std::vector<int64_t> order, flat_shape;
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim1 && d != dim2) {
      order.push_back(d);
      flat_shape.push_back(sizes[d]);
    }
  flat_shape.push_back(n1 * n2);
  at::Tensor k = at::arange(len, long_options(grad));
  at::Tensor flat = (k + row0) * n2 + k + col0;
  at::Tensor z = scatter_into(grad, flat_shape, static_cast<int64_t>(flat_shape.size()) - 1, flat);
  std::vector<int64_t> square(flat_shape.begin(), flat_shape.end() - 1);
  square.push_back(n1);
  square.push_back(n2);
  z = z.reshape(square);
  order.push_back(dim1);
  order.push_back(dim2);
  std::vector<int64_t> inv(nd);
  for (int64_t i = 0; i < nd; ++i) inv[order[i]] = i;
  return z.permute(inv);
}

at::Tensor slice_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  dim = at::maybe_wrap_dim(dim, nd);
  const int64_t len = sizes[dim];
  (void)end;  // the gradient's length along dim already says how many positions were taken
  int64_t s = start.value_or(0);
  if (s < 0) s += len;
  s = std::clamp<int64_t>(s, 0, len);
  at::Tensor idx = at::arange(grad.size(dim), long_options(grad)) * step + s;
  return scatter_into(grad, sizes, dim, idx);
}

at::Tensor select_int_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, int64_t index) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  dim = at::maybe_wrap_dim(dim, nd);
  if (index < 0) index += sizes[dim];
  at::Tensor idx = at::full({1}, index, long_options(grad));
  return scatter_into(grad.unsqueeze(dim), sizes, dim, idx);
}

at::Tensor permute_backward(const at::Tensor& grad, at::IntArrayRef dims) {
  const int64_t nd = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inv(nd);
  for (int64_t i = 0; i < nd; ++i) inv[at::maybe_wrap_dim(dims[i], nd)] = i;
  return grad.permute(inv);
}

at::Tensor softmax_backward(const at::Tensor& grad, const at::Tensor& output, int64_t dim) {
  if (output.dim() == 0) return grad * 0;
  return output * (grad - (grad * output).sum(dim, /*keepdim=*/true));
}

at::Tensor log_softmax_backward(const at::Tensor& grad, const at::Tensor& output, int64_t dim) {
  if (output.dim() == 0) return grad * 0;
  return grad - at::exp(output) * grad.sum(dim, /*keepdim=*/true);
}

at::Tensor gather_backward_dim(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, const at::Tensor& indices) {
  if (sizes.empty()) return grad.reshape(sizes);
  dim = at::maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  return at::zeros(sizes, grad.options()).scatter_add(dim, indices, grad);
}

at::Tensor index_select_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, const at::Tensor& index) {
  if (sizes.empty()) return grad.sum();
  dim = at::maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  return scatter_into(grad, sizes, dim, index.reshape({-1}));
}

at::Tensor index_backward(const at::Tensor& grad, at::IntArrayRef sizes, at::ScalarType dtype,
                          const c10::List<std::optional<at::Tensor>>& indices) {
  return at::zeros(sizes, grad.options().dtype(dtype)).index_put(indices, grad, /*accumulate=*/true);
}

at::Tensor index_backward(const at::Tensor& grad, at::IntArrayRef sizes, at::ScalarType dtype,
                          const std::vector<at::Tensor>& indices) {
  return index_backward(grad, sizes, dtype, to_index_list(indices));
}

at::Tensor index_put_self_backward(const at::Tensor& grad, const std::vector<at::Tensor>& indices, bool accumulate) {
  if (accumulate) return grad;
  return grad.index_put(to_index_list(indices), at::zeros({}, grad.options()), /*accumulate=*/false);
}

at::Tensor index_put_values_backward(const at::Tensor& grad, const std::vector<at::Tensor>& indices) {
  return grad.index(to_index_list(indices));
}

at::Tensor masked_select_backward(const at::Tensor& grad, at::IntArrayRef self_sizes, const at::Tensor& mask) {
  std::vector<int64_t> shape = ember::broadcast_shapes("masked_select", self_sizes, mask.sizes());
  at::Tensor pos = at::arange(numel_of(shape), long_options(grad)).reshape(shape).masked_select(mask);
  return at::zeros({numel_of(shape)}, grad.options()).scatter_add(0, pos, grad.reshape({-1})).reshape(shape);
}

at::Tensor gather_to_shape(const at::Tensor& grad, int64_t dim, const at::Tensor& index, at::IntArrayRef sizes) {
  return pad_to(grad.gather(dim, index), sizes);
}

at::Tensor scatter_src_backward(const at::Tensor& grad, int64_t dim, const at::Tensor& index, at::IntArrayRef src_sizes) {
  // Replay the scatter with each source element's own position: a source element survived iff
  // its position is what ends up at its destination.
  at::Tensor pos = at::arange(index.numel(), long_options(grad)).reshape(index.sizes());
  at::Tensor winner = at::zeros(grad.sizes(), long_options(grad)).scatter(dim, index, pos).gather(dim, index) == pos;
  at::Tensor g = grad.gather(dim, index) * winner.to(grad.scalar_type());
  return pad_to(g, src_sizes);
}

at::Tensor pow_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& exponent) {
  if (exponent.toDouble() == 0.0) return at::zeros_like(grad);
  const at::Scalar em1 = exponent.isIntegral(false) ? at::Scalar(exponent.toLong() - 1)
                                                     : at::Scalar(exponent.toDouble() - 1.0);
  return grad * exponent * self.pow(em1);
}

at::Tensor pow_backward_self(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent) {
  // d/dx x^e = e * x^(e-1); zero where e == 0 (x^0 is constant, even at x = 0).
  at::Tensor r = grad * exponent * self.pow(exponent - 1);
  return r.masked_fill(exponent == 0, at::Scalar(0));
}

at::Tensor pow_backward_exponent(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent,
                                 const at::Tensor& result) {
  // d/de x^e = x^e * log(x); at x = 0 with e >= 0 the limit is 0 (log replaced by log(1)).
  at::Tensor at_zero = at::logical_and(self == 0, exponent >= 0);
  at::Tensor safe = at::where(at_zero, at::ones_like(self), self);
  return grad * result * at::log(safe);
}

at::Tensor min_max_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& other, bool is_max) {
  // self gets the gradient unless it lost outright: a NaN on either side loses no comparison, so
  // both inputs get it then (as in libtorch); ties share it.
  at::Tensor kept = at::logical_not(is_max ? self < other : self > other).to(grad.scalar_type());
  at::Tensor ties = (self == other).to(grad.scalar_type());
  return grad * (kept - ties * 0.5);
}

at::Tensor reciprocal_or_zero(const at::Tensor& d) {
  return at::where(d == 0, at::zeros_like(d), at::reciprocal(d));
}

at::Tensor clamp_backward(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Scalar>& min,
                          const std::optional<at::Scalar>& max) {
  if (!min && !max) return grad;
  // Open interval, as libtorch 2.15: an input on a bound (or NaN) gets no gradient.
  at::Tensor pass;
  if (min) pass = self > *min;
  if (max) pass = pass.defined() ? at::logical_and(pass, self < *max) : self < *max;
  return grad * pass.to(grad.scalar_type());
}

at::Tensor silu_backward(const at::Tensor& grad, const at::Tensor& self) {
  at::Tensor s = at::sigmoid(self);
  return grad * s * (1 + self * (1 - s));
}

at::Tensor gelu_erf_backward(const at::Tensor& grad, const at::Tensor& self) {
  // d/dx x * Phi(x) = Phi(x) + x * phi(x)
  const double inv_sqrt2 = 0.7071067811865476, inv_sqrt_2pi = 0.3989422804014327;
  at::Tensor cdf = (at::erf(self * inv_sqrt2) + 1) * 0.5;
  at::Tensor pdf = at::exp(self * self * -0.5) * inv_sqrt_2pi;
  return grad * (cdf + self * pdf);
}

at::Tensor gelu_tanh_backward(const at::Tensor& grad, const at::Tensor& self) {
  // 0.5 x (1 + tanh(u)), u = k (x + c x^3): derivative 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)
  const double k = 0.7978845608028654, c = 0.044715;
  at::Tensor x2 = self * self;
  at::Tensor t = at::tanh((self + self * x2 * c) * k);
  at::Tensor du = (x2 * (3 * c) + 1) * k;
  return grad * ((t + 1) * 0.5 + self * (1 - t * t) * du * 0.5);
}


std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_backward(const at::Tensor& grad, const at::Tensor& input,
                                                                   const at::Tensor& weight, const at::Tensor& save_mean,
                                                                   const at::Tensor& save_invstd, double eps,
                                                                   std::array<bool, 3> grad_input_mask) {
  if (!grad.defined()) return {};
  // See Note [Batch norm passes on the CPU] (aten/native/Normalization.cpp): two passes per channel.
  if (!at::GradMode::is_enabled() && at::native::cpu::batch_norm_supported(input) && grad.is_cpu() &&
      grad.scalar_type() == input.scalar_type() && grad.sizes() == input.sizes() && save_mean.defined() &&
      save_mean.scalar_type() == input.scalar_type() && save_invstd.scalar_type() == input.scalar_type() &&
      (!weight.defined() || (weight.is_cpu() && weight.scalar_type() == input.scalar_type())))
    return at::native::cpu::batch_norm_backward(grad, input, weight, save_mean, save_invstd, grad_input_mask);
  const int64_t dim = input.dim(), channels = input.size(1);
  std::vector<int64_t> dims{0};  // every dim but the channels
  for (int64_t d = 2; d < dim; ++d) dims.push_back(d);
  std::vector<int64_t> shape(static_cast<size_t>(dim), 1);  // broadcasts a per-channel vector
  shape[1] = channels;
  at::Tensor mean = save_mean, invstd = save_invstd;
  if (at::GradMode::is_enabled()) {
    mean = input.mean(dims);
    invstd = at::var(input, dims, /*unbiased=*/false).add(eps).rsqrt();
  }
  // With c = x - mean, xhat = c * invstd, scale = invstd * weight and n values per channel:
  //   d/dbias = sum(grad), d/dweight = sum(grad * xhat) = invstd * sum(grad * c),
  //   d/dx = scale * (grad - sum(grad) / n - c * invstd^2 * sum(grad * c) / n),
  // evaluated as grad * k1 + c * k2 + k3 with per-channel k: few passes over the full tensors.
  const at::Tensor centered = input - mean.reshape(shape);
  const at::Tensor grad_bias = grad.sum(dims);
  const at::Tensor dot = (grad * centered).sum(dims);
  const at::Tensor grad_weight = dot * invstd;
  at::Tensor grad_input;
  if (grad_input_mask[0]) {
    const double n = static_cast<double>(input.numel() / std::max<int64_t>(channels, 1));
    const at::Tensor scale = weight.defined() ? invstd * weight : invstd;
    const at::Tensor k_shift = (scale * grad_bias * (-1.0 / n)).reshape(shape);
    const at::Tensor k_centered = (scale * invstd * invstd * dot * (-1.0 / n)).reshape(shape);
    grad_input = at::addcmul(at::addcmul(k_shift, grad, scale.reshape(shape)), centered, k_centered);
  }
  return {grad_input, grad_input_mask[1] && weight.defined() ? grad_weight : at::Tensor(),
          grad_input_mask[2] ? grad_bias : at::Tensor()};
}

at::Tensor logit_backward(const at::Tensor& grad, const at::Tensor& self, std::optional<double> eps) {
  // x (1 - x) with a zero x as +0 (libtorch's sign of the infinite gradient at -0.0).
  const at::Tensor g = grad / at::where(at::eq(self, 0), at::Scalar(0.0), self * (1 - self));
  // Without eps, inputs outside [0, 1] (NaN results) get NaN; with eps, clamped inputs get 0.
  const double lo = eps ? *eps : 0.0, hi = eps ? 1 - *eps : 1.0;
  const at::Tensor outside = at::logical_or(at::lt(self, lo), at::gt(self, hi));
  return g.masked_fill(outside, eps ? at::Scalar(0) : at::Scalar(std::numeric_limits<double>::quiet_NaN()));
}

at::Tensor sinc_backward(const at::Tensor& grad, const at::Tensor& self) {
  // (cos(pi x) - sinc(x)) / x: no x^2 that underflows for tiny x.
  const at::Tensor d = (at::cos(self * M_PI) - at::sinc(self)) / self;
  return (grad * d).masked_fill(at::eq(self, 0), at::Scalar(0));
}

at::Tensor copysign_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result) {
  return (grad * result / self).masked_fill(at::eq(self, 0), at::Scalar(0));
}

at::Tensor fmax_fmin_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& other, bool is_max) {
  // self's share: all of it where it is the result alone (the larger / smaller, or other is NaN),
  // half where the two are equal.
  const at::Tensor wins = at::logical_or(is_max ? at::gt(self, other) : at::lt(self, other), at::isnan(other));
  return at::where(at::eq(self, other), grad / 2, grad.masked_fill(at::logical_not(wins), at::Scalar(0)));
}

at::Tensor xlogy_scalar_other_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& other) {
  const at::Tensor g = at::xlogy(grad, other);
  return other.toDouble() <= 0 ? g.masked_fill(at::eq(self, 0), at::Scalar(0)) : g;
}

at::Tensor mean_backward(const at::Tensor& grad, at::IntArrayRef sizes, at::OptionalIntArrayRef dims, bool keepdim) {
  // Each output averaged the elements of the reduced dims (all of them for None or []).
  int64_t count = 1;
  if (!dims.has_value() || dims->empty()) {
    count = numel_of(sizes);
  } else {
    for (int64_t d : *dims) {
      if (!sizes.empty()) count *= sizes[static_cast<size_t>(at::maybe_wrap_dim(d, static_cast<int64_t>(sizes.size()), "mean"))];
    }
  }
  return sum_backward(grad, sizes, dims, keepdim) / at::Scalar(static_cast<double>(count));
}

at::Tensor mse_loss_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target, int64_t reduction) {
  const at::Tensor diff = self - target;
  at::Tensor g = grad * diff * 2;
  if (reduction == at::Reduction::Mean) g = g / at::Scalar(static_cast<double>(diff.numel()));
  return g;
}

at::Tensor i1_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result) {
  // I1'(x) = I0(x) - I1(x) / x, which tends to 1/2 at 0.
  const at::Tensor zero = at::eq(self, 0);
  const at::Tensor safe = at::where(zero, at::ones_like(self), self);
  return grad * at::where(zero, at::full_like(self, 0.5), at::i0(self) - result / safe);
}

at::Tensor i1e_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result) {
  // (e^-|x| I1)' = I0e(x) - I1e(x) (sgn(x) + 1/x), which tends to 1/2 at 0.
  const at::Tensor zero = at::eq(self, 0);
  const at::Tensor safe = at::where(zero, at::ones_like(self), self);
  // result / x rather than result * (1 / x): 1 / x overflows for denormal x, the quotient is ~1/2.
  return grad * at::where(zero, at::full_like(self, 0.5),
                          at::special_i0e(self) - result * at::sgn(self) - result / safe);
}

at::Tensor not_implemented_input(const char* op, const char* input) {
  EMBER_CHECK(false, "[", op, "] expected no gradient to be needed for ", input,
              ": its derivative is not implemented; got an input that requires grad");
  return {};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> clamp_tensor_backward(const at::Tensor& grad, const at::Tensor& self,
                                                                     const at::Tensor& min, const at::Tensor& max,
                                                                     std::array<bool, 3> grad_input_mask) {
  if (!grad.defined()) return {};
  at::Tensor g_self, g_min, g_max;
  if (min.defined() && max.defined()) {
    // The weights libtorch 2.15 gives (measured case by case, NaN bounds included): with
    // min > max the result is max and max takes everything; otherwise a bound takes the
    // gradient where self passes it, and shares it half and half where self equals it and
    // min < max; a NaN self keeps its gradient.
    const auto dt = grad.scalar_type();
    const at::Tensor ordered = at::le(min, max), strictly = at::lt(min, max);
    const at::Tensor w_min = at::logical_and(at::lt(self, min), ordered).to(dt) +
                             at::logical_and(at::eq(self, min), strictly).to(dt) * 0.5;
    const at::Tensor w_max = at::gt(min, max).to(dt) + at::logical_and(at::gt(self, max), ordered).to(dt) +
                             at::logical_and(at::eq(self, max), strictly).to(dt) * 0.5;
    if (grad_input_mask[0]) {
      const at::Tensor out = at::logical_or(at::logical_or(at::gt(min, max), at::lt(self, min)), at::gt(self, max));
      const at::Tensor tie = at::logical_and(at::logical_or(at::eq(self, min), at::eq(self, max)), strictly);
      at::Tensor w = at::where(out, at::Scalar(0.0), at::where(tie, at::Scalar(0.5), at::Scalar(1.0))).to(dt);
      w = at::where(at::isnan(self), at::Scalar(1.0), w).to(dt);
      g_self = grad * w;
    }
    if (grad_input_mask[1]) g_min = grad * w_min;
    if (grad_input_mask[2]) g_max = grad * w_max;
  } else if (min.defined()) {
    // One bound is maximum / minimum, ties and NaN included.
    if (grad_input_mask[0]) g_self = min_max_backward(grad, self, min, /*is_max=*/true);
    if (grad_input_mask[1]) g_min = min_max_backward(grad, min, self, /*is_max=*/true);
  } else if (max.defined()) {
    if (grad_input_mask[0]) g_self = min_max_backward(grad, self, max, /*is_max=*/false);
    if (grad_input_mask[2]) g_max = min_max_backward(grad, max, self, /*is_max=*/false);
  } else if (grad_input_mask[0]) {
    g_self = grad;
  }
  return {g_self, g_min, g_max};
}

namespace {
// The gradient of a loss's reduction, per element of `like`: grad itself (None), grad broadcast
// (Sum), grad / numel (Mean).
at::Tensor loss_reduction_backward(const at::Tensor& grad, const at::Tensor& like, int64_t reduction) {
  if (reduction == at::Reduction::Mean) return grad / at::Scalar(static_cast<double>(like.numel()));
  return grad;
}
}  // namespace

at::Tensor nll_loss_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                             const at::Tensor& weight, int64_t reduction, int64_t ignore_index) {
  // d loss / d self[.., c, ..] is -w[c] at c = target (0 where ignored), times the reduction's factor;
  // Mean divides by the summed weights of the counted entries, as the forward does.
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const at::Tensor valid = at::ne(target, ignore_index);
  const at::Tensor safe = at::where(valid, target, at::Scalar(int64_t(0)));
  at::Tensor w = weight.defined() ? weight.index_select(0, safe.reshape({-1})).reshape(safe.sizes())
                                  : at::ones(safe.sizes(), grad.options());
  w = at::where(valid, w, at::Scalar(0.0)).to(grad.scalar_type());
  at::Tensor coeff = at::neg(w) * grad;
  if (reduction == at::Reduction::Mean) coeff = at::where(valid, coeff / w.sum(), at::Scalar(0.0));
  return at::zeros_like(self).scatter(class_dim, safe.unsqueeze(class_dim), coeff.unsqueeze(class_dim));
}

at::Tensor binary_cross_entropy_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                         const at::Tensor& weight, int64_t reduction) {
  // (x - t) / (x (1 - x)), the denominator held at 1e-12 or above (libtorch's rule: at x = 0 or 1
  // the gradient is large and finite, not 0 through the forward's clamped logs).
  at::Tensor g = loss_reduction_backward(grad, self, reduction) * (self - target) /
                 at::clamp_min((1 - self) * self, 1e-12);
  return weight.defined() ? g * weight : g;
}

at::Tensor binary_cross_entropy_target_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                                const at::Tensor& weight, int64_t reduction) {
  // The logs are not held at -100 here (libtorch 2.15: +-inf at an input of exactly 0 or 1).
  at::Tensor g = loss_reduction_backward(grad, self, reduction) * (at::log1p(at::neg(self)) - at::log(self));
  return weight.defined() ? g * weight : g;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> binary_cross_entropy_with_logits_backward(
    const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target, const at::Tensor& weight,
    const at::Tensor& pos_weight, int64_t reduction, std::array<bool, 3> grad_input_mask) {
  // loss = w [(1 - t) x - (1 + (p - 1) t) log s(x)]:
  //   d/dx = w [(1 + (p - 1) t) s(x) - p t],  d/dt = w [-x - (p - 1) log s(x)],  d/dp = -w t log s(x).
  if (!grad.defined()) return {};
  at::Tensor g = loss_reduction_backward(grad, self, reduction);
  if (weight.defined()) g = g * weight;
  const bool has_p = pos_weight.defined();
  at::Tensor d_self, d_target, d_pos;
  if (grad_input_mask[0]) {
    const at::Tensor sig = at::sigmoid(self);
    d_self = has_p ? g * ((1 + (pos_weight - 1) * target) * sig - pos_weight * target) : g * (sig - target);
  }
  if (grad_input_mask[1] || grad_input_mask[2]) {
    const at::Tensor log_sig = at::log_sigmoid(self);
    if (grad_input_mask[1]) d_target = has_p ? g * (at::neg(self) - (pos_weight - 1) * log_sig) : g * at::neg(self);
    if (grad_input_mask[2] && has_p) d_pos = at::neg(g) * target * log_sig;
  }
  return {d_self, d_target, d_pos};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_backward(const at::Tensor& grad, const at::Tensor& input,
                                                                   at::IntArrayRef normalized_shape, const at::Tensor& weight,
                                                                   const at::Tensor& mean, const at::Tensor& rstd, double eps,
                                                                   std::array<bool, 3> grad_input_mask) {
  if (!grad.defined()) return {};
  const int64_t k = static_cast<int64_t>(normalized_shape.size()), batch = input.dim() - k;
  std::vector<int64_t> norm_dims, batch_dims;
  for (int64_t d = 0; d < input.dim(); ++d) (d < batch ? batch_dims : norm_dims).push_back(d);
  at::Tensor mu = mean, rs = rstd;
  if (at::GradMode::is_enabled()) {
    // The backward records a graph: recompute the statistics from input so that a second
    // derivative sees their dependence on it.
    mu = input.mean(norm_dims, /*keepdim=*/true);
    rs = at::var(input, norm_dims, /*unbiased=*/false, /*keepdim=*/true).add(eps).rsqrt();
  }
  const at::Tensor xhat = (input - mu) * rs;
  at::Tensor d_input, d_weight, d_bias;
  if (grad_input_mask[0]) {
    // d/dx = rstd (g - mean(g) - xhat mean(g xhat)) over the normalised dims, g = grad * weight.
    const at::Tensor g = weight.defined() ? grad * weight : grad;
    d_input = rs * (g - g.mean(norm_dims, true) - xhat * (g * xhat).mean(norm_dims, true));
  }
  if (grad_input_mask[1] && weight.defined()) {
    d_weight = grad * xhat;
    if (!batch_dims.empty()) d_weight = d_weight.sum(batch_dims);
  }
  if (grad_input_mask[2]) {
    d_bias = batch_dims.empty() ? grad : grad.sum(batch_dims);
  }
  return {d_input, d_weight, d_bias};
}

at::Tensor smooth_l1_loss_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                  int64_t reduction, double beta) {
  // beta > 0: d / beta inside (-beta, beta), the sign of d outside; beta == 0 is L1 with slope -1
  // at d = 0 (the forward takes -d for d <= 0). NaN stays NaN (d / beta).
  const at::Tensor d = self - target;
  const at::Tensor g = loss_reduction_backward(grad, d, reduction);
  if (beta == 0) return g * at::where(at::le(d, 0), at::Scalar(-1.0), at::Scalar(1.0)).to(d.scalar_type());
  return g * at::where(at::lt(d, -beta), at::Scalar(-1.0), at::where(at::gt(d, beta), at::Scalar(1.0), d / beta));
}

at::Tensor huber_loss_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                               int64_t reduction, double delta) {
  // d inside [-delta, delta], +-delta outside.
  const at::Tensor d = self - target;
  return loss_reduction_backward(grad, d, reduction) *
         at::where(at::lt(d, -delta), at::Scalar(-delta), at::where(at::gt(d, delta), at::Scalar(delta), d));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> group_norm_backward(const at::Tensor& grad, const at::Tensor& grad_mean,
                                                                   const at::Tensor& grad_rstd, const at::Tensor& input,
                                                                   const at::Tensor& weight, const at::Tensor& mean,
                                                                   const at::Tensor& rstd, int64_t n, int64_t channels,
                                                                   int64_t groups, double eps,
                                                                   std::array<bool, 3> grad_input_mask) {
  if (!grad.defined() && !grad_mean.defined() && !grad_rstd.defined()) return {};
  const at::Tensor x = input.reshape({n, groups, -1});
  at::Tensor mu = mean.reshape({n, groups, 1}), rs = rstd.reshape({n, groups, 1});
  if (at::GradMode::is_enabled()) {
    // Recorded backward: statistics from input, so that second derivatives see them move.
    mu = x.mean({2}, /*keepdim=*/true);
    rs = at::var(x, {2}, /*unbiased=*/false, /*keepdim=*/true).add(eps).rsqrt();
  }
  const at::Tensor xhat = (x - mu) * rs;
  std::vector<int64_t> cshape(static_cast<size_t>(input.dim()), 1), not_channel{0};
  cshape[1] = channels;
  for (int64_t d = 2; d < input.dim(); ++d) not_channel.push_back(d);
  at::Tensor d_input, d_weight, d_bias;
  if (grad_input_mask[0]) {
    // Per (sample, group) as layer_norm: rstd (g - mean(g) - xhat mean(g xhat)), g = grad * weight.
    at::Tensor dx;
    if (grad.defined()) {
      const at::Tensor g = (weight.defined() ? grad * weight.reshape(cshape) : grad).reshape({n, groups, -1});
      dx = rs * (g - g.mean({2}, true) - xhat * (g * xhat).mean({2}, true));
    }
    // The statistics are outputs too (libtorch differentiates them): mean spreads its gradient
    // evenly over the group; rstd = (var + eps)^-1/2 gives -rstd^3 (x - mean) / D per element.
    const double size = static_cast<double>(std::max<int64_t>(x.size(2), 1));
    if (grad_mean.defined()) {
      const at::Tensor t = (grad_mean.reshape({n, groups, 1}) / size).expand(x.sizes());
      dx = dx.defined() ? dx + t : t;
    }
    if (grad_rstd.defined()) {
      const at::Tensor t = at::neg(grad_rstd.reshape({n, groups, 1})) * rs * rs * xhat / size;
      dx = dx.defined() ? dx + t : t;
    }
    d_input = dx.reshape(input.sizes());
  }
  if (grad.defined() && grad_input_mask[1] && weight.defined()) d_weight = (grad * xhat.reshape(input.sizes())).sum(not_channel);
  if (grad.defined() && grad_input_mask[2]) d_bias = grad.sum(not_channel);
  return {d_input, d_weight, d_bias};
}

}  // namespace torch::autograd::formulas
