# The CPU capability levels kernel files are compiled for (Note [CPU capability levels] in
# aten/ATen/native/DispatchStub.h). Per architecture: on x86-64 DEFAULT (the baseline, SSE2),
# AVX2 and AVX512; elsewhere DEFAULT only. EMBER_CPU_CAPABILITIES narrows the list (DEFAULT is
# always built): -DEMBER_CPU_CAPABILITIES=DEFAULT is a build with SIMD beyond the baseline off.
#
# ember_add_cpu_capability_objects(<prefix> <sources...>) makes one OBJECT library per level,
# <prefix>_<LEVEL>, and sets EMBER_CPU_CAPABILITY_OBJECTS to their objects (DEFAULT first).

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_ember_cpu_all DEFAULT AVX2 AVX512)
else()
  set(_ember_cpu_all DEFAULT)
endif()
set(EMBER_CPU_CAPABILITIES "${_ember_cpu_all}" CACHE STRING
    "CPU capability levels to compile kernel files for (subset of: ${_ember_cpu_all})")
set(EMBER_CPU_LEVELS DEFAULT)
foreach(_lvl IN LISTS EMBER_CPU_CAPABILITIES)
  if(NOT _lvl IN_LIST _ember_cpu_all)
    message(FATAL_ERROR "EMBER_CPU_CAPABILITIES: '${_lvl}' is not a level of ${CMAKE_SYSTEM_PROCESSOR} (${_ember_cpu_all})")
  endif()
  if(NOT _lvl STREQUAL "DEFAULT")
    list(APPEND EMBER_CPU_LEVELS ${_lvl})
  endif()
endforeach()

set(EMBER_CPU_FLAGS_DEFAULT "")
set(EMBER_CPU_FLAGS_AVX2 -mavx2 -mfma -mf16c)
set(EMBER_CPU_FLAGS_AVX512 -mavx2 -mfma -mf16c -mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl
    -mavx512vnni -mavx512bf16)
set(EMBER_CPU_INDEX_DEFAULT 0)
set(EMBER_CPU_INDEX_AVX2 1)
set(EMBER_CPU_INDEX_AVX512 2)

function(ember_add_cpu_capability_objects prefix)
  set(_objs "")
  foreach(_lvl IN LISTS EMBER_CPU_LEVELS)
    string(TOLOWER ${_lvl} _lower)
    set(_t ${prefix}_${_lvl})
    add_library(${_t} OBJECT ${ARGN})
    target_compile_options(${_t} PRIVATE ${EMBER_CPU_FLAGS_${_lvl}})
    # gcc 12 reports its own intrinsics headers' _mm256_undefined_si256() (inside the AVX-512
    # narrowing conversions of Vec.h) as maybe-uninitialized, thousands of times per build.
    target_compile_options(${_t} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
    target_compile_definitions(${_t} PRIVATE EMBER_CPU_NS=cpu_${_lower}
                               EMBER_CPU_CAPABILITY_INDEX=${EMBER_CPU_INDEX_${_lvl}})
    list(APPEND _objs $<TARGET_OBJECTS:${_t}>)
  endforeach()
  set(EMBER_CPU_CAPABILITY_OBJECTS ${_objs} PARENT_SCOPE)
endfunction()
