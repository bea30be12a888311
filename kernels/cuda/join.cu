// Joining and rearranging kernels on CUDA: cat, where, flip, tril_ / triu_. The checks, result
// dtypes and shapes are the CPU's (ATen/native/IndexUtils.h); elements move by width.
#include "index_common.cuh"

namespace at::native {
using namespace cuda_index;

namespace {

// out (contiguous) <- cond ? a : b; Geo operands: 0 = cond, 1 = a, 2 = b (broadcast strides).
template <typename U>
__global__ void where_kernel(const bool* cond, const U* a, const U* b, U* out, int64_t total, Geo<3> g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t off[3];
    g.offsets(i, off);
    out[i] = cond[off[0]] ? a[off[1]] : b[off[2]];
  }
}

// out (contiguous) <- self read through a reversed layout (base at the last element of each
// flipped dim, its stride negated).
template <typename U>
__global__ void flip_kernel(const U* src, U* out, int64_t total, Geo<1> g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t off[1];
    g.offsets(i, off);
    out[i] = src[off[0]];
  }
}

// Zeroes the elements of each matrix above (lower) or below the k-th diagonal. The Geo covers
// the batch dims; each thread handles one element (batch, i, j).
template <typename U>
__global__ void tri_kernel(U* self, int64_t total, int64_t R, int64_t C, int64_t rs, int64_t cs, int64_t k, bool lower,
                           Geo<1> g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t j = e % C;
    const int64_t i = (e / C) % R;
    const int64_t b = e / (R * C);
    // lower keeps j <= i + k; upper keeps j >= i + k.
    const bool zero = lower ? (j > i + k) : (j < i + k);
    if (!zero) continue;
    int64_t off[1];
    g.offsets(b, off);
    self[off[0] + i * rs + j * cs] = U(0);  // zero bits are zero in every dtype
  }
}

Tensor& tri_inplace(Tensor& self, int64_t k, bool lower, const char* op) {
  index_detail::check_tri(self, op);
  if (self.numel() == 0) return self;
  ::ember::cuda::DeviceGuard guard(self.device().index());
  const int64_t nd = self.dim(), R = self.size(-2), C = self.size(-1);
  Geo<1> g = make_geo<1>(self.sizes().slice(0, nd - 2), {self.strides().slice(0, nd - 2)});
  const int64_t total = self.numel();
  by_elsize(self.element_size(), [&](auto tag) {
    using U = decltype(tag);
    tri_kernel<U><<<grid_for(total), kThreads, 0, ::ember::cuda::current_stream()>>>(
        static_cast<U*>(self._mutable_data_ptr_internal()), total, R, C, self.stride(-2), self.stride(-1), k, lower, g);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK(op);
  return self;
}

}  // namespace

Tensor cat_cuda(TensorList tensors, int64_t dim) {
  std::optional<Device> device;
  index_detail::CatPlan plan = index_detail::plan_cat(tensors, dim, [&](const Tensor& t, size_t i) {
    EMBER_CHECK(t.is_cuda(), "[cat] expected CUDA tensors; got ", t.device(), " at position ", i);
    if (!device) device = t.device();
    EMBER_CHECK(t.device() == *device, "[cat] expected all tensors on ", *device, "; got ", t.device(), " at position ", i);
  });
  if (!plan.ref) return at::empty({0}, tensors[0].options().dtype(plan.dtype));
  Tensor out = at::empty(plan.shape, plan.ref->options().dtype(plan.dtype));
  if (out.numel() == 0) return out;
  int64_t off = 0;
  for (const Tensor& t : tensors) {
    if (t.dim() == 1 && t.numel() == 0) continue;
    const int64_t n = t.size(plan.dim);
    if (n == 0) continue;
    out.narrow(plan.dim, off, n).copy_(t);  // converts dtype, follows strides, on the device
    off += n;
  }
  return out;
}

Tensor where_cuda(const Tensor& condition, const Tensor& self, const Tensor& other) {
  index_detail::check_where_condition(condition);
  // Like the CUDA pointwise ops, 0-dim CPU operands are accepted and moved to the device.
  Device device = condition.is_cuda() ? condition.device() : self.is_cuda() ? self.device() : other.device();
  auto movable = [&](const Tensor& t) { return t.device() == device || (t.is_cpu() && t.dim() == 0); };
  EMBER_CHECK(device.is_cuda() && movable(condition) && movable(self) && movable(other),
              "[where] expected tensors on one CUDA device; got condition on ", condition.device(), ", self on ",
              self.device(), ", other on ", other.device());
  const auto plan = index_detail::plan_where(condition, self, other);
  const ScalarType dtype = plan.first;
  const std::vector<int64_t>& shape = plan.second;
  Tensor out = at::empty(shape, self.options().dtype(dtype).device(device));
  if (out.numel() == 0) return out;
  ::ember::cuda::DeviceGuard guard(device.index());
  auto prep = [&](const Tensor& t, ScalarType dt) {
    Tensor r = t.device() == device ? t : t.to(device);
    if (r.scalar_type() != dt) r = r.to(dt);
    return r.expand(shape);
  };
  Tensor c = prep(condition, kBool);
  Tensor a = prep(self, dtype);
  Tensor b = prep(other, dtype);
  Geo<3> g = make_geo<3>(shape, {c.strides(), a.strides(), b.strides()});
  const int64_t total = out.numel();
  by_elsize(out.element_size(), [&](auto tag) {
    using U = decltype(tag);
    where_kernel<U><<<grid_for(total), kThreads, 0, ::ember::cuda::current_stream()>>>(
        c._mutable_data_ptr_internal<bool>(), static_cast<const U*>(a.const_data_ptr()), static_cast<const U*>(b.const_data_ptr()),
        static_cast<U*>(out._mutable_data_ptr_internal()), total, g);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("where");
  return out;
}

Tensor flip_cuda(const Tensor& self, IntArrayRef dims) {
  const int64_t nd = self.dim();
  const std::vector<bool> flip = index_detail::flip_mask(nd, dims);
  Tensor out = at::empty(self.sizes(), self.options());
  if (out.numel() == 0) return out;
  ::ember::cuda::DeviceGuard guard(self.device().index());
  std::vector<int64_t> st = self.strides().vec();
  int64_t base = 0;
  for (int64_t d = 0; d < nd; ++d)
    if (flip[d]) { base += (self.size(d) - 1) * st[d]; st[d] = -st[d]; }
  Geo<1> g = make_geo<1>(self.sizes(), {st});
  const int64_t total = out.numel();
  by_elsize(self.element_size(), [&](auto tag) {
    using U = decltype(tag);
    flip_kernel<U><<<grid_for(total), kThreads, 0, ::ember::cuda::current_stream()>>>(
        static_cast<const U*>(self.const_data_ptr()) + base, static_cast<U*>(out._mutable_data_ptr_internal()), total, g);
  });
  EMBER_CUDA_KERNEL_LAUNCH_CHECK("flip");
  return out;
}

Tensor& tril_cuda_(Tensor& self, int64_t diagonal) { return tri_inplace(self, diagonal, true, "tril_"); }
Tensor& triu_cuda_(Tensor& self, int64_t diagonal) { return tri_inplace(self, diagonal, false, "triu_"); }

}  // namespace at::native
