"""What every dask worker of a sweep does when it starts, kept apart from ``fmu_vehicle.adas.sweep``.

A worker unpickles a task's function and arguments before it runs it, and for a sweep task that imports
``fmu_vehicle.adas.sweep``, whose imports define compiled functions and so fix numba's CPU target.  The
target must be the portable one before that, so that the FMUs load the kernels they ship instead of compiling
them in the worker (minutes).  This module imports nothing of the package at its import, so unpickling
:class:`PortableCpu` on a worker fixes nothing; its ``setup`` then pins the target.  The scheduler runs a
registered plugin's ``setup`` on every worker that joins before the worker takes a task, the replacement a
nanny starts for a worker that died included: that worker computes the same numbers as the one it replaces.
"""
from __future__ import annotations

from distributed.diagnostics.plugin import WorkerPlugin


class PortableCpu(WorkerPlugin):
    """Worker plugin: numba's CPU target pinned to the portable one (``numerics.jit.pin_portable_cpu``) when the
    worker starts, before it unpickles a task."""

    name = "fmu_vehicle-portable-cpu"
    idempotent = True

    def setup(self, worker) -> None:
        from fmu_vehicle.numerics.jit import pin_portable_cpu
        pin_portable_cpu()
