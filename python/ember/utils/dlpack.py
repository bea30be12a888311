"""ember.utils.dlpack: DLPack exchange under PyTorch's module name (torch.utils.dlpack).

    from ember.utils.dlpack import to_dlpack, from_dlpack
    capsule = to_dlpack(t)          # a legacy "dltensor" capsule sharing t's memory
    u = from_dlpack(capsule)        # or from_dlpack(any object with __dlpack__)
"""
from .._C import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
