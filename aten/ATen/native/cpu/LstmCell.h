#pragma once
// The per-step gate arithmetic of an LSTM on the CPU as single passes (kernels/cpu/rnn.cpp), for
// the fused LSTM direction of torch::nn::LSTM (see Note [Fused LSTM direction] in
// api/src/nn_rnn.cpp). Every tensor is a contiguous [n, H] or [n, 4H] block (gates in the order
// i, f, g, o) of one dtype, float or double; outputs are written in place.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <ATen/native/DispatchStub.h>
#include <memory>

namespace at::native::cpu {

/// True when the fused steps below take tensors of this device and dtype (CPU, float or double).
bool lstm_cell_supported(const Tensor& t);

/// One forward step: pre = (x_proj + bias) + hh (the input projection, the [4H] sum of the two
/// biases or undefined, and h_prev W_hh^T);
/// gates = (sigmoid, sigmoid, tanh, sigmoid) of pre; c = f * c_prev + i * g; tanh_c = tanh(c);
/// h = o * tanh_c. gates may be x_proj itself (each element is read before it is written). For
/// float the activations are the kernel's own (Note [LSTM gate activations in float], rnn.cpp).
void lstm_cell_forward(const Tensor& x_proj, const Tensor& bias, const Tensor& hh, const Tensor& c_prev,
                       const Tensor& gates, const Tensor& c, const Tensor& tanh_c, const Tensor& h);

/// One backward step from the saved activated gates, c_prev and tanh(c): with dh = dh + d_out
/// (d_out may be undefined), dc += dh * o * (1 - tanh_c^2), writes the pre-activation gate
/// gradients into d_gates and leaves dc * f in dc (the carry to the previous step).
void lstm_cell_backward(const Tensor& gates, const Tensor& c_prev, const Tensor& tanh_c, const Tensor& dh,
                        const Tensor& d_out, const Tensor& dc, const Tensor& d_gates);

/// The right operand b ([K, N]) of the products of every step of an LSTM direction, prepared once
/// for left operands of `rows` rows: for float, copied into oneDNN's blocked layout (Note [LSTM
/// step products] in kernels/cpu/rnn.cpp); otherwise kept as given.
class LstmStepProduct {
 public:
  LstmStepProduct(const Tensor& b, int64_t rows);
  ~LstmStepProduct();
  LstmStepProduct(const LstmStepProduct&) = delete;
  LstmStepProduct& operator=(const LstmStepProduct&) = delete;
  /// out = a @ b, written into out ([rows, N], contiguous). Not for concurrent calls on one object.
  void mm(const Tensor& a, const Tensor& out) const;

 private:
  struct Packed;
  Tensor b_;
  int64_t rows_;
  std::shared_ptr<Packed> packed_;
};

/// out = a @ b written into out (a contiguous block of the caller's, e.g. part of a workspace);
/// float operands that are row- or column-major go through oneDNN's sgemm, others through at::mm.
void lstm_mm_into(const Tensor& out, const Tensor& a, const Tensor& b);

// The per-level passes behind the two functions above (kernels/cpu/isa/lstm_cell.cpp).
using lstm_cell_forward_fn = void (*)(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                      const Tensor&, const Tensor&, const Tensor&);
using lstm_cell_backward_fn = void (*)(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                       const Tensor&, const Tensor&);
EMBER_DECLARE_DISPATCH(lstm_cell_forward_fn, lstm_cell_forward_stub);
EMBER_DECLARE_DISPATCH(lstm_cell_backward_fn, lstm_cell_backward_stub);

}  // namespace at::native::cpu

EMBER_PUBLIC_END
