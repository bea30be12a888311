// The iteration engine. See the usage example in ATen/TensorIterator.h.
#include <ATen/TensorIterator.h>
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <c10/util/safe_numerics.h>
#include <algorithm>
#include <cstdlib>

namespace ember {
using at::ScalarType;
using at::Tensor;

namespace {
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (c10::isFloatingType(higher)) return higher;
  if (higher == ScalarType::Bool || c10::isFloatingType(lower)) return c10::promoteTypes(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}
ScalarType wrapped_dtype(ScalarType t) {
  // A Python-style number contributes only its category: floats count as the default dtype.
  return c10::isFloatingType(t) ? c10::get_default_dtype() : t;
}
}  // namespace

ScalarType result_type(std::initializer_list<const Tensor*> tensors, c10::ArrayRef<at::Scalar> scalars) {
  ScalarType dim = ScalarType::Undefined, zero = ScalarType::Undefined, wrapped = ScalarType::Undefined;
  for (const Tensor* t : tensors) {
    if (!t || !t->defined()) continue;
    c10::TensorImpl* impl = t->unsafeGetTensorImpl();
    if (impl->is_wrapped_number()) wrapped = c10::promoteTypes(wrapped, wrapped_dtype(impl->dtype()));
    else if (impl->dim() == 0) zero = c10::promoteTypes(zero, impl->dtype());
    else dim = c10::promoteTypes(dim, impl->dtype());
  }
  for (const at::Scalar& s : scalars) wrapped = c10::promoteTypes(wrapped, wrapped_dtype(s.type()));
  return combine_categories(dim, combine_categories(zero, wrapped));
}

bool can_cast(ScalarType from, ScalarType to) {
  if (c10::isFloatingType(from) && c10::isIntegralType(to, true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

std::vector<int64_t> broadcast_shapes(const char* op, at::IntArrayRef a, at::IntArrayRef b) {
  size_t nd = std::max(a.size(), b.size());
  std::vector<int64_t> out(nd);
  for (size_t i = 0; i < nd; ++i) {
    int64_t da = i < nd - a.size() ? 1 : a[i - (nd - a.size())];
    int64_t db = i < nd - b.size() ? 1 : b[i - (nd - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1, "[", op, "] expected sizes that broadcast at dim ", i,
                " (equal, or one of them 1); got ", da, " and ", db, " for shapes ", a, " and ", b);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void TensorIter::build_pointwise(const PointwiseSpec& spec, Tensor* out, std::initializer_list<const Tensor*> inputs,
                                 c10::ArrayRef<at::Scalar> wrapped, at::DeviceType backend) {
  const char* name = spec.name;
  EMBER_INTERNAL_ASSERT(inputs.size() + 1 <= kMaxOperands, "too many operands");
  ntensors_ = static_cast<int>(inputs.size()) + 1;

  // Devices: every input on the backend's device, except 0-dim CPU tensors (moved over).
  at::Device dev = (*inputs.begin())->device();
  for (const Tensor* t : inputs) {
    if (t->device().type() != backend && !(t->dim() == 0 && t->is_cpu())) {
      throw c10::Error(c10::str("[", name, "] expected all tensors on ", at::Device(backend), "; got a tensor on ", t->device()));
    }
    if (t->device().type() == backend) dev = t->device();
  }
  for (const Tensor* t : inputs)
    EMBER_CHECK(t->device().type() != backend || t->device() == dev, "[", name,
                "] expected all tensors on one device; got ", dev, " and ", t->device());

  // dtypes.
  ScalarType common;
  if (spec.promote == Promote::None) common = (*inputs.begin())->scalar_type();
  else if (inputs.size() == 1 && wrapped.size() == 0) common = (*inputs.begin())->scalar_type();
  else common = result_type(inputs, wrapped);
  if (spec.promote == Promote::IntToFloat && !c10::isFloatingType(common)) common = c10::get_default_dtype();
  common_ = common;
  ScalarType result = spec.promote == Promote::AlwaysBool ? ScalarType::Bool : common;

  // Shape.
  at::IntArrayRef shape = (*inputs.begin())->sizes();
  std::vector<int64_t> bshape;
  bool same = true;
  for (const Tensor* t : inputs) same = same && t->sizes() == shape;
  if (!same) {
    bshape = shape.vec();
    for (const Tensor* t : inputs) bshape = broadcast_shapes(name, bshape, t->sizes());
    shape = bshape;
  }

  // Inputs, cast to the common dtype (and moved to the device for 0-dim CPU scalars).
  // Inputs are borrowed (the caller's arguments outlive the iteration) unless they need a cast.
  int k = 1;
  for (const Tensor* t : inputs) {
    if (t->device() != dev || t->scalar_type() != common) {
      Tensor in = *t;
      if (in.device() != dev) in = in.to(dev);
      if (in.scalar_type() != common) in = in.to(common);
      owned_[k] = std::move(in);
      ops_[k] = &owned_[k];
    } else {
      ops_[k] = t;
    }
    ++k;
  }

  if (out) {
    EMBER_CHECK(out->defined(), "[", name, "] out= tensor is undefined");
    EMBER_CHECK(out->device() == dev, "[", name, "] expected out on ", dev, "; got out on ", out->device());
    EMBER_CHECK(can_cast(result, out->scalar_type()), "[", name, "] expected an output dtype that the result dtype ",
                c10::toString(result), " can be cast to; got output dtype ", c10::toString(out->scalar_type()));
    // The out tensor as given, before any resize: an expanded out is refused even when the result
    // is empty (libtorch checks it there too).
    at::check_no_internal_overlap(*out, name);
    bool inplace = false;
    for (const Tensor* t : inputs) inplace = inplace || t->is_same(*out);
    if (inplace) {
      EMBER_CHECK(out->sizes() == shape, "[", name, "] expected the in-place output to have the broadcast shape ", shape,
                  "; got output shape ", out->sizes());
    } else if (out->sizes() != shape) {
      out->resize_(shape);
    }
    // Write straight into `out` when the dtype matches. An input that partly overlaps the output
    // is an error (as in libtorch); one whose overlap is too costly to decide is read from a
    // copy of the result instead, so the answer never depends on the visiting order.
    bool direct = out->scalar_type() == result;
    for (const Tensor* t : inputs) {
      const at::MemOverlap o = at::mem_overlap(*out, *t);
      EMBER_CHECK(o != at::MemOverlap::Partial, "[", name,
                  "] expected inputs that share no memory with the output, or exactly the output's elements; got an "
                  "input that overlaps part of it (clone() the input first)");
      if (o == at::MemOverlap::Unknown) direct = false;
    }
    if (direct) {
      ops_[0] = out;
    } else {
      user_out_ = *out;
      owned_[0] = at::make_empty(shape, result, dev);
      ops_[0] = &owned_[0];
    }
    compute_layout(false, shape, result, name);
  } else {
    // Note [Contiguous fast path]: inputs of one shape, all contiguous, make a contiguous output
    // and a single run of numel elements — what compute_layout would find, without its per-dim
    // stride sorting and merging (a fifth of a 1-element add's time). The inputs' element count is
    // already known to fit.
    bool contiguous = same;
    for (int i = 1; i < ntensors_ && contiguous; ++i) contiguous = ops_[i]->unsafeGetTensorImpl()->is_contiguous();
    if (!contiguous) return compute_layout(true, shape, result, name);
    numel_ = ops_[1]->numel();
    owned_[0] = at::make_empty(shape, result, dev);
    ops_[0] = &owned_[0];
    if (numel_ <= 1) {
      ndim_ = 0;  // one element (or none): run() makes a single call with n = numel_
      return;
    }
    ndim_ = 1;
    shape_[0] = numel_;
    for (int i = 0; i < ntensors_; ++i) strides_[i][0] = static_cast<int64_t>(ops_[i]->element_size());
  }
}

void TensorIter::build_copy(const Tensor& dst, const Tensor& src) {
  ntensors_ = 2;
  EMBER_CHECK(src.defined(), "[copy_] source tensor is undefined");
  EMBER_CHECK(src.sizes() == dst.sizes() || broadcast_shapes("copy_", dst.sizes(), src.sizes()) == dst.sizes().vec(),
              "[copy_] source of shape ", src.sizes(), " does not broadcast to destination of shape ", dst.sizes());
  ops_[0] = &dst;
  ops_[1] = &src;
  common_ = src.scalar_type();
  compute_layout(false, dst.sizes(), dst.scalar_type(), "copy_");
}

void TensorIter::build_raw(std::initializer_list<const Tensor*> ops) {
  ntensors_ = 0;
  for (const Tensor* t : ops) ops_[ntensors_++] = t;
  common_ = ops_[0]->scalar_type();
  compute_layout(false, ops_[0]->sizes(), common_, "iter");
}

void TensorIter::compute_layout(bool allocate_output, at::IntArrayRef out_sizes, ScalarType out_dtype, const char* name) {
  // Dims of size 1 take no part in the iteration: only the others count against kMaxDims, so a
  // tensor of any rank works as long as at most kMaxDims of its dims have a size other than 1.
  // live[i] = the output dim behind iteration dim i.
  const int nd_all = static_cast<int>(out_sizes.size());
  int live[kMaxDims];
  int nd = 0;
  // Inputs each fit, but a broadcast shape combines their sizes: check its count too.
  EMBER_CHECK(c10::safe_numel(out_sizes, &numel_), "[", name,
              "] expected a broadcast shape whose number of elements fits in int64; got sizes ", out_sizes);
  for (int d = 0; d < nd_all; ++d) {
    if (out_sizes[d] == 1) continue;
    EMBER_CHECK(nd < kMaxDims, "[", name, "] expected at most ", kMaxDims, " dims of size other than 1; got sizes ",
                out_sizes);
    live[nd++] = d;
  }

  // Broadcast byte strides per operand, in the tensors' own dim order (outer first).
  int64_t st[kMaxOperands][kMaxDims];
  for (int k = allocate_output ? 1 : 0; k < ntensors_; ++k) {
    const Tensor& t = *ops_[k];
    const int64_t es = static_cast<int64_t>(t.element_size());
    const int off = nd_all - static_cast<int>(t.dim());
    for (int d = 0; d < nd; ++d) {
      int td = live[d] - off;
      // An empty iteration visits nothing, and its strides may be anything (as_strided leaves a
      // view with a zero size unchecked): keep them out of the byte arithmetic.
      st[k][d] = (td < 0 || t.size(td) == 1 || numel_ == 0) ? 0 : t.stride(td) * es;
    }
  }
  if (allocate_output) for (int d = 0; d < nd; ++d) st[0][d] = 0;

  // perm[i] = iteration dim placed at position i, innermost first. Start from the natural order
  // and insertion-sort by strides so that the innermost position has the smallest stride.
  int perm[kMaxDims];
  for (int i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  auto should_swap = [&](int inner, int outer) {  // true if `outer` should be inside `inner`
    for (int k = 0; k < ntensors_; ++k) {
      int64_t a = st[k][inner], b = st[k][outer];
      if (a == 0 || b == 0) continue;
      if (a != b) return b < a;
    }
    return false;
  };
  for (int i = 1; i < nd; ++i) {
    for (int j = i; j > 0; --j) {
      if (should_swap(perm[j - 1], perm[j])) std::swap(perm[j - 1], perm[j]);
      else break;
    }
  }

  if (allocate_output) {
    // Dense output in the permuted order (so a transposed input gives a transposed result).
    const at::Device dev = ops_[1]->device();
    bool natural = true;
    for (int i = 0; i < nd; ++i) natural = natural && perm[i] == nd - 1 - i;
    if (natural) {
      owned_[0] = at::make_empty(out_sizes, out_dtype, dev);
    } else {
      std::vector<int64_t> strides(static_cast<size_t>(nd_all), 0);
      int64_t s = 1;
      for (int i = 0; i < nd; ++i) {
        strides[live[perm[i]]] = s;
        s *= std::max<int64_t>(out_sizes[live[perm[i]]], 1);
      }
      // A size-1 dim gets the stride it would have in a contiguous layout of the dims after it.
      for (int d = nd_all - 1; d >= 0; --d)
        if (out_sizes[d] == 1) strides[d] = d == nd_all - 1 ? 1 : strides[d + 1] * std::max<int64_t>(out_sizes[d + 1], 1);
      owned_[0] = at::make_empty_strided_raw(out_sizes, strides, out_dtype, dev);
    }
    ops_[0] = &owned_[0];
    const Tensor& o = owned_[0];
    const int64_t es = static_cast<int64_t>(o.element_size());
    for (int d = 0; d < nd; ++d) st[0][d] = numel_ == 0 ? 0 : o.stride(live[d]) * es;
  }

  // Permute, then coalesce adjacent dims that are one linear run for every operand.
  int64_t sh[kMaxDims], ps[kMaxOperands][kMaxDims];
  for (int i = 0; i < nd; ++i) {
    sh[i] = out_sizes[live[perm[i]]];
    for (int k = 0; k < ntensors_; ++k) ps[k][i] = st[k][perm[i]];
  }
  int n = 0;
  if (nd > 0) {
    shape_[0] = sh[0];
    for (int k = 0; k < ntensors_; ++k) strides_[k][0] = ps[k][0];
    n = 1;
    for (int i = 1; i < nd; ++i) {
      bool can = true;
      for (int k = 0; k < ntensors_ && can; ++k)
        can = sh[i] == 1 || shape_[n - 1] == 1 || ps[k][i] == strides_[k][n - 1] * shape_[n - 1];
      if (can) {
        if (shape_[n - 1] == 1) for (int k = 0; k < ntensors_; ++k) strides_[k][n - 1] = ps[k][i];
        shape_[n - 1] *= sh[i];
      } else {
        shape_[n] = sh[i];
        for (int k = 0; k < ntensors_; ++k) strides_[k][n] = ps[k][i];
        ++n;
      }
    }
  }
  ndim_ = n;
}

bool TensorIter::is_contiguous() const {
  if (ndim_ > 1) return false;
  if (ndim_ == 0) return true;
  for (int k = 0; k < ntensors_; ++k)
    if (strides_[k][0] != static_cast<int64_t>(ops_[k]->element_size())) return false;
  return true;
}

// Note [Tiled iteration]
// The loop runs along dim 0 (the output's fastest dim). When an input is laid out the other way
// round — a.t() + b: contiguous along dim 1, a whole row apart along dim 0 — a row of the output
// touches one element of as many different cache lines and pages as the row is long, and the next
// row comes back to the same lines after they and their TLB entries are gone: every element is a
// miss. Such iterations go through dims 0 and 1 in tiles of kTile0 x kTile1 elements instead (one
// loop call per tile row): within a tile, the transposed operand's kTile0 lines and pages stay
// cached while kTile1 rows use them. Elementwise results do not depend on the visiting order.
namespace {
constexpr int64_t kTile0 = 32, kTile1 = 32;

bool wants_tiles(const TensorIter& it) {
  const int ndim_ = it.ndim(), ntensors_ = it.ntensors();
  const int64_t* shape_ = it.shape();
  if (ndim_ < 2 || shape_[0] < 2 * kTile0 || shape_[1] < 2 * kTile1) return false;
  for (int k = 0; k < ntensors_; ++k) {
    const int64_t es = static_cast<int64_t>(it.operand(k).element_size());
    const int64_t s0 = std::abs(it.strides(k)[0]), s1 = std::abs(it.strides(k)[1]);
    // Dim 1 is this operand's short step and dim 0 jumps further than a cache line.
    if (s1 != 0 && s1 <= es && s0 > 64) return true;
  }
  return false;
}

void run_tiled(const TensorIter& it, TensorIter::Loop loop, void* ctx, int64_t grain) {
  constexpr int kMaxOperands = TensorIter::kMaxOperands;
  const int ndim_ = it.ndim(), ntensors_ = it.ntensors();
  const int64_t* shape_ = it.shape();
  const int64_t* strides_[kMaxOperands];
  for (int k = 0; k < ntensors_; ++k) strides_[k] = it.strides(k);
  const int64_t n0 = shape_[0], n1 = shape_[1];
  const int64_t t0 = at::divup(n0, kTile0), t1 = at::divup(n1, kTile1);
  int64_t outer = 1;
  for (int d = 2; d < ndim_; ++d) outer *= shape_[d];
  const int64_t tiles = outer * t1 * t0;
  const int64_t tile_grain = std::max<int64_t>(1, grain / (kTile0 * kTile1));
  at::parallel_for(0, tiles, tile_grain, [&](int64_t b, int64_t e) {
    int64_t inner[kMaxOperands], outer1[kMaxOperands];
    for (int k = 0; k < ntensors_; ++k) inner[k] = strides_[k][0], outer1[k] = strides_[k][1];
    char* base[kMaxOperands];
    char* ptrs[kMaxOperands];
    for (int64_t t = b; t < e; ++t) {
      const int64_t j0 = t % t0, j1 = (t / t0) % t1;
      int64_t o = t / (t0 * t1);
      for (int k = 0; k < ntensors_; ++k) base[k] = it.data(k);
      for (int d = 2; d < ndim_; ++d) {
        const int64_t c = o % shape_[d];
        o /= shape_[d];
        for (int k = 0; k < ntensors_; ++k) base[k] += c * strides_[k][d];
      }
      const int64_t i0 = j0 * kTile0, m0 = std::min(kTile0, n0 - i0);
      const int64_t i1 = j1 * kTile1, m1 = std::min(kTile1, n1 - i1);
      // One call for the tile's m1 rows (Note [Rows per loop call]).
      for (int k = 0; k < ntensors_; ++k) ptrs[k] = base[k] + i0 * strides_[k][0] + i1 * strides_[k][1];
      loop(ctx, ntensors_, ptrs, inner, m0, m1, outer1);
    }
  });
}
}  // namespace

void TensorIter::run(Loop loop, void* ctx, int64_t grain) const {
  if (wants_tiles(*this)) return run_tiled(*this, loop, ctx, grain);  // Note [Tiled iteration]
  // Workers: min(get_num_threads(), numel / grain); one grain or less runs here without a region.
  at::parallel_for(0, numel_, grain, [&](int64_t b, int64_t e) { run_range(loop, ctx, b, e); });
}

// Note [Rows per loop call]
// An iteration of two or more dims reaches the loop one row (dim 0) at a time. When dim 0 is short
// — a channels-last tensor times a per-channel vector iterates rows of C elements, N*H*W of them —
// an indirect call and the loop's set-up per row cost as much as the row's work (36% of such an
// addcmul went to this function alone). So the rows of dim 1 that are wholly inside the range go
// to the loop in one call, with dim 1's strides; loops that take rows hoist their set-up out of
// them, the others are called per row from an inlined loop (TensorIter::invoke). Which elements
// are visited, and in what order, does not change.
void TensorIter::run_range(Loop loop, void* ctx, int64_t begin, int64_t end) const {
  char* ptrs[kMaxOperands];
  int64_t inner[kMaxOperands], outer[kMaxOperands];
  for (int k = 0; k < ntensors_; ++k) {
    ptrs[k] = data(k);
    inner[k] = ndim_ > 0 ? strides_[k][0] : 0;
    outer[k] = ndim_ > 1 ? strides_[k][1] : 0;
  }
  if (ndim_ <= 1) {
    for (int k = 0; k < ntensors_; ++k) ptrs[k] += begin * inner[k];
    loop(ctx, ntensors_, ptrs, inner, end - begin, 1, outer);
    return;
  }
  int64_t counter[kMaxDims];
  int64_t rem = begin;
  for (int d = 0; d < ndim_; ++d) {
    counter[d] = rem % shape_[d];
    rem /= shape_[d];
    for (int k = 0; k < ntensors_; ++k) ptrs[k] += counter[d] * strides_[k][d];
  }
  // Moves the position on by `steps` along dim d (counter[d] + steps <= shape_[d]), carrying into the
  // dims above when dim d wraps; dims below d are at 0.
  const auto advance = [&](int d, int64_t steps) {
    counter[d] += steps;
    for (int k = 0; k < ntensors_; ++k) ptrs[k] += steps * strides_[k][d];
    while (counter[d] == shape_[d] && d + 1 < ndim_) {
      for (int k = 0; k < ntensors_; ++k) ptrs[k] -= counter[d] * strides_[k][d];
      counter[d] = 0;
      ++d;
      ++counter[d];
      for (int k = 0; k < ntensors_; ++k) ptrs[k] += strides_[k][d];
    }
  };
  const int64_t row = shape_[0];
  int64_t todo = end - begin;
  while (todo > 0) {
    if (counter[0] == 0 && todo >= row) {
      const int64_t rows = std::min(shape_[1] - counter[1], todo / row);
      loop(ctx, ntensors_, ptrs, inner, row, rows, outer);
      todo -= rows * row;
      if (todo == 0) break;
      advance(1, rows);
    } else {
      const int64_t n = std::min(row - counter[0], todo);
      loop(ctx, ntensors_, ptrs, inner, n, 1, outer);
      todo -= n;
      if (todo == 0) break;
      advance(0, n);
    }
  }
}

void TensorIter::finish() {
  if (user_out_.defined()) {
    user_out_.copy_(*ops_[0]);
    user_out_ = Tensor();
  }
}

}  // namespace ember

// Note [Streaming stores] in ATen/native/cpu/Loops.h: the threshold, a third of the last-level
// cache in bytes touched but at most 64 MiB (32 MiB assumed where the size is not reported), or
// EMBER_STREAMING_STORE_MIN_MB (< 0: never stream). The cap: a guest with two vCPUs reports its
// host's whole L3 (260 MiB on one development machine, 480 MiB on the next), most of it used by
// other guests; measured on the 480 MiB one (exp then sigmoid reading exp's output, 1 thread),
// streaming with prefetch beat normal stores with prefetch from 64 MiB touched per op (8.1 vs
// 9.3 ms) and lost at 32 MiB (3.5 vs 3.1 ms); on the 260 MiB one the crossover was near 96 MiB.
#include <atomic>
#include <unistd.h>

namespace at::native {
namespace {
int64_t initial_streaming_store_min_bytes() {
  if (const char* env = std::getenv("EMBER_STREAMING_STORE_MIN_MB"); env && *env) {
    char* end = nullptr;
    const long long mb = std::strtoll(env, &end, 10);
    if (end && *end == '\0') return mb < 0 ? -1 : static_cast<int64_t>(mb) << 20;
  }
  int64_t llc = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  llc = static_cast<int64_t>(sysconf(_SC_LEVEL3_CACHE_SIZE));
#endif
  if (llc <= 0) llc = int64_t{32} << 20;
  return std::min<int64_t>(llc / 3, int64_t{64} << 20);
}
std::atomic<int64_t>& streaming_store_min() {
  static std::atomic<int64_t> v{initial_streaming_store_min_bytes()};
  return v;
}
}  // namespace

int64_t streaming_store_min_bytes() { return streaming_store_min().load(std::memory_order_relaxed); }
int64_t set_streaming_store_min_bytes(int64_t bytes) {
  return streaming_store_min().exchange(bytes < 0 ? -1 : bytes, std::memory_order_relaxed);
}
}  // namespace at::native
