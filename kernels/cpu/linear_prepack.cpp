// Prepacked weights for the CPU linear (Note [Prepacked linear weights]).
#include "linear_prepack.h"

#include <ATen/core/GradMode.h>
#include <ATen/Parallel.h>
#include <ATen/native/NativeFunctions.h>
#include <c10/core/Storage.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace at::native {

// Note [Prepacked linear weights]
// oneDNN's matmul reads a plain [K, N] weight by packing blocks of it into its own layout on every
// call; given the weight in the layout it asks for (weights format `any`), it skips that: on the
// development machine, batch 64, 1024 -> 1024, float32: 1086 -> 890 us at 1 thread, 626 -> 435 us
// at 2. Inference calls linear again and again with the same weight, so the CPU linear keeps the
// packed copy of a weight it has seen twice unchanged, and uses it while the weight stays so:
//   - "unchanged" is the storage's write generation (Note [Storage write generation]): every
//     in-place or out= op on any alias, and every mutable pointer handed out, advances it; a weight
//     whose memory the library does not own (from_blob, DLPack, mappings) is never packed, since
//     its owner writes behind the library's back;
//   - only when no autograd graph is being recorded for the call (training changes the weights
//     every step: packing would cost a reorder per step for nothing) and only float32 weights of at
//     least kMinWeightElems elements (smaller ones pack in about the time they save);
//   - a weight is packed on its second sighting with the same generation, so a weight seen once
//     costs nothing but a lookup;
//   - the packed copies are bounded (EMBER_LINEAR_PREPACK_MB megabytes, or
//     set_linear_prepack_limit_mb; default 256, 0 turns packing off), least recently used first
//     out, and a weight's copy goes when its storage is freed (the storage's release hook), so no
//     memory outlives the weights;
//   - a weight whose storage ever handed a mutable pointer out through the public accessors
//     (data_ptr, mutable_data_ptr, accessor, DLPack, NumPy) is never packed: such a pointer can be
//     kept and written through after the copy was made, which no generation would show. The
//     library's own code takes its pointers through const_data_ptr or
//     Tensor::_mutable_data_ptr_internal, which do not count as an escape (Note [Storage write
//     generation]), so a weight made, initialised, loaded, copied and printed by the library stays
//     packable (tests/aten/test_linear_prepack.cpp).
// Packing is on by default (256 MiB of copies). It was held back for a while for memory: on a Zen
// 4 (AVX-512, where oneDNN's matmul asks for a blocked weight and copies are kept) it took the
// linear at batch 64, 1024 -> 1024, from 1.32 to 1.19 ms at 1 thread and 0.71-0.78 to 0.60-0.64 ms
// at 2, but raised the MNIST main job's peak resident memory from 503-551 MiB to 578-602 MiB,
// though its one packed weight is 0.8 MB. The cause was glibc's dynamic mmap threshold (freeing a
// mapped chunk raises it; blocks below it then come from the heap, which keeps freed memory
// resident; packing frees larger chunks, oneDNN's reorder): large blocks were malloc'ed then. Since
// the large-block cache maps its blocks itself (Note [Large CPU block cache]) the job peaks at 512
// MiB with packing on or off.
// A copy is kept only when oneDNN asks for a blocked layout: where its matmul reads the weight as a
// plain matrix (the AVX2 build of oneDNN 2.6 picks [k, n] row-major, "ab"), the copy is a mere
// transpose and its matmul was slower than the plain path's sgemm: on a Zen 3, batch 64, 1024 ->
// 1024, 1 thread, 3.08 ms packed against 1.76 ms plain.
// The packed layout is chosen for the batch size of the call that packs; other batch sizes reuse it
// (a primitive per batch size, up to kPrimsPerWeight) and fall back to the plain path if oneDNN has
// no implementation for it.
namespace {

constexpr int64_t kMinWeightElems = 1 << 16;
constexpr size_t kDefaultLimitMb = 256;
std::atomic<bool> g_keep_plain{false};  // set_linear_prepack_keep_plain
constexpr size_t kPrimsPerWeight = 4;
constexpr size_t kMaxSightings = 4096;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

struct Prim {
  int64_t m = 0;
  bool bias = false;
  int threads = 0;
  dnnl::matmul prim;
  dnnl::memory::desc scratch_md;
};

struct Packed {
  uint64_t writes = 0;                   // the storage generation the copy was made at
  int64_t offset = 0, n = 0, k = 0;      // which part of the storage, as [n, k] rows
  dnnl::memory::desc md;                 // the packed layout of weight^T ([k, n])
  std::shared_ptr<uint8_t[]> data;       // the packed bytes (64-byte aligned inside)
  void* aligned = nullptr;
  size_t bytes = 0;
  std::mutex mu;  // guards prims
  std::vector<std::shared_ptr<Prim>> prims;
};

struct Entry {
  uint64_t seen_writes = 0;  // the generation at the last sighting
  int64_t seen_offset = -1, seen_n = 0, seen_k = 0;
  bool declined = false;  // packing gave nothing at seen_writes
  std::shared_ptr<Packed> packed;
  std::list<uint64_t>::iterator lru;
};

class Cache {
 public:
  static Cache& get() {
    static Cache* c = [] {
      auto* cache = new Cache();  // never destroyed: storages may be freed during exit
      c10::StorageImpl::set_release_derived_hook([](uint64_t uid) { Cache::get().forget(uid); });
      return cache;
    }();
    return *c;
  }

  size_t limit() {
    std::lock_guard<std::mutex> g(mu_);
    return limit_;
  }
  size_t set_limit(size_t bytes) {  // returns the old limit
    std::lock_guard<std::mutex> g(mu_);
    const size_t old = limit_;
    limit_ = bytes;
    while (bytes_ > limit_) {  // drop copies, least recently used first
      bool dropped = false;
      for (auto it = lru_.rbegin(); it != lru_.rend() && !dropped; ++it) {
        Entry& e = entries_.at(*it);
        if (e.packed) drop_packed(e), dropped = true;
      }
      if (!dropped) break;
    }
    return old;
  }

  // The packed copy for this weight (packing it now if this is its second unchanged sighting), or
  // null: use the plain path.
  std::shared_ptr<Packed> lookup(c10::StorageImpl* s, int64_t offset, int64_t n, int64_t k, const float* w, int64_t m) {
    const uint64_t uid = s->uid(), gen = s->writes();
    std::lock_guard<std::mutex> g(mu_);
    auto it = entries_.find(uid);
    if (it == entries_.end()) {
      if (entries_.size() >= kMaxSightings) evict_one();
      lru_.push_front(uid);
      Entry e;
      e.seen_writes = gen, e.seen_offset = offset, e.seen_n = n, e.seen_k = k, e.lru = lru_.begin();
      entries_.emplace(uid, std::move(e));
      return nullptr;
    }
    Entry& e = it->second;
    lru_.splice(lru_.begin(), lru_, e.lru);
    if (e.packed && e.packed->writes == gen && e.packed->offset == offset && e.packed->n == n && e.packed->k == k) {
      ++stats_.hits;
      return e.packed;
    }
    const bool again = e.seen_writes == gen && e.seen_offset == offset && e.seen_n == n && e.seen_k == k;
    e.seen_writes = gen, e.seen_offset = offset, e.seen_n = n, e.seen_k = k;
    drop_packed(e);
    if (!again) {
      e.declined = false;
      return nullptr;
    }
    if (e.declined) return nullptr;
    std::shared_ptr<Packed> p = pack(w, n, k, m);
    if (!p) {
      e.declined = true;
      return nullptr;
    }
    p->writes = gen, p->offset = offset;
    while (bytes_ + p->bytes > limit_ && evict_one(uid)) {
    }
    if (bytes_ + p->bytes > limit_) {
      e.declined = true;
      return nullptr;
    }
    bytes_ += p->bytes;
    e.packed = p;
    s->mark_derived();
    ++stats_.packs;
    return p;
  }

  void forget(uint64_t uid) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = entries_.find(uid);
    if (it == entries_.end()) return;
    drop_packed(it->second);
    lru_.erase(it->second.lru);
    entries_.erase(it);
  }

  LinearPrepackStats stats() {
    std::lock_guard<std::mutex> g(mu_);
    LinearPrepackStats s = stats_;
    s.packed_bytes = bytes_;
    s.entries = entries_.size();
    return s;
  }

 private:
  Cache() {
    const char* env = std::getenv("EMBER_LINEAR_PREPACK_MB");
    limit_ = (env && *env ? static_cast<size_t>(std::strtoull(env, nullptr, 10)) : kDefaultLimitMb) << 20;
  }

  void drop_packed(Entry& e) {
    if (!e.packed) return;
    bytes_ -= e.packed->bytes;
    e.packed.reset();
  }

  // Drops the least recently used entry other than `keep`; false when there is none.
  bool evict_one(uint64_t keep = 0) {
    if (lru_.empty() || lru_.back() == keep) return false;
    const uint64_t uid = lru_.back();
    lru_.pop_back();
    auto it = entries_.find(uid);
    drop_packed(it->second);
    entries_.erase(it);
    return true;
  }

  // Reorders the [n, k] row-major weight into the layout oneDNN's matmul picks for [m, k] x [k, n].
  static std::shared_ptr<Packed> pack(const float* w, int64_t n, int64_t k, int64_t m) {
    using dims = dnnl::memory::dims;
    using dt = dnnl::memory::data_type;
    try {
      const dnnl::memory::desc src({m, k}, dt::f32, dims{k, 1}), any({k, n}, dt::f32, dnnl::memory::format_tag::any),
          plain({k, n}, dt::f32, dims{1, k}), dst({m, n}, dt::f32, dims{n, 1});
#if DNNL_VERSION_MAJOR >= 3
      dnnl::matmul::primitive_desc pd(engine(), src, any, dst);
#else
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, any, dst), engine());
#endif
      auto p = std::make_shared<Packed>();
      p->n = n, p->k = k, p->md = pd.weights_desc();
      if (p->md == plain) return nullptr;  // oneDNN reads the weight as it is: nothing to gain
      const dnnl::memory::desc rowmajor({k, n}, dt::f32, dims{n, 1});
      if (p->md == rowmajor && !g_keep_plain.load(std::memory_order_relaxed)) return nullptr;  // a transpose: slower
      p->bytes = p->md.get_size();
      p->data = std::shared_ptr<uint8_t[]>(new uint8_t[p->bytes + 64]);
      const auto addr = reinterpret_cast<uintptr_t>(p->data.get());
      p->aligned = p->data.get() + (64 - addr % 64) % 64;
      dnnl::memory from(plain, engine(), const_cast<float*>(w)), to(p->md, engine(), p->aligned);
      dnnl::stream st(engine());
      dnnl::reorder(from, to).execute(st, from, to);
      st.wait();
      return p;
    } catch (const dnnl::error&) {
      return nullptr;
    }
  }

  std::mutex mu_;
  std::unordered_map<uint64_t, Entry> entries_;
  std::list<uint64_t> lru_;  // most recently used first
  size_t bytes_ = 0, limit_ = 0;
  LinearPrepackStats stats_;
};

// The primitive for this call's batch size on the packed layout (null: oneDNN has none).
std::shared_ptr<Prim> prim_for(Packed& p, int64_t m, bool bias) {
  const int threads = at::get_num_threads();
  std::lock_guard<std::mutex> g(p.mu);
  for (auto& q : p.prims)
    if (q->m == m && q->bias == bias && q->threads == threads) return q;
  using dims = dnnl::memory::dims;
  using dt = dnnl::memory::data_type;
  auto q = std::make_shared<Prim>();
  q->m = m, q->bias = bias, q->threads = threads;
  try {
    const dnnl::memory::desc src({m, p.k}, dt::f32, dims{p.k, 1}), dst({m, p.n}, dt::f32, dims{p.n, 1}),
        bmd({1, p.n}, dt::f32, dims{p.n, 1});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
#if DNNL_VERSION_MAJOR >= 3
    auto pd = bias ? dnnl::matmul::primitive_desc(engine(), src, p.md, bmd, dst, attr)
                   : dnnl::matmul::primitive_desc(engine(), src, p.md, dst, attr);
#else
    auto d = bias ? dnnl::matmul::desc(src, p.md, bmd, dst) : dnnl::matmul::desc(src, p.md, dst);
    dnnl::matmul::primitive_desc pd(d, attr, engine());
#endif
    q->prim = dnnl::matmul(pd);
    q->scratch_md = pd.scratchpad_desc();
  } catch (const dnnl::error&) {
    return nullptr;
  }
  if (p.prims.size() >= kPrimsPerWeight) p.prims.erase(p.prims.begin());
  p.prims.push_back(q);
  return q;
}

}  // namespace

LinearPrepackStats linear_prepack_stats() { return Cache::get().stats(); }
size_t set_linear_prepack_limit_mb(size_t mb) { return Cache::get().set_limit(mb << 20) >> 20; }
bool set_linear_prepack_keep_plain(bool keep) { return g_keep_plain.exchange(keep); }

std::optional<Tensor> linear_prepacked(const Tensor& input, const Tensor& weight, const Tensor* bias) {
  if (!input.defined() || !weight.defined() || !input.device().is_cpu() || !weight.device().is_cpu()) return std::nullopt;
  if (input.scalar_type() != kFloat || weight.scalar_type() != kFloat || weight.dim() != 2 || input.dim() < 2) return std::nullopt;
  if (bias && (!bias->device().is_cpu() || bias->scalar_type() != kFloat || bias->dim() != 1)) return std::nullopt;
  const int64_t n = weight.size(0), k = weight.size(1);
  if (n * k < kMinWeightElems || input.size(-1) != k || (bias && bias->size(0) != n)) return std::nullopt;
  if (!weight.is_contiguous() || !input.is_contiguous() || (bias && !bias->is_contiguous())) return std::nullopt;
  if (GradMode::is_enabled() && (input.requires_grad() || weight.requires_grad() || (bias && bias->requires_grad())))
    return std::nullopt;
  c10::StorageImpl* s = weight.storage().unsafeGetStorageImpl();
  if (!s || !s->resizable_ || s->escaped()) return std::nullopt;  // memory the library does not own or cannot see written
  const int64_t m = input.numel() / k;
  if (m < 2) return std::nullopt;  // batch 1 has its own path (Note [Large products through oneDNN's sgemm])
  Cache& cache = Cache::get();
  if (cache.limit() == 0) return std::nullopt;
  std::shared_ptr<Packed> p = cache.lookup(s, weight.storage_offset(), n, k, weight.const_data_ptr<float>(), m);
  if (!p) return std::nullopt;
  std::shared_ptr<Prim> q = prim_for(*p, m, bias != nullptr);
  if (!q) return std::nullopt;

  std::vector<int64_t> out_shape(input.sizes().begin(), input.sizes().end() - 1);
  out_shape.push_back(n);
  Tensor out = at::empty(out_shape, input.options());
  if (m == 0 || n == 0) return out;
  using dt = dnnl::memory::data_type;
  using dims = dnnl::memory::dims;
  dnnl::memory src({{m, k}, dt::f32, dims{k, 1}}, engine(), const_cast<float*>(input.const_data_ptr<float>()));
  dnnl::memory wts(p->md, engine(), p->aligned);
  dnnl::memory dst({{m, n}, dt::f32, dims{n, 1}}, engine(), out._mutable_data_ptr_internal<float>());
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wts}, {DNNL_ARG_DST, dst}};
  if (bias) args.emplace(DNNL_ARG_BIAS, dnnl::memory({{1, n}, dt::f32, dims{n, 1}}, engine(), const_cast<float*>(bias->const_data_ptr<float>())));
  Tensor scratch;
  if (q->scratch_md.get_size() > 0) {
    scratch = at::empty({static_cast<int64_t>(q->scratch_md.get_size())}, TensorOptions().dtype(kByte));
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(q->scratch_md, engine(), scratch._mutable_data_ptr_internal()));
  }
  dnnl::stream st(engine());
  q->prim.execute(st, args);
  st.wait();
  return out;
}

}  // namespace at::native
