"""DataLoader: batches of a dataset, in order or shuffled, collated into tensors."""
import collections.abc
import numbers

from ... import _C
from ..._C import Tensor
from .dataset import IterableDataset, _Batched
from .sampler import BatchSampler, RandomSampler, SequentialSampler


def default_collate(batch):
    """Stacks a list of samples into a batch: tensors with ember.stack, Python numbers into a tensor,
    tuples/lists field by field (giving a list), dicts key by key, strings into a list."""
    if isinstance(batch, _Batched):
        return list(batch.stacked)
    if len(batch) == 0:
        raise ValueError("[default_collate] cannot collate an empty batch")
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _C.stack(list(batch), 0)
    if isinstance(elem, bool):
        return _C.tensor(list(batch), dtype=_C.bool)
    if isinstance(elem, int):
        return _C.tensor(list(batch), dtype=_C.int64)
    if isinstance(elem, float):
        return _C.tensor(list(batch), dtype=_C.float64)
    if isinstance(elem, numbers.Number):
        return _C.tensor([complex(x) if isinstance(x, complex) else float(x) for x in batch], dtype=_C.float64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple stays one
        return type(elem)(*(default_collate(list(samples)) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(e) != n for e in batch):
            raise RuntimeError("[default_collate] each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    if hasattr(elem, "__array__") and hasattr(elem, "dtype"):  # NumPy arrays and scalars
        if getattr(elem, "ndim", 0) == 0:
            return _C.tensor([x.item() for x in batch])
        from_numpy = getattr(_C, "from_numpy", None)
        return _C.stack([from_numpy(x) if from_numpy is not None else _C.tensor(x.tolist()) for x in batch], 0)
    raise TypeError(f"[default_collate] batch must contain tensors, numbers, dicts or lists; found {type(elem)}")


def default_convert(data):
    return data


_worker_info = None


def get_worker_info():
    """In a DataLoader worker process, its WorkerInfo (id, num_workers, seed, dataset); None in the
    main process."""
    return _worker_info


class DataLoader:
    """Iterates over a dataset in batches.

    DataLoader(dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None, num_workers=0,
    collate_fn=None, drop_last=False, generator=None, ...). shuffle draws a new permutation each epoch
    from generator (a random.Random or an int seed; see Note [DataLoader randomness]); batch_size=None
    yields single samples without collating. A dataset with __getitems__ (TensorDataset has one) is
    asked for a whole batch at once. num_workers > 0 loads batches in that many worker processes
    (spawned; dataset and collate_fn must pickle) that pass tensors back through shared memory, in
    order (see Note [DataLoader workers] in _worker.py).
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("[DataLoader] num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing")
        if num_workers == 0 and (prefetch_factor is not None or persistent_workers):
            raise ValueError("[DataLoader] prefetch_factor and persistent_workers need num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = 2 if prefetch_factor is None else prefetch_factor
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers  # accepted; workers are started for each pass
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle:
                raise ValueError("[DataLoader] with an IterableDataset, shuffle must not be set")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("[DataLoader] with an IterableDataset, sampler and batch_sampler must not be set")
        if sampler is not None and shuffle:
            raise ValueError("[DataLoader] sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("[DataLoader] batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("[DataLoader] batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if (batch_size is not None or batch_sampler is not None) else default_convert
        self.collate_fn = collate_fn

    def _fetch(self, indices):
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            return getitems(indices)
        return [self.dataset[i] for i in indices]

    def __iter__(self):
        if self.num_workers > 0:
            from ._worker import _MultiProcessIter
            return _MultiProcessIter(self)
        return self._single_process_iter()

    def _single_process_iter(self):
        if self._iterable:
            if self.batch_size is None:
                for sample in self.dataset:
                    yield self.collate_fn(sample)
                return
            batch = []
            for sample in self.dataset:
                batch.append(sample)
                if len(batch) == self.batch_size:
                    yield self.collate_fn(batch)
                    batch = []
            if batch and not self.drop_last:
                yield self.collate_fn(batch)
            return
        if self.batch_sampler is None:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
            return
        for indices in self.batch_sampler:
            yield self.collate_fn(self._fetch(indices))

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
