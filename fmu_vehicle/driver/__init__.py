"""Drivers: open-loop steering profiles and robots, paths and a closed-loop path follower (docs/handling.md).

The names below are imported on first use (PEP 562), so that a module of this package (e.g. ``open_loop``, which
the Robot FMU uses) does not pull in the others and their dependencies.
"""
import importlib

_EXPORTS = {"Path": "path", "Projection": "path", "DriverParams": "path_follower", "PathFollower": "path_follower",
            "load_driver_params": "path_follower", "SteeringProfile": "profile", "OpenLoopDriver": "open_loop"}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
