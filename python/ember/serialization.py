"""ember.save / ember.load: checkpoints in PyTorch's format (the zip archive with a pickle that
torch.save writes and torch.load reads), through libember's torch::pickle_save / pickle_load.

    ember.save(model.state_dict(), "model.pt")       # torch.load("model.pt") reads it
    sd = ember.load("model.pt")                        # also files written by Python's torch.save

What can be saved: tensors, None, bool, int, float, str, and lists, tuples and dicts of them (dict
keys: str, int, float, bool or None). Tensors that share a storage are written once and load as views
of one storage again; a tensor that requires grad loads requiring grad. An nn.Parameter is written as
torch.save writes one (torch._utils._rebuild_parameter) and loads as an nn.Parameter, whoever wrote the
file; one saved twice loads as one object.

Loading runs no code, whatever `weights_only` says: the reader understands only the globals of a
weights-only checkpoint (tensors, their storages, OrderedDict, nn.Parameter) and raises RuntimeError
"[pickle_load] ..." for any other. Dicts load as plain dicts (a state_dict's OrderedDict too, without
its `_metadata`), lists of ints as lists.

This module also makes tensors work with Python's pickle (pickle.dumps(t), multiprocessing: the same
format, one archive per tensor) and copy.deepcopy (leaf tensors; views of one storage stay views of
one new storage within a deep copy; .grad is copied too).
"""
import os as _os
import pickle as _pickle

from . import _C

__all__ = ["save", "load"]


class UnpicklingError(RuntimeError, _pickle.UnpicklingError):
    """ember.load of data that is no zip checkpoint: what torch.load raises there (pickle's
    UnpicklingError), and a RuntimeError like Ember's other load errors."""


def _is_path(f):
    return isinstance(f, (str, bytes, _os.PathLike))


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Writes `obj` to `f` (a path or a binary file object with write()) in PyTorch's checkpoint format."""
    if pickle_module is not None:
        raise ValueError("[save] Ember writes checkpoints with its own pickler; pickle_module is not supported")
    if not _use_new_zipfile_serialization:
        raise ValueError("[save] Ember writes only the zip format (_use_new_zipfile_serialization=True)")
    data = _C._pickle_save(obj)
    if _is_path(f):
        with open(f, "wb") as out:
            out.write(data)
    elif hasattr(f, "write"):
        f.write(data)
    else:
        raise TypeError(f"[save] expected a path or a file object with write(), got {type(f).__name__}")


def _map(obj, fn):
    if isinstance(obj, _C.Tensor):
        return fn(obj)
    if isinstance(obj, list):
        return [_map(x, fn) for x in obj]
    if isinstance(obj, tuple):
        return tuple(_map(x, fn) for x in obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    return obj


def _location_fn(map_location):
    # Every loaded tensor is on the CPU: a device (or its string) moves them there, a dict maps the
    # saved location "cpu" to a device.
    if isinstance(map_location, dict):
        target = map_location.get("cpu")
        if target is None:
            return None
        map_location = target
    if isinstance(map_location, (str, _C.device)):
        dev = _C.device(map_location) if isinstance(map_location, str) else map_location
        if dev.type == "cpu":
            return None

        def move(t):
            moved = t.detach().to(dev)
            return moved.requires_grad_(True) if t.requires_grad else moved
        return move
    raise TypeError("[load] map_location must be None, a device, a device string or a dict of them; got "
                    f"{type(map_location).__name__}")


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Reads a checkpoint written by ember.save, Python's torch.save or libtorch's torch::pickle_save
    from `f` (a path or a binary file object with read()). Tensors load on the CPU unless
    `map_location` names a device."""
    if pickle_module is not None:
        raise ValueError("[load] Ember reads checkpoints with its own unpickler; pickle_module is not supported")
    if pickle_load_args:
        raise TypeError(f"[load] unexpected keyword arguments {sorted(pickle_load_args)}")
    del weights_only, mmap  # the reader is weights-only always; it reads the whole file
    if _is_path(f):
        with open(f, "rb") as src:
            data = src.read()
    elif hasattr(f, "read"):
        data = f.read()
    else:
        raise TypeError(f"[load] expected a path or a file object with read(), got {type(f).__name__}")
    if not bytes(data[:4]) == b"PK\x03\x04":
        raise UnpicklingError("[load] the data is not a checkpoint in PyTorch's zip format (the only one Ember "
                              "reads; torch.save writes it unless _use_new_zipfile_serialization=False)")
    obj = _C._pickle_load(data)
    if map_location is not None:
        fn = _location_fn(map_location)
        if fn is not None:
            obj = _map(obj, fn)
    return obj


# ---------------------------------------------------------------- Python's pickle and copy.deepcopy


def _rebuild_tensor(data):
    return _C._pickle_load(data)


def _reduce_ex(self, protocol):
    return (_rebuild_tensor, (_C._pickle_save(self),))


def _storage_copy(t, memo):
    """t's values as a new tensor with t's geometry over a copy of t's whole storage, the copy made once per
    storage within one deep copy (memo), so that tensors viewing one storage view one new storage."""
    key = ("ember.storage", _C._storage_key(t), t.dtype)
    whole = memo.get(key)
    if whole is None:
        whole = _C._storage_clone(t)
        memo[key] = whole
    return _C._storage_view(whole, t)


def _deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError("[deepcopy] only leaf tensors (made by the user, not computed by ops that record a "
                           "graph) can be deep-copied; deep-copy t.detach() instead")
    done = memo.get(id(self))
    if done is not None:
        return done
    new = _storage_copy(self, memo)
    if self.requires_grad:
        new.requires_grad_(True)
    if self.grad is not None:
        new.grad = _deepcopy(self.grad, memo)
    memo[id(self)] = new
    return new


_C.Tensor.__reduce_ex__ = _reduce_ex
_C.Tensor.__deepcopy__ = _deepcopy
