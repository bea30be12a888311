#!/usr/bin/env bash
# Multithreaded backward under ThreadSanitizer: runs threads_main.cpp against the scratch libember
# that tests/scratch/build.sh built with -fsanitize=thread (a ctest fixture shared with
# codegen.roundtrip). OMP_NUM_THREADS=1: libgomp is not instrumented.
# Usage: run.sh SOURCE_DIR WORK_DIR   (WORK_DIR as given to tests/scratch/build.sh)
set -euo pipefail
SRC=$(cd "$1" && pwd)
W=$(cd "$2" && pwd)
test -f "$W/build/libember.so" || { echo "threads_tsan: no scratch build in $W/build (tests/scratch/build.sh)"; exit 1; }
g++ -std=c++20 -O1 -g -fsanitize=thread -I"$SRC/aten" -I"$SRC/api" -I"$SRC/autograd/include" -I"$W/build/generated/include" \
  "$SRC/tests/autograd/tsan/threads_main.cpp" -L"$W/build" -lember -Wl,-rpath,"$W/build" -o "$W/threads_main"
OMP_NUM_THREADS=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$W/threads_main"
