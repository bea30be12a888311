// The CPU capability level of this process. See Note [CPU capability levels] in
// ATen/native/DispatchStub.h.
#include <ATen/native/DispatchStub.h>
#include <c10/util/Exception.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>

namespace at::native {
namespace {

CPUCapability detect_supported() {
#if defined(__x86_64__) || defined(_M_X64)
  // __builtin_cpu_supports reads cpuid and, for the AVX families, also checks that the OS saves
  // the wider register state (XCR0), so a level reported here is usable.
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("f16c");
  if (!avx2) return CPUCapability::DEFAULT;
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
                      __builtin_cpu_supports("avx512bf16");
  return avx512 ? CPUCapability::AVX512 : CPUCapability::AVX2;
#else
  return CPUCapability::DEFAULT;
#endif
}

// EMBER_CPU_CAPABILITY lowers the level (for tests, and to compare paths); it never raises it
// above what the CPU has: asking for more than the CPU supports runs the best it supports.
CPUCapability choose() {
  const CPUCapability supported = get_cpu_capability_supported();
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  if (!env || !*env) return supported;
  CPUCapability want;
  if (!strcasecmp(env, "default")) want = CPUCapability::DEFAULT;
  else if (!strcasecmp(env, "avx2")) want = CPUCapability::AVX2;
  else if (!strcasecmp(env, "avx512")) want = CPUCapability::AVX512;
  else {
    std::fprintf(stderr, "[ember] EMBER_CPU_CAPABILITY: expected one of default, avx2, avx512; got '%s' (ignored)\n",
                 env);
    return supported;
  }
  return static_cast<int>(want) < static_cast<int>(supported) ? want : supported;
}

}  // namespace

CPUCapability get_cpu_capability_supported() {
  static const CPUCapability c = detect_supported();
  return c;
}

namespace {
// -1 until the first kernel call decides; then the level (changed only by the testing hook).
std::atomic<int> g_level{-1};
// Every stub with a registration, constant-initialised (registrations run during static
// initialisation, in any order).
DispatchStubBase* g_stubs = nullptr;
}  // namespace

CPUCapability get_cpu_capability() {
  int c = g_level.load(std::memory_order_relaxed);
  if (c < 0) {
    c = static_cast<int>(choose());
    g_level.store(c, std::memory_order_relaxed);
  }
  return static_cast<CPUCapability>(c);
}

void set_cpu_capability_for_testing(CPUCapability c) {
  const CPUCapability supported = get_cpu_capability_supported();
  if (static_cast<int>(c) > static_cast<int>(supported)) c = supported;
  g_level.store(static_cast<int>(c), std::memory_order_relaxed);
  for (DispatchStubBase* s = g_stubs; s; s = s->next) s->chosen.store(nullptr, std::memory_order_relaxed);
}

void list_dispatch_stub(DispatchStubBase* stub) {
  if (stub->listed) return;
  stub->listed = true;
  stub->next = g_stubs;
  g_stubs = stub;
}

const char* cpu_capability_name(CPUCapability c) {
  switch (c) {
    case CPUCapability::DEFAULT: return "DEFAULT";
    case CPUCapability::AVX2: return "AVX2";
    case CPUCapability::AVX512: return "AVX512";
    default: return "?";
  }
}

bool cpu_capability_compiled(CPUCapability c) {
  switch (c) {
    case CPUCapability::DEFAULT: return true;
#ifdef EMBER_CPU_COMPILED_AVX2
    case CPUCapability::AVX2: return true;
#endif
#ifdef EMBER_CPU_COMPILED_AVX512
    case CPUCapability::AVX512: return true;
#endif
    default: return false;
  }
}

void dispatch_stub_missing_kernel() {
  throw c10::Error(c10::str("[DispatchStub] expected a kernel registered at level ",
                            cpu_capability_name(get_cpu_capability()),
                            " or below; got none (a per-level kernel file is missing from the build)"));
}

}  // namespace at::native
