#!/usr/bin/env bash
# Installs Ember into a scratch prefix and builds a program written for libtorch against it three
# ways: find_package(Torch) (TORCH_LIBRARIES), find_package(Ember) (Ember::ember), pkg-config; and
# the C ABI example against the installed C headers.
# Usage: check.sh BUILD_DIR WORK_DIR
set -euo pipefail
B=$(cd "$1" && pwd)
W=$2
rm -rf "$W" && mkdir -p "$W/app"
W=$(cd "$W" && pwd)
cmake --install "$B" --prefix "$W/prefix" >/dev/null
cat > "$W/app/main.cpp" <<'CPP'
#include <torch/torch.h>
#include <iostream>
// Extension code written for libtorch marks its own declarations with libtorch's export macros.
struct TORCH_API AppScaler { float factor = 2; torch::Tensor apply(const torch::Tensor& t) const; };
torch::Tensor AppScaler::apply(const torch::Tensor& t) const { return t * factor; }
int main() {
  if (AppScaler{}.apply(torch::ones({1})).item<float>() != 2) return 1;
  torch::Tensor a = torch::arange(6, torch::kFloat).reshape({2, 3});
  torch::Tensor b = torch::ones({3, 2});
  torch::Tensor c = torch::mm(a, b).sum(1);
  if (c[0].item<float>() != 6 || c[1].item<float>() != 24) { std::cerr << c << "\n"; return 1; }
  std::cout << "libtorch-style program OK\n";
  return 0;
}
CPP
cat > "$W/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(app CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(Torch REQUIRED)
add_executable(app_torch main.cpp)
target_link_libraries(app_torch "${TORCH_LIBRARIES}")
find_package(Ember REQUIRED)
add_executable(app_ember main.cpp)
target_link_libraries(app_ember Ember::ember)
CM
cmake -S "$W/app" -B "$W/app/build" -G Ninja -DCMAKE_PREFIX_PATH="$W/prefix" -DTorch_DIR="$W/prefix/lib/cmake/Torch" >/dev/null
ninja -C "$W/app/build" >/dev/null
"$W/app/build/app_torch"
"$W/app/build/app_ember"
PKG_CONFIG_PATH="$W/prefix/lib/pkgconfig" g++ $(PKG_CONFIG_PATH="$W/prefix/lib/pkgconfig" pkg-config --cflags ember) \
  "$W/app/main.cpp" -o "$W/app/app_pc" $(PKG_CONFIG_PATH="$W/prefix/lib/pkgconfig" pkg-config --libs ember) -Wl,-rpath,"$W/prefix/lib"
"$W/app/app_pc"
# The C ABI from the installed headers alone (ember/ember.h and the generated ember/ember_ops.h): the
# C example, compiled by the C compiler as strict C99.
cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$W/prefix/include" "$(dirname "$0")/../../examples/c/mlp.c" \
  -L"$W/prefix/lib" -lember -lm -Wl,-rpath,"$W/prefix/lib" -o "$W/app/mlp_c"
"$W/app/mlp_c" >/dev/null
echo "C ABI program OK"
echo "4 passed, 0 failed"
