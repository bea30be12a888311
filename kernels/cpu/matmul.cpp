// Matrix products on the CPU: mm, bmm, addmm, baddbmm, dot (kernels) and mv, outer, matmul,
// linear (composites over them; device-agnostic C++ kept next to the kernels they shape for).
//
// Every kernel funnels into gemm(): out[b] = alpha * A[b] @ B[b] + beta * out[b] over strided
// 3-D operands. float32 and bfloat16 go through oneDNN's matmul primitive (batches of small float32
// products through Ember's own AVX-512 kernel, Note [Small batched sgemm]); other dtypes (and
// anything oneDNN declines) take the portable loop.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/MatmulUtils.h>
#include <ATen/TensorIterator.h>
#include <ATen/Utils.h>
#include <ATen/native/LruCache.h>
#include <ATen/Parallel.h>
#include <oneapi/dnnl/dnnl.hpp>
#include "linear_prepack.h"
#include "sgemm.h"
#include "small_sgemm.h"
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

namespace at::native {

namespace {

using matmul_utils::describe;

// ---------------------------------------------------------------- strided operand description
// A 3-D operand [batch, rows, cols] as element strides over a data pointer. A batch of size 1 (or
// stride 0) is broadcast over the output batch.
struct Operand {
  void* data;
  int64_t batch, rows, cols;
  int64_t sb, sr, sc;
};

// A 2-D tensor is one matrix (its batch stride is what unsqueeze(0) would give it); a 3-D tensor a
// batch of them. (The pointer is taken without counting as a write, Note [Storage write generation]:
// the operands read stay cacheable, and the output is fresh or bumped by the dispatcher.)
Operand as_operand(const Tensor& t) {
  void* p = const_cast<void*>(t.const_data_ptr());
  if (t.dim() == 2) return {p, 1, t.size(0), t.size(1), t.size(0) * t.stride(0), t.stride(0), t.stride(1)};
  return {p, t.size(0), t.size(1), t.size(2), t.stride(0), t.stride(1), t.stride(2)};
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
// so no state is shared between threads. The cache is a bounded LRU (ATen/native/LruCache.h) of
// EMBER_ONEDNN_CACHE_CAPACITY entries (default kDefaultCacheCapacity): a workload that cycles
// through a few shapes keeps them, a shape sweep cannot grow memory without bound, and passing
// the capacity evicts one old shape, not every shape.
//
// Note [matmul per-call cost]
// A 64x64 product computes in about 3 us, so what surrounds oneDNN's execute matters. Measured
// (perf, oneDNN 2.6): creating the three dnnl::memory objects per call (~1.5 us: a descriptor
// from strides and a heap object each), allocating the scratchpad as a tensor, and the argument
// map of the C++ execute were a third of the call. So each thread keeps, for the last few
// primitives it ran, memory objects bound to their descriptors (a call only swaps the data
// pointers), a grow-only scratchpad (up to kThreadScratchMax bytes; larger ones are allocated per
// call, where the product dwarfs the allocation) and its stream, and executes through the C API
// with the arguments on the stack. The memory objects are used by their own thread only.
//
// Note [oneDNN 2.x and 3.x]
// The library builds against oneDNN 2.x (Debian 12) and 3.x. 3.x removed the operation
// descriptors (matmul::desc, convolution_forward::desc, ...): primitive descriptors are made
// directly from the engine, the memory descriptors and the attributes. It also removed output
// scales; alpha != 1 is then an eltwise_linear post-op ahead of the sum post-op (beta), which
// computes the same alpha * acc + beta * out.
constexpr size_t kDefaultCacheCapacity = 1024;
constexpr size_t kThreadScratchMax = size_t{4} << 20;

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
  dnnl::memory::desc a_md, b_md, c_md, scratch_md;
  size_t scratch_bytes = 0;
};
using PrimCache = LruCache<PrimKey, std::shared_ptr<const CachedPrim>, PrimKeyHash>;

dnnl::engine& cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

PrimCache& prim_cache() {
  static PrimCache c(lru_capacity_from_env("EMBER_ONEDNN_CACHE_CAPACITY", kDefaultCacheCapacity));
  return c;
}

// Keys of configurations oneDNN declined, so they are not retried on every call.
LruCache<PrimKey, bool, PrimKeyHash>& declined_cache() {
  static LruCache<PrimKey, bool, PrimKeyHash> c(lru_capacity_from_env("EMBER_ONEDNN_CACHE_CAPACITY", kDefaultCacheCapacity));
  return c;
}

std::optional<dnnl::memory::data_type> dnnl_type(ScalarType t) {
  switch (t) {
    case kFloat: return dnnl::memory::data_type::f32;
    case kBFloat16: return dnnl::memory::data_type::bf16;
    default: return std::nullopt;
  }
}

// The primitive for `key`, or null when oneDNN has no implementation for it.
std::shared_ptr<const CachedPrim> make_prim(dnnl::memory::data_type dt, const Operand& c, const Operand& a, const Operand& b,
                                           double alpha, double beta) {
  using dims = dnnl::memory::dims;
  auto p = std::make_shared<CachedPrim>();
  try {
    p->a_md = dnnl::memory::desc(dims{a.batch, a.rows, a.cols}, dt, dims{a.sb, a.sr, a.sc});
    p->b_md = dnnl::memory::desc(dims{b.batch, b.rows, b.cols}, dt, dims{b.sb, b.sr, b.sc});
    p->c_md = dnnl::memory::desc(dims{c.batch, c.rows, c.cols}, dt, dims{c.sb, c.sr, c.sc});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops po;
#if DNNL_VERSION_MAJOR >= 3
    if (alpha != 1.0) po.append_eltwise(dnnl::algorithm::eltwise_linear, static_cast<float>(alpha), 0.f);
#else
    if (alpha != 1.0) attr.set_output_scales(0, {static_cast<float>(alpha)});
#endif
    if (beta != 0.0) po.append_sum(static_cast<float>(beta));
    if (po.len() > 0) attr.set_post_ops(po);
#if DNNL_VERSION_MAJOR >= 3
    dnnl::matmul::primitive_desc pd(cpu_engine(), p->a_md, p->b_md, p->c_md, attr);
#else
    dnnl::matmul::desc d(p->a_md, p->b_md, p->c_md);
    dnnl::matmul::primitive_desc pd(d, attr, cpu_engine());
#endif
    p->prim = dnnl::matmul(pd);
    p->scratch_md = pd.scratchpad_desc();
    p->scratch_bytes = p->scratch_md.get_size();
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return p;
}

// One thread's execution state (Note [matmul per-call cost]).
struct ThreadExec {
  struct Slot {
    std::shared_ptr<const CachedPrim> prim;
    dnnl::memory a, b, c, scratch;
  };
  static constexpr size_t kSlots = 4;
  dnnl::stream stream{cpu_engine()};
  std::array<Slot, kSlots> slots;
  size_t next = 0;  // the slot to replace on a miss (round robin)
  std::unique_ptr<uint8_t[]> scratch;
  size_t scratch_capacity = 0;

  Slot& slot_for(const std::shared_ptr<const CachedPrim>& p) {
    for (Slot& s : slots)
      if (s.prim == p) return s;
    Slot& s = slots[next];
    next = (next + 1) % kSlots;
    auto& eng = cpu_engine();
    s.a = dnnl::memory(p->a_md, eng, DNNL_MEMORY_NONE);
    s.b = dnnl::memory(p->b_md, eng, DNNL_MEMORY_NONE);
    s.c = dnnl::memory(p->c_md, eng, DNNL_MEMORY_NONE);
    s.scratch = p->scratch_bytes > 0 ? dnnl::memory(p->scratch_md, eng, DNNL_MEMORY_NONE) : dnnl::memory();
    s.prim = p;
    return s;
  }
  // A scratchpad of at least `bytes` (<= kThreadScratchMax), 64-byte aligned.
  void* scratch_of(size_t bytes) {
    if (bytes > scratch_capacity) {
      scratch_capacity = std::max(bytes, size_t{4096});
      scratch.reset(new uint8_t[scratch_capacity + 64]);
    }
    auto addr = reinterpret_cast<uintptr_t>(scratch.get());
    return scratch.get() + ((64 - addr % 64) % 64);
  }
};

ThreadExec& thread_exec() {
  thread_local ThreadExec t;
  return t;
}

// Runs c = alpha * a @ b + beta * c with oneDNN. Returns false when oneDNN has no implementation
// for this configuration (the caller falls back).
bool dnnl_gemm(const char* op, ScalarType st, const Operand& c, const Operand& a, const Operand& b, double alpha, double beta) {
  auto dt = dnnl_type(st);
  if (!dt) return false;
  PrimKey key{static_cast<int>(st),
              {c.batch, a.rows, b.cols, a.cols, a.batch, a.sb, a.sr, a.sc, b.batch, b.sb, b.sr, b.sc, c.sb, c.sr, c.sc},
              static_cast<float>(alpha), static_cast<float>(beta)};
  std::shared_ptr<const CachedPrim> prim;
  if (auto hit = prim_cache().get(key)) {
    prim = std::move(*hit);
  } else {
    if (declined_cache().get(key)) return false;
    prim = make_prim(*dt, c, a, b, alpha, beta);
    if (!prim) {
      declined_cache().put(key, true);
      return false;
    }
    prim_cache().put(key, prim);
  }
  ThreadExec& t = thread_exec();
  ThreadExec::Slot& s = t.slot_for(prim);
  s.a.set_data_handle(a.data);
  s.b.set_data_handle(b.data);
  s.c.set_data_handle(c.data);
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, s.a.get()}, {DNNL_ARG_WEIGHTS, s.b.get()}, {DNNL_ARG_DST, s.c.get()}, {0, nullptr}};
  int nargs = 3;
  Tensor big_scratch;
  if (prim->scratch_bytes > 0) {
    void* sp;
    if (prim->scratch_bytes <= kThreadScratchMax) {
      sp = t.scratch_of(prim->scratch_bytes);
    } else {
      big_scratch = at::empty({static_cast<int64_t>(prim->scratch_bytes)}, TensorOptions().dtype(kByte));
      sp = big_scratch._mutable_data_ptr_internal();
    }
    s.scratch.set_data_handle(sp);
    args[nargs++] = {DNNL_ARG_SCRATCHPAD, s.scratch.get()};
  }
  dnnl_status_t status = dnnl_primitive_execute(prim->prim.get(), t.stream.get(), nargs, args);
  if (status == dnnl_success) status = dnnl_stream_wait(t.stream.get());
  EMBER_CHECK(status == dnnl_success, "[", op, "] oneDNN's matmul failed with status ", static_cast<int>(status));
  return true;
}

// Note [Large products through oneDNN's sgemm]
// For large single products oneDNN's BLAS-style sgemm (its jit gemm kernels) beats the matmul
// primitive (brgemm) here: 1024^3 13.7 ms vs 14.5-16.5 ms, 2048^3 109 ms vs 124 ms, 512^3 1.63 ms vs
// 1.73 ms (1 thread, AVX-512, oneDNN 2.6); at 256^3 they tie and for a thin operand (a linear
// layer's 64 x 1024 x 1024) the primitive is faster. So float32 products with M, N and K all at
// least kSgemmMin take sgemm, which needs no primitive (and so no cache entry). So does a single
// row against a large matrix (a linear layer at batch 1): sgemm's matrix-vector path took 154-184
// us for 1 x 1024 x 1024 where the primitive took 310-375 us (libtorch 153-185 us; 1 thread); from
// 8 rows on the primitive is faster again.
//
// Note [Aliased leading dimensions]
// Where oneDNN has no brgemm for float32 (oneDNN 2.x below AVX-512: its matmul primitive is then
// the same jit sgemm, "gemm:jit"), that sgemm reads some operands in place, unpacked, and an
// operand whose rows lie a multiple of 1 KiB apart (leading dimension a multiple of 256 floats)
// maps its rows onto the same cache sets: on a Zen 3 at 1 thread, [64..256, K] by [K, 1024] ran
// at 43-50 GFLOP/s where [.., K] by [K, 1000] ran at 95, and A^T B with A [1024, 1024] (an LSTM's
// or a linear layer's weight gradient) at 41 where A B ran at 90; libtorch (MKL) 85-95 for all.
// The operands read in place are B when not transposed and A when transposed; on those machines
// every float32 product of at least kPadMinFlops takes sgemm here, and such an operand, when
// aliased, is first copied to rows kPadFloats longer, into a per-thread buffer kept for the next
// product (up to kPadKeepBytes; larger copies are tensors, which the allocator's large-block cache
// serves, Note [Large CPU block cache]). Aliased means a leading dimension that is a multiple of
// 512 floats for B (at 256 the loss was 10% at most, about what the copy costs) and of 256 for a
// transposed A (20% lost at 256). With the copies the same shapes ran at 75-98 GFLOP/s (64^3 to
// 1024^3, every mix of 64, 256 and 1024, plain and transposed A: tools/bench cases and the grid
// in docs/benchmarks.md). Transposed B and plain A showed no such loss. B's loss is one of few
// rows of A (oneDNN then streams B instead of packing it): with K = N = 1024, aliased B lost 10% at
// M = 128 and 256 and nothing from M = 384 up (timed alternately against padded rows, 1 and 2
// threads), where the copy alone cost 2-4% (0.5 ms at 1024^3), so B is copied for M up to
// kPadMaxRowsB only.
constexpr int64_t kSgemmMin = 512, kSgemvMin = 256;
constexpr int64_t kPadMinFlops = int64_t{1} << 21, kAliasA = 256, kAliasB = 512, kPadFloats = 16, kPadMaxRowsB = 256;
constexpr size_t kPadKeepBytes = size_t{8} << 20;

bool sgemm_only_cpu() {  // oneDNN's matmul is its jit sgemm (no float32 brgemm)
#if DNNL_VERSION_MAJOR >= 3
  return false;  // oneDNN 3.x has float32 brgemm for AVX2 too: not measured, keep the primitive
#else
  static const bool v = dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core;
  return v;
#endif
}

struct PadBuffer {
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data;
  size_t bytes = 0;
};

// Copies the [rows, cols] row-major matrix at p (leading dimension ld) to rows of cols + kPadFloats
// floats, in `buf` (or in `keep` when larger than kPadKeepBytes); p and ld are set to the copy.
void pad_rows(const void*& p, int64_t rows, int64_t cols, int64_t& ld, PadBuffer& buf, Tensor& keep) {
  const int64_t dld = cols + kPadFloats;
  const size_t bytes = static_cast<size_t>(rows * dld) * sizeof(float);
  float* dst;
  if (bytes > kPadKeepBytes) {
    keep = at::empty({rows * dld}, TensorOptions().dtype(kFloat));
    dst = keep._mutable_data_ptr_internal<float>();
  } else {
    if (buf.bytes < bytes) {
      buf.data.reset(static_cast<float*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
      EMBER_CHECK(buf.data, "[mm] could not allocate ", bytes, " bytes for a padded operand copy");
      buf.bytes = bytes;
    }
    dst = buf.data.get();
  }
  const float* src = static_cast<const float*>(p);
  const int64_t sld = ld;
  at::parallel_for(0, rows, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) std::memcpy(dst + r * dld, src + r * sld, static_cast<size_t>(cols) * sizeof(float));
  });
  p = dst;
  ld = dld;
}

bool dnnl_sgemm_gemm(const Operand& c, const Operand& a, const Operand& b, double alpha, double beta) {
  const int64_t M = a.rows, K = a.cols, N = b.cols;
  const bool large = M >= kSgemmMin && N >= kSgemmMin && K >= kSgemmMin;
  const bool row = M == 1 && N >= kSgemvMin && K >= kSgemvMin;
  const bool padded = sgemm_only_cpu() && M * N * K >= kPadMinFlops;  // Note [Aliased leading dimensions]
  if (c.batch != 1 || !(large || row || padded) || c.sc != 1 || c.sr < N) return false;
  // Operands are row-major (sc == 1, leading dimension sr) or column-major (sr == 1, leading
  // dimension sc), see normalise(); a column-major operand is the transpose of a row-major one.
  const bool ta = a.sc != 1, tb = b.sc != 1;
  const void *pa = a.data, *pb = b.data;
  int64_t lda = ta ? a.sc : a.sr, ldb = tb ? b.sc : b.sr;
  thread_local PadBuffer pad_a, pad_b;
  Tensor keep_a, keep_b;
  if (padded && ta && lda % kAliasA == 0 && M > 1) pad_rows(pa, K, M, lda, pad_a, keep_a);
  if (padded && !tb && ldb % kAliasB == 0 && N > 1 && M <= kPadMaxRowsB) pad_rows(pb, K, N, ldb, pad_b, keep_b);
  const dnnl_status_t status =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, static_cast<float>(alpha), static_cast<const float*>(pa), lda,
                 static_cast<const float*>(pb), ldb, static_cast<float>(beta), static_cast<float*>(c.data), c.sr);
  return status == dnnl_success;
}

// ---------------------------------------------------------------- small batched float32 products
// Batches of products with M, N, K in [kSmallMin, kSmallMax] take Ember's own AVX-512 kernel (Note
// [Small batched sgemm] in kernels/cpu/isa/small_sgemm.cpp); a single product (mm, linear, the
// LSTM steps) stays with oneDNN, as do CPUs without AVX-512 (the kernel declines) and the shapes
// not measured against oneDNN (below 64, where tile remainders and the prefetch budget change the
// picture). TODO(#8): measure smaller and larger shapes.
constexpr int64_t kSmallMin = 64, kSmallMax = 256;
static_assert(kSmallMax <= kSmallSgemmMaxK);

bool small_sgemm_gemm(const Operand& c, const Operand& a, const Operand& b, double alpha, double beta) {
  const int64_t M = a.rows, K = a.cols, N = b.cols;
  if (c.batch < 2 || c.sc != 1 || std::min({M, N, K}) < kSmallMin || std::max({M, N, K}) > kSmallMax) return false;
  const SmallSgemm p{static_cast<const float*>(a.data), static_cast<const float*>(b.data), static_cast<float*>(c.data),
                     c.batch, M, N, K,
                     a.batch == 1 ? 0 : a.sb, a.sr, a.sc,
                     b.batch == 1 ? 0 : b.sb, b.sr, b.sc,
                     c.sb, c.sr,
                     static_cast<float>(alpha), static_cast<float>(beta)};
  return small_sgemm_stub(p);
}

// ---------------------------------------------------------------- large float32 products, own kernel
// At the AVX2 level (where oneDNN 2.x's float32 matmul is its jit sgemm), single products with at
// least kBlockedMinRows rows and kBlockedMinFlops multiply-adds take Ember's blocked kernel (Note
// [Blocked sgemm] in kernels/cpu/isa/sgemm.cpp; only that level registers one, so a CPU with
// AVX-512 keeps oneDNN's brgemm unless EMBER_CPU_CAPABILITY=avx2 asks for the AVX2 kernels). Fewer rows
// do not repay the kernel's packing of all of b, so 64-127 rows take the transposed product below
// (Note [Few rows through the transposed product]) and fewer (an LSTM step at batch 32) stay with
// oneDNN. Measured before the transposed route (64 x 1024 x 1024: 1.0-1.3x the time of oneDNN's sgemm at 1 thread;
// 128 rows 0.95-1.0x, 256 rows 0.85-0.95x). Smaller products too: oneDNN's threading costs less
// there (256^3 at 2 threads: 1.11-1.18x oneDNN's time; 384^3 1.02-1.05x; 512^3 0.89-1.0x; at 1
// thread 128^3 0.97-1.06x), hence kBlockedMinFlops = 2^26 (406^3).
constexpr int64_t kBlockedMinRows = 128, kBlockedMinFlops = int64_t{1} << 26;

// Note [Few rows through the transposed product]
// A product of kTransposedMinRows to kBlockedMinRows rows against a wide b (a linear layer at
// batch 64: 64 x 1024 times 1024 x 1024) is computed as its transpose, c^T = b^T a^T, by the same
// kernel into a scratch [N, M] matrix that is then transposed into c. The roles swap: the few rows
// of a become the packed panels (64 x 1024 floats, 256 KB, in L2), and b^T is packed block by
// block as the kernel's a (the full packing of b that did not pay above is gone). Measured on a
// Zen 3 at batch 64, 1024 -> 1024 (linear with bias, best of 200): 1.67 ms through oneDNN's
// sgemm, 1.55 ms this way at 1 thread; 0.85 vs 0.87 ms at 2. Each element of c is still one
// float32 FMA chain over k (the kernel's contract), so the thread count does not change it; with
// beta != 0 (addmm, a linear with bias) the transpose adds beta * c to it (beta = 0 never reads c).
constexpr int64_t kTransposedMinRows = 64;

// dst[m * ld_dst + n] = src[n * M + m] (+ beta * dst[m * ld_dst + n] unless beta is 0) for m < M,
// n < N (src is [N, M], contiguous). Its own loop rather than copy_ / add_out on a transposed view:
// one pass either way, but the iteration engine's tiled pass took ~40 us more of a 1.6 ms linear
// (batch 64, 1024 -> 1024, 1 thread; the two alternated in one binary, three runs each).
void transpose_into(float* dst, int64_t ld_dst, const float* src, int64_t M, int64_t N, float beta) {
  constexpr int64_t T = 16;
  at::parallel_for(0, (N + T - 1) / T, at::internal::grain_for_tasks(M * N, (N + T - 1) / T), [&](int64_t t0, int64_t t1) {
    for (int64_t n0 = t0 * T; n0 < std::min(N, t1 * T); n0 += T) {
      const int64_t n1 = std::min(N, n0 + T);
      for (int64_t m0 = 0; m0 < M; m0 += T) {
        const int64_t m1 = std::min(M, m0 + T);
        if (beta == 0.0f) {
          for (int64_t m = m0; m < m1; ++m)
            for (int64_t n = n0; n < n1; ++n) dst[m * ld_dst + n] = src[n * M + m];
        } else {
          for (int64_t m = m0; m < m1; ++m)
            for (int64_t n = n0; n < n1; ++n) dst[m * ld_dst + n] = src[n * M + m] + beta * dst[m * ld_dst + n];
        }
      }
    }
  });
}

bool blocked_sgemm_gemm(const Operand& c, const Operand& a, const Operand& b, double alpha, double beta) {
  const int64_t M = a.rows, K = a.cols, N = b.cols;
  if (c.batch != 1 || c.sc != 1 || c.sr < N || M * N * K < kBlockedMinFlops) return false;
  if (M < kBlockedMinRows) {  // Note [Few rows through the transposed product]
    if (M < kTransposedMinRows || N < kBlockedMinRows) return false;
    Tensor scratch = at::empty({N, M}, TensorOptions().dtype(kFloat));
    float* t = scratch._mutable_data_ptr_internal<float>();
    // b^T (N x K): element (n, k) is b's (k, n); a^T (K x M): element (k, m) is a's (m, k).
    const BlockedSgemm p{static_cast<const float*>(b.data), static_cast<const float*>(a.data), t, N, M, K,
                         b.sc, b.sr, a.sc, a.sr, M, static_cast<float>(alpha), 0.0f};
    if (!blocked_sgemm_stub(p)) return false;
    transpose_into(static_cast<float*>(c.data), c.sr, t, M, N, static_cast<float>(beta));
    return true;
  }
  const BlockedSgemm p{static_cast<const float*>(a.data), static_cast<const float*>(b.data), static_cast<float*>(c.data),
                       M, N, K, a.sr, a.sc, b.sr, b.sc, c.sr, static_cast<float>(alpha), static_cast<float>(beta)};
  return blocked_sgemm_stub(p);
}

// ---------------------------------------------------------------- portable path
// Row-by-row i-k-j loop over strided operands; each output row is owned by one thread, so the
// result does not depend on the thread count.
template <typename scalar_t>
void loop_gemm(const Operand& c, const Operand& a, const Operand& b, double alpha_d, double beta_d) {
  using acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, std::conditional_t<std::is_same_v<scalar_t, double>, double, float>>;
  const int64_t B = c.batch, M = a.rows, K = a.cols, N = b.cols;
  // Through Scalar: a NaN or out-of-range alpha/beta for an integer product raises (as libtorch),
  // instead of an undefined float-to-int conversion.
  const acc_t alpha = c10::Scalar(alpha_d).to<acc_t>(), beta = c10::Scalar(beta_d).to<acc_t>();
  const scalar_t* pa = static_cast<const scalar_t*>(a.data);
  const scalar_t* pb = static_cast<const scalar_t*>(b.data);
  scalar_t* pc = static_cast<scalar_t*>(c.data);
  const int64_t scb = c.sb, scm = c.sr, scn = c.sc;
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

// out[b] = alpha * a[b] @ b[b] + beta * out[b]. Either all three are 2-D (out [M, N], a [M, K],
// b [K, N]) or all 3-D: out [B, M, N] (written; read only when beta != 0), a [Ba, M, K], b [Bb, K, N]
// with Ba, Bb in {1, B} or batch stride 0.
void gemm(const char* op, const Tensor& out, const Tensor& a3, const Tensor& b3, double alpha, double beta) {
  if (out.numel() == 0) return;
  // Floating products below double scale in float: alpha and beta must be float values (a NaN
  // passes; 1e300 raises, as in libtorch).
  const ScalarType st = out.scalar_type();
  if (isFloatingType(st) && st != kDouble) {
    (void)c10::Scalar(alpha).to<float>();
    (void)c10::Scalar(beta).to<float>();
  }
  if (a3.size(-1) == 0) {
    matmul_utils::scale_empty_sum(out, beta);
    return;
  }
  Tensor a = a3, b = b3;
  Operand oc = as_operand(out), oa = as_operand(a), ob = as_operand(b);
  if (!normalise(oa)) { a = a.contiguous(); oa = as_operand(a); normalise(oa); }
  if (!normalise(ob)) { b = b.contiguous(); ob = as_operand(b); normalise(ob); }
  if (st == kFloat && (small_sgemm_gemm(oc, oa, ob, alpha, beta) || blocked_sgemm_gemm(oc, oa, ob, alpha, beta) ||
                      dnnl_sgemm_gemm(oc, oa, ob, alpha, beta)))
    return;
  if (st == kFloat || st == kBFloat16) {
    if (dnnl_gemm(op, st, oc, oa, ob, alpha, beta)) return;
    // oneDNN declined the strides (e.g. overlapping batches): retry with packed operands.
    if (!a.is_contiguous() || !b.is_contiguous()) {
      Tensor ac = a.contiguous(), bc = b.contiguous();
      Operand pa = as_operand(ac), pb = as_operand(bc);
      normalise(pa);
      normalise(pb);
      if (dnnl_gemm(op, st, oc, pa, pb, alpha, beta)) return;
    }
  }
  if (st == kHalf || st == kBFloat16) {
    // No native kernel here: compute in float32 (oneDNN) and round once.
    Tensor of = beta != 0.0 ? out.to(kFloat) : at::empty(out.sizes(), TensorOptions().dtype(kFloat));
    gemm(op, of, a.to(kFloat), b.to(kFloat), alpha, beta);
    out.copy_(of);
    return;
  }
  AT_DISPATCH_ALL_TYPES(st, "mm", [&] { loop_gemm<scalar_t>(oc, oa, ob, alpha, beta); });
}

}  // namespace

EMBER_DEFINE_DISPATCH(small_sgemm_fn, small_sgemm_stub);
EMBER_DEFINE_DISPATCH(blocked_sgemm_fn, blocked_sgemm_stub);

Tensor mm_cpu(const Tensor& self, const Tensor& mat2) {
  Tensor out = at::empty(matmul_utils::check_mm(self, mat2, kCPU), self.options());
  gemm("mm", out, self, mat2, 1.0, 0.0);
  return out;
}

Tensor bmm_cpu(const Tensor& self, const Tensor& mat2) {
  Tensor out = at::empty(matmul_utils::check_bmm(self, mat2, kCPU), self.options());
  gemm("bmm", out, self, mat2, 1.0, 0.0);
  return out;
}

Tensor addmm_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  Tensor out = at::empty(matmul_utils::check_addmm(self, mat1, mat2, kCPU), mat1.options());
  matmul_utils::init_with(out, self, beta);
  gemm("addmm", out, mat1, mat2, alpha.toDouble(), beta.toDouble());
  return out;
}

Tensor baddbmm_cpu(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  Tensor out = at::empty(matmul_utils::check_baddbmm(self, batch1, batch2, kCPU), batch1.options());
  matmul_utils::init_with(out, self, beta);
  gemm("baddbmm", out, batch1, batch2, alpha.toDouble(), beta.toDouble());
  return out;
}

Tensor dot_cpu(const Tensor& self, const Tensor& tensor) {
  matmul_utils::check_dot(self, tensor, kCPU);
  Tensor out = at::empty({}, self.options());
  const int64_t n = self.size(0), sa = self.stride(0), sb = tensor.stride(0);
  AT_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, self.scalar_type(), "dot", [&] {
    // Accumulate in double (int64 for integers): a long float32 sum keeps full precision.
    using acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, double>;
    const scalar_t* a = self.const_data_ptr<scalar_t>();
    const scalar_t* b = tensor.const_data_ptr<scalar_t>();
    acc_t acc = 0;
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < n; ++i) acc += static_cast<acc_t>(a[i]) * static_cast<acc_t>(b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) acc += static_cast<acc_t>(a[i * sa]) * static_cast<acc_t>(b[i * sb]);
    }
    if constexpr (std::is_same_v<scalar_t, c10::Half> || std::is_same_v<scalar_t, c10::BFloat16>)
      *out._mutable_data_ptr_internal<scalar_t>() = static_cast<scalar_t>(static_cast<float>(acc));
    else
      *out._mutable_data_ptr_internal<scalar_t>() = static_cast<scalar_t>(acc);
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
  if (auto packed = linear_prepacked(input, weight, has_bias ? &*bias : nullptr)) return *packed;  // inference
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
