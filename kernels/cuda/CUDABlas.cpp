// cuBLAS handles: one per (thread, device), with a workspace from the caching allocator.
//
// Note [cuBLAS handles and workspaces]
// A cuBLAS handle is not safe to use from two threads at once, and it is tied to the device that
// was current when it was created, so each thread keeps one per device (created lazily: most
// threads never multiply on the GPU). cublasSetStream resets the handle's workspace to cuBLAS's
// own pool, so every cublas_handle() call sets the stream and then our workspace again. Workspaces
// are caching-allocator tensors kept next to the handle, one per stream the thread has used: calls
// on one stream are ordered, so they can share one, while two streams of one thread may run at
// the same time and must not (see Note [Allocator and streams]).
#include <ATen/native/cuda/CUDABlas.h>
#include <ATen/ATen.h>
#include <dlfcn.h>
#include <string>
#include <utility>
#include <vector>

namespace ember::cuda {

namespace blas {
namespace {

#define EMBER_CUBLAS_STR2(x) #x
#define EMBER_CUBLAS_STR(x) EMBER_CUBLAS_STR2(x)

struct Loaded {
  Api api;
  std::string error;  // why loading failed; empty on success
};

// See Note [cuBLAS is loaded, not linked] in CUDABlas.h.
Loaded load() {
  Loaded l;
  const std::string versioned = "libcublas.so." EMBER_CUBLAS_STR(CUBLAS_VER_MAJOR);
  void* lib = nullptr;
  std::string tried;
  for (const char* name : {versioned.c_str(), "libcublas.so"}) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* e = dlerror();
    tried += c10::str(tried.empty() ? "" : "; ", e ? e : name);
  }
  if (!lib) {
    l.error = c10::str("cuBLAS (", versioned, ") could not be loaded: ", tried,
                       " (install the CUDA toolkit's cuBLAS or put its lib directory on LD_LIBRARY_PATH)");
    return l;
  }
  // Stays loaded for the life of the process: handles made from it outlive any scope.
#define EMBER_CUBLAS_LOOKUP(name)                                                                  \
  l.api.name = reinterpret_cast<decltype(l.api.name)>(dlsym(lib, EMBER_CUBLAS_STR(cublas##name))); \
  if (!l.api.name) {                                                                               \
    l.error = c10::str("the loaded ", versioned, " lacks ", EMBER_CUBLAS_STR(cublas##name));       \
    return l;                                                                                      \
  }
  EMBER_CUBLAS_FUNCTIONS(EMBER_CUBLAS_LOOKUP)
#undef EMBER_CUBLAS_LOOKUP
  return l;
}

}  // namespace

const Api& api(const char* op) {
  static const Loaded l = load();
  EMBER_CHECK(l.error.empty(), "[", op, "] CUDA matrix products need cuBLAS: ", l.error);
  return l.api;
}

}  // namespace blas

void throw_cublas_error(cublasStatus_t status, const char* what) {
  throw c10::Error(c10::str("[cublas] ", what, ": ", blas::api().GetStatusName(status)));
}

namespace {

constexpr int kMaxDevices = 64;

// Hopper and later use up to 32 MiB (cuBLAS's recommendation for sm_90); older GPUs 4 MiB.
size_t workspace_bytes(int device) {
  int major = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9 ? (size_t{32} << 20) : (size_t{4} << 20);
}

struct Slot {
  cublasHandle_t handle = nullptr;
  std::vector<std::pair<cudaStream_t, at::Tensor>> workspaces;  // per stream; a handful at most
};

struct ThreadHandles {
  Slot slots[kMaxDevices];
  ~ThreadHandles() {
    // The status is ignored: at process exit the driver may already be shutting down.
    for (Slot& s : slots)
      if (s.handle) (void)blas::api().Destroy(s.handle);
    // The workspaces go back to the caching allocator as the slots are destroyed.
  }
};

thread_local ThreadHandles tls_handles;

}  // namespace

cublasHandle_t cublas_handle() {
  const int d = current_device();
  EMBER_CHECK(d < kMaxDevices, "[cublas] devices 0..", kMaxDevices - 1, " are supported; got device ", d);
  const blas::Api& api = blas::api();
  Slot& s = tls_handles.slots[d];
  if (!s.handle) {
    cublasHandle_t h = nullptr;
    EMBER_CUBLAS_CHECK(api.Create(&h));
    s.handle = h;
    EMBER_CUBLAS_CHECK(api.SetPointerMode(s.handle, CUBLAS_POINTER_MODE_HOST));
  }
  const cudaStream_t stream = current_stream();
  const at::Tensor* ws = nullptr;
  for (const auto& [st, t] : s.workspaces)
    if (st == stream) ws = &t;
  if (!ws) {
    at::Tensor t = at::empty({static_cast<int64_t>(workspace_bytes(d))},
                             at::TensorOptions().dtype(at::kByte).device(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(d))));
    s.workspaces.emplace_back(stream, std::move(t));
    ws = &s.workspaces.back().second;
  }
  EMBER_CUBLAS_CHECK(api.SetStream(s.handle, stream));
  EMBER_CUBLAS_CHECK(api.SetWorkspace(s.handle, ws->data_ptr(), ws->nbytes()));
  return s.handle;
}

}  // namespace ember::cuda
