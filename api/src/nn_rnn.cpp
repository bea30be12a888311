// torch::nn::RNN / LSTM / GRU and their cells, composed from linear, addmm, sigmoid, tanh, chunk
// and cat: autograd and every backend come with those ops. The LSTM layer's CPU steps are fused
// passes (Note [Fused LSTM steps on the CPU]).
//
// Note [Recurrent layers run on packed rows]
// Every sequence layer runs on time-major rows: a padded (T, N, in) input becomes T*N rows with N
// rows per step, a PackedSequence already is rows with batch_sizes[t] rows per step (a
// non-increasing prefix of its sorted batch). One code path serves both. Per layer and direction
// the input projection of all steps is one matrix product (x W_ih^T + biases, rows x gates); each
// step then adds h W_hh^T (one addmm) and applies the gates. In the forward direction the batch can
// only shrink: the rows that end at a step leave the state and are kept as their final state. In
// the reverse direction the batch can only grow: rows that start at a step join the state with
// their initial value.
#include <torch/nn/rnn.h>
#include <torch/autograd.h>
#include <torch/nn/init.h>
#include <ATen/native/cpu/LstmCell.h>
#include <cmath>
#include <ostream>
#include <string>

namespace torch::nn {
namespace {

enum class CellKind { kRnnTanh, kRnnRelu, kLstm, kGru };

CellKind kind_of(const detail::RNNOptionsBase::rnn_options_base_mode_t& mode) {
  if (std::holds_alternative<enumtype::kLSTM>(mode)) return CellKind::kLstm;
  if (std::holds_alternative<enumtype::kGRU>(mode)) return CellKind::kGru;
  if (std::holds_alternative<enumtype::kRNN_RELU>(mode)) return CellKind::kRnnRelu;
  return CellKind::kRnnTanh;
}

int64_t gate_count(CellKind kind) {
  switch (kind) {
    case CellKind::kLstm: return 4;
    case CellKind::kGru: return 3;
    default: return 1;
  }
}

const char* layer_name(CellKind kind) {
  switch (kind) {
    case CellKind::kLstm: return "LSTM";
    case CellKind::kGru: return "GRU";
    default: return "RNN";
  }
}

// Note [One backward node for the per-step slices]
// The recurrence takes a slice of the input projection at every step and of the gates at every
// gate. Sliced one by one (narrow, chunk), each slice's backward writes its gradient into a
// zero tensor of the full size and the engine adds those up: O(steps^2) work for the projection.
// SplitSizes cuts a tensor into consecutive pieces with a single node whose backward
// concatenates the pieces' gradients (zeros for a piece that got none).
struct SplitSizes : torch::autograd::Function<SplitSizes> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x,
                                                std::vector<int64_t> sizes, int64_t dim) {
    ctx->saved_data["sizes"] = sizes;
    ctx->saved_data["dim"] = dim;
    return at::split_with_sizes(x, sizes, dim);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const std::vector<int64_t> sizes = ctx->saved_data["sizes"].toIntVector();
    const int64_t dim = ctx->saved_data["dim"].toInt();
    at::Tensor like;
    for (const auto& g : grads)
      if (g.defined()) like = g;
    if (!like.defined()) return {at::Tensor(), at::Tensor(), at::Tensor()};
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i].defined()) continue;
      std::vector<int64_t> shape(like.sizes().begin(), like.sizes().end());
      shape[dim] = sizes[i];
      grads[i] = at::zeros(shape, like.options());
    }
    return {at::cat(grads, dim), at::Tensor(), at::Tensor()};
  }
};

std::vector<at::Tensor> split_sizes(const at::Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  if (!x.requires_grad() || !at::GradMode::is_enabled()) return at::split_with_sizes(x, sizes, dim);
  return SplitSizes::apply(x, sizes, dim);
}

// The gates of a step: `count` equal column blocks (see Note [One backward node for the per-step slices]).
std::vector<at::Tensor> gate_chunks(const at::Tensor& gates, int64_t count) {
  return split_sizes(gates, std::vector<int64_t>(static_cast<size_t>(count), gates.size(1) / count), 1);
}

// Note [Fused LSTM direction]
// Training through the composed recurrence records ~12 autograd nodes per step, and its backward
// multiplies each step's gate gradients with h separately (steps small products for dW_hh).
// LstmDirection runs one direction of one LSTM layer (no projection, equal batch sizes) as a
// single node: the forward is the same arithmetic without recording; the backward walks the
// steps back computing only dh / dc per step, then gets dW_ih, dW_hh, the input gradient and the
// bias gradient from one matrix product each over all steps. Its backward is not differentiable
// again (create_graph raises). On the CPU (float, double) the steps are fused further: see Note
// [Fused LSTM steps on the CPU]; other devices run the ops below. tests/nn/test_rnn.cpp checks both
// paths against libtorch (the packed cases with unequal lengths and the projections take the
// composed one) and the fused one against LSTMCell steps, in float64 and float32.

// The forward recurrence of LstmDirection on other devices (also run alone when no gradient is
// recorded): fills the activated gates, cell states and hidden states of every step, indexed by time.
void lstm_direction_steps(const at::Tensor& rows, const at::Tensor& h0, const at::Tensor& c0, const at::Tensor& w_ih,
                          const at::Tensor& w_hh, const at::Tensor& b_ih, const at::Tensor& b_hh, int64_t steps,
                          bool reverse, std::vector<at::Tensor>& gates, std::vector<at::Tensor>& cells,
                          std::vector<at::Tensor>& hs) {
  const int64_t n = h0.size(0), hidden = w_hh.size(1);
  const at::Tensor projected = at::linear(rows, w_ih, b_ih.defined() ? b_ih + b_hh : at::Tensor());
  const at::Tensor w_hh_t = w_hh.t();
  gates.assign(static_cast<size_t>(steps), at::Tensor());
  cells.assign(gates.size(), at::Tensor());
  hs.assign(gates.size(), at::Tensor());
  at::Tensor h = h0, c = c0;
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k;
    at::Tensor g = at::addmm(projected.narrow(0, t * n, n), h, w_hh_t);
    g.narrow(1, 0, 2 * hidden).sigmoid_();
    g.narrow(1, 2 * hidden, hidden).tanh_();
    g.narrow(1, 3 * hidden, hidden).sigmoid_();
    c = at::addcmul(g.narrow(1, hidden, hidden) * c, g.narrow(1, 0, hidden), g.narrow(1, 2 * hidden, hidden));
    h = g.narrow(1, 3 * hidden, hidden) * at::tanh(c);
    gates[t] = g;
    cells[t] = c;
    hs[t] = h;
  }
}

// Note [Fused LSTM steps on the CPU]
// On the CPU a step is one matrix product h_prev W_hh^T (at::native::cpu::LstmStepProduct: W_hh^T
// packed once per direction into oneDNN's blocked layout, the product written into one [n, 4H]
// block reused by every step; Note [LSTM step products] in kernels/cpu/rnn.cpp) and one pass of
// at::native::cpu::lstm_cell_forward that adds the input projection (x W_ih^T, one product for all
// steps) and the biases and computes the gates, c, tanh(c) and h. Everything a step writes goes
// into buffers allocated once per direction, as blocks of n rows: states (h and c) in (steps + 1)
// slots, the initial state in slot 0 (forward direction) or slot `steps` (reverse), so that the
// rows of the states before every step, in time order, are one contiguous block (the right
// operand of dW_hh), and so are the outputs. The backward's per-step arithmetic is one pass of
// lstm_cell_backward, its per-step product d_gates W_hh (packed the same way, into two
// alternating [n, H] blocks). The activated gates overwrite the input projection they come from.
// Without a gradient to record, tanh(c) and c live in one or two blocks reused at every step.
//
// Note [One LSTM workspace]
// The buffers of a direction (projection/gates, tanh(c), the state slots, the step product) are
// views of one allocation. Allocated one by one, the ~1 MiB buffers of a 32-step, 32-row, H = 256
// layer were mapped fresh by glibc at every call (they were under the allocator's block cache
// threshold, 4 MiB then, Note [Large CPU block cache]), and the page faults of writing them were 7%
// of the forward at 1 thread; as one block of 7 MiB the cache serves them again (and one
// allocation is cheaper than five). Without a gradient to record the
// hidden states (the output) are their own tensor, so that the output does not keep the rest alive.
struct LstmTrace {
  at::Tensor gates;   // [steps * n, 4H] activated gates (i, f, g, o), time-indexed, over the input projection
  at::Tensor tanh_c;  // [steps * n, H] tanh of each step's c, time-indexed; [n, H] without keep
  at::Tensor hs;      // [(steps + 1) * n, H] hidden state slots
  at::Tensor cs;      // [(steps + 1) * n, H] cell state slots; two alternating [n, H] blocks without keep
};

bool lstm_cpu_fusable(const at::Tensor& rows, const at::Tensor& h0, const at::Tensor& c0, const at::Tensor& w_ih,
                      const at::Tensor& w_hh, const at::Tensor& b_ih, const at::Tensor& b_hh) {
  if (!at::native::cpu::lstm_cell_supported(rows)) return false;
  for (const at::Tensor* t : {&h0, &c0, &w_ih, &w_hh, &b_ih, &b_hh})
    if (t->defined() && (!t->is_cpu() || t->scalar_type() != rows.scalar_type())) return false;
  return true;
}

at::Tensor rows_block(const at::Tensor& t, int64_t index, int64_t n) { return t.narrow(0, index * n, n); }

// Slots of Note [Fused LSTM steps on the CPU]: the state step t reads and the one it writes.
int64_t prev_slot(int64_t t, bool reverse) { return reverse ? t + 1 : t; }
int64_t state_slot(int64_t t, bool reverse) { return reverse ? t : t + 1; }

void lstm_direction_cpu(const at::Tensor& rows, const at::Tensor& h0, const at::Tensor& c0, const at::Tensor& w_ih,
                        const at::Tensor& w_hh, const at::Tensor& b_ih, const at::Tensor& b_hh, int64_t steps,
                        bool reverse, bool keep, LstmTrace& tr) {
  const int64_t n = h0.size(0), hidden = w_hh.size(1), gates = w_hh.size(0);
  const auto opts = h0.options();
  // See Note [One LSTM workspace].
  const int64_t parts[] = {steps * n * gates, (keep ? steps : 1) * n * hidden, keep ? (steps + 1) * n * hidden : 0,
                           (keep ? steps + 1 : 2) * n * hidden, n * gates};
  int64_t total = 0;
  for (int64_t p : parts) total += p;
  const at::Tensor ws = at::empty({total}, opts);
  int64_t offset = 0;
  auto part = [&](int64_t index, int64_t width) {
    at::Tensor v = ws.narrow(0, offset, parts[index]).view({parts[index] / width, width});
    offset += parts[index];
    return v;
  };
  tr.gates = part(0, gates);  // the input projection; each step's block is activated in place
  tr.tanh_c = part(1, hidden);
  tr.hs = keep ? part(2, hidden) : at::empty({(steps + 1) * n, hidden}, opts);
  if (!keep) offset += parts[2];
  tr.cs = part(3, hidden);
  const at::Tensor hh = part(4, gates);
  // The biases are added in the step's pass (an addmm would first copy them into every row).
  at::native::cpu::lstm_mm_into(tr.gates, rows, w_ih.t());
  const at::Tensor bias = b_ih.defined() ? (b_ih + b_hh).contiguous() : at::Tensor();
  // A plain (non-float) product multiplies a row-major right operand faster.
  const at::native::cpu::LstmStepProduct step(rows.scalar_type() == at::kFloat ? w_hh.t() : w_hh.t().contiguous(),
                                              n);
  const int64_t first = reverse ? steps : 0;
  rows_block(tr.hs, first, n).copy_(h0);
  rows_block(tr.cs, keep ? first : 0, n).copy_(c0);
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k;
    const int64_t prev = prev_slot(t, reverse), slot = state_slot(t, reverse);
    step.mm(rows_block(tr.hs, prev, n), hh);
    at::native::cpu::lstm_cell_forward(rows_block(tr.gates, t, n), bias, hh, rows_block(tr.cs, keep ? prev : k % 2, n),
                                       rows_block(tr.gates, t, n), rows_block(tr.cs, keep ? slot : (k + 1) % 2, n),
                                       rows_block(tr.tanh_c, keep ? t : 0, n), rows_block(tr.hs, slot, n));
  }
}

// The hidden states every step wrote, time-indexed: a view of the trace's state slots.
at::Tensor lstm_trace_outputs(const LstmTrace& tr, int64_t steps, int64_t n, bool reverse) {
  return tr.hs.narrow(0, (reverse ? 0 : 1) * n, steps * n);
}

struct LstmDirection : torch::autograd::Function<LstmDirection> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const at::Tensor& rows,
                                                const at::Tensor& h0, const at::Tensor& c0, const at::Tensor& w_ih,
                                                const at::Tensor& w_hh, const at::Tensor& b_ih, const at::Tensor& b_hh,
                                                int64_t steps, bool reverse) {
    ctx->saved_data["reverse"] = reverse;
    ctx->saved_data["bias"] = b_ih.defined();
    ctx->save_for_backward({rows, h0, c0, w_ih, w_hh});
    if (lstm_cpu_fusable(rows, h0, c0, w_ih, w_hh, b_ih, b_hh)) {
      // See Note [Fused LSTM steps on the CPU].
      LstmTrace tr;
      lstm_direction_cpu(rows, h0, c0, w_ih, w_hh, b_ih, b_hh, steps, reverse, /*keep=*/true, tr);
      ctx->saved_data["fused"] = true;
      ctx->saved_data["gates"] = tr.gates;
      ctx->saved_data["tanh_c"] = tr.tanh_c;
      ctx->saved_data["hs"] = tr.hs;
      ctx->saved_data["cs"] = tr.cs;
      const int64_t n = h0.size(0), last = reverse ? 0 : steps;
      // Fresh tensors for the outputs, so that the saved buffers hold no output.
      return {lstm_trace_outputs(tr, steps, n, reverse).clone(), rows_block(tr.hs, last, n).clone(),
              rows_block(tr.cs, last, n).clone()};
    }
    std::vector<at::Tensor> gates, cells, hs;
    lstm_direction_steps(rows, h0, c0, w_ih, w_hh, b_ih, b_hh, steps, reverse, gates, cells, hs);
    const at::Tensor& h = hs[reverse ? 0 : steps - 1];
    const at::Tensor& c = cells[reverse ? 0 : steps - 1];
    ctx->saved_data["fused"] = false;
    ctx->saved_data["gates"] = gates;
    ctx->saved_data["cells"] = cells;
    ctx->saved_data["hs"] = hs;
    // Fresh tensors for the outputs, so that the saved lists hold no output (no reference cycle).
    return {at::cat(hs, 0), h.clone(), c.clone()};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    EMBER_CHECK(!at::GradMode::is_enabled(),
                "[LSTM] the LSTM layer's backward cannot be differentiated again (create_graph=true)");
    if (ctx->saved_data["fused"].toBool()) return backward_cpu(ctx, grads);
    const auto gates = ctx->saved_data["gates"].toTensorVector();
    const auto cells = ctx->saved_data["cells"].toTensorVector();
    const auto hs = ctx->saved_data["hs"].toTensorVector();
    const bool reverse = ctx->saved_data["reverse"].toBool();
    const bool bias = ctx->saved_data["bias"].toBool();
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &rows = saved[0], &h0 = saved[1], &c0 = saved[2], &w_ih = saved[3], &w_hh = saved[4];
    const auto steps = static_cast<int64_t>(gates.size());
    const int64_t n = h0.size(0), hidden = w_hh.size(1);
    const at::Tensor& d_out = grads[0];
    at::Tensor dh = grads[1].defined() ? grads[1] : at::zeros_like(h0);
    at::Tensor dc = grads[2].defined() ? grads[2] : at::zeros_like(c0);
    std::vector<at::Tensor> d_gates(static_cast<size_t>(steps)), h_prev(static_cast<size_t>(steps));
    for (int64_t k = steps - 1; k >= 0; --k) {
      const int64_t t = reverse ? steps - 1 - k : k;
      const int64_t prev = reverse ? t + 1 : t - 1;
      const at::Tensor& g = gates[t];
      const at::Tensor i = g.narrow(1, 0, hidden), f = g.narrow(1, hidden, hidden);
      const at::Tensor cand = g.narrow(1, 2 * hidden, hidden), o = g.narrow(1, 3 * hidden, hidden);
      if (d_out.defined()) dh = dh + d_out.narrow(0, t * n, n);
      const at::Tensor tanh_c = at::tanh(cells[t]);
      const at::Tensor& c_prev = k == 0 ? c0 : cells[prev];
      h_prev[t] = k == 0 ? h0 : hs[prev];
      dc = dc + dh * o * (1 - tanh_c * tanh_c);
      const at::Tensor d_i = dc * cand * i * (1 - i);
      const at::Tensor d_f = dc * c_prev * f * (1 - f);
      const at::Tensor d_cand = dc * i * (1 - cand * cand);
      const at::Tensor d_o = dh * tanh_c * o * (1 - o);
      d_gates[t] = at::cat({d_i, d_f, d_cand, d_o}, 1);
      dc = dc * f;
      dh = at::mm(d_gates[t], w_hh);
    }
    const at::Tensor d_all = at::cat(d_gates, 0);
    const at::Tensor d_all_t = d_all.t();
    at::Tensor d_bias = bias ? d_all.sum(0) : at::Tensor();
    return {at::mm(d_all, w_ih),
            dh,
            dc,
            at::mm(d_all_t, rows),
            at::mm(d_all_t, at::cat(h_prev, 0)),
            d_bias,
            bias ? d_bias.clone() : at::Tensor(),
            at::Tensor(),
            at::Tensor()};
  }

  // See Note [Fused LSTM steps on the CPU].
  static torch::autograd::variable_list backward_cpu(torch::autograd::AutogradContext* ctx,
                                                     const torch::autograd::variable_list& grads) {
    const at::Tensor gates = ctx->saved_data["gates"].toTensor(), tanh_c = ctx->saved_data["tanh_c"].toTensor();
    const at::Tensor hs = ctx->saved_data["hs"].toTensor(), cs = ctx->saved_data["cs"].toTensor();
    const bool reverse = ctx->saved_data["reverse"].toBool();
    const bool bias = ctx->saved_data["bias"].toBool();
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &rows = saved[0], &h0 = saved[1], &w_ih = saved[3], &w_hh = saved[4];
    const int64_t n = h0.size(0), hidden = w_hh.size(1), steps = gates.size(0) / n;
    const auto opts = h0.options();
    const at::Tensor d_out = grads[0].defined() ? grads[0].contiguous() : at::Tensor();
    at::Tensor dh = grads[1].defined() ? grads[1].contiguous() : at::zeros({n, hidden}, opts);
    // dc is updated in place: a copy of the incoming gradient.
    at::Tensor dc = at::empty({n, hidden}, opts);
    if (grads[2].defined()) dc.copy_(grads[2]);
    else dc.zero_();
    const at::Tensor d_all = at::empty({steps * n, 4 * hidden}, opts);
    const at::native::cpu::LstmStepProduct step(w_hh.contiguous(), n);
    // dh of the step before, written into two alternating blocks (the pass reads the other one).
    const at::Tensor dh_blocks = at::empty({2 * n, hidden}, opts);
    for (int64_t k = steps - 1; k >= 0; --k) {
      const int64_t t = reverse ? steps - 1 - k : k;
      const at::Tensor d_gates = rows_block(d_all, t, n);
      at::native::cpu::lstm_cell_backward(rows_block(gates, t, n), rows_block(cs, prev_slot(t, reverse), n),
                                          rows_block(tanh_c, t, n), dh,
                                          d_out.defined() ? rows_block(d_out, t, n) : at::Tensor(), dc, d_gates);
      at::Tensor next = rows_block(dh_blocks, k % 2, n);
      step.mm(d_gates, next);
      dh = next;
    }
    dh = dh.clone();
    const at::Tensor d_all_t = d_all.t();
    const at::Tensor h_prev = hs.narrow(0, (reverse ? 1 : 0) * n, steps * n);
    at::Tensor d_bias = bias ? d_all.sum(0) : at::Tensor();
    return {ctx->needs_input_grad(0) ? at::mm(d_all, w_ih) : at::Tensor(),
            dh,
            dc,
            at::mm(d_all_t, rows),
            at::mm(d_all_t, h_prev),
            d_bias,
            bias ? d_bias.clone() : at::Tensor(),
            at::Tensor(),
            at::Tensor()};
  }
};

std::vector<int64_t> int64_values(const at::Tensor& t) {
  at::Tensor c = t.to(at::kCPU).to(at::kLong).contiguous();
  const int64_t* p = c.const_data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

// The parameters of one layer in one direction (b_* undefined without bias, w_hr without proj_size).
struct DirectionWeights {
  at::Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

struct DirectionResult {
  at::Tensor output;  // (rows, hidden or proj) in the input's row order
  at::Tensor h_n;     // (batch, hidden or proj)
  at::Tensor c_n;     // (batch, hidden), LSTM only
};

// One layer, one direction, over packed rows (see Note [Recurrent layers run on packed rows]).
DirectionResult run_direction(CellKind kind, const DirectionWeights& w, const at::Tensor& rows,
                              const std::vector<int64_t>& batch_sizes, const at::Tensor& h0, const at::Tensor& c0,
                              bool reverse) {
  const bool lstm = kind == CellKind::kLstm;
  const auto steps = static_cast<int64_t>(batch_sizes.size());
  if (steps == 0) return {at::empty({0, h0.size(1)}, rows.options()), h0, c0};
  // See Note [Fused LSTM direction]: training an LSTM without projection on equal-length sequences.
  const bool equal_lengths = batch_sizes.front() == batch_sizes.back();
  if (lstm && !w.w_hr.defined() && equal_lengths) {
    if (at::GradMode::is_enabled()) {
      auto out = LstmDirection::apply(rows, h0, c0, w.w_ih, w.w_hh, w.b_ih, w.b_hh, steps, reverse);
      return {out[0], out[1], out[2]};
    }
    if (lstm_cpu_fusable(rows, h0, c0, w.w_ih, w.w_hh, w.b_ih, w.b_hh)) {
      LstmTrace tr;
      lstm_direction_cpu(rows, h0, c0, w.w_ih, w.w_hh, w.b_ih, w.b_hh, steps, reverse, /*keep=*/false, tr);
      const int64_t n = h0.size(0);
      return {lstm_trace_outputs(tr, steps, n, reverse), rows_block(tr.hs, reverse ? 0 : steps, n).clone(),
              rows_block(tr.cs, steps % 2, n).clone()};
    }
    std::vector<at::Tensor> gates, cells, hs;
    lstm_direction_steps(rows, h0, c0, w.w_ih, w.w_hh, w.b_ih, w.b_hh, steps, reverse, gates, cells, hs);
    return {at::cat(hs, 0), hs[reverse ? 0 : steps - 1], cells[reverse ? 0 : steps - 1]};
  }
  // The GRU's hidden bias sits inside the reset gate's product, so only the others fold it in.
  at::Tensor in_bias = w.b_ih;
  if (w.b_ih.defined() && kind != CellKind::kGru) in_bias = w.b_ih + w.b_hh;
  const at::Tensor projected = at::linear(rows, w.w_ih, in_bias);
  const at::Tensor w_hh_t = w.w_hh.t();
  const at::Tensor w_hr_t = w.w_hr.defined() ? w.w_hr.t() : at::Tensor();

  const std::vector<at::Tensor> step_inputs = split_sizes(projected, batch_sizes, 0);

  auto step = [&](const at::Tensor& gx, at::Tensor& h, at::Tensor& c) {
    switch (kind) {
      case CellKind::kLstm: {
        auto g = gate_chunks(at::addmm(gx, h, w_hh_t), 4);
        c = at::sigmoid(g[1]) * c + at::sigmoid(g[0]) * at::tanh(g[2]);
        h = at::sigmoid(g[3]) * at::tanh(c);
        if (w_hr_t.defined()) h = at::mm(h, w_hr_t);
        break;
      }
      case CellKind::kGru: {
        at::Tensor gh = w.b_hh.defined() ? at::addmm(w.b_hh, h, w_hh_t) : at::mm(h, w_hh_t);
        auto xs = gate_chunks(gx, 3);
        auto hs = gate_chunks(gh, 3);
        at::Tensor r = at::sigmoid(xs[0] + hs[0]);
        at::Tensor z = at::sigmoid(xs[1] + hs[1]);
        at::Tensor n = at::tanh(xs[2] + r * hs[2]);
        h = n + z * (h - n);
        break;
      }
      case CellKind::kRnnTanh: h = at::tanh(at::addmm(gx, h, w_hh_t)); break;
      case CellKind::kRnnRelu: h = at::relu(at::addmm(gx, h, w_hh_t)); break;
    }
  };

  std::vector<at::Tensor> outputs(static_cast<size_t>(steps));
  if (!reverse) {
    at::Tensor h = h0, c = c0;
    std::vector<at::Tensor> done_h, done_c;  // states of rows that ended, highest rows first
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t b = batch_sizes[t];
      if (b < h.size(0)) {
        done_h.push_back(h.narrow(0, b, h.size(0) - b));
        h = h.narrow(0, 0, b);
        if (lstm) {
          done_c.push_back(c.narrow(0, b, c.size(0) - b));
          c = c.narrow(0, 0, b);
        }
      }
      step(step_inputs[t], h, c);
      outputs[t] = h;
    }
    if (!done_h.empty()) {
      done_h.push_back(h);
      std::reverse(done_h.begin(), done_h.end());
      h = at::cat(done_h, 0);
      if (lstm) {
        done_c.push_back(c);
        std::reverse(done_c.begin(), done_c.end());
        c = at::cat(done_c, 0);
      }
    }
    return {at::cat(outputs, 0), h, c};
  }
  const int64_t first = batch_sizes[steps - 1];
  at::Tensor h = h0.narrow(0, 0, first), c = lstm ? c0.narrow(0, 0, first) : at::Tensor();
  for (int64_t t = steps - 1; t >= 0; --t) {
    const int64_t b = batch_sizes[t];
    if (b > h.size(0)) {
      h = at::cat({h, h0.narrow(0, h.size(0), b - h.size(0))}, 0);
      if (lstm) c = at::cat({c, c0.narrow(0, c.size(0), b - c.size(0))}, 0);
    }
    step(step_inputs[t], h, c);
    outputs[t] = h;
  }
  return {at::cat(outputs, 0), h, c};
}

std::string shape_str(at::IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

void check_state(const char* layer, const char* what, const at::Tensor& state, const std::vector<int64_t>& expected,
                 const at::Tensor& input) {
  EMBER_CHECK(state.sizes() == at::IntArrayRef(expected), "[", layer, "] expected ", what, " of shape ",
              shape_str(expected), "; got ", shape_str(state.sizes()));
  EMBER_CHECK(state.scalar_type() == input.scalar_type(), "[", layer, "] expected ", what, " of dtype ",
              input.scalar_type(), " (the input's); got ", state.scalar_type());
  EMBER_CHECK(state.device() == input.device(), "[", layer, "] expected ", what, " on ", input.device(),
              " (the input's device); got ", state.device());
}

}  // namespace

// ---------------------------------------------------------------- RNNImplBase

namespace detail {

template <typename Derived>
RNNImplBase<Derived>::RNNImplBase(const RNNOptionsBase& options_) : options_base(options_) {
  const CellKind kind = kind_of(options_base.mode());
  const char* name = layer_name(kind);
  const auto& o = options_base;
  EMBER_CHECK(o.input_size() >= 0, "[", name, "] expected a non-negative input_size; got ", o.input_size());
  EMBER_CHECK(o.hidden_size() > 0, "[", name, "] expected a positive hidden_size; got ", o.hidden_size());
  EMBER_CHECK(o.num_layers() > 0, "[", name, "] expected a positive num_layers; got ", o.num_layers());
  EMBER_CHECK(o.dropout() >= 0 && o.dropout() <= 1, "[", name, "] expected a dropout probability in [0, 1]; got ",
              o.dropout());
  EMBER_CHECK(o.proj_size() >= 0, "[", name, "] expected a non-negative proj_size; got ", o.proj_size());
  EMBER_CHECK(o.proj_size() == 0 || kind == CellKind::kLstm, "[", name, "] proj_size is an LSTM option only; got ",
              o.proj_size());
  EMBER_CHECK(o.proj_size() < o.hidden_size(), "[", name, "] expected proj_size (", o.proj_size(),
              ") to be smaller than hidden_size (", o.hidden_size(), ")");
  reset();
}

template <typename Derived>
void RNNImplBase<Derived>::reset() {
  const auto& o = options_base;
  const int64_t gates = gate_count(kind_of(o.mode())) * o.hidden_size();
  const int64_t directions = o.bidirectional() ? 2 : 1;
  const int64_t out_size = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  flat_weights_names_.clear();
  all_weights_.clear();
  flat_weights_.clear();
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    const int64_t in_size = layer == 0 ? o.input_size() : out_size * directions;
    for (int64_t dir = 0; dir < directions; ++dir) {
      const std::string suffix = "_l" + std::to_string(layer) + (dir == 1 ? "_reverse" : "");
      std::vector<std::pair<std::string, std::vector<int64_t>>> shapes = {{"weight_ih" + suffix, {gates, in_size}},
                                                                          {"weight_hh" + suffix, {gates, out_size}}};
      if (o.bias()) {
        shapes.push_back({"bias_ih" + suffix, {gates}});
        shapes.push_back({"bias_hh" + suffix, {gates}});
      }
      if (o.proj_size() > 0) shapes.push_back({"weight_hr" + suffix, {o.proj_size(), o.hidden_size()}});
      std::vector<std::string> names;
      for (auto& [name, shape] : shapes) {
        flat_weights_.push_back(this->register_parameter(name, at::empty(shape)));
        flat_weights_names_.push_back(name);
        names.push_back(name);
      }
      all_weights_.push_back(std::move(names));
    }
  }
  reset_parameters();
}

template <typename Derived>
void RNNImplBase<Derived>::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (auto& p : this->parameters()) init::uniform_(p, -bound, bound);
}

template <typename Derived>
std::vector<at::Tensor> RNNImplBase<Derived>::all_weights() const {
  std::vector<at::Tensor> out;
  for (const auto& name : flat_weights_names_) out.push_back(*this->parameters_.find(name));
  return out;
}

template <typename Derived>
void RNNImplBase<Derived>::pretty_print(std::ostream& stream) const {
  const auto& o = options_base;
  stream << std::boolalpha << "torch::nn::" << layer_name(kind_of(o.mode())) << "(input_size=" << o.input_size()
         << ", hidden_size=" << o.hidden_size() << ", num_layers=" << o.num_layers() << ", bias=" << o.bias()
         << ", batch_first=" << o.batch_first() << ", dropout=" << o.dropout()
         << ", bidirectional=" << o.bidirectional();
  if (o.proj_size() > 0) stream << ", proj_size=" << o.proj_size();
  stream << ")";
}

template <typename Derived>
std::tuple<at::Tensor, at::Tensor, at::Tensor> RNNImplBase<Derived>::run_layers(
    const at::Tensor& data, const std::vector<int64_t>& batch_sizes, const at::Tensor& h0, const at::Tensor& c0) const {
  const auto& o = options_base;
  const CellKind kind = kind_of(o.mode());
  const int64_t directions = o.bidirectional() ? 2 : 1;
  const size_t per_direction = flat_weights_names_.size() / static_cast<size_t>(o.num_layers() * directions);
  at::Tensor layer_input = data;
  std::vector<at::Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    std::vector<at::Tensor> outputs;
    for (int64_t dir = 0; dir < directions; ++dir) {
      const int64_t index = layer * directions + dir;
      // Parameters are looked up by name on every call, so a module whose tensors were replaced
      // (loading, set_data) runs with the new ones.
      auto param = [&](size_t k) { return *this->parameters_.find(flat_weights_names_[index * per_direction + k]); };
      DirectionWeights w;
      w.w_ih = param(0);
      w.w_hh = param(1);
      size_t next = 2;
      if (o.bias()) {
        w.b_ih = param(next++);
        w.b_hh = param(next++);
      }
      if (o.proj_size() > 0) w.w_hr = param(next++);
      DirectionResult r = run_direction(kind, w, layer_input, batch_sizes, h0.select(0, index),
                                        kind == CellKind::kLstm ? c0.select(0, index) : at::Tensor(), dir == 1);
      outputs.push_back(r.output);
      h_n.push_back(r.h_n);
      if (kind == CellKind::kLstm) c_n.push_back(r.c_n);
    }
    layer_input = directions == 1 ? outputs[0] : at::cat(outputs, 1);
    if (o.dropout() > 0 && this->is_training() && layer + 1 < o.num_layers())
      layer_input = at::dropout(layer_input, o.dropout(), true);
  }
  return {layer_input, at::stack(h_n, 0), kind == CellKind::kLstm ? at::stack(c_n, 0) : at::Tensor()};
}

template <typename Derived>
std::tuple<at::Tensor, at::Tensor, at::Tensor> RNNImplBase<Derived>::forward_common(
    const at::Tensor& input, const utils::rnn::PackedSequence* packed, at::Tensor hx, at::Tensor cx) const {
  const auto& o = options_base;
  const CellKind kind = kind_of(o.mode());
  const char* name = layer_name(kind);
  const int64_t directions = o.bidirectional() ? 2 : 1;
  const int64_t out_size = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  std::vector<int64_t> batch_sizes;
  at::Tensor rows;
  bool unbatched = false;
  int64_t steps = 0, batch = 0;
  if (packed) {
    rows = packed->data();
    EMBER_CHECK(rows.dim() == 2, "[", name, "] expected packed data of 2 dimensions (rows, input_size); got ",
                rows.dim(), "-D");
    batch_sizes = int64_values(packed->batch_sizes());
    batch = batch_sizes.empty() ? 0 : batch_sizes[0];
  } else {
    EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "[", name,
                "] expected input of 2 (unbatched: time, features) or 3 (batched) dimensions; got ", input.dim(),
                "-D input of shape ", shape_str(input.sizes()));
    unbatched = input.dim() == 2;
    at::Tensor x = unbatched ? input.unsqueeze(1) : (o.batch_first() ? input.transpose(0, 1) : input);
    steps = x.size(0);
    batch = x.size(1);
    EMBER_CHECK(steps > 0, "[", name, "] expected at least one time step; got input of shape ",
                shape_str(input.sizes()));
    rows = x.reshape({steps * batch, x.size(2)});
    batch_sizes.assign(static_cast<size_t>(steps), batch);
  }
  EMBER_CHECK(rows.size(-1) == o.input_size(), "[", name, "] expected input.size(-1) to equal input_size (",
              o.input_size(), "); got ", rows.size(-1));
  const at::Tensor& w0 = *this->parameters_.find(flat_weights_names_[0]);
  EMBER_CHECK(rows.scalar_type() == w0.scalar_type(), "[", name, "] expected input of dtype ", w0.scalar_type(),
              " (the parameters'); got ", rows.scalar_type());
  const int64_t states = o.num_layers() * directions;
  const at::Tensor* sorted = packed && packed->sorted_indices().defined() ? &packed->sorted_indices() : nullptr;
  auto prepare_state = [&](at::Tensor s, const char* what, int64_t width) {
    std::vector<int64_t> expected = unbatched ? std::vector<int64_t>{states, width}
                                              : std::vector<int64_t>{states, batch, width};
    if (!s.defined()) return at::zeros({states, batch, width}, rows.options());
    check_state(name, what, s, expected, rows);
    if (unbatched) return s.unsqueeze(1);
    return sorted ? s.index_select(1, *sorted) : s;
  };
  hx = prepare_state(hx, "h_0", out_size);
  if (kind == CellKind::kLstm) cx = prepare_state(cx, "c_0", o.hidden_size());
  auto [out, h_n, c_n] = run_layers(rows, batch_sizes, hx, cx);
  if (packed) {
    const at::Tensor& unsorted = packed->unsorted_indices();
    if (unsorted.defined()) {
      h_n = h_n.index_select(1, unsorted);
      if (c_n.defined()) c_n = c_n.index_select(1, unsorted);
    }
    return {out, h_n, c_n};
  }
  out = out.view({steps, batch, out.size(-1)});
  if (unbatched) {
    out = out.squeeze(1);
    h_n = h_n.squeeze(1);
    if (c_n.defined()) c_n = c_n.squeeze(1);
  } else if (o.batch_first()) {
    out = out.transpose(0, 1);
  }
  return {out, h_n, c_n};
}

}  // namespace detail

// ---------------------------------------------------------------- RNN, LSTM, GRU

namespace {

detail::RNNOptionsBase base_of(const RNNOptions& o) {
  detail::RNNOptionsBase::rnn_options_base_mode_t mode = torch::kRNN_TANH;
  if (std::holds_alternative<enumtype::kReLU>(o.nonlinearity())) mode = torch::kRNN_RELU;
  return detail::RNNOptionsBase(mode, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}

template <typename Options>
detail::RNNOptionsBase base_of(detail::RNNOptionsBase::rnn_options_base_mode_t mode, const Options& o) {
  return detail::RNNOptionsBase(mode, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}

utils::rnn::PackedSequence repack(const at::Tensor& data, const utils::rnn::PackedSequence& like) {
  return utils::rnn::PackedSequence(data, like.batch_sizes(), like.sorted_indices(), like.unsorted_indices());
}

}  // namespace

RNNImpl::RNNImpl(const RNNOptions& options_) : RNNImplBase(base_of(options_)), options(options_) {}

std::tuple<at::Tensor, at::Tensor> RNNImpl::forward(const at::Tensor& input, at::Tensor hx) {
  auto [out, h_n, c_n] = forward_common(input, nullptr, std::move(hx), {});
  return {out, h_n};
}

std::tuple<utils::rnn::PackedSequence, at::Tensor> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, at::Tensor hx) {
  auto [out, h_n, c_n] = forward_common({}, &packed_input, std::move(hx), {});
  return {repack(out, packed_input), h_n};
}

LSTMImpl::LSTMImpl(const LSTMOptions& options_)
    : RNNImplBase(base_of(torch::kLSTM, options_).proj_size(options_.proj_size())), options(options_) {}

std::tuple<at::Tensor, std::tuple<at::Tensor, at::Tensor>> LSTMImpl::forward(
    const at::Tensor& input, std::optional<std::tuple<at::Tensor, at::Tensor>> hx_opt) {
  at::Tensor h0, c0;
  if (hx_opt) std::tie(h0, c0) = *hx_opt;
  auto [out, h_n, c_n] = forward_common(input, nullptr, h0, c0);
  return {out, {h_n, c_n}};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<at::Tensor, at::Tensor>> LSTMImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<at::Tensor, at::Tensor>> hx_opt) {
  at::Tensor h0, c0;
  if (hx_opt) std::tie(h0, c0) = *hx_opt;
  auto [out, h_n, c_n] = forward_common({}, &packed_input, h0, c0);
  return {repack(out, packed_input), {h_n, c_n}};
}

GRUImpl::GRUImpl(const GRUOptions& options_) : RNNImplBase(base_of(torch::kGRU, options_)), options(options_) {}

std::tuple<at::Tensor, at::Tensor> GRUImpl::forward(const at::Tensor& input, at::Tensor hx) {
  auto [out, h_n, c_n] = forward_common(input, nullptr, std::move(hx), {});
  return {out, h_n};
}

std::tuple<utils::rnn::PackedSequence, at::Tensor> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, at::Tensor hx) {
  auto [out, h_n, c_n] = forward_common({}, &packed_input, std::move(hx), {});
  return {repack(out, packed_input), h_n};
}

template class detail::RNNImplBase<RNNImpl>;
template class detail::RNNImplBase<LSTMImpl>;
template class detail::RNNImplBase<GRUImpl>;

}  // namespace torch::nn
