#!/usr/bin/env bash
# One scratch build of libember shared by two ctest tests (a ctest fixture), because a cold build
# of the library is most of their time:
#  - codegen.roundtrip (tests/codegen/roundtrip.sh): the library is generated from a copy of
#    ops.yaml with one user op appended (YAML only, no C++);
#  - autograd.threads_tsan (tests/autograd/tsan/run.sh): the library is built with
#    -fsanitize=thread.
# -O0 without debug info: both check behaviour, not speed, and an unoptimised build takes about
# half the time of the optimised one (CI builds it from cold). CPU only.
# Usage: build.sh SOURCE_DIR WORK_DIR    (leaves WORK_DIR/ops.yaml and the build in WORK_DIR/build)
set -euo pipefail
SRC=$(cd "$1" && pwd)
mkdir -p "$2"
WORK=$(cd "$2" && pwd)
cp "$SRC/ops.yaml" "$WORK/ops.yaml"
cat >> "$WORK/ops.yaml" <<'YAML'

# ---------------------------------------------------------------- added by tests/scratch/build.sh
- func: roundtrip_cube(Tensor self, *, Scalar scale=1) -> Tensor
  variants: function, method
  family: roundtrip
  pointwise: scale * self * self * self
  dtypes: floating
  golden: "a user's own op: libtorch has no roundtrip_cube to record"
  samples:
    - {self: [3, 4]}
    - {self: [2, 1, 3], scale: 0.5}
    - {self: {shape: [4, 5], layout: transposed}, dtype: float64}
YAML
cmake -S "$SRC" -B "$WORK/build" -G Ninja -DEMBER_OPS_YAML="$WORK/ops.yaml" -DEMBER_CUDA=OFF -DEMBER_BUILD_TESTS=OFF \
  -DEMBER_BUILD_EXAMPLES=OFF -DEMBER_CPU_CAPABILITIES=DEFAULT -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_CXX_FLAGS="-fsanitize=thread" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >/dev/null
ninja -C "$WORK/build" ember >/dev/null
echo "scratch libember (user op roundtrip_cube, ThreadSanitizer) built in $WORK/build"
