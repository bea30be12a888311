#pragma once
// Naive float64 references for the matrix family: triple loops over contiguous double data.
#include <ATen/ATen.h>
#include <algorithm>
#include <vector>

namespace ember_test::ref {

namespace matmul_detail {
inline at::Tensor dense(const at::Tensor& t) { return t.to(at::kDouble).contiguous(); }
inline at::Tensor new_double(std::vector<int64_t> shape) { return at::empty(shape, at::TensorOptions().dtype(at::kDouble)); }

// c[b] = a[b] @ w[b] over [B, M, K] x [B, K, N] (contiguous).
inline void batched(const double* a, const double* w, double* c, int64_t B, int64_t M, int64_t K, int64_t N) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += a[(b * M + i) * K + k] * w[(b * K + k) * N + j];
        c[(b * M + i) * N + j] = s;
      }
}
}  // namespace matmul_detail

inline at::Tensor mm(const at::Tensor& a0, const at::Tensor& b0) {
  using namespace matmul_detail;
  at::Tensor a = dense(a0), b = dense(b0);
  at::Tensor c = new_double({a.size(0), b.size(1)});
  batched(a.data_ptr<double>(), b.data_ptr<double>(), c.data_ptr<double>(), 1, a.size(0), a.size(1), b.size(1));
  return c;
}

inline at::Tensor bmm(const at::Tensor& a0, const at::Tensor& b0) {
  using namespace matmul_detail;
  at::Tensor a = dense(a0), b = dense(b0);
  at::Tensor c = new_double({a.size(0), a.size(1), b.size(2)});
  batched(a.data_ptr<double>(), b.data_ptr<double>(), c.data_ptr<double>(), a.size(0), a.size(1), a.size(2), b.size(2));
  return c;
}

// beta * self + alpha * prod, with beta == 0 ignoring self.
inline at::Tensor axpby(const at::Tensor& self, const at::Tensor& prod, double beta, double alpha) {
  at::Tensor s = matmul_detail::dense(self.expand(prod.sizes()));
  double* p = prod.data_ptr<double>();
  const double* q = s.data_ptr<double>();
  for (int64_t i = 0; i < prod.numel(); ++i) p[i] = alpha * p[i] + (beta == 0 ? 0.0 : beta * q[i]);
  return prod;
}

inline at::Tensor addmm(const at::Tensor& self, const at::Tensor& m1, const at::Tensor& m2, const at::Scalar& beta,
                        const at::Scalar& alpha) {
  return axpby(self, ref::mm(m1, m2), beta.toDouble(), alpha.toDouble());
}

inline at::Tensor baddbmm(const at::Tensor& self, const at::Tensor& b1, const at::Tensor& b2, const at::Scalar& beta,
                          const at::Scalar& alpha) {
  return axpby(self, ref::bmm(b1, b2), beta.toDouble(), alpha.toDouble());
}

inline at::Tensor dot(const at::Tensor& a0, const at::Tensor& b0) {
  using namespace matmul_detail;
  at::Tensor a = dense(a0), b = dense(b0);
  double s = 0;
  for (int64_t i = 0; i < a.numel(); ++i) s += a.data_ptr<double>()[i] * b.data_ptr<double>()[i];
  at::Tensor c = new_double({});
  *c.data_ptr<double>() = s;
  return c;
}

inline at::Tensor mv(const at::Tensor& a, const at::Tensor& v) { return ref::mm(a, v.reshape({-1, 1})).reshape({a.size(0)}); }

inline at::Tensor outer(const at::Tensor& a0, const at::Tensor& b0) {
  using namespace matmul_detail;
  at::Tensor a = dense(a0), b = dense(b0);
  at::Tensor c = new_double({a.numel(), b.numel()});
  for (int64_t i = 0; i < a.numel(); ++i)
    for (int64_t j = 0; j < b.numel(); ++j) c.data_ptr<double>()[i * b.numel() + j] = a.data_ptr<double>()[i] * b.data_ptr<double>()[j];
  return c;
}

// numpy matmul semantics, spelled out: promote 1-D operands, broadcast batch dims, loop.
inline at::Tensor matmul(const at::Tensor& x, const at::Tensor& y) {
  using namespace matmul_detail;
  const int64_t d1 = x.dim(), d2 = y.dim();
  at::Tensor a = d1 == 1 ? x.reshape({1, x.size(0)}) : x;
  at::Tensor b = d2 == 1 ? y.reshape({y.size(0), 1}) : y;
  const int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
  std::vector<int64_t> ba(a.sizes().begin(), a.sizes().end() - 2), bb(b.sizes().begin(), b.sizes().end() - 2);
  const size_t nd = std::max(ba.size(), bb.size());
  ba.insert(ba.begin(), nd - ba.size(), 1);
  bb.insert(bb.begin(), nd - bb.size(), 1);
  std::vector<int64_t> batch(nd);
  for (size_t i = 0; i < nd; ++i) batch[i] = std::max(ba[i], bb[i]);
  std::vector<int64_t> ea = batch, eb = batch;
  ea.insert(ea.end(), {M, K});
  eb.insert(eb.end(), {K, N});
  at::Tensor ad = dense(a.reshape([&] { auto s = ba; s.insert(s.end(), {M, K}); return s; }()).expand(ea));
  at::Tensor bd = dense(b.reshape([&] { auto s = bb; s.insert(s.end(), {K, N}); return s; }()).expand(eb));
  int64_t B = 1;
  for (int64_t s : batch) B *= s;
  std::vector<int64_t> out_shape = batch;
  out_shape.insert(out_shape.end(), {M, N});
  at::Tensor c = new_double(out_shape);
  batched(ad.data_ptr<double>(), bd.data_ptr<double>(), c.data_ptr<double>(), B, M, K, N);
  std::vector<int64_t> final_shape = batch;
  if (d1 > 1) final_shape.push_back(M);
  if (d2 > 1) final_shape.push_back(N);
  return c.reshape(final_shape);
}

inline at::Tensor linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias) {
  using namespace matmul_detail;
  at::Tensor out = ref::matmul(input, dense(weight).transpose(0, 1));
  at::Tensor bd = dense(bias.expand(out.sizes()));
  double* p = out.data_ptr<double>();
  for (int64_t i = 0; i < out.numel(); ++i) p[i] += bd.data_ptr<double>()[i];
  return out;
}

}  // namespace ember_test::ref
