/* Ember's stable C ABI (C99). A program or language binding gets one table of function pointers
 * for the API version it was written against, and never sees a C++ type or exception:
 *
 *   #include <ember/ember.h>
 *   const EmberApi* api = EmberGetApi(EMBER_API_VERSION);   // NULL: the library is too old
 *   EmberTensor *a, *b, *c;
 *   int64_t shape[2] = {2, 3};
 *   EmberStatus* st = api->TensorZeros(shape, 2, EMBER_FLOAT32, NULL, &a);
 *   ...
 *   st = api->ops->add_Tensor(a, b, NULL, &c);               // alpha NULL: its default, 1
 *   if (st) { fprintf(stderr, "%s\n", api->StatusMessage(st)); api->ReleaseStatus(st); }
 *   api->ReleaseTensor(c);
 *
 * Compile with -I<prefix>/include (in a build tree: -Iinclude -Ibuild/generated/include) and link
 * libember.so. docs/embedding.md ("C ABI") has the rules in full; in short:
 *
 * Versions and stability. EmberGetApi(v) returns the table for any 1 <= v <= EMBER_API_VERSION of
 * the library and NULL otherwise (the same table: a later version only appends). Both tables are
 * append-only: EmberApi gains members at its end (raising EMBER_API_VERSION; a program that asked
 * for version v uses the members up to v's), and EmberOps, generated from ops.yaml, gains one
 * member per new op overload at its end — its order is the committed list codegen/c_abi_ops.txt, never ops.yaml's
 * (Note [C ABI slot order] in codegen/c_abi.py). An op removed from ops.yaml leaves a NULL member
 * in its place. A program built against a newer header checks EMBER_OPS_HAS(ops, member) before
 * calling an op the loaded library may lack.
 *
 * Status. Every call that can fail returns EmberStatus*: NULL is success; otherwise the caller owns
 * the status and frees it with ReleaseStatus. The message starts with "[op] " naming the operation
 * (Ember's own errors: "[add] ...", argument errors found at the boundary: "[add] argument 'self'
 * ..."). No C++ exception ever leaves the library; on failure no output is written.
 *
 * Ownership. Tensor arguments are borrowed: the callee takes its own reference when it keeps one.
 * Every EmberTensor* a call writes (through an EmberTensor** parameter) is a new handle the caller
 * owns and frees with ReleaseTensor — including handles to the same tensor as an argument (results
 * of in-place and out= ops, views). Releasing a handle drops one reference; the memory goes when
 * the last handle, view or autograd reference goes. Arrays the library allocates (EmberTensor**
 * results of Tensor[] ops, LoadTensors' names) come with their release function. Strings the
 * library returns (StatusMessage, VersionString, OpSchema) live as long as the status / forever.
 * Generators (version 2) follow the tensors' rule: arguments are borrowed, every EmberGenerator*
 * written is the caller's to ReleaseGenerator (GeneratorDefault's excepted: borrowed, ignored by
 * ReleaseGenerator). DLPack wrappers are owned by exactly one side at a time: the caller owns what
 * TensorToDLPack* writes, the library owns what TensorFromDLPack* accepted (not on failure).
 *
 * Threads. The tables are immutable and every function may be called from any thread. A tensor
 * may be read by several threads at once (as an input of ops), but not while another thread writes
 * it (an in-place or out= op on it, or its data through TensorData) — as in C++. Distinct handles
 * are independent objects, even when they refer to the same tensor; one handle must not be
 * released while another thread uses it. Grad mode (SetGradEnabled) is per thread. A generator
 * may be used by several threads at once (ops draw under its lock; the order is theirs).
 */
#ifndef EMBER_H
#define EMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the entry point exported, so that it stays visible in a library built with hidden
 * visibility (Ember is built for ELF platforms with GCC or Clang). */
#if defined(__GNUC__) || defined(__clang__)
#define EMBER_C_EXPORT __attribute__((visibility("default")))
#else
#define EMBER_C_EXPORT
#endif

/* The API version this header describes. Version 1: EmberApi up to ReleaseNames; version 2 adds
 * DLPack exchange and generator handles (and the EMBER_VALUE_GENERATOR tag). */
#define EMBER_API_VERSION 2u

/* Opaque handles. */
typedef struct EmberTensor EmberTensor;     /* one reference to a tensor */
typedef struct EmberStatus EmberStatus;     /* an error: code and message */
typedef struct EmberGenerator EmberGenerator; /* a random stream (version 2; in version 1: NULL only) */

/* DLPack's owning wrappers (https://dmlc.github.io/dlpack/latest/), declared by its dlpack.h
 * (Ember installs one as <ATen/dlpack.h>; any DLPack 1.x copy does). Only pointers to them cross
 * this ABI, so ember.h itself needs no dlpack.h. */
struct DLManagedTensor;
struct DLManagedTensorVersioned;

/* Element types (numbered as libtorch's ScalarType). */
typedef int32_t EmberDType;
enum {
  EMBER_UINT8 = 0, EMBER_INT8 = 1, EMBER_INT16 = 2, EMBER_INT32 = 3, EMBER_INT64 = 4,
  EMBER_FLOAT16 = 5, EMBER_FLOAT32 = 6, EMBER_FLOAT64 = 7, EMBER_BOOL = 11, EMBER_BFLOAT16 = 15
};

typedef int32_t EmberLayout;
enum { EMBER_LAYOUT_STRIDED = 0 };

typedef int32_t EmberMemoryFormat;
enum {
  EMBER_MEMORY_FORMAT_CONTIGUOUS = 0, EMBER_MEMORY_FORMAT_PRESERVE = 1,
  EMBER_MEMORY_FORMAT_CHANNELS_LAST = 2, EMBER_MEMORY_FORMAT_CHANNELS_LAST_3D = 3
};

enum { EMBER_DEVICE_CPU = 0, EMBER_DEVICE_CUDA = 1, EMBER_DEVICE_META = 2 };
/* A device: type EMBER_DEVICE_CPU, EMBER_DEVICE_CUDA or EMBER_DEVICE_META (sizes, strides and
 * dtype without data: shape and memory tracing), index -1 for the current one. */
typedef struct EmberDevice {
  int32_t type;
  int32_t index;
} EmberDevice;

/* Status codes (StatusCode). */
enum {
  EMBER_OK = 0,
  EMBER_ERROR = 1,            /* an error raised by Ember (bad shapes, dtypes, values...) */
  EMBER_INVALID_ARGUMENT = 2, /* found at the boundary: a null handle, a wrongly tagged value */
  EMBER_OUT_OF_MEMORY = 3,
  EMBER_NOT_FOUND = 4,        /* no op of that name (OpFind, CallOp) */
  EMBER_INTERNAL = 5          /* anything else (a bug in Ember) */
};

/* A tagged value: the arguments and results of the boxed calls (CallOp), and the Scalar arguments
 * of typed ops (EmberScalar: tagged INT, DOUBLE or BOOL). No unions, so that every language's FFI
 * can build one. Unused fields are ignored. */
typedef int32_t EmberValueTag;
enum {
  EMBER_VALUE_NONE = 0,        /* None, or "use the default" for an argument that has one */
  EMBER_VALUE_TENSOR = 1,      /* p: const EmberTensor* (NULL: None where the argument is optional) */
  EMBER_VALUE_INT = 2,         /* i */
  EMBER_VALUE_DOUBLE = 3,      /* d */
  EMBER_VALUE_BOOL = 4,        /* i: 0 or 1 */
  EMBER_VALUE_DTYPE = 5,       /* i: an EmberDType */
  EMBER_VALUE_LAYOUT = 6,      /* i: an EmberLayout */
  EMBER_VALUE_DEVICE = 7,      /* i: the device type, aux: its index */
  EMBER_VALUE_MEMORY_FORMAT = 8, /* i: an EmberMemoryFormat */
  EMBER_VALUE_STRING = 9,      /* p: const char*, NUL-terminated UTF-8 */
  EMBER_VALUE_INT_LIST = 10,   /* p: const int64_t*, i: count */
  EMBER_VALUE_DOUBLE_LIST = 11,/* p: const double*, i: count */
  EMBER_VALUE_BOOL_LIST = 12,  /* p: const bool*, i: count */
  EMBER_VALUE_TENSOR_LIST = 13,/* p: const EmberTensor* const* (elements may be NULL for Tensor?[]), i: count */
  EMBER_VALUE_GENERATOR = 14   /* version 2. p: EmberGenerator* (NULL: the default generator) */
};
typedef struct EmberValue {
  EmberValueTag tag;
  int32_t aux;
  int64_t i;
  double d;
  const void* p;
} EmberValue;
typedef EmberValue EmberScalar;

/* Called once with (data, ctx) when the last reference to a TensorFromBuffer tensor goes. */
typedef void (*EmberDeleter)(void* data, void* ctx);

#include <ember/ember_ops.h>

typedef struct EmberApi {
  /* ---- version 1 ---- */
  uint32_t version;            /* EMBER_API_VERSION of the library (>= the version asked for) */
  uint32_t reserved;
  const EmberOps* ops;         /* the generated op table (ember_ops.h) */
  /* "0.1.0": the library's version. Static string. */
  const char* (*VersionString)(void);

  /* Status: the message (valid until ReleaseStatus; "" for NULL), the code (EMBER_OK for NULL). */
  const char* (*StatusMessage)(const EmberStatus* status);
  int32_t (*StatusCode)(const EmberStatus* status);
  void (*ReleaseStatus)(EmberStatus* status);  /* NULL is fine */

  /* Tensor creation. `out` receives a new handle. device NULL: the CPU. */
  EmberStatus* (*TensorEmpty)(const int64_t* sizes, size_t ndim, EmberDType dtype, const EmberDevice* device,
                              EmberTensor** out);
  EmberStatus* (*TensorZeros)(const int64_t* sizes, size_t ndim, EmberDType dtype, const EmberDevice* device,
                              EmberTensor** out);
  /* Wraps the caller's memory without copying: `data` holds elements laid out with `strides` (in
   * elements; NULL: contiguous) on `device` (NULL: CPU). On success the tensor owns the memory and
   * calls deleter(data, ctx) exactly once, when its last reference goes (deleter NULL: the caller
   * keeps the memory alive longer than every tensor on it). On failure the deleter is not called:
   * the caller still owns the memory. */
  EmberStatus* (*TensorFromBuffer)(void* data, const int64_t* sizes, size_t ndim, const int64_t* strides,
                                   EmberDType dtype, const EmberDevice* device, EmberDeleter deleter, void* ctx,
                                   EmberTensor** out);
  /* A new handle to the same tensor. */
  EmberStatus* (*TensorRetain)(const EmberTensor* tensor, EmberTensor** out);
  void (*ReleaseTensor)(EmberTensor* tensor);  /* NULL is fine */
  /* Releases `count` handles (NULL entries skipped) and the array, as Tensor[] results come. */
  void (*ReleaseTensorArray)(EmberTensor** tensors, size_t count);

  /* Queries. Shape/strides write min(ndim, capacity) values and always set *ndim. TensorData gives
   * the address of the first element (a device address for CUDA tensors), valid while the tensor
   * lives and is not resized. */
  EmberStatus* (*TensorDType)(const EmberTensor* tensor, EmberDType* out);
  EmberStatus* (*TensorDim)(const EmberTensor* tensor, size_t* out);
  EmberStatus* (*TensorShape)(const EmberTensor* tensor, int64_t* sizes, size_t capacity, size_t* ndim);
  EmberStatus* (*TensorStrides)(const EmberTensor* tensor, int64_t* strides, size_t capacity, size_t* ndim);
  EmberStatus* (*TensorNumel)(const EmberTensor* tensor, int64_t* out);
  EmberStatus* (*TensorDevice)(const EmberTensor* tensor, EmberDevice* out);
  EmberStatus* (*TensorData)(const EmberTensor* tensor, void** out);

  /* Conversions; each writes a new handle (possibly to the same tensor, as libtorch: contiguous()
   * of a contiguous tensor, to() of a tensor already of that dtype). */
  EmberStatus* (*TensorContiguous)(const EmberTensor* tensor, EmberTensor** out);
  EmberStatus* (*TensorClone)(const EmberTensor* tensor, EmberTensor** out);
  EmberStatus* (*TensorTo)(const EmberTensor* tensor, EmberDType dtype, EmberTensor** out);
  EmberStatus* (*TensorToDevice)(const EmberTensor* tensor, const EmberDevice* device, EmberTensor** out);

  /* Autograd. TensorGrad writes NULL when the tensor has no gradient. Backward: gradient NULL for
   * a one-element tensor (ones). SetGradEnabled switches recording for the calling thread and
   * writes the previous mode to `previous` (may be NULL): a no-grad scope is
   * SetGradEnabled(false, &prev) ... SetGradEnabled(prev, NULL). */
  EmberStatus* (*TensorSetRequiresGrad)(EmberTensor* tensor, bool requires_grad);
  EmberStatus* (*TensorRequiresGrad)(const EmberTensor* tensor, bool* out);
  EmberStatus* (*TensorGrad)(const EmberTensor* tensor, EmberTensor** out);
  EmberStatus* (*Backward)(const EmberTensor* tensor, const EmberTensor* gradient, bool retain_graph);
  EmberStatus* (*SetGradEnabled)(bool enabled, bool* previous);
  bool (*IsGradEnabled)(void);

  /* Boxed calls: any op overload by name ("add.Tensor", "relu", "add_.Tensor", "add.Tensor_out")
   * with one EmberValue per schema argument, in schema order (EMBER_VALUE_NONE: None or the
   * default). Results are written to results[0..n) with *nresults = n (results NULL or capacity
   * < n: an error); TENSOR results carry new handles and TENSOR_LIST results a library-allocated
   * array: free them with ReleaseValues. OpCount/OpFind/OpSchema list the ops: index i is slot i
   * of EmberOps (a removed op's schema is still listed; calling it fails). */
  size_t (*OpCount)(void);
  EmberStatus* (*OpFind)(const char* name, size_t* index);
  const char* (*OpSchema)(size_t index);  /* NULL past the end */
  EmberStatus* (*CallOp)(const char* name, const EmberValue* args, size_t nargs, EmberValue* results,
                         size_t capacity, size_t* nresults);
  EmberStatus* (*CallOpIndex)(size_t index, const EmberValue* args, size_t nargs, EmberValue* results,
                              size_t capacity, size_t* nresults);
  /* Frees the handles and arrays held by result values and sets their tags to NONE. */
  void (*ReleaseValues)(EmberValue* values, size_t count);

  /* safetensors files (docs/embedding.md). SaveTensors writes `count` named tensors atomically.
   * LoadTensors writes library-allocated arrays of *count names and new handles (memory-mapped where
   * aligned); free them with ReleaseNames and ReleaseTensorArray. */
  EmberStatus* (*SaveTensors)(const char* path, const char* const* names, const EmberTensor* const* tensors,
                              size_t count);
  EmberStatus* (*LoadTensors)(const char* path, char*** names, EmberTensor*** tensors, size_t* count);
  void (*ReleaseNames)(char** names, size_t count);

  /* ---- version 2 ---- */
  /* DLPack export (docs/embedding.md, "DLPack through the C ABI"). Writes a new wrapper around the
   * tensor's memory, without copying: dl_tensor.data is the address of its first element
   * (byte_offset 0), shape and strides (in elements) are its own, so transposed, sliced and
   * expanded tensors go out as they are; CPU tensors as kDLCPU, CUDA tensors as kDLCUDA. The
   * wrapper holds its own reference to the tensor: releasing every handle does not free the
   * memory. The caller owns the wrapper and hands it to a consumer, or calls its deleter, exactly
   * once (out->deleter(out)); the memory goes when that has happened and the last handle is
   * released. Versioned: version {1, DLPACK_MINOR_VERSION} and flags 0 (writable). On failure
   * (meta tensors, an undefined tensor) nothing is written and nothing is allocated. */
  EmberStatus* (*TensorToDLPackVersioned)(const EmberTensor* tensor, struct DLManagedTensorVersioned** out);
  EmberStatus* (*TensorToDLPack)(const EmberTensor* tensor, struct DLManagedTensor** out);
  /* DLPack import. On success `out` receives a new handle to a tensor over the producer's memory,
   * without copying (dtype, device, shape, strides and byte_offset as src describes them), and the
   * library owns src: it calls src->deleter(src) exactly once (if not NULL), when the last
   * reference to that memory goes (handles, views, autograd graphs), and the caller must not
   * touch src again. Versioned only: a src whose flags have DLPACK_FLAG_BITMASK_READ_ONLY is
   * copied instead (Ember tensors cannot refuse writes): the new tensor owns a copy on the same
   * device, and src->deleter(src) has already been called when the call returns. A major version
   * other than DLPACK_MAJOR_VERSION (1) is refused before anything else of src is read. On failure
   * (EMBER_INVALID_ARGUMENT for NULL pointers, EMBER_ERROR "[fromDLPack] ..." for a major version,
   * element type, device, shape or stride Ember cannot take, EMBER_OUT_OF_MEMORY) the deleter is
   * not called and the caller still owns src. */
  EmberStatus* (*TensorFromDLPackVersioned)(struct DLManagedTensorVersioned* src, EmberTensor** out);
  EmberStatus* (*TensorFromDLPack)(struct DLManagedTensor* src, EmberTensor** out);

  /* Generators: random streams that ops taking a `Generator?` use instead of the default one
   * (typed ops: their EmberGenerator* parameter; boxed calls: an EMBER_VALUE_GENERATOR value). A
   * NULL generator selects the device's default generator, as before. Every op draws under the
   * generator's lock, so one generator may be used by several threads (in some order).
   * GeneratorCreate writes a new generator seeded with `seed` on `device` (NULL: CPU; CPU: the
   * Mersenne Twister stream libtorch's CPU generator gives for that seed; CUDA: Philox), which the
   * caller releases with ReleaseGenerator. GeneratorDefault writes a borrowed handle to the
   * device's default generator (NULL: CPU): it lives as long as the process, ReleaseGenerator
   * ignores it, and reseeding it reseeds the stream every op without a generator draws from.
   * GeneratorClone writes a new CPU generator at the same point of the stream. */
  EmberStatus* (*GeneratorCreate)(uint64_t seed, const EmberDevice* device, EmberGenerator** out);
  EmberStatus* (*GeneratorDefault)(const EmberDevice* device, EmberGenerator** out);
  EmberStatus* (*GeneratorClone)(const EmberGenerator* generator, EmberGenerator** out);
  /* Restarts the stream from `seed` (torch::Generator::set_current_seed). */
  EmberStatus* (*GeneratorManualSeed)(EmberGenerator* generator, uint64_t seed);
  /* The seed the stream last started from. */
  EmberStatus* (*GeneratorInitialSeed)(const EmberGenerator* generator, uint64_t* out);
  /* The stream's position as a new handle to a 1-D uint8 CPU tensor (Ember's own byte layout),
   * and its restoration on a generator of the same kind: the same numbers follow. */
  EmberStatus* (*GeneratorGetState)(const EmberGenerator* generator, EmberTensor** out);
  EmberStatus* (*GeneratorSetState)(EmberGenerator* generator, const EmberTensor* state);
  /* Drops the handle (NULL and default generators are fine). Tensors drawn from it are unaffected. */
  void (*ReleaseGenerator)(EmberGenerator* generator);
  /* ---- version 3 appends here ---- */
} EmberApi;

/* The one exported entry point: the table for API `version` (1..EMBER_API_VERSION of the library),
 * or NULL when the library does not provide that version. The table lives as long as the process. */
EMBER_C_EXPORT const EmberApi* EmberGetApi(uint32_t version);

#ifdef __cplusplus
}
#endif

#endif /* EMBER_H */
