"""One script, two libraries: `import torch` or `import ember as torch`, the same models built, filled
with the same weights (by state_dict name), run forward and backward and stepped by the optimizers,
in float64. `python3 nn_parity.py torch > data/torch_nn_parity.json` records PyTorch's results;
test_nn_parity.py runs the script on Ember and compares (torch is never imported there).

Only the public API that both share is used: torch.nn layers, torch.nn.functional, torch.optim,
state_dict/load_state_dict, tensor/tolist. Dropout is off (p=0 or eval) since the two libraries draw
different random numbers.
"""
import json
import math
import random
import sys


def _values(n, seed):
    r = random.Random(seed)
    return [r.uniform(-1, 1) for _ in range(n)]


def run(torch):
    nn = torch.nn
    F = torch.nn.functional
    out = {}

    def tensor(shape, seed, scale=1.0):
        n = math.prod(shape)
        return torch.tensor([v * scale for v in _values(n, seed)], dtype=torch.float64).reshape(list(shape))

    def fill(model, seed):
        """Every floating state_dict entry gets deterministic values (scaled to keep activations tame)."""
        sd = model.state_dict()
        new = {}
        for k, (name, v) in enumerate(sd.items()):
            if v.is_floating_point():
                shape = tuple(v.shape)
                scale = 0.5 if "running_var" not in name else 0.0
                t = tensor(shape, seed + k, 0.5) if shape else torch.tensor(0.3, dtype=torch.float64)
                if "running_var" in name:
                    t = t.abs() + 0.5
                new[name] = t
            else:
                new[name] = v
        model.load_state_dict(new)
        return model

    def flat(t):
        v = t.detach().tolist()
        res = []

        def walk(x):
            if isinstance(x, list):
                for e in x:
                    walk(e)
            else:
                res.append(float(x))
        walk(v)
        return res

    def record(name, t):
        out[name] = flat(t)

    # ---- the main job's CNN: forward (train and eval), nll loss, gradients, three AdamW steps
    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(4)
            self.conv2 = nn.Conv2d(4, 6, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(6)
            self.drop = nn.Dropout(0.0)
            self.fc1 = nn.Linear(6 * 2 * 2, 8)
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
            x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
            x = self.drop(x.flatten(1))
            return F.log_softmax(self.fc2(F.relu(self.fc1(x))), 1)

    model = fill(ConvNet().double(), 100)
    x = tensor((5, 1, 8, 8), 1)
    y = torch.tensor([0, 2, 1, 1, 0])
    opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    for step in range(3):
        opt.zero_grad()
        loss = F.nll_loss(model(x), y)
        loss.backward()
        if step == 0:
            record("cnn.loss0", loss)
            for name, p in model.named_parameters():
                record(f"cnn.grad.{name}", p.grad)
        opt.step()
    for name, v in model.state_dict().items():
        if v.is_floating_point():
            record(f"cnn.after.{name}", v)
    model.eval()
    record("cnn.eval", model(x))

    # ---- LSTM (2 layers, bidirectional) + head, SGD with nesterov momentum
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(7, 3, padding_idx=0)
            self.lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
            self.norm = nn.LayerNorm(8)
            self.head = nn.Linear(8, 5)

        def forward(self, ids):
            h, (hn, cn) = self.lstm(self.emb(ids))
            return self.head(self.norm(h)), hn, cn

    tagger = fill(Tagger().double(), 200)
    ids = torch.tensor([[1, 4, 6, 0], [2, 2, 5, 3]])
    tags = torch.tensor([[0, 4, 1, 2], [3, 3, 0, 1]])
    opt = torch.optim.SGD(tagger.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
    for step in range(2):
        opt.zero_grad()
        logits, hn, cn = tagger(ids)
        loss = F.cross_entropy(logits.reshape(-1, 5), tags.reshape(-1), label_smoothing=0.1)
        loss.backward()
        if step == 0:
            record("tagger.logits", logits)
            record("tagger.hn", hn)
            record("tagger.cn", cn)
            record("tagger.grad.lstm.weight_hh_l1_reverse", tagger.lstm.weight_hh_l1_reverse.grad)
            record("tagger.grad.emb.weight", tagger.emb.weight.grad)
        opt.step()
    record("tagger.after.lstm.weight_ih_l0", tagger.lstm.weight_ih_l0)
    record("tagger.after.head.bias", tagger.head.bias)

    # ---- GRU and a transformer encoder layer (no dropout), Adam with amsgrad
    gru = fill(nn.GRU(3, 4, num_layers=2), 300).double()
    seq = tensor((6, 2, 3), 2)
    o, h = gru(seq)
    record("gru.out", o)
    record("gru.h", h)
    enc = fill(nn.TransformerEncoderLayer(8, 2, dim_feedforward=12, dropout=0.0, batch_first=True), 400).double()
    src = tensor((2, 5, 8), 3)
    pad = torch.tensor([[False, False, False, True, True], [False] * 5])
    opt = torch.optim.Adam(enc.parameters(), lr=0.01, amsgrad=True)
    for step in range(2):
        opt.zero_grad()
        z = enc(src, src_key_padding_mask=pad)
        loss = (z * z).mean()
        loss.backward()
        if step == 0:
            record("encoder.out", z)
            record("encoder.grad.in_proj_weight", enc.self_attn.in_proj_weight.grad)
        opt.step()
    record("encoder.after.linear1.weight", enc.linear1.weight)
    mha = fill(nn.MultiheadAttention(6, 3), 500).double()
    q, k = tensor((4, 2, 6), 4), tensor((3, 2, 6), 5)
    a, w = mha(q, k, k, attn_mask=torch.tensor([[False, True, False]] * 4))
    record("mha.out", a)
    record("mha.weights", w)

    # ---- batch norm running statistics after training steps, then eval
    bn = fill(nn.BatchNorm1d(3, momentum=0.3), 600).double()
    for s in range(3):
        bn(tensor((6, 3), 10 + s))
    record("bn.running_mean", bn.running_mean)
    record("bn.running_var", bn.running_var)
    bn.eval()
    record("bn.eval", bn(tensor((2, 3), 20)))

    # ---- losses
    logits, target = tensor((4, 5), 30), torch.tensor([1, 0, 4, 2])
    weight = tensor((5,), 31).abs() + 0.1
    record("loss.ce_weighted", F.cross_entropy(logits, target, weight=weight, label_smoothing=0.2))
    record("loss.ce_none", F.cross_entropy(logits, target, reduction="none"))
    record("loss.nll_ignore", F.nll_loss(F.log_softmax(logits, 1), torch.tensor([1, -100, 4, 2])))
    z, t = tensor((3, 4), 32), tensor((3, 4), 33).abs()
    record("loss.bce_logits", F.binary_cross_entropy_with_logits(z, t, pos_weight=tensor((4,), 34).abs()))
    record("loss.mse_sum", F.mse_loss(z, t, reduction="sum"))
    record("loss.smooth_l1", F.smooth_l1_loss(z, t, beta=0.5))
    record("loss.kl_batchmean", F.kl_div(F.log_softmax(z, 1), F.softmax(t, 1), reduction="batchmean"))

    # ---- a few more layers' forward
    record("convT", fill(nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1), 700).double()(
        tensor((1, 2, 3, 3), 40)))
    record("upsample_bilinear", F.interpolate(tensor((1, 2, 3, 3), 41), scale_factor=2, mode="bilinear",
                                              align_corners=False))
    record("gelu_tanh", F.gelu(tensor((7,), 42, 3.0), approximate="tanh"))
    record("group_norm", fill(nn.GroupNorm(2, 4), 800).double()(tensor((2, 4, 3), 43)))
    sched_opt = torch.optim.SGD([torch.zeros(1, dtype=torch.float64, requires_grad=True)], lr=0.5)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(sched_opt, T_max=5, eta_min=0.01)
    lrs = []
    for _ in range(7):
        lrs.append(sched_opt.param_groups[0]["lr"])
        sched_opt.step()
        sched.step()
    out["cosine_lrs"] = lrs
    return out


if __name__ == "__main__":
    lib = __import__(sys.argv[1] if len(sys.argv) > 1 else "ember")
    if lib.__name__ == "torch":
        lib.set_default_dtype(lib.float32)
    res = run(lib)
    res["_recorded_with"] = f"{lib.__name__} {lib.__version__}"
    json.dump(res, sys.stdout, indent=0, sort_keys=True)
    sys.stdout.write("\n")
