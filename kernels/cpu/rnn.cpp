// The entry points of the fused LSTM steps (aten/ATen/native/cpu/LstmCell.h); the passes
// themselves are in kernels/cpu/isa/lstm_cell.cpp, one per CPU capability level.
#include <ATen/native/cpu/LstmCell.h>

namespace at::native::cpu {

EMBER_DEFINE_DISPATCH(lstm_cell_forward_fn, lstm_cell_forward_stub);
EMBER_DEFINE_DISPATCH(lstm_cell_backward_fn, lstm_cell_backward_stub);

bool lstm_cell_supported(const Tensor& t) {
  return t.defined() && t.is_cpu() && (t.scalar_type() == kFloat || t.scalar_type() == kDouble);
}

void lstm_cell_forward(const Tensor& x_proj, const Tensor& bias, const Tensor& hh, const Tensor& c_prev, const Tensor& gates,
                       const Tensor& c, const Tensor& tanh_c, const Tensor& h) {
  lstm_cell_forward_stub(x_proj, bias, hh, c_prev, gates, c, tanh_c, h);
}

void lstm_cell_backward(const Tensor& gates, const Tensor& c_prev, const Tensor& tanh_c, const Tensor& dh,
                        const Tensor& d_out, const Tensor& dc, const Tensor& d_gates) {
  lstm_cell_backward_stub(gates, c_prev, tanh_c, dh, d_out, dc, d_gates);
}

}  // namespace at::native::cpu
