"""Padding variable-length sequences into one tensor (pad_sequence) and back (unpad_sequence)."""
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
