/*
 * The DLPack 1.x exchange ABI (https://dmlc.github.io/dlpack/latest/): plain C structs through
 * which two array libraries hand each other a tensor without copying it. Written for Ember from
 * the specification; the layout, names and enum values are the specification's, so a library
 * compiled against any DLPack 1.x header reads what Ember writes and the other way round.
 *
 * The include guard is the specification header's own, so a program that also includes another
 * copy of dlpack.h gets one set of declarations. Include this one first: a pre-1.0 copy (Debian
 * 12's libdlpack-dev is 0.6) lacks DLPackVersion and DLManagedTensorVersioned.
 *
 * Ember's conversions live in <ATen/DLConvertor.h>.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

/* ABI version this header describes. A consumer must refuse a tensor whose major version differs
   from its own; minor versions only add enum values and flags. */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1

#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
extern "C" {
#else
#define DLPACK_EXTERN_C
#endif

#ifndef DLPACK_DLL
#define DLPACK_DLL
#endif

/* The ABI version a versioned tensor was produced under. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Where the memory lives. Values are fixed by the specification (there is no 5 or 6). */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  kDLCPU = 1,          /* host memory */
  kDLCUDA = 2,         /* CUDA device memory */
  kDLCUDAHost = 3,     /* page-locked host memory from cudaMallocHost */
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,      /* reserved for extensions */
  kDLCUDAManaged = 13, /* CUDA unified (managed) memory */
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
} DLDeviceType;

/* A device: its type and an index among devices of that type (0 for the host). */
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

/* The kind of number an element is; DLDataType.bits says how wide. */
typedef enum {
  kDLInt = 0U,           /* signed integer */
  kDLUInt = 1U,          /* unsigned integer */
  kDLFloat = 2U,         /* IEEE binary floating point (16, 32, 64 bits) */
  kDLOpaqueHandle = 3U,  /* pointer-sized handle of the producer's own meaning */
  kDLBfloat = 4U,        /* bfloat16 */
  kDLComplex = 5U,       /* pair of floats; bits is the size of the pair */
  kDLBool = 6U,          /* one byte per element, 0 or 1 */
  kDLFloat8_e3m4 = 7U,
  kDLFloat8_e4m3 = 8U,
  kDLFloat8_e4m3b11fnuz = 9U,
  kDLFloat8_e4m3fn = 10U,
  kDLFloat8_e4m3fnuz = 11U,
  kDLFloat8_e5m2 = 12U,
  kDLFloat8_e5m2fnuz = 13U,
  kDLFloat8_e8m0fnu = 14U,
  kDLFloat6_e2m3fn = 15U,
  kDLFloat6_e3m2fn = 16U,
  kDLFloat4_e2m1fn = 17U,
} DLDataTypeCode;

/* An element type: code (a DLDataTypeCode), width in bits, and vector lanes (1 for scalars;
   float32 is {kDLFloat, 32, 1}, bool {kDLBool, 8, 1}). */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/* A strided view of memory the producer owns. Element i0..i(n-1) lives at
   (char*)data + byte_offset + sum(i_k * strides[k]) * (bits * lanes / 8).
   `strides` counts elements, not bytes; a NULL `strides` means compact row-major. `shape` and
   `strides` may be NULL when ndim is 0. */
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;

/* The pre-1.0 owning wrapper: whoever receives it calls deleter(self) exactly once when done
   (deleter may be NULL when there is nothing to release). manager_ctx is the producer's. */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/* DLManagedTensorVersioned.flags bits. */
/* The consumer must not write through the tensor. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
/* The producer made a copy for this exchange: nobody else sees the memory. */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
/* Sub-byte elements are each padded to a whole byte. */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* The 1.x owning wrapper. `version` comes first and keeps its place in every future version, so a
   consumer can check it before reading anything else; the ownership rule is the unversioned one. */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* DLPACK_DLPACK_H_ */
