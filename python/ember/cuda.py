"""ember.cuda (torch.cuda's common names): whether a CUDA device can be used, how many, and the
caching allocator's queries. In a build without CUDA, or on a machine without a device,
is_available() is False and device_count() 0."""
from . import _C


def _index(device):
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    d = _C.device(device) if isinstance(device, str) else device
    return -1 if d.index is None else d.index


def is_available():
    """True when a CUDA device can be used."""
    return _C._cuda_is_available()


def device_count():
    """The number of visible CUDA devices."""
    return _C._cuda_device_count()


def synchronize(device=None):
    """Waits for the work queued on `device` (the current one by default)."""
    _C._cuda_synchronize(_index(device))


def empty_cache():
    """Returns the caching allocator's unused blocks to the driver."""
    _C._cuda_empty_cache()


def memory_allocated(device=None):
    """Bytes in live CUDA tensors on `device`."""
    return _C._cuda_memory_allocated(_index(device))


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the driver on `device`."""
    return _C._cuda_memory_reserved(_index(device))
