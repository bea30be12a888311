#pragma once
// What the generated PrivateUse1 fallbacks (build/generated/src/RegisterPrivateUse1_*.cpp) are
// made of; see Note [PrivateUse1 fallback] in aten/src/PrivateUse1.cpp. Not for backends: they
// use <ATen/PrivateUse1.h>.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/PrivateUse1.h>
#include <optional>
#include <vector>

namespace ember::privateuse1::detail {

/// One call through the fallback: checks the backend can copy, counts the call, turns arguments
/// into CPU values and results back into device tensors. Nested calls record no autograd history.
class FallbackCall {
 public:
  explicit FallbackCall(OpId id);
  ~FallbackCall();
  FallbackCall(const FallbackCall&) = delete;
  FallbackCall& operator=(const FallbackCall&) = delete;

  // Arguments: a PrivateUse1 tensor becomes a CPU copy; CPU tensors pass as they are (only 0-dim
  // ones may be mixed with device tensors, as in libtorch); options naming the device name the CPU.
  at::Tensor cpu(const at::Tensor& t);
  std::optional<at::Tensor> cpu(const std::optional<at::Tensor>& t);
  std::vector<at::Tensor> cpu(at::TensorList ts);
  /// Index lists (`Tensor?[]`) may hold CPU tensors next to device ones.
  c10::List<std::optional<at::Tensor>> cpu(const c10::List<std::optional<at::Tensor>>& ts);
  at::TensorOptions cpu(at::TensorOptions o);

  /// The CPU kernel of the op.
  void* cpu_kernel() const;
  /// A CPU result on the device the call's tensors (or its options) named.
  at::Tensor back(const at::Tensor& r);
  std::vector<at::Tensor> back(std::vector<at::Tensor> rs);
  /// Writes a mutated CPU copy back into the device tensor it was made from (resized first when
  /// an out= kernel resized the copy).
  void write_back(at::Tensor& orig, const at::Tensor& copy);
  /// A view op without a backend kernel: its result would not share the input's memory.
  [[noreturn]] void view_error() const;

 private:
  void see(const at::Tensor& t, bool cpu_ok);
  OpId id_;
  bool saved_below_autograd_;
  std::optional<c10::Device> tensor_device_;   // the first PrivateUse1 tensor's device
  std::optional<c10::Device> options_device_;  // the device the options name (wins: factories)
  const at::Tensor* cpu_tensor_ = nullptr;     // a CPU tensor with dims, for the mismatch error
};

/// Installs `fn` as the PrivateUse1 kernel of `id` unless one is there, and records it as the
/// op's fallback (null: the op has none, see fallback_kernel()).
void install(OpId id, void* fn, bool is_fallback);
/// The copy_ slot's kernel until the backend registers its own: raises a clear error.
at::Tensor& missing_copy(at::Tensor& self, const at::Tensor& src, bool non_blocking);

}  // namespace ember::privateuse1::detail

EMBER_PUBLIC_END
