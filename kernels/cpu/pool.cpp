// 2-D max pooling on the CPU: max_pool2d_with_indices and its backward.
//
// Plain loops over (N * C) planes, one plane per loop index, so results do not depend on the
// thread count. Indices are flat positions h * W + w within the input plane (libtorch's
// convention), which the backward scatters the gradient to.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/Parallel.h>
#include <cmath>
#include <limits>
#include <type_traits>

namespace at::native {

namespace {

using conv_utils::Pool2dGeometry;

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// Note [Max pooling and NaN]
// A NaN in the window is the maximum: the scan takes any element that is greater than the
// running maximum or is NaN, so the last NaN of the window (in row-major order) gives both the
// value and the index. A window of only -inf (or the dtype's lowest value) keeps its first
// element in range. libtorch's CPU kernel picks the same elements.
template <typename T>
void max_pool_forward(const Pool2dGeometry& g, const T* x, T* y, int64_t* ind) {
  const bool par = parallel_worthwhile(g.planes * g.OH * g.OW * g.kh * g.kw, g.planes);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t p = 0; p < g.planes; ++p) {
    const T* xp = x + p * g.H * g.W;
    for (int64_t oh = 0; oh < g.OH; ++oh) {
      int64_t h0 = oh * g.sh - g.ph;
      const int64_t h1 = std::min(h0 + (g.kh - 1) * g.dh + 1, g.H);
      if (h0 < 0) h0 += ((-h0 + g.dh - 1) / g.dh) * g.dh;  // the first tap inside the input
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        int64_t w0 = ow * g.sw - g.pw;
        const int64_t w1 = std::min(w0 + (g.kw - 1) * g.dw + 1, g.W);
        if (w0 < 0) w0 += ((-w0 + g.dw - 1) / g.dw) * g.dw;  // the first tap inside the input
        int64_t best = h0 * g.W + w0;
        T bestv = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
        for (int64_t h = h0; h < h1; h += g.dh) {
          for (int64_t w = w0; w < w1; w += g.dw) {
            const T v = xp[h * g.W + w];
            if (v > bestv || is_nan(v)) {
              bestv = v;
              best = h * g.W + w;
            }
          }
        }
        // A window whose taps all fall in the padding (a large dilation can skip over the input)
        // has no element: it gives the lowest value and index -1, which the backward skips.
        const bool empty = h0 >= h1 || w0 >= w1;
        y[(p * g.OH + oh) * g.OW + ow] = empty ? bestv : xp[best];
        ind[(p * g.OH + oh) * g.OW + ow] = empty ? -1 : best;
      }
    }
  }
}

template <typename T>
void max_pool_backward(const Pool2dGeometry& g, const T* gy, const int64_t* ind, T* gx) {
  const int64_t plane = g.H * g.W;
  const bool par = parallel_worthwhile(g.planes * g.OH * g.OW, g.planes);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t p = 0; p < g.planes; ++p) {
    T* gxp = gx + p * plane;
    for (int64_t o = 0; o < g.OH * g.OW; ++o) {
      const int64_t i = ind[p * g.OH * g.OW + o];
      if (i >= 0 && i < plane) gxp[i] += gy[p * g.OH * g.OW + o];
    }
  }
}


}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const Pool2dGeometry g =
      conv_utils::check_max_pool2d("max_pool2d_with_indices", self, kernel_size, stride, padding, dilation, ceil_mode);
  EMBER_CHECK(self.is_cpu(), "[max_pool2d_with_indices] expected a CPU tensor; got one on ", self.device());
  const Tensor x = self.contiguous();
  const auto shape = conv_utils::pooled_shape(self, g);
  Tensor y = at::empty(shape, self.options());
  Tensor ind = at::empty(shape, self.options().dtype(kLong));
  AT_DISPATCH_ALL_TYPES(x.scalar_type(), "max_pool2d_with_indices", [&] {
    max_pool_forward<scalar_t>(g, x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), ind.data_ptr<int64_t>());
  });
  return {y, ind};
}

Tensor max_pool2d_with_indices_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                            const Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const Pool2dGeometry g = conv_utils::check_max_pool2d(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  EMBER_CHECK(self.is_cpu() && grad_output.is_cpu() && indices.is_cpu(), "[", op, "] expected CPU tensors");
  conv_utils::check_max_pool2d_backward(op, grad_output, self, indices, g);
  const Tensor gy = grad_output.contiguous(), ind = indices.contiguous();
  Tensor gx = at::zeros(self.sizes(), self.options());
  AT_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    max_pool_backward<scalar_t>(g, gy.data_ptr<scalar_t>(), ind.data_ptr<int64_t>(), gx.data_ptr<scalar_t>());
  });
  return gx;
}

}  // namespace at::native
