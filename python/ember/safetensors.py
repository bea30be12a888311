"""ember.safetensors: Hugging Face's safetensors files, with the names of the `safetensors.torch` package
(save_file, load_file, save, load), over libember's torch::safetensors.

    ember.safetensors.save_file({"w": w, "b": b}, "model.safetensors", metadata={"format": "pt"})
    tensors = ember.safetensors.load_file("model.safetensors")   # {"b": ..., "w": ...}
    with ember.safetensors.safe_open("model.safetensors", framework="pt") as f:
        w = f.get_tensor("w")

load_file memory-maps the file: tensors whose bytes are aligned share a private copy-on-write mapping
(writes to them never reach the file). Tensors are saved from their contiguous values; errors raise
RuntimeError "[safetensors] ...".
"""
import os as _os

from . import _C

__all__ = ["save", "save_file", "load", "load_file", "load_metadata", "safe_open"]


def save(tensors, metadata=None):
    """The bytes of a safetensors file holding `tensors` (a dict of str to Tensor)."""
    return _C._safetensors_save(tensors, metadata)


def save_file(tensors, filename, metadata=None):
    """Writes `tensors` (a dict of str to Tensor) to `filename` (through a temporary file renamed over it)."""
    _C._safetensors_save_file(tensors, _os.fspath(filename), metadata)


def load(data):
    """The tensors of a safetensors file held in `data` (bytes), as a dict in the file's order."""
    return _C._safetensors_load(data)[0]


def load_file(filename, device="cpu"):
    """The tensors of the safetensors file `filename`, as a dict in the file's order, on `device`."""
    tensors = _C._safetensors_load_file(_os.fspath(filename))[0]
    dev = _C.device(device) if isinstance(device, str) else device
    if dev.type != "cpu":
        tensors = {k: v.to(dev) for k, v in tensors.items()}
    return tensors


def load_metadata(filename):
    """The free-form "__metadata__" strings of a safetensors file (its header only is read)."""
    return _C._safetensors_load_metadata(_os.fspath(filename))


class safe_open:
    """A safetensors file opened for reading by name, as safetensors' safe_open (framework "pt" or "ember"):
    keys(), get_tensor(name), metadata(). The file is mapped once; tensors are views of the mapping."""

    def __init__(self, filename, framework="pt", device="cpu"):
        if framework not in ("pt", "torch", "ember"):
            raise ValueError(f"[safetensors] framework must be 'pt' (Ember tensors), got {framework!r}")
        self._tensors = load_file(filename, device)
        self._metadata = load_metadata(filename)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._tensors = {}
        return False

    def keys(self):
        return list(self._tensors)

    def metadata(self):
        return dict(self._metadata)

    def get_tensor(self, name):
        try:
            return self._tensors[name]
        except KeyError:
            raise KeyError(f"[safetensors] no tensor named {name!r} in the file") from None
