#!/bin/sh
# Builds check_levels.cpp at every vector level of aten/ATen/native/cpu/Vec.h this machine can run
# and runs it; then checks that the FMA levels (avx512, avx2, generic with FMA) agree bit for bit,
# and so do the two without FMA (sse2, generic). Needs only the headers and libsleef.
#   tests/aten/vec_levels/run.sh [--full] [build-dir]   (build-dir: for the generated headers; default build)
set -eu
full=""
if [ "${1:-}" = "--full" ]; then full="--full"; shift; fi
root=$(cd "$(dirname "$0")/../../.." && pwd)
gen=${1:-$root/build}/generated/include
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags="-std=gnu++20 -O2 -I$root/aten -I$root/api -I$root/autograd/include -I$gen"
status=0
run_level() {  # name, compiler flags
  if ! ${CXX:-c++} $flags $2 "$root/tests/aten/vec_levels/check_levels.cpp" -o "$out/$1" -lsleef; then
    echo "$1: does not compile"; status=1; return
  fi
  "$out/$1" $full "$out/$1.dump" || status=1
}
grep -q avx512bw /proc/cpuinfo 2>/dev/null && grep -q avx512vl /proc/cpuinfo && grep -q avx512dq /proc/cpuinfo &&
  run_level avx512 "-mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -mf16c"
grep -q avx2 /proc/cpuinfo 2>/dev/null && grep -q fma /proc/cpuinfo && run_level avx2 "-mavx2 -mfma -mf16c"
run_level sse2 ""
run_level generic "-DEMBER_VEC_GENERIC"
grep -q fma /proc/cpuinfo 2>/dev/null && run_level genericfma "-DEMBER_VEC_GENERIC -mfma"
# The dumps hold each function's results on the same inputs.
same() { [ -f "$out/$1.dump" ] && [ -f "$out/$2.dump" ] || return 0
  if cmp -s "$out/$1.dump" "$out/$2.dump"; then echo "$1 = $2: same bits"; else echo "$1 and $2 differ"; status=1; fi; }
same avx2 avx512
same avx2 genericfma
same sse2 generic
exit $status
