"""The main job from Python: the Fashion-MNIST CNN of examples/mnist (its default `cnn` model), written
with ember.nn, ember.optim and ember.utils.data.

    PYTHONPATH=build/python python3 python/examples/fashion_mnist.py [--epochs N] [--batch-size B]
        [--lr LR] [--data DIR] [--limit BATCHES] [--seed S] [--workers W]

Same model, optimizer and data as the C++ job (build/examples/mnist): conv(1->16, 3x3) + batch norm +
ReLU + 2x2 max pool, conv(16->32) likewise, dropout 0.25, 1568-128-10 with log-softmax; AdamW (lr
1e-3, weight decay 0.01), batch 64 shuffled, pixels scaled to [0, 1] and normalised by Fashion-MNIST's
mean 0.2860 and standard deviation 0.3530. Prints the train loss and the test loss and accuracy per
epoch. --seed sets the shuffling (a random.Random) and, through ember.manual_seed, the initial weights.

Measured on the 2-vCPU development machine (2026-12-03), one epoch each, seeds 1-8: this script
86.25 / 88.60 / 88.71 / 87.43 / 88.96 / 87.13 / 88.83 / 88.04% (mean 87.99%), the C++ job
(build/examples/mnist --epochs 1) 88.19 / 88.33 / 88.12 / 88.38 / 87.65 / 88.70 / 88.42 / 88.14%
(mean 88.24%); back to back under the build lock an epoch took 9.7-11.4 s here and 8.9-12.7 s in C++.
"""
import argparse
import gzip
import os
import random
import struct
import sys
import time

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, TensorDataset

MEAN, STD = 0.2860, 0.3530


def read_idx(path):
    """An IDX file (plain or .gz) as an ember tensor of its dtype-ubyte contents, shaped by its header."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    zero, kind, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or kind != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    shape = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    body = raw[4 + 4 * ndim:]
    if hasattr(ember, "frombuffer"):
        flat = ember.frombuffer(bytearray(body), dtype=ember.uint8)
    else:
        flat = ember.tensor(list(body), dtype=ember.uint8)
    return flat.reshape(list(shape))


def load(data_dir, split):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte"))
    labels = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte"))
    x = images.to(ember.float32).div(255.0).sub(MEAN).div(STD).unsqueeze(1)  # N x 1 x 28 x 28
    return TensorDataset(x, labels.to(ember.int64))


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.drop = nn.Dropout(0.25)
        self.fc1 = nn.Linear(32 * 7 * 7, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)  # 16 x 14 x 14
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)  # 32 x 7 x 7
        x = self.drop(x.flatten(1))
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), 1)


def train_epoch(model, optimizer, loader, limit):
    model.train()
    total, batches = 0.0, 0
    for data, target in loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        total += loss.item()
        batches += 1
        if limit and batches >= limit:
            break
    return total / max(batches, 1), batches


@ember.no_grad()
def evaluate(model, loader, limit):
    model.eval()
    loss, correct, seen, batches = 0.0, 0, 0, 0
    for data, target in loader:
        output = model(data)
        loss += F.nll_loss(output, target, reduction="sum").item()
        correct += int(output.argmax(1).eq(target).sum().item())
        seen += data.size(0)
        batches += 1
        if limit and batches >= limit:
            break
    return loss / max(seen, 1), 100.0 * correct / max(seen, 1)


def main(argv=None):
    p = argparse.ArgumentParser(description="Trains the Fashion-MNIST CNN of the main job with ember.nn.")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--limit", type=int, default=0, help="only this many train and test batches per epoch")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=0, help="DataLoader worker processes (0: load in this process)")
    args = p.parse_args(argv)

    random.seed(args.seed)
    ember.manual_seed(args.seed)
    t0 = time.time()
    train_set, test_set = load(args.data, "train"), load(args.data, "test")
    print(f"Fashion-MNIST from {args.data}: {len(train_set)} train / {len(test_set)} test images "
          f"(read in {time.time() - t0:.1f} s); AdamW, batch {args.batch_size}, lr {args.lr:g}", flush=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              generator=random.Random(args.seed), num_workers=args.workers)
    test_loader = DataLoader(test_set, batch_size=1000)

    model = ConvNet()
    optimizer = ember.optim.AdamW(model.parameters(), lr=args.lr)
    accuracy = 0.0
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        train_loss, batches = train_epoch(model, optimizer, train_loader, args.limit)
        train_secs = time.time() - t0
        test_loss, accuracy = evaluate(model, test_loader, args.limit)
        secs = time.time() - t0
        images = min(len(train_set), batches * args.batch_size)
        print(f"epoch {epoch:2d}/{args.epochs}  train loss {train_loss:.4f}  test loss {test_loss:.4f}  "
              f"test accuracy {accuracy:.2f}%  time {secs:.1f}s (train {train_secs:.1f}s, "
              f"{images / train_secs:.0f} img/s)", flush=True)
    print(f"final test accuracy {accuracy:.2f}%")
    return accuracy


if __name__ == "__main__":
    main(sys.argv[1:])
