#pragma once
// Recurrent layers, as libtorch's C++ frontend has them: the multi-layer sequence modules RNN
// (tanh or ReLU), LSTM (optionally with projections) and GRU, the one-step cells RNNCell, LSTMCell,
// GRUCell, and their option classes. Written over linear / addmm / sigmoid / tanh / chunk / cat
// (api/src/nn_rnn.cpp), so every backend comes with the ops; LSTM training uses one autograd node
// per layer and direction (Note [Fused LSTM direction]), the rest is differentiated op by op.
//   torch::nn::LSTM lstm(torch::nn::LSTMOptions(32, 64).num_layers(2).batch_first(true));
//   auto [out, hc] = lstm->forward(x);            // x (N, T, 32) -> out (N, T, 64)
//   auto [h_n, c_n] = hc;                         // each (2, N, 64)
// Variable-length batches go through forward_with_packed_input (see torch/nn/utils/rnn.h).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/arg.h>
#include <torch/enum.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <torch/nn/utils/rnn.h>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace torch::nn {

namespace detail {

/// What every recurrent sequence layer is configured by; mode picks the cell.
struct RNNOptionsBase {
  typedef std::variant<enumtype::kLSTM, enumtype::kGRU, enumtype::kRNN_TANH, enumtype::kRNN_RELU>
      rnn_options_base_mode_t;
  RNNOptionsBase(rnn_options_base_mode_t mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(rnn_options_base_mode_t, mode);
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
  TORCH_ARG(int64_t, proj_size) = 0;
};

}  // namespace detail

/// Options of nn::RNN: an Elman network with tanh (default) or ReLU.
struct RNNOptions {
  typedef std::variant<enumtype::kTanh, enumtype::kReLU> nonlinearity_t;
  RNNOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(nonlinearity_t, nonlinearity) = torch::kTanh;
  TORCH_ARG(bool, bias) = true;
  /// Input and output are (batch, time, features) instead of (time, batch, features).
  TORCH_ARG(bool, batch_first) = false;
  /// Dropout probability on the outputs of every layer but the last (training only).
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
};

/// Options of nn::LSTM; proj_size > 0 projects each hidden state to proj_size features.
struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
  TORCH_ARG(int64_t, proj_size) = 0;
};

/// Options of nn::GRU.
struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
};

namespace detail {

/// What every cell is configured by; num_chunks is the number of gates (1, 3 or 4).
struct RNNCellOptionsBase {
  RNNCellOptionsBase(int64_t input_size, int64_t hidden_size, bool bias, int64_t num_chunks)
      : input_size_(input_size), hidden_size_(hidden_size), bias_(bias), num_chunks_(num_chunks) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias);
  TORCH_ARG(int64_t, num_chunks);
};

}  // namespace detail

/// Options of nn::RNNCell.
struct RNNCellOptions {
  typedef std::variant<enumtype::kTanh, enumtype::kReLU> nonlinearity_t;
  RNNCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(nonlinearity_t, nonlinearity) = torch::kTanh;
};

/// Options of nn::LSTMCell.
struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
};

/// Options of nn::GRUCell.
struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
};

namespace detail {

/// The shared part of RNN, LSTM and GRU: parameters weight_ih_l{k}[_reverse], weight_hh_l{k}...,
/// bias_ih_l{k}..., bias_hh_l{k}... (and weight_hr_l{k}... with proj_size), all initialised
/// U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)); argument checks; printing.
template <typename Derived>
class RNNImplBase : public Cloneable<Derived> {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options_);
  /// Registers the parameters again and initialises them.
  void reset() override;
  /// Draws every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// Kept for libtorch compatibility; Ember's weights are always usable as they are (no-op).
  void flatten_parameters() {}
  /// The parameters in registration order (layer by layer, forward direction first).
  std::vector<at::Tensor> all_weights() const;

  RNNOptionsBase options_base;

 protected:
  /// Runs the stacked layers. data (rows, input_size) is time-major, batch_sizes[t] rows per step;
  /// h0 / c0 are (layers * directions, batch_sizes[0], ...). Returns the last layer's output rows,
  /// h_n and (LSTM) c_n.
  std::tuple<at::Tensor, at::Tensor, at::Tensor> run_layers(const at::Tensor& data,
                                                           const std::vector<int64_t>& batch_sizes,
                                                           const at::Tensor& h0, const at::Tensor& c0) const;
  /// Checks the input and hidden shapes, fills in zero states, runs the layers, restores the
  /// layout. `packed` (optional) supplies batch sizes and batch order; hx / cx may be undefined.
  std::tuple<at::Tensor, at::Tensor, at::Tensor> forward_common(const at::Tensor& input,
                                                               const utils::rnn::PackedSequence* packed,
                                                               at::Tensor hx, at::Tensor cx) const;

  std::vector<std::string> flat_weights_names_;
  std::vector<std::vector<std::string>> all_weights_;
  std::vector<at::Tensor> flat_weights_;
};

}  // namespace detail

/// A multi-layer Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh).
class RNNImpl : public detail::RNNImplBase<RNNImpl> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options_);
  /// input (T, N, in), (N, T, in) with batch_first, or unbatched (T, in); hx (layers * dirs, N, hidden)
  /// or zeros. Returns (output, h_n).
  std::tuple<at::Tensor, at::Tensor> forward(const at::Tensor& input, at::Tensor hx = {});
  /// The same over a PackedSequence; the output is packed like the input.
  std::tuple<utils::rnn::PackedSequence, at::Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, at::Tensor hx = {});

  RNNOptions options;
};
TORCH_MODULE(RNN);

/// A multi-layer LSTM (gates in the order input, forget, cell, output).
class LSTMImpl : public detail::RNNImplBase<LSTMImpl> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size) : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options_);
  /// input as for RNN; hx_opt = (h_0, c_0) or zeros. Returns (output, (h_n, c_n)).
  std::tuple<at::Tensor, std::tuple<at::Tensor, at::Tensor>> forward(
      const at::Tensor& input, std::optional<std::tuple<at::Tensor, at::Tensor>> hx_opt = {});
  /// The same over a PackedSequence; the output is packed like the input.
  std::tuple<utils::rnn::PackedSequence, std::tuple<at::Tensor, at::Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<at::Tensor, at::Tensor>> hx_opt = {});

  LSTMOptions options;
};
TORCH_MODULE(LSTM);

/// A multi-layer GRU (gates in the order reset, update, new).
class GRUImpl : public detail::RNNImplBase<GRUImpl> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options_);
  /// input as for RNN; hx (layers * dirs, N, hidden) or zeros. Returns (output, h_n).
  std::tuple<at::Tensor, at::Tensor> forward(const at::Tensor& input, at::Tensor hx = {});
  /// The same over a PackedSequence; the output is packed like the input.
  std::tuple<utils::rnn::PackedSequence, at::Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, at::Tensor hx = {});

  GRUOptions options;
};
TORCH_MODULE(GRU);

namespace detail {

/// The shared part of the cells: parameters weight_ih, weight_hh, bias_ih, bias_hh (undefined
/// without bias), initialised U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)); input checks; printing.
template <typename Derived>
class RNNCellImplBase : public Cloneable<Derived> {
 public:
  explicit RNNCellImplBase(const RNNCellOptionsBase& options_);
  /// Registers the parameters again and initialises them.
  void reset() override;
  /// Draws every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  RNNCellOptionsBase options_base;
  at::Tensor weight_ih;
  at::Tensor weight_hh;
  at::Tensor bias_ih;
  at::Tensor bias_hh;

 protected:
  /// Checks the input (in) or (N, in) and a state (given or zeros) against it; returns both
  /// batched (the bool says whether the input was unbatched).
  std::tuple<at::Tensor, at::Tensor, bool> prepare(const at::Tensor& input, const at::Tensor& state,
                                                   const char* state_name) const;
  virtual std::string get_nonlinearity_str() const { return ""; }
};

}  // namespace detail

/// One Elman RNN step: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh).
class RNNCellImpl : public detail::RNNCellImplBase<RNNCellImpl> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size) : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options_);
  /// input (N, in) or (in); hx (N, hidden) / (hidden) or zeros. Returns h'.
  at::Tensor forward(const at::Tensor& input, const at::Tensor& hx = {});

  RNNCellOptions options;

 protected:
  std::string get_nonlinearity_str() const override;
};
TORCH_MODULE(RNNCell);

/// One LSTM step.
class LSTMCellImpl : public detail::RNNCellImplBase<LSTMCellImpl> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size) : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options_);
  /// input (N, in) or (in); hx_opt = (h, c) or zeros. Returns (h', c').
  std::tuple<at::Tensor, at::Tensor> forward(const at::Tensor& input,
                                             std::optional<std::tuple<at::Tensor, at::Tensor>> hx_opt = {});

  LSTMCellOptions options;
};
TORCH_MODULE(LSTMCell);

/// One GRU step.
class GRUCellImpl : public detail::RNNCellImplBase<GRUCellImpl> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size) : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options_);
  /// input (N, in) or (in); hx (N, hidden) / (hidden) or zeros. Returns h'.
  at::Tensor forward(const at::Tensor& input, const at::Tensor& hx = {});

  GRUCellOptions options;
};
TORCH_MODULE(GRUCell);

}  // namespace torch::nn

EMBER_PUBLIC_END
