// max_unpool2d and max_unpool3d: the inverse of max pooling, as a composite. Each plane's values
// are scattered into a zero plane of output_size at their indices (flat positions within the
// output plane, the convention of max pooling's indices), so CPU and CUDA share one definition.
//
// Note [Repeated unpooling indices]
// Overlapping pooling windows report one input position several times. A repeated index keeps
// the value written last (scatter's order, which libtorch's CPU kernel matches on the generated
// samples), while libtorch's backward gives every input grad gathered at its index, the
// overwritten ones included. So the overwritten inputs add a term that is zero in value, x - x,
// whose gradient is that gather; a non-finite one (where x - x is NaN) is left out of it and gets
// no gradient.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>
#include <vector>

namespace at::native {
namespace {

Tensor max_unpool_nd(const char* op, int64_t nd, const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  using matmul_utils::describe;
  EMBER_CHECK(self.defined() && indices.defined(), "[", op, "] expected defined input and indices tensors");
  const char* shapes = nd == 2 ? "a 3-D (C, H, W) or 4-D (N, C, H, W)" : "a 4-D (C, D, H, W) or 5-D (N, C, D, H, W)";
  EMBER_CHECK(self.dim() == nd + 1 || self.dim() == nd + 2, "[", op, "] expected ", shapes, " input; got ", describe(self));
  for (int64_t d = self.dim() - nd - 1; d < self.dim(); ++d)
    EMBER_CHECK(self.size(d) > 0, "[", op, "] expected an input with non-zero channel and spatial sizes; got ", describe(self));
  EMBER_CHECK(indices.scalar_type() == kLong, "[", op, "] expected int64 indices; got ", describe(indices));
  EMBER_CHECK(indices.sizes() == self.sizes(), "[", op, "] expected indices of the input's shape ", self.sizes(), "; got ",
              indices.sizes());
  EMBER_CHECK(indices.device() == self.device(), "[", op, "] expected indices on the input's device (", self.device(),
              "); got ", indices.device());
  EMBER_CHECK(static_cast<int64_t>(output_size.size()) == nd, "[", op, "] expected output_size to have ", nd,
              " values (one per spatial dim); got ", output_size);
  int64_t out_plane = 1;
  for (int64_t v : output_size) {
    EMBER_CHECK(v > 0, "[", op, "] expected a positive output_size; got ", output_size);
    EMBER_CHECK(out_plane <= (int64_t(1) << 62) / v, "[", op, "] expected an output_size whose plane has fewer than 2^62 elements; got ",
                output_size);
    out_plane *= v;
  }
  int64_t in_plane = 1;
  for (int64_t d = self.dim() - nd; d < self.dim(); ++d) in_plane *= self.size(d);
  const int64_t planes = self.numel() / in_plane;
  const Tensor idx = indices.reshape({planes, in_plane});
  if (idx.numel() > 0 && !idx.is_meta()) {  // (meta indices have no values to check)
    const Tensor bad = at::logical_or(idx < 0, idx >= out_plane);
    if (bad.any().item<bool>()) {
      const int64_t first = idx.masked_select(bad).reshape({-1})[0].item<int64_t>();
      EMBER_CHECK(false, "[", op, "] expected indices in [0, ", out_plane, ") (the output plane ", output_size, "); got index ",
                  first);
    }
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - nd);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  const Tensor src = self.reshape({planes, in_plane});
  Tensor out = at::zeros({planes, out_plane}, self.options()).scatter(1, idx, src);
  // See Note [Repeated unpooling indices] (only a gradient needs the repeats' term; it is zero in
  // value, so meta inputs, whose repeats are unknown, leave it out: their gradient's shape is self's
  // through the scatter alone).
  if (self.requires_grad() && isFloatingType(self.scalar_type()) && in_plane > 1 && idx.numel() > 0 && !idx.is_meta()) {
    // Which input position each output cell keeps, and which inputs are repeats of a kept one.
    const Tensor pos = at::arange(in_plane, idx.options()).reshape({1, in_plane}).expand({planes, in_plane});
    const Tensor owner = at::zeros({planes, out_plane}, idx.options()).scatter(1, idx, pos);
    const Tensor repeat = owner.gather(1, idx) != pos;
    if (repeat.any().item<bool>()) {
      const Tensor finite = at::logical_not(at::logical_or(at::isnan(src), at::isinf(src)));
      const Tensor x = at::where(at::logical_and(repeat, finite), src, at::zeros({}, src.options()));
      out = out + at::zeros({planes, out_plane}, self.options()).scatter_add(1, idx, x - x.detach());
    }
  }
  return out.reshape(shape);
}

}  // namespace

Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  return max_unpool_nd("max_unpool2d", 2, self, indices, output_size);
}

Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding) {
  const char* op = "max_unpool3d";
  EMBER_CHECK(stride.size() == 3, "[", op, "] expected stride to have 3 values (depth, height, width); got ", stride);
  EMBER_CHECK(padding.size() == 3, "[", op, "] expected padding to have 3 values (depth, height, width); got ", padding);
  // (libtorch checks the stride's sign but not the padding's, which plays no part here.)
  for (int i = 0; i < 3; ++i) EMBER_CHECK(stride[i] > 0, "[", op, "] expected a positive stride; got ", stride);
  return max_unpool_nd(op, 3, self, indices, output_size);
}

}  // namespace at::native
