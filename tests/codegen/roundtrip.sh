#!/usr/bin/env bash
# The "add an op by editing YAML only" round trip, for real:
#  1. tests/scratch/build.sh (a ctest fixture) appended a new pointwise op (YAML only, no C++) to
#     a copy of ops.yaml and built libember from it in a scratch build dir (with ThreadSanitizer,
#     because autograd.threads_tsan shares that build);
#  2. compile and run the generated tests for the new op, and a driver that calls it as a
#     function, a method, in place and with out=;
#  3. edit only that op's expression and check that ninja rebuilds only that op's kernel file
#     (printing the incremental rebuild time). ctest runs this after autograd.threads_tsan, which
#     links against the same library.
# Usage: roundtrip.sh SOURCE_DIR WORK_DIR   (WORK_DIR as given to tests/scratch/build.sh)
set -euo pipefail
SRC=$(cd "$1" && pwd)
WORK=$2
WORK=$(cd "$WORK" && pwd)
B="$WORK/build"
test -f "$B/libember.so" || { echo "roundtrip: no scratch build in $B (tests/scratch/build.sh)"; exit 1; }
python3 "$SRC/codegen/gen.py" --ops "$WORK/ops.yaml" --out "$WORK/gen-tests" --tests >/dev/null
test -f "$WORK/gen-tests/tests/ops_roundtrip.cpp"

cat > "$WORK/driver.cpp" <<'CPP'
#include <torch/torch.h>
#include <cmath>
#include <cstdio>
int main() {
  auto x = torch::empty({5}, torch::kDouble);
  for (int i = 0; i < 5; ++i) x.data_ptr<double>()[i] = i - 2.0;
  auto a = torch::roundtrip_cube(x, 2);       // function
  auto b = x.roundtrip_cube();                // method
  auto c = x.clone(); c.roundtrip_cube_();    // in-place
  auto d = torch::empty({0}, torch::kDouble); torch::roundtrip_cube_out(d, x);  // out=
  for (int i = 0; i < 5; ++i) {
    double v = i - 2.0;
    if (a.data_ptr<double>()[i] != 2 * v * v * v || b.data_ptr<double>()[i] != v * v * v ||
        c.data_ptr<double>()[i] != v * v * v || d.data_ptr<double>()[i] != v * v * v) {
      std::printf("roundtrip_cube: wrong value at %d\n", i);
      return 1;
    }
  }
  try { torch::roundtrip_cube(torch::empty({2}, torch::kLong)); std::puts("expected a dtype error"); return 1; }
  catch (const c10::Error& e) { if (std::string(e.what()).rfind("[roundtrip_cube]", 0) != 0) { std::puts(e.what()); return 1; } }
  std::puts("driver: function, method, in-place, out= and dtype error all OK");
  return 0;
}
CPP
INC=(-I"$SRC/aten" -I"$SRC/api" -I"$SRC/autograd/include" -I"$B/generated/include" -I"$SRC/tests")
g++ -std=c++20 -O1 -fsanitize=thread "${INC[@]}" "$WORK/driver.cpp" -L"$B" -lember -Wl,-rpath,"$B" -o "$WORK/driver"
OMP_NUM_THREADS=1 "$WORK/driver"
g++ -std=c++20 -O1 -fsanitize=thread "${INC[@]}" -DEMBER_GOLDEN_FILE="\"$SRC/tests/golden/ops.golden\"" "$SRC/tests/main.cpp" \
  "$SRC/tests/op_test_util.cpp" "$WORK/gen-tests/tests/ops_roundtrip.cpp" "$WORK/gen-tests/tests/cuda_gaps.cpp" \
  -L"$B" -lember -Wl,-rpath,"$B" -o "$WORK/roundtrip_tests"
OMP_NUM_THREADS=1 "$WORK/roundtrip_tests"

# Edit only this op's expression: only its kernel file may rebuild.
sed -i 's/pointwise: scale \* self \* self \* self/pointwise: scale * (self * self) * self/' "$WORK/ops.yaml"
start=$(date +%s.%N)
ninja -C "$B" ember -d explain 2>&1 | grep -o 'CXX object [^ ]*' | sort -u > "$WORK/rebuilt.txt" || true
ninja -C "$B" ember >/dev/null
secs=$(python3 -c "import time,sys; print(f'{time.time()-float(sys.argv[1]):.1f}')" "$start")
echo "incremental rebuild after editing one op's expression: ${secs}s; objects rebuilt:"
cat "$WORK/rebuilt.txt"
python3 - "$WORK/rebuilt.txt" <<'PY'
import sys
objs = [l.strip() for l in open(sys.argv[1]) if l.strip()]
bad = [o for o in objs if "pw_roundtrip_cube" not in o]
if bad or not objs:
    print("FAIL: editing one op rebuilt", objs or "nothing")
    sys.exit(1)
print("1 passed, 0 failed")
PY
