// Records the reference values of tests/aten/test_random.cpp from libtorch (not part of any
// build): runs every case of tests/aten/random_cases.h and prints its values as float64. Build
// and run from the repository root:
//   LT=.peer/libtorch; g++ -std=c++20 -O0 -D_GLIBCXX_USE_CXX11_ABI=1 -w -I$LT/include \
//     -I$LT/include/torch/csrc/api/include -Itests/aten tests/aten/libtorch/record_random.cpp -L$LT/lib \
//     -ltorch_cpu -lc10 -Wl,-rpath,$LT/lib -Wl,--allow-shlib-undefined -o /tmp/record_random && \
//     /tmp/record_random > tests/aten/reference_random.inc
// The values depend on the machine where libtorch runs only for float normal_ on 16+ contiguous
// elements (see Note [CPU random streams]); these were recorded on an x86 CPU with AVX-512.
#include "random_cases.h"
#include <cmath>
#include <cstdio>

int main() {
  std::printf("// libtorch 2.15's output: written by tests/aten/libtorch/record_random.cpp (included into the\n");
  std::printf("// initializer of the reference table of tests/aten/test_random.cpp).\n");
  for (const auto& [name, run] : random_cases::all()) {
    torch::Tensor t = run().detach().to(torch::kDouble).contiguous().reshape(-1);
    std::printf("    {\"%s\", {", name.c_str());
    for (int64_t i = 0; i < t.numel(); ++i) {
      const double v = t[i].item<double>();
      if (std::isinf(v)) std::printf("%s%sINFINITY", i ? ", " : "", v < 0 ? "-" : "");
      else std::printf("%s%.17g", i ? ", " : "", v);
    }
    std::printf("}},\n");
  }
}
