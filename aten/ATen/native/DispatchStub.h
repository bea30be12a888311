#pragma once
// Runtime instruction-set dispatch for CPU kernels. See Note [CPU capability levels].
//
// A kernel file that benefits from SIMD is compiled once per capability level the build
// targets (CMake: EMBER_CPU_CAPABILITIES), each time inside its own namespace EMBER_CPU_NS, and
// registers its entry point into a stub:
//
//   // baseline file (compiled once, for the x86-64 / architecture baseline)
//   using exp_fn = void (*)(ember::TensorIter&);
//   EMBER_DEFINE_DISPATCH(exp_fn, exp_stub);
//   ... exp_stub(it); ...
//
//   // kernel file (compiled once per level)
//   EMBER_DECLARE_DISPATCH(exp_fn, exp_stub);
//   namespace EMBER_CPU_NS { void exp_kernel(ember::TensorIter& it) { ... } }
//   EMBER_REGISTER_DISPATCH(exp_stub, &EMBER_CPU_NS::exp_kernel);
//
// The level is chosen once per process (the best the CPU supports, or lower when
// EMBER_CPU_CAPABILITY says so) and a stub resolves to the best registered level not above it.
//
// Note [CPU capability levels]
// On x86-64 the levels are DEFAULT (the baseline: SSE2 only), AVX2 (AVX2 + FMA + F16C: Haswell,
// Zen 1 and later) and AVX512 (F, CD, BW, DQ, VL, VNNI, BF16 + the AVX2 set: the subset that Zen 4
// and Sapphire Rapids share). Elsewhere DEFAULT is the only level. Everything outside the kernel
// files is built for the baseline, so the library loads and runs on any CPU of its architecture.
// Two rules keep the levels apart at link time:
//  - every type or function whose code differs per level lives in a namespace named after the
//    level: EMBER_CPU_NS (cpu_default / cpu_avx2 / cpu_avx512) in the kernel files, and Vec.h's and
//    Loops.h's own inline namespaces (vec_sse2 / vec_avx2 / vec_avx512: Note [Vec levels in one
//    library] in Vec.h), so the per-level copies have different symbol names;
//  - inline functions from shared headers (c10, Tensor) that a kernel file instantiates are weak
//    symbols the linker merges, keeping the first copy it sees: the baseline objects come first
//    on the link line (CMakeLists.txt), so the surviving copy is the baseline one.
//    tests/cpu_levels/baseline_isa.sh checks the result: no code outside the per-level
//    namespaces uses an instruction beyond the baseline. The usual offender is a template
//    instantiated only by per-level code and inlined in its DEFAULT copy, so that an AVX copy is
//    the only one (c10::str for an error message is typical): argument checks and their messages
//    belong in the baseline entry point, before the stub is called.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <atomic>
#include <cstdint>
#include <utility>

#ifndef EMBER_CPU_NS
// Code compiled outside the per-level kernel objects (the baseline library, tests, user code)
// is DEFAULT-level code.
#define EMBER_CPU_NS cpu_default
#define EMBER_CPU_CAPABILITY_INDEX 0
#endif

#define EMBER_DISPATCH_CONCAT_(a, b) a##b
#define EMBER_DISPATCH_CONCAT(a, b) EMBER_DISPATCH_CONCAT_(a, b)
/// A second per-level namespace name (kernels_cpu_avx2, ...), for code that must not sit inside
/// EMBER_CPU_NS itself.
#define EMBER_CPU_KERNEL_NS EMBER_DISPATCH_CONCAT(kernels_, EMBER_CPU_NS)

namespace at::native {

enum class CPUCapability : int8_t { DEFAULT = 0, AVX2 = 1, AVX512 = 2, NUM_OPTIONS = 3 };

/// The level the kernels run at in this process: the best the CPU (and the OS, for the register
/// state) supports, lowered by the environment variable EMBER_CPU_CAPABILITY (default, avx2,
/// avx512) when it names a lower one. Decided at first use, then fixed.
CPUCapability get_cpu_capability();
/// The best level this CPU supports, whatever the environment says.
CPUCapability get_cpu_capability_supported();
/// "DEFAULT", "AVX2" or "AVX512".
const char* cpu_capability_name(CPUCapability c);
/// Whether this build compiled kernels for level `c` (EMBER_CPU_CAPABILITIES at configure time).
bool cpu_capability_compiled(CPUCapability c);

/// Testing only: runs every kernel at level `c` from now on (clamped to what the CPU supports), so a
/// test can compare the levels in one process. Not safe while another thread runs kernels.
void set_cpu_capability_for_testing(CPUCapability c);

/// The part of a stub that does not depend on its signature: the resolved implementation, and
/// the list of all stubs (so set_cpu_capability_for_testing can make them resolve again).
struct DispatchStubBase {
  std::atomic<void*> chosen;
  DispatchStubBase* next;
  bool listed;
  constexpr DispatchStubBase() : chosen(nullptr), next(nullptr), listed(false) {}
};
/// Adds `stub` to the list of stubs (once; from the registrations' static initialisers).
void list_dispatch_stub(DispatchStubBase* stub);
[[noreturn]] void dispatch_stub_missing_kernel();

template <typename FnPtr>
struct DispatchStub;

/// One kernel entry point with an implementation per capability level.
template <typename Ret, typename... Args>
struct DispatchStub<Ret (*)(Args...)> : DispatchStubBase {
  using Fn = Ret (*)(Args...);
  // Zero-initialised before any constructor runs, so registrations from other files' static
  // initialisers are safe whatever their order.
  Fn impl[static_cast<int>(CPUCapability::NUM_OPTIONS)];

  constexpr DispatchStub() : impl{} {}
  DispatchStub(const DispatchStub&) = delete;
  DispatchStub& operator=(const DispatchStub&) = delete;

  template <typename... A>
  Ret operator()(A&&... args) {
    void* f = chosen.load(std::memory_order_relaxed);
    if (__builtin_expect(f == nullptr, 0)) f = resolve();
    return reinterpret_cast<Fn>(f)(std::forward<A>(args)...);
  }

  /// The implementation for level `c` or the best registered one below it (nullptr if none).
  Fn at_level(CPUCapability c) const {
    for (int k = static_cast<int>(c); k >= 0; --k)
      if (impl[k]) return impl[k];
    return nullptr;
  }

 private:
  void* resolve() {
    Fn f = at_level(get_cpu_capability());
    if (!f) dispatch_stub_missing_kernel();
    void* p = reinterpret_cast<void*>(f);
    chosen.store(p, std::memory_order_relaxed);
    return p;
  }
};

/// Installs `fn` as `stub`'s implementation for level `c` (from a static initialiser).
struct RegisterDispatch {
  template <typename Fn>
  RegisterDispatch(DispatchStub<Fn>& stub, CPUCapability c, Fn fn) {
    stub.impl[static_cast<int>(c)] = fn;
    list_dispatch_stub(&stub);
  }
};

}  // namespace at::native

#define EMBER_DECLARE_DISPATCH(fn_type, name) extern ::at::native::DispatchStub<fn_type> name
#define EMBER_DEFINE_DISPATCH(fn_type, name) ::at::native::DispatchStub<fn_type> name
/// In a per-level kernel file: registers `fn` for the level being compiled.
#define EMBER_REGISTER_DISPATCH(stub, fn)                                                       \
  static ::at::native::RegisterDispatch EMBER_DISPATCH_CONCAT(ember_register_, __COUNTER__)( \
      stub, static_cast<::at::native::CPUCapability>(EMBER_CPU_CAPABILITY_INDEX), fn)

EMBER_PUBLIC_END
