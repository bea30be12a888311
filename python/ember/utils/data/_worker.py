"""DataLoader worker processes: each loads and collates whole batches, and hands the batch's tensors
to the main process through shared memory.

Note [DataLoader workers]
Workers are started with multiprocessing's "spawn" method by default: a process forked from one
whose OpenMP thread pool has run cannot run a parallel region itself (libgomp hangs in the child),
so a forked worker would hang on its first tensor op. Each worker gets the dataset and collate_fn by
pickling, with every tensor in it moved to a shared-memory file on the way (_SharedPayload: an
in-memory dataset of tensors reaches each worker as one memcpy, not a serialisation), and a queue of
(batch number, indices).

A collated batch goes back as a skeleton of its lists/tuples/dicts in which every tensor is replaced
by a _SharedTensor: the worker copies the tensor's bytes into a file in /dev/shm (a POSIX shared
memory mapping) and sends its path, dtype and shape; the main process maps the file, unlinks it
right away (the mapping lives on until the last tensor over it is freed) and wraps the mapping in a
tensor with ember.frombuffer, so a batch's data crosses the process boundary as one memcpy and no
pickling of its bytes. The main process hands batches out in order, keeping prefetch_factor batches
per worker in flight.
"""
import io
import mmap
import os
import pickle
import queue
import random
import tempfile
import traceback

from ... import _C
from ..._C import Tensor

_SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None


class WorkerInfo:
    """What get_worker_info() returns inside a worker: id, num_workers, seed, dataset."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


class _SharedTensor:
    __slots__ = ("path", "dtype", "shape", "nbytes")

    def __init__(self, path, dtype, shape, nbytes):
        self.path, self.dtype, self.shape, self.nbytes = path, dtype, shape, nbytes


class _Failure:
    """An exception raised in a worker, re-raised in the main process with the worker's traceback."""

    def __init__(self, worker_id, exc):
        self.exc_type = type(exc)
        self.text = f"Caught {type(exc).__name__} in DataLoader worker process {worker_id}.\n" + \
            "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def reraise(self):
        try:
            err = self.exc_type(self.text)
        except Exception:
            err = RuntimeError(self.text)
        raise err


def _to_shared(obj):
    if isinstance(obj, Tensor):
        t = obj.detach().contiguous()
        nbytes = t.numel() * t.element_size()
        fd, path = tempfile.mkstemp(prefix="ember-dl-", dir=_SHM_DIR)
        try:
            os.ftruncate(fd, max(nbytes, 1))
            if nbytes:
                with mmap.mmap(fd, nbytes) as mm:
                    mm[:] = memoryview(t).cast("B")
        finally:
            os.close(fd)
        return _SharedTensor(path, repr(t.dtype).split(".")[-1], tuple(t.shape), nbytes)
    if isinstance(obj, dict):
        return {k: _to_shared(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to_shared(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_shared(v) for v in obj)
    return obj


def _from_shared(obj):
    if isinstance(obj, _SharedTensor):
        dtype = getattr(_C, obj.dtype)
        try:
            if obj.nbytes == 0:
                return _C.empty(list(obj.shape), dtype=dtype)
            fd = os.open(obj.path, os.O_RDWR)
            try:
                mm = mmap.mmap(fd, obj.nbytes)
            finally:
                os.close(fd)
        finally:
            _unlink(obj.path)
        return _C.frombuffer(mm, dtype=dtype).reshape(list(obj.shape))
    if isinstance(obj, dict):
        return {k: _from_shared(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_from_shared(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_from_shared(v) for v in obj)
    return obj


class _ShmPickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return _from_shared, (_to_shared(obj),)
        return NotImplemented


def _loads(data):
    return pickle.loads(data)


class _SharedPayload:
    """Pickles the object it wraps with each tensor inside replaced by a shared-memory file (which the
    receiving process maps and unlinks); unpickles as the object itself."""

    def __init__(self, obj):
        self.obj = obj

    def __reduce__(self):
        buf = io.BytesIO()
        _ShmPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(self.obj)
        return _loads, (buf.getvalue(),)


def _release(obj):
    """Unlinks the shared files of a batch that will never be used (shutdown, errors)."""
    if isinstance(obj, _SharedTensor):
        _unlink(obj.path)
    elif isinstance(obj, dict):
        for v in obj.values():
            _release(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _release(v)


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _worker_loop(dataset, index_queue, result_queue, collate_fn, auto_collation, worker_id, num_workers, seed,
                 init_fn, iterable, batch_size, drop_last):
    from . import dataloader
    random.seed(seed)
    if hasattr(_C, "manual_seed"):
        _C.manual_seed(seed)
    dataloader._worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception as e:  # noqa: BLE001 - the main process re-raises it
        result_queue.put((None, worker_id, _Failure(worker_id, e)))
        return
    if iterable:
        _iterable_loop(dataset, index_queue, result_queue, collate_fn, worker_id, batch_size, drop_last)
        return
    while True:
        item = index_queue.get()
        if item is None:
            return
        n, indices = item
        try:
            if auto_collation:
                getitems = getattr(dataset, "__getitems__", None)
                samples = getitems(indices) if getitems is not None else [dataset[i] for i in indices]
                batch = collate_fn(samples)
            else:
                batch = collate_fn(dataset[indices])
            result_queue.put((n, worker_id, _to_shared(batch)))
        except Exception as e:  # noqa: BLE001
            result_queue.put((n, worker_id, _Failure(worker_id, e)))


def _iterable_loop(dataset, index_queue, result_queue, collate_fn, worker_id, batch_size, drop_last):
    # An IterableDataset worker runs its own copy of the iterator (shard it with get_worker_info());
    # each request from the main process asks for its next batch.
    it = iter(dataset)
    done = False
    while True:
        item = index_queue.get()
        if item is None:
            return
        n, _ = item
        if done:
            result_queue.put((n, worker_id, StopIteration))
            continue
        try:
            if batch_size is None:
                batch = collate_fn(next(it))
            else:
                samples = []
                for sample in it:
                    samples.append(sample)
                    if len(samples) == batch_size:
                        break
                if not samples or (drop_last and len(samples) < batch_size):
                    raise StopIteration
                batch = collate_fn(samples)
            result_queue.put((n, worker_id, _to_shared(batch)))
        except StopIteration:
            done = True
            result_queue.put((n, worker_id, StopIteration))
        except Exception as e:  # noqa: BLE001
            result_queue.put((n, worker_id, _Failure(worker_id, e)))


class _MultiProcessIter:
    """One pass over the data with worker processes (see Note [DataLoader workers])."""

    def __init__(self, loader):
        import multiprocessing
        self._loader = loader
        ctx = loader.multiprocessing_context
        if ctx is None or isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx or "spawn")
        self._workers, self._index_queues = [], []
        self._result_queue = ctx.Queue()
        self._iterable = loader._iterable
        self._timeout = loader.timeout if loader.timeout > 0 else None
        base_seed = random.getrandbits(63) if loader.generator is None else _seed_of(loader.generator)
        self._num_workers = loader.num_workers
        # A worker's ops run on one thread (as PyTorch's workers do): set before the spawned child starts, so
        # that its OpenMP runtime reads it; the parent's runtime has long read its own.
        saved = os.environ.get("OMP_NUM_THREADS")
        os.environ["OMP_NUM_THREADS"] = "1"
        try:
            self._start_workers(ctx, loader, base_seed)
        finally:
            if saved is None:
                del os.environ["OMP_NUM_THREADS"]
            else:
                os.environ["OMP_NUM_THREADS"] = saved
        self._batches = iter(loader.batch_sampler if loader.batch_sampler is not None else loader.sampler) \
            if not self._iterable else None
        self._sent = 0        # batches requested
        self._next = 0        # the batch number to hand out next
        self._ready = {}      # finished batches waiting for their turn
        self._live = set(range(self._num_workers))  # iterable workers not yet exhausted
        self._worker_of = {}
        self._shutdown = False
        for _ in range(loader.prefetch_factor * self._num_workers):
            if not self._request():
                break

    def _start_workers(self, ctx, loader, base_seed):
        for w in range(self._num_workers):
            q = ctx.Queue()
            p = ctx.Process(target=_worker_loop, daemon=True,
                            args=(_SharedPayload(loader.dataset), q, self._result_queue, loader.collate_fn,
                                  loader.batch_size is not None or loader.batch_sampler is not None, w,
                                  self._num_workers, base_seed + w, loader.worker_init_fn, self._iterable,
                                  loader.batch_size, loader.drop_last))
            p.start()
            self._workers.append(p)
            self._index_queues.append(q)

    def _request(self):
        if self._iterable:
            if not self._live:
                return False
            live = sorted(self._live)
            w = live[self._sent % len(live)]
            self._index_queues[w].put((self._sent, None))
        else:
            try:
                indices = next(self._batches)
            except StopIteration:
                return False
            w = self._sent % self._num_workers
            self._index_queues[w].put((self._sent, indices))
        self._worker_of[self._sent] = w
        self._sent += 1
        return True

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            if self._next >= self._sent:
                self.close()
                raise StopIteration
            while self._next not in self._ready:
                try:
                    n, w, payload = self._result_queue.get(timeout=self._timeout or 5.0)
                except queue.Empty:
                    if self._timeout is not None:
                        self.close()
                        raise RuntimeError(f"[DataLoader] timed out after {self._timeout} s waiting for a batch "
                                           "from the workers") from None
                    dead = [p.pid for p in self._workers if not p.is_alive()]
                    if dead:
                        self.close()
                        raise RuntimeError(f"[DataLoader] worker (pid(s) {', '.join(map(str, dead))}) exited "
                                           "unexpectedly") from None
                    continue
                if n is None:  # worker_init_fn failed
                    self.close()
                    payload.reraise()
                self._ready[n] = payload
            payload = self._ready.pop(self._next)
            self._next += 1
            if payload is StopIteration:  # an iterable worker ran out: stop asking it
                self._live.discard(self._worker_of.get(self._next - 1))
                self._request()
                continue
            if isinstance(payload, _Failure):
                self.close()
                payload.reraise()
            self._request()
            return _from_shared(payload)

    def close(self):
        if self._shutdown:
            return
        self._shutdown = True
        for q in self._index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for p in self._workers:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
        # drop what was prefetched and never handed out
        for payload in self._ready.values():
            _release(payload)
        while True:
            try:
                _, _, payload = self._result_queue.get_nowait()
            except (queue.Empty, OSError, ValueError):
                break
            _release(payload)
        self._ready.clear()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _seed_of(generator):
    if isinstance(generator, random.Random):
        return generator.getrandbits(63)
    if isinstance(generator, int):
        return generator
    if hasattr(generator, "initial_seed"):
        return generator.initial_seed()
    return random.getrandbits(63)
