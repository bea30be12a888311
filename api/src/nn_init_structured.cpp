// torch::nn::init initialisers with structure: dirac_, orthogonal_, sparse_ (declared in
// api/torch/nn/init.h).
//
// Note [orthogonal_ by Householder QR]
// Ember has no QR op, and an initialiser needs none: orthogonal_ draws a Gaussian matrix, factors
// it here in float64 on the CPU with Householder reflections (stable, exact orthogonality to
// rounding) and copies Q back. Q's columns are multiplied by the signs of R's diagonal, which makes
// the factorisation unique and Q Haar-distributed (libtorch applies the same correction).
#include <torch/nn/init.h>
#include <ATen/core/GradMode.h>
#include <algorithm>
#include <cmath>
#include <vector>

namespace torch::nn::init {
namespace {

// Thin Q (m x n, m >= n, row-major) of the row-major m x n matrix `a`, columns sign-corrected so
// that R has a non-negative diagonal. See Note [orthogonal_ by Householder QR].
std::vector<double> householder_q(std::vector<double> a, int64_t m, int64_t n) {
  std::vector<std::vector<double>> vs(static_cast<size_t>(n));
  std::vector<double> diag(static_cast<size_t>(n));
  auto at = [&](std::vector<double>& x, int64_t r, int64_t c) -> double& { return x[static_cast<size_t>(r * n + c)]; };
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double> v(static_cast<size_t>(m - k));
    double norm2 = 0;
    for (int64_t i = k; i < m; ++i) {
      v[static_cast<size_t>(i - k)] = at(a, i, k);
      norm2 += at(a, i, k) * at(a, i, k);
    }
    const double norm = std::sqrt(norm2);
    const double alpha = v[0] > 0 ? -norm : norm;  // reflect x onto alpha e1, away from x (no cancellation)
    v[0] -= alpha;
    double vnorm2 = 0;
    for (double x : v) vnorm2 += x * x;
    if (vnorm2 > 0) {
      const double inv = 1.0 / std::sqrt(vnorm2);
      for (double& x : v) x *= inv;
      for (int64_t c = k; c < n; ++c) {  // a[k:, c] -= 2 v (v . a[k:, c])
        double dot = 0;
        for (int64_t i = k; i < m; ++i) dot += v[static_cast<size_t>(i - k)] * at(a, i, c);
        for (int64_t i = k; i < m; ++i) at(a, i, c) -= 2 * dot * v[static_cast<size_t>(i - k)];
      }
    }
    diag[static_cast<size_t>(k)] = at(a, k, k);
    vs[static_cast<size_t>(k)] = std::move(v);
  }
  // Q = H_0 ... H_{n-1} [I_n; 0], applying the reflections in reverse.
  std::vector<double> q(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < n; ++i) at(q, i, i) = 1.0;
  for (int64_t k = n - 1; k >= 0; --k) {
    const auto& v = vs[static_cast<size_t>(k)];
    for (int64_t c = 0; c < n; ++c) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[static_cast<size_t>(i - k)] * at(q, i, c);
      for (int64_t i = k; i < m; ++i) at(q, i, c) -= 2 * dot * v[static_cast<size_t>(i - k)];
    }
  }
  for (int64_t c = 0; c < n; ++c)
    if (diag[static_cast<size_t>(c)] < 0)
      for (int64_t i = 0; i < m; ++i) at(q, i, c) = -at(q, i, c);
  return q;
}

}  // namespace

at::Tensor dirac_(at::Tensor tensor) {
  EMBER_CHECK(tensor.dim() >= 3 && tensor.dim() <= 5, "[dirac_] expected a 3-, 4- or 5-d tensor (out, in, k...); got ",
              tensor.dim(), " dims, sizes ", tensor.sizes());
  at::NoGradGuard no_grad;
  tensor.zero_();
  const int64_t n = std::min(tensor.size(0), tensor.size(1));
  for (int64_t d = 0; d < n; ++d) {
    at::Tensor cell = tensor.select(0, d).select(0, d);
    while (cell.dim() > 0) cell = cell.select(0, cell.size(0) / 2);
    cell.fill_(1);
  }
  return tensor;
}

at::Tensor orthogonal_(at::Tensor tensor, double gain) {
  EMBER_CHECK(tensor.dim() >= 2, "[orthogonal_] expected a tensor of at least 2 dims; got ", tensor.dim(),
              " dims, sizes ", tensor.sizes());
  if (tensor.numel() == 0) return tensor;
  at::NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  const int64_t m = std::max(rows, cols), n = std::min(rows, cols);
  // Draw (rows, cols) in float32 as libtorch does (so a seed gives its matrix, up to the rounding
  // of the factorisation); factor the tall orientation (its transpose when rows < cols) in double.
  at::Tensor draw = at::randn({rows, cols}).to(at::kDouble);
  if (rows < cols) draw = draw.t();
  draw = draw.contiguous();
  const double* p = draw.const_data_ptr<double>();
  std::vector<double> q = householder_q(std::vector<double>(p, p + m * n), m, n);
  at::Tensor result = at::empty({m, n}, at::TensorOptions().dtype(at::kDouble));
  std::copy(q.begin(), q.end(), result._mutable_data_ptr_internal<double>());
  if (rows < cols) result = result.t();
  tensor.copy_(result.mul(gain).reshape(tensor.sizes()));
  return tensor;
}

at::Tensor sparse_(at::Tensor tensor, double sparsity, double std) {
  EMBER_CHECK(tensor.dim() == 2, "[sparse_] expected a 2-d tensor; got ", tensor.dim(), " dims, sizes ",
              tensor.sizes());
  EMBER_CHECK(sparsity >= 0 && sparsity <= 1, "[sparse_] expected sparsity in [0, 1]; got ", sparsity);
  at::NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  const auto zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  tensor.normal_(0, std);
  // Zero mask: each column's first `zeros` entries of a random permutation of the rows (drawn for
  // every column even when no entry is zeroed, as libtorch, so later draws line up).
  at::Tensor mask = at::zeros({rows, cols}, at::TensorOptions().dtype(at::kBool));
  bool* mp = mask._mutable_data_ptr_internal<bool>();
  for (int64_t c = 0; c < cols; ++c) {
    at::Tensor perm = at::randperm(rows);
    const int64_t* pp = perm.const_data_ptr<int64_t>();
    for (int64_t i = 0; i < zeros; ++i) mp[pp[i] * cols + c] = true;
  }
  tensor.masked_fill_(mask.to(tensor.device()), 0);
  return tensor;
}

}  // namespace torch::nn::init
