#!/usr/bin/env bash
# The out-of-tree backend of examples/backend, built as an external project would build it: Ember is
# installed into a scratch prefix, and the example's own CMakeLists.txt finds it there
# (find_package(Ember)); then its program runs ops on the "toy" device against the CPU.
# Usage: backend.sh BUILD_DIR WORK_DIR
set -euo pipefail
B=$(cd "$1" && pwd)
W=$2
rm -rf "$W" && mkdir -p "$W"
W=$(cd "$W" && pwd)
cmake --install "$B" --prefix "$W/prefix" >/dev/null
cmake -S "$(dirname "$0")/../../examples/backend" -B "$W/build" -G Ninja -DCMAKE_PREFIX_PATH="$W/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$W/build" >/dev/null
# The program must run against the installed library, not the build tree's.
if ldd "$W/build/toy_check" | grep -q "$B/libember"; then
  echo "toy_check resolved libember from the build tree" >&2
  exit 1
fi
"$W/build/toy_check"
