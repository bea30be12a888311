// TensorImpl: sizes/strides bookkeeping.
#include <c10/core/TensorImpl.h>
#include <c10/util/safe_numerics.h>
#include <algorithm>

namespace c10 {

// Note [Checked size arithmetic]
// Sizes, strides and offsets come from users, and a product of a few of them wraps around int64
// long before any allocation fails: {1<<62, 8} has "0" elements in wrapped arithmetic. Every place
// that turns them into an element count (TensorImpl::refresh, so every view too) or a byte count
// (allocation, as_strided, resize_, set_) uses the checked helpers below. Once a tensor exists,
// numel fits in int64 and its extent fits in its storage, so kernels may index without checks.

bool safe_numel(IntArrayRef sizes, int64_t* out) {
  // Left to right with a sticky overflow flag, like libtorch's storage-size check: a zero size
  // makes the sizes after it harmless, not the ones before it ({5, 3, 1<<62, 0} overflows).
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n);
  overflow |= n > static_cast<uint64_t>(INT64_MAX);
  *out = static_cast<int64_t>(n);
  return !overflow;
}

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  for (int64_t s : sizes) EMBER_CHECK(s >= 0, "[", op, "] expected non-negative sizes; got ", sizes);
  int64_t n = 0;
  EMBER_CHECK(safe_numel(sizes, &n), "[", op, "] expected a number of elements that fits in int64; sizes ", sizes,
              " overflow it");
  return n;
}

int64_t checked_storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize,
                               const char* op) {
  EMBER_CHECK(sizes.size() == strides.size(), "[", op, "] expected sizes and strides of the same length; got sizes ",
              sizes, " and strides ", strides);
  EMBER_CHECK(offset >= 0, "[", op, "] expected a non-negative storage offset; got ", offset);
  int64_t last = 0;  // offset of the last element relative to the first
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, "[", op, "] expected non-negative sizes; got ", sizes);
    EMBER_CHECK(strides[i] >= 0, "[", op, "] expected non-negative strides; got ", strides);
  }
  for (int64_t s : sizes)
    if (s == 0) return 0;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t span = 0;
    overflow = overflow || mul_overflows(sizes[i] - 1, strides[i], &span) || add_overflows(last, span, &last);
  }
  int64_t elems = 0, bytes = 0;
  overflow = overflow || add_overflows(last, offset, &elems) || add_overflows(elems, 1, &elems) ||
             mul_overflows(elems, static_cast<int64_t>(itemsize), &bytes);
  EMBER_CHECK(!overflow, "[", op, "] expected a storage size that fits in int64; sizes ", sizes, ", strides ", strides,
              ", offset ", offset, " and element size ", itemsize, " overflow it");
  return bytes;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype)
    : storage_(std::move(storage)), dtype_(dtype), device_(storage_.device()) {
  ss_.resize(1);
  ss_.sizes()[0] = 0;
  ss_.strides()[0] = 1;
  refresh();
}

TensorImpl::~TensorImpl() = default;

// A 0-dim tensor has no dimension to ask about: like libtorch, size(d) and stride(d) raise for it
// (only dim-wrapping helpers of reductions treat a scalar as having one dimension).
int64_t TensorImpl::size(int64_t d) const {
  const int64_t nd = dim();
  EMBER_CHECK_T(IndexError, nd > 0, "[size] expected a tensor with at least one dimension; got dim ", d,
                " for a 0-dim tensor");
  EMBER_CHECK_T(IndexError, d >= -nd && d < nd, "[size] expected a dimension in [", -nd, ", ", nd - 1, "]; got ", d);
  return ss_.sizes()[d < 0 ? d + nd : d];
}

int64_t TensorImpl::stride(int64_t d) const {
  const int64_t nd = dim();
  EMBER_CHECK_T(IndexError, nd > 0, "[stride] expected a tensor with at least one dimension; got dim ", d,
                " for a 0-dim tensor");
  EMBER_CHECK_T(IndexError, d >= -nd && d < nd, "[stride] expected a dimension in [", -nd, ", ", nd - 1, "]; got ", d);
  return ss_.strides()[d < 0 ? d + nd : d];
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  checked_numel(sizes, "empty");  // also bounds every partial product below
  ss_.resize(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    ss_.sizes()[i] = sizes[i];
    ss_.strides()[i] = s;
    // With a zero size elsewhere numel is 0 and the running product can still outgrow int64. A
    // stride must hold it (libtorch refuses such shapes too); the product past dim 0 is no stride.
    const bool overflow = mul_overflows(s, std::max<int64_t>(sizes[i], 1), &s);
    EMBER_CHECK(!overflow || i == 0, "[empty] expected contiguous strides that fit in int64; got sizes ", sizes,
                ", where the stride of dim ", i - 1, " overflows");
  }
  refresh();
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides) {
  EMBER_CHECK(sizes.size() == strides.size(), "[as_strided] expected sizes and strides of the same length; got sizes ",
              sizes, " and strides ", strides);
  ss_.resize(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, "[as_strided] expected non-negative sizes; got ", sizes);
    ss_.sizes()[i] = sizes[i];
    ss_.strides()[i] = strides[i];
  }
  refresh();
}

void TensorImpl::refresh() {
  const size_t nd = ss_.dim();
  int64_t n = 0;
  EMBER_CHECK(safe_numel(sizes(), &n), "[view] expected a number of elements that fits in int64; sizes ", sizes(),
              " overflow it");
  numel_ = n;
  bool c = true;
  if (n != 0) {
    int64_t expected = 1;
    for (int64_t i = static_cast<int64_t>(nd) - 1; i >= 0; --i) {
      int64_t sz = ss_.sizes()[i];
      if (sz == 1) continue;
      if (ss_.strides()[i] != expected) { c = false; break; }
      expected *= sz;
    }
  }
  is_contiguous_ = c;
}

bool TensorImpl::is_non_overlapping_and_dense() const {
  if (is_contiguous_) return true;
  const size_t nd = ss_.dim();
  std::vector<size_t> perm(nd);
  for (size_t i = 0; i < nd; ++i) perm[i] = i;
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (ss_.sizes()[a] < 2) return false;
    if (ss_.sizes()[b] < 2) return true;
    return ss_.strides()[a] < ss_.strides()[b];
  });
  int64_t expected = 1;
  for (size_t i : perm) {
    int64_t sz = ss_.sizes()[i];
    if (sz < 2) return true;
    if (ss_.strides()[i] != expected) return false;
    expected *= sz;
  }
  return true;
}

void TensorImpl::set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) { autograd_meta_ = std::move(m); }

}  // namespace c10
