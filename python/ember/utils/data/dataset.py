"""Datasets: map-style (len and integer indexing) and iterable ones."""
import bisect
import collections.abc
import itertools
import math

from ... import _C
from ..._C import Tensor


class Dataset:
    """A map-style dataset: subclasses define __getitem__(index) and __len__()."""

    def __getitem__(self, index):
        raise NotImplementedError(f"[Dataset] {type(self).__name__} does not implement __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read by iterating (__iter__), for streams that cannot be indexed."""

    def __iter__(self):
        raise NotImplementedError(f"[IterableDataset] {type(self).__name__} does not implement __iter__")


class TensorDataset(Dataset):
    """Sample i is (t[i] for t in tensors); every tensor has the same first dimension."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("[TensorDataset] needs at least one tensor")
        n = tensors[0].size(0)
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"[TensorDataset] expected tensors, got {type(t).__name__}")
            if t.dim() == 0 or t.size(0) != n:
                raise ValueError(f"[TensorDataset] size mismatch between tensors: first dimensions "
                                 f"{[t.size(0) if t.dim() else None for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __getitems__(self, indices):
        # A batch at once: one index_select per tensor, then split into samples for the collate function.
        idx = _C.tensor(list(indices), dtype=_C.int64)
        picked = [t.index_select(0, idx) for t in self.tensors]
        return _Batched(picked)

    def __len__(self):
        return self.tensors[0].size(0)


class _Batched(collections.abc.Sequence):
    """What TensorDataset.__getitems__ returns: a sequence of samples (so any collate_fn works) that
    keeps them stacked per field, which default_collate takes as they are."""

    def __init__(self, stacked):
        self.stacked = stacked

    def __len__(self):
        return self.stacked[0].size(0)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return tuple(t[i] for t in self.stacked)


class Subset(Dataset):
    """The samples of dataset at the given indices."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """The datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("[ConcatDataset] datasets should not be an empty iterable")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("[ConcatDataset] absolute value of index should not exceed dataset length")
            idx += len(self)
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[d - 1] if d > 0 else 0
        return self.datasets[d][idx - start]


def random_split(dataset, lengths, generator=None):
    """Splits dataset into non-overlapping random Subsets of the given lengths (or fractions summing to 1)."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("[random_split] sum of input lengths does not equal the length of the input dataset")
    from .sampler import _rng
    perm = list(range(n))
    _rng(generator).shuffle(perm)
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + length]))
        offset += length
    return out
