#!/usr/bin/env bash
# Smoke run of an example on a small slice of its data (Fashion-MNIST, or char_lstm's text; ctest:
# examples.*), so that no example can rot: the program must exit 0, print its per-epoch lines and,
# when it has an output directory, leave a well-formed SVG and a saved model there.
# Usage: smoke.sh OUT_DIR PROGRAM [ARGS...]     (OUT_DIR empty: the program writes no files)
set -euo pipefail
out=$1; shift
[ -n "$out" ] && rm -rf "$out"
log=$("$@") || { rc=$?; echo "$log"; echo "smoke: exit $rc"; exit 1; }
echo "$log"
grep -q '^epoch ' <<<"$log" || { echo "smoke: no per-epoch line"; exit 1; }
if [ -n "$out" ]; then
  svg=$(ls "$out"/*.svg) && pt=$(ls "$out"/*.pt) || { echo "smoke: no SVG or model in $out"; exit 1; }
  head -c 4 "$svg" | grep -q '<svg' && tail -c 7 "$svg" | grep -q '</svg>' || { echo "smoke: $svg is not an SVG"; exit 1; }
  [ "$(grep -c '<polyline' "$svg")" -ge 4 ] || { echo "smoke: $svg has no curves"; exit 1; }
  [ -s "$pt" ] || { echo "smoke: $pt is empty"; exit 1; }
fi
echo "smoke: ok"
