#!/usr/bin/env bash
# Multithreaded backward under ThreadSanitizer: builds libember with -fsanitize=thread in a scratch
# build dir (CPU only, -O0: the build dominates the time, the run is short), then runs threads_main.cpp. OMP_NUM_THREADS=1: libgomp is not instrumented.
# Usage: run.sh SOURCE_DIR WORK_DIR
set -euo pipefail
SRC=$(cd "$1" && pwd)
mkdir -p "$2"
W=$(cd "$2" && pwd)
cmake -S "$SRC" -B "$W/build" -G Ninja -DEMBER_CUDA=OFF -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DCMAKE_CXX_FLAGS="-fsanitize=thread" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >/dev/null
ninja -C "$W/build" ember >/dev/null
g++ -std=c++20 -O1 -g -fsanitize=thread -I"$SRC/aten" -I"$SRC/api" -I"$SRC/autograd/include" -I"$W/build/generated/include" \
  "$SRC/tests/autograd/tsan/threads_main.cpp" -L"$W/build" -lember -Wl,-rpath,"$W/build" -o "$W/threads_main"
OMP_NUM_THREADS=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$W/threads_main"
