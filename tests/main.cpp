// ember_tests' main. With EMBER_TEST_LEVEL=<level> (default, avx2, avx512) the suite runs its
// kernels at that CPU capability level (Note [CPU capability levels]) and exits with 77, which
// ctest reads as "skipped", when this CPU does not have the level.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <ATen/native/DispatchStub.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <strings.h>

int main(int argc, char** argv) {
  if (const char* level = std::getenv("EMBER_TEST_LEVEL")) {
    // The library reads EMBER_CPU_CAPABILITY once, at the first kernel call: set it before any.
    setenv("EMBER_CPU_CAPABILITY", level, 1);
    const char* got = at::native::cpu_capability_name(at::native::get_cpu_capability());
    if (strcasecmp(got, level) != 0) {
      std::printf("ember_tests: this CPU runs level %s at most; level %s skipped\n", got, level);
      return 77;
    }
    std::printf("ember_tests: kernels at CPU capability level %s\n", got);
  }
  return Catch::Session().run(argc, argv);
}
