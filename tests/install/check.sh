#!/usr/bin/env bash
# Installs Ember into a scratch prefix and builds a program written for libtorch against it three
# ways: find_package(Torch) (TORCH_LIBRARIES), find_package(Ember) (Ember::ember), pkg-config; and
# the C ABI example against the installed C headers. The program is compiled as C++17, the standard
# libtorch's own CMake config asks for: the installed headers must not need C++20 (the library
# itself is built as C++20).
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
// The header templates a libtorch program instantiates: holders, containers, type queries, padding.
struct Net : torch::nn::Module {
  torch::nn::Sequential body{torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Linear(4, 2)};
  torch::nn::ModuleDict heads{std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>>{
      {"pad", torch::nn::ConstantPad1d(torch::nn::ConstantPad1dOptions(1, 0.5)).ptr()},
      {"pad2", torch::nn::ReflectionPad1d(1).ptr()}}};
  torch::nn::Sequential leaky{torch::nn::Functional(torch::leaky_relu, 0.5)};
  torch::nn::ParameterList extra{torch::ones({2}), torch::zeros({1})};
  Net() {
    register_module("body", body);
    register_module("heads", heads);
    register_module("extra", extra);
    register_module("leaky", leaky);
  }
  torch::Tensor forward(const torch::Tensor& x) { return body->forward(x); }
};
int check_templates() {
  auto net = std::make_shared<Net>();
  if (net->parameters().size() != 6) return 1;
  if (!net->body[0]->as<torch::nn::Linear>() || net->body[1]->as<torch::nn::LinearImpl>()) return 2;
  if (net->forward(torch::ones({5, 3})).sizes() != torch::IntArrayRef({5, 2})) return 3;
  torch::nn::AnyModule any(torch::nn::Linear(2, 2));
  if (any.forward(torch::ones({1, 2})).size(1) != 2) return 4;
  auto padded = net->heads["pad"]->as<torch::nn::ConstantPad1d>()->forward(torch::zeros({1, 1, 2}));
  if (padded.size(2) != 4 || padded[0][0][0].item<float>() != 0.5f) return 5;
  auto reflected = net->heads["pad2"]->as<torch::nn::ReflectionPad1d>()->forward(torch::arange(3, torch::kFloat).view({1, 1, 3}));
  if (reflected[0][0][0].item<float>() != 1) return 6;
  if (net->leaky->forward(torch::full({1}, -2.0)).item<float>() != -1) return 7;
  return 0;
}
int main() {
  if (int rc = check_templates()) { std::cerr << "nn templates check " << rc << " failed\n"; return 1; }
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
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
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
