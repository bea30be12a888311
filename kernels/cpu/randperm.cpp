// randperm: a uniformly random permutation of 0..n-1 (Fisher-Yates over the default generator).
#include <ATen/native/NativeFunctions.h>
#include <numeric>

namespace at::native {

Tensor randperm_cpu(int64_t n, TensorOptions options) {
  EMBER_CHECK(n >= 0, "[randperm] expected n >= 0; got ", n);
  ScalarType dt = options.has_dtype() ? options.dtype() : kLong;
  EMBER_CHECK(dt == kLong || dt == kInt || c10::isFloatingType(dt), "[randperm] expected an integer or floating dtype; got ",
              c10::dtypeName(dt));
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  {
    const Generator& g = detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(g.mutex());
    for (int64_t i = n - 1; i > 0; --i) {
      int64_t j = static_cast<int64_t>(g.get()->random64() % static_cast<uint64_t>(i + 1));
      std::swap(p[i], p[j]);
    }
  }
  Tensor out = at::empty({n}, kLong);
  std::copy(p.begin(), p.end(), out.data_ptr<int64_t>());
  if (dt != kLong) out = out.to(dt);
  return options.device().is_cpu() ? out : out.to(options.device());
}

}  // namespace at::native
