"""ember.random (torch.random's names): the default generator's seed and state, and fork_rng."""
import contextlib as _contextlib

from . import default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: F401


@_contextlib.contextmanager
def fork_rng(devices=None, enabled=True, **_):
    """Runs its block with the default CPU generator's state saved and restored afterwards, so random
    draws inside leave the stream outside unchanged. (CUDA generators are not forked.)"""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
