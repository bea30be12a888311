// The CPU capability level of this process. See Note [CPU capability levels] in
// ATen/native/DispatchStub.h.
#include <ATen/native/DispatchStub.h>
#include <c10/util/Exception.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#endif

namespace at::native {
namespace {

#if defined(__x86_64__) || defined(_M_X64)
// Reads cpuid and XCR0 directly (<cpuid.h>): gcc's and clang's __builtin_cpu_supports know
// different feature names (clang 14 has no "f16c"), and a level is usable only when the OS also
// saves its registers (XCR0), which the cpuid feature bits alone do not say.
struct CpuFeatures {
  bool avx2 = false, avx512 = false;
};

uint64_t read_xcr0() {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

CpuFeatures read_features() {
  CpuFeatures f;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28), f16c = c & (1u << 29);
  if (!osxsave || !avx) return f;
  const uint64_t xcr0 = read_xcr0();
  if ((xcr0 & 0x6) != 0x6) return f;  // SSE and AVX (YMM) state
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, a, b, c, d);
  const bool avx2 = b & (1u << 5);
  f.avx2 = avx2 && fma && f16c;
  const bool avx512 = (b & (1u << 16)) /*F*/ && (b & (1u << 17)) /*DQ*/ && (b & (1u << 28)) /*CD*/ &&
                      (b & (1u << 30)) /*BW*/ && (b & (1u << 31)) /*VL*/ && (c & (1u << 11)) /*VNNI*/;
  unsigned a1, b1, c1, d1;
  __cpuid_count(7, 1, a1, b1, c1, d1);
  const bool bf16 = a1 & (1u << 5);
  f.avx512 = f.avx2 && avx512 && bf16 && (xcr0 & 0xe0) == 0xe0;  // opmask, ZMM0-15, ZMM16-31 state
  return f;
}
#endif

CPUCapability detect_supported() {
#if defined(__x86_64__) || defined(_M_X64)
  const CpuFeatures f = read_features();
  if (f.avx512) return CPUCapability::AVX512;
  if (f.avx2) return CPUCapability::AVX2;
  return CPUCapability::DEFAULT;
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
