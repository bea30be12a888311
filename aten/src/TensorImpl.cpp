// TensorImpl: sizes/strides bookkeeping.
#include <c10/core/TensorImpl.h>
#include <algorithm>

namespace c10 {

TensorImpl::TensorImpl(Storage storage, ScalarType dtype)
    : storage_(std::move(storage)), dtype_(dtype), device_(storage_.device()) {
  ss_.resize(1);
  ss_.sizes()[0] = 0;
  ss_.strides()[0] = 1;
  refresh();
}

TensorImpl::~TensorImpl() = default;

int64_t TensorImpl::size(int64_t d) const {
  const int64_t nd = dim();
  EMBER_CHECK_T(IndexError, (d >= -nd && d < nd) || (nd == 0 && (d == 0 || d == -1)),
                "[size] dimension out of range (expected to be in range of [", -std::max<int64_t>(nd, 1), ", ",
                std::max<int64_t>(nd, 1) - 1, "], but got ", d, ")");
  if (nd == 0) return 1;
  return ss_.sizes()[d < 0 ? d + nd : d];
}

int64_t TensorImpl::stride(int64_t d) const {
  const int64_t nd = dim();
  EMBER_CHECK_T(IndexError, (d >= -nd && d < nd) || (nd == 0 && (d == 0 || d == -1)),
                "[stride] dimension out of range (expected to be in range of [", -std::max<int64_t>(nd, 1), ", ",
                std::max<int64_t>(nd, 1) - 1, "], but got ", d, ")");
  if (nd == 0) return 1;
  return ss_.strides()[d < 0 ? d + nd : d];
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  ss_.resize(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    EMBER_CHECK(sizes[i] >= 0, "[empty] sizes must be non-negative; got ", sizes);
    ss_.sizes()[i] = sizes[i];
    ss_.strides()[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  refresh();
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides) {
  EMBER_CHECK(sizes.size() == strides.size(), "[as_strided] sizes ", sizes, " and strides ", strides,
              " must have the same length");
  ss_.resize(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, "[as_strided] sizes must be non-negative; got ", sizes);
    ss_.sizes()[i] = sizes[i];
    ss_.strides()[i] = strides[i];
  }
  refresh();
}

void TensorImpl::refresh() {
  const size_t nd = ss_.dim();
  int64_t n = 1;
  for (size_t i = 0; i < nd; ++i) n *= ss_.sizes()[i];
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
