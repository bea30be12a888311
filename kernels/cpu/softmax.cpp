// The entry points of _softmax and _log_softmax on the CPU; the kernels are in
// kernels/cpu/isa/softmax.cpp, one per CPU capability level.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/cpu/SoftmaxKernel.h>
#include <ATen/Utils.h>

namespace at::native {

EMBER_DEFINE_DISPATCH(softmax_fn, softmax_stub);

namespace {
Tensor softmax_entry(const char* op, const Tensor& self, int64_t dim, bool half_to_float, bool log) {
  EMBER_CHECK(self.is_cpu(), "[", op, "] expected a CPU tensor; got one on ", self.device());
  const ScalarType dt = self.scalar_type();
  EMBER_CHECK(isFloatingType(dt), "[", op, "] expected a floating point input; got ", c10::dtypeName(dt),
              " (pass dtype= to compute in a floating dtype)");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), op);
  // half_to_float (a float32 result straight from float16 input) is a CUDA-only path in libtorch;
  // on the CPU the composite softmax(x, dim, kFloat) converts first. Raise like libtorch does.
  EMBER_CHECK(!half_to_float, "[", op, "] expected half_to_float=false on the CPU (convert with softmax(x, dim, "
              "kFloat) instead); got true");
  return softmax_stub(op, self, d, log);
}
}  // namespace

Tensor softmax_cpu(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_entry("softmax", self, dim, half_to_float, false);
}

Tensor log_softmax_cpu(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_entry("log_softmax", self, dim, half_to_float, true);
}

}  // namespace at::native
