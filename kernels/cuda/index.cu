// Indexing kernels on CUDA: index_select, gather, scatter_ / scatter_add_, masked_fill_,
// masked_select, nonzero, one_hot, and advanced indexing (index / index_put_). The host-side
// checks are the CPU's (ATen/native/IndexUtils.h); see Note [CUDA index checks].
//
// Note [CUDA index checks]
// Index values are range-checked by a small kernel before anything is written, which sets a
// device flag that the host reads back (one stream sync). When the flag is set, the CPU check
// runs on a host copy of the index, so the error (type, first bad value, message) is the CPU's,
// and an in-place op leaves self unchanged on error, as on the CPU.
//
// Note [CUDA scatter determinism]
// scatter_ with repeated indices keeps the last write in index order, like the CPU: one thread
// walks each line along `dim` (the only elements that can hit the same target). index_put_
// (accumulate=false) does the same per destination with an atomicMax "winner" pass. The adding
// variants use atomics, so float sums may differ from the CPU's serial order by rounding.
#include "index_common.cuh"
#include <cub/device/device_scan.cuh>
#include <limits>

namespace at::native {
using namespace cuda_index;

namespace cuda_index {
namespace {

__global__ void range_kernel(const int64_t* p, int64_t n, int64_t lo, int64_t hi, int32_t* flag) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    if (p[i] < lo || p[i] >= hi) *flag = 1;
}

__global__ void scatter_positions_kernel(const int64_t* pos, int64_t n, int64_t* out) {
  // pos is the inclusive scan of 0/1 flags: element i is selected when pos[i] > pos[i - 1].
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t prev = i == 0 ? 0 : pos[i - 1];
    if (pos[i] != prev) out[prev] = i;
  }
}

}  // namespace

bool any_out_of_range(const Tensor& idx, int64_t lo, int64_t hi) {
  const int64_t n = idx.numel();
  if (n == 0) return false;
  ::ember::cuda::DeviceGuard guard(idx.device().index());
  Tensor flag = make_flag(idx.device());
  range_kernel<<<grid_for(n), kThreads, 0, ::ember::cuda::current_stream()>>>(idx._mutable_data_ptr_internal<int64_t>(), n, lo, hi,
                                                                               flag._mutable_data_ptr_internal<int32_t>());
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("index range check");
  return flag_set(flag);
}

Tensor inclusive_scan(const Tensor& flags, int64_t& count) {
  const int64_t n = flags.numel();
  Tensor pos = at::empty({n}, flags.options());
  count = 0;
  if (n == 0) return pos;
  cudaStream_t stream = ::ember::cuda::current_stream();
  size_t bytes = 0;
  const int64_t* in = flags.const_data_ptr<int64_t>();
  int64_t* out = pos._mutable_data_ptr_internal<int64_t>();
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n, stream));
  Tensor tmp = at::empty({static_cast<int64_t>(std::max<size_t>(bytes, 1))}, flags.options().dtype(kByte));
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(tmp._mutable_data_ptr_internal(), bytes, in, out, n, stream));
  read_back(&count, out + (n - 1), 1);
  return pos;
}

}  // namespace cuda_index

namespace {

// Linear positions (row-major) of the nonzero flags, as an int64 [count] device tensor.
Tensor selected_positions(const Tensor& flags) {
  int64_t count = 0;
  Tensor pos = inclusive_scan(flags, count);
  Tensor sel = at::empty({count}, flags.options());
  const int64_t n = flags.numel();
  if (count > 0) {
    scatter_positions_kernel<<<grid_for(n), kThreads, 0, ::ember::cuda::current_stream()>>>(
        pos._mutable_data_ptr_internal<int64_t>(), n, sel._mutable_data_ptr_internal<int64_t>());
    EMBER_CUDA_KERNEL_LAUNCH_CHECK("select positions");
  }
  return sel;
}

void check_same_device(const char* op, const Tensor& self, const Tensor& other, const char* what) {
  EMBER_CHECK(other.device() == self.device(), "[", op, "] expected ", what, " on ", self.device(), " like self; got ",
              other.device());
}

// ---------------------------------------------------------------- index_select / gather
template <typename T>
__global__ void index_select_kernel(const T* src, const int64_t* idx, T* out, int64_t total, int64_t n, int64_t inner,
                                    int64_t size) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int64_t c = i % inner;
    const int64_t rj = i / inner;
    const int64_t j = rj % n, r = rj / n;
    out[i] = src[(r * size + idx[j]) * inner + c];
  }
}

// out (contiguous, index's shape) <- self at idx along dim; Geo operands: 0 = self (dim's stride
// zeroed), 1 = idx, 2 = out.
template <typename T>
__global__ void gather_kernel(const T* self, const int64_t* idx, T* out, int64_t total, Geo<3> g, int64_t sstep) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t off[3];
    g.offsets(i, off);
    out[off[2]] = self[off[0] + idx[off[1]] * sstep];
  }
}

// One thread per line along dim, walked in order (Note [CUDA scatter determinism]). Geo over the
// index's dims other than dim; operands: 0 = self, 1 = idx, 2 = src.
template <typename T>
__global__ void scatter_assign_kernel(T* self, const int64_t* idx, const T* src, T value, int64_t lines, Geo<3> g,
                                      int64_t n, int64_t sstep, int64_t istep, int64_t tstep) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t l = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; l < lines; l += step) {
    int64_t off[3];
    g.offsets(l, off);
    for (int64_t i = 0; i < n; ++i)
      self[off[0] + idx[off[1] + i * istep] * sstep] = src ? src[off[2] + i * tstep] : value;
  }
}

// Geo over all index dims; operands: 0 = self (dim's stride zeroed), 1 = idx, 2 = src.
template <typename T>
__global__ void scatter_add_kernel(T* self, const int64_t* idx, const T* src, int64_t total, Geo<3> g, int64_t sstep) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t off[3];
    g.offsets(i, off);
    atomic_add(self + off[0] + idx[off[1]] * sstep, src[off[2]]);
  }
}

// Strides of `t` for the first `nd` dims of index (0 beyond t's rank: a 0-dim self or src).
std::vector<int64_t> strides_for(const Tensor& t, int64_t nd) {
  std::vector<int64_t> st(static_cast<size_t>(nd), 0);
  for (int64_t d = 0; d < nd && d < t.dim(); ++d) st[d] = t.stride(d);
  return st;
}

enum class ScatterKind { Assign, Add };

Tensor& scatter_impl(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                     const Scalar* value, ScatterKind kind) {
  dim = index_detail::check_scatter(op, self, dim, index, src);
  check_same_device(op, self, index, "index");
  if (src) check_same_device(op, self, *src, "src");
  Tensor idx = index_detail::long_index(index, op);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  ::ember::cuda::DeviceGuard guard(self.device().index());
  check_range(idx, size, dim, op);
  if (idx.numel() == 0) return self;
  Tensor source;
  if (src) source = src->is_alias_of(self) ? src->clone() : *src;
  const int64_t nd = idx.dim();
  const int64_t sstep = self.dim() == 0 ? 0 : self.stride(dim);
  const int64_t tstep = (src && source.dim() > 0) ? source.stride(dim) : 0;
  std::vector<int64_t> sst = strides_for(self, nd), ist = idx.strides().vec();
  std::vector<int64_t> tst = src ? strides_for(source, nd) : std::vector<int64_t>(static_cast<size_t>(nd), 0);
  cudaStream_t stream = ::ember::cuda::current_stream();
  if (kind == ScatterKind::Add) {
    if (nd > 0) sst[dim] = 0;
    Geo<3> g = make_geo<3>(idx.sizes(), {sst, ist, tst});
    const int64_t total = idx.numel();
    EMBER_DISPATCH_ALL(self.scalar_type(), op, [&] {
      scatter_add_kernel<scalar_t><<<grid_for(total), kThreads, 0, stream>>>(
          self._mutable_data_ptr_internal<scalar_t>(), idx._mutable_data_ptr_internal<int64_t>(), source._mutable_data_ptr_internal<scalar_t>(), total, g, sstep);
    });
    EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
    return self;
  }
  // Assign: lines are the index positions in the dims other than dim.
  std::vector<int64_t> lsz, lsst, list, ltst;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == dim) continue;
    lsz.push_back(idx.size(d));
    lsst.push_back(sst[d]);
    list.push_back(ist[d]);
    ltst.push_back(tst[d]);
  }
  Geo<3> g = make_geo<3>(lsz, {lsst, list, ltst});
  const int64_t lines = prod_sizes(lsz);
  const int64_t n = nd == 0 ? 1 : idx.size(dim);
  const int64_t istep = nd == 0 ? 0 : idx.stride(dim);
  EMBER_DISPATCH_ALL(self.scalar_type(), op, [&] {
    const scalar_t v = value ? value->to<scalar_t>() : scalar_t(0);
    using U = uint_for<scalar_t>;
    scatter_assign_kernel<U><<<grid_for(lines), kThreads, 0, stream>>>(
        static_cast<U*>(self._mutable_data_ptr_internal()), idx._mutable_data_ptr_internal<int64_t>(),
        src ? static_cast<const U*>(source.const_data_ptr()) : nullptr, bits_of<U>(v), lines, g, n, sstep, istep, tstep);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
  return self;
}

// ---------------------------------------------------------------- masked_fill_ / masked_select
template <typename U>
__global__ void masked_fill_kernel(U* self, const bool* mask, U value, int64_t total, Geo<2> g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t off[2];
    g.offsets(i, off);
    if (mask[off[1]]) self[off[0]] = value;
  }
}

// flags[i] = mask at the row-major position i of the broadcast shape.
__global__ void mask_flags_kernel(const bool* mask, int64_t* flags, int64_t total, Geo<1> g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t off[1];
    g.offsets(i, off);
    flags[i] = mask[off[0]] ? 1 : 0;
  }
}

template <typename U>
__global__ void take_kernel(const U* self, const int64_t* sel, U* out, int64_t count, Geo<1> g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    int64_t off[1];
    g.offsets(sel[i], off);
    out[i] = self[off[0]];
  }
}

// ---------------------------------------------------------------- nonzero / one_hot
template <typename T>
__global__ void nonzero_flags_kernel(const T* p, int64_t* flags, int64_t n) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>)
      flags[i] = static_cast<float>(p[i]) != 0.0f;
    else
      flags[i] = p[i] != T(0);
  }
}

// out[k, :] = the coordinates of the row-major position sel[k] in `sizes`.
__global__ void coords_kernel(const int64_t* sel, int64_t* out, int64_t count, Geo<1> g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += step) {
    int64_t lin = sel[k];
    for (int d = g.nd - 1; d >= 0; --d) {
      out[k * g.nd + d] = lin % g.sizes[d];
      lin /= g.sizes[d];
    }
  }
}

__global__ void minmax_kernel(const int64_t* p, int64_t n, long long* mm) {
  long long lo = std::numeric_limits<long long>::max(), hi = std::numeric_limits<long long>::min();
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const long long v = static_cast<long long>(p[i]);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  atomicMin(mm, lo);
  atomicMax(mm + 1, hi);
}

__global__ void one_hot_kernel(const int64_t* p, int64_t* out, int64_t n, int64_t classes) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i * classes + p[i]] = 1;
}

// ---------------------------------------------------------------- advanced indexing
__global__ void add_offsets_kernel(const int64_t* e, int64_t* offsets, int64_t* keys, int64_t nb, int64_t size,
                                   int64_t stride, int64_t key_mul) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < nb; b += step) {
    const int64_t v = e[b] < 0 ? e[b] + size : e[b];
    offsets[b] += v * stride;
    keys[b] = keys[b] * key_mul + v;
  }
}

// The work tensor (result or values) in [B, rest] order: operand 0 of `w`; the rest block of
// src: operand 0 of `r` (its shape is rest_sizes).
struct AdvGeo {
  Geo<1> w;
  Geo<1> r;
  int64_t rest_numel;
};

template <typename U>
__global__ void index_gather_kernel(const U* src, const int64_t* offsets, U* work, int64_t total, AdvGeo g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t wo[1], ro[1];
    g.w.offsets(i, wo);
    g.r.offsets(i % g.rest_numel, ro);
    work[wo[0]] = src[offsets[i / g.rest_numel] + ro[0]];
  }
}

__global__ void winner_kernel(const int64_t* keys, long long* winner, int64_t nb) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < nb; b += step)
    atomicMax(winner + keys[b], static_cast<long long>(b));
}

// accumulate: atomic add; else the write of position b happens only if b is the last position
// with its key (winner), the CPU's last write.
template <typename T, bool Accumulate>
__global__ void index_put_kernel(T* src, const int64_t* offsets, const int64_t* keys, const long long* winner,
                                 const T* work, int64_t total, AdvGeo g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int64_t b = i / g.rest_numel;
    if (!Accumulate && winner[keys[b]] != b) continue;
    int64_t wo[1], ro[1];
    g.w.offsets(i, wo);
    g.r.offsets(i % g.rest_numel, ro);
    if constexpr (Accumulate) atomic_add(src + offsets[b] + ro[0], work[wo[0]]);
    else src[offsets[b] + ro[0]] = work[wo[0]];
  }
}

struct DeviceAdvancedIndex : index_detail::AdvancedPlan {
  Tensor offsets;  // int64 [nb] element offsets into src
  Tensor keys;     // int64 [nb] row-major position in the indexed dims (identifies a destination)
  int64_t nkeys = 1;
};

DeviceAdvancedIndex make_device_index(const char* op, const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  EMBER_CHECK(self.is_cuda(), "[", op, "] expected self on a CUDA device when an index tensor is there; got self on ",
              self.device());
  DeviceAdvancedIndex ai;
  static_cast<index_detail::AdvancedPlan&>(ai) = index_detail::make_advanced_plan(op, self, indices);
  ::ember::cuda::DeviceGuard guard(self.device().index());
  const int64_t nb = prod_sizes(ai.bshape);
  const TensorOptions lopt = TensorOptions().dtype(kLong).device(self.device());
  ai.offsets = at::zeros({nb}, lopt);
  ai.keys = at::zeros({nb}, lopt);
  // Range check of every index first (Note [CUDA index checks]): the first bad one in the
  // CPU's order is found by the CPU's check on host copies.
  std::vector<Tensor> es;
  bool bad = false;
  for (size_t j = 0; j < ai.indexed.size(); ++j) {
    const int64_t size = self.size(ai.indexed[j]);
    es.push_back(on_device(ai.idx[j], self.device()).expand(ai.bshape).contiguous());
    bad = bad || any_out_of_range(es.back(), -size, size);
  }
  if (bad) {
    for (size_t j = 0; j < ai.indexed.size(); ++j)
      index_detail::check_advanced_range(op, es[j].to(kCPU), ai.indexed[j], self.size(ai.indexed[j]));
    EMBER_INTERNAL_ASSERT(false, "[", op, "] the device found an index out of range that the host did not");
  }
  if (nb == 0) return ai;
  for (size_t j = 0; j < ai.indexed.size(); ++j) {
    const int64_t d = ai.indexed[j], size = self.size(d);
    ai.nkeys *= size;
    add_offsets_kernel<<<grid_for(nb), kThreads, 0, ::ember::cuda::current_stream()>>>(
        es[j]._mutable_data_ptr_internal<int64_t>(), ai.offsets._mutable_data_ptr_internal<int64_t>(), ai.keys._mutable_data_ptr_internal<int64_t>(), nb, size,
        self.stride(d), size);
    EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
  }
  return ai;
}

AdvGeo adv_geo(const DeviceAdvancedIndex& ai, const Tensor& work) {
  AdvGeo g;
  g.w = make_geo<1>(work.sizes(), {work.strides()});
  g.r = make_geo<1>(ai.rest_sizes, {ai.rest_strides});
  g.rest_numel = prod_sizes(ai.rest_sizes);
  return g;
}

}  // namespace

Tensor index_select_cuda(const Tensor& self, int64_t dim, const Tensor& index) {
  dim = index_detail::check_index_select(self, dim, index);
  check_same_device("index_select", self, index, "index");
  Tensor idx = index_detail::long_index(index, "index_select");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  ::ember::cuda::DeviceGuard guard(self.device().index());
  check_range(idx, size, dim, "index_select");
  std::vector<int64_t> shape = self.sizes().vec();
  const int64_t n = idx.numel();
  if (self.dim() > 0) shape[dim] = n;
  Tensor out = at::empty(shape, self.options());
  if (out.numel() == 0 || n == 0) return out;  // n == 0 with a 0-dim self: nothing to read (as on the CPU)
  Tensor src = self.contiguous();
  const int64_t inner = self.dim() == 0 ? 1 : prod_sizes(self.sizes().slice(dim + 1));
  const int64_t total = out.numel();
  by_elsize(self.element_size(), [&](auto tag) {
    using U = decltype(tag);
    index_select_kernel<U><<<grid_for(total), kThreads, 0, ::ember::cuda::current_stream()>>>(
        static_cast<const U*>(src.const_data_ptr()), idx._mutable_data_ptr_internal<int64_t>(), static_cast<U*>(out._mutable_data_ptr_internal()), total, n,
        inner, size);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("index_select");
  return out;
}

Tensor gather_cuda(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  (void)sparse_grad;
  dim = maybe_wrap_dim(dim, self.dim(), "gather");
  index_detail::check_gather_scatter("gather", self, dim, index, nullptr);
  check_same_device("gather", self, index, "index");
  Tensor idx = index_detail::long_index(index, "gather");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  ::ember::cuda::DeviceGuard guard(self.device().index());
  check_range(idx, size, dim, "gather");
  Tensor out = at::empty(index.sizes(), self.options());
  if (out.numel() == 0) return out;
  const int64_t nd = idx.dim();
  const int64_t sstep = self.dim() == 0 ? 0 : self.stride(dim);
  std::vector<int64_t> sst = strides_for(self, nd);
  if (nd > 0) sst[dim] = 0;
  Geo<3> g = make_geo<3>(idx.sizes(), {sst, idx.strides(), out.strides()});
  const int64_t total = out.numel();
  by_elsize(self.element_size(), [&](auto tag) {
    using U = decltype(tag);
    gather_kernel<U><<<grid_for(total), kThreads, 0, ::ember::cuda::current_stream()>>>(
        static_cast<const U*>(self.const_data_ptr()), idx._mutable_data_ptr_internal<int64_t>(), static_cast<U*>(out._mutable_data_ptr_internal()), total, g,
        sstep);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("gather");
  return out;
}

Tensor& scatter_src_cuda_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_", self, dim, index, &src, nullptr, ScatterKind::Assign);
}
Tensor& scatter_value_cuda_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_impl("scatter_", self, dim, index, nullptr, &value, ScatterKind::Assign);
}
Tensor& scatter_add_cuda_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_add_", self, dim, index, &src, nullptr, ScatterKind::Add);
}

Tensor& masked_fill_cuda_(Tensor& self, const Tensor& mask, const Scalar& value) {
  index_detail::check_masked_fill(self, mask, value);
  check_same_device("masked_fill_", self, mask.dim() == 0 && mask.is_cpu() ? self : mask, "mask");
  if (self.numel() == 0) return self;
  ::ember::cuda::DeviceGuard guard(self.device().index());
  Tensor m = on_device(mask, self.device()).expand(self.sizes());
  Geo<2> g = make_geo<2>(self.sizes(), {self.strides(), m.strides()});
  const int64_t total = self.numel();
  EMBER_DISPATCH_ALL(self.scalar_type(), "masked_fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    using U = uint_for<scalar_t>;
    masked_fill_kernel<U><<<grid_for(total), kThreads, 0, ::ember::cuda::current_stream()>>>(
        static_cast<U*>(self._mutable_data_ptr_internal()), m._mutable_data_ptr_internal<bool>(), bits_of<U>(v), total, g);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("masked_fill_");
  return self;
}

Tensor masked_select_cuda(const Tensor& self, const Tensor& mask) {
  auto shape = index_detail::check_masked_select(self, mask);
  check_same_device("masked_select", self, mask, "mask");
  ::ember::cuda::DeviceGuard guard(self.device().index());
  Tensor m = mask.expand(shape);
  Tensor s = self.expand(shape);
  const int64_t n = prod_sizes(shape);
  Tensor flags = at::empty({n}, TensorOptions().dtype(kLong).device(self.device()));
  if (n > 0) {
    Geo<1> gm = make_geo<1>(shape, {m.strides()});
    mask_flags_kernel<<<grid_for(n), kThreads, 0, ::ember::cuda::current_stream()>>>(
        m._mutable_data_ptr_internal<bool>(), flags._mutable_data_ptr_internal<int64_t>(), n, gm);
    EMBER_CUDA_KERNEL_LAUNCH_CHECK("masked_select");
  }
  Tensor sel = selected_positions(flags);
  const int64_t count = sel.numel();
  Tensor out = at::empty({count}, self.options());
  if (count == 0) return out;
  Geo<1> gs = make_geo<1>(shape, {s.strides()});
  by_elsize(self.element_size(), [&](auto tag) {
    using U = decltype(tag);
    take_kernel<U><<<grid_for(count), kThreads, 0, ::ember::cuda::current_stream()>>>(
        static_cast<const U*>(s.const_data_ptr()), sel._mutable_data_ptr_internal<int64_t>(), static_cast<U*>(out._mutable_data_ptr_internal()), count, gs);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("masked_select");
  return out;
}

Tensor nonzero_cuda(const Tensor& self) {
  ::ember::cuda::DeviceGuard guard(self.device().index());
  Tensor s = self.contiguous();
  const int64_t n = s.numel(), nd = s.dim();
  Tensor flags = at::empty({n}, TensorOptions().dtype(kLong).device(self.device()));
  if (n > 0) {
    EMBER_DISPATCH_ALL(s.scalar_type(), "nonzero", [&] {
      nonzero_flags_kernel<scalar_t><<<grid_for(n), kThreads, 0, ::ember::cuda::current_stream()>>>(
          s._mutable_data_ptr_internal<scalar_t>(), flags._mutable_data_ptr_internal<int64_t>(), n);
    });
    EMBER_CUDA_KERNEL_LAUNCH_CHECK("nonzero");
  }
  Tensor sel = selected_positions(flags);
  const int64_t count = sel.numel();
  Tensor out = at::empty({count, nd}, self.options().dtype(kLong));
  if (count == 0 || nd == 0) return out;
  Geo<1> g = make_geo<1>(s.sizes(), {s.strides()});
  coords_kernel<<<grid_for(count), kThreads, 0, ::ember::cuda::current_stream()>>>(sel._mutable_data_ptr_internal<int64_t>(),
                                                                                   out._mutable_data_ptr_internal<int64_t>(), count, g);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("nonzero");
  return out;
}

Tensor one_hot_cuda(const Tensor& self, int64_t num_classes) {
  index_detail::check_one_hot_dtype(self);
  ::ember::cuda::DeviceGuard guard(self.device().index());
  Tensor s = self.contiguous();
  const int64_t n = s.numel();
  int64_t lo = 0, hi = -1;
  if (n > 0) {
    long long init[2] = {std::numeric_limits<long long>::max(), std::numeric_limits<long long>::min()};
    Tensor mm = at::empty({2}, TensorOptions().dtype(kLong).device(self.device()));
    cudaStream_t stream = ::ember::cuda::current_stream();
    EMBER_CUDA_CHECK(cudaMemcpyAsync(mm._mutable_data_ptr_internal(), init, sizeof(init), cudaMemcpyHostToDevice, stream));
    minmax_kernel<<<grid_for(n), kThreads, 0, stream>>>(s._mutable_data_ptr_internal<int64_t>(), n,
                                                        reinterpret_cast<long long*>(mm._mutable_data_ptr_internal()));
    EMBER_CUDA_KERNEL_LAUNCH_CHECK("one_hot");
    long long h[2];
    read_back(h, mm._mutable_data_ptr_internal(), 2);  // synchronizes, so `init` outlives the upload
    lo = h[0];
    hi = h[1];
  }
  num_classes = index_detail::check_one_hot(self, n, lo, hi, num_classes);
  std::vector<int64_t> shape = self.sizes().vec();
  shape.push_back(num_classes);
  Tensor out = at::zeros(shape, self.options());
  if (n == 0 || num_classes == 0) return out;
  one_hot_kernel<<<grid_for(n), kThreads, 0, ::ember::cuda::current_stream()>>>(s._mutable_data_ptr_internal<int64_t>(),
                                                                                out._mutable_data_ptr_internal<int64_t>(), n, num_classes);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("one_hot");
  return out;
}

Tensor index_cuda(const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  DeviceAdvancedIndex ai = make_device_index("index", self, indices);
  ::ember::cuda::DeviceGuard guard(self.device().index());
  Tensor out = at::empty(ai.result_shape, self.options());
  if (out.numel() == 0) return out;
  Tensor work = out.permute(ai.work_perm);
  AdvGeo g = adv_geo(ai, work);
  const int64_t total = out.numel();
  by_elsize(self.element_size(), [&](auto tag) {
    using U = decltype(tag);
    index_gather_kernel<U><<<grid_for(total), kThreads, 0, ::ember::cuda::current_stream()>>>(
        static_cast<const U*>(ai.src.const_data_ptr()), ai.offsets._mutable_data_ptr_internal<int64_t>(), static_cast<U*>(work._mutable_data_ptr_internal()),
        total, g);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("index");
  return out;
}

Tensor& index_put_cuda_(Tensor& self, const c10::List<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) {
  DeviceAdvancedIndex ai = make_device_index("index_put_", self, indices);
  index_detail::check_index_put_values(ai, self, values);
  ::ember::cuda::DeviceGuard guard(self.device().index());
  Tensor v = on_device(values, self.device());
  if (v.is_alias_of(self)) v = v.clone();
  const int64_t total = prod_sizes(ai.result_shape);
  if (total == 0) return self;
  v = v.expand(ai.result_shape).permute(ai.work_perm);
  AdvGeo g = adv_geo(ai, v);
  cudaStream_t stream = ::ember::cuda::current_stream();
  if (accumulate) {
    EMBER_DISPATCH_ALL(self.scalar_type(), "index_put_", [&] {
      index_put_kernel<scalar_t, true><<<grid_for(total), kThreads, 0, stream>>>(
          static_cast<scalar_t*>(ai.src._mutable_data_ptr_internal()), ai.offsets._mutable_data_ptr_internal<int64_t>(), nullptr, nullptr,
          static_cast<const scalar_t*>(v.const_data_ptr()), total, g);
    });
    EMBER_CUDA_KERNEL_LAUNCH_CHECK("index_put_");
    return self;
  }
  // Last write wins per destination (Note [CUDA scatter determinism]).
  const int64_t nb = ai.offsets.numel();
  Tensor winner = at::full({ai.nkeys}, -1, TensorOptions().dtype(kLong).device(self.device()));
  winner_kernel<<<grid_for(nb), kThreads, 0, stream>>>(ai.keys._mutable_data_ptr_internal<int64_t>(),
                                                       reinterpret_cast<long long*>(winner._mutable_data_ptr_internal()), nb);
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("index_put_");
  by_elsize(self.element_size(), [&](auto tag) {
    using U = decltype(tag);
    index_put_kernel<U, false><<<grid_for(total), kThreads, 0, stream>>>(
        static_cast<U*>(ai.src._mutable_data_ptr_internal()), ai.offsets._mutable_data_ptr_internal<int64_t>(), ai.keys._mutable_data_ptr_internal<int64_t>(),
        reinterpret_cast<const long long*>(winner._mutable_data_ptr_internal()), static_cast<const U*>(v.const_data_ptr()), total, g);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("index_put_");
  return self;
}

}  // namespace at::native
