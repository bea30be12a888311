// Process start to first op result: loads the library, computes ones(1) + 1 and prints it, then leaves
// without running static destructors (the time measured by tools/bench/run is the load and the first op,
// not the unload). Same source against Ember and libtorch.
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>

int main() {
  auto y = torch::ones({1}) + 1;
  std::printf("%g\n", y.item<double>());
  std::fflush(stdout);
  std::_Exit(0);
}
