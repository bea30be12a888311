// Loading cuDNN at first use and its per-(thread, device) handles: see Note [cuDNN is loaded, not
// linked] in Cudnn.h.
#include "Cudnn.h"
#include <dlfcn.h>
#include <mutex>
#include <string>

namespace ember::cuda::cudnn {

namespace {

constexpr int kMaxDevices = 64;

struct Loaded {
  Api api;
  std::string error;  // why loading failed; empty on success
};

Loaded load() {
  Loaded l;
  void* lib = nullptr;
  std::string tried;
  for (const char* name : {"libcudnn.so.9", "libcudnn.so"}) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* e = dlerror();
    tried += c10::str(tried.empty() ? "" : "; ", e ? e : name);
  }
  if (!lib) {
    l.error = c10::str("cuDNN 9 (libcudnn.so.9) could not be loaded: ", tried,
                       " (install cuDNN 9 or put its lib directory on LD_LIBRARY_PATH)");
    return l;
  }
  // The library stays loaded for the life of the process: handles made from it may outlive any
  // scope that could close it.
#define EMBER_CUDNN_LOOKUP(name)                                                                   \
  l.api.name = reinterpret_cast<decltype(l.api.name)>(dlsym(lib, "cudnn" #name));                  \
  if (!l.api.name) {                                                                               \
    l.error = "the loaded libcudnn lacks cudnn" #name " (expected cuDNN 9)";                       \
    return l;                                                                                      \
  }
  EMBER_CUDNN_FUNCTIONS(EMBER_CUDNN_LOOKUP)
#undef EMBER_CUDNN_LOOKUP
  l.api.version = l.api.GetVersion();
  if (l.api.version < 90000) l.error = c10::str("expected cuDNN 9 or newer; the loaded libcudnn is version ", l.api.version);
  return l;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

struct ThreadHandles {
  cudnnHandle_t slots[kMaxDevices] = {};
  ~ThreadHandles() {
    // The status is ignored: at process exit the driver may already be shutting down.
    for (cudnnHandle_t h : slots)
      if (h) (void)loaded().api.Destroy(h);
  }
};

thread_local ThreadHandles tls_handles;

}  // namespace

const Api& api(const char* op) {
  const Loaded& l = loaded();
  EMBER_CHECK(l.error.empty(), "[", op, "] CUDA convolution needs cuDNN: ", l.error);
  return l.api;
}

cudnnHandle_t handle(const char* op) {
  const Api& dnn = api(op);
  const int d = current_device();
  EMBER_CHECK(d < kMaxDevices, "[cudnn] devices 0..", kMaxDevices - 1, " are supported; got device ", d);
  cudnnHandle_t& h = tls_handles.slots[d];
  if (!h) EMBER_CUDNN_CHECK(dnn.Create(&h));
  EMBER_CUDNN_CHECK(dnn.SetStream(h, current_stream()));
  return h;
}

void throw_error(cudnnStatus_t status, const char* what) {
  const Loaded& l = loaded();
  const char* msg = l.api.GetErrorString ? l.api.GetErrorString(status) : "unknown status";
  throw c10::Error(c10::str("[cudnn] ", what, ": ", msg, " (status ", static_cast<int>(status), ")"));
}

}  // namespace ember::cuda::cudnn
