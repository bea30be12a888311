"""Padding variable-length sequences into one tensor (pad_sequence) and back (unpad_sequence), and packing
them for the RNN layers (PackedSequence, pack_padded_sequence, pad_packed_sequence, pack_sequence,
unpack_sequence)."""
from ... import _C


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors of shape (L_i, *) into (max L, B, *) (or (B, max L, *)), filling with padding_value
    on the right (or on the left with padding_side="left")."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"[pad_sequence] padding_side should be 'left' or 'right', got {padding_side!r}")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("[pad_sequence] received an empty list of sequences")
    longest = max(s.size(0) for s in sequences)
    rest = list(sequences[0].shape[1:])
    out = _C.full([len(sequences), longest] + rest, float(padding_value), dtype=sequences[0].dtype,
                  device=sequences[0].device)
    rows = []
    for s in sequences:
        pad = longest - s.size(0)
        if pad == 0:
            rows.append(s)
            continue
        filler = out[0, :pad]  # padding_value, the right shape
        rows.append(_C.cat([s, filler], 0) if padding_side == "right" else _C.cat([filler, s], 0))
    out = _C.stack(rows, 0)
    return out if batch_first else out.transpose(0, 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences pad_sequence was given, cut back to their lengths."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, list(lengths.tolist() if hasattr(lengths, "tolist")
                                                                    else lengths))]


# ---------------------------------------------------------------- packed sequences
class PackedSequence(tuple):
    """A batch of sequences of different lengths packed time-major: data (sum of lengths, *) holds step 0 of
    every sequence, then step 1 of those at least 2 long, ...; batch_sizes (int64, CPU) counts the sequences
    at each step (not increasing); sorted_indices is the batch order of data (None: the given order) and
    unsorted_indices its inverse. Made by pack_padded_sequence / pack_sequence; the RNN layers take and give
    them."""

    __slots__ = ()
    _fields = ("data", "batch_sizes", "sorted_indices", "unsorted_indices")

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise TypeError("[PackedSequence] batch_sizes is required (make packed sequences with "
                            "pack_padded_sequence or pack_sequence)")
        return tuple.__new__(cls, (data, batch_sizes, sorted_indices, unsorted_indices))

    data = property(lambda self: self[0])
    batch_sizes = property(lambda self: self[1])
    sorted_indices = property(lambda self: self[2])
    unsorted_indices = property(lambda self: self[3])

    def __repr__(self):
        return (f"PackedSequence(data={self.data!r}, batch_sizes={self.batch_sizes!r}, "
                f"sorted_indices={self.sorted_indices!r}, unsorted_indices={self.unsorted_indices!r})")

    def __getnewargs__(self):
        return tuple(self)

    def _replace_data(self, data, indices=lambda t: t):
        return PackedSequence(data, self.batch_sizes, *(None if t is None else indices(t)
                                                        for t in (self.sorted_indices, self.unsorted_indices)))

    def to(self, *args, **kwargs):
        """The data converted or moved as Tensor.to; the indices follow the data's device, batch_sizes stay."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return self._replace_data(data, lambda t: t.to(data.device))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, *args, **kwargs):
        return self._replace_data(self.data.cuda(*args, **kwargs), lambda t: t.cuda(*args, **kwargs))

    def double(self):
        return self.to(_C.float64)

    def float(self):
        return self.to(_C.float32)

    def half(self):
        return self.to(_C.float16)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The inverse of a permutation given as an index tensor (None stays None)."""
    if permutation is None:
        return None
    out = _C.empty_like(permutation)
    out[permutation] = _C.arange(permutation.numel(), dtype=permutation.dtype, device=permutation.device)
    return out


def _lengths_list(lengths):
    if isinstance(lengths, _C.Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"[pack_padded_sequence] expected a 1-D lengths tensor; got {lengths.dim()} dims")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) (or (B, T, *) with batch_first) of sequences of the given lengths. With
    enforce_sorted the lengths must not increase; otherwise the batch is sorted by length first (stably) and
    the order kept in the result."""
    n = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if len(n) != input.size(batch_dim):
        raise RuntimeError(f"[pack_padded_sequence] expected {input.size(batch_dim)} lengths (the batch size); "
                           f"got {len(n)}")
    if enforce_sorted:
        if any(a < b for a, b in zip(n, n[1:])):
            raise RuntimeError("[pack_padded_sequence] `lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                               "pack_padded_sequence and/or pack_sequence to sidestep this requirement if you do "
                               "not need ONNX exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(n)), key=lambda i: -n[i])
        n = [n[i] for i in order]
        sorted_indices = _C.tensor(order, dtype=_C.int64, device=input.device)
        input = input.index_select(batch_dim, sorted_indices)
    if n and n[-1] <= 0:
        raise RuntimeError("[pack_padded_sequence] Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if batch_first:
        input = input.transpose(0, 1)
    steps = n[0] if n else 0
    if steps > input.size(0):
        raise RuntimeError(f"[pack_padded_sequence] a length of {steps} is longer than the input's "
                           f"{input.size(0)} steps")
    sizes = [sum(1 for v in n if v > t) for t in range(steps)]
    data = _C.cat([input[t, :b] for t, b in enumerate(sizes)], 0) if steps else input[:0].flatten(0, 1)
    return PackedSequence(data, _C.tensor(sizes, dtype=_C.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpacks to (T, B, *) (or (B, T, *) with batch_first) padded with padding_value, T the longest length or
    total_length; returns it and the lengths (int64), both in the batch's original order."""
    data, sizes = sequence.data, [int(v) for v in sequence.batch_sizes.tolist()]
    steps, batch = len(sizes), (sizes[0] if sizes else 0)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"[pad_packed_sequence] expected total_length to be at least the length of the "
                             f"longest sequence ({steps}); got {total_length}")
    else:
        total_length = steps
    rest = list(data.shape[1:])
    rows, offset = [], 0
    for b in sizes:
        step = data[offset:offset + b]
        offset += b
        if b < batch:
            step = _C.cat([step, _C.full([batch - b] + rest, float(padding_value), dtype=data.dtype,
                                         device=data.device)], 0)
        rows.append(step)
    for _ in range(total_length - steps):
        rows.append(_C.full([batch] + rest, float(padding_value), dtype=data.dtype, device=data.device))
    padded = _C.stack(rows, 0) if rows else _C.empty([0, batch] + rest, dtype=data.dtype, device=data.device)
    lengths = _C.tensor([sum(1 for s in sizes if s > i) for i in range(batch)], dtype=_C.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.cpu())
    return (padded.transpose(0, 1) if batch_first else padded), lengths


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences (L_i, *) (pad_sequence, then pack_padded_sequence)."""
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in the batch's original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
