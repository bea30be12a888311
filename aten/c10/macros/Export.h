#pragma once
// Symbol visibility (Note [Exported symbols]).
//
// libember.so is compiled with -fvisibility=hidden: a symbol leaves the library only when it is
// marked here. The C++ API is what the installed headers declare, so each installed header opens
// with EMBER_PUBLIC_BEGIN and closes with EMBER_PUBLIC_END: everything it declares is exported,
// and everything declared only in the library's sources, in kernels/ or in the per-level SIMD
// headers (ATen/native/cpu/Vec.h, Loops.h, Lut16.h) stays inside. A single internal function a
// test must reach is marked TORCH_API one by one. The C ABI exports one symbol, EmberGetApi
// (EMBER_C_EXPORT in <ember/ember.h>). tests/install/exported_symbols.sh lists what the built
// library exports and fails on anything outside these rules.
//
// C10_API / TORCH_API / TORCH_CUDA_CPP_API are libtorch's spellings: programs and extensions
// written for libtorch use them on their own declarations, so they mean the same here.

#if defined(__GNUC__) || defined(__clang__)
#define C10_EXPORT __attribute__((__visibility__("default")))
#define C10_HIDDEN __attribute__((__visibility__("hidden")))
#define EMBER_PUBLIC_BEGIN _Pragma("GCC visibility push(default)")
#define EMBER_PUBLIC_END _Pragma("GCC visibility pop")
#else
#define C10_EXPORT
#define C10_HIDDEN
#define EMBER_PUBLIC_BEGIN
#define EMBER_PUBLIC_END
#endif
#define C10_IMPORT C10_EXPORT

#define C10_API C10_EXPORT
#define TORCH_API C10_EXPORT
#define C10_CUDA_API C10_EXPORT
#define TORCH_CUDA_CPP_API C10_EXPORT
#define TORCH_CUDA_CU_API C10_EXPORT
#define TORCH_PYTHON_API C10_EXPORT
