"""One script, two libraries (`import torch` or `import ember as torch`): the functionals, layers and modules
that complete ember.nn against the C++ frontend (3-D pools, transposed convolutions, max unpooling, embedding
bags, max_norm, the Gaussian / multi-margin / multilabel losses, in-place activations, 3-D interpolation and
padding), packed sequences (packing, unpacking, RNN/LSTM/GRU over them), torch.normal from a seeded
generator, torch.special, torch.linalg.cross, torch.unique and mvlgamma: values, gradients, dtypes, reprs
and the exception types of bad calls, in float64 on deterministic inputs.

`<a Python with torch> python/tests/functional_parity.py --record` writes PyTorch's results to
data/torch_functional_parity.json; test_functional_parity.py runs the same code on Ember and compares
(torch is never imported there).
"""
import json
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "torch_functional_parity.json")


def _values(n, seed, lo=-1.0, hi=1.0):
    r = random.Random(seed)
    return [r.uniform(lo, hi) for _ in range(n)]


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [v for e in x for v in _flat(e)]
    return [x]


def rnn_utils_pack(torch, x, lengths):
    return torch.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=False)


def run(torch):
    nn = torch.nn
    F = torch.nn.functional
    out = {}
    f64 = torch.float64

    def tensor(shape, seed, lo=-1.0, hi=1.0, grad=False):
        t = torch.tensor(_values(math.prod(shape), seed, lo, hi), dtype=f64).reshape(list(shape))
        return t.requires_grad_() if grad else t

    def dtype_name(t):
        return str(t.dtype).split(".")[-1]

    def record(name, t):
        if isinstance(t, (tuple, list)):
            for k, e in enumerate(t):
                record(f"{name}[{k}]", e)
            return
        out[name] = {"dtype": dtype_name(t), "shape": list(t.shape), "values": [float(v) for v in _flat(t.tolist())]}

    def grads(name, y, *xs):
        """y's value, then the gradients of sum(y * w) (w fixed) for each x."""
        record(name, y.detach())
        w = tensor(tuple(y.shape), 999)
        gs = torch.autograd.grad((y * w).sum(), list(xs), allow_unused=True)
        for k, g in enumerate(gs):
            record(f"{name}.grad{k}", g if g is not None else torch.zeros(()))

    def raises(name, fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the type is the fact recorded
            out[name] = {"raises": type(e).__name__}
        else:
            out[name] = {"raises": None}

    # ---- convolution and pooling
    x1 = tensor((2, 3, 7), 1, grad=True)
    w1 = tensor((3, 4, 3), 2, grad=True)
    b1 = tensor((4,), 3, grad=True)
    grads("conv_transpose1d", F.conv_transpose1d(x1, w1, b1, stride=2, padding=1, output_padding=1), x1, w1, b1)
    wg = tensor((3, 1, 2), 32, grad=True)
    grads("conv_transpose1d_groups", F.conv_transpose1d(x1, wg, None, 1, 0, 0, 3, 2), x1, wg)
    x3 = tensor((1, 2, 3, 4, 3), 4, grad=True)
    w3 = tensor((2, 3, 2, 2, 2), 5, grad=True)
    grads("conv_transpose3d", F.conv_transpose3d(x3, w3, None, stride=(1, 2, 1), padding=(0, 1, 0)), x3, w3)
    v5 = tensor((2, 2, 4, 5, 6), 6, grad=True)
    grads("max_pool3d", F.max_pool3d(v5, 2, stride=(1, 2, 2), padding=(1, 0, 1)), v5)
    record("max_pool3d_with_indices", F.max_pool3d_with_indices(v5.detach(), (2, 3, 2), ceil_mode=True))
    record("max_pool3d_return_indices", F.max_pool3d(v5.detach(), 2, return_indices=True))
    grads("avg_pool3d", F.avg_pool3d(v5, (2, 2, 3), stride=2, padding=(1, 0, 1), count_include_pad=False), v5)
    grads("avg_pool3d_divisor", F.avg_pool3d(v5, 2, divisor_override=3), v5)
    s3 = tensor((2, 3, 11), 7, grad=True)
    grads("adaptive_avg_pool1d", F.adaptive_avg_pool1d(s3, 4), s3)
    grads("adaptive_max_pool1d", F.adaptive_max_pool1d(s3, 5), s3)
    record("adaptive_max_pool1d_idx", F.adaptive_max_pool1d(s3.detach(), 3, return_indices=True))
    record("adaptive_max_pool1d_with_indices", F.adaptive_max_pool1d_with_indices(s3.detach(), 3))
    p4 = tensor((1, 2, 6, 7), 8)
    record("adaptive_max_pool2d_with_indices", F.adaptive_max_pool2d_with_indices(p4, (3, 2)))
    record("max_pool1d_with_indices", F.max_pool1d_with_indices(s3.detach(), 3, 2, 1))
    record("max_pool2d_with_indices", F.max_pool2d_with_indices(p4, 2, 1, dilation=2))

    # ---- max unpooling: the inverse of pooling with indices
    o1, i1 = F.max_pool1d(s3.detach(), 2, return_indices=True)
    record("max_unpool1d", F.max_unpool1d(o1, i1, 2))
    record("max_unpool1d_size", F.max_unpool1d(o1, i1, 2, output_size=[11]))
    record("MaxUnpool1d", nn.MaxUnpool1d(2)(o1, i1, output_size=(2, 3, 11)))
    o2, i2 = F.max_pool2d(p4, 2, return_indices=True)
    record("max_unpool2d", F.max_unpool2d(o2, i2, 2, output_size=(7, 7)))
    record("MaxUnpool2d", nn.MaxUnpool2d(2, stride=2)(o2, i2, output_size=[1, 2, 6, 7]))
    o3, i3 = F.max_pool3d(v5.detach(), 2, return_indices=True)
    record("max_unpool3d", F.max_unpool3d(o3, i3, 2, output_size=[4, 5, 6]))
    o3b, i3b = F.max_pool3d(tensor((1, 2, 4, 4, 6), 33), (2, 2, 3), return_indices=True)
    record("max_unpool3d_default", F.max_unpool3d(o3b, i3b, (2, 2, 3)))
    record("MaxUnpool3d", nn.MaxUnpool3d((2, 2, 2))(o3, i3, output_size=[1, 2, 4, 5, 6]))
    ou = o1.clone().requires_grad_()
    grads("max_unpool1d_grad", F.max_unpool1d(ou, i1, 2), ou)
    raises("max_unpool1d_bad_size", lambda: F.max_unpool1d(o1, i1, 2, output_size=[12]))
    raises("max_unpool2d_bad_len", lambda: F.max_unpool2d(o2, i2, 2, output_size=[6, 6, 6]))

    # ---- embedding bags and max_norm
    weight = tensor((10, 3), 9, grad=True)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0])
    offs = torch.tensor([0, 4, 4, 6])
    for mode in ("sum", "mean", "max"):
        grads(f"embedding_bag_{mode}", F.embedding_bag(idx, weight, offs, mode=mode), weight)
    grads("embedding_bag_last_offset", F.embedding_bag(idx, weight, torch.tensor([0, 3, 7, 9]), mode="sum",
                                                       include_last_offset=True), weight)
    psw = tensor((9,), 10, grad=True)
    grads("embedding_bag_per_sample", F.embedding_bag(idx, weight, offs, mode="sum", per_sample_weights=psw),
          weight, psw)
    grads("embedding_bag_padding", F.embedding_bag(idx, weight, offs, padding_idx=4), weight)
    grads("embedding_bag_padding_neg", F.embedding_bag(idx, weight, offs, mode="sum", padding_idx=-1), weight)
    idx2 = torch.tensor([[1, 2, 3], [4, 4, 0]])
    grads("embedding_bag_2d", F.embedding_bag(idx2, weight), weight)
    grads("embedding_bag_2d_max", F.embedding_bag(idx2, weight, mode="max"), weight)
    raises("embedding_bag_psw_mean", lambda: F.embedding_bag(idx, weight, offs, per_sample_weights=psw))
    raises("embedding_bag_2d_offsets", lambda: F.embedding_bag(idx2, weight, offs))
    raises("embedding_bag_1d_no_offsets", lambda: F.embedding_bag(idx, weight))
    raises("embedding_bag_bad_mode", lambda: F.embedding_bag(idx, weight, offs, mode="median"))
    raises("embedding_bag_max_freq", lambda: F.embedding_bag(idx, weight, offs, mode="max", scale_grad_by_freq=True))
    raises("embedding_bag_3d", lambda: F.embedding_bag(idx.reshape(1, 1, 9), weight))
    bag = nn.EmbeddingBag.from_pretrained(weight.detach() * 3, mode="sum", padding_idx=2)
    record("EmbeddingBag.from_pretrained", bag(idx, offs))
    out["EmbeddingBag.from_pretrained.requires_grad"] = {"py": bag.weight.requires_grad}
    m = nn.EmbeddingBag(10, 3, mode="max")
    with torch.no_grad():
        m.weight.copy_(weight)
    record("EmbeddingBag.max", m(idx2))
    out["EmbeddingBag.state_dict"] = {"py": sorted(m.state_dict())}
    table = tensor((6, 4), 11) * 3
    looked = torch.tensor([[0, 2], [2, 5]])
    t1 = table.clone()
    record("embedding_max_norm", F.embedding(looked, t1, max_norm=1.5))
    record("embedding_max_norm.weight", t1)
    t2 = table.clone()
    record("embedding_max_norm_p1", F.embedding(looked, t2, max_norm=2.0, norm_type=1.0))
    record("embedding_max_norm_p1.weight", t2)
    t3 = table.clone()
    record("embedding_bag_max_norm", F.embedding_bag(looked, t3, max_norm=1.0))
    record("embedding_bag_max_norm.weight", t3)
    e = nn.Embedding(6, 4, max_norm=1.0)
    with torch.no_grad():
        e.weight.copy_(table)
    record("Embedding.max_norm", e(torch.tensor([1, 3])))
    record("Embedding.max_norm.weight", e.weight.detach())

    # ---- losses
    mu = tensor((4, 3), 12, grad=True)
    target = tensor((4, 3), 13)
    var_full = tensor((4, 3), 14, 0.0, 1.0)
    var_full = torch.where(var_full < 0.2, torch.full_like(var_full, 1e-8), var_full).requires_grad_()
    for red in ("mean", "sum", "none"):
        grads(f"gaussian_nll_{red}", F.gaussian_nll_loss(mu, target, var_full, reduction=red), mu, var_full)
    grads("gaussian_nll_full", F.gaussian_nll_loss(mu, target, var_full, full=True, eps=1e-3), mu, var_full)
    var_row = tensor((4,), 15, 0.1, 2.0, grad=True)
    grads("gaussian_nll_dropped_dim", F.gaussian_nll_loss(mu, target, var_row), mu, var_row)
    var_col = tensor((4, 1), 16, 0.1, 2.0, grad=True)
    grads("gaussian_nll_one_dim", F.gaussian_nll_loss(mu, target, var_col), mu, var_col)
    var_lead = tensor((1, 3), 17, 0.1, 2.0, grad=True)
    grads("gaussian_nll_lead_dim", F.gaussian_nll_loss(mu, target, var_lead), mu, var_lead)
    grads("gaussian_nll_float", F.gaussian_nll_loss(mu, target, 0.75), mu)
    grads("GaussianNLLLoss", nn.GaussianNLLLoss(full=True, reduction="sum")(mu, target, var_full), mu, var_full)
    raises("gaussian_nll_negative", lambda: F.gaussian_nll_loss(mu, target, var_full - 5))
    raises("gaussian_nll_negative_float", lambda: F.gaussian_nll_loss(mu, target, -1.0))
    raises("gaussian_nll_bad_size", lambda: F.gaussian_nll_loss(mu, target, tensor((2, 3), 18, 0.1, 1.0)))
    raises("gaussian_nll_bad_reduction", lambda: F.gaussian_nll_loss(mu, target, var_full, reduction="avg"))
    scores = tensor((5, 4), 19, grad=True)
    cls = torch.tensor([0, 3, 1, 1, 2])
    cw = tensor((4,), 20, 0.5, 1.5)
    grads("multi_margin_p1", F.multi_margin_loss(scores, cls), scores)
    grads("multi_margin_p2_weight", F.multi_margin_loss(scores, cls, p=2, margin=0.7, weight=cw, reduction="sum"),
          scores)
    grads("multi_margin_none", F.multi_margin_loss(scores, cls, reduction="none"), scores)
    grads("MultiMarginLoss", nn.MultiMarginLoss(p=2, weight=cw)(scores, cls), scores)
    raises("multi_margin_p3", lambda: F.multi_margin_loss(scores, cls, p=3))
    labels = torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0], [0, 1, 2, 3], [2, -1, 1, 1]])
    grads("multilabel_margin", F.multilabel_margin_loss(scores, labels), scores)
    grads("multilabel_margin_none", F.multilabel_margin_loss(scores, labels, reduction="none"), scores)
    multi_hot = torch.tensor([[1, 0, 0, 1], [0, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0]], dtype=f64)
    grads("multilabel_soft_margin", F.multilabel_soft_margin_loss(scores, multi_hot), scores)
    grads("multilabel_soft_margin_weight", F.multilabel_soft_margin_loss(scores, multi_hot, weight=cw,
                                                                         reduction="none"), scores)
    grads("MultiLabelSoftMarginLoss", nn.MultiLabelSoftMarginLoss(weight=cw, reduction="sum")(scores, multi_hot),
          scores)

    # ---- activations: in place (the result is the input), eval-mode rrelu
    a = tensor((3, 4), 21, -2.0, 2.0)
    for name, fn in [("selu", lambda t: F.selu(t, inplace=True)), ("selu_", F.selu_),
                     ("celu", lambda t: F.celu(t, 0.7, inplace=True)), ("celu_", lambda t: F.celu_(t, 1.3)),
                     ("threshold", lambda t: F.threshold(t, 0.1, -3.0, inplace=True)),
                     ("threshold_", lambda t: F.threshold_(t, 0.2, 5.0)),
                     ("hardsigmoid", lambda t: F.hardsigmoid(t, inplace=True)),
                     ("hardswish", lambda t: F.hardswish(t, inplace=True)), ("relu_", F.relu_),
                     ("elu_", lambda t: F.elu_(t, 0.5)), ("leaky_relu_", lambda t: F.leaky_relu_(t, 0.2)),
                     ("hardtanh_", lambda t: F.hardtanh_(t, -0.5, 0.5)),
                     ("rrelu_eval", lambda t: F.rrelu(t, 0.1, 0.3, training=False, inplace=True)),
                     ("rrelu_", lambda t: F.rrelu_(t, 0.2, 0.4))]:
        t = a.clone()
        r = fn(t)
        out[f"inplace.{name}.same"] = {"py": r is t}
        record(f"inplace.{name}", t)
        leaf = a.clone().requires_grad_()
        y = leaf * 1.0
        fn(y)
        (g,) = torch.autograd.grad((y * tensor((3, 4), 22)).sum(), [leaf])
        record(f"inplace.{name}.grad", g)
    record("rrelu_eval", F.rrelu(a, 0.25, 0.5))
    rr = nn.RReLU(0.1, 0.3).eval()
    record("RReLU.eval", rr(a))
    out["rrelu_train.bounds"] = {"py": bool((F.rrelu(-a.abs() - 1, 0.1, 0.3, training=True)
                                             / (-a.abs() - 1)).ge(0.1 - 1e-12).all())}
    for name, mod in [("SELU", nn.SELU(inplace=True)), ("CELU", nn.CELU(0.5, inplace=True)),
                      ("Threshold", nn.Threshold(0.0, -1.0, inplace=True))]:
        t = a.clone()
        r = mod(t)
        out[f"module.{name}.same"] = {"py": r is t}
        record(f"module.{name}", t)

    # ---- 3-D interpolation and padding
    vol = tensor((1, 2, 2, 3, 4), 23, grad=True)
    grads("interpolate_nearest3d", F.interpolate(vol, size=(3, 5, 6)), vol)
    grads("interpolate_nearest3d_scale", F.interpolate(vol, scale_factor=2), vol)
    grads("interpolate_trilinear", F.interpolate(vol, size=(4, 4, 5), mode="trilinear"), vol)
    grads("interpolate_trilinear_ac", F.interpolate(vol, scale_factor=(1.5, 2, 1), mode="trilinear",
                                                    align_corners=True), vol)
    grads("Upsample_trilinear", nn.Upsample(scale_factor=2, mode="trilinear")(vol), vol)
    cube = tensor((1, 2, 3, 3, 4), 24, grad=True)
    for name, mod in [("ZeroPad3d", nn.ZeroPad3d((1, 0, 2, 1, 0, 1))), ("ConstantPad3d", nn.ConstantPad3d(1, 2.5)),
                      ("ReflectionPad3d", nn.ReflectionPad3d((1, 2, 0, 1, 2, 1))),
                      ("ReplicationPad3d", nn.ReplicationPad3d(2))]:
        grads(name, mod(cube), cube)

    # ---- reprs
    reprs = {
        "EmbeddingBag": nn.EmbeddingBag(10, 3),
        "EmbeddingBag_opts": nn.EmbeddingBag(10, 3, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True, mode="sum",
                                             padding_idx=-2),
        "MaxUnpool1d": nn.MaxUnpool1d(3, stride=2, padding=1),
        "MaxUnpool3d": nn.MaxUnpool3d(2),
        "ZeroPad3d": nn.ZeroPad3d(1),
        "ConstantPad3d": nn.ConstantPad3d((1, 2, 3, 4, 5, 6), 0.5),
        "ReflectionPad3d": nn.ReflectionPad3d(2),
        "ReplicationPad3d": nn.ReplicationPad3d((1, 1, 0, 0, 2, 2)),
        "SELU": nn.SELU(), "SELU_inplace": nn.SELU(inplace=True),
        "CELU_inplace": nn.CELU(0.5, inplace=True), "Threshold_inplace": nn.Threshold(0.1, 20, inplace=True),
        "RReLU": nn.RReLU(), "RReLU_inplace": nn.RReLU(0.1, 0.3, inplace=True),
        "GaussianNLLLoss": nn.GaussianNLLLoss(), "MultiMarginLoss": nn.MultiMarginLoss(),
        "FeatureAlphaDropout": nn.FeatureAlphaDropout(0.2),
    }
    for name, mod in reprs.items():
        out[f"repr.{name}"] = {"py": repr(mod)}
    fa = a.clone()
    out["feature_alpha_dropout_eval.same"] = {"py": F.feature_alpha_dropout(fa, 0.5, False, True) is fa}

    # ---- packed sequences: packing, unpacking and the RNN layers over them
    rnn_utils = torch.nn.utils.rnn
    seqs = tensor((5, 4, 3), 40, grad=True)  # (T, B, features), lengths below (one tie, unsorted)
    lengths = [3, 5, 3, 1]
    packed = rnn_utils.pack_padded_sequence(seqs, lengths, enforce_sorted=False)
    record("pack.data", packed.data.detach())
    record("pack.batch_sizes", packed.batch_sizes)
    record("pack.sorted_indices", packed.sorted_indices)
    record("pack.unsorted_indices", packed.unsorted_indices)
    grads("pack.padded_back", rnn_utils.pad_packed_sequence(packed, padding_value=-1.0)[0], seqs)
    record("pack.lengths_back", rnn_utils.pad_packed_sequence(packed)[1])
    record("pack.batch_first_total", rnn_utils.pad_packed_sequence(
        rnn_utils.pack_padded_sequence(seqs.detach().transpose(0, 1), torch.tensor(lengths), batch_first=True,
                                       enforce_sorted=False), batch_first=True, total_length=7))
    record("pack.sorted", rnn_utils.pack_padded_sequence(seqs.detach()[:, [1, 0, 3]], [5, 3, 1]).data)
    listed = [tensor((n, 2), 41 + n) for n in (2, 4, 1)]
    ps = rnn_utils.pack_sequence(listed, enforce_sorted=False)
    record("pack_sequence.data", ps.data)
    record("pack_sequence.batch_sizes", ps.batch_sizes)
    record("unpack_sequence", rnn_utils.unpack_sequence(ps))
    raises("pack.unsorted_enforced", lambda: rnn_utils.pack_padded_sequence(seqs, lengths))
    raises("pack.zero_length", lambda: rnn_utils.pack_padded_sequence(seqs, [3, 0, 2, 1], enforce_sorted=False))
    raises("pad.total_too_short", lambda: rnn_utils.pad_packed_sequence(packed, total_length=4))
    out["packed.is_tuple"] = {"py": [isinstance(packed, tuple), len(packed)]}
    for kind, kwargs in [("LSTM", dict(num_layers=2, bidirectional=True)), ("GRU", dict(num_layers=2)),
                         ("RNN", dict(bidirectional=True, nonlinearity="relu"))]:
        torch.manual_seed(0)
        layer = getattr(nn, kind)(3, 4, **kwargs).double()
        with torch.no_grad():
            for k, (n, p) in enumerate(layer.named_parameters()):
                p.copy_(tensor(tuple(p.shape), 50 + k, -0.6, 0.6))
        directions = 2 if layer.bidirectional else 1
        h0 = tensor((layer.num_layers * directions, 4, 4), 60, grad=True)
        state = (h0, tensor((layer.num_layers * directions, 4, 4), 61)) if kind == "LSTM" else h0
        x = seqs.detach().clone().requires_grad_()
        res, hn = layer(rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=False), state)
        padded = rnn_utils.pad_packed_sequence(res)[0]
        out[f"{kind}.packed_out_is_packed"] = {"py": type(res).__name__}
        hs = list(hn) if kind == "LSTM" else [hn]
        for k, h in enumerate(hs):
            record(f"{kind}.packed.h{k}", h.detach())
        weights = list(layer.parameters())
        loss = (padded * tensor(tuple(padded.shape), 62)).sum() + sum((h * h).sum() for h in hs)
        gs = torch.autograd.grad(loss, [x, h0] + weights)
        record(f"{kind}.packed.out", padded.detach())
        for k, g in enumerate(gs):
            record(f"{kind}.packed.grad{k}", g)

    # ---- convolution padding modes; LSTM projections
    def filled(module, seed):
        module = module.double()
        with torch.no_grad():
            for k, (n, p) in enumerate(module.named_parameters()):
                p.copy_(tensor(tuple(p.shape), seed + k, -0.5, 0.5))
        return module

    for name, conv, shape in [
            ("Conv1d_reflect", nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect"), (2, 2, 6)),
            ("Conv1d_circular_same", nn.Conv1d(2, 2, 4, padding="same", dilation=2, padding_mode="circular"),
             (1, 2, 9)),
            ("Conv2d_replicate", nn.Conv2d(2, 3, (3, 2), stride=(2, 1), padding=(1, 2), padding_mode="replicate",
                                           bias=False), (1, 2, 5, 4)),
            ("Conv2d_circular", nn.Conv2d(1, 2, 3, padding=1, padding_mode="circular", groups=1), (2, 1, 4, 4)),
            ("Conv2d_reflect_valid", nn.Conv2d(1, 1, 2, padding="valid", padding_mode="reflect"), (1, 1, 3, 3)),
            ("Conv3d_replicate", nn.Conv3d(1, 2, 2, padding=(1, 0, 1), padding_mode="replicate"), (1, 1, 3, 3, 3))]:
        conv = filled(conv, 90)
        xin = tensor(shape, 91, grad=True)
        grads(name, conv(xin), xin, conv.weight)
        out[f"repr.{name}"] = {"py": repr(conv)}
    raises("Conv2d_bad_padding_mode", lambda: nn.Conv2d(1, 1, 3, padding_mode="mirror"))
    raises("ConvTranspose2d_reflect", lambda: nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect"))
    proj = filled(nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2), 100)
    out["LSTM_proj.names"] = {"py": [n for n, _ in proj.named_parameters()]}
    out["LSTM_proj.all_weights"] = {"py": [len(w) for w in proj.all_weights]}
    out["repr.LSTM_proj"] = {"py": repr(proj)}
    xin = tensor((4, 2, 3), 101, grad=True)
    h0p, c0p = tensor((4, 2, 2), 102, grad=True), tensor((4, 2, 5), 103)
    res, (hp, cp) = proj(xin, (h0p, c0p))
    grads("LSTM_proj.out", res, xin, h0p, proj.weight_hr_l0, proj.weight_hh_l1_reverse)
    record("LSTM_proj.h", hp.detach())
    record("LSTM_proj.c", cp.detach())
    pres, (php, pcp) = proj(rnn_utils_pack(torch, xin.detach(), [4, 2]))
    record("LSTM_proj.packed", torch.nn.utils.rnn.pad_packed_sequence(pres)[0].detach())
    record("LSTM_proj.packed_h", php.detach())
    record("LSTM_proj.packed_c", pcp.detach())
    raises("LSTM_proj_too_big", lambda: nn.LSTM(3, 4, proj_size=4))
    raises("LSTM_proj_negative", lambda: nn.LSTM(3, 4, proj_size=-1))
    raises("GRU_proj", lambda: nn.GRU(3, 4, proj_size=2))
    raises("LSTM_proj_bad_h0", lambda: proj(xin, (tensor((4, 2, 5), 104), c0p)))

    # ---- nn.init: the structured initialisers and generator= (PyTorch's CPU streams)
    init = nn.init
    for name, shape, gain in [("orthogonal_tall", (6, 3), 1.0), ("orthogonal_wide", (2, 5), 1.5),
                              ("orthogonal_conv", (4, 2, 3), 1.0), ("orthogonal_square", (4, 4), 0.5)]:
        w = torch.empty(*shape, dtype=f64)
        init.orthogonal_(w, gain, generator=torch.Generator().manual_seed(11))
        record(f"init.{name}", w)
    w32 = torch.empty(3, 4)
    init.orthogonal_(w32, generator=torch.Generator().manual_seed(12))
    record("init.orthogonal_f32_gram", (w32.double() @ w32.double().t() * 1e5).round() / 1e5)
    record("init.dirac_3d", init.dirac_(torch.empty(4, 2, 3, dtype=f64)))
    record("init.dirac_4d_groups", init.dirac_(torch.empty(6, 2, 3, 2, dtype=f64), groups=3))
    record("init.dirac_5d", init.dirac_(torch.empty(2, 3, 3, 1, 2, dtype=f64)))
    raises("init.dirac_bad_groups", lambda: init.dirac_(torch.empty(5, 2, 3), groups=2))
    raises("init.dirac_2d", lambda: init.dirac_(torch.empty(5, 2)))
    torch.manual_seed(13)
    record("init.sparse_", init.sparse_(torch.empty(5, 4, dtype=f64), 0.4, std=0.5))
    for name, fn in [("uniform_", lambda t, g: init.uniform_(t, -2, 3, generator=g)),
                     ("normal_", lambda t, g: init.normal_(t, 1, 2, generator=g)),
                     ("xavier_uniform_", lambda t, g: init.xavier_uniform_(t, 2.0, generator=g)),
                     ("xavier_normal_", lambda t, g: init.xavier_normal_(t, generator=g)),
                     ("kaiming_uniform_", lambda t, g: init.kaiming_uniform_(t, a=0.1, generator=g)),
                     ("kaiming_normal_", lambda t, g: init.kaiming_normal_(t, mode="fan_out", generator=g)),
                     ("trunc_normal_", lambda t, g: init.trunc_normal_(t, 0.5, 1.0, -1.0, 1.5, generator=g)),
                     ("trunc_normal_narrow", lambda t, g: init.trunc_normal_(t, 0.0, 1.0, 1.0, 1.3, generator=g)),
                     ("trunc_normal_far", lambda t, g: init.trunc_normal_(t, 0.0, 0.5, 1.0, 3.0, generator=g))]:
        record(f"init.{name}.generator", fn(torch.empty(3, 4, dtype=f64), torch.Generator().manual_seed(14)))

    # ---- torch.functional's Python-level signatures
    ma, mb = tensor((2, 3), 70), tensor((3, 2), 71)
    vec = tensor((3,), 72)
    record("block_diag", torch.block_diag(ma, vec, tensor((), 73)))
    record("broadcast_tensors", torch.broadcast_tensors(ma, vec, tensor((2, 1), 74)))
    record("cartesian_prod", torch.cartesian_prod(vec, tensor((2,), 75)))
    record("cartesian_prod_one", torch.cartesian_prod(vec))
    record("chain_matmul", torch.chain_matmul(ma, mb, ma))
    record("einsum_args", torch.einsum("ij,jk->ik", ma, mb))
    record("einsum_list", torch.einsum("ij,jk", [ma, mb]))
    record("einsum_trace", torch.einsum("ii", tensor((3, 3), 76)))
    record("einsum_sublist", torch.einsum(ma, [0, 1], mb, [1, 2], [0, 2]))
    record("einsum_sublist_ellipsis", torch.einsum(tensor((2, 2, 3), 77), [Ellipsis, 1], vec, [1], [Ellipsis]))
    record("einsum_sublist_implicit", torch.einsum(ma, [1, 0]))
    for ix in ("ij", "xy"):
        record(f"meshgrid_{ix}", torch.meshgrid(vec, tensor((2,), 78), indexing=ix))
    record("meshgrid_list", torch.meshgrid([vec, vec], indexing="ij"))
    record("atleast_1d_one", torch.atleast_1d(tensor((), 79)))
    record("atleast_2d_many", torch.atleast_2d(tensor((), 79), vec, ma))
    record("atleast_3d_list", torch.atleast_3d([vec, ma]))
    out["atleast_types"] = {"py": [type(torch.atleast_1d(vec)).__name__, type(torch.atleast_1d(vec, vec)).__name__,
                                   type(torch.atleast_1d([vec])).__name__]}
    seq = tensor((7, 2), 80)
    record("split_int", torch.split(seq, 3))
    record("split_sizes", torch.split(seq, [2, 5]))
    record("split_dim", torch.split(seq, 1, dim=1))
    record("Tensor.split_sizes", seq.split((4, 1, 2)))
    raises("split_bad_sizes", lambda: torch.split(seq, [2, 2]))
    t3, t4 = tensor((2, 3, 4), 81), tensor((4, 3, 2), 82)
    record("tensordot_int", torch.tensordot(t3, t4, dims=1))
    record("tensordot_default", torch.tensordot(t3, t4.permute(1, 0, 2), 2))
    record("tensordot_lists", torch.tensordot(t3, t4, dims=([1, 2], [1, 0])))
    record("tensordot_tensor", torch.tensordot(t3, t4, dims=torch.tensor([[2], [0]])))
    record("tensordot_zero", torch.tensordot(vec, tensor((2,), 83), dims=0))
    raises("tensordot_negative", lambda: torch.tensordot(t3, t4, dims=-1))
    nt = tensor((2, 3, 4), 84, grad=True)
    for name, fn in [("norm", lambda x: torch.norm(x)), ("norm_fro_dim", lambda x: torch.norm(x, "fro", (1, 2))),
                     ("norm_p1", lambda x: torch.norm(x, 1)), ("norm_inf_dim", lambda x: torch.norm(x, float("inf"), 1)),
                     ("norm_keepdim", lambda x: torch.norm(x, 3, dim=(0, 2), keepdim=True)),
                     ("norm_all_keepdim", lambda x: torch.norm(x, keepdim=True)),
                     ("Tensor.norm_dim", lambda x: x.norm(dim=1)), ("Tensor.norm_p", lambda x: x.norm(0.5)),
                     ("Tensor.norm_dtype", lambda x: x.float().norm(dtype=torch.float64))]:
        grads(name, fn(nt), nt)
    raises("norm_nuc", lambda: torch.norm(nt, "nuc"))
    z = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    record("nonzero", torch.nonzero(z))
    record("nonzero_tuple", torch.nonzero(z, as_tuple=True))
    record("Tensor.nonzero_tuple", z.nonzero(as_tuple=True))
    record("nonzero_tuple_0d", torch.tensor(3.0).nonzero(as_tuple=True))
    record("argwhere", torch.argwhere(z))
    record("Tensor.argwhere", z.argwhere())
    record("unravel_index", torch.unravel_index(torch.tensor([0, 5, 11, 7]), (3, 4)))
    record("unravel_index_int_shape", torch.unravel_index(torch.tensor([[3], [1]]), 5))
    raises("unravel_index_float", lambda: torch.unravel_index(torch.tensor([1.0]), (2, 2)))
    raises("unravel_index_negative_shape", lambda: torch.unravel_index(torch.tensor([1]), (2, -2)))

    # ---- torch.normal from a seeded generator (PyTorch's CPU stream)
    g = torch.Generator().manual_seed(3)
    m = torch.arange(6.0).reshape(2, 3)
    sd = torch.tensor([0.5, 1.0, 2.0])
    record("normal.tensor_tensor", torch.normal(m, sd, generator=g))
    record("normal.tensor_float", torch.normal(m.double(), 0.25, generator=g))
    record("normal.float_tensor", torch.normal(1.0, sd, generator=g))
    record("normal.float_float", torch.normal(-1.0, 3.0, (2, 2), generator=g))
    record("normal.broadcast", torch.normal(torch.zeros(2, 1), torch.ones(3), generator=g))
    raises("normal.negative_std", lambda: torch.normal(m, -sd))
    raises("normal.bad_broadcast", lambda: torch.normal(torch.zeros(2), torch.ones(3)))

    # ---- torch.special, linalg.cross, unique, mvlgamma
    pos = tensor((6,), 25, 0.1, 4.0)
    unit = tensor((6,), 26, 0.02, 0.98)
    sym = tensor((6,), 27, -3.0, 3.0)
    sp = torch.special
    for name, fn, arg in [("gammaln", sp.gammaln, pos), ("digamma", sp.digamma, pos), ("psi", sp.psi, pos),
                          ("polygamma2", lambda t: sp.polygamma(2, t), pos), ("entr", sp.entr, unit),
                          ("erf", sp.erf, sym), ("erfc", sp.erfc, sym), ("erfcx", sp.erfcx, sym),
                          ("erfinv", sp.erfinv, unit * 2 - 1), ("ndtr", sp.ndtr, sym), ("log_ndtr", sp.log_ndtr, sym),
                          ("ndtri", sp.ndtri, unit), ("logit", sp.logit, unit),
                          ("logit_eps", lambda t: sp.logit(t, eps=0.1), unit), ("expit", sp.expit, sym),
                          ("exp2", sp.exp2, sym), ("expm1", sp.expm1, sym), ("log1p", sp.log1p, pos),
                          ("round", sp.round, sym * 2), ("sinc", sp.sinc, sym), ("i0", sp.i0, sym),
                          ("i0e", sp.i0e, sym), ("i1", sp.i1, sym), ("i1e", sp.i1e, sym),
                          ("xlogy", lambda t: sp.xlogy(t, t + 1), pos),
                          ("xlog1py", lambda t: sp.xlog1py(t, t * 0.5), pos),
                          ("zeta", lambda t: sp.zeta(t + 1.5, t), pos),
                          ("multigammaln", lambda t: sp.multigammaln(t + 2, 3), pos),
                          ("softmax", lambda t: sp.softmax(t.reshape(2, 3), 1), sym),
                          ("log_softmax", lambda t: sp.log_softmax(t.reshape(2, 3), 0), sym),
                          ("logsumexp", lambda t: sp.logsumexp(t.reshape(2, 3), 1), sym),
                          ("mvlgamma", lambda t: torch.mvlgamma(t + 1, 2), pos),
                          ("Tensor.mvlgamma", lambda t: (t + 1).mvlgamma(2), pos)]:
        record(f"special.{name}", fn(arg))
    ints = torch.tensor([1, 2, 3])
    f32 = torch.tensor([0.5, 1.5], dtype=torch.float32)
    record("special.xlog1py_scalar_left", sp.xlog1py(2.0, pos))
    record("special.xlog1py_scalar_right_int", sp.xlog1py(ints, 0.5))
    record("special.xlog1py_scalar_right_f32", sp.xlog1py(f32, 2))
    record("special.zeta_scalar_left", sp.zeta(3.0, pos))
    record("special.zeta_scalar_right", sp.zeta(pos + 1, 2.0))
    record("special.zeta_f32_int", sp.zeta(f32 + 1, 1))
    record("special.multigammaln_below_domain", sp.multigammaln(torch.tensor([0.4], dtype=f64), 2))
    record("special.multigammaln_int", sp.multigammaln(torch.tensor([1, 3]), 2))
    raises("special.multigammaln_p0", lambda: sp.multigammaln(pos, 0))
    u = tensor((4, 3), 28, grad=True)
    v = tensor((4, 3), 29, grad=True)
    grads("linalg.cross", torch.linalg.cross(u, v), u, v)
    record("linalg.cross_dim0", torch.linalg.cross(u.detach().t()[:, :3].t(), v.detach()[:3], dim=0))
    record("linalg.cross_broadcast", torch.linalg.cross(u.detach(), v.detach()[:1]))
    c = torch.empty(0, dtype=f64)
    r = torch.linalg.cross(u.detach(), v.detach(), out=c)
    out["linalg.cross_out.same"] = {"py": r is c}
    record("linalg.cross_out", c)
    raises("linalg.cross_bad", lambda: torch.linalg.cross(tensor((2, 4), 30), tensor((2, 4), 31)))
    w = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
    record("unique", torch.unique(w))
    record("unique_inverse", torch.unique(w, return_inverse=True))
    record("unique_counts", torch.unique(w, return_counts=True))
    record("unique_both", torch.unique(w, return_inverse=True, return_counts=True))
    record("Tensor.unique", w.reshape(1, 11).unique(return_counts=True))
    rows = torch.tensor([[1, 2], [0, 5], [1, 2], [0, 5], [0, 4]])
    record("unique_dim0", torch.unique(rows, dim=0, return_inverse=True, return_counts=True))
    record("unique_dim1", torch.unique(rows, dim=1))
    record("unique_float", torch.unique(torch.tensor([2.5, -1.0, 2.5, 0.0], dtype=f64)))
    return out


def main(argv):
    if "--record" not in argv:
        raise SystemExit(__doc__)
    import torch  # noqa: PLC0415 - only when recording
    torch.manual_seed(0)
    res = run(torch)
    res["_recorded_with"] = {"py": f"torch {torch.__version__}"}
    with open(DATA, "w") as f:
        json.dump(res, f, indent=0, sort_keys=True)
    print(f"wrote {len(res) - 1} results to {DATA}")


if __name__ == "__main__":
    main(sys.argv[1:])
