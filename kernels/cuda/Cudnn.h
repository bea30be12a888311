#pragma once
// cuDNN for Ember's CUDA kernels, loaded at first use (dlopen of libcudnn.so.9), never linked.
//
// Note [cuDNN is loaded, not linked]
// libember carries no link-time dependency on cuDNN: a program that never convolves on the GPU
// (or a machine that has the CUDA runtime and cuBLAS but no cuDNN) loads and runs unchanged, and
// the first CUDA convolution either finds libcudnn.so.9 on the library path or raises a
// c10::Error that says so. The entry points are looked up once into a table (`api()`); cuDNN 9's
// libcudnn.so is a shim that forwards to its sub-libraries (ops, cnn, ...), so every symbol is
// found there. Handles are per (thread, device), like cuBLAS's (Note [cuBLAS handles and
// workspaces]), and bound to the current stream on every `cudnn_handle()` call.
//
//   const auto& dnn = ember::cuda::cudnn::api("convolution");
//   EMBER_CUDNN_CHECK(dnn.ConvolutionForward(ember::cuda::cudnn::handle(), ...));
#include <ATen/native/cuda/CUDAUtils.h>
#include <cudnn.h>

namespace ember::cuda::cudnn {

// The cuDNN entry points Ember uses: X(name) expands to a function pointer `name` of the type of
// cudnn<name>. The legacy (v7-style) convolution API: deprecated in cuDNN 9 but supported.
#define EMBER_CUDNN_FUNCTIONS(X)                                                                  \
  X(GetVersion) X(GetErrorString) X(Create) X(Destroy) X(SetStream)                               \
  X(CreateTensorDescriptor) X(SetTensorNdDescriptor) X(DestroyTensorDescriptor)                   \
  X(CreateFilterDescriptor) X(SetFilterNdDescriptor) X(DestroyFilterDescriptor)                   \
  X(CreateConvolutionDescriptor) X(SetConvolutionNdDescriptor) X(SetConvolutionGroupCount)        \
  X(SetConvolutionMathType) X(DestroyConvolutionDescriptor)                                       \
  X(GetConvolutionForwardAlgorithm_v7) X(FindConvolutionForwardAlgorithmEx)                       \
  X(GetConvolutionForwardWorkspaceSize) X(ConvolutionForward)                                     \
  X(GetConvolutionBackwardDataAlgorithm_v7) X(FindConvolutionBackwardDataAlgorithmEx)             \
  X(GetConvolutionBackwardDataWorkspaceSize) X(ConvolutionBackwardData)                           \
  X(GetConvolutionBackwardFilterAlgorithm_v7) X(FindConvolutionBackwardFilterAlgorithmEx)         \
  X(GetConvolutionBackwardFilterWorkspaceSize) X(ConvolutionBackwardFilter)

struct Api {
#define EMBER_CUDNN_MEMBER(name) decltype(&::cudnn##name) name = nullptr;
  EMBER_CUDNN_FUNCTIONS(EMBER_CUDNN_MEMBER)
#undef EMBER_CUDNN_MEMBER
  size_t version = 0;  // cudnnGetVersion(), e.g. 91900
};

/// The loaded entry points; the first call loads cuDNN. Throws c10::Error "[<op>] ..." when
/// libcudnn.so.9 cannot be loaded, lacks an entry point, or is older than 9.0.
const Api& api(const char* op);

/// This thread's cuDNN handle for the current device, bound to current_stream().
cudnnHandle_t handle(const char* op);

/// Throws c10::Error "[cudnn] <what>: <cudnnGetErrorString>".
[[noreturn]] void throw_error(cudnnStatus_t status, const char* what);

}  // namespace ember::cuda::cudnn

/// Checks a cudnnStatus_t; on failure throws c10::Error "[cudnn] <call>: <error string>".
#define EMBER_CUDNN_CHECK(expr)                                                  \
  do {                                                                           \
    const cudnnStatus_t ember_cudnn_status_ = (expr);                            \
    if (EMBER_UNLIKELY(ember_cudnn_status_ != CUDNN_STATUS_SUCCESS))             \
      ::ember::cuda::cudnn::throw_error(ember_cudnn_status_, #expr);             \
  } while (0)
