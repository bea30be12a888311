// Matrix products on the CPU: mm, bmm, addmm, baddbmm, dot (kernels) and mv, outer, matmul,
// linear (composites over them; device-agnostic C++ kept next to the kernels they shape for).
//
// Every kernel funnels into gemm(): out[b] = alpha * A[b] @ B[b] + beta * out[b] over strided
// 3-D operands. float32 and bfloat16 go through oneDNN's matmul primitive; other dtypes (and
// anything oneDNN declines) take the portable loop.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/MatmulUtils.h>
#include <ATen/TensorIterator.h>
#include <ATen/Utils.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace at::native {

namespace {

using matmul_utils::describe;

// ---------------------------------------------------------------- strided operand description
// A 3-D operand [batch, rows, cols] as element strides. A batch of size 1 (or stride 0) is
// broadcast over the output batch.
struct Operand {
  const Tensor* t;
  int64_t batch, rows, cols;
  int64_t sb, sr, sc;
};

Operand as_operand(const Tensor& t) {
  // t is 3-D here.
  return {&t, t.size(0), t.size(1), t.size(2), t.stride(0), t.stride(1), t.stride(2)};
}

// Normalises the strides of size-1 dims and of broadcast batches, and says whether the inner
// matrix is row-major (sc == 1) or column-major (sr == 1) with a valid leading dimension.
bool normalise(Operand& o) {
  if (o.batch == 1 || o.sb == 0) o.batch = 1;
  if (o.cols == 1) o.sc = 1;
  if (o.rows == 1) o.sr = (o.sc == 1) ? std::max<int64_t>(o.cols, 1) : 1;
  bool row_major = o.sc == 1 && o.sr >= std::max<int64_t>(o.cols, 1);
  bool col_major = o.sr == 1 && o.sc >= std::max<int64_t>(o.rows, 1);
  if (!row_major && !col_major) return false;
  if (o.batch == 1) o.sb = o.rows * o.cols;
  return true;
}

// ---------------------------------------------------------------- oneDNN path
// Note [oneDNN primitive cache]
// Creating a matmul primitive descriptor costs tens of microseconds (more than a small product),
// so primitives are cached by everything that defines them: dtype, shapes, strides, alpha, beta.
// Primitives are immutable and run concurrently; each call brings its own scratchpad (user mode),
// so no state is shared between threads. The cache is cleared when it grows past kMaxEntries
// (workloads use a handful of shapes; a shape sweep must not grow memory without bound).
struct PrimKey {
  int dt;
  int64_t v[15];
  float alpha, beta;
  bool operator==(const PrimKey& o) const {
    return dt == o.dt && alpha == o.alpha && beta == o.beta && std::memcmp(v, o.v, sizeof(v)) == 0;
  }
};
struct PrimKeyHash {
  size_t operator()(const PrimKey& k) const {
    size_t h = static_cast<size_t>(k.dt) * 0x9E3779B97F4A7C15ULL;
    for (int64_t x : k.v) h = (h ^ static_cast<size_t>(x)) * 0x100000001B3ULL;
    uint32_t a, b;
    std::memcpy(&a, &k.alpha, 4);
    std::memcpy(&b, &k.beta, 4);
    return h ^ (static_cast<size_t>(a) << 32) ^ b;
  }
};
struct CachedPrim {
  dnnl::matmul prim;
  size_t scratch_bytes;
};

dnnl::engine& cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

class PrimCache {
 public:
  static constexpr size_t kMaxEntries = 512;
  std::shared_ptr<const CachedPrim> get(const PrimKey& k) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = map_.find(k);
    return it == map_.end() ? nullptr : it->second;
  }
  void put(const PrimKey& k, std::shared_ptr<const CachedPrim> p) {
    std::lock_guard<std::mutex> g(mu_);
    if (map_.size() >= kMaxEntries) map_.clear();
    map_.emplace(k, std::move(p));
  }

 private:
  std::mutex mu_;
  std::unordered_map<PrimKey, std::shared_ptr<const CachedPrim>, PrimKeyHash> map_;
};

PrimCache& prim_cache() {
  static PrimCache c;
  return c;
}

// A key for (a, b) configurations oneDNN declined, so they are not retried on every call.
PrimCache& declined_cache() {
  static PrimCache c;
  return c;
}

std::optional<dnnl::memory::data_type> dnnl_type(ScalarType t) {
  switch (t) {
    case kFloat: return dnnl::memory::data_type::f32;
    case kBFloat16: return dnnl::memory::data_type::bf16;
    default: return std::nullopt;
  }
}

// Runs out = alpha * a @ b + beta * out with oneDNN. Returns false when oneDNN has no
// implementation for this configuration (the caller falls back).
bool dnnl_gemm(const Tensor& out, const Operand& a, const Operand& b, int64_t B, double alpha, double beta) {
  auto dt = dnnl_type(out.scalar_type());
  if (!dt) return false;
  const int64_t M = a.rows, K = a.cols, N = b.cols;
  PrimKey key{static_cast<int>(out.scalar_type()),
              {B, M, N, K, a.batch, a.sb, a.sr, a.sc, b.batch, b.sb, b.sr, b.sc, out.stride(0), out.stride(1), out.stride(2)},
              static_cast<float>(alpha), static_cast<float>(beta)};
  std::shared_ptr<const CachedPrim> prim = prim_cache().get(key);
  if (!prim) {
    if (declined_cache().get(key)) return false;
    try {
      using dims = dnnl::memory::dims;
      dnnl::memory::desc a_md(dims{a.batch, M, K}, *dt, dims{a.sb, a.sr, a.sc});
      dnnl::memory::desc b_md(dims{b.batch, K, N}, *dt, dims{b.sb, b.sr, b.sc});
      dnnl::memory::desc c_md(dims{B, M, N}, *dt, dims{out.stride(0), out.stride(1), out.stride(2)});
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      if (alpha != 1.0) attr.set_output_scales(0, {static_cast<float>(alpha)});
      if (beta != 0.0) {
        dnnl::post_ops po;
        po.append_sum(static_cast<float>(beta));
        attr.set_post_ops(po);
      }
      dnnl::matmul::desc d(a_md, b_md, c_md);
      dnnl::matmul::primitive_desc pd(d, attr, cpu_engine());
      prim = std::make_shared<CachedPrim>(CachedPrim{dnnl::matmul(pd), pd.scratchpad_desc().get_size()});
    } catch (const dnnl::error&) {
      declined_cache().put(key, std::make_shared<CachedPrim>());
      return false;
    }
    prim_cache().put(key, prim);
  }
  using dims = dnnl::memory::dims;
  auto& eng = cpu_engine();
  dnnl::memory a_mem({dims{a.batch, M, K}, *dt, dims{a.sb, a.sr, a.sc}}, eng, a.t->data_ptr());
  dnnl::memory b_mem({dims{b.batch, K, N}, *dt, dims{b.sb, b.sr, b.sc}}, eng, b.t->data_ptr());
  dnnl::memory c_mem({dims{B, M, N}, *dt, dims{out.stride(0), out.stride(1), out.stride(2)}}, eng, out.data_ptr());
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, c_mem}};
  Tensor scratch;
  if (prim->scratch_bytes > 0) {
    scratch = at::empty({static_cast<int64_t>(prim->scratch_bytes)}, TensorOptions().dtype(kByte));
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 dnnl::memory({dims{static_cast<int64_t>(prim->scratch_bytes)}, dnnl::memory::data_type::u8, dims{1}}, eng,
                              scratch.data_ptr()));
  }
  thread_local dnnl::stream s(eng);  // a CPU stream is cheap but not free; one per thread
  prim->prim.execute(s, args);
  s.wait();
  return true;
}

// ---------------------------------------------------------------- portable path
// Row-by-row i-k-j loop over strided operands; each output row is owned by one thread, so the
// result does not depend on the thread count.
template <typename scalar_t>
void loop_gemm(const Tensor& out, const Operand& a, const Operand& b, int64_t B, double alpha_d, double beta_d) {
  using acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, std::conditional_t<std::is_same_v<scalar_t, double>, double, float>>;
  const int64_t M = a.rows, K = a.cols, N = b.cols;
  // Through Scalar: a NaN or out-of-range alpha/beta for an integer product raises (as libtorch),
  // instead of an undefined float-to-int conversion.
  const acc_t alpha = c10::Scalar(alpha_d).to<acc_t>(), beta = c10::Scalar(beta_d).to<acc_t>();
  const scalar_t* pa = static_cast<const scalar_t*>(a.t->data_ptr());
  const scalar_t* pb = static_cast<const scalar_t*>(b.t->data_ptr());
  scalar_t* pc = static_cast<scalar_t*>(out.data_ptr());
  const int64_t scb = out.stride(0), scm = out.stride(1), scn = out.stride(2);
  const int64_t asb = a.batch == 1 ? 0 : a.sb, bsb = b.batch == 1 ? 0 : b.sb;
  const int64_t rows = B * M;
  at::parallel_for(0, rows, at::internal::grain_for_tasks(rows * N * K, rows), [&](int64_t r0, int64_t r1) {
    std::vector<acc_t> acc(static_cast<size_t>(N));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t bi = r / M, i = r % M;
      std::fill(acc.begin(), acc.end(), acc_t(0));
      const scalar_t* arow = pa + bi * asb + i * a.sr;
      const scalar_t* bmat = pb + bi * bsb;
      for (int64_t k = 0; k < K; ++k) {
        const acc_t av = static_cast<acc_t>(arow[k * a.sc]);
        const scalar_t* brow = bmat + k * b.sr;
        if (b.sc == 1) {
          for (int64_t j = 0; j < N; ++j) acc[j] += av * static_cast<acc_t>(brow[j]);
        } else {
          for (int64_t j = 0; j < N; ++j) acc[j] += av * static_cast<acc_t>(brow[j * b.sc]);
        }
      }
      scalar_t* crow = pc + bi * scb + i * scm;
      for (int64_t j = 0; j < N; ++j) {
        acc_t v = alpha * acc[j];
        if (beta_d != 0.0) v += beta * static_cast<acc_t>(crow[j * scn]);
        crow[j * scn] = static_cast<scalar_t>(v);
      }
    }
  });
}

// out[b] = alpha * a[b] @ b[b] + beta * out[b], where out is [B, M, N] (written; read only when
// beta != 0), a is [Ba, M, K], b is [Bb, K, N] with Ba, Bb in {1, B} or batch stride 0.
void gemm(const Tensor& out, const Tensor& a3, const Tensor& b3, double alpha, double beta) {
  const int64_t B = out.size(0), K = a3.size(2);
  if (out.numel() == 0) return;
  // Floating products below double scale in float: alpha and beta must be float values (a NaN
  // passes; 1e300 raises, as in libtorch).
  if (isFloatingType(out.scalar_type()) && out.scalar_type() != kDouble) {
    (void)c10::Scalar(alpha).to<float>();
    (void)c10::Scalar(beta).to<float>();
  }
  if (K == 0) {
    matmul_utils::scale_empty_sum(out, beta);
    return;
  }
  Tensor a = a3, b = b3;
  Operand oa = as_operand(a), ob = as_operand(b);
  if (!normalise(oa)) { a = a.contiguous(); oa = as_operand(a); normalise(oa); }
  if (!normalise(ob)) { b = b.contiguous(); ob = as_operand(b); normalise(ob); }
  const ScalarType st = out.scalar_type();
  if (st == kFloat || st == kBFloat16) {
    if (dnnl_gemm(out, oa, ob, B, alpha, beta)) return;
    // oneDNN declined the strides (e.g. overlapping batches): retry with packed operands.
    if (!a.is_contiguous() || !b.is_contiguous()) {
      Tensor ac = a.contiguous(), bc = b.contiguous();
      Operand pa = as_operand(ac), pb = as_operand(bc);
      normalise(pa);
      normalise(pb);
      if (dnnl_gemm(out, pa, pb, B, alpha, beta)) return;
    }
  }
  if (st == kHalf || st == kBFloat16) {
    // No native kernel here: compute in float32 (oneDNN) and round once.
    Tensor of = beta != 0.0 ? out.to(kFloat) : at::empty(out.sizes(), TensorOptions().dtype(kFloat));
    gemm(of, a.to(kFloat), b.to(kFloat), alpha, beta);
    out.copy_(of);
    return;
  }
  AT_DISPATCH_ALL_TYPES(st, "mm", [&] { loop_gemm<scalar_t>(out, oa, ob, B, alpha, beta); });
}

}  // namespace

Tensor mm_cpu(const Tensor& self, const Tensor& mat2) {
  Tensor out = at::empty(matmul_utils::check_mm(self, mat2, kCPU), self.options());
  gemm(out.unsqueeze(0), self.unsqueeze(0), mat2.unsqueeze(0), 1.0, 0.0);
  return out;
}

Tensor bmm_cpu(const Tensor& self, const Tensor& mat2) {
  Tensor out = at::empty(matmul_utils::check_bmm(self, mat2, kCPU), self.options());
  gemm(out, self, mat2, 1.0, 0.0);
  return out;
}

Tensor addmm_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  Tensor out = at::empty(matmul_utils::check_addmm(self, mat1, mat2, kCPU), mat1.options());
  matmul_utils::init_with(out, self, beta);
  gemm(out.unsqueeze(0), mat1.unsqueeze(0), mat2.unsqueeze(0), alpha.toDouble(), beta.toDouble());
  return out;
}

Tensor baddbmm_cpu(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  Tensor out = at::empty(matmul_utils::check_baddbmm(self, batch1, batch2, kCPU), batch1.options());
  matmul_utils::init_with(out, self, beta);
  gemm(out, batch1, batch2, alpha.toDouble(), beta.toDouble());
  return out;
}

Tensor dot_cpu(const Tensor& self, const Tensor& tensor) {
  matmul_utils::check_dot(self, tensor, kCPU);
  Tensor out = at::empty({}, self.options());
  const int64_t n = self.size(0), sa = self.stride(0), sb = tensor.stride(0);
  AT_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, self.scalar_type(), "dot", [&] {
    // Accumulate in double (int64 for integers): a long float32 sum keeps full precision.
    using acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, double>;
    const scalar_t* a = self.data_ptr<scalar_t>();
    const scalar_t* b = tensor.data_ptr<scalar_t>();
    acc_t acc = 0;
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < n; ++i) acc += static_cast<acc_t>(a[i]) * static_cast<acc_t>(b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) acc += static_cast<acc_t>(a[i * sa]) * static_cast<acc_t>(b[i * sb]);
    }
    if constexpr (std::is_same_v<scalar_t, c10::Half> || std::is_same_v<scalar_t, c10::BFloat16>)
      *out.data_ptr<scalar_t>() = static_cast<scalar_t>(static_cast<float>(acc));
    else
      *out.data_ptr<scalar_t>() = static_cast<scalar_t>(acc);
  });
  return out;
}

// ---------------------------------------------------------------- composites
using matmul_utils::describe;

Tensor mv(const Tensor& self, const Tensor& vec) {
  EMBER_CHECK(self.dim() == 2 && vec.dim() == 1, "[mv] expected a 2-D self and a 1-D vec; got self ", describe(self), ", vec ",
              describe(vec));
  EMBER_CHECK(self.size(1) == vec.size(0), "[mv] expected self.size(-1) (", self.size(1), ") to equal vec.size(0) (", vec.size(0),
              "); got self ", describe(self), ", vec ", describe(vec));
  return at::mm(self, vec.unsqueeze(1)).squeeze(1);
}

Tensor outer(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK(self.dim() == 1 && vec2.dim() == 1, "[outer] expected 1-D tensors; got self ", describe(self), ", vec2 ",
              describe(vec2));
  return self.unsqueeze(1) * vec2;
}

// Note [matmul rank cases]
// matmul follows numpy/libtorch: 1-D operands are promoted (a leading 1 for self, a trailing 1 for
// other) and the added dim removed from the result; the leading dims broadcast as batch dims.
// A batched self times a matrix is folded into one mm (no batch loop) when self's leading dims
// can be merged without a copy.
Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t d1 = self.dim(), d2 = other.dim();
  EMBER_CHECK(d1 > 0 && d2 > 0, "[matmul] expected self and other to have at least 1 dim each; got self ", describe(self), ", other ",
              describe(other));
  const int64_t k1 = self.size(-1), k2 = d2 == 1 ? other.size(0) : other.size(-2);
  EMBER_CHECK(k1 == k2, "[matmul] expected self.size(-1) (", k1, ") to equal other.size(", d2 == 1 ? "0" : "-2", ") (", k2, "); got self ",
              describe(self), ", other ", describe(other));
  if (d1 == 1 && d2 == 1) return at::dot(self, other);
  if (d1 == 2 && d2 == 1) return at::mv(self, other);
  if (d1 == 1 && d2 == 2) return at::mm(self.unsqueeze(0), other).squeeze(0);
  if (d1 == 2 && d2 == 2) return at::mm(self, other);
  if (d1 >= 3 && d2 <= 2) {
    // Fold self's batch dims into the rows of one mm.
    std::vector<int64_t> out_shape(self.sizes().begin(), self.sizes().end() - 1);
    Tensor a = self.reshape({-1, k1});
    if (d2 == 1) return at::mv(a, other).view(out_shape);
    out_shape.push_back(other.size(1));
    return at::mm(a, other).view(out_shape);
  }
  // General batched case.
  Tensor a = d1 == 1 ? self.unsqueeze(0) : self;
  Tensor b = d2 == 1 ? other.unsqueeze(1) : other;
  const int64_t M = a.size(-2), N = b.size(-1);
  std::vector<int64_t> ba(a.sizes().begin(), a.sizes().end() - 2), bb(b.sizes().begin(), b.sizes().end() - 2);
  std::vector<int64_t> batch = ember::broadcast_shapes("matmul", ba, bb);
  int64_t nb = prod_sizes(batch);
  std::vector<int64_t> ea = batch, eb = batch;
  ea.insert(ea.end(), {M, k1});
  eb.insert(eb.end(), {k1, N});
  Tensor a3 = a.expand(ea).reshape({nb, M, k1});
  Tensor b3 = b.expand(eb).reshape({nb, k1, N});
  std::vector<int64_t> out_shape = batch;
  if (d1 > 1) out_shape.push_back(M);
  if (d2 > 1) out_shape.push_back(N);
  return at::bmm(a3, b3).view(out_shape);
}

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  EMBER_CHECK(weight.dim() == 2 || weight.dim() == 1, "[linear] expected a 1-D or 2-D weight; got weight ", describe(weight));
  const bool has_bias = bias.has_value() && bias->defined();
  if (input.dim() == 2 && weight.dim() == 2 && has_bias) return at::addmm(*bias, input, weight.t());
  if (input.dim() > 2 && weight.dim() == 2 && has_bias && input.is_contiguous()) {
    // [*, in] -> [rows, in] is a view here: one fused addmm.
    std::vector<int64_t> out_shape(input.sizes().begin(), input.sizes().end() - 1);
    out_shape.push_back(weight.size(0));
    return at::addmm(*bias, input.reshape({-1, input.size(-1)}), weight.t()).view(out_shape);
  }
  Tensor out = at::matmul(input, weight.t());
  if (has_bias) out = out + *bias;
  return out;
}

}  // namespace at::native
