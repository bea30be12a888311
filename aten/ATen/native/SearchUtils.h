#pragma once
// Host-side checks and operand preparation of searchsorted, shared by the CPU kernel
// (kernels/cpu/search.cpp) and the CUDA kernel (kernels/cuda/search.cu).
//
// Note [searchsorted comparisons]
// Each value x is placed by a binary search over one line of the sorted sequence (the whole
// sequence when it is 1-d, else the line with the same leading indices as x). The search moves
// right past an element e while !(e >= x) (side left) or !(e > x) (side right), so a NaN value
// goes past every element (result: the line length), and a NaN element in the sequence counts as
// smaller than any value. This is the placement libtorch gives.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/Utils.h>
#include <optional>


namespace at::native::search_utils {

/// The operands of one searchsorted call, ready for a kernel: `seq` and `vals` contiguous in one
/// comparison dtype, `sorter` contiguous int64 or undefined, `out` allocated (int64 or int32).
struct Plan {
  Tensor seq, vals, sorter, out;
  int64_t len = 0;        // length of each line of seq
  int64_t per_line = 0;   // values searched in each line (0 when seq is 1-d: all use line 0)
  bool right = false;
};

/// Validates searchsorted's arguments (`op` names the public op in messages) and prepares a Plan.
inline Plan prepare(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<c10::string_view> side, const std::optional<Tensor>& sorter_opt, const char* op) {
  const Tensor& seq = sorted_sequence;
  EMBER_CHECK(seq.dim() >= 1, "[", op, "] expected a sorted sequence of at least 1 dim; got a 0-dim tensor");
  EMBER_CHECK(seq.device() == self.device(), "[", op, "] expected the sorted sequence and the values on one device; got ",
              seq.device(), " and ", self.device());
  if (side.has_value()) {
    EMBER_CHECK(*side == "left" || *side == "right", "[", op, "] expected side 'left' or 'right'; got '",
                std::string(*side), "'");
    EMBER_CHECK(!(right && *side == "left"), "[", op, "] side='left' contradicts right=true; give one or make them agree");
    right = *side == "right";
  }
  EMBER_CHECK(seq.scalar_type() != kBool && self.scalar_type() != kBool, "[", op,
              "] expected numeric tensors; got sorted sequence ", c10::dtypeName(seq.scalar_type()), " and values ",
              c10::dtypeName(self.scalar_type()));
  if (seq.dim() > 1) {
    bool same = self.dim() == seq.dim();
    for (int64_t d = 0; same && d + 1 < seq.dim(); ++d) same = seq.size(d) == self.size(d);
    EMBER_CHECK(same, "[", op, "] expected a 1-d sorted sequence, or values whose leading dims (all but the last) ",
                "equal the sequence's; got sequence ", seq.sizes(), " and values ", self.sizes());
  }
  Plan p;
  p.right = right;
  p.len = seq.size(-1);
  if (out_int32)
    EMBER_CHECK(p.len < (int64_t(1) << 31), "[", op, "] out_int32=true needs a sequence line shorter than 2^31; got ", p.len);
  if (sorter_opt.has_value() && sorter_opt->defined()) {
    const Tensor& s = *sorter_opt;
    EMBER_CHECK(s.scalar_type() == kLong, "[", op, "] expected an int64 sorter; got ", c10::dtypeName(s.scalar_type()));
    EMBER_CHECK(s.sizes() == seq.sizes(), "[", op, "] expected a sorter of the sequence's shape ", seq.sizes(), "; got ",
                s.sizes());
    EMBER_CHECK(s.device() == seq.device(), "[", op, "] expected the sorter on the sequence's device ", seq.device(),
                "; got ", s.device());
    if (s.numel() > 0) {
      const int64_t lo = s.min().item<int64_t>(), hi = s.max().item<int64_t>();
      EMBER_CHECK(lo >= 0 && hi < p.len, "[", op, "] expected sorter indices in [0, ", p.len, "); got values in [", lo,
                  ", ", hi, "]");
    }
    p.sorter = s.contiguous();
  }
  const ScalarType dt = promoteTypes(seq.scalar_type(), self.scalar_type());
  p.seq = seq.to(dt).contiguous();
  p.vals = self.to(dt).contiguous();
  p.per_line = seq.dim() == 1 ? 0 : (self.dim() == 0 ? 1 : self.size(-1));
  p.out = at::empty(self.sizes(), self.options().dtype(out_int32 ? kInt : kLong));
  return p;
}

/// Position of x in line [e, e + len) of a sequence (optionally read through `order`); see
/// Note [searchsorted comparisons].
template <typename T, typename C>
#ifdef __CUDACC__
__host__ __device__
#endif
inline int64_t place(const T* e, const int64_t* order, int64_t len, C x, bool right) {
  int64_t lo = 0, hi = len;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const C v = static_cast<C>(e[order ? order[mid] : mid]);
    const bool past = right ? !(v > x) : !(v >= x);
    if (past) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

}  // namespace at::native::search_utils

EMBER_PUBLIC_END
