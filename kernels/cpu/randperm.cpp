// randperm: a uniformly random permutation of 0..n-1 drawn from the CPU generator (the default one
// unless one is passed), in
// libtorch's order: for i = 0 .. n-2, swap element i with element i + (random() % (n - i)).
// From n = floor((2^32 - 1) / 20) on, libtorch switches to an inside-out shuffle on random64()
// (element i goes to position j = random64() % (i + 1), the old element at j moves to i) so the
// modulo stays unbiased; Ember does the same (checked against libtorch once at that n, too slow
// for the test suite).
#include <ATen/native/NativeFunctions.h>
#include <limits>
#include <numeric>

namespace at::native {

Tensor randperm_cpu(int64_t n, std::optional<Generator> generator, TensorOptions options) {
  EMBER_CHECK(n >= 0, "[randperm] expected n >= 0; got ", n);
  ScalarType dt = options.has_dtype() ? options.scalar_type() : kLong;
  EMBER_CHECK(dt == kLong || dt == kInt || c10::isFloatingType(dt), "[randperm] expected an integer or floating dtype; got ",
              c10::dtypeName(dt));
  // Shuffle in the output itself: its allocation goes through the tensor allocator, which turns a
  // failure (n too large) into an [empty] error instead of std::bad_alloc.
  Tensor out = at::empty({n}, kLong);
  int64_t* p = out._mutable_data_ptr_internal<int64_t>();
  CPUGeneratorImpl* g = detail::cpu_generator(generator, "randperm");
  {
    std::lock_guard<std::mutex> lock(g->mutex_);
    if (n < static_cast<int64_t>(std::numeric_limits<uint32_t>::max() / 20)) {
      std::iota(p, p + n, int64_t(0));
      for (int64_t i = 0; i + 1 < n; ++i) {
        const int64_t j = i + static_cast<int64_t>(g->random() % static_cast<uint64_t>(n - i));
        std::swap(p[i], p[j]);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const auto j = static_cast<int64_t>(g->random64() % static_cast<uint64_t>(i + 1));
        p[i] = p[j];
        p[j] = i;
      }
    }
  }
  if (dt != kLong) out = out.to(dt);
  return options.device().is_cpu() ? out : out.to(options.device());
}

}  // namespace at::native
