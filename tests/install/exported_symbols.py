#!/usr/bin/env python3
"""Checks Note [Exported symbols] (c10/macros/Export.h) on the built libember.so.

Lists the library's exported (dynamic, defined) symbols and fails when one is outside the rules:
  - C symbols: exactly the C ABI's entry point EmberGetApi (plus the linker's own section markers);
  - C++ symbols: in the API's namespaces at::, c10::, torch::, ember:: (its public parts) and
    caffe2:: (typeid), or libstdc++ template instances (namespace std is always exported by
    libstdc++'s own headers: std::vector<at::Tensor> code is instantiated in every library that
    uses it, as in libtorch);
  - never: the per-level SIMD code (Vec.h / Loops.h inline namespaces vec_*, kernels' cpu_<level>
    namespaces: an exported copy could be interposed, or taken for another level's), oneDNN, SLEEF
    or anonymous namespaces. (ember:: holds what the installed headers' inline code calls: the
    dispatcher's tables, TensorIter, the scalar special functions of SpecialMath.h.)
It also checks that symbols a program needs are there (the C ABI entry, c10::Error's type info so
`catch (const c10::Error&)` works across the boundary, the dispatcher's op entry points, nn and
serialization), and prints the counts by kind.
Usage: exported_symbols.py path/to/libember.so [--list]
"""
import re
import subprocess
import sys

lib = sys.argv[1]
listing = '--list' in sys.argv[2:]

out = subprocess.run(['nm', '-D', '--defined-only', lib], check=True, capture_output=True, text=True).stdout
mangled = []
for line in out.splitlines():
    parts = line.split()
    if len(parts) < 3:
        continue
    kind, name = parts[1], parts[2]
    name = name.split('@')[0]  # versioned symbol suffix
    mangled.append((kind, name))
dem = subprocess.run(['c++filt'], input='\n'.join(n for _, n in mangled), check=True,
                     capture_output=True, text=True).stdout.splitlines()
assert len(dem) == len(mangled), 'c++filt output does not line up with nm output'

LINKER = {'_init', '_fini', '__bss_start', '_edata', '_end', '__data_start', '_IO_stdin_used'}
C_API = {'EmberGetApi'}
# Prefixes the demangler puts before the entity's name.
SPECIAL = re.compile(r'^(?:vtable for |typeinfo for |typeinfo name for |VTT for |construction vtable for '
                     r'|guard variable for |TLS init function for |TLS wrapper function for '
                     r'|non-virtual thunk to |virtual thunk to |covariant return thunk to '
                     r'|transaction clone for |reference temporary #\d+ for )+')
PUBLIC_NS = ('at::', 'c10::', 'torch::', 'ember::', 'caffe2::')
STD_NS = ('std::', '__gnu_cxx::')
# Internal code that must never leave the library, wherever it appears in a name.
FORBIDDEN = re.compile(r'(?:\bvec_(?:sse2|avx2|avx512|neon|default)\b|\bcpu_(?:default|avx2|avx512)\b'
                       r'|\bkernels_cpu_|\bdnnl::|\bdnnl_|\bSleef_|\(anonymous namespace\))')

# std:: entities in mangled form (_ZSt..., _ZNSt..., _ZNKSt...) and, inside such a name, the
# internal pieces FORBIDDEN looks for (length-prefixed identifiers; _GLOBAL__N_: anonymous namespace).
UNDEMANGLED_STD = re.compile(r'^_Z(?:N[KVRO]*)?St')
UNDEMANGLED_FORBIDDEN = re.compile(r'\d(?:vec_(?:sse2|avx2|avx512|neon|default)|cpu_(?:default|avx2|avx512)'
                                   r'|kernels_cpu_|dnnl|Sleef_)|_GLOBAL__N_')


def entity(d):
    """The qualified name a demangled symbol is about, without 'vtable for ' and the return type."""
    d = SPECIAL.sub('', d)
    d = re.sub(r'^decltype\(auto\) ', '', d)
    # A function template instance's demangled name starts with its return type ("void at::f<...>").
    m = re.match(r'^(?:[\w:<>,* &]+?\s)?((?:::)?[\w~]+(?:<.*?>)?::.*|[\w~]+\(.*)$', d)
    return m.group(1) if m else d


bad, counts = [], {'c_api': 0, 'public': 0, 'std': 0, 'linker': 0}
for (kind, m), d in zip(mangled, dem):
    if not m.startswith('_Z'):
        if m in C_API:
            counts['c_api'] += 1
        elif m in LINKER:
            counts['linker'] += 1
        else:
            bad.append(f'C symbol outside the C ABI: {m}')
        continue
    e = entity(d)
    if d == m and UNDEMANGLED_STD.match(m):
        # c++filt could not demangle it (binutils 2.44 does not know gcc 14's mangling of a
        # constrained constructor, std::pair's `requires _S_constructible<...>`): judge the
        # mangled name, whose prefix says std:: and whose pieces name what it is instantiated on.
        if UNDEMANGLED_FORBIDDEN.search(m):
            bad.append(f'internal symbol exported: {m}')
        else:
            counts['std'] += 1
    elif FORBIDDEN.search(d):
        bad.append(f'internal symbol exported: {d}')
    elif e.startswith(PUBLIC_NS) or SPECIAL.sub('', d).startswith(PUBLIC_NS):
        counts['public'] += 1
    elif e.startswith(STD_NS) or SPECIAL.sub('', d).startswith(STD_NS):
        counts['std'] += 1
    elif re.match(r'^(?:[\w:<>,* &]+\s)?operator', SPECIAL.sub('', d)) and re.search(r'\b(?:at|c10|torch)::', d):
        counts['public'] += 1  # free operators on the API's types (operator<<(ostream&, at::Tensor const&))
    else:
        bad.append(f'symbol outside the API namespaces: {d}')
    if listing:
        print(kind, d)

REQUIRED = [
    ('EmberGetApi', 'the C ABI entry point'),
    ('typeinfo for c10::Error', "c10::Error's type info (catching it in a program)"),
    ('vtable for torch::nn::Module', "nn::Module's vtable (subclassing it in a program)"),
    ('at::toDLPack(', 'DLPack export'),
    ('torch::pickle_load(', 'checkpoint loading'),
]
names = set(dem) | {m for _, m in mangled}
for needle, what in REQUIRED:
    if not any(n.startswith(needle) or (needle.endswith('(') and needle in n) for n in names):
        bad.append(f'missing export: {needle} ({what})')

total = len(mangled)
print(f'exported_symbols: {total} exported symbols: {counts["public"]} in the C++ API namespaces, '
      f'{counts["std"]} libstdc++ template instances, {counts["c_api"]} C ABI, {counts["linker"]} linker markers')
for b in bad[:40]:
    print('exported_symbols: ' + b)
if len(bad) > 40:
    print(f'exported_symbols: ... and {len(bad) - 40} more')
sys.exit(1 if bad else 0)
