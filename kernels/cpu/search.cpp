// searchsorted on the CPU: one binary search per value (Note [searchsorted comparisons] in
// ATen/native/SearchUtils.h), values split across threads.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/SearchUtils.h>
#include <ATen/Parallel.h>

namespace at::native {
namespace {

template <typename T, typename I>
void search_lines(const search_utils::Plan& p) {
  using C = c10::opmath_t<T>;
  const T* seq = p.seq.const_data_ptr<T>();
  const T* vals = p.vals.const_data_ptr<T>();
  const int64_t* order = p.sorter.defined() ? p.sorter.const_data_ptr<int64_t>() : nullptr;
  I* out = p.out._mutable_data_ptr_internal<I>();
  const int64_t n = p.vals.numel(), len = p.len, per_line = p.per_line;
  const bool right = p.right;
  at::parallel_for(0, n, at::internal::grain_for_tasks(n * 8, n), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t base = per_line == 0 ? 0 : (i / per_line) * len;
      out[i] = static_cast<I>(search_utils::place<T, C>(seq + base, order ? order + base : nullptr, len,
                                                        static_cast<C>(vals[i]), right));
    }
  });
}

}  // namespace

Tensor searchsorted_cpu(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                        std::optional<c10::string_view> side, const std::optional<Tensor>& sorter) {
  const search_utils::Plan p = search_utils::prepare(sorted_sequence, self, out_int32, right, side, sorter, "searchsorted");
  if (p.out.numel() == 0) return p.out;
  AT_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, p.seq.scalar_type(), "searchsorted", [&] {
    if (out_int32) search_lines<scalar_t, int32_t>(p);
    else search_lines<scalar_t, int64_t>(p);
  });
  return p.out;
}

}  // namespace at::native
