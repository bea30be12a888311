#!/usr/bin/env bash
# Checks Note [CPU capability levels] on the built library: no code that can run before a level is
# chosen, or on behalf of baseline code, uses instructions beyond the x86-64 baseline. That is:
#  - every global or weak function (a symbol the linker merges or other objects call) outside the
#    per-level namespaces (cpu_avx2 / cpu_avx512, kernels_cpu_*, and Vec.h's vec_avx2 / vec_avx512): an
#    inline function from a shared header whose AVX copy the linker kept would crash baseline
#    callers with SIGILL on a CPU without AVX;
#  - every static initialiser, whatever object it comes from: they all run at load time.
# Local functions (anonymous namespaces, static, the compiler's .isra/.constprop/.cold clones) are
# called only from their own object, so a per-level object's are per-level code.
# Usage: baseline_isa.sh path/to/libember.so
set -euo pipefail
lib=$1
case "$(uname -m)" in x86_64) ;; *) echo "baseline_isa: not x86-64, nothing to check"; exit 0 ;; esac
for tool in objdump nm; do
  command -v $tool >/dev/null || { echo "baseline_isa: $tool (binutils) not found"; exit 1; }
done
# Addresses of global/weak text symbols (T, W, i), one per line.
nm --defined-only "$lib" | awk '$2 ~ /^[TWi]$/ { print $1 }' > "${TMPDIR:-/tmp}/baseline_isa.$$"
trap 'rm -f "${TMPDIR:-/tmp}/baseline_isa.$$"' EXIT
objdump -d -C --no-show-raw-insn "$lib" | awk -v globals="${TMPDIR:-/tmp}/baseline_isa.$$" '
  BEGIN { while ((getline a < globals) > 0) global[a] = 1 }
  /^[0-9a-f]+ <.*>:$/ {
    addr = $1
    fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn)
    init = (fn ~ /^_GLOBAL__sub_I|__static_initialization_and_destruction/)
    check = init || ((addr in global) && fn !~ /cpu_avx2|cpu_avx512|vec_avx2|vec_avx512/)
    if (check) checked++
    next
  }
  # An instruction line: "  addr:\tmnemonic operands". VEX/EVEX mnemonics start with v (SSE and
  # x87 ones never do); ymm/zmm/k registers only exist from AVX on.
  /^ +[0-9a-f]+:\t/ {
    if (!check) next
    split($0, parts, "\t"); ins = parts[2]
    if (ins ~ /^v[a-z]/ || ins ~ /%[yz]mm|%k[0-7]/) bad[fn]++
  }
  END {
    n = 0
    for (f in bad) { if (n < 20) printf "baseline_isa: beyond-baseline instructions (%d) in %s\n", bad[f], f; n++ }
    if (n) { printf "baseline_isa: %d global functions or static initialisers use AVX instructions\n", n; exit 1 }
    if (checked < 1000) { printf "baseline_isa: only %d functions checked: the symbol table looks wrong\n", checked; exit 1 }
    printf "baseline_isa: %d global functions and static initialisers checked, all baseline x86-64 code\n", checked
  }'
