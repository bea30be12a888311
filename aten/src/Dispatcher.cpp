// The dispatch table and its load-time population.
#include <ATen/core/Dispatcher.h>

namespace ember {
void register_cpu_kernels();   // generated: RegisterCPU.cpp
void register_cuda_kernels();  // generated: RegisterCUDA.cpp (kernels, or stubs without CUDA)
void register_generated_backends();  // generated: RegisterBackends.cpp (Meta, ...: codegen/backends.yaml)
void register_autograd_kernels() __attribute__((weak));  // autograd/ (when linked)

namespace dispatch {

std::atomic<void*> table[kNumOps][c10::kNumDispatchKeys];
thread_local bool tls_grad_enabled = true;
thread_local bool tls_below_autograd = false;
thread_local bool tls_inference_mode = false;
ViewHook view_hook = nullptr;

void* set_kernel(OpId id, c10::DispatchKey key, void* fn) {
  EMBER_CHECK(static_cast<uint32_t>(id) < kNumOps, "[register_kernel] unknown op id ", static_cast<uint32_t>(id));
  return table[static_cast<uint32_t>(id)][static_cast<int>(key)].exchange(fn);
}

void missing_kernel(OpId id, uint8_t key) {
  const char* name = kOpBaseNames[static_cast<uint32_t>(id)];
  throw c10::NotImplementedError(c10::str("[", name, "] no kernel for ", c10::toString(static_cast<c10::DispatchKey>(key)),
                                          " (op ", kOpNames[static_cast<uint32_t>(id)], ")"));
}

void device_mismatch(const char* op, at::Device a, at::Device b) {
  throw c10::Error(c10::str("[", op, "] expected every tensor on one device; got tensors on ", a, " and ", b));
}

namespace {
struct Init {
  Init() {
    register_cpu_kernels();
    register_cuda_kernels();
    register_generated_backends();
    if (register_autograd_kernels) register_autograd_kernels();
  }
};
// Runs when libember.so is loaded, before any user code can call an op.
Init g_init __attribute__((init_priority(200)));
}  // namespace

}  // namespace dispatch
}  // namespace ember

namespace c10 {
const char* toString(DispatchKey k) {
  switch (k) {
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::Meta: return "Meta";
    case DispatchKey::PrivateUse1: return "PrivateUse1";
    case DispatchKey::Autograd: return "Autograd";
  }
  return "?";
}
}  // namespace c10
