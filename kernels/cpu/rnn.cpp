// The entry points of the fused LSTM steps (aten/ATen/native/cpu/LstmCell.h); the passes
// themselves are in kernels/cpu/isa/lstm_cell.cpp, one per CPU capability level. The matrix
// products of the steps (LstmStepProduct, lstm_mm_into) are here too.
//
// Note [LSTM step products]
// An LSTM direction multiplies by the same small matrix at every step: h_prev W_hh^T forward
// ([n, H] by [H, 4H]) and d_gates W_hh backward ([n, 4H] by [4H, H]), 32 + 32 products of 16.8
// MFLOP for a batch of 32 and H = 256. Through at::mm each of them took oneDNN's matmul primitive
// on the plain operand and allocated a fresh output: 135 us at 1 thread and 78-88 us at 2 forward,
// 102 / 63 us backward. LstmStepProduct instead copies the matrix once per direction into the
// blocked layout oneDNN's matmul chooses for it (weights format `any`), keeps the primitive
// (cached by shape, its creation costs more than a product), its memory objects and scratchpad,
// and writes into a block the caller owns: 103 / 56 us forward, 102 / 55 us backward (oneDNN 2.6,
// AVX-512, best of 7, measured apart from Ember). The packing copy of a 1 MiB matrix costs about
// one product. The all-steps products (the input
// projection) go through lstm_mm_into: oneDNN's sgemm into a block of the caller's workspace
// (3.3 ms against the primitive's 3.45 ms for [1024, 256] by [256, 1024] at 1 thread), so the
// projection needs no fresh 4 MiB output. Other dtypes (double) take at::mm and a copy.
#include <ATen/native/cpu/LstmCell.h>
#include <oneapi/dnnl/dnnl.hpp>
#include "onednn_handle.h"
#include <map>
#include <mutex>
#include <tuple>

namespace at::native::cpu {

EMBER_DEFINE_DISPATCH(lstm_cell_forward_fn, lstm_cell_forward_stub);
EMBER_DEFINE_DISPATCH(lstm_cell_backward_fn, lstm_cell_backward_stub);

bool lstm_cell_supported(const Tensor& t) {
  return t.defined() && t.is_cpu() && (t.scalar_type() == kFloat || t.scalar_type() == kDouble);
}

void lstm_cell_forward(const Tensor& x_proj, const Tensor& bias, const Tensor& hh, const Tensor& c_prev, const Tensor& gates,
                       const Tensor& c, const Tensor& tanh_c, const Tensor& h) {
  lstm_cell_forward_stub(x_proj, bias, hh, c_prev, gates, c, tanh_c, h);
}

void lstm_cell_backward(const Tensor& gates, const Tensor& c_prev, const Tensor& tanh_c, const Tensor& dh,
                        const Tensor& d_out, const Tensor& dc, const Tensor& d_gates) {
  lstm_cell_backward_stub(gates, c_prev, tanh_c, dh, d_out, dc, d_gates);
}

namespace {

dnnl::engine& step_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// The product [m, k] by [k, n] with the right operand in oneDNN's chosen layout, and the reorder
// that brings a plain [k, n] operand of the given strides into it. Immutable once made.
struct StepPrim {
  dnnl::memory::desc a_md, b_plain_md, b_md, c_md, scratch_md;
  dnnl::matmul prim;
  dnnl::reorder pack;
};

std::shared_ptr<const StepPrim> make_step_prim(int64_t m, int64_t k, int64_t n, int64_t bsr, int64_t bsc) {
  using dims = dnnl::memory::dims;
  using dt = dnnl::memory::data_type;
  auto p = std::make_shared<StepPrim>();
  try {
    p->a_md = dnnl::memory::desc(dims{m, k}, dt::f32, dims{k, 1});
    p->c_md = dnnl::memory::desc(dims{m, n}, dt::f32, dims{n, 1});
    p->b_plain_md = dnnl::memory::desc(dims{k, n}, dt::f32, dims{bsr, bsc});
    const dnnl::memory::desc b_any(dims{k, n}, dt::f32, dnnl::memory::format_tag::any);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
#if DNNL_VERSION_MAJOR >= 3
    auto pd = dnnl::matmul::primitive_desc(step_engine(), p->a_md, b_any, p->c_md, attr);
#else
    auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(p->a_md, b_any, p->c_md), attr, step_engine());
#endif
    p->b_md = pd.weights_desc();
    // Where oneDNN keeps the matrix plain (its jit sgemm, below AVX-512), rows a multiple of 512
    // floats long alias in the cache (Note [Aliased leading dimensions] in matmul.cpp): the
    // [256, 1024] W_hh^T of a hidden-256 LSTM ran its steps at half speed. Pack with longer rows.
    if (n % 512 == 0 && k > 1 && p->b_md == dnnl::memory::desc(dims{k, n}, dt::f32, dnnl::memory::format_tag::ab)) {
      const dnnl::memory::desc b_padded(dims{k, n}, dt::f32, dims{n + 16, 1});
#if DNNL_VERSION_MAJOR >= 3
      pd = dnnl::matmul::primitive_desc(step_engine(), p->a_md, b_padded, p->c_md, attr);
#else
      pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(p->a_md, b_padded, p->c_md), attr, step_engine());
#endif
      p->b_md = pd.weights_desc();
    }
    p->scratch_md = pd.scratchpad_desc();
    p->prim = dnnl::matmul(pd);
    p->pack = dnnl::reorder(dnnl::reorder::primitive_desc(step_engine(), p->b_plain_md, step_engine(), p->b_md));
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return p;
}

// Primitives by (m, k, n, b's strides); an LSTM has a handful of shapes, so the map stays small.
std::shared_ptr<const StepPrim> step_prim(int64_t m, int64_t k, int64_t n, int64_t bsr, int64_t bsc) {
  static std::mutex mu;
  static std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>, std::shared_ptr<const StepPrim>> cache;
  const auto key = std::make_tuple(m, k, n, bsr, bsc);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto p = make_step_prim(m, k, n, bsr, bsc);
  if (cache.size() < 64) cache.emplace(key, p);
  return p;
}

}  // namespace

// The oneDNN state of a packed product (Note [LSTM step products]): owned by one LstmStepProduct,
// used by one thread at a time.
struct LstmStepProduct::Packed {
  std::shared_ptr<const StepPrim> prim;
  dnnl::stream stream{step_engine()};
  Tensor b_storage, scratch_storage;  // the packed matrix and the scratchpad, as byte tensors
  dnnl::memory a, b, c, scratch;
};

LstmStepProduct::LstmStepProduct(const Tensor& b, int64_t rows) : b_(b), rows_(rows) {
  EMBER_INTERNAL_ASSERT(b.dim() == 2 && b.is_cpu(), "[lstm_step_product] expected a 2-D CPU matrix, got ", b.sizes());
  if (b.scalar_type() != kFloat || rows <= 0 || b.numel() == 0) return;
  auto prim = step_prim(rows, b.size(0), b.size(1), b.stride(0), b.stride(1));
  if (!prim) return;
  auto p = std::make_shared<Packed>();
  p->prim = prim;
  auto& eng = step_engine();
  const auto bytes = [](const dnnl::memory::desc& md) {
    return at::empty({static_cast<int64_t>(md.get_size()) + 64}, TensorOptions().dtype(kByte));
  };
  const auto aligned = [](const Tensor& t) {
    auto addr = reinterpret_cast<uintptr_t>(t._mutable_data_ptr_internal());
    return static_cast<void*>(static_cast<char*>(t._mutable_data_ptr_internal()) + (64 - addr % 64) % 64);
  };
  p->b_storage = bytes(prim->b_md);
  p->b = dnnl::memory(prim->b_md, eng, aligned(p->b_storage));
  p->a = dnnl::memory(prim->a_md, eng, DNNL_MEMORY_NONE);
  p->c = dnnl::memory(prim->c_md, eng, DNNL_MEMORY_NONE);
  if (prim->scratch_md.get_size() > 0) {
    p->scratch_storage = bytes(prim->scratch_md);
    p->scratch = dnnl::memory(prim->scratch_md, eng, aligned(p->scratch_storage));
  }
  dnnl::memory src(prim->b_plain_md, eng, onednn_input(b));
  prim->pack.execute(p->stream, src, p->b);
  p->stream.wait();
  packed_ = std::move(p);
}

LstmStepProduct::~LstmStepProduct() = default;

void LstmStepProduct::mm(const Tensor& a, const Tensor& out) const {
  EMBER_INTERNAL_ASSERT(a.dim() == 2 && out.dim() == 2 && a.size(0) == out.size(0) && a.size(1) == b_.size(0) &&
                            out.size(1) == b_.size(1) && out.is_contiguous(),
                        "[lstm_step_product] bad operands ", a.sizes(), " and ", out.sizes(), " for ", b_.sizes());
  if (!packed_ || a.size(0) != rows_ || !a.is_contiguous() || a.scalar_type() != kFloat ||
      out.scalar_type() != kFloat) {
    out.copy_(at::mm(a, b_));
    return;
  }
  Packed& p = *packed_;
  p.a.set_data_handle(onednn_input(a));
  p.c.set_data_handle(out._mutable_data_ptr_internal());
  // The C API with the arguments on the stack (no argument map per step).
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, p.a.get()}, {DNNL_ARG_WEIGHTS, p.b.get()}, {DNNL_ARG_DST, p.c.get()}};
  int nargs = 3;
  if (p.scratch_storage.defined()) args[nargs++] = {DNNL_ARG_SCRATCHPAD, p.scratch.get()};
  dnnl_status_t status = dnnl_primitive_execute(p.prim->prim.get(), p.stream.get(), nargs, args);
  if (status == dnnl_success) status = dnnl_stream_wait(p.stream.get());
  EMBER_CHECK(status == dnnl_success, "[LSTM] oneDNN's matmul failed with status ", static_cast<int>(status));
}

void lstm_mm_into(const Tensor& out, const Tensor& a, const Tensor& b) {
  EMBER_INTERNAL_ASSERT(a.dim() == 2 && b.dim() == 2 && out.dim() == 2 && a.size(1) == b.size(0) &&
                            out.size(0) == a.size(0) && out.size(1) == b.size(1),
                        "[lstm_mm_into] bad operands ", a.sizes(), ", ", b.sizes(), " into ", out.sizes());
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  // A row-major (stride (ld, 1)) or column-major (stride (1, ld)) operand, as sgemm takes it.
  const auto layout = [](const Tensor& t, char& trans, int64_t& ld) {
    if (t.size(1) == 1 || t.stride(1) == 1) {
      trans = 'N';
      ld = std::max<int64_t>({t.stride(0), t.size(1), 1});
      return t.size(0) == 1 || t.stride(0) >= t.size(1);
    }
    if (t.size(0) == 1 || t.stride(0) == 1) {
      trans = 'T';
      ld = std::max<int64_t>({t.stride(1), t.size(0), 1});
      return t.stride(1) >= t.size(0);
    }
    return false;
  };
  char ta = 'N', tb = 'N';
  int64_t lda = 1, ldb = 1;
  const bool plain = a.scalar_type() == kFloat && b.scalar_type() == kFloat && out.scalar_type() == kFloat &&
                     out.is_contiguous() && M > 0 && N > 0 && K > 0 && layout(a, ta, lda) && layout(b, tb, ldb);
  if (plain && dnnl_sgemm(ta, tb, M, N, K, 1.0f, a.const_data_ptr<float>(), lda, b.const_data_ptr<float>(), ldb, 0.0f,
                          out._mutable_data_ptr_internal<float>(), N) == dnnl_success)
    return;
  out.copy_(at::mm(a, b));
}

}  // namespace at::native::cpu
