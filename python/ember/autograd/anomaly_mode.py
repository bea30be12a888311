"""Anomaly mode: while on, backward checks every gradient a node produces for NaN and raises
naming the node (and the forward op that recorded it)."""
import functools as _functools

from .. import _C


def is_anomaly_enabled():
    return _C._is_anomaly_enabled()


class detect_anomaly:
    """Turns anomaly mode on for a block (or, as a decorator, for a function's calls);
    detect_anomaly(check_nan=False) turns it off there instead."""

    def __init__(self, check_nan=True):
        self.check_nan = bool(check_nan)

    def __enter__(self):
        self._prev = _C._is_anomaly_enabled()
        _C._set_detect_anomaly(self.check_nan)

    def __exit__(self, *exc):
        _C._set_detect_anomaly(self._prev)
        return False

    def __call__(self, fn):
        check_nan = self.check_nan

        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Sets anomaly mode from now on, or for a `with` block (restored on exit)."""

    def __init__(self, mode, check_nan=True):
        self._prev = _C._is_anomaly_enabled()
        _C._set_detect_anomaly(bool(mode) and bool(check_nan))

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_detect_anomaly(self._prev)
        return False
