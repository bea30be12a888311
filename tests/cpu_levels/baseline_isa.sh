#!/usr/bin/env bash
# Checks Note [CPU capability levels] on the built library: only code in the per-level namespaces
# (cpu_avx2 / cpu_avx512 and kernels_cpu_avx2 / kernels_cpu_avx512) may use instructions beyond
# the x86-64 baseline. Anything else with a VEX/EVEX instruction (an inline function from a shared
# header whose AVX copy the linker kept, a kernel outside the per-level files) would crash the
# library with SIGILL on a CPU without AVX. Usage: baseline_isa.sh path/to/libember.so
set -euo pipefail
lib=$1
case "$(uname -m)" in x86_64) ;; *) echo "baseline_isa: not x86-64, nothing to check"; exit 0 ;; esac
command -v objdump >/dev/null || { echo "baseline_isa: objdump (binutils) not found"; exit 1; }
objdump -d -C --no-show-raw-insn "$lib" | awk '
  /^[0-9a-f]+ <.*>:$/ {
    fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn)
    level = (fn ~ /cpu_avx2|cpu_avx512/)
    next
  }
  # An instruction line: "  addr:\tmnemonic operands". VEX/EVEX mnemonics start with v (SSE and
  # x87 ones never do); ymm/zmm/k registers only exist from AVX on.
  /^ +[0-9a-f]+:\t/ {
    if (level) next
    split($0, parts, "\t"); ins = parts[2]
    if (ins ~ /^v[a-z]/ || ins ~ /%[yz]mm|%k[0-7]/) { bad[fn]++; total++ }
    funcs++
  }
  END {
    n = 0
    for (f in bad) { if (n < 20) printf "baseline_isa: beyond-baseline instructions (%d) in %s\n", bad[f], f; n++ }
    if (n) { printf "baseline_isa: %d functions outside the per-level namespaces use AVX instructions\n", n; exit 1 }
    print "baseline_isa: every function outside the per-level namespaces is baseline x86-64 code"
  }'
