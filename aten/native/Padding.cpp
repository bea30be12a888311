// Non-constant padding: reflection_pad{1,2,3}d, replication_pad{1,2,3}d and the pad composite
// (constant, reflect, replicate, circular). Each padded dimension is one index_select with a
// table of source positions, so CPU and CUDA share the code and the gradient (a scatter-add of
// the output gradient onto the source positions) comes from index_select's.
//
// Output position o of a dimension of size `in` padded by (before, after) reads input position
// j = o - before, brought into [0, in):
//   reflect:   j < 0 -> -j,  j >= in -> 2 (in - 1) - j   (the edge is not repeated)
//   replicate: clamp(j, 0, in - 1)
//   circular:  j mod in
// Negative padding crops (j then starts inside the input).
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/MatmulUtils.h>
#include <algorithm>
#include <string>
#include <vector>

namespace at::native {
namespace {

using matmul_utils::describe;

enum class PadKind { reflect, replicate, circular };

std::vector<int64_t> source_positions(int64_t in, int64_t before, int64_t out, PadKind kind) {
  std::vector<int64_t> src(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    int64_t j = o - before;
    if (kind == PadKind::reflect) {
      if (j < 0) j = -j;
      if (j >= in) j = 2 * (in - 1) - j;
    } else if (kind == PadKind::replicate) {
      j = std::min(std::max<int64_t>(j, 0), in - 1);
    } else {
      j = ((j % in) + in) % in;
    }
    src[static_cast<size_t>(o)] = j;
  }
  return src;
}

// Pads the last pad.size() / 2 dims of self (pad lists (before, after) pairs, last dim first).
Tensor pad_by_gather(const char* op, const Tensor& self, IntArrayRef pad, PadKind kind) {
  const int64_t k = static_cast<int64_t>(pad.size() / 2), nd = self.dim();
  Tensor out = self;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, in = self.size(d);
    const int64_t before = pad[size_t(2 * i)], after = pad[size_t(2 * i + 1)];
    EMBER_CHECK(in > 0, "[", op, "] expected a non-empty dim ", d, " to pad; got input ", describe(self));
    if (kind == PadKind::reflect)
      EMBER_CHECK(before < in && after < in, "[", op, "] expected reflect padding smaller than the padded dim; got padding (",
                  before, ", ", after, ") for dim ", d, " of size ", in, " (input ", describe(self), ")");
    if (kind == PadKind::circular)
      EMBER_CHECK(before <= in && after <= in, "[", op,
                  "] expected circular padding no larger than the padded dim (it may wrap around once); got padding (", before,
                  ", ", after, ") for dim ", d, " of size ", in);
    const int64_t len = in + before + after;
    EMBER_CHECK(len >= 1, "[", op, "] expected a padded size of at least 1; dim ", d, " of size ", in, " with padding (", before,
                ", ", after, ") gives ", len);
    if (kind == PadKind::circular && (before < 0 || after < 0)) {
      // Circular padding crops first and wraps around what is left (as libtorch).
      const int64_t lo = std::max<int64_t>(-before, 0), kept = in - lo - std::max<int64_t>(-after, 0);
      EMBER_CHECK(std::max<int64_t>(before, 0) <= kept && std::max<int64_t>(after, 0) <= kept, "[", op,
                  "] expected circular padding no larger than the cropped dim (it may wrap around once); got padding (", before,
                  ", ", after, ") for dim ", d, " of size ", in);
      out = out.narrow(d, lo, kept);
      const auto src = source_positions(kept, std::max<int64_t>(before, 0), len, kind);
      out = out.index_select(d, at::tensor(src, TensorOptions().dtype(kLong)).to(self.device()));
      continue;
    }
    const auto src = source_positions(in, before, len, kind);
    out = out.index_select(d, at::tensor(src, TensorOptions().dtype(kLong)).to(self.device()));
  }
  return out;
}

// reflection_padNd / replication_padNd: N spatial dims, input of N + 1 (unbatched) or N + 2 dims.
Tensor pad_nd(const char* op, const Tensor& self, IntArrayRef padding, int64_t n, PadKind kind) {
  EMBER_CHECK(self.defined(), "[", op, "] expected a defined input tensor");
  EMBER_CHECK(static_cast<int64_t>(padding.size()) == 2 * n, "[", op, "] expected padding of ", 2 * n,
              " values (before and after for each of ", n, " dims, last dim first); got ", padding);
  EMBER_CHECK(self.dim() == n + 1 || self.dim() == n + 2, "[", op, "] expected a ", n + 1, "-D (unbatched) or ", n + 2,
              "-D (batched) input; got ", describe(self));
  for (int64_t d = self.dim() - n - 1; d < self.dim(); ++d)
    if (d > 0 || self.dim() == n + 1)
      EMBER_CHECK(self.size(d) > 0, "[", op, "] expected non-zero channel and spatial sizes; got input ", describe(self));
  return pad_by_gather(op, self, padding, kind);
}

}  // namespace

Tensor reflection_pad1d(const Tensor& self, IntArrayRef padding) {
  return pad_nd("reflection_pad1d", self, padding, 1, PadKind::reflect);
}
Tensor reflection_pad2d(const Tensor& self, IntArrayRef padding) {
  return pad_nd("reflection_pad2d", self, padding, 2, PadKind::reflect);
}
Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding) {
  return pad_nd("reflection_pad3d", self, padding, 3, PadKind::reflect);
}
Tensor replication_pad1d(const Tensor& self, IntArrayRef padding) {
  return pad_nd("replication_pad1d", self, padding, 1, PadKind::replicate);
}
Tensor replication_pad2d(const Tensor& self, IntArrayRef padding) {
  return pad_nd("replication_pad2d", self, padding, 2, PadKind::replicate);
}
Tensor replication_pad3d(const Tensor& self, IntArrayRef padding) {
  return pad_nd("replication_pad3d", self, padding, 3, PadKind::replicate);
}

Tensor pad(const Tensor& self, IntArrayRef pad, c10::string_view mode, std::optional<double> value) {
  const char* op = "pad";
  EMBER_CHECK(self.defined(), "[", op, "] expected a defined input tensor");
  const std::string m(mode.data(), mode.size());
  EMBER_CHECK(pad.size() % 2 == 0, "[", op, "] expected an even number of padding values ((before, after) per dim); got ", pad);
  const int64_t k = static_cast<int64_t>(pad.size() / 2);
  EMBER_CHECK(k <= self.dim(), "[", op, "] expected at most 2 padding values per input dim; got ", pad.size(), " values for input ",
              describe(self));
  if (m == "constant") return at::constant_pad_nd(self, pad, value.value_or(0.0));
  EMBER_CHECK(m == "reflect" || m == "replicate" || m == "circular", "[", op,
              "] expected mode 'constant', 'reflect', 'replicate' or 'circular'; got '", m, "'");
  EMBER_CHECK(!value.has_value(), "[", op, "] mode '", m, "' takes no fill value; got value=", *value);
  EMBER_CHECK(k >= 1 && k <= 3 && (self.dim() == k + 1 || self.dim() == k + 2), "[", op, "] mode '", m,
              "' pads 1 to 3 trailing dims of an input with one or two more dims (2-D to 5-D); got ", pad.size(),
              " padding values for input ", describe(self));
  if (m == "circular") return pad_nd(op, self, pad, k, PadKind::circular);
  if (m == "reflect") {
    if (k == 1) return at::reflection_pad1d(self, pad);
    if (k == 2) return at::reflection_pad2d(self, pad);
    return at::reflection_pad3d(self, pad);
  }
  if (k == 1) return at::replication_pad1d(self, pad);
  if (k == 2) return at::replication_pad2d(self, pad);
  return at::replication_pad3d(self, pad);
}

}  // namespace at::native
