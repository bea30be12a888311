#pragma once
// The CUDA runtime's handle types and event flags, declared without <cuda_runtime.h> so that public
// headers (and code built without CUDA) can name them: the typedefs are the runtime's own, and
// the flag values are the runtime's documented constants (identical redefinitions are legal).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#ifndef __DRIVER_TYPES_H__
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
#endif
#ifndef cudaEventDefault
#define cudaEventDefault 0x00
#endif
#ifndef cudaEventBlockingSync
#define cudaEventBlockingSync 0x01
#endif
#ifndef cudaEventDisableTiming
#define cudaEventDisableTiming 0x02
#endif

EMBER_PUBLIC_END
