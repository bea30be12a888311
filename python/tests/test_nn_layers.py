"""ember.nn's recurrent, attention and further layers: forward against float64 formulas written here,
gradients against central differences, parameter names and repr against PyTorch 2.15's (recorded as
text; torch is not imported)."""
import math

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from test_nn import T, assert_close, check_module_grads, flat, seeded

f64 = ember.float64


# ---------------------------------------------------------------- small float64 helpers (lists)
def mv(W, x):
    return [sum(w * v for w, v in zip(row, x)) for row in W]


def add(*vs):
    return [sum(t) for t in zip(*vs)]


def sig(v):
    return [1 / (1 + math.exp(-e)) for e in v]


def tanh(v):
    return [math.tanh(e) for e in v]


def mul(a, b):
    return [x * y for x, y in zip(a, b)]


def lstm_ref(X, W_ih, W_hh, b_ih, b_hh, H):
    """One LSTM layer over X (steps x inputs) for one sequence; returns outputs and (h, c)."""
    h, c, out = [0.0] * H, [0.0] * H, []
    for x in X:
        g = add(mv(W_ih, x), b_ih, mv(W_hh, h), b_hh)
        i, f, gg, o = sig(g[:H]), sig(g[H:2 * H]), tanh(g[2 * H:3 * H]), sig(g[3 * H:])
        c = add(mul(f, c), mul(i, gg))
        h = mul(o, tanh(c))
        out.append(h)
    return out, h, c


def gru_ref(X, W_ih, W_hh, b_ih, b_hh, H):
    h, out = [0.0] * H, []
    for x in X:
        gi, gh = add(mv(W_ih, x), b_ih), add(mv(W_hh, h), b_hh)
        r = sig(add(gi[:H], gh[:H]))
        z = sig(add(gi[H:2 * H], gh[H:2 * H]))
        n = tanh(add(gi[2 * H:], mul(r, gh[2 * H:])))
        h = [(1 - zz) * nn_ + zz * hh for zz, nn_, hh in zip(z, n, h)]
        out.append(h)
    return out, h


def weights(m, *names):
    return [getattr(m, n).tolist() for n in names]


# ---------------------------------------------------------------- recurrent layers
def test_lstm_matches_formula_both_directions():
    lstm = nn.LSTM(3, 4, bidirectional=True).double()
    x = seeded((5, 2, 3), 1)  # steps, batch, features
    out, (h, c) = lstm(x)
    assert out.shape == (5, 2, 8) and h.shape == (2, 2, 4) and c.shape == (2, 2, 4)
    fw = weights(lstm, "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
    bw = weights(lstm, "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse")
    X = x.tolist()
    for n in range(2):
        seq = [X[t][n] for t in range(5)]
        o_f, h_f, c_f = lstm_ref(seq, *fw, 4)
        o_b, h_b, c_b = lstm_ref(seq[::-1], *bw, 4)
        o_b = o_b[::-1]
        assert_close([out[t, n].tolist() for t in range(5)], [o_f[t] + o_b[t] for t in range(5)], rtol=1e-10,
                     atol=1e-13)
        assert_close([h[0, n].tolist(), h[1, n].tolist()], [h_f, h_b], rtol=1e-10, atol=1e-13)
        assert_close([c[0, n].tolist(), c[1, n].tolist()], [c_f, c_b], rtol=1e-10, atol=1e-13)


def test_gru_rnn_and_cells_match_formulas():
    gru = nn.GRU(3, 2).double()
    x = seeded((4, 1, 3), 2)
    out, h = gru(x)
    ref, h_ref = gru_ref([r[0] for r in x.tolist()], *weights(gru, "weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                                                              "bias_hh_l0"), 2)
    assert_close(out[:, 0], ref, rtol=1e-10, atol=1e-13)
    assert_close(h[0, 0], h_ref, rtol=1e-10, atol=1e-13)
    rnn = nn.RNN(3, 2, nonlinearity="relu", bias=False).double()
    W_ih, W_hh = weights(rnn, "weight_ih_l0", "weight_hh_l0")
    hh, want = [0.0, 0.0], []
    for xt in [r[0] for r in x.tolist()]:
        hh = [max(0.0, v) for v in add(mv(W_ih, xt), mv(W_hh, hh))]
        want.append(hh)
    assert_close(rnn(x)[0][:, 0], want, rtol=1e-10, atol=1e-13)
    # one step of a cell is one step of the layer with the same weights
    cell = nn.LSTMCell(3, 2).double()
    hc = cell(x[0])
    ref, h1, c1 = lstm_ref([x[0, 0].tolist()], *weights(cell, "weight_ih", "weight_hh", "bias_ih", "bias_hh"), 2)
    assert_close(hc[0][0], h1, rtol=1e-10)
    assert_close(hc[1][0], c1, rtol=1e-10)
    gcell = nn.GRUCell(3, 2).double()
    _, g1 = gru_ref([x[0, 0].tolist()], *weights(gcell, "weight_ih", "weight_hh", "bias_ih", "bias_hh"), 2)
    assert_close(gcell(x[0, 0]), g1, rtol=1e-10)  # unbatched input


def test_rnn_shapes_batch_first_initial_state_and_errors():
    lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True).double()
    x = seeded((2, 5, 3), 3)
    out, (h, c) = lstm(x)
    assert out.shape == (2, 5, 4) and h.shape == (2, 2, 4)
    # batch_first is a transpose of the same computation
    lstm.batch_first = False
    out2, _ = lstm(x.transpose(0, 1))
    assert_close(out2.transpose(0, 1), out, rtol=1e-12)
    # the state carries over: two halves with the state passed on equal the whole
    a, st = lstm(x.transpose(0, 1)[:2])
    b, _ = lstm(x.transpose(0, 1)[2:], st)
    assert_close(ember.cat([a, b], 0), out2, rtol=1e-10, atol=1e-13)
    out3, (h3, _) = lstm(x[0])  # unbatched (L, H_in)
    assert out3.shape == (5, 4) and h3.shape == (2, 4)
    with pytest.raises(RuntimeError, match=r"\[LSTM\] input.size\(-1\) must be equal to input_size. Expected 3, got 2"):
        lstm(ember.zeros(5, 2, 2, dtype=f64))
    with pytest.raises(RuntimeError, match=r"\[GRU\] expected hidden size \(1, 2, 4\), got \(1, 3, 4\)"):
        nn.GRU(3, 4).double()(ember.zeros(5, 2, 3, dtype=f64), ember.zeros(1, 3, 4, dtype=f64))
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(3, 4, dropout=2)


def test_rnn_parameter_names_and_init():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    # the names torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True).state_dict() has
    assert list(lstm.state_dict()) == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse",
        "bias_ih_l0_reverse", "bias_hh_l0_reverse", "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1",
        "weight_ih_l1_reverse", "weight_hh_l1_reverse", "bias_ih_l1_reverse", "bias_hh_l1_reverse"]
    assert lstm.weight_ih_l1.shape == (16, 8) and lstm.weight_hh_l0.shape == (16, 4)
    assert all(p.abs().max().item() <= 0.5 for p in lstm.parameters())  # U(-1/sqrt(4), 1/sqrt(4))
    assert nn.GRU(3, 5).weight_ih_l0.shape == (15, 3)


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.LSTM(2, 3, num_layers=2, bidirectional=True), (3, 2, 2)),
    (lambda: nn.GRU(2, 3, batch_first=True), (2, 3, 2)),
    (lambda: nn.RNN(2, 3), (3, 1, 2)),
])
def test_rnn_gradients_match_finite_differences(make, shape):
    class OutputOnly(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = make()

        def forward(self, x):
            return self.rnn(x)[0]

    check_module_grads(OutputOnly().double(), seeded(shape, 7), seed=3)


def test_lstm_learns_to_echo():
    # the output at step t should equal the input at step t - 1: a memory task for 60 Adam steps
    ember_rand = seeded((6, 8, 1), 9).sign()
    target = ember.cat([ember.zeros(1, 8, 1, dtype=f64), ember_rand[:-1]], 0)
    lstm, head = nn.LSTM(1, 8).double(), nn.Linear(8, 1).double()
    opt = ember.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=0.05)
    for _ in range(60):
        opt.zero_grad()
        loss = F.mse_loss(head(lstm(ember_rand)[0]), target)
        loss.backward()
        opt.step()
    assert loss.item() < 0.05


# ---------------------------------------------------------------- attention
def mha_ref(q_in, k_in, v_in, m, H, mask=None):
    """Multi-head attention for one batch element: rows are positions."""
    E = len(q_in[0])
    hd = E // H
    W = m.in_proj_weight.tolist()
    b = m.in_proj_bias.tolist()
    Wo, bo = m.out_proj.weight.tolist(), m.out_proj.bias.tolist()
    Q = [add(mv(W[:E], x), b[:E]) for x in q_in]
    K = [add(mv(W[E:2 * E], x), b[E:2 * E]) for x in k_in]
    V = [add(mv(W[2 * E:], x), b[2 * E:]) for x in v_in]
    out = [[0.0] * E for _ in q_in]
    avg = [[0.0] * len(k_in) for _ in q_in]
    for h in range(H):
        sl = slice(h * hd, (h + 1) * hd)
        for i, q in enumerate(Q):
            s = [sum(a * c for a, c in zip(q[sl], k[sl])) / math.sqrt(hd) for k in K]
            if mask is not None:
                s = [v + mm for v, mm in zip(s, mask[i])]
            top = max(s)
            e = [math.exp(v - top) for v in s]
            w = [v / sum(e) for v in e]
            for j, wj in enumerate(w):
                avg[i][j] += wj / H
                for d in range(hd):
                    out[i][h * hd + d] += wj * V[j][sl][d]
    return [add(mv(Wo, o), bo) for o in out], avg


def test_multihead_attention_matches_formula():
    m = nn.MultiheadAttention(4, 2).double()
    with ember.no_grad():
        m.in_proj_bias.copy_(seeded((12,), 20))
        m.out_proj.bias.copy_(seeded((4,), 21))
    q, k, v = seeded((3, 2, 4), 22), seeded((5, 2, 4), 23), seeded((5, 2, 4), 24)
    out, w = m(q, k, v)
    assert out.shape == (3, 2, 4) and w.shape == (2, 3, 5)
    for n in range(2):
        ref, avg = mha_ref(q[:, n].tolist(), k[:, n].tolist(), v[:, n].tolist(), m, 2)
        assert_close(out[:, n], ref, rtol=1e-10, atol=1e-13)
        assert_close(w[n], avg, rtol=1e-10, atol=1e-13)
    # a boolean mask (True: not allowed) is -inf added to the scores; is_causal is the upper triangle
    causal = [[0.0 if j <= i else float("-inf") for j in range(3)] for i in range(3)]
    out_c, _ = m(q, q, q, attn_mask=ember.ones(3, 3, dtype=ember.bool).triu(1))
    ref, _ = mha_ref(q[:, 1].tolist(), q[:, 1].tolist(), q[:, 1].tolist(), m, 2, causal)
    assert_close(out_c[:, 1], ref, rtol=1e-10, atol=1e-13)
    assert_close(m(q, q, q, is_causal=True)[0], out_c, rtol=1e-12)
    # key_padding_mask: a padded key gets no weight
    kpm = ember.tensor([[False, False, False, False, True], [False] * 5])
    _, wp = m(q, k, v, key_padding_mask=kpm)
    assert wp[0, :, 4].abs().max().item() == 0 and wp[1, :, 4].abs().min().item() > 0
    # batch_first is a transpose of the same computation
    m.batch_first = True
    out_bf, _ = m(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), need_weights=False)
    assert_close(out_bf.transpose(0, 1), out, rtol=1e-12)
    with pytest.raises(ValueError, match=r"embed_dim \(5\) must be divisible by num_heads \(2\)"):
        nn.MultiheadAttention(5, 2)


def test_attention_and_transformer_gradients():
    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(4, 2)

        def forward(self, x):
            return self.attn(x, x, x)[0]

    check_module_grads(SelfAttention().double(), seeded((3, 2, 4), 30), seed=5)
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0).double()
    check_module_grads(layer, seeded((3, 2, 4), 31), seed=6, rtol=1e-5, atol=1e-7)
    pre = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0, norm_first=True, activation="gelu")
    check_module_grads(pre.double(), seeded((3, 2, 4), 32), seed=7, rtol=1e-5, atol=1e-7)


def test_transformer_layers_compose():
    enc_layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0).double()
    x = seeded((5, 2, 8), 40)
    # post-norm: norm2(y + ff(y)) with y = norm1(x + attention(x))
    y = enc_layer.norm1(x + enc_layer.self_attn(x, x, x)[0])
    want = enc_layer.norm2(y + enc_layer.linear2(F.relu(enc_layer.linear1(y))))
    assert_close(enc_layer(x), want, rtol=1e-12)
    enc = nn.TransformerEncoder(enc_layer, 3)
    assert len(enc.layers) == 3 and len(list(enc.parameters())) == 3 * 12
    assert enc.layers[0].linear1.weight.data_ptr() != enc.layers[1].linear1.weight.data_ptr()  # copies
    z = x
    for layer in enc.layers:
        z = layer(z)
    assert_close(enc(x), z, rtol=1e-12)
    model = nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True).double()
    src, tgt = seeded((2, 5, 8), 41), seeded((2, 4, 8), 42)
    mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=f64)
    assert mask.tolist()[0] == [0.0, float("-inf"), float("-inf"), float("-inf")]
    out = model(src, tgt, tgt_mask=mask)
    assert out.shape == (2, 4, 8)
    # causal: changing the last target position leaves the earlier outputs alone
    tgt2 = tgt.clone()
    tgt2[:, 3] = 0.0
    assert_close(model(src, tgt2, tgt_mask=mask)[:, :3], out[:, :3], rtol=1e-10, atol=1e-12)


def test_attention_state_dict_names():
    # as torch.nn.MultiheadAttention / TransformerDecoderLayer name them
    assert list(nn.MultiheadAttention(8, 2).state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                                               "out_proj.bias"]
    assert list(nn.MultiheadAttention(8, 2, kdim=3, vdim=5).state_dict()) == [
        "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    assert list(nn.TransformerDecoderLayer(8, 2, 16).state_dict()) == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
        "multihead_attn.in_proj_weight", "multihead_attn.in_proj_bias", "multihead_attn.out_proj.weight",
        "multihead_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
        "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias", "norm3.weight", "norm3.bias"]


# ---------------------------------------------------------------- repr (the strings PyTorch 2.15 prints)
@pytest.mark.parametrize("make,text", [
    (lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True),
     "LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)"),
    (lambda: nn.GRU(3, 4, dropout=0.5, num_layers=2), "GRU(3, 4, num_layers=2, dropout=0.5)"),
    (lambda: nn.RNN(3, 4, nonlinearity="relu", bias=False), "RNN(3, 4, bias=False)"),
    (lambda: nn.LSTMCell(3, 4), "LSTMCell(3, 4)"),
    (lambda: nn.GRUCell(3, 4, bias=False), "GRUCell(3, 4, bias=False)"),
    (lambda: nn.MultiheadAttention(8, 2),
     "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n)"),
    (lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1),
     "ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))"),
    (lambda: nn.Upsample(scale_factor=2), "Upsample(scale_factor=2.0, mode='nearest')"),
    (lambda: nn.Upsample(size=(3, 4), mode="bilinear"), "Upsample(size=(3, 4), mode='bilinear')"),
    (lambda: nn.PixelShuffle(2), "PixelShuffle(upscale_factor=2)"),
    (lambda: nn.ZeroPad2d(1), "ZeroPad2d((1, 1, 1, 1))"),
    (lambda: nn.ReflectionPad2d((1, 2, 3, 4)), "ReflectionPad2d((1, 2, 3, 4))"),
    (lambda: nn.ConstantPad1d(2, 3.5), "ConstantPad1d(padding=(2, 2), value=3.5)"),
    (lambda: nn.PReLU(), "PReLU(num_parameters=1)"),
    (lambda: nn.ReLU6(), "ReLU6()"),
    (lambda: nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)"),
    (lambda: nn.InstanceNorm2d(3),
     "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)"),
    (lambda: nn.Softshrink(), "Softshrink(0.5)"),
    (lambda: nn.Threshold(0.1, 20), "Threshold(threshold=0.1, value=20)"),
    (lambda: nn.AdaptiveMaxPool2d((2, 3)), "AdaptiveMaxPool2d(output_size=(2, 3))"),
    (lambda: nn.Unfold(2), "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"),
    (lambda: nn.Fold((4, 5), 2), "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)"),
    (lambda: nn.TransformerEncoderLayer(8, 2, 16),
     "TransformerEncoderLayer(\n  (self_attn): MultiheadAttention(\n    (out_proj): NonDynamicallyQuantizableLinear("
     "in_features=8, out_features=8, bias=True)\n  )\n  (linear1): Linear(in_features=8, out_features=16, bias=True)\n"
     "  (dropout): Dropout(p=0.1, inplace=False)\n  (linear2): Linear(in_features=16, out_features=8, bias=True)\n"
     "  (norm1): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)\n"
     "  (norm2): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)\n"
     "  (dropout1): Dropout(p=0.1, inplace=False)\n  (dropout2): Dropout(p=0.1, inplace=False)\n)"),
])
def test_repr_like_pytorch(make, text):
    assert repr(make()) == text


# ---------------------------------------------------------------- further layers against formulas
def test_conv_transpose2d_is_the_adjoint_of_conv2d():
    # <conv2d(x, w), y> == <x, conv_transpose2d(y, w)> for the same weight: the defining property
    ct = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, bias=False).double()
    x, y = seeded((1, 2, 5, 5), 50), seeded((1, 3, 3, 3), 51)
    assert ct(y).shape == (1, 2, 5, 5)
    lhs = (F.conv2d(x, ct.weight, None, 2, 1) * y).sum().item()
    rhs = (x * ct(y)).sum().item()
    assert abs(lhs - rhs) < 1e-12


def test_padding_upsampling_shuffle_against_formulas():
    x = seeded((1, 1, 2, 3), 60)
    X = x[0, 0].tolist()
    r = nn.ReflectionPad2d(1)(x)[0, 0].tolist()
    assert r[0] == [X[1][1], X[1][0], X[1][1], X[1][2], X[1][1]]  # reflected about the edge, edge not repeated
    rp = nn.ReplicationPad2d((2, 0, 0, 0))(x)[0, 0].tolist()
    assert rp[1] == [X[1][0], X[1][0]] + X[1]
    cp = nn.ConstantPad2d((0, 1, 1, 0), 9.0)(x)[0, 0].tolist()
    assert cp == [[9.0] * 4, X[0] + [9.0], X[1] + [9.0]]
    up = nn.Upsample(scale_factor=2)(x)[0, 0].tolist()
    assert up == [[X[i // 2][j // 2] for j in range(6)] for i in range(4)]
    bl = F.interpolate(x, size=(3, 5), mode="bilinear", align_corners=True)[0, 0].tolist()
    # align_corners: output (i, j) samples input (i * 1/2, j * 2/4)
    def sample(yy, xx):
        y0, x0 = int(math.floor(yy)), int(math.floor(xx))
        y1, x1 = min(y0 + 1, 1), min(x0 + 1, 2)
        dy, dx = yy - y0, xx - x0
        return ((1 - dy) * ((1 - dx) * X[y0][x0] + dx * X[y0][x1]) + dy * ((1 - dx) * X[y1][x0] + dx * X[y1][x1]))
    assert_close(bl, [[sample(i * 0.5, j * 0.5) for j in range(5)] for i in range(3)], rtol=1e-12)
    ps = seeded((1, 4, 2, 2), 61)
    out = nn.PixelShuffle(2)(ps)
    P = ps[0].tolist()
    assert out.shape == (1, 1, 4, 4)
    assert out[0, 0].tolist() == [[P[(i % 2) * 2 + (j % 2)][i // 2][j // 2] for j in range(4)] for i in range(4)]
    assert nn.PixelUnshuffle(2)(out).equal(ps)
    u = nn.Unfold(2)(x)  # (1, 4, 2): the two 2x2 blocks as columns
    assert u[0].tolist() == [[X[0][0], X[0][1]], [X[0][1], X[0][2]], [X[1][0], X[1][1]], [X[1][1], X[1][2]]]
    # fold sums overlapping blocks: fold(unfold(ones)) counts how many blocks cover each pixel
    ones = ember.ones(1, 1, 2, 3, dtype=f64)
    assert nn.Fold((2, 3), 2)(nn.Unfold(2)(ones))[0, 0].tolist() == [[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]]


def test_more_activations_against_formulas():
    x = T([-7.0, -1.5, -0.2, 0.0, 0.3, 2.0, 8.0])
    v = flat(x)
    assert_close(nn.ReLU6()(x), [min(max(e, 0), 6) for e in v])
    assert_close(nn.Hardtanh(-0.5, 1.0)(x), [min(max(e, -0.5), 1.0) for e in v])
    assert_close(nn.PReLU(init=0.1).double()(x), [e if e > 0 else 0.1 * e for e in v])
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    assert_close(nn.SELU()(x), [scale * (e if e > 0 else alpha * (math.exp(e) - 1)) for e in v], rtol=1e-12)
    assert_close(nn.CELU(0.5)(x), [max(0, e) + min(0, 0.5 * (math.exp(e / 0.5) - 1)) for e in v], rtol=1e-12)
    assert_close(nn.Softshrink(0.5)(x), [e - 0.5 if e > 0.5 else e + 0.5 if e < -0.5 else 0.0 for e in v])
    assert_close(nn.Hardshrink(0.5)(x), [e if abs(e) > 0.5 else 0.0 for e in v])
    assert_close(nn.Threshold(0.1, 20.0)(x), [e if e > 0.1 else 20.0 for e in v])
    assert_close(nn.Softsign()(x), [e / (1 + abs(e)) for e in v], rtol=1e-12)
    assert_close(nn.Tanhshrink()(x), [e - math.tanh(e) for e in v], rtol=1e-12, atol=1e-12)
    g = seeded((2, 4), 70)
    G = g.tolist()
    assert_close(nn.GLU()(g), [[r[k] * sig([r[k + 2]])[0] for k in range(2)] for r in G], rtol=1e-12)
    s2 = nn.Softmax2d()(seeded((1, 3, 2, 2), 71))
    assert_close(s2.sum(1), ember.ones(1, 2, 2, dtype=f64), rtol=1e-12)
    xi = seeded((2, 2, 5), 72)
    want = []
    for plane in xi.tolist():
        rows = []
        for r in plane:  # each (sample, channel) row normalised by its own statistics
            m = sum(r) / 5
            var = sum((e - m) ** 2 for e in r) / 5
            rows.append([(e - m) / math.sqrt(var + 1e-5) for e in r])
        want.append(rows)
    assert_close(nn.InstanceNorm1d(2).double()(xi), want, rtol=1e-10, atol=1e-12)


def test_more_losses_against_formulas():
    a, b = seeded((4,), 80), seeded((4,), 81)
    y = T([1.0, -1.0, 1.0, -1.0])
    A, B, Y = flat(a), flat(b), flat(y)
    assert_close(nn.MarginRankingLoss(0.1)(a, b, y),
                 [sum(max(0, -yy * (p - q) + 0.1) for p, q, yy in zip(A, B, Y)) / 4], rtol=1e-12)
    assert_close(nn.SoftMarginLoss()(a, y), [sum(math.log1p(math.exp(-yy * p)) for p, yy in zip(A, Y)) / 4],
                 rtol=1e-12)
    assert_close(nn.HingeEmbeddingLoss(0.5)(a, y),
                 [sum(p if yy == 1 else max(0, 0.5 - p) for p, yy in zip(A, Y)) / 4], rtol=1e-12)
    mu, tgt, var = seeded((3, 2), 82), seeded((3, 2), 83), seeded((3, 2), 84).abs() + 0.1
    M, Tt, V = flat(mu), flat(tgt), flat(var)
    assert_close(nn.GaussianNLLLoss()(mu, tgt, var),
                 [sum(0.5 * (math.log(vv) + (m - t) ** 2 / vv) for m, t, vv in zip(M, Tt, V)) / 6], rtol=1e-12)
    logits, labels = seeded((2, 3), 85), T([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    L, Lb = logits.tolist(), labels.tolist()
    per = [-sum(t * math.log(sig([z])[0]) + (1 - t) * math.log(1 - sig([z])[0]) for z, t in zip(r, s)) / 3
           for r, s in zip(L, Lb)]
    assert_close(nn.MultiLabelSoftMarginLoss()(logits, labels), [sum(per) / 2], rtol=1e-12)
