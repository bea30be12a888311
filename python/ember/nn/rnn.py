"""Recurrent layers: RNN, LSTM, GRU and their single-step cells.

The input-to-hidden products of a whole sequence are one matmul per layer and direction; the
recurrence runs step by step in Python over the generated ops, so autograd records it like any other
graph. Parameter names, gate order (LSTM: input, forget, cell, output; GRU: reset, update, new) and
initialisation U(-1/sqrt(hidden), 1/sqrt(hidden)) are PyTorch's, so state_dicts carry over.
"""
import math

from .. import _C
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _lstm_step(x_part, h, c, w_hh, b_hh):
    gates = x_part + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = _C.sigmoid(f) * c + _C.sigmoid(i) * _C.tanh(g)
    h = _C.sigmoid(o) * _C.tanh(c)
    return h, c


def _gru_step(x_part, h, w_hh, b_hh):
    xr, xz, xn = x_part.chunk(3, -1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = _C.sigmoid(xr + hr)
    z = _C.sigmoid(xz + hz)
    n = _C.tanh(xn + r * hn)
    return (1 - z) * n + z * h


def _rnn_step(x_part, h, w_hh, b_hh, relu):
    pre = x_part + F.linear(h, w_hh, b_hh)
    return _C.relu(pre) if relu else _C.tanh(pre)


class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU (mode is "RNN_TANH", "RNN_RELU", "LSTM" or "GRU")."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        name = type(self).__name__
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(f"[{name}] dropout should be a number in range [0, 1] representing the probability "
                             f"of an element being zeroed, got {dropout}")
        if hidden_size <= 0 or num_layers <= 0:
            raise ValueError(f"[{name}] hidden_size and num_layers must be positive, got {hidden_size} and "
                             f"{num_layers}")
        if proj_size < 0:
            raise ValueError(f"[{name}] proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError(f"[{name}] proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError(f"[{name}] proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        out_size = proj_size or hidden_size  # what h holds: the projection of the hidden state with proj_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for d in range(directions):
                layer_in = input_size if layer == 0 else out_size * directions
                suffix = "_reverse" if d == 1 else ""
                names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                shapes = [[gate_size, layer_in], [gate_size, out_size]]
                if bias:
                    names += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
                    shapes += [[gate_size], [gate_size]]
                if proj_size:
                    names.append(f"weight_hr_l{layer}{suffix}")
                    shapes.append([proj_size, hidden_size])
                for n, s in zip(names, shapes):
                    setattr(self, n, Parameter(_C.empty(s, dtype=dtype, device=device)))
                self._flat_weights_names.extend(names)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    @property
    def all_weights(self):
        k = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        return [[getattr(self, n) for n in self._flat_weights_names[i:i + k]]
                for i in range(0, len(self._flat_weights_names), k)]

    def _weights(self, layer, d):
        suffix = "_reverse" if d == 1 else ""
        get = lambda n: getattr(self, f"{n}_l{layer}{suffix}") if self.bias or n.startswith("weight") else None
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")

    def _projection(self, layer, d):
        return getattr(self, f"weight_hr_l{layer}{'_reverse' if d == 1 else ''}") if self.proj_size else None

    def _state_shapes(self, batch):
        """The shapes of h_0 (and c_0): h holds proj_size features when LSTM projects, c hidden_size."""
        n = self.num_layers * (2 if self.bidirectional else 1)
        return [n, batch, self.proj_size or self.hidden_size], [n, batch, self.hidden_size]

    def _initial_states(self, hx, batch, like, adjust=None):
        """h_0 (and c_0 for LSTM): zeros like `like` without hx, else hx's (after adjust), size-checked."""
        name = type(self).__name__
        is_lstm = self.mode == "LSTM"
        h_shape, c_shape = self._state_shapes(batch)
        if hx is None:
            h0 = _C.zeros(h_shape, dtype=like.dtype, device=like.device)
            return h0, (_C.zeros(c_shape, dtype=like.dtype, device=like.device) if is_lstm else None)
        h0, c0 = hx if is_lstm else (hx, None)
        if adjust is not None:
            h0, c0 = adjust(h0), (adjust(c0) if c0 is not None else None)
        for t, what, shape in ((h0, "hidden", h_shape), (c0, "cell", c_shape)):
            if t is not None and list(t.shape) != shape:
                raise RuntimeError(f"[{name}] expected {what} size {tuple(shape)}, got {tuple(t.shape)}")
        return h0, c0

    def _check_input_size(self, input):
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"[{type(self).__name__}] input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _cell(self, x, h, c, w_hh, b_hh, w_hr):
        """One time step of one layer and direction: the new (h, c) (c None unless LSTM)."""
        if self.mode == "LSTM":
            h, c = _lstm_step(x, h, c, w_hh, b_hh)
            return (h if w_hr is None else F.linear(h, w_hr)), c
        if self.mode == "GRU":
            return _gru_step(x, h, w_hh, b_hh), None
        return _rnn_step(x, h, w_hh, b_hh, self.mode == "RNN_RELU"), None

    def _layers(self, x, h0, c0, direction, cat_dim):
        """Runs the stacked layers over x (the time-major sequence, or packed data) from the states h0, c0.
        direction(xw, h, c, (w_hh, b_hh, w_hr), reverse) runs one layer in one direction over xw, every
        step's input product at once, and returns (its outputs, the last h, the last c); the directions'
        outputs are joined along cat_dim. Returns (the last layer's output, h_n, c_n)."""
        directions = 2 if self.bidirectional else 1
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for d in range(directions):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, d)
                k = layer * directions + d
                out, h, c = direction(F.linear(x, w_ih, b_ih), h0[k], c0[k] if c0 is not None else None,
                                      (w_hh, b_hh, self._projection(layer, d)), d == 1)
                outputs.append(out)
                h_n.append(h)
                c_n.append(c)
            x = outputs[0] if directions == 1 else _C.cat(outputs, cat_dim)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, _C.stack(h_n, 0), (_C.stack(c_n, 0) if c0 is not None else None)

    def _run(self, input, hx):
        name = type(self).__name__
        is_lstm = self.mode == "LSTM"
        if input.dim() not in (2, 3):
            raise ValueError(f"[{name}] expected input with 2 (unbatched) or 3 dimensions, got {input.dim()}")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        self._check_input_size(input)
        seq_len, batch = input.size(0), input.size(1)
        h0, c0 = self._initial_states(hx, batch, input, None if batched else (lambda t: t.unsqueeze(1)))
        width = self._state_shapes(batch)[0][2]

        def direction(xw, h, c, weights, reverse):
            out = [None] * seq_len
            for t in (reversed(range(seq_len)) if reverse else range(seq_len)):
                h, c = self._cell(xw[t], h, c, *weights)
                out[t] = h
            return (_C.stack(out, 0) if seq_len else _C.empty([0, batch, width], dtype=input.dtype)), h, c

        output, h_n, c_n = self._layers(input, h0, c0, direction, 2)
        if not batched:
            output = output.squeeze(1)
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1) if is_lstm else None
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, ((h_n, c_n) if is_lstm else h_n)

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._run_packed(input, hx)
        return self._run(input, hx)

    def _run_packed(self, packed, hx):
        """The layers over a PackedSequence: at step t only the first batch_sizes[t] sequences (the batch is
        sorted by length) take a step, the others keep their state; the output is packed like the input and
        the final states (of each sequence's last step) come back in the batch's original order."""
        name = type(self).__name__
        is_lstm = self.mode == "LSTM"
        data, sizes = packed.data, [int(v) for v in packed.batch_sizes.tolist()]
        if data.dim() != 2:
            raise ValueError(f"[{name}] expected packed data with 2 dimensions, got {data.dim()}")
        self._check_input_size(data)
        batch = sizes[0] if sizes else 0
        h0, c0 = self._initial_states(hx, batch, data)
        if hx is not None and packed.sorted_indices is not None:  # the states follow the batch into its sorted order
            h0 = h0.index_select(1, packed.sorted_indices)
            c0 = c0.index_select(1, packed.sorted_indices) if is_lstm else None
        starts = [0]
        for b in sizes:
            starts.append(starts[-1] + b)
        width = self._state_shapes(batch)[0][2]

        def direction(xw, h, c, weights, reverse):
            out = [None] * len(sizes)
            for t in (reversed(range(len(sizes))) if reverse else range(len(sizes))):
                b = sizes[t]
                hb, cb = self._cell(xw[starts[t]:starts[t + 1]], h[:b], c[:b] if c is not None else None, *weights)
                h = hb if b == batch else _C.cat([hb, h[b:]], 0)
                if cb is not None:
                    c = cb if b == batch else _C.cat([cb, c[b:]], 0)
                out[t] = hb
            return (_C.cat(out, 0) if out else _C.empty([0, width], dtype=data.dtype, device=data.device)), h, c

        output, h_n, c_n = self._layers(data, h0, c0, direction, 1)
        if packed.unsorted_indices is not None:
            h_n = h_n.index_select(1, packed.unsorted_indices)
            c_n = c_n.index_select(1, packed.unsorted_indices) if is_lstm else None
        output = PackedSequence(output, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        return output, ((h_n, c_n) if is_lstm else h_n)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (nonlinearity='relu' for ReLU).
    forward(input, h_0=None) returns (output, h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, proj_size=0):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"[RNN] unknown nonlinearity '{nonlinearity}' (expected 'tanh' or 'relu')")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, proj_size, device=device, dtype=dtype)


class LSTM(RNNBase):
    """Long short-term memory; forward(input, (h_0, c_0)=None) returns (output, (h_n, c_n))."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device=device, dtype=dtype)


class GRU(RNNBase):
    """Gated recurrent unit; forward(input, h_0=None) returns (output, h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None, proj_size=0):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device=device, dtype=dtype)


class _CellBase(Module):
    _gates = 1

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        g = self._gates * hidden_size
        self.weight_ih = Parameter(_C.empty([g, input_size], dtype=dtype, device=device))
        self.weight_hh = Parameter(_C.empty([g, hidden_size], dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(_C.empty([g], dtype=dtype, device=device))
            self.bias_hh = Parameter(_C.empty([g], dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        bound = 1.0 / math.sqrt(hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def _prepare(self, input, hx):
        if input.dim() not in (1, 2):
            raise ValueError(f"[{type(self).__name__}] expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        return input, batched

    def _zeros(self, input):
        return _C.zeros([input.size(0), self.hidden_size], dtype=input.dtype, device=input.device)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        return s


class RNNCell(_CellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, batched = self._prepare(input, hx)
        h = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        h = _rnn_step(F.linear(input, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                      self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class LSTMCell(_CellBase):
    _gates = 4

    def forward(self, input, hx=None):
        input, batched = self._prepare(input, hx)
        if hx is None:
            h = c = self._zeros(input)
        else:
            h, c = hx if batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = _lstm_step(F.linear(input, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(_CellBase):
    _gates = 3

    def forward(self, input, hx=None):
        input, batched = self._prepare(input, hx)
        h = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        h = _gru_step(F.linear(input, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
