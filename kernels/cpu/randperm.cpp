// randperm: a uniformly random permutation of 0..n-1 (Fisher-Yates over the default generator).
#include <ATen/native/NativeFunctions.h>
#include <numeric>

namespace at::native {

Tensor randperm_cpu(int64_t n, TensorOptions options) {
  EMBER_CHECK(n >= 0, "[randperm] expected n >= 0; got ", n);
  ScalarType dt = options.has_dtype() ? options.scalar_type() : kLong;
  EMBER_CHECK(dt == kLong || dt == kInt || c10::isFloatingType(dt), "[randperm] expected an integer or floating dtype; got ",
              c10::dtypeName(dt));
  // Shuffle in the output itself: its allocation goes through the tensor allocator, which turns a
  // failure (n too large) into an [empty] error instead of std::bad_alloc.
  Tensor out = at::empty({n}, kLong);
  int64_t* p = out.data_ptr<int64_t>();
  std::iota(p, p + n, int64_t(0));
  {
    const Generator& g = detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(g.mutex());
    for (int64_t i = n - 1; i > 0; --i) {
      int64_t j = static_cast<int64_t>(g.get()->random64() % static_cast<uint64_t>(i + 1));
      std::swap(p[i], p[j]);
    }
  }
  if (dt != kLong) out = out.to(dt);
  return options.device().is_cpu() ? out : out.to(options.device());
}

}  // namespace at::native
